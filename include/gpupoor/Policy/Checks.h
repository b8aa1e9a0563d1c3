//===- Checks.h - what a kernel needs of its operands -----------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The requirements a kernel has of its operands and does not check itself:
// which ones a kernel has (requiredChecks, written into its manifest's
// `checks` as data) and whether a launch's parameter values meet them
// (violation, which the PyTorch package's launcher calls through gpupoor._C
// to pick the first kernel of a variant that takes them). The emitted host
// code checks the same conditions as IR (HostLaunch.cpp). Also where C's
// tensor map describes C (cTensorMapChecks), which the kernels and their
// launchers both check.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_POLICY_CHECKS_H
#define GPUPOOR_POLICY_CHECKS_H

#include "gpupoor/Policy/Splits.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::gpupoor::policy {

/// Each of a tile's BM, BN and BK is at most this.
inline constexpr int64_t kMaxTileSize = 4096;
/// The largest value a 32-bit kernel's sizes, strides and element offsets
/// may take; sizes keep room for two tiles past M, N and K (a block's origin
/// plus a row of its tile, the K tile past the last), whatever the tile.
inline constexpr int64_t kMax32BitOffset = (int64_t(1) << 31) - 1;
inline constexpr int64_t kMax32BitSize = kMax32BitOffset - 2 * kMaxTileSize;

/// What of a kernel decides its requirements.
struct KernelTraits {
  /// 16-byte cp.async copies of A and B rows; A stored K x M and read
  /// along M (sm_90a's wgmma kernel); B stored N x K.
  bool asyncCopies = false;
  bool aMMajor = false;
  bool bTransposed = false;
  bool batched = false;
  /// A and B through tensor maps; blocks that loop over tiles.
  bool tmaCopies = false;
  bool persistent = false;
  /// The width of M, N, K, the strides and the offsets (32 or 64).
  unsigned indexBitwidth = 64;
  /// The SMs a persistent grid may have (its blocks step by the grid).
  int64_t smCount = 0;
};

/// A kernel's requirements, by ABI parameter name.
struct OperandChecks {
  /// Parameters that must be 1; multiples of 8 (strides of 16-byte rows,
  /// or a size whose rows end on 16 bytes); 16-byte aligned pointers.
  std::vector<std::string> unitStride, strideMultipleOf8, pointerAligned16;
  /// [stride, rows] pairs whose stride must be positive where rows > 1 (a
  /// tensor map steps forward a row at a time).
  std::vector<std::pair<std::string, std::string>> positiveRowStride;
  /// T = ceil(M/BM) ceil(N/BN) (times batch) at most this (a persistent
  /// block steps its work tile by the grid in 32 bits).
  std::optional<int64_t> maxWorkTiles;
  /// A 32-bit kernel's: the largest size or stride and the largest element
  /// offset or index its bounds allow (kernelBounds lists them).
  std::optional<int64_t> maxSize, maxOffset;
};

/// The checks a kernel of `traits` needs.
OperandChecks requiredChecks(const KernelTraits &traits);

/// One operand's last element offset, (rows - 1) * rowStride + (cols - 1) *
/// colStride, by ABI parameter name.
struct OffsetView {
  std::string rows, rowStride, cols, colStride;
};

/// One bound of a 32-bit kernel on a launch's values, by ABI parameter name
/// (and `sum_slots`: the slots of slice sums a launch indexes, T * P' where
/// P' > 1 slices run, else 0, T the launch's tiles, whole clusters of row
/// tiles).
struct Bound {
  enum class Kind {
    /// 0 <= `name` <= limit.
    Range,
    /// The last element offset of operand `name`'s `view` at most limit,
    /// its sizes and strides in [0, termLimit] (the Range bounds' limit,
    /// which it takes as holding).
    LastOffset,
    /// ceil(`name` / divisor) * factor at most limit.
    Scaled,
  };
  Kind kind;
  std::string name;
  OffsetView view;
  int64_t divisor = 1, factor = 1;
  int64_t limit = 0;
  /// Scaled: what a launch that breaks it passes (its violation's words).
  std::string broken;
  int64_t termLimit = 0;
};

