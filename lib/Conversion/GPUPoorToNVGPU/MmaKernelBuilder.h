//===- MmaKernelBuilder.h - the mma.sync split-k kernel's body --*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_CONVERSION_GPUPOORTONVGPU_MMAKERNELBUILDER_H
#define GPUPOOR_LIB_CONVERSION_GPUPOORTONVGPU_MMAKERNELBUILDER_H

#include "gpupoor/Conversion/GPUKernel/CopyPipeline.h"
#include "gpupoor/Conversion/GPUKernel/MmaSync.h"
#include "gpupoor/Conversion/GPUKernel/SplitHandover.h"
#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::gpupoor {

/// Emits the body of a split-k mma.sync kernel into `func` (declared by
/// createKernelFunc): for each chunk s of K, f16 sums of the chunk's K
/// tiles on the tensor cores, then handed over into the outer sums; then
/// the epilogue.
///
/// The main loop follows the multistage scheme of CUTLASS's sm80 GEMMs:
/// fragments load `fragment_prefetch` k16 steps ahead (double-buffered in
/// registers by default), and the barrier that hands the next shared-memory
/// stage to the warps sits before the last such steps of a tile, so that
/// the last step's mma.sync instructions keep the tensor cores busy while
/// the warps meet and the next tile's first fragments load. Upstream's
/// pipelining (`nvgpu` multi-buffering and `scf` pipelining) works on static
/// shapes and static shared memory, and cannot express the split-k
/// handover; hence this builder.
class MmaKernelBuilder : public KernelPart {
public:
  MmaKernelBuilder(KernelContext &kc, gpu::GPUFuncOp func)
      : KernelPart(kc), func(func) {}

  void build();

private:
  /// Tiles 0 .. stages-2 in flight and the first `fragment_prefetch` k
  /// steps' fragments of tile 0.
  SmallVector<Value> emitPrologue();
  /// One K tile: refill, wait, fragments and mma.sync; `full` and `fullIf`
  /// choose the refill's copies (see CopyPipeline::emitGroup). Updates
  /// `inner` and `ahead`, the fragments of the next `fragment_prefetch` k
  /// steps (one set after another).
  void emitTile(Value kb, SmallVector<Value> &inner, SmallVector<Value> &ahead,
                bool full, Value fullIf = {});
  /// The mma.sync of k16 step `ks` of a K tile (its fragments `frags`)
  /// into f16 sum ks mod sets of `inner` (KernelSpec::sets).
  void emitStep(ArrayRef<Value> frags, int64_t ks, SmallVector<Value> &inner);
  /// The f16 sums' fragments a warp carries: `sets` sums of its outer sums'
  /// fragments each.
  int64_t innerCount() const { return c.sets() * outer->numFrags(); }
  /// A loop over the K tiles [lo, hi) of a chunk, carrying the f16 sums and
  /// the prefetched fragments.
  scf::ForOp emitTileLoop(Value lo, Value hi, ArrayRef<Value> init, bool full);
  /// The body of the loop over chunks: the chunk's tiles, then the
  /// handover; yields the register outer sums and the fragments ahead.
  void emitChunk(scf::ForOp chunkLoop);

  gpu::GPUFuncOp func;
  std::optional<CopyPipeline> copies;
  std::optional<MmaFragments> mma;
  std::optional<OuterSums> outer;
  // How K is cut into chunks (chunk c: K tiles [start(c), start(c + 1))).
  SplitGeometry geometry;
  // The K tile the block starts at (its slice's first).
  Value firstTile;
  Value innerZero;
  // Refills of tiles below it take plain copies (null: never).
  Value wholeTilesEnd;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_LIB_CONVERSION_GPUPOORTONVGPU_MMAKERNELBUILDER_H
