//===- operands.cpp - the operands a call launches on ---------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The copies gpupoor::split_k_matmul makes of its operands before the
// launcher plans a launch on them (launchOperands): an A stored K x M copied
// M x K, rows off 16 bytes padded, by the library's row-copy kernel.
//
//===----------------------------------------------------------------------===//

#include "operands.h"
#include "loader.h"

#include "gpupoor/Policy/Policy.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>

#include <atomic>
#include <iterator>
#include <limits>
#include <optional>
#include <vector>

namespace gpupoor::package {
namespace {

/// The bytes `t`'s rows lie on (policy::rowAlignBytes): its start, the
/// stride of the one of its last two dimensions that lacks a unit stride
/// (unless of size 1: never applied) and a batch's. 16: the fast kernels
/// read its rows as they lie (their manifests' checks,
/// policy::requiredChecks). An operand without a unit stride counts as
/// read so: its copy is the element kernels' business, as before.
int64_t rowBytes(const at::Tensor &t) {
  int64_t unit = t.stride(-1) == 1 ? -1 : t.stride(-2) == 1 ? -2 : 0;
  if (unit == 0)
    return policy::kRowAlignBytes;
  int64_t other = unit == -1 ? -2 : -1;
  auto addr = reinterpret_cast<uintptr_t>(t.data_ptr());
  return policy::rowAlignBytes(
      int64_t(addr % policy::kRowAlignBytes) / int64_t(t.element_size()),
      t.size(other) == 1 ? 0 : t.stride(other), t.dim() < 3 ? 0 : t.stride(0));
}

/// The policy's problem of a times b (A read along M where a has a unit
/// stride along M only; B as N x K likewise), on `info`'s first chip and SM
/// count; none where the chip is not known.
std::optional<policy::Problem> problemOf(const at::Tensor &a,
                                         const at::Tensor &b, int64_t slices,
                                         int64_t maxSplits,
                                         const DeviceInfo &info) {
  std::optional<policy::Chip> chip =
      info.chips.empty() ? std::nullopt : policy::parseChip(info.chips.front());
  if (!chip)
    return std::nullopt;
  policy::Problem p;
  p.chip = *chip;
  p.shape.batched = a.dim() == 3;
  p.shape.batch = p.shape.batched ? a.size(0) : 1;
  p.shape.m = a.size(-2);
  p.shape.n = b.size(-1);
  p.k = a.size(-1);
  p.aLayout = a.stride(-2) == 1 && a.stride(-1) != 1 ? policy::ALayout::KM
                                                     : policy::ALayout::MK;
  p.aRowsAligned = rowsAligned(a);
  p.bLayout = b.stride(-2) == 1 && b.stride(-1) != 1 ? policy::BLayout::NK
                                                     : policy::BLayout::KN;
  p.slices = slices;
  p.maxSplits = maxSplits;
  p.smCount = info.smCount;
  return p;
}

/// Whether the policy copies a's and b's rows that lie off 16 bytes into
/// padded rows (policy::copiesUnalignedOperands, on how they lie:
/// rowBytes); where the chip is not known, by the rules of one without the
/// pieces' (sm_80's).
bool unalignedCopiesPay(const at::Tensor &a, const at::Tensor &b,
                        int64_t slices, int64_t maxSplits,
                        const DeviceInfo *info) {
  int64_t aBytes = rowBytes(a), bBytes = rowBytes(b);
  if (aBytes == policy::kRowAlignBytes && bBytes == policy::kRowAlignBytes)
    return false;
  DeviceInfo device = info ? *info : deviceInfo(a.get_device());
  if (device.chips.empty() || !policy::parseChip(device.chips.front()))
    device.chips = {"sm_80"};
  std::optional<policy::Problem> p = problemOf(a, b, slices, maxSplits, device);
  return policy::copiesUnalignedOperands(*p, aBytes, bBytes);
}

std::atomic<UnalignedCopies> unalignedCopies{UnalignedCopies::Policy};

/// Copies `src` into `dst` (same sizes, 2 or 3 dimensions, 2-byte elements,
/// unit stride along the last) with the library's row-copy kernel, in
/// 16-byte words (lib/Transforms/RowCopy.h); false, copying nothing, where
/// the library has none for the device.
bool copyRows(const at::Tensor &src, const at::Tensor &dst) {
  if (!src.is_cuda() || src.element_size() != 2 || src.dim() < 2 ||
      src.dim() > 3 || src.stride(-1) != 1 || dst.stride(-1) != 1 ||
      src.numel() == 0)
    return false;
  int device = src.get_device();
  std::shared_ptr<const RowCopyKernel> kernel;
  for (const std::string &chip : deviceInfo(device).chips)
    if ((kernel = rowCopyKernel(chip)))
      break;
  if (!kernel)
    return false;
  bool batched = src.dim() == 3;
  // One past the source's last element (torch's strides are never
  // negative), as the compiler's launch computes it (RowCopy.cpp).
  int64_t span = 1;
  for (int64_t d = 0; d < src.dim(); ++d)
    span += (src.size(d) - 1) * src.stride(d);
  auto addr = [](const at::Tensor &t) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.data_ptr()));
  };
  // In rowcopy::kRowCopyParams' order, which rowCopyKernel checked the
  // kernel's to be.
  int64_t batch = batched ? src.size(0) : 1;
  int64_t values[] = {addr(src),      addr(dst),
                      batch,          src.size(-2),
                      src.size(-1),   batched ? src.stride(0) : 0,
                      src.stride(-2), batched ? dst.stride(0) : 0,
                      dst.stride(-2), addr(src) + 2 * span};
  static_assert(std::size(values) ==
                std::size(mlir::gpupoor::rowcopy::kRowCopyParams));
  void *params[std::size(values)];
  for (size_t i = 0; i < std::size(values); ++i)
    params[i] = &values[i];
  int64_t chunk = mlir::gpupoor::rowcopy::kRowCopyChunkElems;
  int64_t chunks = batch * src.size(-2) * ((src.size(-1) + chunk - 1) / chunk);
  LoadedKernel &loaded = load(kernel->info);
  int64_t blocks = (chunks + loaded.block - 1) / loaded.block;
  TORCH_CHECK(blocks <= std::numeric_limits<int32_t>::max(),
              "gpupoor: a padded copy of ", src.numel(),
              " elements is more than one launch of the row-copy kernel");
  runtime::Launch l;
  l.grid[0] = static_cast<unsigned>(blocks);
  l.block[0] = loaded.block;
  l.stream = reinterpret_cast<CUstream>(
      c10::cuda::getCurrentCUDAStream(device).stream());
  CUfunction fn = loaded.function(device);
  CUresult err = runtime::launchKernel(fn, l, params);
  if (err == CUDA_ERROR_INVALID_CONTEXT) {
    PrimaryContext context(device);
    err = runtime::launchKernel(fn, l, params);
  }
  check(err, "cuLaunchKernel(" + loaded.name + ")");
  return true;
}

