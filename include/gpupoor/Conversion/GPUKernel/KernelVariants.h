//===- KernelVariants.h - a matmul's kernels and their launch ---*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// What every kernel lowering does around its kernel body: the configured
// kernel and the fallbacks for what the types leave to run time, each
// declared with the Triton ABI, then the host code that picks one.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_KERNELVARIANTS_H
#define GPUPOOR_CONVERSION_GPUKERNEL_KERNELVARIANTS_H

#include "gpupoor/Conversion/GPUKernel/KernelPart.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::gpupoor {

/// The configured kernel, then kernels that need less of the operands, for
/// what the types leave to run time (HostLaunch.cpp checks which one a
/// launch takes): for a batched TMA kernel the cp.async kernel (batch
/// strides no tensor map steps); element copies for a cp.async kernel,
/// whose pointer alignment no type proves; element copies with 64-bit
/// indices for a
/// 32-bit kernel unless the static shape proves its offsets fit. A
/// configuration that the static types rule out is an error.
using KernelVariantList = SmallVector<std::pair<std::string, KernelSpec>, 4>;
FailureOr<KernelVariantList> kernelVariants(MatmulOp op,
                                            const KernelSpec &spec);

/// Builds one kernel's body into its declared function.
using KernelBodyBuilder = function_ref<void(KernelContext &, gpu::GPUFuncOp)>;

/// Replaces memref `op` (configured; `pass` names the lowering in
/// diagnostics) with the launch of its kernels: each variant declared at the
/// end of `module` under a name no symbol has, its body from `buildBody`;
/// then the host code.
LogicalResult lowerToKernels(MatmulOp op, ModuleOp module, SymbolTable &symbols,
                             StringRef pass, KernelBodyBuilder buildBody);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_KERNELVARIANTS_H
