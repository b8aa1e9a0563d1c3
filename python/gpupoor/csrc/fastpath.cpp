// The compiled launch path of split_k_sequential: one C++ call that checks
// the operands, looks up the launch plan the Python launcher worked out for
// calls like this one, allocates the result and launches the kernel on
// PyTorch's current stream.
//
// Why it exists: in Python the same work costs 30-40 us of host time a call
// (argument checks, torch.empty through the Python binding, ctypes), more
// than the kernel itself on decode shapes. Here nothing is decided: a call
// this path does not know (a new shape, stride pattern, option set, an
// operand that needs autograd, a dispatch mode, a tensor subclass, float32,
// the triton backend) returns None and Python takes it — checking arguments,
// raising its errors, choosing the kernel — and then hands the plan to
// `remember`. The key of a plan holds everything the Python launcher's plan
// depends on, so a call it matches is one the Python path would launch the
// same way.

#include <Python.h>

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/cuda/EmptyTensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/autograd/python_variable.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

// cuLaunchKernel's signature (cuda.h), with handles as pointers: the address
// comes from the libcuda the Python launcher loaded, so this file needs no
// CUDA driver headers or link.
using LaunchFn = int (*)(void *, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, void *, void **,
                         void **);
// cuLaunchKernelEx(const CUlaunchConfig *, CUfunction, void **params,
// void **extra), with the configuration laid out as cuda.h lays it out.
struct LaunchAttribute {
  int id; // CUlaunchAttributeID
  char pad[4];
  alignas(8) unsigned char value[64]; // CUlaunchAttributeValue
};
struct LaunchConfig {
  unsigned gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes;
  void *stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute's layout");
static_assert(offsetof(LaunchConfig, stream) == 32 &&
                  offsetof(LaunchConfig, attrs) == 40 &&
                  sizeof(LaunchConfig) == 56,
              "CUlaunchConfig's layout");
using LaunchExFn = int (*)(const LaunchConfig *, void *, void **, void **);
// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION.
constexpr int kProgrammaticStreamSerialization = 6;
// cuStreamIsCapturing(CUstream, CUstreamCaptureStatus *).
using IsCapturingFn = int (*)(void *, int *);
// cuTensorMapEncodeTiled(CUtensorMap *, CUtensorMapDataType, cuuint32_t
// rank, void *global, const cuuint64_t *dims, const cuuint64_t *strides,
// const cuuint32_t *box, const cuuint32_t *elementStrides, interleave,
// swizzle, l2Promotion, oobFill), enums as ints.
using EncodeTiledFn = int (*)(void *, int, unsigned, void *, const uint64_t *,
                              const uint64_t *, const unsigned *,
                              const unsigned *, int, int, int, int);
constexpr int kInvalidContext = 201;

LaunchFn launchKernel = nullptr;
LaunchExFn launchKernelEx = nullptr;
IsCapturingFn streamIsCapturing = nullptr;
EncodeTiledFn encodeTiled = nullptr;

// Everything a call's plan depends on, besides the variant registry itself
// (the default library, fixed per process).
struct PlanKey {
  std::array<int64_t, 16> v;
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

// A TMA kernel's tensor map of A, B or C: everything but the operand's address
// is the plan's (the Python launcher's _Plan.tensor_maps, in the enums of
// cuTensorMapEncodeTiled).
struct TensorMapSpec {
  int slot, operand; // operand 0: A, 1: B, 2: C (this path's fresh C)
  uint64_t dims[2], strideBytes;
  unsigned box[2], elementStrides[2];
  int dataType, swizzle, l2Promotion, oobFill;
};

// A CUtensorMap: 128 bytes, 64-byte aligned as its kernel parameter is.
struct alignas(64) TensorMapBytes {
  uint8_t bytes[128];
};

struct Plan {
  void *function;
  unsigned gridX, gridY, block, sharedBytes;
  // Launched with programmatic stream serialization (the manifest's
  // dependent_launch: the kernel waits for the previous one itself).
  bool dependent = false;
  // One 8-byte slot per kernel parameter (the Python launcher's layout):
  // i32 values in the low half, pointers filled per call; a tensor map's
  // slot is unused (its parameter points at the map's bytes instead). A call
  // with an activation and no bias runs a bias_* kernel: its bias pointer
  // (a -0.0 vector the Python launcher keeps for the process) is a constant
  // of the plan, and biasSlot is -1 (_mlir_backend.teach).
  std::vector<uint64_t> values;
  int aSlot, bSlot, cSlot, biasSlot, wsSlot;
  int64_t sumBytes, tiles;
  std::vector<TensorMapSpec> maps;
  // Each map encoded once per operand address (a map holds only the
  // address, sizes and strides), for the 256 addresses most recently new.
  std::vector<std::unordered_map<uintptr_t, TensorMapBytes>> encoded;
};

std::unordered_map<PlanKey, Plan, PlanKeyHash> plans;
constexpr size_t kMaxPlans = 4096;

// Slice sums and zeroed counters per (device, stream), as the Python
// launcher keeps them: each launch leaves the counters zero, and kernels on
// one stream never overlap.
struct Workspace {
  at::Tensor sums, locks;
};
std::map<std::pair<int, uintptr_t>, Workspace> workspaces;

enum Outer : int64_t { kOuterF32 = 0, kOuterF16 = 1 };
enum Activation : int64_t { kNone = 0, kRelu = 1, kGelu = 2 };
enum Backend : int64_t { kAuto = 0, kMlir = 1 };

// torch.Tensor or nn.Parameter (a subclass that adds nothing to
// dispatch), not another subclass.
bool isPlainTensor(PyObject *obj) { return THPVariable_CheckExact(obj); }

// -1 unless `obj` is one of `names` (exact str).
int64_t pick(PyObject *obj, std::initializer_list<const char *> names) {
  if (!PyUnicode_CheckExact(obj))
    return -1;
  Py_ssize_t len;
  const char *s = PyUnicode_AsUTF8AndSize(obj, &len);
  if (!s)
    return PyErr_Clear(), -1;
  int64_t i = 0;
  for (const char *name : names) {
    if (static_cast<size_t>(len) == std::strlen(name) &&
        std::memcmp(s, name, len) == 0)
      return i;
    ++i;
  }
  return -1;
}

// An exact int in [lo, hi], or -1.
int64_t smallInt(PyObject *obj, int64_t lo, int64_t hi) {
  if (!PyLong_CheckExact(obj))
    return -1;
  int overflow;
  long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow || v < lo || v > hi)
    return PyErr_Clear(), -1;
  return v;
}

// A call this path may take, with its operands as the kernel sees them.
struct Call {
  at::Tensor a, b;
  std::optional<at::Tensor> bias;
  std::vector<int64_t> outShape;
  int device;
  PlanKey key;
};

// Fills `call` from split_k_sequential's arguments (x, weight, bias,
// max_k_splits, outer, activation, slices, backend); false for anything the
// Python path must see, including every argument error.
bool parse(PyObject *const *args, Py_ssize_t n, Call &call) {
  if (n != 8 || !isPlainTensor(args[0]) || !isPlainTensor(args[1]))
    return false;
  const at::Tensor &x = THPVariable_Unpack(args[0]);
  const at::Tensor &w = THPVariable_Unpack(args[1]);
  const at::Tensor *bias = nullptr;
  if (args[2] != Py_None) {
    if (!isPlainTensor(args[2]))
      return false;
    bias = &THPVariable_Unpack(args[2]);
  }
  int64_t splits = smallInt(args[3], 1, 65535);
  int64_t outer = pick(args[4], {"f32", "f16"});
  int64_t act =
      args[5] == Py_None ? kNone : pick(args[5], {"", "relu", "gelu"});
  int64_t slices = smallInt(args[6], 0, 65535);
  int64_t backend = args[7] == Py_None ? kAuto : pick(args[7], {"", "mlir"});
  if (splits < 0 || outer < 0 || (act <= 0 && args[5] != Py_None) ||
      slices < 0 || (backend <= 0 && args[7] != Py_None))
    return false;

  // float16 operands on one CUDA device, the current one.
  if (x.scalar_type() != at::kHalf || w.scalar_type() != at::kHalf ||
      !x.is_cuda() || !w.is_cuda() || x.dim() < 1 || w.dim() != 2)
    return false;
  int device = x.get_device();
  if (w.get_device() != device || c10::cuda::current_device() != device)
    return false;
  int64_t k = w.size(0), nn = w.size(1);
  if (x.size(-1) != k || k == 0 || nn == 0)
    return false;
  if (bias) {
    if (bias->scalar_type() != at::kHalf || !bias->is_cuda() ||
        bias->get_device() != device)
      return false;
    bool vector = bias->dim() == 1 && bias->size(0) == nn;
    bool row = bias->dim() == 2 && bias->size(0) == 1 && bias->size(1) == nn;
    if (!vector && !row)
      return false;
  }
  // Autograd and dispatch modes (fake, proxy, functional, user modes) must
  // see the operator.
  if (at::GradMode::is_enabled() && (x.requires_grad() || w.requires_grad() ||
                                     (bias && bias->requires_grad())))
    return false;
  if (c10::impl::TorchDispatchModeTLS::any_modes_set(
          /*skip_infra_modes=*/false))
    return false;

  call.a = x.dim() == 2 ? x : x.reshape({-1, k});
  int64_t m = call.a.size(0);
  if (m == 0)
    return false;
  call.b = w;
  if (bias)
    call.bias = bias->dim() == 1 ? *bias : bias->reshape({nn});
  call.outShape.assign(x.sizes().begin(), x.sizes().end() - 1);
  call.outShape.push_back(nn);
  call.device = device;
  const at::Tensor &a = call.a;
  auto aPtr = reinterpret_cast<uintptr_t>(a.data_ptr());
  auto bPtr = reinterpret_cast<uintptr_t>(w.data_ptr());
  call.key.v = {device,
                m,
                nn,
                k,
                a.stride(0),
                a.stride(1),
                w.stride(0),
                w.stride(1),
                call.bias ? call.bias->stride(0) : INT64_MIN,
                static_cast<int64_t>((aPtr & 15) | (bPtr & 15) << 4),
                splits,
                outer,
                act,
                slices,
                backend,
                0};
  return true;
}

// The cached workspace of (device, stream), grown to the plan's needs; while
// the stream captures a CUDA graph, a fresh one in the graph's private pool
// (`scratch`): a replay, on whatever stream, must not share the cached one
// with eager launches.
const Workspace &workspaceFor(int device, cudaStream_t stream, const Plan &p,
                              Workspace &scratch) {
  auto options = at::TensorOptions().device(at::kCUDA, device);
  auto sums = [&] {
    return at::empty({(p.sumBytes + 3) / 4}, options.dtype(at::kFloat));
  };
  auto locks = [&] {
    return at::zeros({std::max<int64_t>(p.tiles, 1024)},
                     options.dtype(at::kInt));
  };
  int capturing = 0;
  if (streamIsCapturing(stream, &capturing) != 0 || capturing != 0) {
    scratch = {sums(), locks()};
    return scratch;
  }
  Workspace &ws = workspaces[{device, reinterpret_cast<uintptr_t>(stream)}];
  if (!ws.sums.defined() || ws.sums.numel() * 4 < p.sumBytes)
    ws.sums = sums();
  if (!ws.locks.defined() || ws.locks.numel() < p.tiles)
    ws.locks = locks();
  return ws;
}

// Map `index` of `p` for an operand at `ptr` into `out`, from the plan's
// cache or encoded (false with a Python error set when the driver refuses).
bool tensorMap(Plan &p, size_t index, void *ptr, TensorMapBytes &out) {
  auto &cache = p.encoded[index];
  auto key = reinterpret_cast<uintptr_t>(ptr);
  auto hit = cache.find(key);
  if (hit != cache.end()) {
    out = hit->second;
    return true;
  }
  const TensorMapSpec &s = p.maps[index];
  uint64_t strides[1] = {s.strideBytes};
  int err = encodeTiled(out.bytes, s.dataType, 2, ptr, s.dims, strides, s.box,
                        s.elementStrides, /*interleave=*/0, s.swizzle,
                        s.l2Promotion, s.oobFill);
  if (err) {
    PyErr_Format(PyExc_RuntimeError,
                 "cuTensorMapEncodeTiled failed with CUDA error %d", err);
    return false;
  }
  if (cache.size() >= 256)
    cache.erase(cache.begin());
  cache.emplace(key, out);
  return true;
}

// run(x, weight, bias, max_k_splits, outer, activation, slices, backend):
// the result, or None when Python must take the call.
PyObject *run(PyObject *, PyObject *const *args, Py_ssize_t n) {
  HANDLE_TH_ERRORS
  Call call;
  if (!launchKernel || !streamIsCapturing || !parse(args, n, call))
    Py_RETURN_NONE;
  auto it = plans.find(call.key);
  if (it == plans.end())
    Py_RETURN_NONE;
  Plan &p = it->second;
  // empty_cuda: the allocation without the dispatcher (1.4 us here against
  // at::empty's 2.2 on an H100 host).
  at::Tensor out =
      at::detail::empty_cuda({call.a.size(0), call.b.size(1)}, at::kHalf,
                             call.a.device(), std::nullopt);
  uint64_t values[64];
  void *params[64];
  size_t count = p.values.size();
  std::memcpy(values, p.values.data(), count * sizeof(uint64_t));
  values[p.aSlot] = reinterpret_cast<uintptr_t>(call.a.data_ptr());
  values[p.bSlot] = reinterpret_cast<uintptr_t>(call.b.data_ptr());
  values[p.cSlot] = reinterpret_cast<uintptr_t>(out.data_ptr());
  if (p.biasSlot >= 0)
    values[p.biasSlot] = reinterpret_cast<uintptr_t>(call.bias->data_ptr());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(call.device).stream();
  Workspace scratch;
  if (p.sumBytes) {
    const Workspace &ws = workspaceFor(call.device, stream, p, scratch);
    values[p.wsSlot] = reinterpret_cast<uintptr_t>(ws.sums.data_ptr());
    values[p.wsSlot + 1] = static_cast<uint64_t>(ws.sums.numel() * 4);
    values[p.wsSlot + 2] = reinterpret_cast<uintptr_t>(ws.locks.data_ptr());
    values[p.wsSlot + 3] = static_cast<uint64_t>(ws.locks.numel());
  }
  for (size_t i = 0; i < count; ++i)
    params[i] = &values[i];
  TensorMapBytes maps[3];
  for (size_t i = 0; i < p.maps.size(); ++i) {
    const TensorMapSpec &spec = p.maps[i];
    void *operands[] = {call.a.data_ptr(), call.b.data_ptr(), out.data_ptr()};
    void *ptr = operands[spec.operand];
    // The plan's C map was encoded for a 16-byte aligned C, which the CUDA
    // caching allocator's blocks are; any other allocator's go to Python.
    if (spec.operand == 2 && reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      Py_RETURN_NONE;
    if (!tensorMap(p, i, ptr, maps[i]))
      return nullptr;
    params[spec.slot] = maps[i].bytes;
  }
  int err;
  if (p.dependent && !launchKernelEx)
    Py_RETURN_NONE; // the Python launcher's path
  if (p.dependent) {
    LaunchAttribute attr{};
    attr.id = kProgrammaticStreamSerialization;
    attr.value[0] = 1; // programmaticStreamSerializationAllowed, an int
    LaunchConfig config{p.gridX, p.gridY, 1,      p.block, 1, 1,
                        p.sharedBytes, stream, &attr,   1};
    err = launchKernelEx(&config, p.function, params, nullptr);
  } else {
    err = launchKernel(p.function, p.gridX, p.gridY, 1, p.block, 1, 1,
                       p.sharedBytes, stream, params, nullptr);
  }
  // A thread without a current context: the Python launcher makes the
  // primary context current and launches.
  if (err == kInvalidContext)
    Py_RETURN_NONE;
  if (err) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s failed with CUDA error %d (grid %u x %u)",
                 p.dependent ? "cuLaunchKernelEx" : "cuLaunchKernel", err,
                 p.gridX, p.gridY);
    return nullptr;
  }
  if (static_cast<int64_t>(call.outShape.size()) != 2)
    out = out.view(call.outShape);
  return THPVariable_Wrap(std::move(out));
  END_HANDLE_TH_ERRORS
}

