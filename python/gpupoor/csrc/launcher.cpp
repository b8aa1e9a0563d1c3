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
#include "operands.h"
#include "plan.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAGuard.h>
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

namespace gpupoor::package {
namespace {

//===----------------------------------------------------------------------===//
// Per-call state: plans, workspaces, the implicit bias
//===----------------------------------------------------------------------===//

struct PlanKey {
  std::array<int64_t, 23> v;
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
/// Shared: a launch holds its plan, under no lock, while another thread
/// may drop the table's reference (forgetPlans).
std::unordered_map<PlanKey, std::shared_ptr<Plan>, PlanKeyHash> plans;

/// Forgets every plan (the caller holds planMutex); those in a launch live
/// until it ends.
void forgetPlans() { plans.clear(); }

constexpr size_t kMaxPlans = 4096;

/// Slice sums and zeroed counters per (device, stream): each launch leaves
/// the counters zero, and kernels on one stream never overlap.
struct Workspace {
  at::Tensor sums, locks;
};
// This map, captureLocks and implicitBiases hold device tensors for the
// process and are never destroyed: static destructors run after the CUDA
// driver has shut down, and a tensor freed then without PyTorch's caching
// allocator (PYTORCH_NO_CUDA_MEMORY_CACHING=1, as under compute-sanitizer)
// throws from its destructor, which aborts the process at exit.
auto &workspaces = *new std::map<std::pair<int, uintptr_t>, Workspace>();

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  C10_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

/// The counters of launches captured on one stream into one graph (its
/// capture id): zeroed once, by the capture's first launch that needs them,
/// and shared by the capture's later launches on the stream, which replay
/// in the order they were captured, each leaving the counters zero. Held
/// until the stream captures again, so that no allocation of the same
/// capture reuses them (a destroyed graph's counters stay in its pool until
/// then: one buffer a stream). (Zeroing counters a launch put a memset before
/// every captured launch: 1.4 us of each graph replay of 1024 x 64 x 4096
/// on an H200, whose kernel ran 7.0.)
struct CaptureLocks {
  unsigned long long id = 0;
  at::Tensor locks;
};
auto &captureLocks = *new std::map<std::pair<int, uintptr_t>, CaptureLocks>();

/// The cached workspace of (device, stream), grown to the plan's needs (a
/// copy of its handles: another thread on the stream may grow it); while
/// the stream captures a CUDA graph, fresh sums in the graph's private pool
/// and the capture's counters (captureLocks): a replay, on whatever stream,
/// must not share the cached ones with eager launches.
Workspace workspaceFor(int device, cudaStream_t stream, const Plan &p,
                       bool graph) {
  auto options = at::TensorOptions().device(at::kCUDA, device);
  auto sums = [&] {
    return at::empty({(p.sumBytes + 3) / 4}, options.dtype(at::kFloat));
  };
  auto locks = [&] {
    return at::zeros({std::max<int64_t>(p.tiles, 1024)},
                     options.dtype(at::kInt));
  };
  std::lock_guard<std::mutex> guard(planMutex);
  std::pair<int, uintptr_t> key{device, reinterpret_cast<uintptr_t>(stream)};
  if (graph) {
    cudaStreamCaptureStatus status;
    unsigned long long id = 0;
    C10_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, &id));
    CaptureLocks &held = captureLocks[key];
    if (held.id != id || !held.locks.defined() || held.locks.numel() < p.tiles)
      held = {id, locks()};
    return {sums(), held.locks};
  }
  Workspace &ws = workspaces[key];
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
// (Never destroyed, as workspaces.)
auto &implicitBiases =
    *new std::map<std::tuple<int, int, int64_t>, at::Tensor>();

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
  // A batch's count and strides (none: -1, 0, 0, 0).
  bool batched = a.dim() == 3;
  return {{a.get_device(),
           a.size(-2),
           b.size(-1),
           a.size(-1),
           a.stride(-2),
           a.stride(-1),
           b.stride(-2),
           b.stride(-1),
           c.stride(-2),
           c.stride(-1),
           bias ? bias->stride(0) : INT64_MIN,
           low(a) | low(b) << 4 | low(c) << 8 | int64_t(implicit) << 12,
           key.nk | int64_t(key.km) << 1 | int64_t(key.batched) << 2 |
               int64_t(key.aCopiedFromKM) << 3,
           key.f16Outer,
           int64_t(key.epilogue),
           key.f32Out,
           key.maxSplits,
           slices,
           int64_t(c.scalar_type()),
           batched ? a.size(0) : -1,
           batched ? a.stride(0) : 0,
           batched ? b.stride(0) : 0,
           batched ? c.stride(0) : 0}};
}

/// Map `index` of `p` for an operand at `ptr`, from the plan's cache or
/// encoded (a copy: another thread may evict the cached one).
MapBytes tensorMap(Plan &p, size_t index, void *ptr) {
  std::lock_guard<std::mutex> guard(p.encodedLock);
  auto &cache = p.encoded[index];
  auto key = reinterpret_cast<uintptr_t>(ptr);
  auto hit = cache.find(key);
  if (hit != cache.end())
    return hit->second;
  MapBytes bytes;
  const runtime::TensorMapSpec &spec = p.maps[index].spec;
  CUresult err = runtime::encodeTensorMap(&bytes.map, spec, ptr);
  TORCH_CHECK(err == CUDA_SUCCESS, "cuTensorMapEncodeTiled(",
              std::to_string(spec.dims[1]), " x ", std::to_string(spec.dims[0]),
              " f16 at ", std::to_string(key), ", row stride ",
              std::to_string(spec.strideBytes[0]),
              " bytes) failed: ", runtime::errorText(err));
  if (cache.size() >= 256)
    cache.erase(cache.begin());
  return cache.emplace(key, bytes).first->second;
}

std::shared_ptr<Plan> planFor(const at::Tensor &a, const at::Tensor &b,
                              const std::optional<at::Tensor> &bias,
                              const at::Tensor &c, const VariantKey &key,
                              int64_t slices, bool implicit) {
  PlanKey pk = planKey(a, b, bias, c, key, slices, implicit);
  {
    std::lock_guard<std::mutex> guard(planMutex);
    auto it = plans.find(pk);
    if (it != plans.end())
      return it->second;
  }
  // Made without the lock: the resolver takes the GIL, which a thread
  // waiting for the lock may hold.
  std::shared_ptr<Plan> plan =
      makePlan(a, b, bias, c, key, slices, deviceInfo(a.get_device()));
  std::lock_guard<std::mutex> guard(planMutex);
  if (plans.size() >= kMaxPlans)
    forgetPlans();
  auto &slot = plans[pk];
  if (!slot)
    slot = std::move(plan);
  return slot;
}

int64_t l2PromotionBytes(CUtensorMapL2promotion promotion) {
  switch (promotion) {
  case CU_TENSOR_MAP_L2_PROMOTION_L2_64B:
    return 64;
  case CU_TENSOR_MAP_L2_PROMOTION_L2_128B:
    return 128;
  case CU_TENSOR_MAP_L2_PROMOTION_L2_256B:
    return 256;
  default:
    return 0;
  }
}

} // namespace

