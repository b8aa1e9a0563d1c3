//===- SplitHandover.h - chunk sums into the outer sums ---------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Split-k's outer accumulator: each chunk of K is summed in f16 fragments;
// at the chunk's end those sums are added into the outer sums (f32, or f16
// with one rounding an add). A configuration may keep a warp's first m16
// rows of outer sums in shared memory, one slot of 4 elements per thread
// and fragment, touched only at chunk ends; the rest travel as loop values.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_SPLITHANDOVER_H
#define GPUPOOR_CONVERSION_GPUKERNEL_SPLITHANDOVER_H

#include "gpupoor/Conversion/GPUKernel/KernelPart.h"

namespace mlir::gpupoor {

class OuterSums : public KernelPart {
public:
  /// Emits the zero outer sum, the identity fragment of the mma handover,
  /// and zeroes the outer sums kept in shared memory.
  explicit OuterSums(KernelContext &kc);

  /// Outer-sum fragments (m16 x n8, vector<2x2>) a warp holds.
  int64_t numFrags() const { return c.mTiles() * c.nTiles(); }
  /// Those of them that are loop values.
  int64_t numInRegisters() const { return numFrags() - c.sharedOuterFrags(); }
  /// The loop values' initial values.
  SmallVector<Value> initialRegisters() const;

  /// Adds the chunk's f16 sums `inner` into the outer sums from fragment
  /// `first` on (all of them by default), `regs` being those in registers;
  /// returns the new register values, all of them.
  SmallVector<Value> emitHandover(ArrayRef<Value> inner, ArrayRef<Value> regs,
                                  int64_t first = 0);

  /// Every outer sum, fragment by fragment, once the last chunk is in.
  SmallVector<Value> emitFinal(ValueRange regs);

private:
  Value loadSlot(int64_t f);
  void storeSlot(int64_t f, Value v);
  Value slotIndex(int64_t f);

  Value outerZero;
  // The B fragment of the 8 x 8 identity (mma handover only).
  Value identity;
  // The outer sums kept in shared memory (null without any).
  Value slots;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_SPLITHANDOVER_H
