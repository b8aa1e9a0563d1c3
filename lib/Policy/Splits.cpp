//===- Splits.cpp - how K is cut and how the cuts meet --------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/Splits.h"

#include "PolicyUtils.h"
#include "gpupoor/Policy/Tiles.h"

#include <algorithm>

using namespace mlir::gpupoor::policy;

int64_t mlir::gpupoor::policy::defaultNumSplits(int64_t k, int64_t maxSplits) {
  // ceil(k / 32) without overflowing near INT64_MAX.
  int64_t numKBlocks = ceilDiv(std::max<int64_t>(k, 0), kSplitRuleBlock);
  // floor(sqrt(n)) in integers: exact where a double sqrt could round up.
  // Past maxSplits the result clamps to maxSplits: stop there (a static K
  // near 2^63 would otherwise take billions of steps).
  int64_t root = 0;
  while (root < maxSplits && (root + 1) * (root + 1) <= numKBlocks)
    ++root;
  int64_t splits = 1;
  while (splits < root)
    splits *= 2;
  if (numKBlocks >= kLongKRuleBlocks)
    splits = std::max(splits, kMinLongKSplits);
  return std::clamp<int64_t>(splits, 1, std::max<int64_t>(maxSplits, 1));
}

int64_t mlir::gpupoor::policy::longestChunk(Chip chip, const Tile &tile) {
  // Where shorter chunks measured (nearly) free (Splits.h): the decode
  // tiles, sm_90a's 32-row tile (its own, not other 32-row tiles named
  // through options, which were not measured) and its 128 x 256 one.
  bool shortChunks = (chip == Chip::SM90 || chip == Chip::SM90a) &&
                     (std::min(tile[0], tile[1]) <= 16 ||
                      (chip == Chip::SM90a && tile == kThinTile));
  if (shortChunks)
    return std::max(kDecodeChunk, tile[2]);
  if (chip == Chip::SM90a && tile[0] == 128 && tile[1] == 256)
    return std::max(kWideTileChunk, tile[2]);
  return 0;
}

std::vector<mlir::gpupoor::policy::SplitRuleParam>
mlir::gpupoor::policy::splitRuleParams(Chip chip, const Tile &tile,
                                       int64_t maxSplits) {
  std::vector<SplitRuleParam> params = {
      {"rule_block", kSplitRuleBlock},
      {"long_k_rule_blocks", kLongKRuleBlocks},
      {"min_long_k_splits", kMinLongKSplits},
      {"max_splits", maxSplits}};
  if (int64_t chunk = longestChunk(chip, tile))
    params.push_back({"longest_chunk", chunk});
  return params;
}

int64_t mlir::gpupoor::policy::accumulatorSets(Chip chip, const Tile &tile) {
  // One consumer warpgroup (BM <= 64) and at most 32 columns (the narrow
  // tile too, kNarrowTile, unswapped): the swapped
  // tiles, whose sums of 4 sets fit beside the next chunk's
  // (KernelSpec::kDeferredHandoverMaxBN).
  bool swappedTile = chip == Chip::SM90a && tile[0] <= 64 && tile[1] <= 32;
  if (swappedTile)
    return std::clamp<int64_t>(tile[2] / 16, 1, kDecodeSets);
  // sm_90's 16-row decode tiles (the mma.sync kernel that sm_90a runs
  // them on): four sums alternating over a K tile's k16 steps, within the
  // fragments KernelSpec::kMmaSetFragments lets their 16 x 32 and 16 x 64
  // warp tiles keep (kMmaDecodeSets).
  if (chip == Chip::SM90 && tile[0] == 16 && tile[2] >= 16 * kMmaDecodeSets &&
      (tile[1] == 128 || tile[1] == kWideDecodeTile[1]))
    return kMmaDecodeSets;
  // The 32-row tile: as many sums as its 64 columns leave registers for
  // beside the next chunk's (kThinTileSets).
  return chip == Chip::SM90a && tile == kThinTile ? kThinTileSets : 1;
}

