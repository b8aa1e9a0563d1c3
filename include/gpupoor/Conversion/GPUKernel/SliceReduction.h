//===- SliceReduction.h - parallel split-k's meeting of slices --*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Parallel split-k runs the K slices of one C tile in P' blocks (grid y).
// Each block writes its slice sums to a workspace; the last block of the
// tile to arrive (a per-tile counter, incremented once a block) adds the
// P' sums in slice order, p = 0 .. P' - 1, from zero, and alone runs the
// epilogue. The order does not depend on which block arrives last, so the
// result is bit-identical from run to run and equal to the CPU loop form's,
// without floating-point atomics; the last block resets the counter, so
// the counters (a buffer of their own, apart from the sums) need zeroing
// once, not per launch.
//
// Chosen over an in-order semaphore (CUTLASS's serial split-k: block p
// waits for block p - 1, so slices finish one after another) and a second
// reduction kernel (a launch more, and the epilogue in another kernel);
// the cost is one extra write and read of a tile's sums per slice, small
// next to the slice's A and B traffic.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_SLICEREDUCTION_H
#define GPUPOOR_CONVERSION_GPUKERNEL_SLICEREDUCTION_H

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"
#include "gpupoor/Conversion/SplitKUtils.h"

namespace mlir::gpupoor {

/// The chunks of K a block sums and the K tiles they span.
struct SliceBounds {
  /// Chunks [chunkBegin, emitChunkEnd()).
  Value chunkBegin;
  /// The tiles the copies may fetch end here.
  Value endTile;
  /// The slice's first tile; null without slices (the ring starts at 0).
  Value firstTile;

  /// The end of the slice's chunks, emitted where the caller asks for it:
  /// a kernel with slices computes S only in the code that sums chunks, so
  /// that its copies start without it (emitSliceBounds).
  Value emitChunkEnd(ImplicitLocOpBuilder &b) const;

private:
  friend SliceBounds emitSliceBounds(KernelContext &, const SplitGeometry &);
  /// The chunk count, and with slices a bound the slice's chunks end at
  /// or before (null without slices).
  Value numChunks, chunkLimit;
};

/// The block's share of K: the split geometry of its K and the bounds of
/// its slice's chunks, only non-empty ones (with more splits than K blocks
/// the last chunks are empty, and a kernel may peel each chunk's last
/// tile; with K = 0 there are no chunks and no division by zero).
struct BlockChunks {
  SplitGeometry geometry;
  SliceBounds slice;
};
BlockChunks emitBlockChunks(KernelContext &kc);

/// Without slices, every chunk (`geometry.numChunks`); with them, block
/// row p of the grid takes slice p of P' (the grid's height): chunks
/// [p * S / P', (p + 1) * S / P'), as the strategy defines.
SliceBounds emitSliceBounds(KernelContext &kc, const SplitGeometry &geometry);

/// The kernel's end from a warp's outer sums: the epilogue's stores, behind
/// the meeting of the slices when the kernel takes any; then the return.
void emitTileStores(KernelContext &kc, const KernelArgs &args,
                    ArrayRef<Value> outer);

/// Traps unless the workspace holds `tiles` x `slices` slots of a tile's
/// sums and is 16-byte aligned, and the counters number `tiles`: a
/// launcher's mistake must not write out of bounds.
void emitWorkspaceCheck(KernelContext &kc, const KernelArgs &args, Value tiles,
                        Value slices);
/// The element offset in the workspace of this thread's fragment `f` of
/// the sums in slot `slot` (slots of a tile's sums, KernelSpec::sliceSumElems).
Value sliceSumOffset(KernelContext &kc, Value slot, int64_t f);
/// Writes a warp's outer sums (fragments of four elements) to slot `slot`
/// of the workspace view `view`, one vector a fragment and thread.
void storeSliceSums(KernelContext &kc, Value view, Value slot,
                    ArrayRef<Value> sums);
/// Reads slot `slot` of `view` back as `count` fragments of `fragType`.
SmallVector<Value> loadSliceSums(KernelContext &kc, Value view, Value slot,
                                 VectorType fragType, int64_t count);

class SliceReduction : public KernelPart {
public:
  SliceReduction(KernelContext &kc, const KernelArgs &args)
      : KernelPart(kc), args(args) {}

  /// Given this block's slice sums `sums` (a warp's outer-sum fragments),
  /// returns whether this block stores C, and the full sums it stores. With
  /// one slice (grid y of 1) that is every block and `sums`; the workspace
  /// is then never touched.
  std::pair<Value, SmallVector<Value>> emit(ArrayRef<Value> sums);

private:
  /// Adds the P' slice sums from the workspace in slice order.
  SmallVector<Value> emitOrderedSum(Value tile, Value slices,
                                    ArrayRef<Value> sums);

  const KernelArgs &args;
  Value sumsView;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_SLICEREDUCTION_H
