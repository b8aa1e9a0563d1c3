//===- TmaPipeline.h - the TMA ring of A and B tiles ------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// sm_90a's warp-specialized kernel stages A and B tiles through a
// `stages`-deep ring in shared memory that a producer thread fills with TMA
// loads and the consumer warpgroups drain. Each stage has two mbarriers:
// `full` completes when the stage's bytes have landed (the producer's
// arrive with expect_tx, then the TMA transactions), `empty` when every
// consumer warpgroup has finished reading it (one arrive each). Tiles are
// counted from the ring's first tile r = kb - first (plus the tiles of a
// persistent block's previous work tiles): tile r sits in stage
// r % stages and is the (r / stages)-th use of that stage, so its waits
// name phase parity (r / stages) & 1.
//
// Two consumer warpgroups take each tile in order: the second waits on the
// stage's `order` barrier, which the first arrives at once its wgmma on
// the tile have completed. The second thus runs at least a tile behind, so
// that while one warpgroup hands a chunk over (a wait for its wgmma, then
// conversions and adds: no tensor work) the other still has tiles to
// multiply. Left alone, they fall into step: the one behind catches up
// while the other hands over, and then both hand over at once, the tensor
// cores idle (measured on an H100: with the order 0.9x the time at
// 4096^3; docs/design/decisions.md#the-order-barrier). A stage's order barrier
// cannot complete twice before the second warpgroup waits on it: the first
// reaches the stage's next tile only after the second has released this one.
// Three consumer warpgroups (the 192-row tile) order the same way: the
// second and the third both wait for the first.
//
// TMA writes the swizzle that wgmma's descriptors read (128-byte; B's
// narrower atoms as K x N 64- or 32-byte; the tensor maps name it), zero-fills
// what lies outside A and B (edge tiles and K tails need no guarded copies),
// and moves a whole tile in one instruction. Upstream's nvgpu.tma.async.load
// takes a descriptor built by mgpuTensorMapEncodeTiledMemref, which Debian's
// MLIR does not ship, and an nvgpu.mbarrier.group of static shape; hence the
// NVVM ops here.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_TMAPIPELINE_H
#define GPUPOOR_CONVERSION_GPUKERNEL_TMAPIPELINE_H

#include "gpupoor/Conversion/GPUKernel/KernelPart.h"

namespace mlir::gpupoor {

class TmaPipeline : public KernelPart {
public:
  /// `aMap`, `bMap`: generic pointers to the tensor maps of A (M x K) and B
  /// (N x K); the ring starts at K tile `first`.
  TmaPipeline(KernelContext &kc, Value aMap, Value bMap, Value first);

  /// Initializes the barriers (one thread; a block barrier must follow
  /// before any other thread uses them).
  void emitInit();
  /// The producer: loads K tiles [first, end) into the ring, each once its
  /// stage is empty (one thread).
  void emitLoads(Value end);
  /// Waits until K tile `tile` has landed.
  void emitWaitLoaded(Value tile);
  /// Hands K tile `tile`'s stage back to the producer: one arrive of the
  /// calling consumer warpgroup (its thread 0), after its last read.
  void emitRelease(Value tile);
  /// The producer, after its last load (`loads` ring positions in all, of
  /// every work tile): in a cluster, waits until every block's consumers
  /// have released the last stages, so that no arrive of the other block
  /// lands after this block has exited. Nothing alone.
  void emitDrain(Value loads);
  /// Two or three consumer warpgroups: the first's thread 0 passes K tile
  /// `tile` on to the others once its wgmma on it have completed.
  void emitPassOn(Value tile);
  /// Two or three consumer warpgroups: the others wait until the first has
  /// passed K tile `tile` on.
  void emitWaitPassed(Value tile);
  /// The byte offset of K tile `tile`'s stage in the dynamic shared memory.
  Value stageShift(Value tile);
  /// A persistent block's ring runs on across its work tiles: the K tiles
  /// of the work tile being loaded or consumed come after `used` tiles of
  /// the block's previous ones; a stream-K piece's start at K tile
  /// `firstTile` (null: the ring's first).
  void startWorkTile(Value used, Value firstTile = Value()) {
    before = used;
    if (firstTile)
      first = firstTile;
  }

private:
  /// The stage of K tile `tile`, and the phase parity (i32) its waits name.
  Value stageOf(Value tile);
  Value parityOf(Value tile);
  /// The `full` (0), `empty` (1) or `order` (2) barrier of `stage`, as a
  /// shared pointer.
  Value barrier(int64_t which, Value stage);
  /// This block's rank in its cluster (blockIdx.x mod cluster_m).
  Value clusterRank();
  /// Waits for barrier `which` of K tile `tile`'s stage in the tile's phase.
  void emitWait(int64_t which, Value tile);
  /// A shared pointer `bytes` into the dynamic shared memory.
  Value sharedPointer(Value bytes);
  Value i32(Value v);

  /// The ring position of K tile `tile` of the current work tile.
  Value positionOf(Value tile);

  Value aMap, bMap, first;
  // Ring tiles of the previous work tiles (null: none).
  Value before;
  // The dynamic shared memory's address (index).
  Value base;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_TMAPIPELINE_H
