//===- KernelConfig.h - how a kernel is configured --------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The measured rules of a kernel's configuration: warps, stages, blocks an
// SM, persistent blocks, the split handover, the outer type where f16 is
// exact. gpupoor-select-kernel-config asks them for what its options leave
// to choose and builds the KernelSpec (the sizes they are made of) around
// them. Measurements behind each: docs/design/decisions.md,
// docs/design/Hopper.md.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_POLICY_KERNELCONFIG_H
#define GPUPOOR_POLICY_KERNELCONFIG_H

#include "gpupoor/Policy/Splits.h"
#include "gpupoor/Policy/Tiles.h"

#include <optional>

namespace mlir::gpupoor::policy {

/// A strategy as the configuration rules read it.
struct ConfigProblem {
  /// The kernel's chip and tile.
  Chip chip = Chip::SM80;
  Tile tile = {128, 128, 32};
  /// Whether C's shape is static, and then its T tiles of the tile.
  bool staticShape = false;
  int64_t tiles = 0;
  /// The kernel's product's rows and columns (kDynamic where unknown).
  int64_t m = kDynamic, n = kDynamic;
  bool batched = false;
  /// The strategy's slices (0: chosen at run time), S (none: from K at run
  /// time) and K (kDynamic where unknown).
  int64_t slices = 1;
  std::optional<int64_t> splits;
  int64_t k = kDynamic;
  /// The f16 sums a chunk keeps (#gpupoor.split_k's `sets`).
  int64_t sets = 1;
  /// Whether the kernel's B is a K x N tile of 8, 16 or 32 columns read
  /// along N: the swapped tiles' B where A is stored K x M, whose TMA box
  /// rows are 16, 32 or 64 bytes (KernelSpec::bAtomCols).
  bool narrowNMajorB = false;
  /// Whether the kernel computes a swapped strategy's transposed product.
  bool swapped = false;
  /// How the kernel's B lies: its rows are K long as N x K, N long as K x N
  /// (clusterPays). K x N where not known.
  BLayout bLayout = BLayout::KN;
};

//===----------------------------------------------------------------------===//
// The mma.sync kernel
//===----------------------------------------------------------------------===//

/// Stages: 3 for BK >= 64, 4 for BK = 32 and for small-M tiles (BM < 128)
/// of BK = 64. Measured on an H100: 4 stages ran 4-15% faster than 3 at M =
/// 64 and 128 (docs/design/decisions.md), two blocks an SM still.
int64_t mmaStages(const Tile &tile);

/// Warps along M and N.
struct WarpLayout {
  int64_t warpsM, warpsN;
  /// Eight 64 x 64 warp tiles (256 x 128), one block an SM.
  bool eightWarps;
};

/// The warp layout of a tile (before the shared-memory refit below): 2 x 2
/// warps of 64 x 64 (with 16-byte copies; element copies need the registers
/// of 2 x 4 warps of 64 x 32), eight 64 x 64 warps for 256 x 128 tiles, and
/// small-M tiles (BM < 64) one warp along M and four along N (or as many as
/// A's tile has 16-byte copies for, 32 each, and BN 16 columns for).
/// Measured on an H100: 64 x 64 warp tiles of 2 x 2 warps (128 threads, two
/// blocks an SM) are fastest.
WarpLayout mmaWarps(const Tile &tile, bool asyncCopies);

/// Whether a layout of mmaWarps (not eight warps, 16-byte copies, BM and BN
/// multiples of 32) takes 2 x 4 warps of 64 x 32 instead: where two blocks
/// of `sharedBytes` do not fit the SM's shared memory, 4 warps an SM would
/// be too few to hide latency.
bool mmaWarpsWiden(Chip chip, const Tile &tile, const WarpLayout &layout,
                   bool asyncCopies, int64_t sharedBytes);

/// Half of a warp's `mTiles` m16 rows of f32 outer sums in shared memory
/// for warp tiles 64 or more wide (`warpN`): 64 f16 and 128 f32
/// accumulators do not fit in 255 registers next to double-buffered
/// fragments.
int64_t sharedOuterRows(bool f16Outer, int64_t warpN, int64_t mTiles);

/// Whether the handover of f32 outer sums runs on the tensor cores: for
/// eight 64 x 64 warps, where it measured 3-6% faster; with 2 x 2 warps it
/// was no faster.
bool mmaHandoverPays(bool f16Outer, int64_t warpsM, int64_t warpsN,
                     int64_t warpM, int64_t warpN);

/// Whether f16 outer sums give C bit for bit what f32 ones do: C is f16,
/// nothing follows the sum (no epilogue), and K comes in at most two f16
/// sums (S * sets <= 2, or a static K of at most 2 / sets K tiles). C is
/// then RN16(RN32(c0 + c1)) with f32 outer sums and RN16(c0 + c1) with f16
/// ones (f16 chunk sums c0, c1; slices of a parallel kernel hold one chunk
/// each and meet the same way). Where c0 + c1 is no f32 number, their
/// exponents lie 13 or more apart (an f16 has 11 bits, an f32 24), so the
/// smaller is below a quarter of the larger's f16 ulp and both forms round
/// to the larger. f16 sums take half the registers and handover work:
/// 32 x 512 x 512 x 128 (S = 2) 10.4 against 11.4 us on an H200 (cuBLAS
/// 10.0; docs/design/decisions.md).
bool f16OuterIsExact(const ConfigProblem &p, bool f32Outer, bool f16C,
                     bool hasEpilogue);

//===----------------------------------------------------------------------===//
// sm_90a's wgmma kernel
//===----------------------------------------------------------------------===//

/// Whether the static grid (tiles x slices) takes more blocks than the chip
/// has SMs.
bool gridExceedsSMs(const ConfigProblem &p);
/// Whether `tiles` x `slices` blocks are more than `smCount` (without
/// overflowing for a huge T).
bool gridExceedsSMs(int64_t tiles, int64_t slices, int64_t smCount);

/// The blocks an SM of a wgmma tile: two 64-row (one warpgroup) blocks
/// where a static grid exceeds the SMs, so that the whole grid is resident
/// at once; else one. Measured on an H100 (the swapped 64 x 16 x 64 tile,
/// the decode tile then, at 1 x 14336 x 4096, 224 blocks,
/// docs/design/decisions.md#two-blocks-an-sm-for-one-warpgroup-tiles): 42.8 us
/// with two blocks an SM (6 or 8 stages; 4: 43.2), 46.4 with one, cuBLAS 42.8.
/// Not where two blocks' three stages each would not fit an SM's shared
/// memory (64 x 256 x 64: 40 KiB a stage).
int64_t wgmmaBlocksPerSM(const ConfigProblem &p);
/// wgmmaBlocksPerSM for a grid of `tile` that does or does not exceed the
/// SMs (gridExceedsSMs): the package's launch picks a family's
/// two-blocks-an-SM variant by it (chooseLaunch).
int64_t wgmmaBlocksPerSM(const Tile &tile, bool gridExceedsSMs);

/// The stages of a wgmma tile of `stageBytes` a stage (its A and B tiles
/// and `barrierBytes` of mbarriers): as many as fit one block's shared
/// memory, at least 3, at most for two warpgroups 6 and for one the share
/// of 192 KiB of its blocks an SM, at most as many bytes of A in flight as
/// 12 stages of 64 x 64 (8 of 64 x 128 x 64 with one block an SM, 4 with
/// two). Measured on an H100
/// (docs/design/decisions.md#six-stages-for-two-warpgroup-tiles,
/// docs/design/decisions.md#decode-tile-stages-and-k-step): 12 stages of 64 x
/// 64 ran 0.99-1.01x 8 at M = 64 and 1.07-1.11x at M = 128; 8 of 64 x 128 ran
/// 1.01-1.05x 6; 6 of 128 x 128 ran 1.17x 4 at 512 x 4096 x 4096 (7: no
/// faster), 1.16x at 512 x 14336 x 4096; 128 x 160 x 64 at 512 x 10240 x 2048
/// 36.7 us with 6, 37.7 with 5, 41.3 with 4; the swapped 64 x 16 x 64 tile
/// (the decode tile then) 15.2-15.6 us at 1 x 4096 x 4096 with 12 stages
/// against 16.5-17.1 with 19 and 15.6-15.8 with 8.
int64_t wgmmaStages(Chip chip, const Tile &tile, int64_t stageBytes,
                    int64_t barrierBytes, int64_t blocksPerSM);

/// The stages of `p`'s wgmma tile in clusters of `clusterM` blocks along M,
/// of `stages` that wgmmaStages gives the tile:
/// - at most kSwappedFillNMajorStages for kSwappedFillNMajorTile in clusters
///   of kSwappedFillClusterM, where more ran slower. The rules give that
///   tile clusters of four only in the transposed product of few rows of A
///   stored K x M (swappedFillTile, the package's x64q), where it was
///   measured; a kernel asked for them by hand gets the cap too.
/// - at least kSwappedDecodeClusterStages for a swapped decode tile of A
///   stored K x M (isSwappedDecodeKMTile with a narrow N-major B: the
///   package's s8q, s16q, s32q) on sm_90a in clusters of four, one block
///   an SM (`blocksPerSM`), where more ran faster; in clusters of two
///   (more than the SMs hold at once in fours) they keep wgmmaStages'. The
///   same tile unswapped (kNarrowTile with B stored K x N, the package's
///   n16q) keeps them too: 8 stages ran 0.916x-1.107x there.
/// - else `stages`.
int64_t clusterStages(const ConfigProblem &p, int64_t clusterM,
                      int64_t blocksPerSM, int64_t stages);

/// Whether a two-warpgroup TMA kernel loops over C tiles by default: where
/// a static grid exceeds one wave. Measured on an H100 (bench_skinny.py,
/// docs/design/decisions.md#persistent-kernels-with-tma-stored-c) against one
/// block a tile: 4096^3 1.025x, 4096 x 14336 x 4096 1.03x, 512 x 10240 x 2048
/// 1.04x, 512 x 14336 x 4096 1.02x, 2048 x 4096 x 14336 1.00x, 8192^3 0.995x.
/// Also one wave of 128 x 128 or 128 x 256 tiles (oneWavePersistentPays).
/// The three-warpgroup 192 x 192 tile (kThreeWarpgroupWideTile) past one wave
/// too: on an H200 (static kernels x cuBLAS f32acc,
/// benchmarks/data/wide_three_warpgroups_sm_90a.txt) 2100 x 4360 x 1000, 253
/// tiles, 0.924 against 0.899 a block a tile (B as K x N 0.929 / 0.906); in
/// one wave a block a tile ran faster (1976 x 2056 x 4096 0.935 / 0.886).
bool persistentPays(const ConfigProblem &p);
/// The same on `smCount` SMs (the package's launch: the device's).
bool persistentPays(const ConfigProblem &p, int64_t smCount);
/// Whether one wave of 128-row tiles (a tile a block either way) runs
/// faster persistent, its C stored by TMA: 128 x 128 and 128 x 256 tiles of
/// a static 2-D product in one slice with K up to kOneWavePersistentMaxK
/// and N a multiple of 8. Measured on an H200
/// (static kernels, benchmarks/data/one_wave_persistent_sm_90a.txt) against
/// a block a tile: 1.010-1.175x at K = 712-2592 (B as K x N 1616 x 2160 x
/// 712 0.776 -> 0.912 x cuBLAS), 0.967-1.014x at K >= 4096; 128 x 160 tiles
/// 0.992-1.039x, 128 x 192 0.966-0.994x (grids of 80-132 tiles; N % 8 != 0:
/// 0.90-0.94x the read-back's narrower vectors). Not a transposed product
/// (swapped): its C^T's column vectors ran faster than TMA stores of C^T
/// (kSwappedMidTile).
bool oneWavePersistentPays(const ConfigProblem &p);
inline constexpr int64_t kOneWavePersistentMaxK = 3072;

/// A stream-K tile's most pieces but one: of the R tiles past a grid's
/// whole waves, G' = min(G, this * R) blocks take a run of chunks each
/// (StreamK.h).
inline constexpr int64_t kStreamKPiecesPerTile = 4;

/// Whether a persistent grid of `smCount` blocks shares the tiles past its
/// whole waves by chunks of K (stream-K): where the last wave is at most two
/// thirds full (T = W G + R tiles, W >= 1, 0 < 3 R <= 2 G) and each sharing
/// block's run of K (R K / G') is at least kMinStreamKRun, from two whole
/// waves on kMinStreamKRunPastTwoWaves. Its meeting through the workspace
/// costs about a third of a wave's time, so it pays where the last wave is
/// short, whatever the waves before it
/// (docs/design/decisions.md#stream-k-where-the-last-wave-is-short),
/// measured on an H200 against whole tiles: one wave and 216 tiles (R / G =
/// 0.64) 1.02-1.05x at K = 5120 and 1.12-1.13x at 8192 and 13824, 224
/// (0.70) 0.95-1.01x, 232 (0.76) 0.94-0.97x, 256 (0.94) 0.87-0.99x; two to
/// 27 waves with R / G = 0.09-0.64 (static 128 x 256 kernels) 1.01-1.10x,
/// 2048 x 11008 x 4096 (688 tiles, runs of 1024) 1.09-1.10x in every layout,
/// 8192^3 1.01x; 384 and 512 tiles (R / G 0.91, 0.88) 0.92-0.98x. On an
/// H100 512 x 10240 x 2048 (160 tiles, runs of 512) ran 0.88x.
bool streamKPays(int64_t tiles, int64_t smCount, int64_t k);
inline constexpr int64_t kMinStreamKRun = 2048;
inline constexpr int64_t kMinStreamKRunPastTwoWaves = 1024;
/// The same for a kernel of one slice on `smCount` SMs: a static, not
/// batched product whose kernel is persistent (persistentPays) and not in
/// clusters (clusterPays), of two consumer warpgroups: the three-warpgroup
/// 192 x 192 tile's stream-K was measured only on large products the rules
/// give 128 x 256 (benchmarks/data/three_warpgroups_sm_90a.json, calls[5]:
/// either way), not where wideTile takes it; the compiler's on the chip's
/// reference SM count.
bool streamKPays(const ConfigProblem &p, int64_t smCount);
bool streamKPays(const ConfigProblem &p);

/// Whether the split handover pays by default for a two-warpgroup TMA
/// kernel: a static product whose chunks have at least two K tiles, of at
/// most two work tiles a block (T <= 2 x SMs) or in tiles narrower than 256
/// columns. Measured on an H100 (bench_skinny.py,
/// docs/design/decisions.md#the-split-handover), against the order
/// barrier's whole-tile handover: 512 x 10240 x 2048 and 512 x 4096 x 4096
/// 5-6% faster, 2048 x 4096 x 14336 1.2%; in 128 x 256 tiles 4096^3 and
/// 4096 x 14336 x 4096 (3.9 and 13.6 tiles a block) 0.5-1.5% slower, where
/// the order barrier also staggers the two warpgroups' epilogues. On an
/// H200, persistent grids of 2.9 to 6.8 tiles a block in narrower tiles
/// gained up to 9.5% (128 x 128: 1024 x 14336 x 4096, B as K x N, 0.986 ->
/// 1.080 of cuBLAS), where a chunk's wgmma chain is shorter beside its
/// handover; those of 128 x 256 tiles moved -1.3% to +1%.
bool splitHandoverPays(const ConfigProblem &p, int64_t smCount);
/// The same on the chip's reference SM count (the compiler's).
bool splitHandoverPays(const ConfigProblem &p);
/// The tile width from which splitHandoverPays limits the split handover to
/// grids of at most two work tiles a block.
inline constexpr int64_t kWideSplitHandoverColumns = 256;

/// The elements of an f16 operand row's 32-byte sector.
inline constexpr int64_t kSectorElems = 16;
/// Whether the operand rows of a product of N columns and K reduction start
/// on 32-byte sectors: N and K multiples of kSectorElems (the sizes stand
/// for the rows' strides, which the compiler's static types and the
/// package's contiguous operands have). Rows that start off a sector make
/// TMA issue about three times the L2 requests (docs/design/decisions.md,
/// "Rows not 32-byte aligned"), which changes what limits a kernel.
bool rowsSectorAligned(int64_t n, int64_t k);

/// Whether a product of M rows, N columns and K reduction meets the shape
/// clusters of two along M serve (clusterPays's first test): rows that
/// start off sectors (rowsSectorAligned) and two row tiles of `tileRows`
/// or more. swappedMidTile counts its launched tiles by it, as measured.
bool clusterShapeOffSectors(int64_t m, int64_t n, int64_t k,
                            int64_t tileRows);

/// Whether sm_90a's TMA kernel runs its blocks in clusters of two along M
/// sharing B's tile by multicast (kernel_config cluster_m = 2) by default:
/// a static 2-D product of one slice whose rows start off sectors
/// (rowsSectorAligned), of at least two row tiles of a 64- or 128-row tile
/// at least 128 columns wide, one block an SM (wgmmaBlocksPerSM). The
/// multicast halves B's L2 requests, which limit such products. Measured on
/// an H200 (static kernels over cuBLAS f32acc,
/// docs/design/decisions.md#clusters-of-two-where-rows-start-off-sectors):
/// 1000^3 0.69-0.77 -> 0.80-0.90 and 3000^3 0.71-0.73 -> 0.88-0.91 with every
/// operand layout; at 4096^3, whose rows are aligned, 0.926 -> 0.914.
/// A product whose B's rows lie on sectors (K a multiple of kSectorElems as
/// N x K, N as K x N) takes none where the clusters' whole pairs of row
/// tiles need more waves of `smCount` SMs than the tiles alone, but for a
/// 128 x 128 tile past one wave.
bool clusterPays(const ConfigProblem &p);
/// The same on `smCount` SMs.
bool clusterPays(const ConfigProblem &p, int64_t smCount);

/// Whether such a product (clusterPays) of sm_90a's 64 x 128 tile runs in
/// clusters of four along M instead, its blocks persistent (a block a tile
/// still; C stored by TMA where its tensor map describes C;
/// gpupoor-select-kernel-config): where it has at least four row tiles and its
/// clusters of four, row tiles in whole clusters, all run at once
/// (ChipInfo::maxClustersOf4). B's multicast then quarters its L2 requests; one
/// cluster more than the chip holds runs a second wave. Measured on an H200
/// (static kernels over cuBLAS f32acc, B as N x K / K x N / A as K x M;
/// docs/design/decisions.md, "Clusters of four for 64-row tiles"), clusters of
/// two / of four persistent: where they fit, 352 x 1224 x 3560 (20 clusters)
/// 0.914 / 1.055, 0.691 / 0.802, 0.713 / 0.780; 456 x 1728 x 1512 (28) 0.763 /
/// 0.965, 0.792 / 0.977, 0.765 / 0.926; 1064 x 624 x 7064 (25) 0.903 / 0.969,
/// 0.894 / 1.003, 0.698 / 0.891; 232 x 2904 x 6280 (23) 0.858 / 0.998, 0.868 /
/// 1.008, 1.083 / 1.334; where they do not, 1000^3 (32) 0.852 / 0.556, 288 x
/// 2144 x 2408 (34) 0.753 / 0.508, 624 x 1640 x 1784 (39) 0.851 / 0.591.
/// Persistent blocks ran 1.00-1.08x the same clusters a block a tile.
bool quadClusterPays(const ConfigProblem &p);
/// The same on `smCount` SMs (the package's launch: the device's): only on
/// the chip's reference SM count, whose clusters were measured.
bool quadClusterPays(const ConfigProblem &p, int64_t smCount);

/// Whether sm_90a's TMA kernel runs its blocks in clusters of `clusterM`
/// along M (kernel_config cluster_m): 1, 2 or 4, each block multicasting a
/// cluster_m-th of B's box rows into all (TmaPipeline).
inline bool clusterSizeSupported(int64_t clusterM) {
  return clusterM == 1 || clusterM == 2 || clusterM == 4;
}

/// The blocks a cluster along M of sm_90a's TMA kernel by default, which
/// runs `blocksPerSM` blocks an SM: 4 where quadClusterPays, else 2 where
/// clusterPays (one block an SM);
/// for a static 2-D product of one slice and at least four row tiles whose B
/// is a narrow N-major tile (ConfigProblem::narrowNMajorB), 2 at two blocks
/// an SM, and at one 4 where the clusters fill at most three quarters of the
/// SMs, else 2; else 1. Every block of such a product reads all of B in rows
/// of 16, 32 or 64 bytes, as many L2 requests as the weight's rows of 128,
/// and B's multicast shares them.
/// Measured on an H200 (static kernels over cuBLAS f32acc, A of 16 and 32
/// rows stored K x M, B as K x N; docs/design/decisions.md, "Clusters for a
/// decode product's K x M activation"): one block an SM, alone / clusters
/// of 2 / 4: 16 x 5120 x 5120 (80 tiles) 0.967 / 1.011 / 1.054, 32 x 5120 x
/// 5120 0.941 / 0.985 / 1.001, 16 x 6144 x 4096 1.058 / 1.083 / 1.115, but
/// 16 x 8192 x 28672 and 32 x 8192 x 8192 (128 tiles: more clusters of four
/// than the SMs hold at once) 1.001 / 1.015 / 0.768 and 0.980 / 1.010 /
/// 0.773; two blocks an SM, alone / 2 / 4: 16 x 14336 x 4096 (224) 0.895 /
/// 0.964 / 0.959, 32 x 11008 x 4096 (172) 0.955 / 1.001 / 1.053, 32 x 15360
/// x 5120 0.962 / 0.998 / 0.989. With 8 rows (the 8-column tile), one block
/// an SM, alone / 2: 8 x 8192 x 28672 (128 tiles) 0.979 / 1.015, 8 x 8192 x
/// 8192 1.129 / 1.148.
int64_t clusterBlocks(const ConfigProblem &p, int64_t blocksPerSM);
/// The same on `smCount` SMs (the package's launch: the device's).
int64_t clusterBlocks(const ConfigProblem &p, int64_t blocksPerSM,
                      int64_t smCount);

/// Whether a kernel of `tile` on `chip` whose B is laid out `bLayout` (the
/// kernel's own: a swapped kernel's B is A) reads B as a narrow N-major
/// tile (ConfigProblem::narrowNMajorB): sm_90a, B as K x N, fewer columns
/// than a 128-byte swizzle atom (KernelSpec::bAtomCols).
bool narrowNMajorB(Chip chip, BLayout bLayout, const Tile &tile);

/// The ConfigProblem of `chip`'s kernel of `tile` over a static C `shape`
/// and reduction size `k` (possibly kDynamic), in `slices` slices of
/// `splits` chunks: what the policy asks of the compiler's static kernel.
ConfigProblem staticConfigProblem(Chip chip, const Tile &tile,
                                  const CShape &shape, int64_t k,
                                  BLayout bLayout, int64_t slices = 1,
                                  std::optional<int64_t> splits = {});

} // namespace mlir::gpupoor::policy

#endif // GPUPOOR_POLICY_KERNELCONFIG_H
