//===- Tiles.cpp - which tile a product takes -----------------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/Tiles.h"

#include "PolicyUtils.h"

#include "gpupoor/Policy/KernelConfig.h"
#include "gpupoor/Policy/Splits.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <tuple>
#include <utility>

using namespace mlir::gpupoor::policy;

/// Blocks of 256 x 128 tiles below which a static sm_90 matmul keeps the
/// 128 x 128 tile: about two waves of one-block-an-SM kernels on 132 SMs
/// (H100 SXM, H200). Fewer leave SMs idle in the last wave, where the small
/// tile's twice as many (two an SM) fill them better.
static constexpr int64_t kLargeTileMinBlocks = 256;

/// sm_90a's static small and mid-size products, measured on an H100
/// (benchmarks/bench_skinny.py,
/// docs/design/decisions.md#64-row-tiles-for-mid-size-m): for 16 < M <= 128
/// the wgmma kernel's 64 x 128 x 64 tile (one warpgroup) ran 1.00-1.13x the
/// mma.sync 64 x 128 x 64 tile (0.96x at 128 x 14336 x 4096) and 1.4-2.5x
/// the 128 x 256 tile, whose few tiles need many slices there; 64 x 64 x 64
/// ran 1.1-1.3x 64 x 128 where its tiles fit the SMs in one wave (20-32 MiB
/// weights) and 0.84-0.91x where they take two (128 x 14336 x 4096). For
/// M > 128 the 128 x 256 tile, unless it fills fewer than half the SMs and
/// the slices that fill them cover less than kMinWideSliceK of K each: then
/// each slice's 128 KiB of f32 partial sums, written and read back, costs
/// a sixth or more of what the slice loads, and 64 x 128 tiles ran 1.18x
/// (512 x 4096 x 4096) and 1.35x (512 x 2048 x 5120) faster; at 512 x 4096
/// x 14336 (slices of 7168) the 128 x 256 tile ran 1.14x faster.
static constexpr int64_t kMinWideSliceK = 4096;

/// The longest K at which a product of more than 128 rows whose 128 x 256
/// tiles fill fewer than half the SMs takes 64 x 64 tiles where those fit
/// one wave (narrowFills). On an H200 (the package's call under forced
/// choices, x cuBLAS f32acc, B as N x K / K x N / A as K x M,
/// docs/design/decisions.md#64-x-64-tiles-where-few-wide-tiles-fill-the-sms),
/// 64 x 128 (in clusters of two where rows lie off 32-byte sectors) against
/// 64 x 64: K of 560 to 1277 gained, 192 x 1960 x 560 0.775 / 1.120, 0.831 /
/// 1.038, 0.828 / 1.078; 552 x 784 x 632 0.802 / 0.936, 0.812 / 0.982, 0.839
/// / 0.990; 272 x 618 x 1277 0.967 / 1.201, 0.943 / 1.187, 0.861 / 1.083. At
/// 3367 it was even (237 x 1318 x 3367 0.995 / 1.082, 0.888 / 0.876, 0.772 /
/// 0.767); from 3560 on it lost, 352 x 1224 x 3560 1.008 / 0.893, 384 x 632
/// x 5776 0.864 / 0.761, 1024 x 256 x 8192 1.005 / 0.676. 2048 lies between
/// 1277 and 3367, unmeasured in between; batches were not measured (not
/// taken for them).
static constexpr int64_t kMaxNarrowFillK = 2048;

/// Whether a static 2-D product takes 64 x 64 tiles over 64 x 128 ones
/// where the rules take 64-row tiles for few wide tiles: where they fit one
/// wave and K is at most kMaxNarrowFillK (as for M <= 128, ruleWgmmaTile,
/// where K is not bounded).
static bool narrowFills(const CShape &shape, int64_t k, int64_t sms) {
  return !shape.batched && shape.tiles(64, 64) <= sms && !isDynamic(k) &&
         k <= kMaxNarrowFillK;
}

/// The longest K at which a product whose B lies K x N (three 32-column
/// atoms of 64-byte swizzled rows in a 96-column tile) or whose A lies K x M
/// takes 64 x 96 tiles (ninetySixFills); others go to kMaxNarrowFillK.
static constexpr int64_t kMaxNinetySixMajorK = 1024;

/// Whether a static 2-D product of more than 128 rows that the rules give
/// 64-row tiles takes 64 x 96 ones: where 64 x 64 tiles exceed one wave
/// (narrowFills) but 64 x 96 ones fit it in more blocks than 64 x 128 ones,
/// K is at most kMaxNarrowFillK (B as N x K, A as M x K) or
/// kMaxNinetySixMajorK, the operands' rows start on 32-byte sectors and the
/// slices are chosen (`slicesChosen`: asked ones may take the tile past one
/// wave, where the compiler's kernel would run two blocks an SM, which the
/// package's family m64n96 has no variant of). They run a block a tile, no
/// clusters (clusterPays: 128 columns and more). On an H200 (static kernels
/// x cuBLAS f32acc, 64 x 128 / 64 x 96, benchmarks/data/n96_tiles_sm_90a.txt;
/// docs/design/decisions.md#64--96-tiles-where-64--64-ones-spill-a-wave):
/// 304 x 1920 x 512 0.808 / 0.919, 756 x 832 x 1920 0.864 / 0.994, B as K x N
/// 165 x 2944 x 832 0.791 / 0.839, past the bounds B as K x N 352 x 1224 x
/// 3560 0.798 / 0.505; held out, 384 x 1728 x 448 0.797 / 1.095, 768 x 960 x
/// 320 0.778 / 1.139, A as K x M 768 x 1024 x 448 0.978 / 0.829, and off
/// sectors, where 64 x 128 runs in clusters, B as K x N 608 x 1224 x 923
/// 2.467 / 1.873 (cuBLAS is slow there). A as K x M takes B as K x N's
/// bound, not measured apart; the tuned table's rows keep their choice
/// (tunedChoice).
static bool ninetySixFills(const CShape &shape, int64_t k, int64_t sms,
                           BLayout bLayout, ALayout aLayout,
                           bool slicesChosen) {
  int64_t maxK = bLayout == BLayout::NK && aLayout == ALayout::MK
                     ? kMaxNarrowFillK
                     : kMaxNinetySixMajorK;
  int64_t tiles = shape.tiles(64, 96);
  return slicesChosen && !shape.batched && shape.m > 128 && !isDynamic(k) &&
         k <= maxK && rowsSectorAligned(shape.n, k) && tiles <= sms &&
         tiles > shape.tiles(64, 128);
}

