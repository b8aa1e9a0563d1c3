//===- WarpSpecializedKernelBuilder.h - TMA producer, wgmma -*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_CONVERSION_GPUPOORTOWGMMA_WARPSPECIALIZEDKERNELBUILDER_H
#define GPUPOOR_LIB_CONVERSION_GPUPOORTOWGMMA_WARPSPECIALIZEDKERNELBUILDER_H

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"
#include "gpupoor/Conversion/GPUKernel/SliceReduction.h"
#include "gpupoor/Conversion/GPUKernel/SplitHandover.h"
#include "gpupoor/Conversion/GPUKernel/StreamK.h"
#include "gpupoor/Conversion/GPUKernel/TmaPipeline.h"
#include "gpupoor/Conversion/GPUKernel/WarpgroupMma.h"
#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::gpupoor {

/// Emits the body of sm_90a's warp-specialized split-k kernel (copies =
/// tma) into `func`: warpgroup 0 is the producer, whose thread 0 loads the
/// block's K tiles by TMA into the ring (TmaPipeline) and which then exits;
/// the other warpgroups are the consumers of the wgmma kernel
/// (WgmmaKernelBuilder), 64 rows of the tile each: for each chunk of K,
/// f16 sums by asynchronous wgmma, one commit group a tile, each stage
/// handed back once the group after it has been waited for; at the chunk's
/// end the sums are waited for and handed over into the outer sums (the
/// decode tiles hand them over behind the next chunk's first group:
/// emitDeferredChunks); then
/// the slice meeting and the epilogue, their block barriers among the
/// consumers only (named barrier 1).
///
/// The producer runs ahead of the consumers by the ring's depth whatever
/// they do meanwhile, the chunk handovers included: no warp that issues
/// wgmma also issues or waits for copies. Two or three consumer warpgroups
/// take each tile in order, the others after the first's wgmma on it, so
/// that their chunk handovers do not all coincide (TmaPipeline); with the split
/// handover (KernelSpec::splitHandover) each hides its own behind its
/// other half's wgmma instead, in no order (emitSplitChunks). The registers
/// follow the work (setmaxnreg): the producer keeps 24, each consumer thread
/// gets the rest of the block's (KernelSpec::consumerRegisters).
class WarpSpecializedKernelBuilder : public KernelPart {
public:
  WarpSpecializedKernelBuilder(KernelContext &kc, gpu::GPUFuncOp func)
      : KernelPart(kc), func(func) {}

  void build();

private:
  /// What a block computes of one work tile.
  struct WorkUnit {
    /// Chunks [chunkBegin, chunkEnd); the K tiles they end at.
    Value chunkBegin, chunkEnd, endTile;
    /// Stream-K (null otherwise): whether the unit is a piece of a shared
    /// tile (i1), and the run position where that tile's chunks start.
    Value shared, tileStart;
  };

