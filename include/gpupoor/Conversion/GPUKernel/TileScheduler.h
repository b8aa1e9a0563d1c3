//===- TileScheduler.h - which C tile a block computes ----------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_TILESCHEDULER_H
#define GPUPOOR_CONVERSION_GPUKERNEL_TILESCHEDULER_H

#include "gpupoor/Conversion/GPUKernel/KernelPart.h"

namespace mlir::gpupoor {

/// Maps the 1-D block id onto C tiles in grouped order: `group_m` row tiles
/// share their B tiles in L2 while the group's blocks run (a persistent TMA
/// kernel without stream-K runs fewer than twice group_m as one group).
class GroupedTileOrder : public KernelPart {
public:
  explicit GroupedTileOrder(KernelContext &kc) : KernelPart(kc) {}

  /// Sets kc.m0 and kc.n0, the block's tile origin.
  void emitTileOrigin();
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_TILESCHEDULER_H