/// The columns of the 64-row tile the rules give a product of more than 128
/// rows: 64 where those fit one wave (narrowFills), else 96 where those do
/// (ninetySixFills), else 128.
static int64_t narrowTileColumns(const CShape &shape, int64_t k, int64_t sms,
                                 BLayout bLayout, ALayout aLayout,
                                 bool slicesChosen) {
  if (narrowFills(shape, k, sms))
    return 64;
  return ninetySixFills(shape, k, sms, bLayout, aLayout, slicesChosen) ? 96
                                                                       : 128;
}

/// The shortest K at which a product of more than 128 rows that the rules
/// give 64 x 128 tiles for few wide tiles takes 128 x 128 tiles in slices
/// instead (slicedMidTilePays).
static constexpr int64_t kSlicedMidMinK = 6144;

/// Whether such a product takes 128 x 128 tiles, fewer than half the SMs,
/// in the slices numSlices gives them (floor(SMs / tiles)) where its 64 x
/// 128 tiles fit one wave in one slice (a third of the SMs or more:
/// sliceOneSliceShare; fewer take slices themselves): from K =
/// kSlicedMidMinK, with the slices chosen and the operands' rows on 32-byte
/// sectors (off them the 64 x 128 tiles run in clusters, m64c and m64q,
/// which 128 x 128 tiles did not beat). A slice of K on most SMs with two
/// consumer warpgroups each ran faster than one consumer warpgroup's whole
/// K on fewer. Through the package on an H100 (forced choices, CUDA-graph
/// replays; benchmarks/data/sliced_mid_tiles_h100_sm_90a.json,
/// docs/design/decisions.md#128-x-128-tiles-in-slices-for-a-long-k), 128 x
/// 128 in slices over 64 x 128: fitted on 44 products of 44 to 131 such
/// tiles, of which 12 of the 14 the rule takes gained (1.235x geomean; 1767
/// x 512 x 8656 lost 0.912x), 5 of the 6 below K = 6144 lost (403 x 1504 x
/// 4224 0.823x) and all 4 off sectors (0.815x-0.898x); on 30 held-out
/// products the rule takes, 28 gained, 1.26x geomean (0.949x to 1.758x), x
/// cuBLAS f32acc 0.714 -> 0.9, 23 -> 13 below 0.85. The sweep's 256 x 4096 x
/// 11008 and 14336 (128 tiles of 64 x 128, which ran up to 1.226x cuBLAS)
/// lost 0.858x-0.979x, still 0.997x cuBLAS or more.
static bool slicedMidTilePays(const CShape &shape, int64_t k, int64_t sms,
                              bool slicesChosen) {
  // (Fewer 128 x 128 tiles than half the SMs leave fewer 64 x 128 ones than
  // the SMs.)
  return slicesChosen && !shape.batched && shape.m > 128 && !isDynamic(k) &&
         k >= kSlicedMidMinK && rowsSectorAligned(shape.n, k) &&
         shape.tiles(64, 128) *
                 sliceOneSliceShare(Chip::SM90a, {64, 128, 64}) >=
             sms &&
         2 * shape.tiles(128, 128) < sms;
}

/// Whether a static M > 64 takes the 128 x 128 x 64 tile (two warpgroups of
/// 64 x 128, six stages with an SM each: wgmmaStages): where 128 x 256
/// tiles fill fewer than half the SMs but 128 x 128 tiles fill from half
/// to all of them in one wave, one slice each. Measured on an H100 with
/// the TMA kernel (bench_skinny.py; docs/design/decisions.md, "The 128 x
/// 128 tile where 128 x 256 fills too few SMs"), against the best other
/// tile: 512 x 4096 x 4096 28.5 us (64 x 128: 34.9 cp.async, 42.0
/// TMA; 128 x 256 in two slices 40.7), 512 x 4096 x 14336 87.3 us (128 x
/// 256 in two slices 94.3), 128 x 14336 x 4096 47.4 us (64 x 128: 50.5);
/// cuBLAS f32acc 26.4, 82.9 and 47.0 us. With four stages instead of six it
/// ran 33.4 us at 512 x 4096 x 4096; where its tiles take two waves (256 x
/// 14336 x 4096, 448 tiles) it ran 0.93x the 128 x 256 tile.
static bool oneWaveMidTile(const CShape &shape, int64_t k, int64_t sms) {
  int64_t midTiles = shape.tiles(128, 128);
  int64_t wideTiles = std::max<int64_t>(shape.tiles(128, 256), 1);
  // For M > 128, not where 128 x 256 tiles in slices of kMinWideSliceK or
  // more of K fill more of the SMs (selectWgmmaTile then takes them): at
  // 256 x 5120 x 13824 (80 tiles of 128 x 128; 40 of 128 x 256 in three
  // slices) those ran 1.10x on an H200 with B either way, at 256 x 5120 x
  // 5120 (slices of 1707) 0.83-0.84x (docs/design/decisions.md, "The 128 x
  // 128 tile where 128 x 256 fills too few SMs").
  int64_t slices = std::max<int64_t>(sms / wideTiles, 1);
  bool slicedWideFillsMore = shape.m > 128 && !isDynamic(k) &&
                             k / slices >= kMinWideSliceK &&
                             wideTiles * slices > midTiles;
  return shape.m > 64 && 2 * wideTiles < sms && 2 * midTiles >= sms &&
         midTiles <= sms && !slicedWideFillsMore;
}

/// The tiles of sm_90a's `tile` over a static 2-D `shape` as launched on
/// `sms` SMs: in the clusters its configuration takes (clusterBlocks: of two
/// along M where a 128-row tile's rows start off 32-byte sectors, but not
/// where B's lie on them and the pairs add a wave: clusterPays),
/// whose row tiles come in whole clusters (launchTiles).
static int64_t launchedTiles(const CShape &shape, int64_t k, BLayout bLayout,
                             const Tile &tile, int64_t sms) {
  ConfigProblem p = staticConfigProblem(Chip::SM90a, tile, shape, k, bLayout);
  return launchTiles(shape, p.tile, clusterBlocks(p, wgmmaBlocksPerSM(p), sms));
}
static int64_t launchedWideTiles(const CShape &shape, int64_t k,
                                 BLayout bLayout, int64_t columns,
                                 int64_t sms) {
  return launchedTiles(shape, k, bLayout, {128, columns, 64}, sms);
}

