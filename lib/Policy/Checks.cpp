//===- Checks.cpp - what a kernel needs of its operands -------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/Checks.h"

#include "PolicyUtils.h"
#include "gpupoor/Policy/Tiles.h"

#include <algorithm>
#include <limits>

using namespace mlir::gpupoor::policy;

OperandChecks mlir::gpupoor::policy::requiredChecks(const KernelTraits &t) {
  OperandChecks c;
  if (t.asyncCopies) {
    // 16-byte cp.async copies of A and B rows.
    c.unitStride = {t.aMMajor ? "stride_am" : "stride_ak",
                    t.bTransposed ? "stride_bk" : "stride_bn"};
    c.strideMultipleOf8 = {t.aMMajor ? "stride_ak" : "stride_am",
                           t.bTransposed ? "stride_bn" : "stride_bk"};
    // Every batch element's rows start 16-byte aligned.
    if (t.batched) {
      c.strideMultipleOf8.push_back("stride_ab");
      c.strideMultipleOf8.push_back("stride_bb");
    }
    c.pointerAligned16 = {"a_ptr", "b_ptr"};
  }
  if (t.tmaCopies) {
    // A tensor map steps forward over A's and B's rows: M (N) of them as
    // M x K (N x K), K as K x M (K x N).
    if (t.aMMajor)
      c.positiveRowStride.push_back({"stride_ak", "K"});
    else
      c.positiveRowStride.push_back({"stride_am", "M"});
    if (t.bTransposed)
      c.positiveRowStride.push_back({"stride_bn", "N"});
    else
      c.positiveRowStride.push_back({"stride_bk", "K"});
    // A batched kernel's maps step forward a batch element at a time.
    if (t.batched) {
      c.positiveRowStride.push_back({"stride_ab", "batch"});
      c.positiveRowStride.push_back({"stride_bb", "batch"});
    }
  }
  if (t.persistent)
    c.maxWorkTiles = kMax32BitOffset - t.smCount;
  if (t.indexBitwidth == 32) {
    c.maxSize = kMax32BitSize;
    c.maxOffset = kMax32BitOffset;
  }
  return c;
}

OperandChecks mlir::gpupoor::policy::cTensorMapChecks(bool batched) {
  OperandChecks c;
  c.unitStride = {"stride_cn"};
  c.strideMultipleOf8 = {"stride_cm", "N"};
  c.pointerAligned16 = {"c_ptr"};
  c.positiveRowStride = {{"stride_cm", "M"}};
  // A batched C's map steps a batch element at a time.
  if (batched) {
    c.strideMultipleOf8.push_back("stride_cb");
    c.positiveRowStride.push_back({"stride_cb", "batch"});
  }
  return c;
}

namespace {
/// The parameter values, each read by name (a missing one is the
/// launcher's bug, reported as a violation rather than read as 0).
struct Args {
  const std::map<std::string, int64_t> &values;
  std::optional<std::string> missing;

  int64_t operator()(const std::string &name) {
    auto it = values.find(name);
    if (it != values.end())
      return it->second;
    if (!missing)
      missing = name;
    return 0;
  }
  bool has(const std::string &name) const { return values.count(name); }
};
} // namespace

std::vector<Bound>
mlir::gpupoor::policy::offsetBounds(const OperandChecks &checks,
                                    int64_t epilogueInputs) {
  int64_t top = *checks.maxSize, most = *checks.maxOffset;
  std::vector<std::string> ranged = {"M",         "N",         "K",
                                     "stride_am", "stride_ak", "stride_bk",
                                     "stride_bn", "stride_cm", "stride_cn"};
  std::vector<std::pair<std::string, OffsetView>> views = {
      {"A", {"M", "stride_am", "K", "stride_ak"}},
      {"B", {"K", "stride_bk", "N", "stride_bn"}},
      {"C", {"M", "stride_cm", "N", "stride_cn"}}};
  // The kernel reads epilogue operands as M x N views.
  for (int64_t i = 0; i < epilogueInputs; ++i) {
    std::string in = "in" + std::to_string(i);
    ranged.push_back("stride_" + in + "m");
    ranged.push_back("stride_" + in + "n");
    views.push_back(
        {in, {"M", "stride_" + in + "m", "N", "stride_" + in + "n"}});
  }
  std::vector<Bound> bounds;
  for (const std::string &name : ranged)
    bounds.push_back({Bound::Kind::Range, name, {}, 1, 1, top, "", 0});
  for (const auto &[what, view] : views)
    bounds.push_back(
        {Bound::Kind::LastOffset, what, view, 1, 1, most, "", top});
  return bounds;
}

