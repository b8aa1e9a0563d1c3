//===- MatmulLayouts.h - operand layouts into linalg matmuls ----*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_TRANSFORMS_MATMULLAYOUTS_H
#define GPUPOOR_LIB_TRANSFORMS_MATMULLAYOUTS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::gpupoor {

/// Patterns that fold the layouts front ends give matmul operands as ops
/// (a transposed B, a B broadcast over the batch, a transpose under a
/// collapse_shape) into linalg.matmul / linalg.batch_matmul on tensors, and
/// move the reshapes this leaves past the elementwise consumers.
void populateMatmulLayoutPatterns(RewritePatternSet &patterns);

} // namespace mlir::gpupoor

#endif // GPUPOOR_LIB_TRANSFORMS_MATMULLAYOUTS_H