/// Whether a product whose B lies K x N takes `tile`, of 160 columns (five
/// 32-column atoms of 64-byte swizzled rows), where the rules' cost
/// (wideTile, fillingTile) prefers it. Measured on an H200 (static
/// kernels x cuBLAS f32acc, benchmarks/data/n160_kn_sm_90a.json), 128 x 192 /
/// 128 x 160: where M fills whole row tiles they won, 256 x 10240 x 8192 0.918
/// / 1.013, 512 x 5120 x 5120 0.851 / 0.993, 384 x 6912 x 5120 0.887 / 0.944,
/// 2176^3 0.773 / 0.903 (A as K x M 512 x 5120 x 5120 0.884 / 1.005; 1024 x
/// 5120 x 13824 alone lost, 0.964 / 0.929); where the last row tile is partial
/// they lost at K <= 5120 without persistent blocks (320 x 6912 x 5120 0.847 /
/// 0.686, 2200 x 1024 x 2048 0.788 / 0.639, 1600 x 1536 x 1536 0.851 / 0.754)
/// and won at longer K or persistent (1200 x 2048 x 6144 0.840 / 0.938, 1600 x
/// 3072 x 3072 0.740 / 0.889): taken only where they won throughout. 64 x 160
/// filling tiles lost to 64 x 192 (160 x 6144 x 12288 0.809 / 0.647, 128 x
/// 10240 x 8192 0.964 / 0.916; 256 x 5120 x 5120 alone gained, 0.823 / 0.910):
/// never.
static bool nMajorB160Pays(const Tile &tile, const CShape &shape) {
  return tile[0] == 128 && shape.m % 128 == 0;
}

/// The columns of a 128-row tile wider than 128 for a product that
/// oneWaveMidTile gives 128 x 128 tiles which fit one wave only before the
/// clusters they launch in round their row tiles up (launchedWideTiles):
/// the narrowest of 160 and 192 columns whose tiles fit one wave as
/// launched; none where the 128 x 128 tiles fit it as launched, or neither
/// does. On an H200 1040 x 1712 x 1512 (126 tiles of 128 x 128, 140 in
/// clusters of two) ran 0.652 of cuBLAS f32acc in 128 x 128 tiles, 0.915 in
/// 128 x 160 and 0.903 in 128 x 192 with B as N x K, 0.637 against 0.833 in
/// 128 x 192 with B as K x N (the package under forced choices,
/// docs/design/decisions.md#wider-tiles-where-clusters-spill-a-wave); ncu
/// at base clocks: 31.1 us for 140 blocks (1.06 waves), 20.9 us for 110
/// (cuBLAS 16.2 us in one wave of 126). On five products held out from
/// the rule, the rule's tile ran 1.06-1.41x the 128 x 128 one (800 x 2200
/// x 4000, B as K x N: 0.876 -> 1.236; 1100 x 1700 x 2000, B as K x N:
/// 1.232 -> 1.302). Since, clusterPays launches no clusters that add a wave
/// where B's rows lie on sectors (K as N x K, N as K x N), so 128 x 128
/// tiles that fit a wave alone spill it only where B's rows lie off them.
/// Products of N % 8 == 0 (1040 x 1712 x 1512 among them, whatever B's
/// layout) run transposed where swappedMidTile takes them: this serves the
/// rest (C's rows off 16 bytes, slices asked, K under kSwappedMidMinK).
static std::optional<int64_t> widerTileForOneWave(const CShape &shape,
                                                  int64_t k, int64_t sms,
                                                  BLayout bLayout) {
  if (shape.batched || launchedWideTiles(shape, k, bLayout, 128, sms) <= sms)
    return std::nullopt;
  for (int64_t columns : {160, 192}) {
    // B as K x N: 160 columns (five 32-column atoms) only where M fills its
    // row tiles (nMajorB160Pays).
    if (bLayout == BLayout::KN && columns == 160 &&
        !nMajorB160Pays({128, columns, 64}, shape))
      continue;
    if (launchedWideTiles(shape, k, bLayout, columns, sms) <= sms)
      return columns;
  }
  return std::nullopt;
}

/// The 192 x 192 tile's (kThreeWarpgroupWideTile) speed a multiply-add
/// against 128 x 256's, in percent, over whole waves: fitted on an H200
/// (static kernels x cuBLAS f32acc,
/// benchmarks/data/wide_three_warpgroups_sm_90a.txt, call 1) where its one
/// or two waves replaced two to five of the rules' 128-row tiles, the 12
/// products implying 0.79-0.99 (median 0.88): 1976 x 2056 x 4096 0.820 (128
/// x 160) / 0.935, 1624 x 2568 x 744 B as K x N 0.699 (128 x 192) / 0.841, A
/// as K x M 2504 x 1680 x 2728 0.665 / 0.944, 2100 x 4360 x 1000 (two waves,
/// persistent) 0.783 (128 x 128) / 0.924; the least gains 1944 x 2144 x 840
/// 0.742 / 0.748 and 2920 x 1440 x 2504 0.804 / 0.819. 90 rather than 88
/// takes 2100 x 4360 x 1000 (5 waves of 128 x 128 against 2). On 21
/// products held out (call 2: random ones the rule moves, drawn after call
/// 1, and the package GPU tests' shapes it moved; one to three waves,
/// 296-2872 rows, every layout), the rules before / after: all gained,
/// 1.04-1.63x (2304 x 2096 x 4152 0.867 / 0.917, 2872 x 4920 x 6584 B as K
/// x N 0.819 / 0.892, 328 x 11280 x 1000 B as K x N 0.517 / 0.844). At
/// 4096^3 (four waves either way) it ran 0.89 of 128 x 256, persistent
/// (benchmarks/data/three_warpgroups_sm_90a.json, calls[5]).
static constexpr int64_t kThreeWarpgroupWideSpeedPercent = 90;

