//===- StreamK.h - blocks sharing the last wave's tiles ---------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// A persistent grid of G blocks over T work tiles runs floor(T / G) whole
// waves; the R = T mod G tiles left would keep R blocks busy for a whole
// tile while the others idle. With stream-K the blocks share those R
// tiles by chunks of K instead: the R * C chunks (C chunks a tile) are cut
// into G' = min(G, 4 R) runs, block j < G' taking chunks
// [floor(j R C / G'), floor((j + 1) R C / G')), at most C of them, so at
// most two pieces: the end of one tile and the start of the next. A block
// takes the start of the next tile first (WarpSpecializedKernelBuilder:
// the blocks' reads then stay within two K positions and meet in L2).
//
// A tile's last piece (the one that ends at chunk C) is its finisher's:
// that block adds the tile's other pieces to its own sums, in block order
// (its own first, then the first piece's, then any middle ones), and runs
// the epilogue. Every other piece's block writes its f32 sums to its own
// slot of the workspace (at most one such piece a block) and raises its
// flag right after; the finisher waits for each flag, reads the slot and
// lowers the flag for the next launch. A block raises its flag
// before it waits for any, and waits only for blocks of lower index: with
// the grid's blocks resident together (a persistent grid of one block an
// SM), every wait ends; with fewer SMs than blocks (the host code launches
// up to the reference part's 132 on a 114-SM H100 PCIe) it still ends
// where blocks start in index order, as NVIDIA's hardware dispatches them,
// though CUDA does not promise it.
//
// Pieces follow the chunks, so each chunk's f16 sum is the one the
// kernel's split defines; only the order of the f32 outer sums' adds
// changes in a shared tile: the result depends on G, not on timing.
// Chosen over the slices' last-arriving block (SliceReduction.h), which
// would write every piece, the finisher's too. A run of fewer than G
// blocks (G' = 4 R) keeps a tile within five pieces: a finisher reads at
// most four slots.
//
// The meeting costs more than the last wave's idle SMs save where that wave
// is nearly full or its pieces of K short, which then run at a higher clock
// meanwhile: by default only where policy::streamKPays
// (docs/design/decisions.md#stream-k-where-the-last-wave-is-short).
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_STREAMK_H
#define GPUPOOR_CONVERSION_GPUKERNEL_STREAMK_H

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"
#include "gpupoor/Policy/KernelConfig.h"

namespace mlir::gpupoor {

/// The run-time plan of a persistent stream-K block.
struct StreamKPlan {
  /// D, the work tiles of the whole waves: [0, D) go blockIdx.x + i * G.
  /// The blocks share tiles only where T > G, R > 0, C > 0 and G is at most
  /// kMaxStreamKBlocks; otherwise every tile is whole (D = T).
  Value wholeTiles;
  /// G' (0 when inactive), C, and R C, the shared tiles' chunks (0 when
  /// inactive).
  Value sharingBlocks, chunks, units;
  /// This block's chunks [unitBegin, unitEnd) of the shared tiles (empty
  /// when inactive or past G').
  Value unitBegin, unitEnd;
};

/// The most blocks of a grid that share tiles: past it (never a real
/// GPU's SM count) every tile stays whole.
constexpr int64_t kMaxStreamKBlocks = 4096;
/// A shared tile's most pieces but one: G' = min(G, this * R) (the
/// policy's, whose streamKPays counts the pieces' K).
using policy::kStreamKPiecesPerTile;

class StreamK : public KernelPart {
public:
  StreamK(KernelContext &kc, const KernelArgs &args)
      : KernelPart(kc), args(args) {}

  /// The plan for `tiles` work tiles of `chunks` chunks each.
  StreamKPlan emitPlan(Value tiles, Value chunks);
  /// The workspace as f32 sums and the flags as i32, checked to hold G'
  /// slots (the kernel traps otherwise; nothing is needed when inactive).
  /// Emitted where it dominates emitLeave and emitGather.
  void emitWorkspace(const StreamKPlan &plan);
  /// The first chunk of block `j`'s run: floor(j R C / G').
  Value runStart(const StreamKPlan &plan, Value j);
  /// A piece that is not its tile's last: writes `sums` (a warp's outer
  /// sums) to the block's slot.
  void emitLeave(ArrayRef<Value> sums);
  /// Raises the block's flag once its threads' writes of the slot are
  /// visible (all consumer threads).
  void emitRaise();
  /// The block with the last piece of the shared tile whose chunks start
  /// at run position `tileStart`: adds the pieces of the blocks before it
  /// to `sums`, in block order.
  SmallVector<Value> emitGather(const StreamKPlan &plan, Value tileStart,
                                ArrayRef<Value> sums);

private:
  /// The first block of the shared tile whose chunks start at run position
  /// `tileStart`: the one whose run holds that chunk.
  Value firstBlock(const StreamKPlan &plan, Value tileStart);
  /// Spins until block `peer`'s flag is up (one thread).
  void emitWaitRaised(Value peer);
  const KernelArgs &args;
  Value sumsView, flags;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_STREAMK_H
