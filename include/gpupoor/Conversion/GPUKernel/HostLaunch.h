//===- HostLaunch.h - host code that launches a gpupoor kernel --*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_HOSTLAUNCH_H
#define GPUPOOR_CONVERSION_GPUKERNEL_HOSTLAUNCH_H

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::gpupoor {

/// Emits, before memref `op`, the gpu.launch_func of `func` that computes
/// it, with the Triton-ABI arguments taken from op's memrefs, a 1-D grid of
/// ceil(M/BM) * ceil(N/BN) blocks and the spec's dynamic shared memory.
/// A batched matmul launches the kernel once per batch element on rank-2
/// views of A, B and C (the bias is shared): the kernel keeps the ABI, and
/// each launch fills the GPU when M x N does. Each launch carries a
/// #gpupoor.kernel attribute for gpupoor-dump-kernels.
void emitHostLaunch(MatmulOp op, gpu::GPUFuncOp func, const KernelSpec &spec);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_HOSTLAUNCH_H
