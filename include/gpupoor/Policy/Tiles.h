//===- Tiles.h - which tile a product takes ---------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The tile [BM, BN, BK] of a product, and whether a decode product runs
// transposed (C^T = B^T A^T, the `swapped` strategy). Measurements behind
// each choice: docs/design/decisions.md, docs/design/Hopper.md.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_POLICY_TILES_H
#define GPUPOOR_POLICY_TILES_H

#include "gpupoor/Policy/Splits.h"

#include <optional>
#include <utility>

namespace mlir::gpupoor::policy {

/// C's shape as the compiler knows it: [batch,] M, N, each size possibly
/// kDynamic; `batched`: a rank-3 C.
struct CShape {
  bool batched = false;
  int64_t batch = 1;
  int64_t m = kDynamic;
  int64_t n = kDynamic;

  bool isStatic() const {
    return !isDynamic(m) && !isDynamic(n) && (!batched || !isDynamic(batch));
  }
  /// T of BM x BN tiles (the shape must be static).
  int64_t tiles(int64_t bm, int64_t bn) const {
    return tileCount(batched ? batch : 1, m, n, bm, bn);
  }
  /// The transposed C (C^T of a swapped product).
  CShape transposed() const { return {batched, batch, n, m}; }
};

/// The columns of sm_90a's 128-byte swizzled K rows (64 f16): wgmma's
/// operands lie in atoms of this many columns.
inline constexpr int64_t kSwizzleCols = 64;

/// The tile that stands for every matmul where no shape is known.
inline constexpr Tile kDefaultTile = {128, 128, 32};

/// The most rows of A whose decode products with B stored K x N may run
/// swapped past two 64-row swapped tiles an SM (selectSwappedTile), and
/// the most that take the 16 x 256 tile where it fits (wideDecodeTileFits,
/// A as M x K). Past two swapped tiles an SM, 8 rows of A as M x K from K =
/// kMmaDecodeKNMinK take the 16 x 128 tile (kMmaDecodeKNRows: its tiles
/// then number more than 132): swapped there, up to 7.
inline constexpr int64_t kWideSwappedKNRows = 8;

/// The fewest rows of A (stored M x K) whose decode products with B stored
/// K x N run sm_90's 16 x 128 mma.sync tile rather than the swapped one,
/// where that tile's launch takes one slice (selectSwappedTile). Through
/// the package on H100s, x cuBLAS f32acc, 16 x 128 / swapped, three calls
/// (benchmarks/data/kn_decode_h100_sm_90a.json): 8 rows of 12288 x 4096,
/// 13824 x 5120, 14336 x 4096 and 15360 x 5120 0.997-1.120 against
/// 0.969-1.088, 16 rows 1.019-1.134 against 0.984-1.087; where it takes
/// slices level or slower (16 x 10240 x 8192 1.021-1.025 against
/// 1.017-1.018, 8 x 11008 x 4096 0.937-0.947 against 0.995-0.999); 1 row
/// slower (0.907-1.056 against 0.951-1.077).
inline constexpr int64_t kMmaDecodeKNRows = 8;

/// The shortest K at which decode products with B stored K x N take sm_90's
/// decode tiles over the swapped one (kMmaDecodeKNRows, wideDecodeTileFits):
/// their one f16 sum a chunk (the swapped tile keeps four, accumulatorSets)
/// erred past a third of cuBLAS f16acc's below it, on an H100 at 8 x 14336
/// x 1024 4.9e-4 against 11.8e-4 (the swapped tile 3.3e-4); at K = 2048
/// (16 x 13312 x 2048) 4.9e-4 against 16.5e-4
/// (benchmarks/data/kn_decode_h100_sm_90a.json).
inline constexpr int64_t kMmaDecodeKNMinK = 2048;

/// sm_90a's swapped decode tile [BN, BM, BK] (selectSwappedTile): 64 weight
/// rows along wgmma's M, up to 16 rows of A along its n16, 128 of K a
/// stage (256-byte row segments of a weight stored N x K). Measured on an
/// H200 against BK = 64 (static kernels, x cuBLAS f32acc,
/// docs/design/decisions.md#decode-tile-stages-and-k-step): 1 x 4096 x
/// 14336 0.996-1.003 against 0.929-0.935, 1 x 3072 x 4096 1.156 against
/// 0.987, B as K x N 16 x 4096 x 14336 1.028 against 0.934; from 128 tiles
/// on level or slower (1 x 8192 x 28672 0.995 against 1.017, 1 x 14336 x
/// 4096 1.002 against 1.009).
inline constexpr Tile kSwappedDecodeTile = {64, 16, 128};

/// sm_90a's tile for a static 2-D product of at most 16 columns over more
/// than 32 rows (an LoRA down projection, an MoE router): the decode tile
/// unswapped, A's rows along wgmma's M, B's few columns along its n16, 128
/// of K a stage and four f16 sums a chunk (accumulatorSets), as the swapped
/// decode tile streams a weight. Static kernels on an H200, x cuBLAS
/// f32acc, this tile / the rules' 64 x 64 x 64 before it
/// (benchmarks/data/narrow_tiles_sm_90a.txt): 1024 / 4096 / 16384 x 16 x
/// 4096 1.194 / 1.081 / 0.999 against 0.772 / 0.649 / 0.760 (B as N x K),
/// 1.362 / 1.143 / 1.032 against 0.886 / 0.820 / 0.783 (B as K x N), 1.343
/// / 1.423 / 1.040 against 0.875 / 1.020 / 0.791 (A as K x M); error
/// 3.3e-4 against 6.4e-4. At 64 columns it lost (0.43-0.74 against
/// 0.82-1.02), and the 64 x 32 tile lost at 64 and 128 columns but at 1024
/// x 64 x 4096 (0.962 against 0.932).
inline constexpr Tile kNarrowTile = kSwappedDecodeTile;

/// sm_90's (mma.sync) decode tile for a static weight of more 16 x 128
/// tiles than SMs but at most as many of 16 x 256 (wideDecodeTileFits):
/// one block an SM, three stages of 128 of K (204 KiB).
inline constexpr Tile kWideDecodeTile = {16, 256, 128};

/// Whether a static 2-D product of at most 16 rows with B as N x K (or of
/// at most kWideSwappedKNRows with B as K x N and K >= kMmaDecodeKNMinK)
/// takes kWideDecodeTile on `chip` (sm_90 or sm_90a's mma.sync kernel) with
/// `smCount` SMs.
bool wideDecodeTileFits(const CShape &shape, int64_t k, Chip chip,
                        int64_t smCount, BLayout bLayout);

/// The swapped tile of 32 weight rows (KernelSpec::mmaRows) that
/// selectSwappedTile gives where 64-row tiles would take slices.
inline constexpr Tile kThinSwappedTile = {32, 16, 256};

/// sm_90a's swapped tile for a static 2-D product of 17 to 32 rows of A
/// stored K x M (the swapped kernel's B as K x N, 32 columns: one atom of
/// 64-byte rows, KernelSpec::bAtomCols), where its tiles number up to two
/// blocks an SM. Measured on an H200 (the package, A of 32 rows as K x M,
/// B as K x N, x cuBLAS f32acc on 15 LLM projections): 0.91-1.09 against
/// 0.79-1.06 with A copied M x K (32-row tiles) and 0.81-0.96 with 64-row
/// tiles reading A along M (decisions.md, "Swapped products of A as K×M
/// of 32 rows"). A as M x K keeps kThinTile (0.95-1.07 against the swapped
/// tile's 0.95-1.02). 128 of K a stage, as kSwappedDecodeTile: static
/// kernels on an H200, x cuBLAS f32acc against BK = 64, 32 x 4096 x 14336
/// 1.013 against 0.957, 32 x 6144 x 4096 1.025 against 0.981, never slower
/// (32 x 14336 x 4096 0.999 both;
/// docs/design/decisions.md#swapped-products-of-a-as-km-of-32-rows).
inline constexpr Tile kSwappedKMTile = {64, 32, 128};

/// sm_90a's swapped tile for a static 2-D product of at most 8 rows of A
/// stored K x M, its rows 16-byte aligned (the swapped kernel's B as K x
/// N, 8 columns: one unswizzled atom of 16-byte rows, KernelSpec::bAtomCols,
/// m64n8k16): the activation's TMA box as wide as its rows, where the
/// 16-column tile's box left half of each row out of bounds (which TMA fills
/// slowly) and A was copied M x K first instead (copiesKMajorA).
inline constexpr Tile kSwappedKM8Tile = {64, 8, 128};

/// The stages of the swapped decode tiles of A stored K x M (kSwappedKM8Tile,
/// kSwappedDecodeTile, kSwappedKMTile: 64 weight rows, 8 to 32 columns of A,
/// 128 of K) in clusters of four (policy::clusterStages), where wgmmaStages
/// gives 6 (as many bytes of the weight in flight as 12 stages of 64 x 64):
/// 8 of at most 24 KiB. Static kernels on an H200, x cuBLAS f32acc
/// (benchmarks/data/decode_cluster_stages_sm_90a.txt), 8 stages over 6: on
/// four LLM projections 1.055x-1.085x (32 x 4096 x 14336 0.997 -> 1.082); on
/// 12 held-out random products 1.052x geomean (0.975x-1.126x), through the
/// package's rebuilt families 1.060x and 1.047x in two rounds.
inline constexpr int64_t kSwappedDecodeClusterStages = 8;

/// Whether `tile` is one of the swapped decode tiles of A stored K x M
/// above (kSwappedDecodeClusterStages).
inline bool isSwappedDecodeKMTile(const Tile &tile) {
  return tile == kSwappedKM8Tile || tile == kSwappedDecodeTile ||
         tile == kSwappedKMTile;
}

/// sm_90a's tile for a static 2-D product of 17 to 32 rows with A as M x K
/// (B either way): 32 rows (KernelSpec::mmaRows: wgmma's m64 computes 32
/// rows it does not store), a 4 KiB A box a stage instead of a half-empty
/// 8 KiB one, so more of the ring holds the weight. Measured on an H200
/// (static kernels, bench_skinny.py, weights beyond L2), µs against the 64
/// x 64 x 64 tile and cuBLAS f32acc: 32 x 5120 x 5120 17.3 (20.9; 17.1), 32 x
/// 6144 x 4096 16.7 (19.3; 17.1), 32 x 8192 x 8192 35.5 (41.2; 35.7), 32 x
/// 4096 x 4096 11.7 (13.4; 14.1), 32 x 12288 x 4096 28.1 (30.5; 29.3); 32 x
/// 128 x 128 ran 20.4 at 32 x 5120 x 5120, 32 x 64 x 256 16.7 (but at 32 x
/// 12288 x 4096 the compiler gave it two stages, which the kernel refuses).
/// The 64-row tile ran 16.3 us at M = 64 and 17.2 at 48 (cuBLAS 17.4, 17.2).
/// B as K x N (bench_sweep.py --static, H200): 1.06x the 64 x 128 x 64
/// tile over the sweep's 15 shapes of M = 32, none slower (32 x 5120 x 5120
/// 17.8 us against 20.3, 32 x 8192 x 8192 35.9 against 40.6; cuBLAS 16.3,
/// 35.1).
inline constexpr Tile kThinTile = {32, 64, 128};

/// sm_90a's one-warpgroup tile for a static 2-D product of kRows64MinRows
/// to 64 rows (A as K x M: 64), its operand rows on 128-byte lines (K, and N
/// of B as K x N, multiples of 64), whose 64 x 64 tiles take one slice
/// (ruleWgmmaTile: at least a third of the SMs' worth, sliceOneSliceShare)
/// and whose 64 x 32 tiles fit one wave a block an SM (N of 2753 to 4224 on
/// 132 SMs): 32 columns, whose four f16 sums a chunk (accumulatorSets) the
/// 64 x 64 tile's registers do not take. At 64 rows that tile's one sum
/// erred 6.4e-4 to 8.2e-4 (K = 4096 to 14336), more than a third of cuBLAS
/// f16acc's; 64 x 32 x 64 with four sums erred 3.9e-4 to 4.6e-4, within
/// it (the compiler's static kernels on an H100,
/// benchmarks/data/rows64_sets_h100_sm_90a.json).
inline constexpr Tile kRows64Tile = {64, 32, 64};

/// The fewest rows kRows64Tile takes. Through the package on an H100
/// (CUDA-graph replay, weights beyond L2, x cuBLAS f32acc; 64 x 32 / 64 x
/// 64, each launched as the rules launch its tile; N of 2816 to 4096, K of
/// 1024 to 14336; benchmarks/data/rows64_grid_h100_sm_90a.json): A as M x K,
/// 56 to 64 rows, geomean 0.995 over 102 products, least 0.972, error 3.3e-4
/// to 4.6e-4 against 4.8e-4 to 8.2e-4; fewer rows lost up to 17% (36 x 2880
/// x 11008, B as N x K, 0.827). A as K x M: 64 rows 0.992 (14 products,
/// least 0.981), 54 to 62 rows 0.902 (least 0.791), fewer 0.832. Past one
/// wave (56 to 64 rows, N of 5120 to 8192, 64 x 32 two blocks an SM) 0.999
/// over 15 products, 0.927 to 1.047: not taken there.
inline constexpr int64_t kRows64MinRows = 56;

/// sm_90a's 192 x 96 x 64 tile: three consumer warpgroups of 64 rows (f16
/// sums take half the registers of f32 ones: 160 a thread at 512 threads),
/// B as K x N three 32-column atoms of 64-byte swizzled rows; cuBLAS's
/// tile for 1536^3. A filling tile (selectTile) where its one wave of
/// tiles, in one slice and with M > 192, costs the busiest SM less than
/// the 128-row tile's: 1536^3 has 128 of them (96 of 128 x 192). Measured
/// on an H200 (static kernels, benchmarks/data/three_warpgroups_sm_90a.json),
/// x cuBLAS f32acc, the rules' tile / 192 x 96: 1536^3 B as N x K 0.935 (128 x
/// 160) / 0.976, B as K x N 0.849 (128 x 192) / 0.962, A as K x M 0.866 /
/// 0.979; past one wave 1152 x 4096 x 4096 0.864 / 0.924, but 2048^3 0.985 /
/// 0.674 and 3000^3 0.887 / 0.551.
inline constexpr Tile kThreeWarpgroupTile = {192, 96, 64};

/// sm_90a's 192 x 192 x 64 tile: three consumer warpgroups of 64 x 192 (f16
/// sums and f32 outer sums take 144 of the 160 registers a thread beside
/// three), four stages. The rules' wide tiles weigh it against the 128-row
/// ones by waves (wideTile): where its tiles fit fewer waves of the SMs. At
/// 1976 x 2056 x 4096 121 of them fill one wave where 208 of 128 x 160
/// take two.
inline constexpr Tile kThreeWarpgroupWideTile = {192, 192, 64};

/// The least K of a product that fills with kThreeWarpgroupTile: 1536 and
/// more gained (1536^3, 1100 x 2048 x 2048), 1024 lost (2200 x 1024 x
/// 1024).
inline constexpr int64_t kThreeWarpgroupMinK = 1536;

/// Whether a 32-row wgmma tile of BN x BK lets wgmma's m64 read past it: B's
/// tile holds the 32 rows it reads after A's last atom.
inline bool thinTileFits(int64_t bn, int64_t bk) {
  return bn * bk >= 32 * kSwizzleCols;
}

/// Whether sm_90a's wgmma kernel reads B as K x N (N-major) in a tile of
/// `bn` columns and `bk` rows of K: whole atoms of kSwizzleCols columns,
/// three, five or seven atoms of 32 (96, 160 or 224 columns, 64-byte
/// swizzled rows: cuBLAS's 192 x 96 tile, the 128-row tiles of 160 and
/// 224), or one narrow atom
/// (KernelSpec::bAtomCols) of 16 or 32 columns (32- or 64-byte swizzled
/// rows) or of 8 (unswizzled 16-byte rows; BK >= 128, so that the fallback
/// kernels' 16-byte copies, a row each, cover the tile).
inline bool wgmmaTakesNMajorB(int64_t bn, int64_t bk) {
  return bn % kSwizzleCols == 0 || bn == 96 || bn == 160 || bn == 224 ||
         bn == 16 || bn == 32 || (bn == 8 && bk >= 2 * kSwizzleCols);
}

/// sm_90a's tile of the transposed product C^T = B^T A^T for a static 2-D
/// product of 193 to 384 rows whose 64-row tiles leave SMs idle
/// (swappedFillTile): 64 rows of B^T along wgmma's M, 96 of A's rows along
/// its n96 (288 rows are three), in clusters of kSwappedFillClusterM along
/// the transposed product's M sharing A's tile by TMA multicast; C^T's
/// view stored in 16-byte column vectors (kernel_config column_stores).
/// cuBLAS runs 288 x 2144 x 2408 so (nvjet 64x96, clusters of 4 x 1:
/// benchmarks/data/ncu_odd_worst_sm_90a.txt).
inline constexpr Tile kSwappedFillTile = {64, 96, 64};
inline constexpr int64_t kSwappedFillClusterM = 4;
/// The same product's 64 x 64 x 64 tile where A lies K x M and B K x N
/// (swappedFillTile), in clusters of kSwappedFillClusterM too: A as K x M
/// makes the transposed product's B (A^T) N-major, whose 96 columns are
/// three 32-column atoms of 64-byte rows, 64 one atom of 128-byte rows
/// (measured there with B as K x N only, which alone takes it there;
/// swappedFewRowsTile takes it for 33 to 64 rows in every layout).
inline constexpr Tile kSwappedFillNMajorTile = {64, 64, 64};
/// The most stages of kSwappedFillNMajorTile in clusters of
/// kSwappedFillClusterM (policy::clusterStages): 8 of its 16 KiB, where
/// wgmmaStages gives 12 (192 KiB). Static kernels on an H200, x cuBLAS
/// f32acc (benchmarks/data/x64q_stages_sm_90a.txt), 8 stages over 12: on
/// the 14 random products the tile was adopted on and 352 x 1224 x 3560,
/// 1.059x geomean, none slower (least 1.021x; 352 x 1224 x 3560 0.794 ->
/// 0.832), 6 stages 1.033x, 4 0.772x; on 12 held-out random ones 1.070x,
/// least 1.043x, 7 stages 1.050x, 10 1.024x.
inline constexpr int64_t kSwappedFillNMajorStages = 8;

/// sm_90a's tile of the transposed product C^T = B^T A^T for 65 to 128 rows
/// (swappedRowsTile): 64 rows of B^T along wgmma's M, all of A's rows
/// along its n128, in clusters of kSwappedFillClusterM along the transposed
/// product's M sharing A's tile by TMA multicast, persistent
/// (quadClusterPays); C^T's view stored in 16-byte column vectors.
inline constexpr Tile kSwappedRowsTile = {64, 128, 64};

/// Whether `tile` is one of the transposed fill tiles above (clusters of
/// kSwappedFillClusterM sharing A's tile): a swapped strategy of any of
/// them, whatever its layouts (one written by hand too), launches so.
inline bool isSwappedFillTile(const Tile &tile) {
  return tile == kSwappedFillTile || tile == kSwappedFillNMajorTile ||
         tile == kSwappedRowsTile;
}

/// kSwappedFillTile for a static 2-D product on sm_90a where A's rows make
/// three or four of its 96-column tiles, K is 2048 to 6144 (measured
/// there; a longer K keeps the slices), C's rows end
/// on 16 bytes (N % 8 == 0: C^T takes column vectors) and the transposed
/// product's clusters of four, a block an SM, cover from half the
/// `smCount` SMs to 28 clusters (the reference part's SM count only);
/// none where slices are asked (`askedSlices` > 1: clusters take one
/// slice). Measured on an H200 (static kernels, x cuBLAS f32acc,
/// benchmarks/data/swapped_fill_sm_90a.txt), the rules before against
/// this tile: 288 x 2144 x 2408 0.676 / 0.663 / 0.696 against 0.942 /
/// 0.968 / 0.866 (B as N x K / K x N, A as K x M; call 3); on 13 random
/// products inside these bounds (call 3) -3% to +19% (264 x 1920 x 5888
/// A as K x M 0.848 -> 1.006, 345 x 1680 x 5338 B as K x N 1.574 ->
/// 1.771; 256 x 1664 x 2816 0.750 -> 0.728, 339 x 1624 x 5503 1.942 ->
/// 1.899). Outside them it lost: K = 512 (304 x 1920 x 512 0.921 against
/// 0.540), 48 blocks (384 x 632 x 5776 0.869 against 0.578), five 96-column
/// tiles at K = 1512 (456 x 1728 x 1512 0.972 against 0.570), C's rows off
/// 16 bytes in 32 clusters (358 x 2010 x 2267 1.675 against 1.207: element
/// stores), 30 clusters or more (kSwappedFillMaxClusters).
/// There, A as K x M with B as K x N takes kSwappedFillNMajorTile where its
/// clusters of four fit the chip's at once (ChipInfo::maxClustersOf4).
/// Measured on an H200 (static kernels x cuBLAS f32acc,
/// benchmarks/data/km_swapped_fill_sm_90a.txt, 64 x 96 / 64 x 64 tiles in
/// clusters of four, the transposed product's loop timed as a product of its
/// own shape): on 14 random such products all gained, 1.06-1.29x, geomean
/// 1.16x (384 x 1232 x 4920 0.633 / 0.818, 296 x 1336 x 3856 0.814 / 1.017;
/// least 232 x 1544 x 3296 0.839 / 0.886); where the clusters do not fit,
/// 64 x 64 lost (288 x 2144 x 2408, 45 clusters: 0.791 / 0.519; 31-44 not
/// measured), as with A as M x K and B
/// as N x K, the transposed product's B K-major (352 x 1224 x 3560 1.174 /
/// 1.093). The products themselves, the rules before / after: 13 of the 14
/// gained, 1.02-1.26x, geomean 1.10x (384 x 1232 x 4920 0.653 / 0.824), one
/// level (232 x 1544 x 3296 0.845 / 0.842), and 352 x 1224 x 3560 too (0.787
/// / 0.788: with its weight in L2 13.7 / 12.4 us, read from DRAM 14.0 /
/// 13.7).
std::optional<Tile> swappedFillTile(const CShape &shape, int64_t k, Chip chip,
                                    int64_t smCount, int64_t askedSlices,
                                    ALayout aLayout, BLayout bLayout);

/// The fewest and most rows, and the shortest K, swappedRowsTile takes.
inline constexpr int64_t kSwappedRowsMinRows = 65;
inline constexpr int64_t kSwappedRowsMaxRows = 128;
inline constexpr int64_t kSwappedRowsMinK = 4096;

/// kSwappedRowsTile for a static 2-D product on sm_90a of
/// kSwappedRowsMinRows to kSwappedRowsMaxRows rows, K from kSwappedRowsMinK,
/// C's rows ending on 16 bytes (N % 8 == 0: C^T takes column vectors),
/// whose transposed product's 64-row tiles number from a third of the
/// `smCount` SMs (fewer take slices, which clusters do not) to four times
/// the clusters of four the chip holds at once (ChipInfo::maxClustersOf4),
/// where those clusters run persistent (quadClusterPays: A's rows off
/// 32-byte sectors); the reference part's SM count only; none where slices
/// are asked (`askedSlices` > 1). The 64-row tiles the rules gave these
/// products read the weight once per 64 rows of A (or twice as many
/// blocks in clusters of two) and A's tile once per block; one 128-column
/// tile of the transposed product covers A's rows, its weight read once,
/// A's tile shared by four blocks. cuBLAS runs them in clusters too (nvjet
/// 64x48 tiles, 4 x 2 clusters, half the L2 bytes:
/// benchmarks/data/ncu_rows128_heldout_h100_sm_90a.txt). Measured on an
/// H100 (the compiler's static kernels, CUDA-graph replay, weights beyond
/// L2, x cuBLAS f32acc, benchmarks/data/swapped_rows_h100_sm_90a.json): on
/// 30 held-out random products of 65 to 128 rows, N 2760 to 7680, K 4096
/// to 16384, every layout, 1.121x the rules' speed (geomean; 0.971x at
/// worst, 128 x 4928 x 14560 with B as K x N, whose rows on sectors keep
/// it a block a tile: excluded); the 29 it takes 1.126x (0.988x at worst),
/// below 0.85x cuBLAS 4 of them against 14. Up to 64 rows:
/// swappedFewRowsTile.
std::optional<Tile> swappedRowsTile(const CShape &shape, int64_t k, Chip chip,
                                    int64_t smCount, int64_t askedSlices,
                                    ALayout aLayout, BLayout bLayout);

/// The fewest and most rows, and the shortest K, swappedFewRowsTile takes.
inline constexpr int64_t kSwappedFewRowsMinRows = 33;
inline constexpr int64_t kSwappedFewRowsMaxRows = 64;
inline constexpr int64_t kSwappedFewRowsMinK = 2048;

/// kSwappedFillNMajorTile (64 x 64 x 64) of the transposed product for a
/// static 2-D product on sm_90a of kSwappedFewRowsMinRows to
/// kSwappedFewRowsMaxRows rows, K from kSwappedFewRowsMinK, C's rows ending
/// on 16 bytes (N % 8 == 0: C^T takes column vectors), whose transposed
/// product's 64-row tiles number from half the `smCount` SMs (with B
/// stored K x N up to 63 rows from a third) to four times the clusters of
/// four the chip holds at once (ChipInfo::maxClustersOf4): N of 4168 (2753)
/// to 7680 on 132 SMs; the reference part's SM count only; none
/// where slices are asked (`askedSlices` > 1), nor where the rules give
/// kRows64Tile (56 to 64 rows up to N = 4224), nor for 64 rows with B
/// stored N x K. In clusters of kSwappedFillClusterM sharing A's tile, a
/// block a tile, two f16 sums a chunk in long chunks as the unswapped tile
/// (chunkSets; the package's x64q and x64sq). The 64 x 64 tiles the rules
/// gave these products (n64, n64s) read A's tile in every block and pad it
/// to 64 rows; one 64-column tile of the transposed product holds all of
/// A's rows, read once a cluster. Measured on an H100 (CUDA-graph replay,
/// weights beyond L2, x cuBLAS f32acc,
/// benchmarks/data/swapped_rows_h100_sm_90a.json, `few_rows`), static
/// kernels of one f16 sum: on 36 random products of 33 to 64 rows, N 4224
/// to 7680, K 4096 to 16384, every layout, 1.157x the rules' speed
/// (geomean; 0.992x at worst), below 0.85x cuBLAS none against 6; on 24
/// held-out ones 1.181x (0.988x at worst), on 9 of K 2096 to 3984 1.110x
/// (1.036x at worst). Through the package, two sums in long chunks: on the
/// 97 products of every layout the rule took at f77a93c 1.148x the family
/// before (0.977x at worst), below 0.85x cuBLAS none against 9; two sums ran
/// 0.995x one sum's speed for 0.73x-0.75x its error. Below half the SMs (N
/// 2752 to 4160) it gained 1.213x on 16 products of B stored K x N, 1.197x
/// on 16 held-out ones (0.908x at worst), and lost on three of eight of B
/// stored N x K and on two of four of 64 rows.
std::optional<Tile> swappedFewRowsTile(const CShape &shape, int64_t k,
                                       Chip chip, int64_t smCount,
                                       int64_t askedSlices, ALayout aLayout,
                                       BLayout bLayout);

/// sm_90a's tile of the transposed product C^T = B^T A^T where a product's
/// 128 x 128 tiles would fit one wave but for the clusters of two they
/// launch in (rows off 32-byte sectors: whole pairs of row tiles), and the
/// transposed product's fit it as launched (swappedMidTile): two consumer
/// warpgroups, a block a tile (not persistent: oneWavePersistentPays), C^T's
/// view stored in 16-byte column vectors (kernel_config column_stores).
inline constexpr Tile kSwappedMidTile = {128, 128, 64};

/// The shortest K swappedMidTile takes: the least it was measured at (264 x
/// 5160 x 856); shorter products keep their tiles.
inline constexpr int64_t kSwappedMidMinK = 856;

/// kSwappedMidTile for a static 2-D product on sm_90a where the rules give
/// 128 x 128 tiles for one wave (oneWaveMidTile) that their clusters push
/// past `smCount` blocks (the transposed product's 128 x 128 tiles, as
/// launched, then fit them); C's rows end on 16 bytes (N % 8 == 0: C^T
/// takes column vectors); K at least kSwappedMidMinK; none where slices are
/// asked (`askedSlices` > 1).
/// Measured on an H200 (static kernels, x cuBLAS f32acc, the rules before
/// / after, benchmarks/data/swapped_spill_sm_90a.txt): 1040 x 1712 x 1512
/// (140 tiles launched for 126; transposed, 14 x 9 in clusters of two)
/// 0.888 / 0.967, 0.804 / 0.976, 0.717 / 0.891 (B as N x K, K x N, A as K
/// x M; 128 x 160 / 128 x 192 before); on 18 random products the rule
/// moves, all gained, 1.01-1.48x (geomean 1.16; 297 x 5360 x 1384, B as K
/// x N, 0.543 / 0.801; 374 x 4888 x 6936 0.732 / 0.914). Persistent,
/// storing C^T by TMA, it ran 0.853 / 0.894 / 0.789 at 1040 x 1712 x 1512
/// against 0.961 / 1.016 / 0.894 a block a tile
/// (benchmarks/data/wide_three_warpgroups_sm_90a.txt, call 3).
std::optional<Tile> swappedMidTile(const CShape &shape, int64_t k, Chip chip,
                                   int64_t smCount, int64_t askedSlices);

/// Whether a product of C `shape` has at most `maxTiles` swapped 64-row
/// tiles (its transposed C's, ceil(N / 64); their blocks each read all of
/// A): selectSwappedTile's and copiesKMajorA's bound.
inline bool swappedTilesAtMost(const CShape &shape, int64_t maxTiles) {
  return (shape.n + 63) / 64 <= maxTiles;
}

/// Whether sm_90a's wgmma kernel can compute a product of these layouts
/// with `tile` (none: the one selectTile gives): it reads A as M x K
/// (K-major) or K x M (M-major, wgmma's transposed A, in atoms of 64 rows:
/// BM a multiple of 64) and B as N x K (K-major) or K x N (N-major, in atoms
/// of 64 columns: wgmmaTakesNMajorB) in 128-byte rows (BK = 64, or 128 or
/// 256 as atoms of 64 columns), 64 rows a warpgroup (or, A as M x K, a
/// 32-row tile of BK >= 128 whose B tile holds at least 32 x 64 elements:
/// KernelSpec::mmaRows), at most 256 columns.
bool wgmmaTakes(ALayout aLayout, BLayout bLayout,
                const std::optional<Tile> &tile);

/// The layouts of the swapped product C^T = B^T A^T's operands: its A is
/// B (N x K: M x K; K x N: K x M), its B is A (M x K: N x K; K x M: K x N).
inline std::pair<ALayout, BLayout> swappedLayouts(ALayout aLayout,
                                                  BLayout bLayout) {
  return {bLayout == BLayout::NK ? ALayout::MK : ALayout::KM,
          aLayout == ALayout::MK ? BLayout::NK : BLayout::KN};
}

/// The chip whose kernel runs a product of these layouts with `tile` on
/// `chip`: sm_90's mma.sync kernel for an sm_90a product the wgmma kernel
/// does not take (it runs on sm_90a as on sm_90), else `chip`.
Chip kernelChip(Chip chip, ALayout aLayout, BLayout bLayout,
                const std::optional<Tile> &tile);

/// The S that selectTile costs each candidate tile with: `splits` where the
/// call fixes S, else each tile's own default (tileNumSplits under
/// `maxSplits`), as the launch of that tile would take.
struct FillSplits {
  std::optional<int64_t> splits;
  int64_t maxSplits = kDefaultMaxSplits;
  /// S for `tile` (an sm_90a wgmma tile) at K = `k`.
  int64_t of(const Tile &tile, int64_t k) const {
    return splits ? *splits : tileNumSplits(Chip::SM90a, tile, k, maxSplits);
  }
};

/// The C tiles a launch of `tile` over the static `shape` covers: clusters
/// of `clusterM` blocks along M take whole clusters of row tiles (an odd
/// last row's partner loads its half of B and stores nothing). The emitted
/// host code spells the same as IR (HostLaunch.cpp), the kernel its work
/// tiles (WarpSpecializedKernelBuilder::workTiles).
int64_t launchTiles(const CShape &shape, const Tile &tile, int64_t clusterM);

/// The tile [BM, BN, BK] that gpupoor-split-k takes when its options name
/// none, for C of `shape` and reduction size `k` (possibly kDynamic) on
/// `chip`. On sm_90a a tile the wgmma kernel does not take (M <= 16) is for
/// the mma.sync kernel the op is retargeted to. `smCount`: the SMs the
/// launch is planned for; `bLayout`: B's (on sm_90a, B as K x N takes tiles
/// whose BN is a multiple of 64: wgmmaTakes); `aLayout`: A's (kThinTile
/// only for A as M x K).
///
/// The rules: 128 x 128 x 32 by default and for dynamic shapes (sm_90a:
/// 128 x 256 x 64). A static M of at most 128 takes a small-M tile: 16 x
/// 128 x 128 up to M = 16 (BK = 64 on sm_90 where K <= 128, and on sm_86
/// and sm_89, where three stages of BK = 128 exceed a block's shared
/// memory), 32 x 128 x 64 up to 32 (sm_90a: kThinTile), 64 x 128 x 64 up
/// to 128 (sm_90a: 64 x 64 x 64 where those tiles fit one wave, and
/// kRows64Tile for 56 to 64 rows where it fits): fewer
/// wasted MMA rows, and with slices enough blocks to stream the weights. On
/// sm_90 a static product of at least 256 tiles of 256 x 128 x 64 (the
/// batch counted) takes that tile, eight 64 x 64 warps: on an H100
/// (docs/design/decisions.md) 5-15% faster on large products under sustained
/// load, 5-10% slower at 8192^3 in short batches from an idle GPU, a fifth
/// slower on products too small to fill the SMs twice, so a dynamic shape keeps
/// the small tile; a short one (K <= 512) whose 128 x 128 tiles leave SMs idle
/// takes 128 x 64 x 32. sm_90a's larger products: selectWgmmaTile (Tiles.cpp,
/// with its measurements); where `fill` is given (the launch's S, its
/// slices launchSlices' choice, which the cost assumes), a static product of
/// more than 64 rows may take a filling tile of 64 rows and more columns
/// (fillingTile).
Tile selectTile(const CShape &shape, int64_t k, Chip chip, int64_t smCount,
                BLayout bLayout = BLayout::NK, ALayout aLayout = ALayout::MK,
                const std::optional<FillSplits> &fill = std::nullopt);

/// Whether `tile` is one of selectTile's filling tiles (64 x 160, 64 x 192,
/// 64 x 256, 192 x 96, BK = 64).
bool isFillingTile(const Tile &tile);

/// The swapped tile [BN, BM, BK] that gpupoor-split-k takes for a product
/// of C `shape` and these layouts on `chip` when its options name no tile,
/// or std::nullopt where the product keeps selectTile's tile: sm_90a's
/// static 2-D decode products (M <= 16, A either way, B either way), and
/// those of 17 to 32 rows of A as K x M (kSwappedKMTile), whose swapped
/// 64-row tiles number up to two blocks an SM, or any number of them for
/// A as M x K with B stored N x K, and for up to kWideSwappedKNRows rows
/// with B stored K x N where sm_90's tiles do not take them; std::nullopt from
/// kMmaDecodeKNRows rows of A as M x K and B stored K x N where the 16 x 128
/// tiles take one slice. `k`: the product's K; `splits`: the splits its options
/// give (none: the default), at most `maxSplits`. A 32-row tile
/// (kThinSwappedTile, A M x K, B N x K) takes one chunk a K tile: its splits
/// are ceil(K / 256) (tileNumSplits).
std::optional<Tile> selectSwappedTile(const CShape &shape, ALayout aLayout,
                                      BLayout bLayout, Chip chip, int64_t k,
                                      std::optional<int64_t> splits,
                                      int64_t maxSplits, int64_t smCount);

} // namespace mlir::gpupoor::policy

#endif // GPUPOOR_POLICY_TILES_H
