//===- Driver.h - tensor maps and launches on the CUDA driver ---*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The one tensor-map encoder and the one launch (CUlaunchConfig) of the
// project: the runtime of emitted host code (CudaRuntime.cpp), the PyTorch
// package's launcher (python/gpupoor/csrc) and the GPU tests (through the
// runtime library's C entry points) all call these.
//
// The driver is opened with dlopen (libcuda.so.1), not linked: the package's
// extension must import on machines without a GPU driver (it also holds the
// policy, which the CPU tests use), and there `driver()` is null.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_RUNTIME_DRIVER_H
#define GPUPOOR_RUNTIME_DRIVER_H

#include <cuda.h>

#include <cstdint>
#include <optional>
#include <string>

namespace gpupoor::runtime {

/// The driver entry points gpupoor calls, from the process's libcuda.so.1.
struct DriverApi {
  decltype(&::cuInit) init;
  decltype(&::cuGetErrorName) getErrorName;
  decltype(&::cuGetErrorString) getErrorString;
  decltype(&::cuDeviceGet) deviceGet;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain;
  decltype(&::cuCtxPushCurrent) ctxPushCurrent;
  decltype(&::cuCtxPopCurrent) ctxPopCurrent;
  decltype(&::cuLibraryLoadData) libraryLoadData;
  decltype(&::cuLibraryGetKernel) libraryGetKernel;
  decltype(&::cuKernelSetAttribute) kernelSetAttribute;
  decltype(&::cuKernelGetFunction) kernelGetFunction;
  decltype(&::cuFuncSetAttribute) funcSetAttribute;
  decltype(&::cuLaunchKernel) launchKernel;
  /// Null on drivers before CUDA 11.8: kernels then launch plainly.
  decltype(&::cuLaunchKernelEx) launchKernelEx;
  /// Null on drivers before CUDA 12.0 (no TMA kernels then).
  decltype(&::cuTensorMapEncodeTiled) tensorMapEncodeTiled;
};

/// The driver, loaded and initialized once; null where libcuda.so.1 is
/// missing or cuInit fails (no driver, no device).
const DriverApi *driver();

/// "CUDA_ERROR_...: <description>" of a driver result.
std::string errorText(CUresult result);

/// A tiled tensor map of rank 2 or 3 (the TMA kernels' operands), all but
/// the address; the fields are cuTensorMapEncodeTiled's.
struct TensorMapSpec {
  CUtensorMapDataType dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  unsigned rank = 2;
  /// Innermost first; strides in bytes of dimensions 1 and 2.
  uint64_t dims[3] = {1, 1, 1};
  uint64_t strideBytes[2] = {16, 16};
  unsigned box[3] = {1, 1, 1};
  unsigned elementStrides[3] = {1, 1, 1};
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
  CUtensorMapFloatOOBfill oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

/// The spec of the TMA kernels' f16 operand of `rows` rows of `k` elements,
/// rows `rowStride` elements apart, in boxes of `boxRows` x `boxK`,
/// swizzled across a box row (swizzleOfBoxBytes): a size of 0 is encoded as
/// 1 (the kernel then loads nothing, or is not launched) and a stride of 0
/// or less, or of rows never stepped (K = 0, one row), as 16 bytes. `batch`
/// >= 0 adds the batch as a third dimension, elements `batchStride` apart,
/// in boxes of one.
TensorMapSpec operandMap(int64_t k, int64_t rows, int64_t rowStride,
                         unsigned boxK, unsigned boxRows, int64_t batch = -1,
                         int64_t batchStride = 0);

/// The swizzle of a box row of `bytes` (32, 64 or 128, the kernels' shared
/// tiles: rows of one swizzle span, as wgmma reads them), else none.
CUtensorMapSwizzle swizzleOfBoxBytes(int64_t bytes);

/// Whether a box row of `bytes` loads with `swizzle` into the kernels'
/// shared tiles: swizzleOfBoxBytes's for rows of 32, 64 or 128 bytes, or
/// none for rows of 16 (wgmma's unswizzled N-major B: 8 columns, each 8
/// rows of K one 128-byte core matrix).
bool boxRowSwizzleFits(CUtensorMapSwizzle swizzle, int64_t bytes);

/// The L2 promotion of `bytes` (0, 64, 128 or 256; the manifests'
/// l2_promotion and the emitted host code's argument), else none.
CUtensorMapL2promotion l2PromotionOfBytes(int64_t bytes);

/// The L2 promotion `spec` is encoded with for the operand at `global`:
/// its own, but 64 bytes where its rows (or its address) are not 32-byte
/// aligned and it asks for more.
CUtensorMapL2promotion l2PromotionFor(const TensorMapSpec &spec,
                                      const void *global);

/// `spec` read in rows of 128 bytes where it describes rows of 16 bytes that
/// lie one after another, whole in each box (a box then is one run of
/// bytes): the same tile in shared memory, fetched in an eighth of the
/// requests. Else none. Needs a kernel stepping rows by multiples of 8.
std::optional<TensorMapSpec> groupedRows(const TensorMapSpec &spec);

/// The map encodeTensorMap encodes for `spec` at `global`: its rows
/// grouped (groupedRows) where they can be, with l2PromotionFor's promotion
/// of the fetches.
TensorMapSpec encodedSpec(const TensorMapSpec &spec, const void *global);

/// Encodes `spec` for the operand at `global` into `map` (as encodedSpec
/// says); CUDA_ERROR_INVALID_VALUE, encoding
/// nothing, where `spec` is not an f16 map whose box row loads into the
/// kernels' shared tiles (boxRowSwizzleFits).
CUresult encodeTensorMap(CUtensorMap *map, const TensorMapSpec &spec,
                         void *global);

/// A launch: the grid, the block, its dynamic shared memory and stream;
/// `dependent` launches with programmatic stream serialization (the kernel
/// waits for its predecessor itself), which needs cuLaunchKernelEx (a driver
/// without it launches plainly).
struct Launch {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  CUstream stream = nullptr;
  bool dependent = false;
};

/// Launches `function` with `params` (one pointer a parameter).
CUresult launchKernel(CUfunction function, const Launch &launch, void **params);

} // namespace gpupoor::runtime

#endif // GPUPOOR_RUNTIME_DRIVER_H