/// sm_90a's tile for a static 2-D product whose 128 x 256 tiles fill half
/// the SMs or more: 128 rows of 256 columns, or 192 or 160 where their
/// waves cost enough less (or 192 x 192, below). A wave costs
/// its columns over their speed a flop, measured on an H100 against 128 x 256
/// (bench_skinny.py, docs/design/decisions.md#128-x-192-and-128-x-160-tiles:
/// 4096 x 6144 x 4096, 128 x 192 at 0.93, 128 x 160 at 0.87; both with the
/// shared-memory epilogue). Taken where that beats 256 columns by 5% or more:
/// at 512 x 6144 x 2048 (96 tiles of 128 x 256, 128 of 128 x 192: 23.4 against
/// 26.4 us, cuBLAS 21.5) and 512 x 10240 x 2048 (160 tiles against 256 of 128 x
/// 160: 41.5 against 51.2 us, cuBLAS 33.9); every large product of the
/// benchmarks keeps 256. 128 columns (0.93 at 256 x 14336 x 4096:
/// oneWaveMidTile) serve a narrow N past a wave, which wider tiles would pad
/// (H100, docs/design/decisions.md#64-row-tiles-for-a-narrow-n): 16384 x 128 x
/// 512 took 10.4 us with 128 x 128 tiles against 12.3 with 128 x 160 (cuBLAS
/// 10.5; within a wave it now takes 64-row tiles, selectWgmmaTile), 32768 x 128
/// x 256 11.1-11.3 (cuBLAS 11.9-12.0). B as N x K also takes 224 and 176
/// columns, at 0.97 and 0.91 (H200, static kernels x cuBLAS f32acc, the rules
/// before / after, benchmarks/data/wide_nk_tiles_sm_90a.txt): 512 x 11008 x
/// 4096 0.866 / 0.947 (252 tiles of 128 x 176 against 232 of 128 x 192),
/// 512 x 14336 x 4096 1.005 / 1.105 (256 of 128 x 224 against 224 of 128 x
/// 256), 1024 x 14336 x 4096 0.870 / 0.943; B as K x N reads whole atoms,
/// which 176 columns are not (wgmmaTakesNMajorB), and 224 in seven atoms of
/// 32, which take no split handover, lost (H100, the package under forced
/// choices x cuBLAS f32acc, 128 x 224 against the rules' choice: 1032 x
/// 5976 x 1648 0.568-0.570 / 0.817, 1024 x 14336 x 4096 0.961-0.962 / 1.075,
/// benchmarks/data/kn224_tiles_h100_sm_90a.json). Then the three-warpgroup
/// 192 x 192 tile (kThreeWarpgroupWideTile), its wave costed as 1.5 of 128
/// rows at kThreeWarpgroupWideSpeedPercent, where it beats that choice by
/// the same 5%.
static Tile wideTile(const CShape &shape, int64_t k, int64_t sms,
                     BLayout bLayout) {
  struct Width {
    int64_t columns, speedPercent, rows = 128;
  };
  // The tiles as launched: the sm_90a kernel of one slice (the rules give
  // these widths one) runs in the clusters its configuration takes
  // (clusterBlocks: of two along M where rows start off 32-byte sectors,
  // but not where B's lie on them and they add a wave), whose row
  // tiles come in whole clusters (launchTiles). Counted without
  // them, 2100 x 4360 x 1000 took 128 x 192 tiles for three waves of 391
  // where the launch has 414, four waves: 0.747x cuBLAS f32acc against
  // 0.819x for the 128 x 128 tiles counted so, 848 x 7432 x 1720 128 x 224
  // 0.636x against 128 x 256 0.886x (H200, docs/design/decisions.md#odd-
  // products-of-a-short-k-over-few-waves-open).
  // A wave's cost in 128-row tiles' columns over their speed (rows in
  // halves of 128, so that the factor stays that of the columns alone: the
  // same quotient as before the 192-row tile).
  auto cost = [&](Width w) {
    int64_t waves = ceilDiv(
        launchedTiles(shape, k, bLayout, {w.rows, w.columns, 64}, sms), sms);
    return waves * w.columns * (w.rows / 64) * 100 * 100 / (2 * w.speedPercent);
  };
  static constexpr Width kWidths[] = {
      {256, 100}, {192, 93}, {160, 87}, {128, 93}};
  int64_t best = 256, bestCost = 0;
  for (Width w : kWidths) {
    // B as K x N: the columns wgmma reads N-major (wgmmaTakes); 160 of
    // them (five 32-column atoms) only where M fills its row tiles
    // (nMajorB160Pays).
    if (bLayout == BLayout::KN &&
        (!wgmmaTakesNMajorB(w.columns, 64) ||
         (w.columns == 160 && !nMajorB160Pays({128, 160, 64}, shape))))
      continue;
    if (w.columns == 256 || 100 * cost(w) <= 95 * bestCost)
      std::tie(best, bestCost) = std::pair(w.columns, cost(w));
  }
  // B as N x K also 224 and 176 columns, where they cost less than that
  // choice (B as K x N: above).
  static constexpr Width kNKWidths[] = {{224, 97}, {176, 91}};
  if (bLayout == BLayout::NK)
    for (Width w : kNKWidths)
      if (cost(w) < bestCost)
        std::tie(best, bestCost) = std::pair(w.columns, cost(w));
  const Tile &t = kThreeWarpgroupWideTile;
  if (100 * cost({t[1], kThreeWarpgroupWideSpeedPercent, t[0]}) <=
      95 * bestCost)
    return t;
  return {128, best, 64};
}

/// One-warpgroup tiles of 64 rows and more than 128 columns, and the
/// three-warpgroup 192 x 96 tile (kThreeWarpgroupTile), which a static
/// product of more than 64 rows takes where their tiles fill one wave with
/// less work for the busiest SM than the 128-row tile of the rules: 64 x
/// 160 for B as N x K only (B as K x N in five 32-column atoms lost:
/// nMajorB160Pays), 64 x 192, 64 x 256 and 192 x 96.
static constexpr Tile kFillingTiles[] = {
    {64, 160, 64}, {64, 192, 64}, {64, 256, 64}, kThreeWarpgroupTile};

bool mlir::gpupoor::policy::isFillingTile(const Tile &tile) {
  return std::find(std::begin(kFillingTiles), std::end(kFillingTiles), tile) !=
         std::end(kFillingTiles);
}

/// A one-warpgroup tile's speed a multiply-add against a two-warpgroup
/// (128-row) tile's, in percent, and what a slice's meeting costs an element
/// of the tile, in the 128-row tile's multiply-adds (its sums written, read
/// back and added by the slices' last block). Fitted on an H200 (static
/// kernels, CUDA-graph replays, medians of six alternating rounds, B as N x
/// K; docs/design/decisions.md#64-row-tiles-that-fill-one-wave), x cuBLAS
/// f32acc, the rules' tile / 64 x 160 / 64 x 192 / 64 x 256 (slices by
/// launchSlices): 256 x 5120 x 5120 0.828 (128 x 128) / 0.965 / 0.856 /
/// 0.693; 192 x 5120 x 16384 0.808 (128 x 256, three slices) / 0.899 /
/// 0.801 / 0.945; 256 x 2560 x 28672 0.809 (six) / 0.986 / 0.894 / 0.883;
/// 136 x 4096 x 16384 0.763 (four) / 0.715 / 0.848 / 0.766; 256 x 3072 x
/// 28672 0.834 (five) / 0.682 / 0.978 / 0.774; 256 x 6144 x 4096 0.875 (128
/// x 128) / 0.669 / 0.899 / 0.749; and (another call,
/// benchmarks/data/filling_slices_sm_90a.json) 256 x 5120 x 13824 0.894
/// (128 x 256, three slices) / 0.992 / 0.895. The cost below picks the
/// fastest of the four at each with any meeting cost from 151 on (2000
/// checked; 145 and the 125 fitted before the last shape kept its three
/// slices); 300 leaves a margin on either side.
static constexpr int64_t kOneWarpgroupSpeedPercent = 88;
/// The 192 x 96 tile's (kThreeWarpgroupTile) speed a multiply-add against
/// the 128-row tiles', in percent: fitted at 1536^3 on an H200, where it
/// ran 0.958 of the time of 128 x 160 (B as N x K), the 128-row tile's
/// least margin (0.88 of 128 x 192's with B as K x N and A as K x M).
static constexpr int64_t kThreeWarpgroupSpeedPercent = 94;
static constexpr int64_t kSliceMeetingCost = 300;

