//===- KernelConfig.cpp - how a kernel is configured ----------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/KernelConfig.h"
#include "gpupoor/Policy/Tiles.h"

#include "PolicyUtils.h"

#include <algorithm>

using namespace mlir::gpupoor::policy;

/// Shared memory a one-warpgroup wgmma block fills with stages when it has
/// an SM to itself (wgmmaStages).
static constexpr int64_t kOneBlockStageBytes = 192 * 1024;
static_assert(kSwappedDecodeClusterStages *
                      (kSwappedKMTile[0] + kSwappedKMTile[1]) *
                      kSwappedKMTile[2] * 2 <=
                  kOneBlockStageBytes,
              "clusterStages' stages of the widest swapped decode tile fit");
/// The most stages of a two-warpgroup tile (BM = 128), which fills an SM's
/// registers: one block an SM whatever its stages.
static constexpr int64_t kTwoWarpgroupStages = 6;
/// The most stages of a one-warpgroup tile: a swapped 64 x 16 x 64 tile (10
/// KiB a stage) would fit 19 with an SM to itself.
static constexpr int64_t kOneWarpgroupMaxStages = 12;

int64_t mlir::gpupoor::policy::mmaStages(const Tile &tile) {
  bool smallMk64 = tile[0] < 128 && tile[2] == 64;
  return tile[2] >= 64 && !smallMk64 ? 3 : 4;
}

WarpLayout mlir::gpupoor::policy::mmaWarps(const Tile &tile, bool asyncCopies) {
  int64_t bm = tile[0], bn = tile[1], bk = tile[2];
  bool eightWarps =
      asyncCopies && bm % 64 == 0 && bn % 64 == 0 && (bm / 64) * (bn / 64) == 8;
  bool smallM = bm < 64;
  int64_t smallWarpsN = 4;
  while (smallWarpsN > 1 && (bm * bk / 8 % (32 * smallWarpsN) != 0 ||
                             bn % (16 * smallWarpsN) != 0))
    smallWarpsN /= 2;
  if (eightWarps)
    return {bm / 64, bn / 64, true};
  if (smallM)
    return {1, smallWarpsN, false};
  return {2, asyncCopies ? 2 : 4, false};
}

bool mlir::gpupoor::policy::mmaWarpsWiden(Chip chip, const Tile &tile,
                                          const WarpLayout &layout,
                                          bool asyncCopies,
                                          int64_t sharedBytes) {
  const ChipInfo &info = getChipInfo(chip);
  return !layout.eightWarps && asyncCopies && tile[0] % 32 == 0 &&
         tile[1] % 32 == 0 &&
         2 * (sharedBytes + info.reservedSharedPerBlock) > info.sharedPerSM;
}

int64_t mlir::gpupoor::policy::sharedOuterRows(bool f16Outer, int64_t warpN,
                                               int64_t mTiles) {
  return !f16Outer && warpN >= 64 ? mTiles / 2 : 0;
}

bool mlir::gpupoor::policy::mmaHandoverPays(bool f16Outer, int64_t warpsM,
                                            int64_t warpsN, int64_t warpM,
                                            int64_t warpN) {
  return !f16Outer && warpsM * warpsN == 8 && warpM == 64 && warpN == 64;
}

bool mlir::gpupoor::policy::f16OuterIsExact(const ConfigProblem &p,
                                            bool f32Outer, bool f16C,
                                            bool hasEpilogue) {
  if (!f32Outer || !f16C || hasEpilogue)
    return false;
  // The f16 sums that meet: S chunks of `sets` each.
  int64_t chunks = 2 / std::max<int64_t>(p.sets, 1);
  if (!chunks)
    return false;
  if (p.splits && *p.splits <= chunks)
    return true;
  return !isDynamic(p.k) && ceilDiv(p.k, p.tile[2]) <= chunks;
}

bool mlir::gpupoor::policy::gridExceedsSMs(const ConfigProblem &p) {
  if (!p.staticShape || p.slices == 0)
    return false;
  return gridExceedsSMs(p.tiles, p.slices, getChipInfo(p.chip).smCount);
}

