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

/// One kernel a matmul may launch.
struct KernelVariant {
  gpu::GPUFuncOp func;
  KernelSpec spec;
};

/// Emits, before memref `op`, the host code that computes it: it launches
/// the first of `variants` whose requirements hold (cp.async copies: unit
/// inner strides, 16-byte rows and pointers; 32-bit indices: sizes,
/// strides and offsets below 2^31), checking at run time what the types do
/// not prove; the last variant must need nothing the types do not prove.
/// Each launch takes the Triton-ABI arguments from op's memrefs (sizes and
/// strides as wide as the kernel's index), a 1-D grid of ceil(M/BM) *
/// ceil(N/BN) blocks and the spec's dynamic shared memory, and carries a
/// #gpupoor.kernel attribute for gpupoor-dump-kernels. A batched matmul
/// launches once: batch * ceil(M/BM) * ceil(N/BN) blocks, the kernel taking
/// each operand's batch stride (0 for a bias the batch shares). A parallel
/// split-k kernel gets P' blocks along y and a workspace the host code
/// allocates per call.
void emitHostLaunch(MatmulOp op, ArrayRef<KernelVariant> variants);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_HOSTLAUNCH_H
