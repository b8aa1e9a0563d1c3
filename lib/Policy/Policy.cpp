//===- Policy.cpp - every decision of a gpupoor product, in one place -----===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/Policy.h"

#include "PolicyUtils.h"
#include "gpupoor/Policy/Checks.h"
#include "gpupoor/Policy/KernelConfig.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <tuple>

using namespace mlir::gpupoor::policy;

/// The S that selectTile's filling tiles and the rules' tile are costed
/// with: the problem's, else each tile's own default (FillSplits); none (no
/// filling tile) where the slices are asked for or K is dynamic.
static std::optional<FillSplits> fillSplits(const Problem &p,
                                            int64_t askedSlices) {
  if (askedSlices != 0 || isDynamic(p.k))
    return std::nullopt;
  return FillSplits{p.splits, p.maxSplits};
}

/// The tile the rules give the transposed product C^T = B^T A^T (a swap
/// asked for without a tile): selectTile's for the transposed shape and the
/// exchanged layouts.
static Tile transposedTile(const Problem &p, int64_t askedSlices) {
  auto [aLayout, bLayout] = swappedLayouts(p.aLayout, p.bLayout);
  return selectTile(p.shape.transposed(), p.k, p.chip, p.sms(), bLayout,
                    aLayout, fillSplits(p, askedSlices));
}

Strategy mlir::gpupoor::policy::chooseStrategy(const Problem &problem) {
  // An A stored K x M that is copied first: the M x K product's strategy.
  // On sm_90a one whose rows lie off 16 bytes is otherwise copied as it
  // lies into padded rows (Strategy::padsA): the same bytes as the
  // transposing copy, moved by the row-copy kernel (torch's transposing
  // copy_ of a 5120 x 5500 A took 194 us on an H200, a copy of it as it
  // lies 38 us). Elsewhere, not measured, it is copied M x K as before.
  bool kmCopy = problem.aLayout == ALayout::KM && problem.canCopyA;
  bool offRows = kmCopy && !problem.aRowsAligned;
  bool copiesA = kmCopy && (copiesKMajorA(problem) ||
                            (offRows && problem.chip != Chip::SM90a));
  Problem copied = problem;
  if (copiesA)
    copied.aLayout = ALayout::MK;
  const Problem &p = copied;
  int64_t sms = p.sms();
  // sm_90a's wgmma kernel takes A as M x K; other products get the
  // mma.sync kernel, which runs on sm_90a as on sm_90, and its tile.
  Chip chip = kernelChip(p.chip, p.aLayout, p.bLayout, p.tile);
  Strategy s;
  s.copiesA = copiesA;
  s.padsA = offRows && !copiesA;
  // A measured choice where the tuned table has one: its family's tile.
  std::optional<TunedChoice> tuned = tunedChoice(p);
  // But the rules' filling tile over a row of the table (tuned before the
  // rules had one): on an H200 it beat the row's 128 x 128 tile where it
  // applies (docs/design/decisions.md#64-row-tiles-that-fill-one-wave).
  // And their 64 x 32 tile of 56 to 64 rows (kRows64Tile), tuned after the
  // table, level with its 64 x 64 tile in speed with four f16 sums for one
  // (docs/design/decisions.md#a-32-column-tile-for-56-to-64-rows).
  // (The rules give no filling tile up to 64 rows, nor kRows64Tile past.)
  if (tuned && !p.forced && !p.tile && p.swap != true &&
      (p.shape.m > 128 || p.shape.m <= 64)) {
    Tile rules = selectTile(p.shape, p.k, chip, sms, p.bLayout, p.aLayout,
                            fillSplits(p, p.slices));
    if (isFillingTile(rules) || rules == kRows64Tile)
      tuned.reset();
  }
  // A swap asked for overrides a table row that says otherwise.
  if (tuned && p.swap && familySwapped(tuned->family) != *p.swap)
    tuned.reset();
  s.tuned = tuned.has_value();
  s.askedSlices = p.slices ? p.slices : (tuned ? tuned->slices : 0);
  // A decode product may run transposed; its tile and slices are then the
  // swapped product's.
  std::optional<Tile> swappedTile;
  if (tuned && familySwapped(tuned->family))
    swappedTile = familyTile(tuned->family, p.chip, p.bLayout);
  else if (p.swap == true && p.tile)
    swappedTile = *p.tile;
  else if (!p.tile && !tuned && p.swap != false)
    swappedTile = selectSwappedTile(p.shape, p.aLayout, p.bLayout, chip, p.k,
                                    p.splits, p.maxSplits, sms);
  // Few rows whose 64-row tiles leave SMs idle, or 33 to 128 rows whose
  // 64-row tiles read the weight more than once (the transposed product in
  // clusters), or 128 x 128 tiles whose clusters spill a wave where the
  // transposed product's fit it: that product, in one slice.
  if (!swappedTile && !p.tile && !tuned && p.swap != false) {
    swappedTile = swappedFillTile(p.shape, p.k, chip, sms, s.askedSlices,
                                  p.aLayout, p.bLayout);
    if (!swappedTile)
      swappedTile = swappedRowsTile(p.shape, p.k, chip, sms, s.askedSlices,
                                    p.aLayout, p.bLayout);
    if (!swappedTile)
      swappedTile = swappedFewRowsTile(p.shape, p.k, chip, sms, s.askedSlices,
                                       p.aLayout, p.bLayout);
    if (!swappedTile)
      swappedTile = swappedMidTile(p.shape, p.k, chip, sms, s.askedSlices);
    if (swappedTile)
      s.askedSlices = 1;
  }
  // A swap asked for where the rules have none: the tile they give the
  // transposed shape.
  if (!swappedTile && p.swap == true)
    swappedTile = transposedTile(p, s.askedSlices);
  s.swapped = swappedTile.has_value();
  CShape shape = s.swapped ? p.shape.transposed() : p.shape;
  if (s.swapped)
    s.tile = *swappedTile;
  else if (tuned)
    s.tile = familyTile(tuned->family, p.chip, p.bLayout);
  else
    s.tile = p.tile ? *p.tile
                    : selectTile(shape, p.k, chip, sms, p.bLayout, p.aLayout,
                                 fillSplits(p, s.askedSlices));
  // A decode tile chosen for sm_90a is the mma.sync kernel's; a swapped
  // one reads the operands exchanged.
  auto [aLayout, bLayout] = s.swapped ? swappedLayouts(p.aLayout, p.bLayout)
                                      : std::pair(p.aLayout, p.bLayout);
  // (From the chip asked for: a tile asked for the transposed product may
  // be one the wgmma kernel does not take as the product stands.)
  s.chip = kernelChip(p.chip, aLayout, bLayout, s.tile);
  s.splits = p.splits;
  // With a static K the rule is evaluated now, so the IR says what runs.
  if (!s.splits && !isDynamic(p.k))
    s.splits = tileNumSplits(s.chip, s.tile, p.k, p.maxSplits);
  s.sets = chunkSets(s.chip, s.tile, p.k, s.splits.value_or(kDynamic),
                     p.shape.batched);
  // An A copied from K x M on the swapped decode tile: a sum a k16 step
  // (kCopiedDecodeSets), where cuBLAS f16acc errs least.
  if ((copiesA || problem.aCopiedFromKM) && s.swapped &&
      s.chip == Chip::SM90a && s.tile == kSwappedDecodeTile && !p.shape.batched)
    s.sets = kCopiedDecodeSets;
  // P' where the types settle it: min(P, S) for a static S, and for P = 0
  // the automatic count of a static shape; else P, which the host code
  // resolves at run time.
  s.slices = s.askedSlices;
  if (s.splits && s.askedSlices > 0)
    s.slices = std::min(s.askedSlices, *s.splits);
  else if (s.splits && shape.isStatic())
    s.slices = launchSlices(0, s.chip, s.tile, p.k,
                            shape.tiles(s.tile[0], s.tile[1]), *s.splits, sms);
  return s;
}

