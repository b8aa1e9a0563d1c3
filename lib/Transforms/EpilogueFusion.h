//===- EpilogueFusion.h - consumer chains into epilogues --------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_TRANSFORMS_EPILOGUEFUSION_H
#define GPUPOOR_LIB_TRANSFORMS_EPILOGUEFUSION_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::gpupoor {

/// What becomes of one linalg matmul and the elementwise ops after it.
struct EpilogueFusion {
  /// The consumers moved into the epilogue, in order (tensors only).
  SmallVector<linalg::LinalgOp> chain;
  /// The matmul's init where the product is added to it (C += A * B); null
  /// for a zero-filled init.
  Value cIn;
  /// The tensor or memref the fused op writes: the last consumer's init, or
  /// the matmul's own destination.
  Value init;
  /// The op of a consumer's body that ended the chain because an epilogue
  /// lowering cannot translate it (null if none), and why: buildFusedMatmul
  /// says so in a remark (the analysis may run twice for one matmul).
  Operation *untranslatable = nullptr;
  StringRef untranslatableWhy;
};

/// The longest chain of elementwise linalg ops after `matmul` (on tensors)
/// that an epilogue region computes exactly: each op is the only user of the
/// previous result, in `matmul`'s block, all-parallel without
/// `linalg.index`, reads that result at the same element and everything
/// else through projected permutations, and its body is side-effect free
/// scalar arith and math that every epilogue lowering translates
/// (constants from outside are cloned). `cIn` and `dest` are the matmul's
/// C_in (null: zero-filled) and destination.
EpilogueFusion analyzeEpilogueFusion(linalg::LinalgOp matmul, Value cIn,
                                     Value dest);

/// Creates the gpupoor.matmul for `matmul` and `fusion` before the last op
/// of the chain (the matmul without one), its epilogue region holding the
/// chain's bodies in order, and replaces the chain's (or the matmul's)
/// result with it.
void buildFusedMatmul(RewriterBase &rewriter, linalg::LinalgOp matmul,
                      const EpilogueFusion &fusion, SplitKAttr strategy);

} // namespace mlir::gpupoor

#endif // GPUPOOR_LIB_TRANSFORMS_EPILOGUEFUSION_H
