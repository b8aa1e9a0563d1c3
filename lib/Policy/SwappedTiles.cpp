//===- SwappedTiles.cpp - which products run transposed -------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// sm_90a's decode products (M <= 16, and A stored K x M of up to 32 rows):
// the swapped tile, or none where sm_90's mma.sync tiles (selectTile) stream
// the weight faster; the transposed product of 33 to 128 rows; and that of
// 193 to 384 rows in clusters of four (swappedFillTile). (The transposed
// product where 128 x 128 clusters spill a wave, swappedMidTile, stays
// beside oneWaveMidTile in Tiles.cpp.)
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/Tiles.h"

#include "PolicyUtils.h"

#include "gpupoor/Policy/KernelConfig.h"
#include "gpupoor/Policy/Splits.h"

#include <optional>

using namespace mlir::gpupoor::policy;

/// Whether a static decode product of A stored M x K and B stored K x N
/// runs sm_90's mma.sync decode tile rather than swapped
/// (selectSwappedTile): from kMmaDecodeKNRows rows, where that tile's
/// tiles fill the SMs in one slice by their count alone (numSlices, with
/// any number of splits: from 89 tiles of 16 x 128 on 132 SMs) and K is at
/// least kMmaDecodeKNMinK.
static bool mmaDecodeTilePaysKN(const CShape &shape, ALayout aLayout,
                                BLayout bLayout, int64_t k, int64_t smCount) {
  if (aLayout != ALayout::MK || bLayout != BLayout::KN ||
      shape.m < kMmaDecodeKNRows || isDynamic(k) || k < kMmaDecodeKNMinK)
    return false;
  Tile tile = selectTile(shape, k, Chip::SM90, smCount, bLayout);
  return numSlices(0, shape.tiles(tile[0], tile[1]), kMaxSlices, smCount,
                   sliceBlocksPerSM(Chip::SM90, tile),
                   sliceOneSliceShare(Chip::SM90, tile),
                   /*longK=*/false) == 1;
}