bool mlir::gpupoor::policy::copiesKMajorA(const Problem &p) {
  int64_t m = p.shape.m;
  if (isDynamic(m))
    return false;
  if (p.chip != Chip::SM90a)
    return m <= 64;
  if (m > 32)
    return false;
  // 17 to 31 rows start off 32-byte sectors (rowsSectorAligned), which
  // 64-row tiles read at 0.54-0.63 of cuBLAS; fewer than 16 rows leave
  // part of every row of the swapped kernel's box of B out of bounds,
  // which TMA fills slowly, but 8, the box of the 8-column swapped tile
  // (kSwappedKM8Tile), read as they lie up to two blocks an SM's tiles:
  // every tile reads all of A in 16-byte rows, and past those (B as K x N
  // of 28672 columns, 448 tiles) the copy and the 16-column tile ran 0.979
  // of cuBLAS against 0.915 (H200, docs/design/decisions.md, "Decode
  // products of 8 rows of A as K x M"); the copy now takes the 16 x 256
  // tile there (wideDecodeTileFits).
  if (m % kSectorElems != 0 &&
      (m != kSwappedKM8Tile[1] || !swappedTilesAtMost(p.shape, 2 * p.sms())))
    return true;
  // 8, 16 or 32 rows: read as they lie where the rules run the product
  // swapped (a tile named in the options, or swap = false, runs it
  // unswapped).
  if (!p.tile && p.swap != false &&
      selectSwappedTile(p.shape, ALayout::KM, p.bLayout, p.chip, p.k, p.splits,
                        p.maxSplits, p.sms()))
    return false;
  return m <= 16 || (!isDynamic(p.k) && p.k > kCopiedThinAK);
}

bool mlir::gpupoor::policy::withinSizeLimits(const CShape &shape, int64_t k) {
  // The elements of an operand of static sizes `sizes` (an empty one holds
  // none, whatever its other sizes), counted by division: no overflow.
  auto fits = [](std::initializer_list<int64_t> sizes) {
    if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end())
      return true;
    int64_t total = 1;
    for (int64_t size : sizes) {
      if (isDynamic(size))
        continue;
      if (size < 0 || size > kMaxOperandElements / total)
        return false;
      total *= size;
    }
    return true;
  };
  int64_t batch = shape.batched ? shape.batch : 1;
  return fits({batch, shape.m, shape.n}) && fits({batch, shape.m, k}) &&
         fits({batch, k, shape.n});
}

int64_t mlir::gpupoor::policy::paddedRowElems(int64_t cols) {
  return cols % 8 == 0 ? cols : ceilDiv(cols, kSectorElems) * kSectorElems;
}

int64_t mlir::gpupoor::policy::rowAlignBytes(int64_t offsetElems,
                                             int64_t rowStride,
                                             int64_t batchStride) {
  int64_t bytes = kRowAlignBytes;
  // (elems % (bytes / 2): elems * 2 may overflow; C++'s % of a negative
  // multiple is 0 too.)
  for (int64_t elems : {offsetElems, rowStride, batchStride})
    while (bytes > 2 && elems % (bytes / 2) != 0)
      bytes /= 2;
  return bytes;
}

/// Whether `l` runs sm_90a's swapped decode tile with A as M x K (whose
/// B the kernel reads as N x K): the launch the element-kernel rules
/// (elementReadsDecode, copiesUnalignedOperands) were measured on.
static bool swappedDecodeLaunch(const Launch &l) {
  return l.chip == Chip::SM90a && l.swapped && l.tile == kSwappedDecodeTile &&
         l.aLayout == ALayout::MK;
}

