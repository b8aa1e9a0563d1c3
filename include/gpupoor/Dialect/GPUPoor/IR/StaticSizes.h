//===- StaticSizes.h - static sizes a gpupoor.matmul can run ----*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_IR_STATICSIZES_H
#define GPUPOOR_DIALECT_GPUPOOR_IR_STATICSIZES_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

namespace mlir::gpupoor {

/// Whether static sizes are what the kernels can address and launch: every
/// operand's bytes (`operandTypes`) within an int64, and C's tiles (`cShape`
/// = [batch x] M x N, tiled by `strategy`, transposed when it is swapped)
/// within grid x. Dynamic sizes pass (the host code checks them at run
/// time). The gpupoor.matmul verifier and gpupoor-split-k (before it
/// rewrites a linalg matmul) both call it.
/// Whether the host code can read `type`'s sizes and strides from its
/// descriptor (memref.extract_strided_metadata, which takes strided layouts
/// only): a tensor, or a memref of the identity or a strided<...> layout.
/// The gpupoor.matmul verifier requires it of every operand; gpupoor-split-k
/// leaves a matmul alone without it.
bool hasStridedLayout(Type type);

/// The first of those checks alone: every operand's bytes within an int64
/// (gpupoor-split-k's, before the policy counts anything of the sizes).
LogicalResult verifyOperandBytes(function_ref<InFlightDiagnostic()> emitError,
                                 TypeRange operandTypes);

LogicalResult verifyStaticSizes(function_ref<InFlightDiagnostic()> emitError,
                                TypeRange operandTypes,
                                ArrayRef<int64_t> cShape, SplitKAttr strategy);

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_STATICSIZES_H