/// sm_90a's decode products (M <= 16) run transposed where their swapped
/// 64 x 16 tiles (kSwappedDecodeTile: B's rows along wgmma's M, A's few rows
/// along its n16) number up to two blocks an SM; from a third of the SMs one
/// slice each, fewer take slices (numSlices) where K >= 2048 (gpupoor-split-k's
/// resolveSlices). Measured with the 64 x 16 x 64 tile (the decode tile
/// then) on an H100 (benchmarks/bench_skinny.py,
/// docs/design/decisions.md#swapped-decode-products), weights from HBM,
/// against the mma.sync 16 x 128 x 128 tile with parallel slices: 1 x 4096
/// x 4096 16.2 us (16.9; cuBLAS f32acc 16.8), 1 x 4096 x 14336 44.4 (46.0;
/// 45.0), 1 x 8192 x 4096 26.3 (28.1; 26.0), 1 x 6144 x 4096 23.1 (23.9;
/// 21.8), 1 x 3072 x 4096 13.1 (13.1; 14.6), the same at M = 16. With fewer
/// tiles (N = 2048: 32) one slice ran 15.0 us against 12.8, and four slices
/// (the rule's) 12.3-12.6 against the mma.sync tile's 13.2 (cuBLAS
/// 12.8-12.9; 16 x 2048 x 5120 the same); two slices of N = 4096 ran 2-7%
/// slower than one. Past a
/// wave, with one block an SM, 1 x 11008 x 4096 ran 41.6 us against 36.9
/// and 1 x 14336 x 4096 46.6 against 43.7; two blocks an SM
/// (wgmmaBlocksPerSM) keep up to two waves' tiles resident: 1 x 14336 x
/// 4096 42.8 us against 43.5 (cuBLAS 42.8), 16 x 14336 x 4096 43.4 against
/// 43.2 (43.5).
///
/// Where 64-row tiles would take slices (N < 33 x 64 on an H100), 32 x 16 x
/// 256 tiles (KernelSpec::mmaRows) take the weight in twice the blocks,
/// without slices from N = 2048, and read 512 bytes of each row a stage
/// (benchmarks/read_floor.cu: a TMA reader of that pattern ran 8.6 us at 2048
/// x 5120 against 10.1 for 64-row tiles). Measured on an H100
/// (bench_skinny.py, docs/design/decisions.md#32-row-decode-tiles), µs against
/// the 64-row tile: 1 x 2048 x 5120 10.4 against 11.1 (four slices), 16 x 2048
/// x 5120 10.3 against 11.2; 1 x 1024 x 4096 7.1 (four slices; eight of 64-row
/// tiles ran 8.1-8.3 the day before); at N = 4096 (no slices either way) 14.0
/// against 13.9.
std::optional<Tile> mlir::gpupoor::policy::selectSwappedTile(
    const CShape &shape, ALayout aLayout, BLayout bLayout, Chip chip, int64_t k,
    std::optional<int64_t> splits, int64_t maxSplits, int64_t smCount) {
  // The swapped kernel reads B as its A and A as its B (swappedLayouts): A
  // as K x M is its B as K x N, whose 8, 16 or 32 columns are one atom of
  // 16-, 32- or 64-byte rows (KernelSpec::bAtomCols). A as M x K of 17 to 32
  // rows keeps kThinTile.
  if (chip != Chip::SM90a || shape.batched || !shape.isStatic())
    return std::nullopt;
  if (shape.m > 32 || (shape.m > 16 && aLayout != ALayout::KM))
    return std::nullopt;
  // 8 to 16 rows of A with B stored K x N: the mma.sync decode tile where
  // its tiles take one slice each (kMmaDecodeKNRows).
  if (mmaDecodeTilePaysKN(shape, aLayout, bLayout, k, smCount))
    return std::nullopt;
  // Past two 64-row tiles an SM the swapped tile keeps a weight stored N x
  // K (A as M x K; A as K x M was not measured there). Through the package
  // on an H100, x cuBLAS f32acc (two blocks an SM: s16w; B as N x K,
  // benchmarks/data/decode_past_two_waves_h100_sm_90a.json): 40 products
  // of 1 to 16 rows, N 17000 to 32000, 1.019 (geomean; 0.930 at worst)
  // against the 16 x 128 and 16 x 256 mma.sync tiles' 0.989 (0.704; the
  // 16 x 128 tile ran 0.70-0.87 at 19000 x 5000); 18 held-out
  // ones (LM heads of 128256 and 151936 columns, K 1536 to 8192, K and N
  // off 64) 1.027 (0.860) against 0.929 (0.630), 1.106x of the old choice
  // (0.989x to 1.521x). With the swapped tile at BK = 64 and one sum a
  // chunk, the mma.sync tiles had streamed it faster.
  //
  // Up to 8 rows of
  // a weight stored K x N stay swapped there too (kWideSwappedKNRows) but for
  // those above (from 8 rows, A as M x K) and where A as M x K takes the
  // 16 x 256 tile (wideDecodeTileFits; A as K x M, which a memref cannot
  // copy, was not measured on it). On an H200, with the swapped tile at BK
  // = 64 then (package, forced families, x cuBLAS f32acc, decisions.md
  // "Swapped decode products of a wide weight stored K x N"): 1-8 x 28672
  // x 8192 0.98-1.00 against 0.93-0.97 for the 16 x 128 tile, 1 x 32000 x
  // 4096 0.98 against 0.92; 16 rows 0.99 against 1.01, 16 x 32000 x 4096
  // 0.97 against 1.02. On an H100 the 16 x 128 tile led from 8 rows, and
  // the 16 x 256 tile led (decisions.md "Decode products of B as K x N on
  // the mma.sync tiles").
  int64_t tiles = ceilDiv(shape.n, 64);
  bool wideKN = bLayout == BLayout::KN && shape.m <= kWideSwappedKNRows &&
                !(aLayout == ALayout::MK &&
                  wideDecodeTileFits(shape, k, chip, smCount, bLayout));
  bool wideNK = bLayout == BLayout::NK && aLayout == ALayout::MK;
  if (!swappedTilesAtMost(shape, 2 * smCount) && !wideKN && !wideNK)
    return std::nullopt;
  // 17 to 32 rows of A as K x M: the swapped 64 x 32 tile, its B as K x N
  // one atom of 64-byte rows (kSwappedKMTile); up to 8 rows the 64 x 8 tile
  // of unswizzled 16-byte rows (kSwappedKM8Tile).
  if (shape.m > 16)
    return kSwappedKMTile;
  if (aLayout == ALayout::KM && shape.m <= kSwappedKM8Tile[1])
    return kSwappedKM8Tile;
  // Where 64-row tiles would meet in slices (under a quarter of the SMs),
  // 32-row tiles of BK = 256 (KernelSpec::mmaRows) spread the weight over
  // twice the blocks, a chunk each K tile (kThinSwappedTile): where the
  // splits are the default and at most that many K tiles, so that no chunk
  // is longer than the default's.
  // (B as K x N is the kernel's A as K x M, in atoms of 64 rows: no
  // 32-row tile; A as K x M its B as K x N, whose atom of 64 columns a
  // stage would hold 256 rows of.)
  if (4 * tiles < smCount && !splits && !isDynamic(k) &&
      bLayout == BLayout::NK && aLayout == ALayout::MK) {
    int64_t kTiles = ceilDiv(k, kThinSwappedTile[2]);
    if (kTiles >= defaultNumSplits(k, maxSplits) && kTiles <= maxSplits)
      return kThinSwappedTile;
  }
  return kSwappedDecodeTile;
}