bool mlir::gpupoor::policy::copiesUnalignedOperands(const Problem &p,
                                                    int64_t aRowBytes,
                                                    int64_t bRowBytes) {
  const CShape &shape = p.shape;
  if (isDynamic(shape.m) || isDynamic(shape.n) || isDynamic(p.k))
    return false;
  bool copiesA = aRowBytes < kRowAlignBytes;
  bool copiesB = bRowBytes < kRowAlignBytes;
  if (!(copiesA || copiesB))
    return false;
  int64_t narrow = std::min(shape.m, shape.n);
  int64_t pieceBytes = std::min(copiesA ? aRowBytes : kRowAlignBytes,
                                copiesB ? bRowBytes : kRowAlignBytes);
  // One row (column): the other operand, the weight, is read once, in
  // pieces as fast as copied; an element at a time (rows of 2 bytes) not,
  // whatever the work.
  if (narrow <= 1)
    return (shape.m <= 1 ? bRowBytes : aRowBytes) < 4;
  // (By division: M x N x K need not fit 64 bits.)
  if (p.k < ceilDiv(ceilDiv(kMinCopiedWork, shape.m), shape.n))
    return false;
  // The pieces' rules are sm_90a's, where they were measured; other chips'
  // kernels and families keep the copies, as does a dynamic batch, whose
  // launch is not known.
  if (p.chip != Chip::SM90a || !shape.isStatic() ||
      narrow > kPieceReadWaveRows || pieceBytes < 4)
    return true;
  // In doubles: a heuristic's comparison, whose products may pass 2^63. The
  // counts are a batch element's, as the copies' threshold was measured.
  double m = shape.m, n = shape.n, k = p.k;
  double copied = (copiesA ? m * k : 0) + (copiesB ? k * n : 0);
  double all = m * k + k * n + m * n;
  // The pieces are the 32-bit kernels' (a batch element's operands of at
  // most kMax32BitOffset elements; batch offsets are 64-bit); the 64-bit
  // ones read such rows by elements.
  bool thirtyTwoBit =
      std::max({m * k, k * n, m * n}) <= double(kMax32BitOffset);
  if (!thirtyTwoBit || copied < kPieceReadMinCopy || 2 * copied < all)
    return true;
  if (narrow <= kPieceReadRows && pieceBytes >= 8)
    return false;
  // The package's launch of the product as the rows lie (chooseLaunch,
  // which the compiler asks too, for its tile's and S's defaults), whose
  // element variant is never persistent: every tile in every slice.
  Problem asked = p;
  asked.tile.reset();
  asked.splits.reset();
  asked.swap.reset();
  asked.elementReads = true;
  Launch launch = chooseLaunch(asked);
  // A decode product on the swapped decode tile's element kernels (two
  // blocks an SM from a third of the SMs: elementReadsDecode) reads its
  // weight once, faster in 4-byte pieces than copied. On an H100 through
  // the package, x cuBLAS f32acc
  // (benchmarks/data/element_decode_h100_sm_90a.json, `copies`), 10 products of
  // 2 to 16 rows: 0.641-1.049 as they lie against 0.493-0.759 copied (16 x 8192
  // x 4102 0.887 against 0.493).
  if (shape.m <= kPieceReadRows && swappedDecodeLaunch(launch))
    return false;
  // Otherwise the pieces pay where the kernel that reads the rows as they
  // lie has more blocks in flight than one an SM: an eighth more than SMs.
  return 8 * double(launch.tiles) * double(launch.slices) < 9.0 * p.sms();
}

//===----------------------------------------------------------------------===//
// The package's kernel families
//===----------------------------------------------------------------------===//

namespace {
struct FamilyRow {
  Family family;
  std::string_view name;
  /// The tile named at compile time (variants.py's TILE_OPTIONS); none:
  /// the compiler's choice for dynamic shapes (Large).
  std::optional<Tile> tile;
  bool sm90aOnly, swapped, persistent;
  /// B as N x K only: 64 x 160 tiles of B as K x N lost to 64 x 192
  /// (policy's nMajorB160Pays), 176 columns are no whole atoms of B as
  /// K x N (wgmmaTakesNMajorB), and its 224 in seven 32-column atoms, which
  /// take no split handover (KernelSpec::splitHandoverColumnUnit), lost to
  /// the rules' choice (docs/design/decisions.md, "128 x 224 tiles of B as
  /// K x N: not adopted").
  bool nkOnly;
  /// Also for A as K x M (on sm_90a): the families of 64- and 128-row
  /// wgmma tiles.
  bool km;
  /// FamilyConfig's stages and blocks an SM (0: the compiler's).
  int64_t stages = 0, blocksPerSM = 0;
  /// FamilyConfig's blocks a cluster.
  int64_t clusterM = 1;
  /// FamilyConfig's stream-K.
  bool streamK = false;
  /// A as K x M only (on sm_90a).
  bool kmOnly = false;
  /// A persistent family with the split handover (FamilyConfig).
  bool handover = false;
  /// B as K x N only (on sm_90a): the unswapped narrow tile's clusters,
  /// which share a narrow N-major B (clusterBlocks), and the wide decode
  /// tile (a weight stored N x K runs swapped: selectSwappedTile).
  bool knOnly = false;
  /// The f16 sums a chunk keeps (0: the tile's, accumulatorSets).
  int64_t sets = 0;
};
} // namespace

