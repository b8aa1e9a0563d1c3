//===- EpilogueMatch.h - consumers a split-k epilogue computes --*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_TRANSFORMS_EPILOGUEMATCH_H
#define GPUPOOR_LIB_TRANSFORMS_EPILOGUEMATCH_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

namespace mlir::gpupoor {

/// The ops after a matmul that fold into a gpupoor.matmul's epilogue.
struct EpilogueMatch {
  Value bias;
  Epilogue epilogue = Epilogue::None;
  /// The last op folded in; its result is what the gpupoor op replaces.
  Operation *last = nullptr;
  SmallVector<Operation *> folded;
};

/// Finds the bias add and the activation that consume `result` (the tensor
/// result of `matmul`) alone, in that order, where the epilogue computes
/// exactly what they do (see emitEpilogue). Only on tensors: on memrefs the
/// consumers' buffers would need an alias analysis to prove the fold safe.
EpilogueMatch analyzeEpilogue(Operation *matmul, Value result);

} // namespace mlir::gpupoor

#endif // GPUPOOR_LIB_TRANSFORMS_EPILOGUEMATCH_H
