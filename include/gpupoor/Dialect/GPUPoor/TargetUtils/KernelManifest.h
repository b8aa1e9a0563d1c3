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

/// The parameters of a gpupoor kernel with `numEpilogueInputs` epilogue
/// operands, in order: the Triton ABI of gpu_poor's `_matmul_kernel` (A's,
/// B's and C's global pointers, then sizes and element strides, i32 or
/// i64), then for each epilogue operand i its pointer and its element
/// strides along C's rows and columns (`in<i>_ptr`, `stride_in<i>m`,
/// `stride_in<i>n`; 0 along a broadcast dimension); then, for a parallel
/// split-k kernel, the workspace's pointer and its size in bytes
/// (`ws_ptr`, `ws_bytes`).
SmallVector<std::string> getKernelParamNames(const KernelSpec &spec);

/// What a launcher outside MLIR needs to run the kernel `kernel` describes:
/// parameters, grid, block, dynamic shared memory, the strategy, the
/// configuration, and the requirements the kernel places on its operands.
llvm::json::Object getKernelManifest(KernelAttr kernel);

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELMANIFEST_H
