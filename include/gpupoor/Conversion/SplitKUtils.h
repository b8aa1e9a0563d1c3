//===- SplitKUtils.h - split-k geometry shared by the lowerings -*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_SPLITKUTILS_H
#define GPUPOOR_CONVERSION_SPLITKUTILS_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::gpupoor {

/// How K is cut: ceil(K / BK) blocks, S chunks of `blocksPerSplit` blocks
/// (`chunkLen` elements) each, the last ones shorter or empty. Every lowering
/// uses this one definition, so the CPU loop form and the GPU kernels agree
/// bit for bit.
struct SplitGeometry {
  Value numKBlocks;     // index
  Value splits;         // index
  Value blocksPerSplit; // index
  Value chunkLen;       // index, blocksPerSplit * BK
};

/// Emits the geometry for a reduction of `k` (index) elements under
/// `strategy`; S is a constant when the strategy fixes it and gpu_poor's rule
/// evaluated at run time otherwise.
SplitGeometry emitSplitGeometry(ImplicitLocOpBuilder &b, Value k,
                                SplitKAttr strategy);

/// The epilogue of one accumulated value `acc` (f16 or f32): widened to f32,
/// plus `bias` (f16 or f32; null for none), ReLU or exact GELU, computed in
/// f32 and rounded to `resultType` after the matmul, the bias add and the
/// activation, as the fused linalg ops round their results. CPU and GPU
/// lowerings share it so that their epilogues compute the same function.
Value emitEpilogue(ImplicitLocOpBuilder &b, Value acc, Value bias,
                   Epilogue epilogue, Type resultType);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_SPLITKUTILS_H