std::optional<Tile> mlir::gpupoor::policy::swappedRowsTile(
    const CShape &shape, int64_t k, Chip chip, int64_t smCount,
    int64_t askedSlices, ALayout aLayout, BLayout bLayout) {
  if (chip != Chip::SM90a || shape.batched || !shape.isStatic() ||
      isDynamic(k) || askedSlices > 1 || k < kSwappedRowsMinK ||
      shape.m < kSwappedRowsMinRows || shape.m > kSwappedRowsMaxRows ||
      shape.n % 8 != 0 || 3 * ceilDiv(shape.n, kSwappedRowsTile[0]) < smCount)
    return std::nullopt;
  // The transposed product's launch as the kernel configuration sees it
  // (SelectKernelConfig): persistent clusters of four where they pay, as
  // measured; a block a tile in clusters (A's rows on sectors) lost.
  // quadClusterPays also bounds the clusters by those the chip runs at once
  // and takes the reference part's SM count only.
  ConfigProblem p = staticConfigProblem(
      chip, kSwappedRowsTile, shape.transposed(), k,
      swappedLayouts(aLayout, bLayout).second, /*slices=*/1, std::nullopt);
  p.swapped = true;
  if (!quadClusterPays(p, smCount))
    return std::nullopt;
  return kSwappedRowsTile;
}

/// The bounds of swappedFewRowsTile that the product alone sets: static,
/// unbatched, one slice, 33 to 64 rows from K = 2048, C's rows on 16 bytes.
static bool fewRowsShape(const CShape &shape, int64_t k, int64_t askedSlices) {
  bool rows =
      shape.m >= kSwappedFewRowsMinRows && shape.m <= kSwappedFewRowsMaxRows;
  bool longK = !isDynamic(k) && k >= kSwappedFewRowsMinK;
  return !shape.batched && shape.isStatic() && askedSlices <= 1 && rows &&
         longK && shape.n % 8 == 0;
}

