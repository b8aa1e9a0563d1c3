//===- CopyPipeline.h - the cp.async ring of A and B tiles ------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// A and B tiles reach shared memory through a `stages`-deep ring of
// nvgpu.device_async_copy groups (16-byte copies, L1 bypassed), or, for
// operands without unit inner strides or 16-byte alignment (the element
// kernels), through 8- or 4-byte copies where their rows lie on that many
// bytes and element loads otherwise. Every per-thread address that does not
// depend on the K tile is computed once, when the pipeline is planned.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_COPYPIPELINE_H
#define GPUPOOR_CONVERSION_GPUKERNEL_COPYPIPELINE_H

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"

namespace mlir::gpupoor {

class CopyPipeline : public KernelPart {
public:
  /// Plans one thread's copies of A's and B's tiles; tiles at or past
  /// `endTile` are never copied. The ring starts at `firstTile` (null: 0;
  /// a K slice's first tile, its end then `endTile`). `lag`: stages still
  /// being read when a tile's wait returns (asynchronous MMA reading the
  /// previous tiles); the copies then run stages - 1 - lag tiles ahead.
  CopyPipeline(KernelContext &kc, const KernelArgs &args, Value endTile,
               Value firstTile = {}, int64_t lag = 0);

  /// The shared-memory stage of K tile `tile`, as a view whose base address
  /// is the stage's: every per-thread offset into it is loop-invariant, so
  /// each ldmatrix or cp.async address costs one add to the stage base (or
  /// none, as an immediate).
  Value stageView(Value tile);
  /// The byte offset of K tile `tile`'s stage in the dynamic shared memory.
  Value stageShift(Value tile);
  /// Tiles in flight ahead of the one being read: the refill of iteration
  /// kb copies tile kb + ahead().
  int64_t ahead() const { return c.stages - 1 - lag; }

  /// Issues the copies of K tile `tile` as one commit group and returns its
  /// token. `full`: the tile is whole (plain copies). Otherwise guarded
  /// copies of a tile below numKBlocks, or, when `fullIf` holds, plain ones.
  Value emitGroup(Value tile, bool full, Value fullIf = {});

  /// Tiles first .. first+ahead()-1 in flight, one commit group each
  /// (empty groups past the end keep the group count uniform).
  void emitPrologue();

  /// Waits until the tile of the group `ahead() - 1` groups before the
  /// newest has landed, then a block barrier. `asyncProxy`: the tile is
  /// read by the async proxy (wgmma), which the copies must be made
  /// visible to first.
  void emitWaitAndBarrier(bool asyncProxy = false);
  /// Waits for every copy (none may write shared memory when the block
  /// exits).
  void emitDrain();

  /// Tiles below the returned index, as refills, lie inside K and, for A in
  /// km and B in kn, inside M and N: they take plain copies (the element
  /// kernels' whole pieces, without fill or bounds).
  Value emitWholeTilesEnd();

private:
  /// One thread's share of the copies of one operand's tile.
  struct CopyPlan {
    Value gmem;      // 2-D global memref
    // Element-copy kernels: the operand with a unit inner stride and the
    // elements of the cp.async pieces its rows can be read in (0: element
    // loads; KernelArgs::aPieceElems). Null with 16-byte copies.
    Value unitGmem, pieceElems;
    bool kAlongRows; // A in km, B in kn: the tile's rows are k
    // Per copy: offset in the stage, and the K-independent coordinate.
    SmallVector<Value> dstOff;
    SmallVector<Value> fixedIdx;   // clamped row (k along columns) or column
    SmallVector<Value> fixedCount; // km, kn: elements of the column chunk
    SmallVector<Value> kOff;       // k offset of the copy inside the tile
    // Whether the thread makes the copy: the last round of a tile whose
    // 16-byte chunks are no multiple of the threads (null: every thread).
    SmallVector<Value> makes;
  };
  /// `atomCols`: the columns of the operand's atoms where the tiles lie
  /// in atoms (KernelSpec::swizzleAtoms).
  CopyPlan plan(Value gmem, Value unitGmem, Value pieceElems,
                int64_t smemBase, int64_t rows, int64_t chunksPerRow,
                bool kAlongRows, Value fixedBase, Value fixedLimit,
                int64_t atomCols = KernelSpec::kSwizzleCols);
  void emitCopies(const CopyPlan &plan, Value stage, Value tile, bool full);
  /// Copy `i` of `plan` as `emit` builds it, inside an scf.if where only
  /// some threads make it.
  void emitCopy(const CopyPlan &plan, size_t i, function_ref<void()> emit);
  /// One chunk of an operand the 16-byte copies cannot read: in cp.async
  /// pieces where the plan's pieceElems says its rows allow, else by
  /// element loads. `col` is the chunk's first column where `count` (its
  /// elements inside the operand) is positive; a null `count`: the whole
  /// chunk lies inside the operand.
  void emitElementCopy(const CopyPlan &plan, size_t i, Value stage, Value row,
                       Value col, Value count);
  /// The chunk as 8 / `elems` cp.async copies of `elems` elements each.
  void emitPieceCopies(const CopyPlan &plan, size_t i, Value stage, Value row,
                       Value col, Value count, int64_t elems);
  /// Element loads of one chunk and a 16-byte shared-memory store.
  void emitElementLoads(const CopyPlan &plan, size_t i, Value stage, Value row,
                        Value col, Value count);

  Value numKBlocks;
  Value firstTile;
  int64_t lag;
  CopyPlan aPlan, bPlan;
  /// The token the waits name (the prologue's last group's): the wait
  /// counts groups, the token only orders IR.
  Value token;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_COPYPIPELINE_H