/// The work of the busiest SM of a static product in `tile`, in the 128-row
/// tile's multiply-adds, with the slices launchSlices gives it for the S
/// `fill` gives the tile, where its blocks fit one wave (none otherwise).
static std::optional<int64_t> oneWaveCost(const CShape &shape, int64_t k,
                                          const FillSplits &fill, int64_t sms,
                                          const Tile &tile) {
  int64_t tiles = shape.tiles(tile[0], tile[1]);
  int64_t slices =
      launchSlices(0, Chip::SM90a, tile, k, tiles, fill.of(tile, k), sms);
  if (tiles > sms || tiles * slices > sms)
    return std::nullopt;
  int64_t area = tile[0] * tile[1], work = 0;
  // (A K of about 2^41 and more would overflow: no filling tile for it.)
  if (__builtin_mul_overflow(area * 100, ceilDiv(k, slices), &work))
    return std::nullopt;
  if (tile[0] < 128)
    work /= kOneWarpgroupSpeedPercent;
  else if (tile[0] > 128)
    work /= kThreeWarpgroupSpeedPercent;
  else
    work /= 100;
  return work + kSliceMeetingCost * (slices - 1) * area;
}

/// Whether the 192 x 96 tile (kThreeWarpgroupTile) may fill: in one slice,
/// with K of at least kThreeWarpgroupMinK and two or more row tiles (M >
/// 192), as measured (M of 384 to 1536 gained; one row tile was timed only
/// in two slices, below). On an H200
/// (static kernels, benchmarks/data/three_warpgroups_sm_90a.json), x
/// cuBLAS f32acc, the rules' tile / 192 x 96: in two slices against 64 x
/// 160 (B as N x K) 160 x 4608 x 3072 1.007 / 0.941, 160 x 6144 x 12288
/// 0.971 / 0.879, against 64 x 192 (B as K x N) 0.735 / 0.799, 0.831 /
/// 0.805; with K = 1024, 2200 x 1024 x 1024 A as K x M 1.023 / 0.877, B as
/// K x N 0.791 / 0.773.
static bool threeWarpgroupTileFills(const CShape &shape, int64_t k,
                                    const FillSplits &fill, int64_t sms) {
  const Tile &t = kThreeWarpgroupTile;
  return shape.m > t[0] && k >= kThreeWarpgroupMinK &&
         launchSlices(0, Chip::SM90a, t, k, shape.tiles(t[0], t[1]),
                      fill.of(t, k), sms) == 1;
}

/// The fewest rows at which the one-warpgroup filling tiles (64 x 160, 64 x
/// 192, 64 x 256) no longer replace the 128 x 128 tile of one wave: fitted
/// on the products of benchmarks/data/sliced_mid_tiles_h100_sm_90a.json's
/// `fit` where 128 x 128 met them, held out on an H100
/// (benchmarks/data/mid_over_filling_h100_sm_90a.json: 22 of 27 products
/// gained, 1.149x geomean; two lost, 0.685x and 0.834x).
static constexpr int64_t kOneWarpgroupFillingMaxM = 512;

/// `rule`, the rules' tile for a static product of more than 64 rows, or
/// a filling tile (kFillingTiles) whose one wave costs its busiest SM less
/// (oneWaveCost). Only as measured: where the rule's tile is a 128-row one
/// that fits one wave, and the operands' rows start on 32-byte sectors
/// (elsewhere the 64-row tiles would run in clusters: clusterPays).
static Tile fillingTile(const CShape &shape, int64_t k, const FillSplits &fill,
                        int64_t sms, BLayout bLayout, ALayout aLayout,
                        const Tile &rule) {
  if (shape.batched || isDynamic(k) || rule[0] != 128 ||
      !rowsSectorAligned(shape.n, k))
    return rule;
  std::optional<int64_t> best = oneWaveCost(shape, k, fill, sms, rule);
  if (!best)
    return rule;
  Tile chosen = rule;
  for (const Tile &t : kFillingTiles) {
    if (!wgmmaTakes(aLayout, bLayout, t) ||
        (t[0] < 128 && rule == Tile{128, 128, 64} &&
         shape.m >= kOneWarpgroupFillingMaxM) ||
        (bLayout == BLayout::KN && t[1] == 160 && !nMajorB160Pays(t, shape)) ||
        (t == kThreeWarpgroupTile &&
         !threeWarpgroupTileFills(shape, k, fill, sms)))
      continue;
    std::optional<int64_t> cost = oneWaveCost(shape, k, fill, sms, t);
    if (cost && *cost < *best)
      std::tie(chosen, best) = std::pair(t, cost);
  }
  return chosen;
}

static Tile ruleWgmmaTile(const CShape &shape, int64_t k, int64_t sms,
                          BLayout bLayout, ALayout aLayout, bool slicesChosen);

/// The shortest K at which a product of 65 to 128 rows takes a filling tile
/// over the rules' 128 x 128 one (oneWaveMidTile). Through the package on
/// an H200, x cuBLAS f32acc, the filling tile / 128 x 128
/// (benchmarks/data/filling_mid_rows_sm_90a.json): K = 5120 1.02-1.14x
/// (80 x 9216 x 5120, B as K x N, 1.131 / 0.990); K = 3072 0.99-1.13x;
/// K = 2560 0.97-1.08x; K = 2048 0.92-1.00x (128 x 11008 x 2048, B as K x N,
/// 0.912 / 0.990). At K = 4096 (benchmarks/data/filling_slices_sm_90a.json)
/// 128 x 12288 x 4096 gained 1-3%, 128 x 11008 x 4096 lost 1-2%.
static constexpr int64_t kMidRowsFillingMinK = 3072;

