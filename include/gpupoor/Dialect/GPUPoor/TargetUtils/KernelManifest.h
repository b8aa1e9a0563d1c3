//===- KernelManifest.h - what a launcher needs of a kernel -----*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELMANIFEST_H
#define GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELMANIFEST_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "llvm/Support/JSON.h"

namespace mlir::gpupoor {

struct KernelSpec;

/// How a kernel parameter is passed: a global pointer, an integer as wide as
/// the kernel's index (sizes and strides), or an i64 whatever the index
/// width (batch strides, the workspace's size and its counters' count).
/// A tensor map (TMA kernels) is a CUtensorMap of 128 bytes passed by value,
/// 64-byte aligned (CUDA's `__grid_constant__ const CUtensorMap`).
enum class KernelParamKind { Pointer, Size, I64, TensorMap };

struct KernelParam {
  std::string name;
  KernelParamKind kind;
};

/// The parameters of a gpupoor kernel, in order: the Triton ABI of
/// gpu_poor's `_matmul_kernel` (A's, B's and C's global pointers, then sizes
/// and element strides), for a batched kernel A's, B's and C's batch
/// strides; for each epilogue operand i its pointer and its element strides
/// along C's rows and columns (`in<i>_ptr`, `stride_in<i>m`, `stride_in<i>n`;
/// 0 along a broadcast dimension, and `stride_in<i>b` when batched); then,
/// for a parallel split-k kernel, the workspace's pointer and its size in
/// bytes and the counters' pointer and count (`ws_ptr`, `ws_bytes`,
/// `locks_ptr`, `locks_count`). The kernel's signature (KernelABI.cpp) and
/// its manifest are both built from this list.
SmallVector<KernelParam> getKernelParams(const KernelSpec &spec);

/// What a launcher outside MLIR needs to run the kernel `kernel` describes:
/// parameters, grid, block, dynamic shared memory, the strategy, the
/// configuration, and the requirements the kernel places on its operands.
llvm::json::Object getKernelManifest(KernelAttr kernel);

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELMANIFEST_H