  /// Emits `body` for each of the block's C tiles (kc.m0, kc.n0 set): its
  /// one tile, or a persistent block's tiles blockIdx.x + i * gridDim.x in
  /// the grouped order, the ring running on across them; then a stream-K
  /// block's pieces of the shared tiles (emitStreamKUnits).
  /// The work tiles of one batch element: T, or with clusters of two
  /// along M whole pairs of row tiles.
  Value workTiles();
  /// The ring positions the producer loads in all (non-persistent: the
  /// slice's K tiles; persistent: those of each of its work tiles).
  Value emitRingLoads();
  void forEachWorkTile(function_ref<void(const WorkUnit &)> body);
  /// A stream-K block's units: its whole tiles, then up to two pieces, in
  /// one loop (one copy of the body).
  void emitStreamKUnits(function_ref<void(const WorkUnit &)> body);
  /// The consumers' part, from the branch on the warpgroup to the return.
  void emitConsumers(const KernelArgs &args);
  /// A stream-K unit's end: a piece before its tile's last chunk leaves its
  /// sums; the others (whole tiles, and last pieces after adding the
  /// tile's other pieces) run the epilogue.
  void emitStreamKEnd(const KernelArgs &args, const WorkUnit &unit,
                      ArrayRef<Value> sums);
  /// One K tile: its wait, its wgmma group, the wait for the group before
  /// it, whose stage goes back (unless `kb` starts the chunk). A `fresh`
  /// tile starts the chunk's sums (WarpgroupMma::emitStage).
  Value emitTile(Value kb, Value kbStart, Value acc, bool fresh = false);
  /// The body of the loop over chunks: the chunk's tiles, then the
  /// handover; yields the outer sums in registers.
  void emitChunk(scf::ForOp chunkLoop);
  /// The K tiles [kbStart, kbEnd) of one chunk (never empty: kbStart <
  /// kbEnd), new sums (the first tile's first wgmma of each sum ignores the
  /// registers: scale-d = 0), the first
  /// tile's group and its wait (for the groups before it) emitted before
  /// `afterFirst`; returns the sums, whose last group is not waited for.
  Value emitChunkTiles(Value kbStart, Value kbEnd,
                       function_ref<void()> afterFirst);
  /// The chunks [chunkBegin, chunkEnd) with deferred handovers
  /// (KernelSpec::defersHandover), in unrolled groups of four: a chunk's
  /// sums are handed over once the next chunk's first group is issued and
  /// the wait behind it has seen the chunk's last group done; a group's
  /// last chunk after a drain; the chunks past the last whole group as
  /// emitChunk takes them. Returns the outer sums in registers.
  SmallVector<Value> emitDeferredChunks(Value chunkBegin, Value chunkEnd);
  /// The chunks [chunkBegin, chunkEnd), each drained and handed over at
  /// its end (emitChunk). Returns the outer sums in registers.
  SmallVector<Value> emitChunks(Value chunkBegin, Value chunkEnd);
  /// The split handover (KernelSpec::splitHandover): emitSplitChunks where
  /// every chunk has at least two K tiles, else emitChunks.
  SmallVector<Value> emitSplitOrConvert(Value chunkBegin, Value chunkEnd);
  /// The chunks [chunkBegin, chunkEnd), of at least two K tiles each, with
  /// the tile's columns in two halves of their own wgmma chains: at a
  /// chunk's end the first half's sums are handed over while the second
  /// half's last group runs, and the second half's while the next chunk's
  /// first group of the first half runs. No order barrier: each
  /// warpgroup's handover hides behind its own wgmma. Returns the outer
  /// sums in registers.
  SmallVector<Value> emitSplitChunks(Value chunkBegin, Value chunkEnd);
  /// K tile `kb` for the split handover: its two halves' groups with a wait
  /// between them that retires the tile before (whose stage goes back when
  /// `release`); `handover0` runs before the first half's group and
  /// `handover1` before the second's, each returning the accumulator that
  /// group takes. A `fresh` tile starts both halves' sums.
  std::pair<Value, Value> emitSplitTile(Value kb, Value acc0, Value acc1,
                                        bool fresh, bool release,
                                        function_ref<Value()> handover0,
                                        function_ref<Value()> handover1);
  /// emitSplitTile over the K tiles [from, to), none a chunk's first.
  std::pair<Value, Value> emitSplitTiles(Value from, Value to, Value acc0,
                                         Value acc1);
  /// Thread 0 of each consumer warpgroup hands K tile `kb`'s stage back.
  void emitRelease(Value kb, Value when = {});

  gpu::GPUFuncOp func;
  std::optional<TmaPipeline> ring;
  std::optional<WarpgroupMma> wgmma;
  std::optional<OuterSums> outer;
  // How K is cut into chunks (chunk c: K tiles [start(c), start(c + 1))).
  SplitGeometry geometry;
  // The block's K tiles [sliceFirst, sliceEnd) of each work tile, and its
  // chunks.
  Value sliceFirst, sliceEnd;
  SliceBounds slice;
  // A stream-K kernel's sharing of the last wave's tiles.
  std::optional<StreamK> streamK;
  StreamKPlan plan;
  // Whether this thread is its consumer warpgroup's thread 0.
  Value releases;
  // With two or three consumer warpgroups (null otherwise): whether this
  // thread is in the first, which takes each tile before the others
  // (TmaPipeline).
  Value leads;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_LIB_CONVERSION_GPUPOORTOWGMMA_WARPSPECIALIZEDKERNELBUILDER_H