// clang-format off
static const FamilyRow kFamilyRows[] = {
  {Family::Large, "large", std::nullopt,       false, false, false, false, true,  0, 0},
  {Family::M16,   "m16",   Tile{16, 128, 64},  false, false, false, false, false, 4, 0},
  {Family::M64,   "m64",   Tile{64, 128, 64},  false, false, false, false, true,  0, 0},
  {Family::N64,   "n64",   Tile{64, 64, 64},   true,  false, false, false, true,  0, 0},
  {Family::Mid,   "mid",   Tile{128, 128, 64}, true,  false, false, false, true,  0, 0},
  {Family::S16,   "s16",   kSwappedDecodeTile,   true,  true,  false, false, true,  0, 0},
  {Family::S16W,  "s16w",  kSwappedDecodeTile,   true,  true,  false, false, true,  0, 2},
  {Family::PL,    "pl",    Tile{128, 256, 64}, true,  false, true,  false, true,  0, 0},
  {Family::W192,  "w192",  Tile{128, 192, 64}, true,  false, false, false, true,  0, 0},
  {Family::PL192, "pl192", Tile{128, 192, 64}, true,  false, true,  false, true,  0, 0},
  {Family::W160,  "w160",  Tile{128, 160, 64}, true,  false, false, false, true,  0, 0},
  {Family::PL160, "pl160", Tile{128, 160, 64}, true,  false, true,  false, true,  0, 0},
  {Family::PL128, "pl128", Tile{128, 128, 64}, true,  false, true,  false, true,  0, 0},
  {Family::M32,   "m32",   kThinTile,          true,  false, false, false, false, 0, 0},
  {Family::M32W,  "m32w",  kThinTile,          true,  false, false, false, false, 0, 2},
  {Family::M64W,  "m64w",  Tile{64, 128, 64},  true,  false, false, false, true,  0, 2},
  {Family::N64W,  "n64w",  Tile{64, 64, 64},   true,  false, false, false, true,  0, 2},
  {Family::M64C,  "m64c",  Tile{64, 128, 64},  true,  false, false, false, true,  0, 1, 2},
  {Family::MidC,  "midc",  Tile{128, 128, 64}, true,  false, false, false, true,  0, 1, 2},
  {Family::PL128C, "pl128c", Tile{128, 128, 64}, true, false, true, false, true, 0, 1, 2},
  {Family::LargeC, "largec", Tile{128, 256, 64}, true, false, false, false, true, 0, 1, 2},
  {Family::PLC,   "plc",   Tile{128, 256, 64}, true,  false, true,  false, true,  0, 1, 2},
  {Family::W192C, "w192c", Tile{128, 192, 64}, true,  false, false, false, true,  0, 1, 2},
  {Family::PL192C, "pl192c", Tile{128, 192, 64}, true, false, true, false, true, 0, 1, 2},
  {Family::W160C, "w160c", Tile{128, 160, 64}, true,  false, false, false, true,  0, 1, 2},
  {Family::PL160C, "pl160c", Tile{128, 160, 64}, true, false, true, false, true,  0, 1, 2},
  {Family::PLK,   "plk",   Tile{128, 256, 64}, true,  false, true,  false, true,  0, 0, 1, true},
  {Family::PL192K, "pl192k", Tile{128, 192, 64}, true, false, true, false, true, 0, 0, 1, true},
  {Family::PL160K, "pl160k", Tile{128, 160, 64}, true, false, true, false, true,  0, 0, 1, true},
  {Family::PL128K, "pl128k", Tile{128, 128, 64}, true, false, true, false, true, 0, 0, 1, true},
  {Family::M64N160, "m64n160", Tile{64, 160, 64}, true, false, false, true, true, 0, 0},
  {Family::M64N192, "m64n192", Tile{64, 192, 64}, true, false, false, false, true, 0, 0},
  {Family::M64N256, "m64n256", Tile{64, 256, 64}, true, false, false, false, true, 0, 0},
  {Family::M64N96, "m64n96", Tile{64, 96, 64},  true, false, false, false, true, 0, 0},
  {Family::S32,   "s32",   kSwappedKMTile,     true,  true,  false, false, true,  0, 0},
  {Family::S32W,  "s32w",  kSwappedKMTile,     true,  true,  false, false, true,  0, 2},
  {Family::S16Q,  "s16q",  kSwappedDecodeTile, true,  true,  false, false, true,  0, 1, 4, false, true},
  {Family::S16WC, "s16wc", kSwappedDecodeTile, true,  true,  false, false, true,  0, 2, 2, false, true},
  {Family::S32Q,  "s32q",  kSwappedKMTile,     true,  true,  false, false, true,  0, 1, 4, false, true},
  {Family::S32WC, "s32wc", kSwappedKMTile,     true,  true,  false, false, true,  0, 2, 2, false, true},
  {Family::S8,    "s8",    kSwappedKM8Tile,    true,  true,  false, false, true,  0, 0, 1, false, true},
  {Family::S8W,   "s8w",   kSwappedKM8Tile,    true,  true,  false, false, true,  0, 2, 1, false, true},
  {Family::S8Q,   "s8q",   kSwappedKM8Tile,    true,  true,  false, false, true,  0, 1, 4, false, true},
  {Family::S8WC,  "s8wc",  kSwappedKM8Tile,    true,  true,  false, false, true,  0, 2, 2, false, true},
  {Family::S16C,  "s16c",  kSwappedDecodeTile, true,  true,  false, false, true,  0, 1, 2, false, true},
  {Family::S32C,  "s32c",  kSwappedKMTile,     true,  true,  false, false, true,  0, 1, 2, false, true},
  {Family::S8C,   "s8c",   kSwappedKM8Tile,    true,  true,  false, false, true,  0, 1, 2, false, true},
  {Family::M16N256, "m16n256", kWideDecodeTile,  true,  false, false, false, false, 0, 0, 1, false, false, false, true},
  {Family::M192N96, "m192n96", kThreeWarpgroupTile, true, false, false, false, true, 0, 0},
  {Family::W176,  "w176",  Tile{128, 176, 64}, true,  false, false, true,  true,  0, 0},
  {Family::PL176, "pl176", Tile{128, 176, 64}, true,  false, true,  true,  true,  0, 0},
  {Family::W224,  "w224",  Tile{128, 224, 64}, true,  false, false, true,  true,  0, 0},
  {Family::PL224, "pl224", Tile{128, 224, 64}, true,  false, true,  true,  true,  0, 0},
  {Family::W176C, "w176c", Tile{128, 176, 64}, true,  false, false, true,  true,  0, 1, 2},
  {Family::PL176C, "pl176c", Tile{128, 176, 64}, true, false, true, true,  true,  0, 1, 2},
  {Family::W224C, "w224c", Tile{128, 224, 64}, true,  false, false, true,  true,  0, 1, 2},
  {Family::PL224C, "pl224c", Tile{128, 224, 64}, true, false, true, true,  true,  0, 1, 2},
  {Family::PL176K, "pl176k", Tile{128, 176, 64}, true, false, true, true,  true,  0, 0, 1, true},
  {Family::PL224K, "pl224k", Tile{128, 224, 64}, true, false, true, true,  true,  0, 0, 1, true},
  {Family::PLH, "plh", Tile{128, 256, 64}, true, false, true, false, true, 0, 0, 1, false, false, true},
  {Family::PL192H, "pl192h", Tile{128, 192, 64}, true, false, true, true, true, 0, 0, 1, false, false, true},
  {Family::PL160H, "pl160h", Tile{128, 160, 64}, true, false, true, true, true, 0, 0, 1, false, false, true},
  {Family::PL128H, "pl128h", Tile{128, 128, 64}, true, false, true, false, true, 0, 0, 1, false, false, true},
  {Family::PL176H, "pl176h", Tile{128, 176, 64}, true, false, true, true, true, 0, 0, 1, false, false, true},
  {Family::PL224H, "pl224h", Tile{128, 224, 64}, true, false, true, true, true, 0, 0, 1, false, false, true},
  {Family::PLCH, "plch", Tile{128, 256, 64}, true, false, true, false, true, 0, 1, 2, false, false, true},
  {Family::PL192CH, "pl192ch", Tile{128, 192, 64}, true, false, true, true, true, 0, 1, 2, false, false, true},
  {Family::PL160CH, "pl160ch", Tile{128, 160, 64}, true, false, true, true, true, 0, 1, 2, false, false, true},
  {Family::PL128CH, "pl128ch", Tile{128, 128, 64}, true, false, true, false, true, 0, 1, 2, false, false, true},
  {Family::PL176CH, "pl176ch", Tile{128, 176, 64}, true, false, true, true, true, 0, 1, 2, false, false, true},
  {Family::PL224CH, "pl224ch", Tile{128, 224, 64}, true, false, true, true, true, 0, 1, 2, false, false, true},
  {Family::N16,   "n16",   kNarrowTile,        true,  false, false, false, true,  0, 0},
  {Family::N16W,  "n16w",  kNarrowTile,        true,  false, false, false, true,  0, 2},
  {Family::N16Q,  "n16q",  kNarrowTile,        true,  false, false, false, true,  0, 1, 4, false, false, false, true},
  {Family::N16C,  "n16c",  kNarrowTile,        true,  false, false, false, true,  0, 1, 2, false, false, false, true},
  {Family::N16WC, "n16wc", kNarrowTile,        true,  false, false, false, true,  0, 2, 2, false, false, false, true},
  {Family::M64Q,  "m64q",  Tile{64, 128, 64},  true,  false, true,  false, true,  0, 1, 4},
  {Family::X96Q,  "x96q",  kSwappedFillTile,   true,  true,  false, false, true,  0, 1, kSwappedFillClusterM},
  {Family::T192,  "t192",  kThreeWarpgroupWideTile, true, false, false, false, true, 0, 0},
  {Family::PLT192, "plt192", kThreeWarpgroupWideTile, true, false, true, false, true, 0, 0},
  {Family::X128,  "x128",  kSwappedMidTile,    true,  true,  false, false, true,  0, 0},
  {Family::X128C, "x128c", kSwappedMidTile,    true,  true,  false, false, true,  0, 1, 2},
  {Family::X64Q,  "x64q",  kSwappedFillNMajorTile, true, true, false, false, true, 0, 1, kSwappedFillClusterM},
  {Family::N32,   "n32",   kRows64Tile,        true,  false, false, false, true,  0, 0},
  {Family::N32W,  "n32w",  kRows64Tile,        true,  false, false, false, true,  0, 2},
  {Family::N64S,  "n64s",  Tile{64, 64, 64},   true,  false, false, false, true,  0, 0, 1, false, false, false, false, kLongChunkSets},
  {Family::N64SW, "n64sw", Tile{64, 64, 64},   true,  false, false, false, true,  0, 2, 1, false, false, false, false, kLongChunkSets},
  {Family::X64N128Q, "x64n128q", kSwappedRowsTile, true, true, true, false, true, 0, 1, kSwappedFillClusterM},
  {Family::X64SQ, "x64sq", kSwappedFillNMajorTile, true, true, false, false, true, 0, 1, kSwappedFillClusterM, false, false, false, false, kLongChunkSets},
  {Family::S16E,  "s16e",  kSwappedDecodeTile, true,  true,  false, false, false, 0, 0, 1, false, false, false, false, kCopiedDecodeSets},
  {Family::S16WE, "s16we", kSwappedDecodeTile, true,  true,  false, false, false, 0, 2, 1, false, false, false, false, kCopiedDecodeSets},
};
// clang-format on