bool mlir::gpupoor::policy::gridExceedsSMs(int64_t tiles, int64_t slices,
                                           int64_t smCount) {
  int64_t blocks = 0;
  return __builtin_mul_overflow(tiles, slices, &blocks) || blocks > smCount;
}

int64_t mlir::gpupoor::policy::wgmmaBlocksPerSM(const ConfigProblem &p) {
  return wgmmaBlocksPerSM(p.tile, gridExceedsSMs(p));
}

/// The fewest stages of the wgmma kernel (a tile's wgmma still reads the
/// previous stage: KernelSpec::verify).
static constexpr int64_t kMinWgmmaStages = 3;

/// The largest cluster along M (KernelSpec::verify): a narrow N-major B's
/// (clusterBlocks).
static constexpr int64_t kMaxNarrowBClusterM = 4;

int64_t mlir::gpupoor::policy::wgmmaBlocksPerSM(const Tile &tile,
                                                bool gridExceedsSMs) {
  int64_t stageBytes = (tile[0] + tile[1]) * tile[2] * 2;
  bool twoFit = 2 * kMinWgmmaStages * stageBytes <= kOneBlockStageBytes;
  return tile[0] <= 64 && gridExceedsSMs && twoFit ? 2 : 1;
}

int64_t mlir::gpupoor::policy::wgmmaStages(Chip chip, const Tile &tile,
                                           int64_t stageBytes,
                                           int64_t barrierBytes,
                                           int64_t blocksPerSM) {
  int64_t fit =
      getChipInfo(chip).maxSharedPerBlock / (stageBytes + barrierBytes);
  int64_t most = kTwoWarpgroupStages;
  if (tile[0] < 128) {
    // As many bytes of A in flight as 12 stages of 64 x 64.
    most = std::min(kOneWarpgroupMaxStages * 64 * 64 / (tile[0] * tile[2]),
                    kOneBlockStageBytes / blocksPerSM / stageBytes);
  }
  return std::clamp<int64_t>(fit, kMinWgmmaStages,
                             std::max(most, kMinWgmmaStages));
}

int64_t mlir::gpupoor::policy::clusterStages(const ConfigProblem &p,
                                             int64_t clusterM,
                                             int64_t blocksPerSM,
                                             int64_t stages) {
  if (p.tile == kSwappedFillNMajorTile && clusterM == kSwappedFillClusterM)
    return std::min(stages, kSwappedFillNMajorStages);
  // A cluster's four blocks share each stage's activation tile (the kernel's
  // B) by multicast and wait on each other's stages; 8 stages of the weight
  // ran faster than the 6 that paid for one block alone (measured, not
  // derived: kSwappedDecodeClusterStages).
  // (One block an SM: two would not fit 8 stages each.)
  if (p.chip == Chip::SM90a && p.swapped && p.narrowNMajorB &&
      isSwappedDecodeKMTile(p.tile) && clusterM == kMaxNarrowBClusterM &&
      blocksPerSM == 1)
    return std::max(stages, kSwappedDecodeClusterStages);
  return stages;
}

bool mlir::gpupoor::policy::persistentPays(const ConfigProblem &p,
                                           int64_t smCount) {
  bool wide = p.tile == kThreeWarpgroupWideTile;
  return (p.tile[0] == 128 || wide) && p.staticShape && p.slices != 0 &&
         (gridExceedsSMs(p.tiles, p.slices, smCount) ||
          oneWavePersistentPays(p));
}

bool mlir::gpupoor::policy::oneWavePersistentPays(const ConfigProblem &p) {
  // Where C's rows take 16-byte vectors (the persistent kernel's TMA
  // stores): else the non-persistent read-back's 8- and 4-byte vectors ran
  // faster (904 x 3796 x 1398 1.435 against 1.292 x cuBLAS).
  return p.tile[0] == 128 && (p.tile[1] == 128 || p.tile[1] == 256) &&
         !p.swapped && p.staticShape && !p.batched && p.slices == 1 &&
         !isDynamic(p.k) && p.k <= kOneWavePersistentMaxK && !isDynamic(p.n) &&
         p.n % 8 == 0;
}

