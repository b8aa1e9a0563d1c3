//===- GPUPoor.h - gpupoor dialect ------------------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H
#define GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorDialect.h.inc"
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorAttrs.h.inc"

#define GET_OP_CLASSES
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorOps.h.inc"

namespace mlir::gpupoor {

/// gpu_poor's default number of K splits for `numKBlocks` = ceil(K / BK)
/// blocks: next_pow2(floor(sqrt(numKBlocks))), clamped to [1, maxSplits].
int64_t defaultNumSplits(int64_t numKBlocks, int64_t maxSplits);

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H