static Tile selectWgmmaTile(const CShape &shape, int64_t k, int64_t sms,
                            BLayout bLayout, ALayout aLayout,
                            const std::optional<FillSplits> &fill) {
  // (`fill` is given where the slices are chosen.)
  Tile rule = ruleWgmmaTile(shape, k, sms, bLayout, aLayout, fill.has_value());
  // (128 x 128 tiles in slices were measured against 64 x 128 ones only.)
  bool slicedMid = rule == Tile{128, 128, 64} &&
                   slicedMidTilePays(shape, k, sms, fill.has_value());
  if (!fill || !shape.isStatic() || shape.m <= 64 || slicedMid ||
      (shape.m <= 128 && (isDynamic(k) || k < kMidRowsFillingMinK)))
    return rule;
  return fillingTile(shape, k, *fill, sms, bLayout, aLayout, rule);
}

/// Whether kRows64Tile's operand rows lie on 128-byte lines: K a multiple
/// of 64 (A's rows stored M x K, B's stored N x K) and, B stored K x N, N
/// too. Off them its twice as many blocks lost what the 64 x 64 tile did
/// not. Through the package on an H100, 64 x 32 / 64 x 64 on held-out random
/// products of 56 to 64 rows
/// (benchmarks/data/rows64_heldout_h100_sm_90a.json): K a multiple of 64, B
/// as N x K 1.004 (18 products, least 0.991), B as K x N with N a multiple
/// of 64 0.995 (23, least 0.978), with N off it 0.944 (10, least 0.898); K
/// a multiple of 8 but not of 64 0.887 (26, least 0.759), K off 8 (operands
/// copied into padded rows) 0.975 (19, least 0.892).
static bool rowsOnLines(int64_t k, int64_t n, BLayout bLayout) {
  constexpr int64_t kLine = 64;
  return !isDynamic(k) && k % kLine == 0 &&
         (bLayout == BLayout::NK || n % kLine == 0);
}

/// 65 to kWideRowsMaxRows rows from K = kWideRowsMinK on take 64 x 128
/// tiles where 64 x 64 ones would fit one wave (rowsTakeWiderTile). Their
/// second row tile is part padding, and a 64 x 64 block's one consumer
/// warpgroup streams its K with no unit of the SM busy: on an H100 (ncu,
/// 82 x 3040 x 4856) 64 x 64 tiles read 126 MB through L2 at 53% of its
/// throughput and 30% of the tensor pipe's, where cuBLAS read 69 MB
/// (benchmarks/data/ncu_rows128_heldout_h100_sm_90a.txt). Through the
/// package on an H100, 64 x 128 over 64 x 64 on 150 random products of 33
/// to 128 rows (benchmarks/data/rows128_tiles_h100_sm_90a.json): 1.147
/// (geomean) over the 40 of 65 to 120 rows from K = 3072 that 64 x 64 tiles
/// ran (the slowest 0.824); the rest of 65 to 128 rows 0.970 (22), 33 to 64
/// rows 0.929 where 64 x 64 tiles fill half the SMs (34). Past 120 rows the
/// second row tile is nearly full (126 x 3312 x 15680: 0.736); below K =
/// 3072 64 x 64 won (0.746 to 0.950). On 100 other random products, the 35
/// of 65 to 120 rows from K = 3072: 1.181 (the slowest 0.955), x cuBLAS
/// f32acc 0.809 -> 0.956 (geomean), 19 -> 14 below 0.85.
static constexpr int64_t kWideRowsMaxRows = 120;
static constexpr int64_t kWideRowsMinK = 3072;

static bool rowsTakeWiderTile(const CShape &shape, int64_t k) {
  return shape.m > 64 && shape.m <= kWideRowsMaxRows && !shape.batched &&
         !isDynamic(k) && k >= kWideRowsMinK;
}