bool mlir::gpupoor::policy::persistentPays(const ConfigProblem &p) {
  return persistentPays(p, getChipInfo(p.chip).smCount);
}

bool mlir::gpupoor::policy::streamKPays(int64_t tiles, int64_t smCount,
                                        int64_t k) {
  if (isDynamic(k) || smCount <= 0 || tiles <= smCount || tiles % smCount == 0)
    return false;
  int64_t left = tiles % smCount;
  int64_t sharing = std::min(smCount, kStreamKPiecesPerTile * left);
  int64_t run =
      tiles < 2 * smCount ? kMinStreamKRun : kMinStreamKRunPastTwoWaves;
  // 3 R <= 2 G, and R K / G' >= the run.
  return 3 * left <= 2 * smCount && k >= ceilDiv(run * sharing, left);
}

bool mlir::gpupoor::policy::streamKPays(const ConfigProblem &p,
                                        int64_t smCount) {
  return p.chip == Chip::SM90a && !p.batched && p.slices == 1 &&
         p.tile[0] == 128 && persistentPays(p, smCount) &&
         !clusterPays(p, smCount) && streamKPays(p.tiles, smCount, p.k);
}

bool mlir::gpupoor::policy::streamKPays(const ConfigProblem &p) {
  return streamKPays(p, getChipInfo(p.chip).smCount);
}

bool mlir::gpupoor::policy::splitHandoverPays(const ConfigProblem &p,
                                              int64_t smCount) {
  if (p.batched || !p.staticShape || !p.splits || isDynamic(p.k))
    return false;
  int64_t kTiles = ceilDiv(p.k, p.tile[2]);
  int64_t chunks = std::min(*p.splits, kTiles);
  return kTiles >= 2 * chunks &&
         (p.tiles <= 2 * smCount || p.tile[1] < kWideSplitHandoverColumns);
}

bool mlir::gpupoor::policy::splitHandoverPays(const ConfigProblem &p) {
  return splitHandoverPays(p, getChipInfo(p.chip).smCount);
}

bool mlir::gpupoor::policy::rowsSectorAligned(int64_t n, int64_t k) {
  return n % kSectorElems == 0 && k % kSectorElems == 0;
}

bool mlir::gpupoor::policy::clusterShapeOffSectors(int64_t m, int64_t n,
                                                   int64_t k,
                                                   int64_t tileRows) {
  return !rowsSectorAligned(n, k) && ceilDiv(m, tileRows) >= 2;
}

bool mlir::gpupoor::policy::clusterPays(const ConfigProblem &p) {
  return clusterPays(p, getChipInfo(p.chip).smCount);
}

bool mlir::gpupoor::policy::clusterPays(const ConfigProblem &p,
                                        int64_t smCount) {
  if (p.chip != Chip::SM90a || !p.staticShape || p.batched || p.slices != 1 ||
      isDynamic(p.m) || isDynamic(p.n) || isDynamic(p.k))
    return false;
  bool tile = (p.tile[0] == 64 || p.tile[0] == 128) && p.tile[1] >= 128;
  if (!tile || !clusterShapeOffSectors(p.m, p.n, p.k, p.tile[0]) ||
      wgmmaBlocksPerSM(p) != 1)
    return false;
  // B's rows on sectors (K long as N x K, N long as K x N) while the
  // product's other rows are not: the multicast shares B's tile, so where
  // the clusters' whole pairs of row tiles take a wave more than the tiles
  // alone, none, and the tile rules that count launched tiles (wideTile,
  // widerTileForOneWave) weigh the tiles alone (H200, static kernels, after
  // / before on random such products: B as N x K 1.066x geomean over 46,
  // 0.926x at worst, 1.029x on the 14 drawn after the rule took its final
  // form; B as K x N and A as K x M, drawn after it, 1.114x over 24, 0.984x
  // at worst;
  // docs/design/decisions.md#clusters-of-b-on-sectors-that-add-a-wave).
  // A 128 x 128 tile past one wave keeps them: it reads the most bytes a
  // flop, and such persistent grids alone ran 0.937x geomean over seven
  // (0.786-1.194x; 2914 x 5748 x 6352 0.807x). Clusters that add no wave stay
  // too: without them such products ran up to 17% slower (906 x 1420 x 4832,
  // one wave of 128 x 128; persistent grids up to 11%).
  int64_t bRows = p.bLayout == BLayout::NK ? p.k : p.n;
  if (bRows % kSectorElems == 0 && smCount > 0) {
    CShape shape{/*batched=*/false, /*batch=*/1, p.m, p.n};
    int64_t alone = launchTiles(shape, p.tile, 1);
    int64_t paired = launchTiles(shape, p.tile, 2);
    bool keeps = p.tile[0] == 128 && p.tile[1] == 128 && alone > smCount;
    if (!keeps && ceilDiv(paired, smCount) > ceilDiv(alone, smCount))
      return false;
  }
  return true;
}

