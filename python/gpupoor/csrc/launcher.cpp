//===- launcher.cpp - the mlir backend's launcher -------------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// A launch is worked out once per (variant, device, sizes, strides, pointer
// alignment, slices) into a Plan, which later calls like it fill with their
// pointers and launch: the host time of a call is a hash lookup, the
// parameter copy and the driver's launch.
//
//===----------------------------------------------------------------------===//

#include "launcher.h"

#include "gpupoor/Policy/Checks.h"
#include "gpupoor/Policy/Policy.h"
#include "gpupoor/Runtime/Driver.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

namespace py = pybind11;
using namespace pybind11::literals;
namespace policy = mlir::gpupoor::policy;
namespace runtime = gpupoor::runtime;

namespace gpupoor::package {
namespace {

//===----------------------------------------------------------------------===//
// The resolver: devices and variants, from the Python package
//===----------------------------------------------------------------------===//

struct Resolver {
  py::object deviceInfo;  // index -> (chips best first, SM count)
  py::object findVariant; // (chip, key fields, family, prebuilt) -> kernels
};

Resolver &resolver() {
  // Never destroyed: Python objects must not be released after the
  // interpreter is gone.
  static auto *r = new Resolver();
  return *r;
}

struct DeviceInfo {
  std::vector<std::string> chips;
  int64_t smCount = 0;
};

std::mutex cacheMutex;
std::map<int, DeviceInfo> devices;

DeviceInfo deviceInfo(int device) {
  {
    std::lock_guard<std::mutex> guard(cacheMutex);
    auto it = devices.find(device);
    if (it != devices.end())
      return it->second;
  }
  DeviceInfo info;
  {
    py::gil_scoped_acquire gil;
    TORCH_CHECK(resolver().deviceInfo, "gpupoor's launcher has no resolver: "
                                       "import gpupoor, not gpupoor._C alone");
    auto got = resolver().deviceInfo(device).cast<py::tuple>();
    info.chips = got[0].cast<std::vector<std::string>>();
    info.smCount = got[1].cast<int64_t>();
  }
  std::lock_guard<std::mutex> guard(cacheMutex);
  return devices.emplace(device, info).first->second;
}

/// One kernel of a variant: its manifest, as the launcher reads it.
struct KernelInfo {
  std::string name, image, chip;
  std::vector<std::string> params, paramTypes;
  unsigned sharedBytes = 0, block = 0;
  bool dependent = false, persistent = false;
  policy::Tile tile{};
  int64_t groupM = 1, sumsPerTileSlice = 0, workspacePerTileSlice = 0;
  policy::OperandChecks checks;
  // Tensor maps by parameter name: box and the encoding's enums.
  struct MapInfo {
    unsigned box[2], elementStrides[2];
    CUtensorMapDataType dataType;
    CUtensorMapSwizzle swizzle;
    CUtensorMapL2promotion l2;
    CUtensorMapFloatOOBfill oob;
  };
  std::map<std::string, MapInfo> maps;
};

template <typename T>
T field(const py::dict &d, const char *key, T otherwise) {
  return d.contains(key) ? d[key].cast<T>() : otherwise;
}

int enumOf(const std::string &what, const std::string &value,
           std::initializer_list<std::pair<const char *, int>> known) {
  for (auto [name, v] : known)
    if (value == name)
      return v;
  TORCH_CHECK(false, "kernel manifest: unknown ", what, " '", value, "'");
}

policy::OperandChecks checksOf(const py::dict &checks) {
  policy::OperandChecks c;
  auto names = [&](const char *key) {
    return field<std::vector<std::string>>(checks, key, {});
  };
  c.unitStride = names("unit_stride");
  c.strideMultipleOf8 = names("stride_multiple_of_8");
  c.pointerAligned16 = names("pointer_aligned_16");
  for (const auto &pair :
       field<std::vector<std::vector<std::string>>>(checks, "positive_row_stride", {})) {
    TORCH_CHECK(pair.size() == 2, "positive_row_stride holds [stride, rows] pairs");
    c.positiveRowStride.push_back({pair[0], pair[1]});
  }
  auto number = [&](const char *key) -> std::optional<int64_t> {
    if (!checks.contains(key))
      return std::nullopt;
    return checks[key].cast<int64_t>();
  };
  c.maxWorkTiles = number("max_work_tiles");
  c.maxSize = number("max_size");
  c.maxOffset = number("max_offset");
  TORCH_CHECK(c.maxSize.has_value() == c.maxOffset.has_value(),
              "checks name max_size and max_offset together");
  return c;
}

KernelInfo kernelOf(const py::dict &m, const std::string &image) {
  KernelInfo k;
  k.name = m["kernel"].cast<std::string>();
  k.image = image;
  k.chip = m["chip"].cast<std::string>();
  k.params = m["params"].cast<std::vector<std::string>>();
  k.paramTypes = m["param_types"].cast<std::vector<std::string>>();
  TORCH_CHECK(k.params.size() == k.paramTypes.size() && k.params.size() <= 64,
              "kernel manifest of ", k.name, ": params and param_types differ");
  k.sharedBytes = m["dynamic_shared_memory"].cast<unsigned>();
  k.block = m["block_size"].cast<unsigned>();
  k.dependent = field<bool>(m, "dependent_launch", false);
  k.persistent = field<bool>(m, "persistent", false);
  auto tile = m["tile"].cast<std::vector<int64_t>>();
  TORCH_CHECK(tile.size() == 3, "kernel manifest of ", k.name, ": tile");
  k.tile = {tile[0], tile[1], tile[2]};
  k.groupM = field<int64_t>(m, "group_m", 1);
  // A tile's sums of a slice: every row its MMAs compute (sm_90a: at least
  // 64), in elements of the outer type.
  int64_t outerBytes = field<std::string>(m, "outer", "f32") == "f16" ? 2 : 4;
  k.workspacePerTileSlice = field<int64_t>(m, "workspace_bytes_per_tile_slice",
                                           tile[0] * tile[1] * outerBytes);
  k.sumsPerTileSlice = k.workspacePerTileSlice / outerBytes;
  if (m.contains("checks"))
    k.checks = checksOf(m["checks"].cast<py::dict>());
  if (m.contains("tensor_maps"))
    for (auto item : m["tensor_maps"].cast<py::dict>()) {
      auto name = item.first.cast<std::string>();
      if (name == "note")
        continue;
      auto spec = item.second.cast<py::dict>();
      auto box = spec["box_dim"].cast<std::vector<unsigned>>();
      auto strides = spec["element_strides"].cast<std::vector<unsigned>>();
      TORCH_CHECK(box.size() == 2 && strides.size() == 2,
                  "kernel manifest of ", k.name, ": tensor map ", name, " is not 2-D");
      KernelInfo::MapInfo map;
      std::copy(box.begin(), box.end(), map.box);
      std::copy(strides.begin(), strides.end(), map.elementStrides);
      map.dataType = CUtensorMapDataType(enumOf(
          "data_type", spec["data_type"].cast<std::string>(),
          {{"float16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16}}));
      map.swizzle = CUtensorMapSwizzle(enumOf(
          "swizzle", spec["swizzle"].cast<std::string>(),
          {{"none", CU_TENSOR_MAP_SWIZZLE_NONE},
           {"32B", CU_TENSOR_MAP_SWIZZLE_32B},
           {"64B", CU_TENSOR_MAP_SWIZZLE_64B},
           {"128B", CU_TENSOR_MAP_SWIZZLE_128B}}));
      map.l2 = CUtensorMapL2promotion(enumOf(
          "l2_promotion", spec["l2_promotion"].cast<std::string>(),
          {{"none", CU_TENSOR_MAP_L2_PROMOTION_NONE},
           {"64B", CU_TENSOR_MAP_L2_PROMOTION_L2_64B},
           {"128B", CU_TENSOR_MAP_L2_PROMOTION_L2_128B},
           {"256B", CU_TENSOR_MAP_L2_PROMOTION_L2_256B}}));
      map.oob = CUtensorMapFloatOOBfill(
          enumOf("oob_fill", spec["oob_fill"].cast<std::string>(),
                 {{"zero", CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE}}));
      k.maps.emplace(name, map);
    }
  return k;
}

const char *epilogueName(Epilogue e) {
  switch (e) {
  case Epilogue::None:
    return "none";
  case Epilogue::Bias:
    return "bias";
  case Epilogue::BiasRelu:
    return "bias_relu";
  case Epilogue::BiasGelu:
    return "bias_gelu";
  }
  return "none";
}

using Variant = std::vector<KernelInfo>;

/// A variant from `find_variant`'s answer (a list of (manifest, image)
/// pairs, or None).
std::shared_ptr<const Variant> variantOf(const py::object &got,
                                         const std::string &name) {
  if (got.is_none())
    return nullptr;
  auto v = std::make_shared<Variant>();
  for (py::handle kernel : got) {
    auto pair = kernel.cast<py::tuple>();
    v->push_back(kernelOf(pair[0].cast<py::dict>(), pair[1].cast<std::string>()));
  }
  TORCH_CHECK(!v->empty(), "variant ", name, " has no kernels");
  return v;
}

std::map<std::string, std::shared_ptr<const Variant>> variants;

/// The variant of `key` and `family` for `chip`: null where the library
/// lacks it (with `prebuilt`: where no library root holds it; else also
/// where it cannot be compiled).
std::shared_ptr<const Variant> findVariant(const std::string &chip,
                                           const VariantKey &key,
                                           policy::Family family,
                                           bool prebuilt) {
  std::string name = chip + "/" + (key.nk ? "nk" : "kn") + "_" +
                     (key.f16Outer ? "f16" : "f32") + "_" +
                     epilogueName(key.epilogue) + "_" +
                     (key.f32Out ? "f32" : "f16") + "_" +
                     std::string(policy::familyName(family)) + "_s" +
                     std::to_string(key.maxSplits);
  {
    std::lock_guard<std::mutex> guard(cacheMutex);
    auto it = variants.find(name);
    if (it != variants.end())
      return it->second;
  }
  std::shared_ptr<const Variant> found;
  {
    py::gil_scoped_acquire gil;
    py::object got = resolver().findVariant(
        chip, key.nk ? "nk" : "kn", key.f16Outer ? "f16" : "f32",
        epilogueName(key.epilogue), key.f32Out ? "f32" : "f16",
        std::string(policy::familyName(family)), key.maxSplits, prebuilt);
    found = variantOf(got, name);
    if (!found)
      return nullptr;
  }
  std::lock_guard<std::mutex> guard(cacheMutex);
  return variants.emplace(name, found).first->second;
}

/// Finds a variant: findVariant, or (describe_plan) a caller's function.
using Finder = std::function<std::shared_ptr<const Variant>(
    const std::string &, const VariantKey &, policy::Family, bool)>;


//===----------------------------------------------------------------------===//
// Loaded kernels
//===----------------------------------------------------------------------===//

void check(CUresult result, const std::string &what) {
  TORCH_CHECK(result == CUDA_SUCCESS, what, " failed: ",
              runtime::errorText(result));
}

const runtime::DriverApi &api() {
  const runtime::DriverApi *d = runtime::driver();
  TORCH_CHECK(d, "gpupoor: the CUDA driver (libcuda.so.1) did not load");
  return *d;
}

/// Makes `device`'s primary context, the one PyTorch's runtime calls use,
/// current for a scope.
class PrimaryContext {
public:
  explicit PrimaryContext(int device) {
    CUdevice dev;
    check(api().deviceGet(&dev, device), "cuDeviceGet");
    CUcontext ctx;
    // Each retain is kept: the primary context lives as long as the process.
    check(api().primaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(api().ctxPushCurrent(ctx), "cuCtxPushCurrent");
  }
  ~PrimaryContext() {
    CUcontext ctx;
    api().ctxPopCurrent(&ctx);
  }
};

/// A kernel of a cubin (or PTX, which the driver compiles for the device),
/// loaded once per process as a context-independent library; each device
/// gets its function and its shared-memory attribute at its first launch.
struct LoadedKernel {
  CUkernel kernel = nullptr;
  unsigned sharedBytes = 0, block = 0;
  bool dependent = false;
  std::string name;
  std::mutex lock;
  std::map<int, CUfunction> functions;

  CUfunction function(int device) {
    std::lock_guard<std::mutex> guard(lock);
    auto it = functions.find(device);
    if (it != functions.end())
      return it->second;
    CUdevice dev;
    check(api().deviceGet(&dev, device), "cuDeviceGet");
    check(api().kernelSetAttribute(
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sharedBytes,
              kernel, dev),
          "cuKernelSetAttribute(" + name + ", " + std::to_string(sharedBytes) +
              " bytes of shared memory)");
    CUfunction fn;
    {
      PrimaryContext context(device);
      check(api().kernelGetFunction(&fn, kernel), "cuKernelGetFunction");
    }
    return functions.emplace(device, fn).first->second;
  }
};

std::map<std::pair<std::string, std::string>, std::unique_ptr<LoadedKernel>>
    loadedKernels;

bool dependentLaunches() {
  const char *env = std::getenv("GPUPOOR_DEPENDENT_LAUNCH");
  return !env || std::string(env) != "0";
}

LoadedKernel &load(const KernelInfo &info) {
  std::lock_guard<std::mutex> guard(cacheMutex);
  auto &slot = loadedKernels[{info.image, info.name}];
  if (slot)
    return *slot;
  std::ifstream file(info.image, std::ios::binary);
  TORCH_CHECK(file, "gpupoor: cannot read the kernel image ", info.image);
  std::vector<char> image((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  // PTX (a library built with --ptx) is text: it must end in a NUL.
  if (info.image.size() > 4 &&
      info.image.compare(info.image.size() - 4, 4, ".ptx") == 0)
    image.push_back('\0');
  auto kernel = std::make_unique<LoadedKernel>();
  CUlibrary library;
  check(api().libraryLoadData(&library, image.data(), nullptr, nullptr, 0,
                              nullptr, nullptr, 0),
        "cuLibraryLoadData(" + info.image + ")");
  check(api().libraryGetKernel(&kernel->kernel, library, info.name.c_str()),
        "cuLibraryGetKernel(" + info.name + ")");
  kernel->sharedBytes = info.sharedBytes;
  kernel->block = info.block;
  kernel->dependent =
      info.dependent && dependentLaunches() && api().launchKernelEx;
  kernel->name = info.name;
  slot = std::move(kernel);
  return *slot;
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// A TMA kernel's tensor map: everything but the operand's address.
struct MapPlan {
  int slot;
  int operand; // the call's A (0), B (1) or C (2)
  runtime::TensorMapSpec spec;
};

struct alignas(64) MapBytes {
  CUtensorMap map;
};

struct Plan {
  const KernelInfo *info = nullptr;
  std::shared_ptr<const Variant> variant; // keeps `info` alive
  std::atomic<LoadedKernel *> loaded{nullptr}; // at the first launch
  unsigned gridX = 1, gridY = 1;
  int64_t slices = 1, tiles = 0, sumBytes = 0;
  std::string family;
  bool swapped = false;
  /// One 8-byte slot a parameter (i32 values in the low half); pointers
  /// filled per call; a tensor map's parameter points at its bytes instead.
  std::vector<uint64_t> values;
  int aSlot = -1, bSlot = -1, cSlot = -1, biasSlot = -1, wsSlot = -1;
  std::vector<MapPlan> maps;
  /// c_desc where it does not describe C: 128 zero bytes (the kernel then
  /// stores from its lanes).
  int zeroMapSlot = -1;
  /// Each map encoded once per operand address, for the 256 most recent.
  std::mutex encodedLock;
  std::vector<std::unordered_map<uintptr_t, MapBytes>> encoded;
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The parameter values a kernel takes from the launcher, by ABI name:
/// A, B and C as the kernel sees them (exchanged and transposed for a
/// swapped family), the bias along the kernel's rows when swapped.
std::map<std::string, int64_t> kernelArgs(const at::Tensor &a,
                                          const at::Tensor &b,
                                          const at::Tensor &c,
                                          const std::optional<at::Tensor> &bias,
                                          bool swapped) {
  auto ptr = [](const at::Tensor &t) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.data_ptr()));
  };
  std::map<std::string, int64_t> args = {
      {"a_ptr", ptr(a)},          {"b_ptr", ptr(b)},
      {"c_ptr", ptr(c)},          {"M", a.size(0)},
      {"N", b.size(1)},           {"K", a.size(1)},
      {"stride_am", a.stride(0)}, {"stride_ak", a.stride(1)},
      {"stride_bk", b.stride(0)}, {"stride_bn", b.stride(1)},
      {"stride_cm", c.stride(0)}, {"stride_cn", c.stride(1)}};
  if (bias) {
    args["in0_ptr"] = ptr(*bias);
    args["stride_in0m"] = swapped ? bias->stride(0) : 0;
    args["stride_in0n"] = swapped ? 0 : bias->stride(0);
  }
  return args;
}

const std::set<std::string> kWorkspaceParams = {"ws_ptr", "ws_bytes",
                                                "locks_ptr", "locks_count"};
const std::set<std::string> kMapParams = {"a_desc", "b_desc", "c_desc"};

/// The variant to launch: the family the policy chooses for each chip, from
/// the best chip whose library holds it; else the best chip's, compiled on
/// demand where the package may.
std::pair<std::shared_ptr<const Variant>, policy::Family>
chooseVariant(const DeviceInfo &info, const VariantKey &key, int64_t m,
              int64_t n, int64_t k, int64_t slices, const Finder &find) {
  std::optional<policy::Family> first;
  for (const std::string &chipName : info.chips) {
    policy::Problem p;
    std::optional<policy::Chip> chip = policy::parseChip(chipName);
    TORCH_CHECK(chip, "gpupoor: unknown chip ", chipName);
    p.chip = *chip;
    p.shape.m = m;
    p.shape.n = n;
    p.k = k;
    p.bLayout = key.nk ? policy::BLayout::NK : policy::BLayout::KN;
    p.slices = slices;
    p.maxSplits = key.maxSplits;
    p.smCount = info.smCount;
    policy::Family family = policy::chooseLaunch(p).family;
    if (!first)
      first = family;
    if (auto v = find(chipName, key, family, /*prebuilt=*/true))
      return {v, family};
  }
  return {find(info.chips.front(), key, *first, /*prebuilt=*/false), *first};
}

std::string describeKey(const VariantKey &key) {
  return std::string(key.nk ? "nk" : "kn") + "_" + (key.f16Outer ? "f16" : "f32") +
         "_" + epilogueName(key.epilogue) + "_" + (key.f32Out ? "f32" : "f16") +
         "_s" + std::to_string(key.maxSplits);
}

std::unique_ptr<Plan> makePlan(at::Tensor a, at::Tensor b,
                               const std::optional<at::Tensor> &bias,
                               at::Tensor c, const VariantKey &key,
                               int64_t slices, const DeviceInfo &info,
                               const Finder &find = findVariant) {
  TORCH_CHECK(!info.chips.empty(),
              "gpupoor's kernels need compute capability 8.x or 9.0; this "
              "device is not supported (use backend='triton')");
  int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  auto [variant, family] = chooseVariant(info, key, m, n, k, slices, find);
  if (!variant) {
    std::string chips;
    for (const auto &chip : info.chips)
      chips += (chips.empty() ? "" : " or ") + chip;
    TORCH_CHECK(false, "no kernel ", describeKey(key), " for ", chips,
                ": the package's kernel library lacks it and gpupoor-opt is "
                "not available to compile it (python -m gpupoor.build_library, "
                "GPUPOOR_KERNEL_DIR, GPUPOOR_OPT), or use backend='triton'");
  }
  auto plan = std::make_unique<Plan>();
  plan->variant = variant;
  plan->family = std::string(policy::familyName(family));
  // A swapped family's kernel computes C^T = B^T A^T: its A is B^T (N x K),
  // its B A^T (K x M), its C C^T; a bias runs along its rows.
  bool swapped = policy::familySwapped(family);
  plan->swapped = swapped;
  const KernelInfo &first = variant->front();
  int64_t splits = policy::defaultNumSplits(k, key.maxSplits);
  int64_t km = swapped ? n : m, kn = swapped ? m : n;
  if (first.persistent) {
    slices = 1;
  } else {
    std::optional<policy::Chip> chip = policy::parseChip(first.chip);
    TORCH_CHECK(chip, "kernel manifest: unknown chip ", first.chip);
    slices = policy::launchSlices(
        slices, *chip, first.tile, swapped, k,
        ceilDiv(km, first.tile[0]) * ceilDiv(kn, first.tile[1]), splits,
        info.smCount);
  }
  if (swapped)
    std::tie(a, b, c) = std::make_tuple(b.t(), a.t(), c.t());
  auto args = kernelArgs(a, b, c, bias, swapped);
  const KernelInfo *chosen = nullptr;
  std::string reasons;
  for (const KernelInfo &kern : *variant) {
    policy::CheckedKernel checked{kern.tile, kern.groupM, kern.sumsPerTileSlice};
    auto why = policy::violation(kern.checks, checked, args, std::max<int64_t>(slices, 1));
    if (!why) {
      chosen = &kern;
      break;
    }
    reasons += (reasons.empty() ? "" : "; ") + kern.name + ": " + *why;
  }
  TORCH_CHECK_VALUE(chosen, "no kernel of variant ", describeKey(key), " (",
                    first.chip, ", ", plan->family,
                    ") accepts these operands: ", reasons);
  plan->info = chosen;
  plan->tiles = ceilDiv(km, chosen->tile[0]) * ceilDiv(kn, chosen->tile[1]);
  TORCH_CHECK_VALUE(plan->tiles < (int64_t(1) << 31), plan->tiles,
                    " blocks exceed the grid (2^31 - 1)");
  // The launcher fills the workspace's four parameters and the tensor maps
  // per call; every other parameter must be one it has.
  std::set<std::string> want(chosen->params.begin(), chosen->params.end());
  for (const auto &p : kWorkspaceParams)
    want.erase(p);
  for (const auto &p : kMapParams)
    want.erase(p);
  std::set<std::string> have;
  for (const auto &[name, _] : args)
    have.insert(name);
  TORCH_CHECK(want == have, "kernel ", chosen->name,
              " takes parameters the launcher does not have");
  auto slot = [&](const std::string &name) -> int {
    auto it = std::find(chosen->params.begin(), chosen->params.end(), name);
    return it == chosen->params.end() ? -1 : int(it - chosen->params.begin());
  };
  for (const std::string &p : chosen->params)
    plan->values.push_back(args.count(p) ? static_cast<uint64_t>(args[p]) : 0);
  // The call's A and B pointers go to the kernel's b_ptr and a_ptr when
  // swapped.
  plan->aSlot = slot(swapped ? "b_ptr" : "a_ptr");
  plan->bSlot = slot(swapped ? "a_ptr" : "b_ptr");
  plan->cSlot = slot("c_ptr");
  plan->biasSlot = bias ? slot("in0_ptr") : -1;
  bool parallel = slot("ws_ptr") >= 0;
  plan->wsSlot = parallel ? slot("ws_ptr") : -1;
  plan->slices = slices;
  plan->sumBytes = slices > 1 ? plan->tiles * slices * chosen->workspacePerTileSlice : 0;
  // The kernel's A as M rows of K, its B (N x K, the only layout the TMA
  // kernels take) as N rows; C's map (dims [N, M]) where it describes C.
  struct Operand {
    const char *name;
    int operand;
    int64_t inner, rows, stride;
  };
  std::vector<Operand> operands = {{"a_desc", 0, k, km, a.stride(0)},
                                   {"b_desc", 1, k, kn, b.stride(1)}};
  if (slot("c_desc") >= 0) {
    auto cPtr = reinterpret_cast<uintptr_t>(c.data_ptr());
    bool describes = c.stride(1) == 1 && cPtr % 16 == 0 && c.stride(0) % 8 == 0 &&
                     (c.stride(0) > 0 || km <= 1);
    if (describes)
      operands.push_back({"c_desc", 2, kn, km, c.stride(0)});
    else
      plan->zeroMapSlot = slot("c_desc");
  }
  for (const Operand &o : operands) {
    int s = slot(o.name);
    if (s < 0)
      continue;
    auto it = chosen->maps.find(o.name);
    TORCH_CHECK(it != chosen->maps.end(), "kernel ", chosen->name,
                " lacks its tensor map ", o.name);
    const KernelInfo::MapInfo &mi = it->second;
    runtime::TensorMapSpec spec =
        runtime::operandMap(o.inner, o.rows, o.stride, mi.box[0], mi.box[1]);
    spec.dataType = mi.dataType;
    spec.elementStrides[0] = mi.elementStrides[0];
    spec.elementStrides[1] = mi.elementStrides[1];
    spec.swizzle = mi.swizzle;
    spec.l2Promotion = mi.l2;
    spec.oobFill = mi.oob;
    int operand = o.operand == 2 ? 2 : o.operand ^ int(swapped);
    plan->maps.push_back({s, operand, spec});
  }
  plan->encoded.resize(plan->maps.size());
  auto [gx, gy] = policy::launchGrid(plan->tiles, slices, chosen->persistent,
                                     info.smCount);
  plan->gridX = unsigned(gx);
  plan->gridY = unsigned(gy);
  return plan;
}

//===----------------------------------------------------------------------===//
// Per-call state: plans, workspaces, the implicit bias
//===----------------------------------------------------------------------===//

struct PlanKey {
  std::array<int64_t, 20> v;
  bool operator==(const PlanKey &o) const { return v == o.v; }
};

struct PlanKeyHash {
  size_t operator()(const PlanKey &k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : k.v)
      h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

std::mutex planMutex;
std::unordered_map<PlanKey, std::unique_ptr<Plan>, PlanKeyHash> plans;
constexpr size_t kMaxPlans = 4096;

/// Slice sums and zeroed counters per (device, stream): each launch leaves
/// the counters zero, and kernels on one stream never overlap.
struct Workspace {
  at::Tensor sums, locks;
};
std::map<std::pair<int, uintptr_t>, Workspace> workspaces;

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  C10_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

/// The cached workspace of (device, stream), grown to the plan's needs;
/// while the stream captures a CUDA graph, a fresh one in the graph's
/// private pool (`scratch`): a replay, on whatever stream, must not share
/// the cached one with eager launches.
const Workspace &workspaceFor(int device, cudaStream_t stream, const Plan &p,
                              bool graph, Workspace &scratch) {
  auto options = at::TensorOptions().device(at::kCUDA, device);
  auto sums = [&] {
    return at::empty({(p.sumBytes + 3) / 4}, options.dtype(at::kFloat));
  };
  auto locks = [&] {
    return at::zeros({std::max<int64_t>(p.tiles, 1024)}, options.dtype(at::kInt));
  };
  if (graph) {
    scratch = {sums(), locks()};
    return scratch;
  }
  std::lock_guard<std::mutex> guard(planMutex);
  Workspace &ws = workspaces[{device, reinterpret_cast<uintptr_t>(stream)}];
  if (!ws.sums.defined() || ws.sums.numel() * 4 < p.sumBytes)
    ws.sums = sums();
  if (!ws.locks.defined() || ws.locks.numel() < p.tiles)
    ws.locks = locks();
  return ws;
}

// The bias of a `bias_*` variant launched without one: -0.0 of C's type.
// The library has no activation-only variants; adding -0.0 changes nothing
// under round to nearest (x + -0.0 == x for every x, -0 included, NaN
// stays NaN), so the result is bit-identical to the activation alone. One
// tensor per (device, dtype, N) for the process; a launch captured into a
// CUDA graph gets its own in the graph's pool, filled by a kernel captured
// before the launch (each replay refills it).
std::map<std::tuple<int, int, int64_t>, at::Tensor> implicitBiases;

at::Tensor implicitBias(const at::Tensor &c, int64_t n, bool graph) {
  auto make = [&] { return at::full({n}, -0.0, c.options()); };
  if (graph)
    return make();
  std::tuple<int, int, int64_t> key{c.get_device(), int(c.scalar_type()), n};
  std::lock_guard<std::mutex> guard(planMutex);
  auto it = implicitBiases.find(key);
  if (it != implicitBiases.end())
    return it->second;
  at::Tensor t = make();
  // Filled on this stream; later launches on other streams read it with no
  // ordering against the fill: wait for it (once per device, dtype and N).
  c10::cuda::getCurrentCUDAStream(c.get_device()).synchronize();
  return implicitBiases.emplace(key, t).first->second;
}

PlanKey planKey(const at::Tensor &a, const at::Tensor &b,
                const std::optional<at::Tensor> &bias, const at::Tensor &c,
                const VariantKey &key, int64_t slices, bool implicit) {
  auto low = [](const at::Tensor &t) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.data_ptr()) & 15);
  };
  return {{a.get_device(), a.size(0), b.size(1), a.size(1), a.stride(0),
           a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
           bias ? bias->stride(0) : INT64_MIN,
           low(a) | low(b) << 4 | low(c) << 8 | int64_t(implicit) << 12,
           key.nk, key.f16Outer, int64_t(key.epilogue), key.f32Out,
           key.maxSplits, slices, int64_t(c.scalar_type()), 0}};
}

/// Map `index` of `p` for an operand at `ptr`, from the plan's cache or
/// encoded.
const MapBytes &tensorMap(Plan &p, size_t index, void *ptr) {
  std::lock_guard<std::mutex> guard(p.encodedLock);
  auto &cache = p.encoded[index];
  auto key = reinterpret_cast<uintptr_t>(ptr);
  auto hit = cache.find(key);
  if (hit != cache.end())
    return hit->second;
  MapBytes bytes;
  const runtime::TensorMapSpec &spec = p.maps[index].spec;
  CUresult err = runtime::encodeTensorMap(&bytes.map, spec, ptr);
  TORCH_CHECK(err == CUDA_SUCCESS, "cuTensorMapEncodeTiled(", spec.dims[1],
              " x ", spec.dims[0], " f16 at ", ptr, ", row stride ",
              spec.strideBytes[0], " bytes) failed: ", runtime::errorText(err));
  if (cache.size() >= 256)
    cache.erase(cache.begin());
  return cache.emplace(key, bytes).first->second;
}

Plan &planFor(const at::Tensor &a, const at::Tensor &b,
              const std::optional<at::Tensor> &bias, const at::Tensor &c,
              const VariantKey &key, int64_t slices, bool implicit) {
  PlanKey pk = planKey(a, b, bias, c, key, slices, implicit);
  {
    std::lock_guard<std::mutex> guard(planMutex);
    auto it = plans.find(pk);
    if (it != plans.end())
      return *it->second;
  }
  // Made without the lock: the resolver takes the GIL, which a thread
  // waiting for the lock may hold.
  std::unique_ptr<Plan> plan =
      makePlan(a, b, bias, c, key, slices, deviceInfo(a.get_device()));
  std::lock_guard<std::mutex> guard(planMutex);
  if (plans.size() >= kMaxPlans) {
    // Plans are referenced only during a launch, under no lock: keep them
    // alive by leaking the old table (a process that makes 4096 plans has
    // many shapes; the plans are small).
    for (auto &entry : plans)
      (void)entry.second.release();
    plans.clear();
  }
  auto &slot = plans[pk];
  if (!slot)
    slot = std::move(plan);
  return *slot;
}

} // namespace

VariantKey variantKey(const at::Tensor &b, bool hasBias,
                      const std::string &activation, bool f16Outer,
                      bool f32Out, int64_t maxSplits) {
  VariantKey key;
  // B's fast layout: unit stride along K (nk, nn.Linear's weight.T) or along
  // N (kn). Either kernel takes any strides through its fallbacks.
  key.nk = b.stride(0) == 1 && b.stride(1) != 1;
  key.f16Outer = f16Outer;
  key.epilogue = activation == "relu"   ? Epilogue::BiasRelu
                 : activation == "gelu" ? Epilogue::BiasGelu
                 : hasBias              ? Epilogue::Bias
                                        : Epilogue::None;
  key.f32Out = f32Out;
  key.maxSplits = maxSplits;
  return key;
}

std::string defaultBackend(int device) {
  // Read each call (a getenv), so that a process may change it.
  const char *env = std::getenv("GPUPOOR_BACKEND");
  if (env && *env) {
    std::string v(env);
    TORCH_CHECK_VALUE(v == "mlir" || v == "triton",
                      "GPUPOOR_BACKEND must be one of ('mlir', 'triton'), got '", v,
                      "'");
    return v;
  }
  return deviceInfo(device).chips.empty() ? "triton" : "mlir";
}

void launch(const at::Tensor &a, const at::Tensor &b,
            const std::optional<at::Tensor> &givenBias, const at::Tensor &c,
            const VariantKey &key, int64_t slices) {
  int device = a.get_device();
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device).stream();
  bool graph = capturing(stream);
  std::optional<at::Tensor> bias = givenBias;
  bool implicit = !bias && key.epilogue != Epilogue::None;
  if (implicit)
    bias = implicitBias(c, b.size(1), graph);
  Plan &p = planFor(a, b, bias, c, key, slices, implicit);
  LoadedKernel *loaded = p.loaded.load(std::memory_order_acquire);
  if (!loaded) {
    loaded = &load(*p.info);
    p.loaded.store(loaded, std::memory_order_release);
  }
  uint64_t values[64];
  void *params[64];
  size_t count = p.values.size();
  std::memcpy(values, p.values.data(), count * sizeof(uint64_t));
  void *pointers[3] = {a.data_ptr(), b.data_ptr(), c.data_ptr()};
  values[p.aSlot] = reinterpret_cast<uintptr_t>(pointers[0]);
  values[p.bSlot] = reinterpret_cast<uintptr_t>(pointers[1]);
  values[p.cSlot] = reinterpret_cast<uintptr_t>(pointers[2]);
  if (p.biasSlot >= 0)
    values[p.biasSlot] = reinterpret_cast<uintptr_t>(bias->data_ptr());
  Workspace scratch;
  if (p.sumBytes) {
    const Workspace &ws = workspaceFor(device, stream, p, graph, scratch);
    values[p.wsSlot] = reinterpret_cast<uintptr_t>(ws.sums.data_ptr());
    values[p.wsSlot + 1] = static_cast<uint64_t>(ws.sums.numel() * 4);
    values[p.wsSlot + 2] = reinterpret_cast<uintptr_t>(ws.locks.data_ptr());
    values[p.wsSlot + 3] = static_cast<uint64_t>(ws.locks.numel());
  }
  for (size_t i = 0; i < count; ++i)
    params[i] = &values[i];
  MapBytes maps[3];
  for (size_t i = 0; i < p.maps.size(); ++i) {
    maps[i] = tensorMap(p, i, pointers[p.maps[i].operand]);
    params[p.maps[i].slot] = &maps[i].map;
  }
  static const MapBytes zeros{};
  if (p.zeroMapSlot >= 0)
    params[p.zeroMapSlot] = const_cast<CUtensorMap *>(&zeros.map);
  runtime::Launch l;
  l.grid[0] = p.gridX;
  l.grid[1] = p.gridY;
  l.block[0] = loaded->block;
  l.sharedBytes = loaded->sharedBytes;
  l.stream = reinterpret_cast<CUstream>(stream);
  l.dependent = loaded->dependent;
  CUfunction fn = loaded->function(device);
  CUresult err = runtime::launchKernel(fn, l, params);
  if (err == CUDA_ERROR_INVALID_CONTEXT) {
    // A thread that has not touched the device through the runtime yet has
    // no context current.
    PrimaryContext context(device);
    err = runtime::launchKernel(fn, l, params);
  }
  check(err, std::string(l.dependent ? "cuLaunchKernelEx(" : "cuLaunchKernel(") +
                 loaded->name + ", grid " + std::to_string(p.gridX) + " x " +
                 std::to_string(p.gridY) + ")");
}

void bindLauncher(py::module_ &m) {
  m.def(
      "set_resolver",
      [](py::object deviceInfo, py::object findVariant) {
        resolver().deviceInfo = std::move(deviceInfo);
        resolver().findVariant = std::move(findVariant);
        std::lock_guard<std::mutex> guard(cacheMutex);
        devices.clear();
        variants.clear();
        std::lock_guard<std::mutex> planGuard(planMutex);
        for (auto &entry : plans)
          (void)entry.second.release();
        plans.clear();
      },
      "device_info"_a, "find_variant"_a,
      "Where the launcher finds devices' library chips, `device_info(index) "
      "-> (chips, sm_count)`, and variants, `find_variant(chip, b_layout, "
      "outer, epilogue, out, family, max_splits, prebuilt) -> [(manifest, "
      "image path)] or None`. Forgets what the previous ones said.");
  m.def("default_backend", &defaultBackend, "device"_a,
        "The backend a call on CUDA device `device` gets without one: "
        "$GPUPOOR_BACKEND, else 'mlir' where the kernel library has kernels "
        "for the device, else 'triton'.");
  m.def(
      "describe_plan",
      [](const at::Tensor &a, const at::Tensor &b,
         const std::optional<at::Tensor> &bias, const at::Tensor &c,
         const std::string &activation, const std::string &outer,
         int64_t maxSplits, int64_t slices, std::vector<std::string> chips,
         int64_t smCount, py::object find) {
        VariantKey key = variantKey(b, bias.has_value(), activation,
                                    outer == "f16", c.scalar_type() == at::kFloat,
                                    maxSplits);
        DeviceInfo info{std::move(chips), smCount};
        std::optional<at::Tensor> launched = bias;
        if (!bias && key.epilogue != Epilogue::None)
          launched = at::full({b.size(1)}, -0.0, c.options());
        Finder finder = findVariant;
        if (!find.is_none())
          finder = [&](const std::string &chip, const VariantKey &k,
                       policy::Family family, bool prebuilt) {
            return variantOf(
                find(chip, k.nk ? "nk" : "kn", k.f16Outer ? "f16" : "f32",
                     epilogueName(k.epilogue), k.f32Out ? "f32" : "f16",
                     std::string(policy::familyName(family)), k.maxSplits,
                     prebuilt),
                chip);
          };
        std::unique_ptr<Plan> p =
            makePlan(a, b, launched, c, key, slices, info, finder);
        py::list maps;
        for (const MapPlan &mp : p->maps)
          maps.append(py::make_tuple(mp.slot, mp.operand,
                                     py::make_tuple(mp.spec.dims[0], mp.spec.dims[1]),
                                     mp.spec.strideBytes[0],
                                     py::make_tuple(mp.spec.box[0], mp.spec.box[1])));
        auto opt = [](int s) -> py::object {
          return s < 0 ? py::object(py::none()) : py::object(py::int_(s));
        };
        return py::dict(
            "kernel"_a = p->info->name, "chip"_a = p->info->chip,
            "family"_a = p->family, "swapped"_a = p->swapped,
            "params"_a = p->info->params, "values"_a = p->values,
            "a_slot"_a = p->aSlot, "b_slot"_a = p->bSlot, "c_slot"_a = p->cSlot,
            "bias_slot"_a = opt(p->biasSlot), "ws_slot"_a = opt(p->wsSlot),
            "zero_map_slot"_a = opt(p->zeroMapSlot), "maps"_a = maps,
            "grid"_a = py::make_tuple(p->gridX, p->gridY), "tiles"_a = p->tiles,
            "slices"_a = p->slices, "sum_bytes"_a = p->sumBytes,
            "epilogue"_a = epilogueName(key.epilogue),
            "dependent"_a = p->info->dependent && dependentLaunches());
      },
      "a"_a, "b"_a, "bias"_a, "c"_a, "activation"_a, "outer"_a,
      "max_splits"_a, "slices"_a, "chips"_a, "sm_count"_a,
      "find_variant"_a = py::none(),
      "The launch plan of C = act(A @ B + bias) on a device of these library "
      "chips and SMs, as the launcher makes it (variants from `find_variant`, "
      "as set_resolver takes it, or the resolver's), without launching: for "
      "tests. Tensors may live anywhere.");
}

} // namespace gpupoor::package
