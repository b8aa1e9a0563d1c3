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
  /// A 32-bit kernel's bounds: 0 <= M, N, K and every stride <= maxSize;
  /// the last element offset of A, B, C and each epilogue operand's M x N
  /// view, ceil(N/BN) * group_m and, where P' > 1 slices run, T * P' *
  /// (sums a tile slice + 4) each <= maxOffset.
  std::optional<int64_t> maxSize, maxOffset;
};

/// The checks a kernel of `traits` needs.
OperandChecks requiredChecks(const KernelTraits &traits);

/// One operand's last element offset, (rows - 1) * rowStride + (cols - 1) *
/// colStride, by ABI parameter name.
struct OffsetView {
  std::string what, rows, rowStride, cols, colStride;
};
/// What a 32-bit kernel's offset bounds (OperandChecks::maxSize, maxOffset)
/// bound, by ABI parameter name: each of `ranged` in [0, maxSize] (M, N, K
/// and one batch element's strides), each view's last element offset at
/// most maxOffset (A, B, C and the `epilogueInputs` epilogue operands' M x
/// N views). violation evaluates them on a launch's values, the emitted host
/// code as IR (gpupoor::emitOffsetBoundsHold).
struct OffsetBounds {
  std::vector<std::string> ranged;
  std::vector<OffsetView> views;
};
OffsetBounds offsetBounds(int64_t epilogueInputs);

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

/// What the bounds of a 32-bit kernel read besides the parameters.
struct CheckedKernel {
  Tile tile;
  int64_t groupM = 1;
  /// Elements of one tile's sums of one slice (every row its MMAs compute:
  /// sm_90a's at least 64).
  int64_t sliceSumElems = 0;
};

/// Why the kernel cannot take these parameter values (by ABI name;
/// pointers as addresses; M, N and K nonzero), or none when every check
/// holds. `slices`: the P' it would launch with.
std::optional<std::string> violation(const OperandChecks &checks,
                                     const CheckedKernel &kernel,
                                     const std::map<std::string, int64_t> &args,
                                     int64_t slices);

} // namespace mlir::gpupoor::policy

#endif // GPUPOOR_POLICY_CHECKS_H