/// What a 32-bit kernel's offset bounds (OperandChecks::maxSize, maxOffset)
/// bound: M, N, K and one batch element's strides each in [0, maxSize]
/// (Range), then the last element offsets of A, B, C and the
/// `epilogueInputs` epilogue operands' M x N views at most maxOffset
/// (LastOffset). The bounds of the operands alone, which the compiler
/// proves from the types before it has a kernel.
std::vector<Bound> offsetBounds(const OperandChecks &checks,
                                int64_t epilogueInputs);

/// What the bounds of a 32-bit kernel read besides the parameters.
struct CheckedKernel {
  Tile tile;
  int64_t groupM = 1;
  /// Elements of one tile's sums of one slice (every row its MMAs compute:
  /// sm_90a's at least 64); 0 for a kernel without slice sums.
  int64_t sliceSumElems = 0;
  /// Blocks a cluster along M: a launch takes whole clusters of row tiles
  /// (launchTiles), and T counts them.
  int64_t clusterM = 1;
};

/// Every bound of a 32-bit kernel (`checks` with maxSize and maxOffset):
/// offsetBounds, then the grouped block order's ceil(N / BN) * group_m and,
/// for a kernel with slice sums, sum_slots * (sliceSumElems + 4) (a tile
/// slice's sums and its flag) each at most maxOffset. violation evaluates them
/// on a launch's values, the compiler on what the types tell
/// (gpupoor::boundHoldsStatically), the emitted host code as IR
/// (gpupoor::emitBoundsHold) and the manifest writes them as data.
std::vector<Bound> kernelBounds(const OperandChecks &checks,
                                const CheckedKernel &kernel,
                                int64_t epilogueInputs);

/// sum_slots of a launch of `tiles` C tiles in `slices` slices: T * P'
/// where P' > 1, else 0 (saturating at INT64_MAX).
int64_t sumSlots(int64_t tiles, int64_t slices);

/// What is known of a parameter's value: at least `lo` and at most `hi`
/// where they are set. A launch knows each value exactly; a compile-time
/// type knows its static sizes and strides.
struct KnownRange {
  std::optional<int64_t> lo, hi;
  static KnownRange exactly(int64_t v) { return {v, v}; }
};

/// Whether `bound` holds on parameter values known as `known` says: true
/// where what is known proves it, false where it breaks it (`why`, when
/// given, says how), nullopt where unknown values decide. A LastOffset or
/// Scaled bound takes the sizes and strides it reads as the Range bounds
/// have them (a LastOffset's in [0, termLimit], a Scaled's not negative):
/// where those fail, the whole list does.
std::optional<bool>
boundHolds(const Bound &bound,
           const std::function<KnownRange(const std::string &)> &known,
           std::string *why = nullptr);

/// Where C's tensor map describes C (a kernel that stores an f16 C by TMA,
/// whose manifest has a `c_desc`), by ABI parameter name. Not a requirement
/// of the kernel: the launcher encodes the map only where these hold (128
/// zero bytes otherwise), and the kernel, checking the same, stores C from
/// its lanes otherwise. A unit column stride; rows of whole 16-byte units
/// that also end on one (stride_cm and N multiples of 8: a TMA box writes
/// whole 16 bytes, past a row that ends inside them); a 16-byte aligned
/// pointer; rows (and a batched C's elements) stepping forward. The
/// compiler's kernels and host code (as IR), the manifest (as data) and
/// the package (through violation) all take this one list.
OperandChecks cTensorMapChecks(bool batched);

/// Why the kernel cannot take these parameter values (by ABI name;
/// pointers as addresses; M, N and K nonzero), or none when every check
/// holds. `slices`: the P' it would launch with.
std::optional<std::string> violation(const OperandChecks &checks,
                                     const CheckedKernel &kernel,
                                     const std::map<std::string, int64_t> &args,
                                     int64_t slices);

} // namespace mlir::gpupoor::policy

#endif // GPUPOOR_POLICY_CHECKS_H
