//===- MmaSync.h - ldmatrix fragments and mma.sync --------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_MMASYNC_H
#define GPUPOOR_CONVERSION_GPUKERNEL_MMASYNC_H

#include "gpupoor/Conversion/GPUKernel/KernelPart.h"

namespace mlir::gpupoor {

/// A warp's share of one shared-memory stage as nvgpu.ldmatrix fragments,
/// and the nvgpu.mma.sync m16n8k16 steps with f16 accumulators on them.
/// A k16 step's fragments are a set: mTiles A fragments, then nTiles / 2
/// B fragments of two n8 tiles each.
class MmaFragments : public KernelPart {
public:
  /// Computes the loop-invariant ldmatrix offsets of this lane.
  explicit MmaFragments(KernelContext &kc);

  /// The fragment set of k16 step `ks` of `stage`.
  SmallVector<Value> load(Value stage, int64_t ks);
  /// acc[mt * nTiles + nt] += A[mt] B[nt] over one fragment set.
  SmallVector<Value> emitMma(ArrayRef<Value> frags, ValueRange acc);
  /// Values in one k16 step's fragment set.
  int64_t setSize() const { return c.mTiles() + c.nTiles() / 2; }

private:
  // Loop-invariant ldmatrix offsets: A per k step; B per k step (nk) or per
  // n16 pair (kn). The other index is a constant offset from these.
  SmallVector<Value> aFragOff, bFragOff;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_MMASYNC_H