// The tensor maps argument of remember: a sequence of (slot, operand,
// K, rows, row stride in bytes, box K, box rows, element stride K,
// element stride rows, data type, swizzle, L2 promotion, OOB fill).
bool parseMaps(PyObject *arg, std::vector<TensorMapSpec> &maps) {
  PyObject *seq = PySequence_Fast(arg, "tensor maps must be a sequence");
  if (!seq)
    return false;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < PySequence_Fast_GET_SIZE(seq); ++i) {
    TensorMapSpec m;
    unsigned long long k, rows, stride;
    ok = PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iiKKKIIIIiiii",
                          &m.slot, &m.operand, &k, &rows, &stride, &m.box[0],
                          &m.box[1], &m.elementStrides[0], &m.elementStrides[1],
                          &m.dataType, &m.swizzle, &m.l2Promotion, &m.oobFill);
    m.dims[0] = k;
    m.dims[1] = rows;
    m.strideBytes = stride;
    maps.push_back(m);
  }
  Py_DECREF(seq);
  return ok;
}

// remember(x, weight, bias, max_k_splits, outer, activation, slices,
// backend, function, grid_x, grid_y, block, shared_bytes, values, slots,
// sum_bytes, tiles, tensor_maps, dependent): the Python launcher's plan for
// calls like this one. slots = (a, b, c, bias or -1, ws or -1); tensor_maps
// as parseMaps reads them (empty but for TMA kernels); dependent: launch with
// programmatic stream serialization. Returns whether it was kept.
PyObject *remember(PyObject *, PyObject *const *args, Py_ssize_t n) {
  HANDLE_TH_ERRORS
  if (n != 19) {
    PyErr_SetString(PyExc_TypeError, "remember takes 19 arguments");
    return nullptr;
  }
  Call call;
  if (!parse(args, 8, call))
    Py_RETURN_FALSE;
  Plan p;
  p.function = PyLong_AsVoidPtr(args[8]);
  p.gridX = PyLong_AsUnsignedLong(args[9]);
  p.gridY = PyLong_AsUnsignedLong(args[10]);
  p.block = PyLong_AsUnsignedLong(args[11]);
  p.sharedBytes = PyLong_AsUnsignedLong(args[12]);
  PyObject *values = PySequence_Fast(args[13], "values must be a sequence");
  if (!values)
    return nullptr;
  Py_ssize_t count = PySequence_Fast_GET_SIZE(values);
  for (Py_ssize_t i = 0; i < count; ++i)
    p.values.push_back(
        PyLong_AsUnsignedLongLongMask(PySequence_Fast_GET_ITEM(values, i)));
  Py_DECREF(values);
  if (!PyArg_ParseTuple(args[14], "iiiii", &p.aSlot, &p.bSlot, &p.cSlot,
                        &p.biasSlot, &p.wsSlot))
    return nullptr;
  p.sumBytes = PyLong_AsLongLong(args[15]);
  p.tiles = PyLong_AsLongLong(args[16]);
  if (PyErr_Occurred() || !parseMaps(args[17], p.maps))
    return nullptr;
  int dependent = PyObject_IsTrue(args[18]);
  if (dependent < 0)
    return nullptr;
  p.dependent = dependent;
  p.encoded.resize(p.maps.size());
  auto inRange = [&](int slot, int width) {
    return slot >= 0 && slot + width <= count;
  };
  if (count > 64 || !inRange(p.aSlot, 1) || !inRange(p.bSlot, 1) ||
      !inRange(p.cSlot, 1) || (p.biasSlot >= 0) != call.bias.has_value() ||
      (call.bias && !inRange(p.biasSlot, 1)) ||
      (p.sumBytes && !inRange(p.wsSlot, 4)) || p.maps.size() > 3 ||
      std::any_of(p.maps.begin(), p.maps.end(),
                  [&](const TensorMapSpec &m) {
                    return !inRange(m.slot, 1) ||
                           (m.operand < 0 || m.operand > 2);
                  }) ||
      (!p.maps.empty() && !encodeTiled) || (p.dependent && !launchKernelEx)) {
    PyErr_SetString(PyExc_ValueError, "remember: a plan that does not fit its "
                                      "parameter list");
    return nullptr;
  }
  if (plans.size() >= kMaxPlans)
    plans.clear();
  plans[call.key] = std::move(p);
  Py_RETURN_TRUE;
  END_HANDLE_TH_ERRORS
}