bool mlir::gpupoor::policy::quadClusterPays(const ConfigProblem &p,
                                            int64_t smCount) {
  // The clusters a chip holds at once follow its GPCs, measured on the
  // reference part only: another SM count keeps clusters of two.
  const ChipInfo &chip = getChipInfo(p.chip);
  if (p.tile[0] != 64 || p.tile[1] != 128 || smCount != chip.smCount ||
      !clusterPays(p, smCount))
    return false;
  int64_t rowTiles = ceilDiv(p.m, p.tile[0]);
  int64_t clusters = ceilDiv(rowTiles, 4) * ceilDiv(p.n, p.tile[1]);
  return rowTiles >= 4 && clusters <= chip.maxClustersOf4;
}

bool mlir::gpupoor::policy::quadClusterPays(const ConfigProblem &p) {
  return quadClusterPays(p, getChipInfo(p.chip).smCount);
}

bool mlir::gpupoor::policy::narrowNMajorB(Chip chip, BLayout bLayout,
                                          const Tile &tile) {
  return chip == Chip::SM90a && bLayout == BLayout::KN &&
         tile[1] < kSwizzleCols;
}

ConfigProblem mlir::gpupoor::policy::staticConfigProblem(
    Chip chip, const Tile &tile, const CShape &shape, int64_t k,
    BLayout bLayout, int64_t slices, std::optional<int64_t> splits) {
  ConfigProblem p;
  p.chip = chip;
  p.tile = tile;
  p.staticShape = true;
  p.tiles = shape.tiles(tile[0], tile[1]);
  p.batched = shape.batched;
  p.slices = slices;
  p.splits = splits;
  p.k = k;
  p.m = shape.m;
  p.n = shape.n;
  p.narrowNMajorB = narrowNMajorB(chip, bLayout, tile);
  p.bLayout = bLayout;
  return p;
}

int64_t mlir::gpupoor::policy::clusterBlocks(const ConfigProblem &p,
                                             int64_t blocksPerSM) {
  return clusterBlocks(p, blocksPerSM, getChipInfo(p.chip).smCount);
}

int64_t mlir::gpupoor::policy::clusterBlocks(const ConfigProblem &p,
                                             int64_t blocksPerSM,
                                             int64_t smCount) {
  // The transposed product of few rows: its clusters share A's tile
  // (swappedFillTile).
  if (p.swapped && isSwappedFillTile(p.tile))
    return p.chip == Chip::SM90a && p.staticShape && !p.batched &&
                   p.slices == 1 && blocksPerSM == 1
               ? kSwappedFillClusterM
               : 1;
  if (!p.narrowNMajorB) {
    if (blocksPerSM != 1 || !clusterPays(p, smCount))
      return 1;
    return quadClusterPays(p, smCount) ? 4 : 2;
  }
  // (A cluster shares B among its row tiles: as many as its blocks, or a
  // thin tile's one row tile would run beside empty ones.)
  if (p.chip != Chip::SM90a || !p.staticShape || p.batched || p.slices != 1 ||
      isDynamic(p.m) || ceilDiv(p.m, p.tile[0]) < kMaxNarrowBClusterM)
    return 1;
  if (blocksPerSM == 2)
    return 2;
  // Clusters of four where the tiles fill at most three quarters of the
  // SMs, else of two.
  return 4 * p.tiles <= 3 * getChipInfo(p.chip).smCount ? kMaxNarrowBClusterM
                                                        : 2;
}