/// `t` padded (paddedRows) where the fast kernels cannot read its rows,
/// along its own unit stride.
at::Tensor alignedRows(const at::Tensor &t) {
  return rowsAligned(t) ? t : paddedRows(t, t.stride(-1) == 1);
}

} // namespace

void setUnalignedCopies(UnalignedCopies copies) { unalignedCopies = copies; }

bool rowsAligned(const at::Tensor &t) {
  return rowBytes(t) == policy::kRowAlignBytes;
}

at::Tensor paddedRows(const at::Tensor &t, bool alongLast) {
  at::Tensor s = alongLast ? t : t.transpose(-2, -1);
  std::vector<int64_t> shape = s.sizes().vec();
  int64_t cols = shape.back();
  shape.back() = policy::paddedRowElems(cols);
  at::Tensor copy = at::empty(shape, s.options()).narrow(-1, 0, cols);
  if (!copyRows(s, copy))
    copy.copy_(s);
  return alongLast ? copy : copy.transpose(-2, -1);
}

LaunchOperands launchOperands(at::Tensor a, at::Tensor b, int64_t slices,
                              int64_t maxSplits, const DeviceInfo *info) {
  bool batched = a.dim() == 3;
  int64_t m = a.size(-2), k = a.size(-1);
  // A read along M (a transposed activation, the weight gradient's
  // grad^T) takes a kernel that reads it so where the policy's launch reads
  // A as K x M, first copied as it lies into padded rows where its rows lie
  // off 16 bytes or start off them (policy::Strategy::padsA, from
  // rowsAligned). Otherwise (the policy copies it K-contiguous first,
  // policy::copiesKMajorA, or the family it chooses has no K x M variant,
  // as on chips before sm_90a) it is copied M x K: M x K elements, fewer
  // than the element-copy kernels would read again for every tile. The
  // copies' rows are padded to 16 bytes (paddedRows), which the fast
  // kernels need of any K.
  bool copiedFromKM = false;
  if (a.stride(-2) == 1 && a.stride(-1) != 1) {
    std::optional<policy::Problem> problem = problemOf(
        a, b, slices, maxSplits, info ? *info : deviceInfo(a.get_device()));
    std::optional<policy::Launch> launch;
    if (problem)
      launch = policy::chooseLaunch(*problem);
    if (!launch || launch->aLayout != policy::ALayout::KM) {
      a = paddedRows(a, /*alongLast=*/true);
      copiedFromKM = true;
    } else if (launch->padsA)
      a = paddedRows(a, /*alongLast=*/false);
  }
  // Operands whose rows lie off 16 bytes (K, or B's N, no multiple of 8)
  // are copied into padded rows where the policy says the copy pays.
  UnalignedCopies copies = unalignedCopies;
  if (copies == UnalignedCopies::Always ||
      (copies == UnalignedCopies::Policy &&
       unalignedCopiesPay(a, b, slices, maxSplits, info))) {
    a = alignedRows(a);
    b = alignedRows(b);
  }
  // A single row's stride is no stride: the row-stride checks of the fast
  // kernels (multiples of 8 elements) hold for the dense one where K is a
  // multiple of 8 (otherwise the element kernels take the row).
  if (m == 1 && a.stride(-1) == 1)
    a = batched ? a.as_strided({a.size(0), 1, k}, {a.stride(0), k, 1})
                : a.as_strided({1, k}, {k, 1});
  return {a, b, copiedFromKM};
}

} // namespace gpupoor::package