static Tile ruleWgmmaTile(const CShape &shape, int64_t k, int64_t sms,
                          BLayout bLayout, ALayout aLayout, bool slicesChosen) {
  if (!shape.isStatic())
    return {128, 256, 64};
  // sm_90's decode tile (selectTile): the mma.sync kernel runs it.
  if (shape.m <= 16)
    return selectTile(shape, k, Chip::SM90, sms, bLayout);
  // 17 to 32 rows: the 32-row tile (kThinTile).
  if (shape.m <= 32 && !shape.batched && aLayout == ALayout::MK)
    return kThinTile;
  // At most 16 columns: the decode tile unswapped (kNarrowTile).
  if (shape.n <= kNarrowTile[1] && !shape.batched)
    return kNarrowTile;
  if (oneWaveMidTile(shape, k, sms)) {
    if (std::optional<int64_t> columns =
            widerTileForOneWave(shape, k, sms, bLayout))
      return {128, *columns, 64};
    return {128, 128, 64};
  }
  // 56 to 64 rows (A as K x M: 64) on 128-byte lines (rowsOnLines) whose
  // 64 x 64 tiles are many enough to take one slice (numSlices' one-slice
  // share) and whose 64 x 32 tiles fit one wave a block an SM: 64 x 32, four
  // f16 sums a chunk, in twice the blocks (kRows64Tile, kRows64MinRows).
  // Fewer 64 x 64 tiles take slices, which 64 x 32 ones, past that share,
  // would not (64 x 2048: 32 x 4 blocks, against 64 x 1); more 64 x 32 tiles
  // would run two blocks an SM, which measured no better. A batch keeps 64
  // x 64 (familyBatched).
  if (shape.m >= kRows64MinRows && shape.m <= 64 && !shape.batched &&
      (aLayout == ALayout::MK || shape.m == 64) &&
      rowsOnLines(k, shape.n, bLayout) &&
      shape.tiles(kRows64Tile[0], kRows64Tile[1]) <= sms &&
      shape.tiles(64, 64) * sliceOneSliceShare(Chip::SM90a, kRows64Tile) >= sms)
    return kRows64Tile;
  if (shape.m <= 128)
    return {64,
            shape.tiles(64, 64) <= sms && !rowsTakeWiderTile(shape, k) ? 64
                                                                       : 128,
            64};
  int64_t wideTiles = std::max<int64_t>(shape.tiles(128, 256), 1);
  // A narrow N whose 128-row tiles fit one wave: 64-row tiles, twice as
  // many, two blocks an SM, 64 columns wide where N fits them. Measured on
  // an H100 (bench_skinny.py,
  // docs/design/decisions.md#64-row-tiles-for-a-narrow-n), µs against the
  // 128-row tile: 8448 x 128 x 2048 17.0 against 23.5-23.7 (66 tiles, half the
  // SMs), 16384 x 128 x 512 9.9-10.0 against 10.4, 16384 x 128 x 4096
  // 52.0-52.1 against 52.6-52.8; 16384 x 64 x 512 9.1-9.2 with 64 x 64
  // against 11.4-11.5 with 64 x 128. Past a wave (32768 x 128 x 256) the
  // 64-row tile ran 12.4-12.6 against 11.1-11.3, and at N = 256 (16384 x
  // 256 x 512) 14.6-14.8 against 13.4-13.6 for 128 x 256.
  if (shape.n <= 128 && wideTiles <= sms)
    return {64, shape.n <= 64 ? 64 : 128, 64};
  // A batch of products of at most 128 columns past a wave (attention's
  // P V, N the head dimension): 128 x 128 tiles, persistent, where 128 x
  // 256 ones would be half padding, and 64 x 64 tiles, two blocks an SM,
  // for at most 64 columns. Static kernels on an H200, x cuBLAS f32acc,
  // 128 x 128 / 128 x 256 / 64 x 128 / 64 x 64
  // (benchmarks/data/batched_narrow_tiles_sm_90a.txt): 8 x 4096 x 128 x
  // 4096 1.051-1.054 / 0.597-0.648 / 0.922-0.949 / 0.718, 32 x 2048 x 128 x
  // 2048 1.035-1.073 / 0.649-0.666 / 0.969-1.005 / 0.748-0.755, 64 x 1024
  // x 64 x 1024 1.000-1.034 / 0.604-0.651 / 0.723-0.749 / 1.039-1.064.
  if (shape.batched && shape.n <= 128)
    return shape.n <= 64 ? Tile{64, 64, 64} : Tile{128, 128, 64};
  // Fewer 128 x 256 tiles than half the SMs, whose slices would cover too
  // little K: 64-row tiles; 64 columns wide where those fit one wave and K
  // is at most kMaxNarrowFillK (narrowFills), else 96 where those fit it
  // (narrowTileColumns).
  // From K = kSlicedMidMinK, 128 x 128 tiles in slices
  // (slicedMidTilePays).
  bool fewWide = 2 * wideTiles < sms;
  if (fewWide && (isDynamic(k) || k / (sms / wideTiles) < kMinWideSliceK)) {
    if (slicedMidTilePays(shape, k, sms, slicesChosen))
      return {128, 128, 64};
    return {64,
            narrowTileColumns(shape, k, sms, bLayout, aLayout, slicesChosen),
            64};
  }
  // Fewer wide tiles than half the SMs take slices (the waves below count
  // tiles of one slice).
  bool narrowerPays = !fewWide && !shape.batched;
  return narrowerPays ? wideTile(shape, k, sms, bLayout) : Tile{128, 256, 64};
}

std::optional<Tile> mlir::gpupoor::policy::swappedMidTile(const CShape &shape,
                                                          int64_t k, Chip chip,
                                                          int64_t smCount,
                                                          int64_t askedSlices) {
  if (chip != Chip::SM90a || shape.batched || !shape.isStatic() ||
      isDynamic(k) || k < kSwappedMidMinK || askedSlices > 1 ||
      shape.n % 8 != 0 || !oneWaveMidTile(shape, k, smCount))
    return std::nullopt;
  // (The launched tiles counted in clusters of two wherever rows start
  // off sectors, as the rule was measured: clusterPays's none where B's
  // rows lie on sectors and the pairs add a wave was not measured against
  // the transposed product.) The transposed product's
  // tiles then fit the wave as launched: its row tiles, even in whole
  // pairs, are at most two for each of the product's 256-column tiles,
  // which oneWaveMidTile has fill under half the SMs.
  int64_t clusterM =
      clusterShapeOffSectors(shape.m, shape.n, k, kSwappedMidTile[0]) ? 2 : 1;
  if (launchTiles(shape, kSwappedMidTile, clusterM) <= smCount)
    return std::nullopt;
  return kSwappedMidTile;
}

/// On an H100, 256 x 128 x 64 tiles (eight 64 x 64 warps, one block an SM)
/// ran 5-15% faster than 128 x 128 x 32 at 4096^3 and 8192^3 under sustained
/// load (at the power cap, where they draw less power a product) and at
/// 4096^3 in short batches, 5-10% slower at 8192^3 in short batches, and a
/// fifth slower at M = 512 (docs/design/decisions.md). Only a static shape
/// tells a large product from a small one, so dynamic shapes, and the other
/// chips (not measured), keep 128 x 128 x 32.
///
/// A static M of at most 128 takes a small-M tile: a 128-row tile would
/// spend 127/128 of its MMA work on padding at M = 1. Measured on an H100
/// with parallel slices (docs/design/decisions.md, bench_skinny.py): at M = 1,
/// 16 x 128 x 128 streamed the weights 1-3% faster than 16 x 128 x 64 (half the
/// barriers a byte); at M = 128, two 64 x 128 x 64 tiles ran 10-25% faster
/// than one 128 x 128 x 32 (twice the blocks to spread over the SMs).
///
/// Short static products on sm_90 (measured on an H100, bench_skinny.py
/// --batched, docs/design/decisions.md): a K of one 128-wide tile gives the
/// decode tile BK = 64, two K tiles that the copy pipeline overlaps (32 x 1 x
/// 4096 x 128, B as N x K: 15.3 us against 16.1 with BK = 128; cuBLAS 15.1);
/// and where K <= kShortK and the 128 x 128 tiles (the batch included) leave
/// SMs idle, 128 x 64 x 32 tiles, twice as many (32 x 512 x 128 x 512:
/// 12.0-12.2 us against 14.0-14.2; 64 x 128 12.2-12.8, 64 x 64 12.4-12.8;
/// cuBLAS 11.7-11.9). With a long K the 128 x 128 tile stays: at 512 x
/// 4096 x 14336 (128 tiles) 128 x 64 ran 173 us against 150.
static constexpr int64_t kShortK = 512;

/// Whether the mma.sync kernel's stages of `tile` (mmaStages) fit a
/// block's shared memory on `chip`.
static bool mmaStagesFit(const Tile &tile, Chip chip) {
  return (tile[0] + tile[1]) * tile[2] * 2 * mmaStages(tile) <=
         getChipInfo(chip).maxSharedPerBlock;
}

