//===- Chips.h - facts about the chips gpupoor targets ----------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The policy's vocabulary: chips and operand layouts, and one table of the
// hardware facts that every selection rule reads. Plain C++ without MLIR, so
// that the passes, the emitted host code's generators and the PyTorch
// package's native extension share it.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_POLICY_CHIPS_H
#define GPUPOOR_POLICY_CHIPS_H

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace mlir::gpupoor::policy {

/// The targets, numbered as the dialect's #gpupoor chip enum (which the
/// MLIR side casts to and from: GPUPoor.h asserts the values agree).
enum class Chip : uint32_t {
  SM80 = 80,
  SM86 = 86,
  SM89 = 89,
  SM90 = 90,
  /// Hopper's arch-specific target (wgmma, TMA): compute capability 9.0.
  SM90a = 91,
};

/// B stored K x N (`x @ w`) or N x K (nn.Linear's weight), as the dialect's
/// b_layout.
enum class BLayout : uint32_t { KN = 0, NK = 1 };
/// A stored M x K or K x M (a transposed activation), as a_layout.
enum class ALayout : uint32_t { MK = 0, KM = 1 };

/// A size the compiler does not know (mlir::ShapedType::kDynamic's value).
inline constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();
inline bool isDynamic(int64_t size) { return size == kDynamic; }

/// Threads in a warp on every chip gpupoor targets.
inline constexpr int64_t kWarpSize = 32;

/// What one chip offers a kernel (CUDA programming guide, compute
/// capabilities; SM counts of the parts the project measures on).
struct ChipInfo {
  Chip chip;
  /// Streaming multiprocessors of the reference part (A100, RTX 3090,
  /// RTX 4090, H100 SXM): what the compiler plans a static launch for.
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
  /// Clusters of four blocks, one block an SM, that the reference part runs
  /// at once (cuOccupancyMaxActiveClusters; 0 where gpupoor's kernels take
  /// no clusters): fewer than SMs / 4, for a cluster's blocks share one GPC.
  /// Measured on an H200 (132 SMs) for the 64 x 128 TMA kernel: 30, where
  /// clusters of two were 66.
  int64_t maxClustersOf4;
};

/// The facts of `chip`.
const ChipInfo &getChipInfo(Chip chip);

/// The chip's spelling (sm_80 ... sm_90a), and the chip of a spelling.
std::string_view chipName(Chip chip);
std::optional<Chip> parseChip(std::string_view name);

} // namespace mlir::gpupoor::policy

#endif // GPUPOOR_POLICY_CHIPS_H