static const FamilyRow &row(Family family) {
  for (const FamilyRow &r : kFamilyRows)
    if (r.family == family)
      return r;
  std::abort();
}

std::string_view mlir::gpupoor::policy::familyName(Family family) {
  return row(family).name;
}

std::optional<Family>
mlir::gpupoor::policy::parseFamily(std::string_view name) {
  for (const FamilyRow &r : kFamilyRows)
    if (r.name == name)
      return r.family;
  return std::nullopt;
}

bool mlir::gpupoor::policy::familyBatched(Family family) {
  switch (family) {
  case Family::Large:
  case Family::M16:
  case Family::M64:
  case Family::N64:
  case Family::Mid:
  case Family::PL:
  case Family::PL128:
  case Family::M64W:
  case Family::N64W:
    return true;
  default:
    return false;
  }
}

bool mlir::gpupoor::policy::familyBuilds(Family family, Chip chip,
                                         ALayout aLayout, BLayout bLayout,
                                         bool batched) {
  const FamilyRow &r = row(family);
  if (batched && !familyBatched(family))
    return false;
  if (aLayout == ALayout::KM && (chip != Chip::SM90a || !r.km))
    return false;
  if ((aLayout != ALayout::KM && r.kmOnly) ||
      (bLayout != BLayout::KN && r.knOnly))
    return false;
  return !r.sm90aOnly ||
         (chip == Chip::SM90a && (!r.nkOnly || bLayout == BLayout::NK));
}