// set_launch(address of cuLaunchKernel, address of cuStreamIsCapturing,
// address of cuTensorMapEncodeTiled, address of cuLaunchKernelEx): the
// driver entries of the libcuda the Python launcher loaded.
PyObject *setLaunch(PyObject *, PyObject *const *args, Py_ssize_t n) {
  if (n != 4) {
    PyErr_SetString(PyExc_TypeError, "set_launch takes 4 arguments");
    return nullptr;
  }
  void *launch = PyLong_AsVoidPtr(args[0]);
  void *capturing = PyLong_AsVoidPtr(args[1]);
  void *encode = PyLong_AsVoidPtr(args[2]);
  void *launchEx = PyLong_AsVoidPtr(args[3]);
  if (PyErr_Occurred())
    return nullptr;
  launchKernel = reinterpret_cast<LaunchFn>(launch);
  launchKernelEx = reinterpret_cast<LaunchExFn>(launchEx);
  streamIsCapturing = reinterpret_cast<IsCapturingFn>(capturing);
  encodeTiled = reinterpret_cast<EncodeTiledFn>(encode);
  Py_RETURN_NONE;
}

PyObject *forget(PyObject *, PyObject *) {
  plans.clear();
  workspaces.clear();
  Py_RETURN_NONE;
}

PyObject *planCount(PyObject *, PyObject *) {
  return PyLong_FromSize_t(plans.size());
}

PyMethodDef methods[] = {
    {"run", reinterpret_cast<PyCFunction>(reinterpret_cast<void *>(run)),
     METH_FASTCALL, "The result of a known call, or None."},
    {"remember",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void *>(remember)),
     METH_FASTCALL, "Keeps the Python launcher's plan for calls like this."},
    {"set_launch",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void *>(setLaunch)),
     METH_FASTCALL,
     "cuLaunchKernel's, cuStreamIsCapturing's and cuTensorMapEncodeTiled's "
     "addresses."},
    {"forget", forget, METH_NOARGS, "Drops every plan and workspace."},
    {"plan_count", planCount, METH_NOARGS, "How many plans are kept."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT, "_gpupoor_fastpath",
                         "gpupoor's compiled launch path", -1, methods};

} // namespace

PyMODINIT_FUNC PyInit__gpupoor_fastpath() {
  return PyModule_Create(&moduleDef);
}
