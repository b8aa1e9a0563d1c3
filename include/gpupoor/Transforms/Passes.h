//===- Passes.h - gpupoor transformation passes -----------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_TRANSFORMS_PASSES_H
#define GPUPOOR_TRANSFORMS_PASSES_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "gpupoor/Transforms/KernelConfig.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gpupoor {

#define GEN_PASS_DECL
#include "gpupoor/Transforms/Passes.h.inc"

/// Patterns that fold the layouts front ends give matmul operands as ops
/// (a transposed A or B, a B broadcast over the batch, a transpose under a
/// collapse_shape) into linalg.matmul / linalg.batch_matmul on tensors, and
/// move the reshapes this leaves past the elementwise consumers: what
/// gpupoor-split-k's fold-layouts runs first.
void populateMatmulLayoutPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "gpupoor/Transforms/Passes.h.inc"

} // namespace mlir::gpupoor

#endif // GPUPOOR_TRANSFORMS_PASSES_H