Tile mlir::gpupoor::policy::familyTile(Family family, Chip chip,
                                       BLayout bLayout) {
  const FamilyRow &r = row(family);
  if (r.tile)
    return *r.tile;
  // The dynamic-shape choice of the family's kernel chip.
  Chip kernel = kernelChip(chip, ALayout::MK, bLayout, std::nullopt);
  return selectTile(CShape{}, kDynamic, kernel, getChipInfo(kernel).smCount,
                    bLayout);
}

bool mlir::gpupoor::policy::familySwapped(Family family) {
  return row(family).swapped;
}

bool mlir::gpupoor::policy::familyPersistent(Family family) {
  return row(family).persistent;
}

int64_t mlir::gpupoor::policy::familySets(Family family, Chip chip,
                                          const Tile &tile) {
  int64_t sets = row(family).sets;
  return sets ? sets : accumulatorSets(chip, tile);
}

FamilyConfig mlir::gpupoor::policy::familyConfig(Family family, Chip chip,
                                                 bool batched) {
  const FamilyRow &r = row(family);
  // The split handover: sm_90a's two-warpgroup (128-row) tiles, a block a
  // tile.
  bool twoWarpgroups =
      chip == Chip::SM90a && familyTile(family, chip, BLayout::NK)[0] == 128;
  FamilyConfig c;
  c.stages = r.stages;
  c.blocksPerSM = r.blocksPerSM;
  c.persistent = r.persistent;
  c.splitHandover = twoWarpgroups && (!r.persistent || r.handover) && !batched;
  c.clusterM = r.clusterM;
  c.streamK = r.streamK;
  c.columnStores = r.swapped;
  c.sets = r.sets;
  return c;
}

/// The variants of a family that take two blocks an SM (sm_90a's
/// one-warpgroup wgmma tiles), and those in clusters along M (clusterPays,
/// clusterBlocks: a family may have one of each cluster size), and the
/// persistent ones with stream-K (streamKPays): family, variant.
static const std::pair<Family, Family> kTwoBlocksPerSMTwins[] = {
    {Family::S16, Family::S16W},   {Family::S32, Family::S32W},
    {Family::S8, Family::S8W},     {Family::M32, Family::M32W},
    {Family::M64, Family::M64W},   {Family::N64, Family::N64W},
    {Family::N16, Family::N16W},   {Family::N32, Family::N32W},
    {Family::N64S, Family::N64SW}, {Family::S16E, Family::S16WE}};
static const std::pair<Family, Family> kClusterTwins[] = {
    {Family::M64, Family::M64C},     {Family::Mid, Family::MidC},
    {Family::PL128, Family::PL128C}, {Family::Large, Family::LargeC},
    {Family::PL, Family::PLC},       {Family::W192, Family::W192C},
    {Family::PL192, Family::PL192C}, {Family::W160, Family::W160C},
    {Family::PL160, Family::PL160C}, {Family::S16, Family::S16Q},
    {Family::S16W, Family::S16WC},   {Family::S32, Family::S32Q},
    {Family::S32W, Family::S32WC},   {Family::S8, Family::S8Q},
    {Family::S8W, Family::S8WC},     {Family::S16, Family::S16C},
    {Family::S32, Family::S32C},     {Family::S8, Family::S8C},
    {Family::W176, Family::W176C},   {Family::PL176, Family::PL176C},
    {Family::W224, Family::W224C},   {Family::PL224, Family::PL224C},
    {Family::N16, Family::N16Q},     {Family::N16W, Family::N16WC},
    {Family::N16, Family::N16C},     {Family::M64, Family::M64Q},
    {Family::X128, Family::X128C}};
static const std::pair<Family, Family> kStreamKTwins[] = {
    {Family::PL, Family::PLK},       {Family::PL192, Family::PL192K},
    {Family::PL160, Family::PL160K}, {Family::PL128, Family::PL128K},
    {Family::PL176, Family::PL176K}, {Family::PL224, Family::PL224K}};
/// The persistent families' twins with the split handover (splitHandoverPays),
/// in clusters as without.
static const std::pair<Family, Family> kSplitHandoverTwins[] = {
    {Family::PL, Family::PLH},         {Family::PL192, Family::PL192H},
    {Family::PL160, Family::PL160H},   {Family::PL128, Family::PL128H},
    {Family::PL176, Family::PL176H},   {Family::PL224, Family::PL224H},
    {Family::PLC, Family::PLCH},       {Family::PL192C, Family::PL192CH},
    {Family::PL160C, Family::PL160CH}, {Family::PL128C, Family::PL128CH},
    {Family::PL176C, Family::PL176CH}, {Family::PL224C, Family::PL224CH}};

/// The variant of `family` in `twins` for which `fits` holds (any, by
/// default), if the library has one.
template <size_t N>
static std::optional<Family>
twinOf(const std::pair<Family, Family> (&twins)[N], Family family,
       const std::function<bool(Family)> &fits = {}) {
  for (const auto &[base, twin] : twins)
    if (base == family && (!fits || fits(twin)))
      return twin;
  return std::nullopt;
}