VariantKey variantKey(const at::Tensor &a, const at::Tensor &b, bool hasBias,
                      const std::string &activation, bool f16Outer, bool f32Out,
                      int64_t maxSplits) {
  VariantKey key;
  // B's fast layout: unit stride along K (nk, nn.Linear's weight.T) or along
  // N (kn). Either kernel takes any strides through its fallbacks.
  key.nk = b.stride(-2) == 1 && b.stride(-1) != 1;
  // A's: unit stride along M (K x M rows, a transposed activation) or
  // along K.
  key.km = a.size(-2) > 1 && a.stride(-2) == 1 && a.stride(-1) != 1;
  // A batch of products: rank-3 operands.
  key.batched = b.dim() == 3;
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
    TORCH_CHECK_VALUE(
        v == "mlir" || v == "triton",
        "GPUPOOR_BACKEND must be one of ('mlir', 'triton'), got '", v, "'");
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
    bias = implicitBias(c, b.size(-1), graph);
  std::shared_ptr<Plan> held = planFor(a, b, bias, c, key, slices, implicit);
  Plan &p = *held;
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
  Workspace ws;
  if (p.sumBytes) {
    ws = workspaceFor(device, stream, p, graph);
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
  check(err,
        std::string(l.dependent ? "cuLaunchKernelEx(" : "cuLaunchKernel(") +
            loaded->name + ", grid " + std::to_string(p.gridX) + " x " +
            std::to_string(p.gridY) + ")");
}

/// gpupoor._C._force_choice: the forced choice every later plan takes
/// (setForcedChoice), its arguments checked by name.
static void forceChoice(const std::optional<std::string> &family,
                        int64_t slices, bool table, int64_t splits,
                        bool exact) {
  std::optional<policy::TunedChoice> choice;
  if (family) {
    std::optional<policy::Family> f = policy::parseFamily(*family);
    TORCH_CHECK_VALUE(f, "unknown kernel family '", *family, "'");
    TORCH_CHECK_VALUE(slices >= 0, "slices must be >= 0, got ", slices);
    // (A persistent kernel runs one slice: its launch would drop them.)
    TORCH_CHECK_VALUE(!exact || slices <= 1 || !policy::familyPersistent(*f),
                      "family '", *family,
                      "' is persistent (one slice): exact=True takes no "
                      "slices > 1, got ",
                      slices);
    choice = policy::TunedChoice{*f, slices, exact};
  }
  TORCH_CHECK_VALUE(0 <= splits && splits <= policy::kMaxSplits,
                    "splits must be in [0, ", policy::kMaxSplits, "], got ",
                    splits);
  setForcedChoice(choice, table, splits);
  std::lock_guard<std::mutex> planGuard(planMutex);
  forgetPlans();
}

void bindLauncher(py::module_ &m) {
  m.def(
      "set_resolver",
      [](py::object deviceInfo, py::object findVariant,
         py::object findRowCopy) {
        setResolver(std::move(deviceInfo), std::move(findVariant),
                    std::move(findRowCopy));
        std::lock_guard<std::mutex> planGuard(planMutex);
        forgetPlans();
      },
      "device_info"_a, "find_variant"_a, "find_row_copy"_a = py::none(),
      "Where the launcher finds devices' library chips, `device_info(index) "
      "-> (chips, sm_count)`, variants, `find_variant(chip, b_layout, "
      "outer, epilogue, out, family, max_splits, prebuilt, a_layout, batched) "
      "-> [(manifest, image path)] or None`, and the row-copy kernel of the "
      "padded copies, `find_row_copy(chip) -> (manifest, image path) or "
      "None` (None: torch's copies). Forgets what the previous ones said.");
  m.def("_force_choice", forceChoice, "family"_a, "slices"_a = 0,
        "table"_a = true, "splits"_a = 0, "exact"_a = false,
        "For the tuner and the benchmarks only (benchmarks/tune_policy.py, "
        "bench_sweep.py --rules): from now on every static 2-D product the "
        "tuned table would decide takes `family`'s tile and `slices` (0: the "
        "rule's) where its layouts have that family, launched as the rules "
        "launch that tile (its persistence, clusters, stream-K and handover "
        "theirs), or with exact=True as `family` itself; None: the table's "
        "again, or with table=False the rules' alone; and every launch S = "
        "`splits` (0: the policy's; the kernels take S from the launch). "
        "Forgets the plans made.");
  m.def(
      "select_kernel",
      [](const std::vector<py::dict> &manifests,
         const std::map<std::string, int64_t> &args, int64_t slices,
         const std::string &what) {
        Variant variant;
        for (const py::dict &m : manifests)
          variant.push_back(kernelOf(m, ""));
        TORCH_CHECK_VALUE(!variant.empty(), "variant ", what,
                          " has no kernels");
        return &chooseKernel(variant, args, slices, what) - variant.data();
      },
      "manifests"_a, "args"_a, "slices"_a, "what"_a,
      "The index of the first kernel (by manifest, in the order they are "
      "tried) whose checks hold for the parameter values `args` launched "
      "with `slices` slices, as the launcher chooses; ValueError naming "
      "`what` and each kernel's reason otherwise.");
  m.def(
      "kernel_violation",
      [](const py::dict &manifest, const std::map<std::string, int64_t> &args,
         int64_t slices) {
        KernelInfo kern = kernelOf(manifest, "");
        return policy::violation(kern.checks, checkedKernel(kern), args,
                                 std::max<int64_t>(slices, 1));
      },
      "manifest"_a, "args"_a, "slices"_a,
      "Why the kernel of `manifest` cannot take the parameter values `args` "
      "(by ABI name; M, N, K nonzero) launched with `slices` slices, or None "
      "when every check of its manifest holds.");
  m.def("default_backend", &defaultBackend, "device"_a,
        "The backend a call on CUDA device `device` gets without one: "
        "$GPUPOOR_BACKEND, else 'mlir' where the kernel library has kernels "
        "for the device, else 'triton'.");
  m.def(
      "describe_plan",
      [](at::Tensor a, at::Tensor b, const std::optional<at::Tensor> &bias,
         const at::Tensor &c, const std::string &activation,
         const std::string &outer, int64_t maxSplits, int64_t slices,
         std::vector<std::string> chips, int64_t smCount, py::object find) {
        DeviceInfo info{std::move(chips), smCount};
        // The operands the call would launch on (copies included).
        c10::cuda::OptionalCUDAGuard guard(
            a.is_cuda() ? std::optional<c10::Device>(a.device())
                        : std::nullopt);
        LaunchOperands ops = launchOperands(a, b, slices, maxSplits, &info);
        a = ops.a;
        b = ops.b;
        VariantKey key =
            variantKey(a, b, bias.has_value(), activation, outer == "f16",
                       c.scalar_type() == at::kFloat, maxSplits);
        key.aCopiedFromKM = ops.aCopiedFromKM;
        std::optional<at::Tensor> launched = bias;
        if (!bias && key.epilogue != Epilogue::None)
          launched = at::full({b.size(-1)}, -0.0, c.options());
        Finder finder = find.is_none() ? Finder(findVariant) : finderOf(find);
        std::unique_ptr<Plan> p =
            makePlan(a, b, launched, c, key, slices, info, finder);
        py::list maps;
        const at::Tensor *operands[] = {&a, &b, &c};
        for (const MapPlan &mp : p->maps) {
          // The map as the launcher encodes it (its rows grouped, its L2
          // promotion in bytes).
          runtime::TensorMapSpec e =
              runtime::encodedSpec(mp.spec, operands[mp.operand]->data_ptr());
          // A batched kernel's maps add the batch and its stride in bytes
          // (none: a 2-D map).
          py::object batch = py::none(), batchStride = py::none();
          if (e.rank == 3) {
            batch = py::int_(e.dims[2]);
            batchStride = py::int_(e.strideBytes[1]);
          }
          maps.append(py::make_tuple(
              mp.slot, mp.operand, py::make_tuple(e.dims[0], e.dims[1]),
              e.strideBytes[0], py::make_tuple(e.box[0], e.box[1]),
              l2PromotionBytes(e.l2Promotion), e.elementStrides[1], batch,
              batchStride));
        }
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
            "sets"_a = p->info->sets, "epilogue"_a = epilogueName(key.epilogue),
            "dependent"_a = p->info->dependent && dependentLaunches());
      },
      "a"_a, "b"_a, "bias"_a, "c"_a, "activation"_a, "outer"_a, "max_splits"_a,
      "slices"_a, "chips"_a, "sm_count"_a, "find_variant"_a = py::none(),
      "The launch plan of C = act(A @ B + bias) on a device of these library "
      "chips and SMs, as the launcher makes it (variants from `find_variant`, "
      "as set_resolver takes it, or the resolver's), without launching its "
      "kernel: for tests. It plans on the operands the call launches on, the "
      "copies it makes of them included (launchOperands: made here too, on a "
      "CUDA device by the library's row-copy kernel). Tensors may live "
      "anywhere.");
}

} // namespace gpupoor::package