std::vector<Bound>
mlir::gpupoor::policy::kernelBounds(const OperandChecks &checks,
                                    const CheckedKernel &kernel,
                                    int64_t epilogueInputs) {
  std::vector<Bound> bounds = offsetBounds(checks, epilogueInputs);
  int64_t most = *checks.maxOffset;
  // The grouped block order multiplies group_m by the column tiles.
  bounds.push_back({Bound::Kind::Scaled,
                    "N",
                    {},
                    kernel.tile[1],
                    kernel.groupM,
                    most,
                    "N is too large for the 32-bit kernel's block order",
                    0});
  // Each slot of slice sums holds a tile slice's sums and its flag.
  if (kernel.sliceSumElems > 0)
    bounds.push_back({Bound::Kind::Scaled,
                      "sum_slots",
                      {},
                      1,
                      kernel.sliceSumElems + 4,
                      most,
                      "the slice sums pass 2^31 elements (32-bit kernel)",
                      0});
  return bounds;
}

int64_t mlir::gpupoor::policy::sumSlots(int64_t tiles, int64_t slices) {
  int64_t slots = 0;
  if (slices <= 1)
    return 0;
  if (__builtin_mul_overflow(tiles, slices, &slots))
    return std::numeric_limits<int64_t>::max();
  return slots;
}

namespace {
/// A bound on an integer, or none (unbounded). Products and sums of two
/// int64 values are exact in 128 bits.
using Limit = std::optional<__int128>;

/// [lo, hi] of (size - 1) * stride, sizes and strides in [0, most] (the
/// Range bounds'): both ends always known.
std::pair<__int128, __int128> termRange(KnownRange size, KnownRange stride,
                                        int64_t most) {
  auto clamp = [&](std::optional<int64_t> v, int64_t unknown) {
    return std::clamp<int64_t>(v.value_or(unknown), 0, most);
  };
  __int128 sLo = __int128(clamp(size.lo, 0)) - 1;
  __int128 tLo = clamp(stride.lo, 0);
  __int128 sHi = __int128(clamp(size.hi, most)) - 1;
  __int128 tHi = clamp(stride.hi, most);
  // The least is sLo * tLo, unless the size may be 0 (sLo = -1): then
  // -stride at its largest. The most: -tLo for a size of 0, 0 for a size
  // of at most 1 or a zero stride (a broadcast, whatever the size), else
  // the largest of both.
  __int128 lo = sLo >= 0 ? sLo * tLo : -tHi;
  __int128 hi = sHi < 0 ? -tLo : sHi == 0 || tHi == 0 ? 0 : sHi * tHi;
  return {lo, hi};
}

/// ceil(x / d) for x >= 0, d > 0.
__int128 ceilDiv128(__int128 x, int64_t d) { return (x + d - 1) / d; }
} // namespace