Family mlir::gpupoor::policy::familyOf(const Strategy &s, const Problem &p) {
  bool wgmma = s.chip == Chip::SM90a;
  const Tile &t = s.tile;
  // (chooseLaunch takes the two-blocks-an-SM variants of the one-warpgroup
  // families where their grid exceeds the SMs; the filling tiles' families
  // run one wave, a block an SM: selectTile, tunedChoice.)
  if (s.swapped)
    return t == kSwappedKMTile     ? Family::S32
           : t == kSwappedKM8Tile  ? Family::S8
           : t == kSwappedFillTile ? Family::X96Q
           : t == kSwappedFillNMajorTile
               ? (s.sets == kLongChunkSets ? Family::X64SQ : Family::X64Q)
           : t == kSwappedRowsTile ? Family::X64N128Q
           : t == kSwappedMidTile  ? Family::X128
           : t == kSwappedDecodeTile && s.sets == kCopiedDecodeSets
               ? Family::S16E
               : Family::S16;
  // (The wide decode tile's family is sm_90a's library's: on others the
  // 16-row family.)
  if (t[0] <= 16)
    return t == kWideDecodeTile &&
                   familyBuilds(Family::M16N256, p.chip, p.aLayout, p.bLayout)
               ? Family::M16N256
               : Family::M16;
  if (wgmma && t == kThinTile)
    return Family::M32;
  if (wgmma && t == kNarrowTile)
    return Family::N16;
  // The filling tiles (selectTile: one wave of 64-row tiles wider than 128,
  // or of 192 x 96).
  if (wgmma && t == kThreeWarpgroupTile)
    return Family::M192N96;
  if (wgmma && isFillingTile(t))
    return t[1] == 160   ? Family::M64N160
           : t[1] == 192 ? Family::M64N192
                         : Family::M64N256;
  if (wgmma && t == Tile{64, 96, 64})
    return Family::M64N96;
  if (wgmma && t == kRows64Tile)
    return Family::N32;
  // (The 64 x 64 tile's two sums a chunk: chunkSets.)
  if (wgmma && t[0] == 64 && t[1] == 64)
    return s.sets == kLongChunkSets ? Family::N64S : Family::N64;
  if (t[0] <= 64)
    return Family::M64;
  // sm_90a's 128-row tiles and 192 x 192: persistent where the compiler's
  // would be (gpupoor-select-kernel-config's persistent=auto: one slice,
  // and persistentPays on the launch's SMs).
  bool persistent =
      wgmma && s.slices == 1 && p.shape.isStatic() &&
      persistentPays(staticConfigProblem(s.chip, t, p.shape, p.k, p.bLayout,
                                         s.slices, s.splits),
                     p.sms());
  if (wgmma && t == kThreeWarpgroupWideTile)
    return persistent ? Family::PLT192 : Family::T192;
  if (wgmma && t[0] == 128 && t[1] == 128)
    return persistent ? Family::PL128 : Family::Mid;
  if (wgmma && t[0] == 128 && t[1] == 192)
    return persistent ? Family::PL192 : Family::W192;
  if (wgmma && t[0] == 128 && t[1] == 160)
    return persistent ? Family::PL160 : Family::W160;
  if (wgmma && t[0] == 128 && t[1] == 176)
    return persistent ? Family::PL176 : Family::W176;
  if (wgmma && t[0] == 128 && t[1] == 224)
    return persistent ? Family::PL224 : Family::W224;
  return persistent ? Family::PL : Family::Large;
}

bool mlir::gpupoor::policy::elementReadsDecode(const Problem &p,
                                               const Launch &l) {
  // (Fewer tiles take the rule's slices, as measured: the twin ran level
  // there, 4 x 2560 x 6002 0.597 against 0.599 in three slices.)
  return p.elementReads && swappedDecodeLaunch(l) && 3 * l.tiles >= p.sms();
}

/// The element kernels' blocks an SM (the s16w twin's) that
/// elementReadSlices fills.
static constexpr int64_t kElementReadBlocksPerSM = 2;
int64_t mlir::gpupoor::policy::elementReadSlices(int64_t slices, int64_t tiles,
                                                 int64_t splits,
                                                 int64_t smCount) {
  // The element kernels read less a block than the TMA kernel, so their
  // grid must fill the SMs: as many slices as fit two blocks an SM in one
  // wave (measurements: Policy.h).
  int64_t fill =
      kElementReadBlocksPerSM * smCount / std::max<int64_t>(tiles, 1);
  // Past the SMs' worth, three slices while their blocks fit two waves of
  // two blocks an SM: an SM then runs two waves of blocks of a third of K
  // each, where one slice ran one wave of blocks of the whole K, some SMs
  // holding one block and others two (measurements: Policy.h).
  if (tiles > smCount && 3 * tiles <= 2 * kElementReadBlocksPerSM * smCount)
    fill = 3;
  if (fill < 2)
    return slices;
  return std::clamp<int64_t>(fill, 1, std::max<int64_t>(splits, 1));
}

int64_t mlir::gpupoor::policy::familyLaunchSlices(
    int64_t askedSlices, Chip chip, const Tile &tile, int64_t k, int64_t tiles,
    int64_t splits, int64_t smCount, bool persistent, bool elementDecode) {
  // A persistent grid's blocks take whole tiles in turn: one slice.
  if (persistent)
    return 1;
  int64_t slices =
      launchSlices(askedSlices, chip, tile, k, tiles, splits, smCount);
  if (elementDecode && askedSlices == 0)
    return elementReadSlices(slices, tiles, splits, smCount);
  return slices;
}

