//===- CudaRuntime.cpp - the mgpu* calls of lowered host code -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// libgpupoor_cuda_runtime: the entry points that upstream's gpu-to-llvm
// lowering of gpupoor's host code (and the LLVM translation of gpu.binary)
// calls, on the CUDA driver API. Debian's MLIR packages ship no
// mlir_cuda_runtime, and a program built from gpupoor-opt's output should
// not need MLIR's: this is the runtime it links. The names and signatures are
// upstream's (mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp), so code
// lowered by stock MLIR links against it too. Each call that fails aborts
// the process with the driver's error: a launch cannot fail silently.
//
// Device memory is the primary context's of device 0 (the one PyTorch
// uses); the lowered code allocates its buffers through mgpuMemAlloc.
// Built by lib/Runtime/CMakeLists.txt when the CUDA driver API's header is
// found; the GPU tests also compile this file on the GPU machine
//   g++ -O2 -fPIC -c CudaRuntime.cpp -I/usr/local/cuda/include
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Runtime/Driver.h"

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace {

void check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "mgpu_runtime: %s failed with %s\n", what,
               name ? name : "an unknown error");
  std::abort();
}

/// Makes the primary context of device 0 (the one PyTorch uses) current.
void useContext() {
  static CUcontext context = [] {
    check(cuInit(0), "cuInit");
    CUdevice device;
    check(cuDeviceGet(&device, 0), "cuDeviceGet");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain");
    return ctx;
  }();
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

} // namespace

extern "C" CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  useContext();
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

// PTX (cubin-format=isa): the driver JIT-compiles it for the device.
extern "C" CUmodule mgpuModuleLoadJIT(void *data, int optLevel,
                                      size_t /*size*/) {
  useContext();
  CUmodule module = nullptr;
  CUjit_option option = CU_JIT_OPTIMIZATION_LEVEL;
  void *value = reinterpret_cast<void *>(static_cast<intptr_t>(optLevel));
  check(cuModuleLoadDataEx(&module, data, 1, &option, &value),
        "cuModuleLoadDataEx");
  return module;
}

extern "C" void mgpuModuleUnload(CUmodule module) {
  // At exit the context may be gone already; nothing to check then.
  cuModuleUnload(module);
}

extern "C" CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  CUfunction function = nullptr;
  check(cuModuleGetFunction(&function, module, name), "cuModuleGetFunction");
  return function;
}

extern "C" void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem, CUstream stream,
                                 void **params, void ** /*extra*/,
                                 size_t /*paramsCount*/) {
  useContext();
  // Dynamic shared memory beyond 48 KiB must be opted into per kernel.
  check(cuFuncSetAttribute(
            function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
        "cuFuncSetAttribute");
  gpupoor::runtime::Launch launch;
  launch.grid[0] = gridX;
  launch.grid[1] = gridY;
  launch.grid[2] = gridZ;
  launch.block[0] = blockX;
  launch.block[1] = blockY;
  launch.block[2] = blockZ;
  launch.sharedBytes = smem;
  launch.stream = stream;
  check(gpupoor::runtime::launchKernel(function, launch, params),
        "cuLaunchKernel");
}

// gpu.alloc and gpu.dealloc of the host code (gpupoor-offload-to-gpu).
extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                              bool /*isHostShared*/) {
  useContext();
  CUdeviceptr ptr = 0;
  if (sizeBytes)
    check(cuMemAlloc(&ptr, sizeBytes), "cuMemAlloc");
  return reinterpret_cast<void *>(ptr);
}

extern "C" void mgpuMemFree(void *ptr, CUstream /*stream*/) {
  if (ptr)
    check(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

// The workspace of a parallel or stream-K launch (HostLaunch.cpp's
// emitWorkspace): the slice sums and the zeroed counters, from buffers of
// the calling thread that grow on demand and are kept, instead of an
// allocation, a fill kernel and a free (which synchronizes the device) per
// call. Sharing them is safe because the lowered host code's launches are
// synchronous (gpu-to-llvm synchronizes the stream of a launch without an
// async token), so a thread has one kernel in flight at a time, and because
// every launch leaves its counters zero, as the package's launcher relies
// on too. A size of 0 gives a null pointer.
namespace {

struct Workspace {
  CUdeviceptr ptr = 0;
  uint64_t bytes = 0;
  ~Workspace() {
    // At thread or process exit the context may be gone: not checked.
    if (ptr)
      cuMemFree(ptr);
  }

  /// At least `size` bytes; new ones zeroed where `zeroed`.
  void *reserve(uint64_t size, bool zeroed) {
    if (size == 0)
      return nullptr;
    if (size > bytes) {
      useContext();
      if (ptr)
        check(cuMemFree(ptr), "cuMemFree");
      ptr = 0;
      bytes = 0;
      check(cuMemAlloc(&ptr, size), "cuMemAlloc");
      bytes = size;
      // The launches run on non-blocking streams, which do not wait for
      // the legacy stream's memset: wait for it here (growth is rare).
      if (zeroed) {
        check(cuMemsetD8(ptr, 0, size), "cuMemsetD8");
        check(cuCtxSynchronize(), "cuCtxSynchronize");
      }
    }
    return reinterpret_cast<void *>(ptr);
  }
};

thread_local Workspace sliceSums, sliceCounters;

} // namespace

extern "C" void *gpupoorSliceSums(uint64_t bytes) {
  return sliceSums.reserve(bytes, /*zeroed=*/false);
}

extern "C" void *gpupoorSliceCounters(uint64_t count) {
  return sliceCounters.reserve(count * sizeof(int32_t), /*zeroed=*/true);
}

// gpu.memcpy (a constant's host copy to the device): with unified
// addressing the driver takes host and device pointers alike.
extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           CUstream stream) {
  useContext();
  check(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream),
        "cuMemcpyAsync");
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             CUstream stream) {
  useContext();
  check(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         stream),
        "cuMemsetD32Async");
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             CUstream stream) {
  useContext();
  check(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         stream),
        "cuMemsetD16Async");
}