bool mlir::gpupoor::policy::wideDecodeTileFits(const CShape &shape, int64_t k,
                                               Chip chip, int64_t smCount,
                                               BLayout bLayout) {
  const Tile &t = kWideDecodeTile;
  // In whole K tiles a chunk (the decode rule's chunks of 128, up to
  // kDefaultMaxSplits of them); B as K x N up to kWideSwappedKNRows rows.
  // Through the package on an H200, x the 16 x 128 x 64 tile's family
  // (m16): B as K x N 16 x 28672 x 8192 0.97x; B as N x K with K = 8200, 3
  // x 28000 x 8200, 0.90x (benchmarks/data/wide_decode_tile_sm_90a.json).
  // B as K x N of 1-8 rows on H100s, x cuBLAS f32acc, against the swapped
  // tile (three calls, benchmarks/data/kn_decode_h100_sm_90a.json): 28672 x
  // 8192 0.977-1.007 against 0.929-0.955, 32000 x 4096 1.010-1.035 against
  // 0.977-0.994; 26624 x 5120 (104 tiles) level (0.963-1.031 against
  // 0.972-1.027). From K = kMmaDecodeKNMinK, as the 16 x 128 tile.
  bool layoutTakes = bLayout == BLayout::NK ||
                     (bLayout == BLayout::KN && shape.m <= kWideSwappedKNRows &&
                      k >= kMmaDecodeKNMinK);
  return (chip == Chip::SM90 || chip == Chip::SM90a) && shape.isStatic() &&
         !shape.batched && layoutTakes && !isDynamic(k) && k >= t[2] &&
         k % t[2] == 0 && k / t[2] <= kDefaultMaxSplits && shape.m <= t[0] &&
         shape.tiles(t[0], t[1] / 2) > smCount &&
         4 * shape.tiles(t[0], t[1]) >= 3 * smCount &&
         shape.tiles(t[0], t[1]) <= smCount && mmaStagesFit(t, chip);
}

Tile mlir::gpupoor::policy::selectTile(const CShape &shape, int64_t k,
                                       Chip chip, int64_t smCount,
                                       BLayout bLayout, ALayout aLayout,
                                       const std::optional<FillSplits> &fill) {
  // sm_90a's wgmma kernel: two warpgroups of 64 x 256 (the 128 x 256 tile
  // of the Gluon kernel measured in docs/guide/Python.md), BK = 64 for the
  // 128-byte swizzle; smaller products as above.
  if (chip == Chip::SM90a)
    return selectWgmmaTile(shape, k, smCount, bLayout, aLayout, fill);
  bool sm90Static = chip == Chip::SM90 && shape.isStatic();
  bool staticK = !isDynamic(k);
  if (!isDynamic(shape.m) && shape.m <= 128) {
    if (shape.m <= 16) {
      Tile decode = {16, 128, sm90Static && staticK && k <= 128 ? 64 : 128};
      // BK = 128 where its stages (mmaStages) fit a block's shared memory:
      // three of 16 x 128 x 128 take 108 KiB, past sm_86's and sm_89's 99.
      if (!mmaStagesFit(decode, chip))
        decode[2] = 64;
      // A weight stored N x K (K x N: wideDecodeTileFits; on sm_90a a 2-D
      // product of it runs swapped, selectSwappedTile, but for a memref's
      // A as K x M) with more 16 x 128 tiles than SMs, whose
      // 16 x 256 tiles number from three quarters of the SMs to all of them
      // (N of 25089 to 33792 on 132 SMs): the 256-row tile, one block an
      // SM, streams it faster than two blocks of the 128-row tile on part
      // of the SMs. Static kernels on an H200, x cuBLAS f32acc, 16 x 128 x
      // 128 / 16 x 256 x 128, three stages each
      // (benchmarks/data/wide_decode_tile_sm_90a.json): 1 x 28672 x 8192
      // 0.949 / 0.987, 4 x 28672 x 8192 0.948 / 0.984.
      if (wideDecodeTileFits(shape, k, chip, smCount, bLayout))
        return kWideDecodeTile;
      return decode;
    }
    return {shape.m <= 32 ? 32 : 64, 128, 64};
  }
  if (!sm90Static)
    return kDefaultTile;
  if (staticK && k <= kShortK && shape.tiles(128, 128) < smCount)
    return {128, 64, 32};
  if (shape.tiles(256, 128) < kLargeTileMinBlocks)
    return kDefaultTile;
  return {256, 128, 64};
}
/// A 32-row tile that wgmma's m64 can read past (KernelSpec::mmaRows): B's
/// tile holds the 32 rows it reads after A's last atom. 32-row tiles of BK
/// = 64 stay the mma.sync kernel's, as before wgmma took 32-row tiles.
static bool thinWgmmaTile(const Tile &tile) {
  return tile[0] == 32 && tile[2] > kSwizzleCols &&
         thinTileFits(tile[1], tile[2]);
}

bool mlir::gpupoor::policy::wgmmaTakes(ALayout aLayout, BLayout bLayout,
                                       const std::optional<Tile> &tile) {
  if (!tile)
    return true;
  const Tile &t = *tile;
  // A as K x M and B as K x N lie in atoms of 64 of their rows and columns
  // (M- and N-major, wgmma's transposed A and B): A's whole atoms leave no
  // 32-row tile.
  // B as K x N takes whole atoms, or one narrow one (wgmmaTakesNMajorB).
  bool rows = t[0] % 64 == 0 || (aLayout == ALayout::MK && thinWgmmaTile(t));
  bool columns =
      bLayout == BLayout::NK ? t[1] % 16 == 0 : wgmmaTakesNMajorB(t[1], t[2]);
  return rows && columns && t[1] <= 256 &&
         (t[2] == kSwizzleCols || t[2] == 2 * kSwizzleCols ||
          t[2] == 4 * kSwizzleCols);
}

Chip mlir::gpupoor::policy::kernelChip(Chip chip, ALayout aLayout,
                                       BLayout bLayout,
                                       const std::optional<Tile> &tile) {
  return chip == Chip::SM90a && !wgmmaTakes(aLayout, bLayout, tile) ? Chip::SM90
                                                                    : chip;
}

int64_t mlir::gpupoor::policy::launchTiles(const CShape &shape,
                                           const Tile &tile, int64_t clusterM) {
  // Whole clusters of row tiles, counted as rows of one (no overflow for
  // any M; tileCount saturates).
  int64_t rowTiles = ceilDiv(ceilDiv(shape.m, tile[0]), clusterM) * clusterM;
  return tileCount(shape.batched ? shape.batch : 1, rowTiles, shape.n, 1,
                   tile[1]);
}