Launch mlir::gpupoor::policy::chooseLaunch(const Problem &p) {
  Strategy s = chooseStrategy(p);
  if (s.copiesA) {
    // A is copied M x K first: the copy's launch.
    Problem mk = p;
    mk.aLayout = ALayout::MK;
    mk.aCopiedFromKM = true;
    return chooseLaunch(mk);
  }
  Launch l;
  l.family = familyOf(s, p);
  if (p.aLayout == ALayout::KM && !familyBuilds(l.family, p.chip, ALayout::KM,
                                                p.bLayout, p.shape.batched)) {
    // No variant of the family reads A as K x M (an mma.sync tile, or not
    // sm_90a): the product's M x K launch, whose kernels read A through its
    // strides.
    Problem mk = p;
    mk.aLayout = ALayout::MK;
    return chooseLaunch(mk);
  }
  l.aLayout = p.aLayout;
  l.padsA = s.padsA;
  l.askedSlices = s.askedSlices;
  if (!familyBuilds(l.family, p.chip, p.aLayout, p.bLayout, p.shape.batched))
    l.family = Family::Large;
  // A family forced as it is, where the strategy took the forced choice
  // (tunedChoice: a static 2-D product) and the family runs its tile as
  // the strategy runs it (swapped or not): that family, none of its twins.
  bool exact = s.tuned && p.forced && p.forced->exact &&
               familyBuilds(p.forced->family, p.chip, p.aLayout, p.bLayout,
                            p.shape.batched) &&
               familyTile(p.forced->family, p.chip, p.bLayout) ==
                   familyTile(l.family, p.chip, p.bLayout) &&
               familySwapped(p.forced->family) == familySwapped(l.family);
  if (exact)
    l.family = p.forced->family;
  l.tile = familyTile(l.family, p.chip, p.bLayout);
  l.swapped = familySwapped(l.family);
  auto [aLayout, bLayout] = l.swapped ? swappedLayouts(p.aLayout, p.bLayout)
                                      : std::pair(p.aLayout, p.bLayout);
  l.chip = kernelChip(p.chip, aLayout, bLayout, l.tile);
  // S: the call's, else the tile's default, which the launch passes to the
  // families' kernels (splits-arg).
  l.splits =
      p.splits ? *p.splits : tileNumSplits(l.chip, l.tile, p.k, p.maxSplits);
  CShape shape = l.swapped ? p.shape.transposed() : p.shape;
  l.tiles = shape.tiles(l.tile[0], l.tile[1]);
  int64_t sms = p.sms();
  bool elementDecode = elementReadsDecode(p, l);
  l.slices =
      familyLaunchSlices(l.askedSlices, l.chip, l.tile, p.k, l.tiles, l.splits,
                         sms, familyPersistent(l.family), elementDecode);
  // Two blocks an SM where the compiler's static kernel of the tile would
  // take them (wgmmaBlocksPerSM), and for the element kernels of the
  // swapped decode tile: its variant of the family, whose tile, slices and
  // grid are the same.
  if (std::optional<Family> twin = twinOf(kTwoBlocksPerSMTwins, l.family);
      !exact && twin && l.chip == Chip::SM90a &&
      (wgmmaBlocksPerSM(l.tile, gridExceedsSMs(l.tiles, l.slices, sms)) == 2 ||
       elementDecode) &&
      familyBuilds(*twin, p.chip, l.aLayout, p.bLayout, p.shape.batched))
    l.family = *twin;
  // Clusters along M where the compiler's static kernel of the tile would
  // take them (clusterBlocks): the family's variant in clusters of as many,
  // whose grid takes whole clusters of row tiles.
  ConfigProblem cp = staticConfigProblem(l.chip, l.tile, shape, p.k, bLayout,
                                         l.slices, l.splits);
  cp.swapped = l.swapped;
  int64_t blocksPerSM = familyConfig(l.family, p.chip).blocksPerSM;
  int64_t wantedClusterM =
      clusterBlocks(cp, blocksPerSM ? blocksPerSM : 1, sms);
  if (std::optional<Family> twin =
          twinOf(kClusterTwins, l.family,
                 [&](Family f) {
                   return familyConfig(f, p.chip).clusterM == wantedClusterM;
                 });
      !exact && twin && l.chip == Chip::SM90a &&
      familyBuilds(*twin, p.chip, l.aLayout, p.bLayout, p.shape.batched))
    l.family = *twin;
  // Stream-K where the compiler's static kernel of the tile would take it
  // (streamKPays, on the launch's SMs): the persistent family's variant
  // whose blocks share the last wave's tiles.
  if (std::optional<Family> twin = twinOf(kStreamKTwins, l.family);
      !exact && twin && streamKPays(cp, sms) &&
      familyBuilds(*twin, p.chip, l.aLayout, p.bLayout, p.shape.batched))
    l.family = *twin;
  // The split handover where the compiler's static kernel of the tile
  // would take it (gpupoor-select-kernel-config: not with stream-K, whose
  // families have no such twin), on the launch's SMs.
  if (std::optional<Family> twin = twinOf(kSplitHandoverTwins, l.family);
      !exact && twin && splitHandoverPays(cp, sms) &&
      familyBuilds(*twin, p.chip, l.aLayout, p.bLayout, p.shape.batched))
    l.family = *twin;
  l.sets = familySets(l.family, l.chip, l.tile);
  int64_t clusterM = familyConfig(l.family, p.chip).clusterM;
  l.tiles = launchTiles(shape, l.tile, clusterM);
  std::tie(l.gridX, l.gridY) =
      launchGrid(l.tiles, l.slices, familyPersistent(l.family), sms, clusterM);
  return l;
}

std::pair<int64_t, int64_t>
mlir::gpupoor::policy::launchGrid(int64_t tiles, int64_t slices,
                                  bool persistent, int64_t smCount,
                                  int64_t clusterM) {
  // At least one cluster: a part of fewer SMs than a cluster's blocks gets
  // a grid that fails to launch (an error), not one of no blocks (a C left
  // unwritten).
  int64_t resident = std::max(clusterM, smCount / clusterM * clusterM);
  return {persistent ? std::min(tiles, resident) : tiles, slices};
}
