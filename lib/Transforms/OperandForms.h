//===- OperandForms.h - how front ends spell matmul operands ----*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Matchers the fold-layouts patterns share (MatmulLayouts.cpp,
// NarrowOperands.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_TRANSFORMS_OPERANDFORMS_H
#define GPUPOOR_LIB_TRANSFORMS_OPERANDFORMS_H

#include "mlir/IR/Value.h"

namespace mlir::gpupoor {

/// If `v` is made by a generic that only copies its one input (of the same
/// element type) into an init indexed by the loops, that input: the copy's
/// input map says how it is re-indexed.
OpOperand *copiedInput(Value v);

} // namespace mlir::gpupoor

#endif // GPUPOOR_LIB_TRANSFORMS_OPERANDFORMS_H
