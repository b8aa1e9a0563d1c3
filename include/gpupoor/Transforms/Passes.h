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
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

/// The pattern that gives a linalg matmul on tensors whose operands extend
/// f16 values (arith.extf, through transposes, broadcasts and reshapes: a
/// biased nn.Linear from torch-mlir) those f16 values instead, exactly
/// (lib/Transforms/NarrowOperands.cpp): what fold-layouts runs with the
/// layout patterns.
void populateNarrowOperandPatterns(RewritePatternSet &patterns);

/// The strategy the split-k patterns give the matmuls they rewrite:
/// gpupoor-split-k's options, resolved. A matmul's own `gpupoor.splits` or
/// `gpupoor.slices` attribute overrides `splits` or `slices` for it.
struct SplitKPatternOptions {
  /// S, or none for the default rule (evaluated now for a static K, by the
  /// host code at run time for a dynamic one).
  std::optional<int64_t> splits;
  /// The default rule's upper clamp.
  int64_t maxSplits = policy::kDefaultMaxSplits;
  /// [BM, BN, BK], or empty to choose per matmul (selectTile).
  SmallVector<int64_t, 3> tile;
  /// The f16 sums a chunk keeps, or 0 for the chip's rules
  /// (policy::accumulatorSets).
  int64_t sets = 0;
  /// Whether products run transposed (none: the rules' choice).
  std::optional<bool> swap;
  /// The outer sum's type, f16 or f32; null means f32.
  Type outerType;
  Chip chip = Chip::SM80;
  /// Take f16 x f16 -> f32 matmuls with f16 inner sums.
  bool relaxF32Accumulation = true;
  /// P, or 0 (the default) to choose from the shape and the chip's SM
  /// count.
  int64_t slices = 0;
  /// Take the tuned table's choice where it has a row (policy::tunedChoice).
  bool tunedTable = true;
};

/// Checks `options` as gpupoor-split-k checks its own: the combination must
/// make a valid #gpupoor.split_k; the error is emitted at `loc`.
LogicalResult verifySplitKPatternOptions(const SplitKPatternOptions &options,
                                         MLIRContext *context, Location loc);

/// The rewrite of eligible f16 linalg matmuls (with the elementwise ops
/// that consume them alone) into gpupoor.matmul: what gpupoor-split-k
/// applies after folding layouts. Ineligible matmuls are left alone (match
/// failures say why). Verify `options` first. The patterns create ops of
/// the gpupoor, linalg and tensor dialects: the context must have them
/// loaded (a pass lists them as dependent dialects, as gpupoor-split-k does).
void populateSplitKPatterns(RewritePatternSet &patterns,
                            const SplitKPatternOptions &options);

#define GEN_PASS_REGISTRATION
#include "gpupoor/Transforms/Passes.h.inc"

} // namespace mlir::gpupoor

#endif // GPUPOOR_TRANSFORMS_PASSES_H