extern "C" CUstream mgpuStreamCreate() {
  useContext();
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return stream;
}

extern "C" void mgpuStreamDestroy(CUstream stream) {
  check(cuStreamDestroy(stream), "cuStreamDestroy");
}

extern "C" void mgpuStreamSynchronize(CUstream stream) {
  check(cuStreamSynchronize(stream), "cuStreamSynchronize");
}

extern "C" void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  check(cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

extern "C" CUevent mgpuEventCreate() {
  useContext();
  CUevent event = nullptr;
  check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

extern "C" void mgpuEventDestroy(CUevent event) {
  check(cuEventDestroy(event), "cuEventDestroy");
}

extern "C" void mgpuEventSynchronize(CUevent event) {
  check(cuEventSynchronize(event), "cuEventSynchronize");
}

extern "C" void mgpuEventRecord(CUevent event, CUstream stream) {
  check(cuEventRecord(event, stream), "cuEventRecord");
}

/// The tensor map of a TMA kernel's operand (copies = tma): `rows` x `k` f16
/// at `global`, rows `rowStride` elements apart, K contiguous; boxes of
/// `boxRows` x `boxInner` (64 columns, 128 bytes; a narrow B tile's 16 or
/// 32) swizzled across a box row as wgmma reads the shared tiles;
/// what lies outside reads as zeros. A dimension of 0 is encoded as 1: the
/// kernel then loads nothing (K = 0) or is not launched (M or N = 0). A
/// batched kernel's maps add the batch as a third dimension (boxes of one
/// element).
namespace {

/// Maps encoded before, by everything a map holds: a launch whose operands
/// a recent launch had copies the map instead of encoding it again (an
/// operand's map is the same for every launch on it).
struct TensorMapCache {
  struct Entry {
    void *global;
    int64_t k, rows, rowStride, boxInner, boxRows, batch, batchStride,
        l2PromotionBytes;
    CUtensorMap map;

    bool sameOperand(const Entry &o) const {
      return global == o.global && k == o.k && rows == o.rows &&
             rowStride == o.rowStride && boxInner == o.boxInner &&
             boxRows == o.boxRows &&
             batch == o.batch && batchStride == o.batchStride &&
             l2PromotionBytes == o.l2PromotionBytes;
    }
  };
  static constexpr int kEntries = 64;
  std::mutex lock;
  Entry entries[kEntries];
  int used = 0, next = 0;

  bool find(const Entry &key, void *map) {
    std::lock_guard<std::mutex> guard(lock);
    for (int i = 0; i < used; ++i) {
      if (entries[i].sameOperand(key)) {
        std::memcpy(map, &entries[i].map, sizeof(CUtensorMap));
        return true;
      }
    }
    return false;
  }

  void add(const Entry &entry) {
    std::lock_guard<std::mutex> guard(lock);
    entries[next] = entry;
    next = (next + 1) % kEntries;
    used = used < kEntries ? used + 1 : used;
  }
};

TensorMapCache &tensorMapCache() {
  static TensorMapCache cache;
  return cache;
}

/// Encodes `key`'s map into `map`: rank 2, or rank 3 where `key.batch` is
/// not negative. A stride of 0 or less (its dimension then has one element,
/// as the launcher checks, and is never stepped) is encoded as 16 bytes.
void encodeTensorMap(void *map, TensorMapCache::Entry key) {
  if (tensorMapCache().find(key, map))
    return;
  useContext();
  gpupoor::runtime::TensorMapSpec spec =
      gpupoor::runtime::operandMap(key.k, key.rows, key.rowStride,
                                   key.boxInner, key.boxRows, key.batch,
                                   key.batchStride);
  spec.l2Promotion = gpupoor::runtime::l2PromotionOfBytes(key.l2PromotionBytes);
  check(gpupoor::runtime::encodeTensorMap(static_cast<CUtensorMap *>(map), spec,
                                          key.global),
        "cuTensorMapEncodeTiled");
  std::memcpy(&key.map, map, sizeof(CUtensorMap));
  tensorMapCache().add(key);
}

} // namespace

extern "C" void gpupoorTensorMapEncodeTiled(void *map, void *global, int64_t k,
                                            int64_t rows, int64_t rowStride,
                                            int64_t boxInner, int64_t boxRows,
                                            int64_t l2PromotionBytes) {
  encodeTensorMap(map, {global, k, rows, rowStride, boxInner, boxRows, -1, 0,
                        l2PromotionBytes, {}});
}

extern "C" void gpupoorTensorMapEncodeTiledBatched(
    void *map, void *global, int64_t k, int64_t rows, int64_t rowStride,
    int64_t boxInner, int64_t boxRows, int64_t l2PromotionBytes, int64_t batch,
    int64_t batchStride) {
  // A batch of 0 launches nothing; its map is that of one element. One
  // element's batch stride is never stepped: any i64 passes the launcher's
  // checks then, where TMA takes strides below 2^40 bytes.
  encodeTensorMap(map, {global,
                        k,
                        rows,
                        rowStride,
                        boxInner,
                        boxRows,
                        batch > 0 ? batch : 1,
                        batch > 1 ? batchStride : 0,
                        l2PromotionBytes,
                        {}});
}
