//===- KernelRequirements.h - what kernels need of operands -----*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// A kernel with 16-byte cp.async copies needs unit inner strides of A and B,
// rows and pointers aligned to 16 bytes; a kernel with 32-bit indices needs
// its sizes, strides, element offsets, block order and slice sums within
// 32-bit bounds (policy::kernelBounds).
// This proves or disproves them from a gpupoor.matmul's memref types where
// the types tell; the host code checks the rest at run time and then
// launches a kernel variant that needs less (HostLaunch.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELREQUIREMENTS_H
#define GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELREQUIREMENTS_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "gpupoor/Policy/Checks.h"

namespace mlir::gpupoor {

/// The 32-bit kernel's limits (the policy's, gpupoor/Policy/Checks.h).
using policy::kMax32BitOffset;
using policy::kMax32BitSize;

/// Whether A and B of memref `op` meet the cp.async kernel's requirements
/// (a batched product's batch strides included): false when a static
/// stride breaks them, nullopt when only run time can
/// tell (pointer alignment is never in the type).
std::optional<bool> asyncCopiesHold(MatmulOp op);

/// The checks of a 32-bit kernel's bounds (maxSize and maxOffset alone).
policy::OperandChecks checks32Bit();

/// Whether `bound` (policy::kernelBounds') holds for every launch of memref
/// `op`, from what its types and strategy tell of the parameters: true or
/// false where they tell, nullopt otherwise (the host code checks it then).
std::optional<bool> boundHoldsStatically(MatmulOp op,
                                         const policy::Bound &bound);

/// Whether every size, stride and element offset of A, B and C (of one
/// batch element) and of the M x N views of the epilogue's operands stays
/// within the 32-bit limits (policy::offsetBounds): true or false when the
/// types tell, nullopt otherwise.
std::optional<bool> offsetsFit32Bits(MatmulOp op);

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELREQUIREMENTS_H
