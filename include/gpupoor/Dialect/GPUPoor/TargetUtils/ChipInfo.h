//===- ChipInfo.h - facts about the chips gpupoor targets -------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// One table of the hardware facts that kernel configuration and lowering
// read, so that no heuristic carries its own copy of a chip's numbers.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_CHIPINFO_H
#define GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_CHIPINFO_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

namespace mlir::gpupoor {

/// Threads in a warp on every chip gpupoor targets.
constexpr int64_t kWarpSize = 32;

/// What one chip offers a kernel (CUDA programming guide, compute
/// capabilities; SM counts of the parts the project measures on).
struct ChipInfo {
  Chip chip;
  /// Streaming multiprocessors of the reference part (A100, RTX 3090,
  /// RTX 4090, H100 SXM).
  int64_t smCount;
  /// Shared memory an SM has for resident blocks.
  int64_t sharedPerSM;
  /// Dynamic shared memory one block may opt into.
  int64_t maxSharedPerBlock;
  /// Shared memory the driver reserves per resident block.
  int64_t reservedSharedPerBlock;
  /// 32-bit registers of an SM, and at most one thread's.
  int64_t registersPerSM;
  int64_t maxRegistersPerThread;
  /// Threads a block may have.
  int64_t maxThreadsPerBlock;
  /// Whether the chip has warpgroup MMA (wgmma) and the bulk tensor copies.
  bool hasWgmma;
};

/// The facts of `chip`.
const ChipInfo &getChipInfo(Chip chip);

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_CHIPINFO_H
