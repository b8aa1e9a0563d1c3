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

/// The parameters of gpupoor's kernels, in order: the Triton ABI of
/// gpu_poor's `_matmul_kernel` (four global pointers, then i32 sizes and
/// element strides).
ArrayRef<StringLiteral> getKernelParamNames();

/// What a launcher outside MLIR needs to run the kernel `kernel` describes:
/// parameters, grid, block, dynamic shared memory, the strategy, the
/// configuration, and the requirements the kernel places on its operands.
llvm::json::Object getKernelManifest(KernelAttr kernel);

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELMANIFEST_H
