//===- mgpu_runtime.cpp - the mgpu* calls of lowered host code ------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The few entry points that upstream's gpu-to-llvm lowering of a
// gpu.launch_func (and the LLVM translation of gpu.binary) calls, on the
// CUDA driver API, for the GPU differential tests: Debian's MLIR packages
// ship no mlir_cuda_runtime. Each call that fails aborts the process with
// the driver's error, so that a test cannot pass over a failed launch.
//
// Built on the GPU machine with
//   g++ -O2 -fPIC -c mgpu_runtime.cpp -I/usr/local/cuda/include
// and linked with -lcuda into each test program's shared library.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

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
                                 void **params, void **extra,
                                 size_t /*paramsCount*/) {
  useContext();
  // Dynamic shared memory beyond 48 KiB must be opted into per kernel.
  check(cuFuncSetAttribute(
            function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
        "cuFuncSetAttribute");
  check(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                       smem, stream, params, extra),
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

// gpu.memcpy (a constant's host copy to the device): with unified
// addressing the driver takes host and device pointers alike.
extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           CUstream stream) {
  useContext();
  check(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream),
        "cuMemcpyAsync");
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