std::optional<Tile> mlir::gpupoor::policy::swappedFewRowsTile(
    const CShape &shape, int64_t k, Chip chip, int64_t smCount,
    int64_t askedSlices, ALayout aLayout, BLayout bLayout) {
  if (chip != Chip::SM90a || !fewRowsShape(shape, k, askedSlices))
    return std::nullopt;
  // 64 rows with B stored N x K keep their 64 x 64 tiles, which hold no
  // padding rows then: through the package on an H100 the transposed
  // product ran 0.935x-0.97x of them on five of nine such products (64 x
  // 5000 x 15040, 64 x 5880 x 3520 with A as K x M), at best 0.949 against
  // 0.844 x cuBLAS (benchmarks/data/swapped_rows_h100_sm_90a.json,
  // `few_rows`), where 64 rows of B stored K x N, and 63 rows or fewer,
  // gained.
  if (shape.m == kSwappedFewRowsMaxRows && bLayout == BLayout::NK)
    return std::nullopt;
  // The 64 x 32 tiles of 56 to 64 rows in one wave (kRows64Tile, up to N =
  // 4224) stay: measured against the 64 x 64 tile, not against this one.
  if (selectTile(shape, k, chip, smCount, bLayout, aLayout) == kRows64Tile)
    return std::nullopt;
  // The transposed product's 64-row tiles, in clusters of four that the
  // reference part's GPCs hold at once (as quadClusterPays counts them),
  // from half the SMs; with B stored K x N, but for 64 rows, from a third:
  // below half the SMs (static kernels on an H100, N 2752 to 4160,
  // swapped_rows_h100_sm_90a.json's `under_half` sets) the tile gained on
  // all 16 products of B stored K x N (1.213x geomean, 1.048x at worst),
  // 1.197x on 16 held-out ones (0.908x at worst; under 0.85x cuBLAS 4 ->
  // 0), and lost on three of eight of B stored N x K (0.91x at worst) and
  // on two of four of 64 rows (0.893x).
  const ChipInfo &info = getChipInfo(chip);
  int64_t tiles = ceilDiv(shape.n, kSwappedFillNMajorTile[0]);
  bool fromAThird = bLayout == BLayout::KN && shape.m < kSwappedFewRowsMaxRows;
  if (smCount != info.smCount || (fromAThird ? 3 : 2) * tiles < smCount ||
      ceilDiv(tiles, kSwappedFillClusterM) > info.maxClustersOf4)
    return std::nullopt;
  return kSwappedFillNMajorTile;
}

/// The fewest and most of kSwappedFillTile's columns over A's rows, and the
/// shortest K (swappedFillTile).
static constexpr int64_t kSwappedFillMinColumnTiles = 3;
static constexpr int64_t kSwappedFillMaxColumnTiles = 4;
static constexpr int64_t kSwappedFillMinK = 2048;
static constexpr int64_t kSwappedFillMaxK = 6144;
/// The most clusters of four: on an H200, at 30 (as many as its GPCs hold at
/// once, ChipInfo::maxClustersOf4) 232 x 2560 x 5376 lost (0.836 -> 0.762
/// x cuBLAS), from 32 on (a second wave of clusters) six products ran
/// 0.54-0.86x the rules' speed; up to 28 none lost more than 3%.
static constexpr int64_t kSwappedFillMaxClusters = 28;

std::optional<Tile> mlir::gpupoor::policy::swappedFillTile(
    const CShape &shape, int64_t k, Chip chip, int64_t smCount,
    int64_t askedSlices, ALayout aLayout, BLayout bLayout) {
  if (chip != Chip::SM90a || shape.batched || !shape.isStatic() ||
      isDynamic(k) || askedSlices > 1 || k < kSwappedFillMinK ||
      k > kSwappedFillMaxK || shape.n % 8 != 0)
    return std::nullopt;
  int64_t columnTiles = ceilDiv(shape.m, kSwappedFillTile[1]);
  if (columnTiles < kSwappedFillMinColumnTiles ||
      columnTiles > kSwappedFillMaxColumnTiles)
    return std::nullopt;
  // The transposed product's blocks: whole clusters of row tiles
  // (launchTiles), which the reference part's GPCs hold at once (its SM
  // count only, as quadClusterPays).
  auto clustersOf = [&](const Tile &tile) {
    return launchTiles(shape.transposed(), tile, kSwappedFillClusterM) /
           kSwappedFillClusterM;
  };
  int64_t clusters = clustersOf(kSwappedFillTile);
  if (smCount != getChipInfo(chip).smCount ||
      clusters > kSwappedFillMaxClusters ||
      2 * clusters * kSwappedFillClusterM < smCount)
    return std::nullopt;
  // A as K x M and B as K x N: 64 columns of the transposed product's
  // N-major B a tile where their clusters fit the chip's at once.
  if (aLayout == ALayout::KM && bLayout == BLayout::KN &&
      clustersOf(kSwappedFillNMajorTile) <= getChipInfo(chip).maxClustersOf4)
    return kSwappedFillNMajorTile;
  return kSwappedFillTile;
}