std::optional<bool> mlir::gpupoor::policy::boundHolds(
    const Bound &bound,
    const std::function<KnownRange(const std::string &)> &known,
    std::string *why) {
  Limit lo, hi;
  switch (bound.kind) {
  case Bound::Kind::Range: {
    KnownRange v = known(bound.name);
    bool below = v.hi && *v.hi < 0, above = v.lo && *v.lo > bound.limit;
    if (below || above) {
      if (why)
        *why = bound.name + " = " + std::to_string(above ? *v.lo : *v.hi) +
               " is outside [0, " + std::to_string(bound.limit) +
               "] (32-bit kernel)";
      return false;
    }
    if (v.lo && *v.lo >= 0 && v.hi && *v.hi <= bound.limit)
      return true;
    return std::nullopt;
  }
  case Bound::Kind::LastOffset: {
    const OffsetView &v = bound.view;
    auto [rowsLo, rowsHi] =
        termRange(known(v.rows), known(v.rowStride), bound.termLimit);
    auto [colsLo, colsHi] =
        termRange(known(v.cols), known(v.colStride), bound.termLimit);
    lo = rowsLo + colsLo;
    hi = rowsHi + colsHi;
    if (why)
      *why = bound.name + "'s last element offset passes " +
             std::to_string(bound.limit) + " (32-bit kernel)";
    break;
  }
  case Bound::Kind::Scaled: {
    // (Not negative: N by its Range bound, sum_slots by what it counts.)
    KnownRange v = known(bound.name);
    lo = ceilDiv128(std::max<int64_t>(v.lo.value_or(0), 0), bound.divisor) *
         bound.factor;
    if (v.hi)
      hi =
          ceilDiv128(std::max<int64_t>(*v.hi, 0), bound.divisor) * bound.factor;
    if (why)
      *why = bound.broken;
    break;
  }
  }
  if (lo && *lo > bound.limit)
    return false;
  if (hi && *hi <= bound.limit)
    return true;
  return std::nullopt;
}

std::optional<std::string> mlir::gpupoor::policy::violation(
    const OperandChecks &c, const CheckedKernel &kernel,
    const std::map<std::string, int64_t> &values, int64_t slices) {
  Args arg{values, std::nullopt};
  // T, the launch's tiles: whole clusters of row tiles, saturating for any
  // sizes the launcher passes (launchTiles).
  auto launchTileCount = [&] {
    CShape shape{arg.has("batch"), arg.has("batch") ? arg("batch") : 1,
                 arg("M"), arg("N")};
    return launchTiles(shape, kernel.tile, kernel.clusterM);
  };
  std::optional<std::string> why = [&]() -> std::optional<std::string> {
    for (const std::string &name : c.unitStride)
      if (int64_t v = arg(name); v != 1)
        return name + " = " + std::to_string(v) + ", not 1";
    for (const std::string &name : c.strideMultipleOf8)
      if (int64_t v = arg(name); v % 8)
        return name + " = " + std::to_string(v) + " is not a multiple of 8";
    for (const std::string &name : c.pointerAligned16)
      if (arg(name) % 16)
        return name + " is not 16-byte aligned";
    for (const auto &[stride, rows] : c.positiveRowStride)
      if (arg(stride) <= 0 && arg(rows) > 1)
        return stride + " = " + std::to_string(arg(stride)) + " with " + rows +
               " = " + std::to_string(arg(rows)) +
               " rows (a tensor map needs a positive row stride)";
    if (c.maxWorkTiles) {
      int64_t tiles = launchTileCount();
      if (tiles > *c.maxWorkTiles)
        return std::to_string(tiles) +
               " work tiles pass the persistent "
               "kernel's " +
               std::to_string(*c.maxWorkTiles);
    }
    if (!c.maxSize || !c.maxOffset)
      return std::nullopt;
    // (A launcher's error: the bounds would not see the slices.)
    if (slices > 1 && kernel.sliceSumElems == 0)
      return std::to_string(slices) +
             " slices of a kernel without slice sums (32-bit kernel)";
    int64_t inputs = 0;
    while (arg.has("in" + std::to_string(inputs) + "_ptr"))
      ++inputs;
    auto known = [&](const std::string &name) {
      if (name != "sum_slots")
        return KnownRange::exactly(arg(name));
      return KnownRange::exactly(sumSlots(launchTileCount(), slices));
    };
    std::string why;
    for (const Bound &bound : kernelBounds(c, kernel, inputs))
      if (boundHolds(bound, known, &why) == false)
        return why;
    return std::nullopt;
  }();
  if (arg.missing)
    return "the launcher passes no " + *arg.missing;
  return why;
}