int64_t mlir::gpupoor::policy::chunkSets(Chip chip, const Tile &tile, int64_t k,
                                         int64_t splits, bool batched) {
  int64_t sets = accumulatorSets(chip, tile);
  bool longChunks =
      !isDynamic(k) && !isDynamic(splits) && splits > 0 &&
      ceilDiv(std::max<int64_t>(k, 0), splits) >= kLongChunkSetsMinChunk;
  if (chip == Chip::SM90a && tile == Tile{64, 64, 64} && longChunks && !batched)
    return kLongChunkSets;
  return sets;
}

int64_t mlir::gpupoor::policy::tileNumSplits(Chip chip, const Tile &tile,
                                             int64_t k, int64_t maxSplits) {
  int64_t splits = defaultNumSplits(k, maxSplits);
  int64_t chunk = longestChunk(chip, tile);
  if (!chunk)
    return splits;
  int64_t chunks = ceilDiv(std::max<int64_t>(k, 0), chunk);
  return std::clamp<int64_t>(std::max(splits, chunks), 1,
                             std::max<int64_t>(maxSplits, 1));
}

int64_t mlir::gpupoor::policy::tileCount(int64_t batch, int64_t m, int64_t n,
                                         int64_t bm, int64_t bn) {
  int64_t tiles = 0;
  if (__builtin_mul_overflow(ceilDiv(m, bm), ceilDiv(n, bn), &tiles) ||
      __builtin_mul_overflow(tiles, batch, &tiles))
    return std::numeric_limits<int64_t>::max();
  return tiles;
}

int64_t mlir::gpupoor::policy::numSlices(int64_t slices, int64_t tiles,
                                         int64_t splits, int64_t smCount,
                                         int64_t blocksPerSM,
                                         int64_t oneSliceShare, bool longK) {
  int64_t most = std::clamp<int64_t>(splits, 1, kMaxSlices);
  if (slices > 0)
    return std::clamp<int64_t>(slices, 1, most);
  tiles = std::max<int64_t>(tiles, 1);
  int64_t one = std::clamp<int64_t>(smCount / tiles, 1, most);
  // T Q >= SMs, without overflowing for a huge T.
  if (oneSliceShare > 0 && tiles >= ceilDiv(smCount, oneSliceShare))
    return longK ? one : 1;
  int64_t wave = std::clamp<int64_t>(blocksPerSM * smCount / tiles, 1, most);
  return wave > 2 * one ? wave : one;
}

int64_t mlir::gpupoor::policy::sliceBlocksPerSM(Chip chip, const Tile &tile) {
  bool twoWarpgroups = chip == Chip::SM90a && tile[0] >= 128;
  bool eightWarps = tile[0] * tile[1] >= 128 * 256;
  return twoWarpgroups || eightWarps ? 1 : 2;
}

int64_t mlir::gpupoor::policy::mostSumSlots(Chip chip, const Tile &tile,
                                            int64_t smCount) {
  return sliceBlocksPerSM(chip, tile) * smCount;
}

int64_t mlir::gpupoor::policy::sliceOneSliceShare(Chip chip, const Tile &tile) {
  return chip == Chip::SM90a && tile[0] <= 64 ? 3 : 0;
}

int64_t mlir::gpupoor::policy::launchSlices(int64_t slices, Chip chip,
                                            const Tile &tile, int64_t k,
                                            int64_t tiles, int64_t splits,
                                            int64_t smCount) {
  if (slices == 0 && slicesNeedLongK(chip) && !isDynamic(k) &&
      k < kMinWgmmaSliceK)
    return 1;
  return numSlices(slices, tiles, splits, smCount, sliceBlocksPerSM(chip, tile),
                   sliceOneSliceShare(chip, tile),
                   !isDynamic(k) && k >= kLongKShareK);
}
