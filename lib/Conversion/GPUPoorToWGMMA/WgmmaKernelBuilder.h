//===- WgmmaKernelBuilder.h - the wgmma split-k kernel's body ---*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_CONVERSION_GPUPOORTOWGMMA_WGMMAKERNELBUILDER_H
#define GPUPOOR_LIB_CONVERSION_GPUPOORTOWGMMA_WGMMAKERNELBUILDER_H

#include "gpupoor/Conversion/GPUKernel/CopyPipeline.h"
#include "gpupoor/Conversion/GPUKernel/SplitHandover.h"
#include "gpupoor/Conversion/GPUKernel/WarpgroupMma.h"
#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::gpupoor {

/// Emits the body of a split-k wgmma kernel into `func`: for each chunk of
/// K, f16 sums of its K tiles by the warpgroups' asynchronous wgmma, one
/// commit group a tile; at the chunk's end the sums are waited for and
/// handed over into the outer sums; then the epilogue (the mma.sync
/// kernel's parts: copy pipeline, handover, slice meeting, epilogue).
///
/// The copies run one tile less ahead than the ring has stages (`lag` 1):
/// while a tile's wgmma run, the previous tile's may still read its stage,
/// so the refill issued after the next barrier takes the stage two tiles
/// back, which every warpgroup has finished (each waits for all but its
/// newest group before that barrier).
class WgmmaKernelBuilder : public KernelPart {
public:
  WgmmaKernelBuilder(KernelContext &kc, gpu::GPUFuncOp func)
      : KernelPart(kc), func(func) {}

  void build();

private:
  /// One K tile: wait and barrier, refill, the tile's wgmma group, and a
  /// wait for the previous group.
  Value emitTile(Value kb, Value acc, bool full);
  /// A loop over the K tiles [lo, hi) carrying the accumulator.
  Value emitTileLoop(Value lo, Value hi, Value acc, bool full);
  /// The body of the loop over chunks: the chunk's tiles, then the
  /// handover; yields the outer sums in registers.
  void emitChunk(scf::ForOp chunkLoop);

  gpu::GPUFuncOp func;
  std::optional<CopyPipeline> copies;
  std::optional<WarpgroupMma> wgmma;
  std::optional<OuterSums> outer;
  // How K is cut into chunks (chunk c: K tiles [start(c), start(c + 1))).
  SplitGeometry geometry;
  // Refills of tiles below it take plain copies (null: never).
  Value wholeTilesEnd;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_LIB_CONVERSION_GPUPOORTOWGMMA_WGMMAKERNELBUILDER_H
