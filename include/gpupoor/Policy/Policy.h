//===- Policy.h - every decision of a gpupoor product, in one place -*- C++
//-*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// A problem in, decisions out, as IREE keeps its heuristics
// (GPUHeuristics.h): plain functions over a problem struct. gpupoor-split-k
// asks chooseStrategy; the PyTorch package's launcher (gpupoor._C) asks
// chooseLaunch, which maps the same strategy onto the kernel families its
// prebuilt library holds; gpupoor-policy dumps both as JSON.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_POLICY_POLICY_H
#define GPUPOOR_POLICY_POLICY_H

#include "gpupoor/Policy/Tiles.h"

#include <string_view>
#include <utility>

namespace mlir::gpupoor::policy {

enum class Family : uint32_t;

/// A measured choice (the tuned table's, lib/Policy/Tuned): the family whose
/// tile runs a class of products, and the slices asked for (0: the rule's).
struct TunedChoice {
  Family family;
  int64_t slices = 0;
  /// Launch `family` itself (a benchmark's forced choice) rather than the
  /// family the rules launch its tile as: its persistence, clusters,
  /// stream-K and handover, not those chooseLaunch's twins would take.
  bool exact = false;
};

/// One product as the compiler or a launcher sees it.
struct Problem {
  Chip chip = Chip::SM80;
  CShape shape;
  /// The reduction size (kDynamic where unknown).
  int64_t k = kDynamic;
  ALayout aLayout = ALayout::MK;
  BLayout bLayout = BLayout::KN;
  /// The splits asked for (none: the default rule) and the most the rule
  /// may take.
  std::optional<int64_t> splits;
  int64_t maxSplits = kDefaultMaxSplits;
  /// The slices asked for (0: chosen).
  int64_t slices = 0;
  /// The tile asked for (none: chosen).
  std::optional<Tile> tile;
  /// Whether the product runs transposed, C^T = B^T A^T (none: as the rules
  /// and the tuned table say). Asked for, the tile is the transposed
  /// product's: `tile`, else the rules' transposed tile where they have
  /// one, else selectTile's for the transposed shape.
  std::optional<bool> swap;
  /// The SMs to plan for (0: the chip's reference part, getChipInfo).
  int64_t smCount = 0;
  /// A choice to take instead of the tuned table's (the tuner's candidates);
  /// taken where the table's would be (tunedChoice), and there, if exact,
  /// launched as that family itself (chooseLaunch).
  std::optional<TunedChoice> forced;
  /// Whether the tuned table decides where it has a row (false: the rules
  /// alone, as the tuner times them).
  bool useTable = true;
  /// Whether the caller can copy an A stored K x M into M x K first
  /// (copiesKMajorA): the package can, the compiler on tensors.
  bool canCopyA = true;
  /// Whether an A stored K x M lies in rows the fast kernels read: a row
  /// stride (and a batch's stride) of a multiple of 8 elements. One that
  /// does not is copied into padded rows on sm_90a where the caller can
  /// copy (Strategy::padsA), else M x K (also where copiesKMajorA says so).
  bool aRowsAligned = true;
  /// Whether the launch reads an operand by the element kernels (its rows
  /// lie off 16 bytes and it is not copied into padded rows): the
  /// package's launch, which knows its operands (elementReadsDecode).
  bool elementReads = false;
  /// Whether A, stored K x M, has been copied M x K (chooseLaunch's
  /// launch of the copy, Strategy::copiesA): the strategy's sums are then
  /// the copied product's (kCopiedDecodeSets).
  bool aCopiedFromKM = false;

  int64_t sms() const {
    return smCount > 0 ? smCount : getChipInfo(chip).smCount;
  }
};

/// What gpupoor-split-k writes into a #gpupoor.split_k.
struct Strategy {
  /// The kernel's chip (kernelChip).
  Chip chip = Chip::SM80;
  Tile tile = kDefaultTile;
  /// C^T = B^T A^T: the tile is the transposed product's.
  bool swapped = false;
  /// S, where K or the options settle it; else the host code (or the
  /// kernel) derives it from K at run time (tileNumSplits).
  std::optional<int64_t> splits;
  /// P' where the sizes settle it, else the slices asked for (0: the host
  /// code's launchSlices at run time).
  int64_t slices = 0;
  /// The f16 sums a chunk keeps (chunkSets; kCopiedDecodeSets for an A
  /// copied from K x M on the swapped decode tile).
  int64_t sets = 1;
  /// The slices asked for: the problem's, else the tuned choice's (0:
  /// launchSlices' rule).
  int64_t askedSlices = 0;
  /// Whether the tuned table (or Problem::forced) chose the tile.
  bool tuned = false;
  /// Whether A, stored K x M, is copied M x K first (copiesKMajorA; off
  /// sm_90a also where its rows lie off 16 bytes): the strategy is then the
  /// M x K product's.
  bool copiesA = false;
  /// Whether A, stored K x M in rows that lie off 16 bytes
  /// (Problem::aRowsAligned) and not copied M x K, on sm_90a (measured
  /// there: decisions.md, "A stored K×M in rows off 16 bytes: padded as it
  /// lies"), is copied as it lies into rows padded to 16 bytes
  /// (policy::paddedRowElems) first, whatever the product's size: the
  /// kernels that read A as K x M would read it an element at a time.
  bool padsA = false;
};

/// The strategy of `problem` (gpupoor-split-k's choice). Where the caller
/// can copy it, an A stored K x M is copied M x K first where
/// copiesKMajorA says so, else, where its rows lie off 16 bytes
/// (Problem::aRowsAligned), which every kernel that reads it as it lies
/// would read an element at a time, into padded rows as it lies on sm_90a
/// and M x K on the other chips.
Strategy chooseStrategy(const Problem &problem);

/// Whether `problem`'s A, stored K x M (read along M), is copied M x K
/// before the product (never where M is dynamic). Off sm_90a for M <= 64,
/// whose mma.sync kernels would read such an A an element at a time for
/// every tile. On sm_90a for M <= 32, except where the rules run the
/// product swapped on A as it lies (selectSwappedTile: its kernel reads A
/// as its B as K x N in a box of 8, 16 or 32 columns) in rows of 8, 16 or
/// 32, of 8 up to two blocks an SM's swapped tiles (a tuned row or a
/// forced choice of a 64-row family reads it as it lies too, as the tuner
/// timed it): other rows leave part of every box row out of bounds
/// (measured on an H200, the
/// package's K x M products of 8 rows ran 0.69-0.98x cuBLAS f32acc so,
/// 0.90-1.07x copied; of 16 rows 0.92-1.12x against 0.89-1.01x, of 24 rows
/// 0.87-0.90x against 0.81-0.94x; decisions.md "Swapped decode products of
/// A as K×M" and "Swapped products of A as K×M of 32 rows"), and 17 to 31
/// rows start off 32-byte sectors. Unswapped,
/// a product of 32 rows reads A along M in 64-row tiles, as fast as the
/// copy costs up to a K of kCopiedThinAK (decisions.md, "A as K×M of 17-32
/// rows"); the 16-row tile of the mma.sync kernel would read it an element
/// at a time. The copy is M x K elements.
bool copiesKMajorA(const Problem &problem);

/// The K beyond which sm_90a copies an A of 32 rows stored K x M for a
/// product that does not run swapped.
inline constexpr int64_t kCopiedThinAK = 8192;

/// Whether a caller that can copy (the package) copies the operands whose
/// rows the fast kernels cannot read as they lie (a row stride that is no
/// multiple of 8 elements, a start off 16 bytes: the checks of their
/// manifests, requiredChecks) into rows padded to 16 bytes before
/// `problem`'s product (static sizes). `aRowBytes` and `bRowBytes` say how
/// each operand's rows lie (rowAlignBytes): 16, as the fast kernels read
/// them; 8 or 4, read by the element kernels in cp.async pieces; 2, an
/// element at a time. Measured on an H200 (docs/design/decisions.md,
/// "Unaligned operands copied into padded rows" and "Narrow products read
/// in pieces"): three of a sweep's six odd products of sizes no multiple of
/// 8 ran 0.10-0.28x cuBLAS f32acc read by elements and 0.72-1.00x copied. Not
/// copied: a product of one row or column whose other operand (the
/// weight) the element kernels read in 4- or 8-byte pieces, which reads
/// each operand once (copied, such weights of one-row products ran 0.78x
/// and 0.62x the speed as they lie; weights of rows of 2 bytes, read an
/// element at a time, ran 2.41x copied, on all 34 of 72 held-out random
/// products of one row on an H100:
/// benchmarks/data/decode_odd_rows_h100_sm_90a.json); one
/// of fewer than kMinCopiedWork multiply-adds (unless of one row or
/// column), whose time the copy's launch
/// would add to (128 x 130 x 130: 0.50x against 0.44x); and, on sm_90a, a
/// narrow product whose copies would all read pieces, would move at least half
/// of its operands' elements and at least kPieceReadMinCopy of them, on the
/// 32-bit kernels (operands of at most kMax32BitOffset elements), where the
/// pieces cost less than the copy's read and write: 8-byte pieces of a product
/// of kPieceReadRows rows or columns at most, and 4- or 8-byte ones of
/// kPieceReadWaveRows at most whose launch (chooseLaunch: its tiles times
/// its slices) has an eighth more blocks than the SMs, enough in flight to
/// hide the pieces' latency (200 held-out products of 2 to 63 rows or
/// columns: 0.911x cuBLAS f32acc under the rule, 0.784x always copied,
/// geomeans; the 67 it leaves as they lie 1.074x against 0.687x); and a
/// decode product (up to kPieceReadRows rows) whose launch as its rows lie
/// is the swapped decode tile's element kernels (elementReadsDecode), in
/// 4- or 8-byte pieces (on an H100, 8 held-out products 1.436x as they lie,
/// benchmarks/data/element_decode_h100_sm_90a.json). A dynamic batch keeps
/// the copies.
bool copiesUnalignedOperands(const Problem &problem, int64_t aRowBytes,
                             int64_t bRowBytes);

/// The bytes the fast kernels need an operand's start and row strides on (16:
/// cp.async's and TMA's 16-byte rows).
inline constexpr int64_t kRowAlignBytes = 16;

/// The bytes (16, 8, 4 or 2) an f16 operand's start and its strides between
/// rows (and batch elements) are all multiples of, given in elements
/// (`offsetElems` from a 16-byte aligned base); at most 16. A stride of a
/// dimension of size 1 is never applied: pass 0.
int64_t rowAlignBytes(int64_t offsetElems, int64_t rowStride,
                      int64_t batchStride);

/// The most rows or columns (the lesser of M and N) of a narrow product
/// whose operands copiesUnalignedOperands leaves to 8-byte pieces whatever
/// its grid.
inline constexpr int64_t kPieceReadRows = 16;

/// The most rows or columns of a narrow product whose operands
/// copiesUnalignedOperands leaves to 4- or 8-byte pieces where its grid has
/// an eighth more blocks than the SMs.
inline constexpr int64_t kPieceReadWaveRows = 64;

/// The fewest elements the copies of a narrow product would move for
/// copiesUnalignedOperands to leave them to the pieces: 3 x 2^20, between
/// the sweep's copies of 1.3e6-2.2e6 elements, which paid (0.75-0.91x
/// cuBLAS f32acc against 0.61-0.73x as they lay), one of 2.6e6 (a tie) and
/// those of 4.0e6 and more, which did not (4.0e6: 0.70x and 0.84x against
/// 1.03x and 1.39x).
inline constexpr int64_t kPieceReadMinCopy = int64_t(3) << 20;

/// The most elements an operand (A, B or C, a batch's whole) may hold for
/// the policy to choose its launch: 2^48, past any device's memory, so that
/// the policy's counts (tiles, waves, workspace) stay far inside 64 bits.
inline constexpr int64_t kMaxOperandElements = int64_t(1) << 48;

/// Whether the operands of a product of C `shape` and reduction size `k`
/// hold at most kMaxOperandElements each (dynamic sizes not counted). The
/// compiler leaves a matmul of larger static sizes alone; the package's and
/// gpupoor-policy's queries refuse them.
bool withinSizeLimits(const CShape &shape, int64_t k);

/// The multiply-adds (M N K, of a batch's element) below which
/// copiesUnalignedOperands leaves operands as they lie: between 128 x 130 x
/// 130 (2.2e6, the copy lost 12%) and 96 x 136 x 1031 (1.3e7, it gained
/// 2.5x); not measured in between.
inline constexpr int64_t kMinCopiedWork = int64_t(1) << 22;

/// The row length, in elements, of a copy into padded rows of an operand
/// whose rows of `cols` elements lie off 16 bytes (no multiple of 8): a
/// multiple of kSectorElems, so that the copy's rows start on 32-byte
/// sectors, whose TMA boxes the kernels fetch in fewer L2 requests. Rows of
/// a multiple of 8 elements stay as they are. The compiler's copies
/// (gpupoor-split-k) and the package's pad so. H200, the package's kernel
/// on operands padded to 8 / 16 elements (benchmarks/data/
/// row_copy_sm_90a.txt, call 1): 327 x 1234 x 4052 18.8 / 17.0 us (B as
/// N x K), 19.0 / 16.8 (K x N); 237 x 1318 x 3367 16.3 / 15.2 (N x K);
/// 3116 x 1708 x 1846 37.1 / 36.0 (K x N); none slower (sm_90a; other
/// chips pad so, unmeasured). The policy's choices still read N and K
/// (rowsSectorAligned): those were measured so, not with the copies' rows.
int64_t paddedRowElems(int64_t cols);

/// The kernel families of the PyTorch package's prebuilt library: one
/// dynamic-shape kernel each (for every B layout, outer type, epilogue and
/// C type), which serve every static strategy chooseStrategy gives through
/// familyOf.
enum class Family : uint32_t {
  /// The dynamic default: 128 x 128 x 32 (sm_90a: 128 x 256 x 64).
  Large,
  /// 16 x 128 x 64 for M <= 16.
  M16,
  /// 64 x 128 x 64 for 16 < M <= 128 (but N <= 16 over M > 32 on sm_90a:
  /// N16).
  M64,
  /// sm_90a only: 64 x 64 x 64, one warpgroup.
  N64,
  /// sm_90a only: 128 x 128 x 64 (oneWaveMidTile).
  Mid,
  /// sm_90a only: the swapped decode tile (kSwappedDecodeTile, M <= 16), one
  /// block an SM, and the same two blocks an SM.
  S16,
  S16W,
  /// sm_90a only: the swapped 64 x 32 x 128 tile of 17 to 32 rows of A as
  /// K x M (selectSwappedTile), one and two blocks an SM.
  S32,
  S32W,
  /// sm_90a only: 128 x 256 x 64 with persistent blocks.
  PL,
  /// sm_90a only: the narrower 128-row tiles of wideTile, 128 x 192 x
  /// 64 and 128 x 160 x 64 (B as K x N: five 32-column atoms, where M fills
  /// its row tiles), each with blocks a tile and persistent blocks.
  W192,
  PL192,
  W160,
  PL160,
  /// sm_90a only, B as N x K only: the 128-row tiles 176 and 224 columns
  /// wide (wideTile: where their waves cost less than the rules'
  /// width), each with blocks a tile and persistent blocks.
  W176,
  PL176,
  W224,
  PL224,
  /// sm_90a only: 128 x 128 x 64 with persistent blocks (a Mid strategy
  /// whose static grid exceeds the SMs, as the compiler's kernel is).
  PL128,
  /// sm_90a only, A as M x K: the 32-row tile kThinTile (17 <= M <= 32).
  M32,
  /// sm_90a only: M32, M64 and N64 two blocks an SM, where their grid
  /// exceeds the SMs (wgmmaBlocksPerSM, as the compiler's static kernel).
  M32W,
  M64W,
  N64W,
  /// sm_90a only: the 64-row and wider 128-row wgmma families in clusters
  /// of two along M sharing B's tile by TMA multicast (clusterPays), one
  /// block an SM.
  M64C,
  MidC,
  PL128C,
  LargeC,
  PLC,
  W192C,
  PL192C,
  W160C,
  PL160C,
  W176C,
  PL176C,
  W224C,
  PL224C,
  /// sm_90a only: the persistent 128-row families whose blocks share the
  /// tiles past the whole waves by chunks of K (stream-K), where the last
  /// wave is at most two thirds full (streamKPays).
  PLK,
  PL192K,
  PL160K,
  PL128K,
  PL176K,
  PL224K,
  /// sm_90a only: the persistent 128-row families, and those in clusters of
  /// two, with the split handover (FamilyConfig::splitHandover), where the
  /// compiler's static kernel takes it (splitHandoverPays: a grid of at
  /// most two tiles an SM, or tiles narrower than 256 columns). 192 and 160
  /// columns: B as N x K only (B as K x N hands over whole 64-column atoms
  /// a half).
  PLH,
  PL192H,
  PL160H,
  PL128H,
  PL176H,
  PL224H,
  PLCH,
  PL192CH,
  PL160CH,
  PL128CH,
  PL176CH,
  PL224CH,
  /// sm_90a only: one-warpgroup tiles of 64 rows and 160, 192 and 256
  /// columns (160: B as N x K only), which products of more than 64 rows
  /// take where their tiles fill one wave with less work an SM than the
  /// 128-row tiles (selectTile's filling tiles).
  M64N160,
  M64N192,
  M64N256,
  /// sm_90a only: the one-warpgroup 64 x 96 x 64 tile, which products of
  /// more than 128 rows take where the rules give 64-row tiles and those of
  /// 96 columns fit one wave in more blocks than of 128, rows on 32-byte
  /// sectors (selectTile's ninetySixFills).
  M64N96,
  /// sm_90a only: the three-warpgroup 192 x 96 x 64 tile, a filling tile
  /// too (kThreeWarpgroupTile).
  M192N96,
  /// sm_90a only, A as K x M only: S16 and S32 in clusters of four along M
  /// and S16W and S32W in clusters of two, sharing the activation's tile of
  /// 16 or 32 columns read along N by TMA multicast (clusterBlocks; S8's
  /// below).
  S16Q,
  S16WC,
  S32Q,
  S32WC,
  /// sm_90a only, A as K x M only: the swapped 64 x 8 x 128 tile of up to 8
  /// rows (kSwappedKM8Tile), one and two blocks an SM, and in clusters as
  /// S16Q and S16WC.
  S8,
  S8W,
  S8Q,
  S8WC,
  /// sm_90a only, A as K x M only: S16, S32 and S8 in clusters of two at one
  /// block an SM, where clusters of four would not fit at once
  /// (clusterBlocks).
  S16C,
  S32C,
  S8C,
  /// sm_90a's library only, A as M x K only: sm_90's 16 x 256 x 128
  /// mma.sync tile (kWideDecodeTile), where a decode product's weight has
  /// from three quarters of the SMs to as many 256-row tiles
  /// (wideDecodeTileFits; B as K x N up to kWideSwappedKNRows rows).
  M16N256,
  /// sm_90a only: the decode tile kSwappedDecodeTile run unswapped
  /// (kNarrowTile) for products of at most 16 columns over more than 32
  /// rows, one and two blocks an SM; and, B as K x N only, N16 in clusters
  /// of four and of two and N16W in clusters of two, sharing B's tile of 16
  /// columns read along N by TMA multicast (clusterBlocks, as S16Q, S16C
  /// and S16WC).
  N16,
  N16W,
  N16Q,
  N16C,
  N16WC,
  /// sm_90a only: M64 in clusters of four along M, persistent
  /// (quadClusterPays), one block an SM.
  M64Q,
  /// sm_90a only: the transposed product's 64 x 96 x 64 tile
  /// (kSwappedFillTile, swappedFillTile) in clusters of four, one block an
  /// SM.
  X96Q,
  /// sm_90a only: the three-warpgroup 192 x 192 x 64 tile
  /// (kThreeWarpgroupWideTile, wideTile), a block a tile and persistent.
  T192,
  PLT192,
  /// sm_90a only: the transposed product's 128 x 128 x 64 tile
  /// (kSwappedMidTile, swappedMidTile), a block a tile, and in clusters of
  /// two along the transposed product's M.
  X128,
  X128C,
  /// sm_90a only: the transposed product's 64 x 64 x 64 tile
  /// (kSwappedFillNMajorTile; swappedFillTile, swappedFewRowsTile) in
  /// clusters of four, one block an SM.
  X64Q,
  /// sm_90a only: the one-warpgroup 64 x 32 x 64 tile (kRows64Tile) of 33
  /// to 64 rows, four f16 sums a chunk (accumulatorSets), one and two
  /// blocks an SM (the rules take two only where slices fill the grid
  /// past the SMs).
  N32,
  N32W,
  /// sm_90a only: N64 and N64W with two f16 sums a chunk, which the rules
  /// take for unbatched products whose chunks are long (chunkSets).
  N64S,
  N64SW,
  /// sm_90a only: the transposed product's 64 x 128 x 64 tile
  /// (kSwappedRowsTile, swappedRowsTile) of 65 to 128 rows in clusters of
  /// four, persistent, one block an SM.
  X64N128Q,
  /// sm_90a only: X64Q with two f16 sums a chunk, which the rules take
  /// where its chunks are long (chunkSets).
  X64SQ,
  /// sm_90a only: S16 and S16W with eight f16 sums a chunk, which the rules
  /// take for an A stored K x M that is copied M x K first
  /// (kCopiedDecodeSets), one and two blocks an SM.
  S16E,
  S16WE,
};
inline constexpr Family kFamilies[] = {
    Family::Large,   Family::M16,     Family::M64,     Family::N64,
    Family::Mid,     Family::S16,     Family::S16W,    Family::S32,
    Family::S32W,    Family::PL,      Family::W192,    Family::PL192,
    Family::W160,    Family::PL160,   Family::PL128,   Family::M32,
    Family::M32W,    Family::M64W,    Family::N64W,    Family::M64C,
    Family::MidC,    Family::PL128C,  Family::LargeC,  Family::PLC,
    Family::W192C,   Family::PL192C,  Family::W160C,   Family::PL160C,
    Family::PLK,     Family::PL192K,  Family::PL160K,  Family::PL128K,
    Family::M64N160, Family::M64N192, Family::M64N256, Family::M64N96,
    Family::S16Q,    Family::S16WC,   Family::S32Q,    Family::S32WC,
    Family::S8,      Family::S8W,     Family::S8Q,     Family::S8WC,
    Family::S16C,    Family::S32C,    Family::S8C,     Family::M16N256,
    Family::M192N96, Family::W176,    Family::PL176,   Family::W224,
    Family::PL224,   Family::W176C,   Family::PL176C,  Family::W224C,
    Family::PL224C,  Family::PL176K,  Family::PL224K,  Family::PLH,
    Family::PL192H,  Family::PL160H,  Family::PL128H,  Family::PL176H,
    Family::PL224H,  Family::PLCH,    Family::PL192CH, Family::PL160CH,
    Family::PL128CH, Family::PL176CH, Family::PL224CH, Family::N16,
    Family::N16W,    Family::N16Q,    Family::N16C,    Family::N16WC,
    Family::M64Q,    Family::X96Q,    Family::T192,    Family::PLT192,
    Family::X128,    Family::X128C,   Family::X64Q,    Family::N32,
    Family::N32W,    Family::N64S,    Family::N64SW,   Family::X64N128Q,
    Family::X64SQ,   Family::S16E,    Family::S16WE};

/// The family's name in the package (variants.py's TILES).
std::string_view familyName(Family family);
std::optional<Family> parseFamily(std::string_view name);
/// Whether the library holds the family for `chip` and the operand layouts:
/// the sm_90a families only there, the 160-column ones for B as N x K only;
/// A as K x M only on sm_90a and only for the families whose kernel is the
/// wgmma kernel there (not m16, an mma.sync kernel, nor m32, whose 32-row
/// tile reads A as M x K only); the narrow tile's clusters for B as K x N
/// only; `batched` (a rank-3 product, linalg.batch_matmul's), only the
/// families familyBatched names.
bool familyBuilds(Family family, Chip chip, ALayout aLayout, BLayout bLayout,
                  bool batched = false);
/// Whether the library holds batched variants of the family: those
/// chooseLaunch takes for a batched product, whose rules choose no
/// swapped, thin, narrow, filling or narrower-than-256 tile, and no
/// clusters, stream-K or split handover (selectTile, clusterPays,
/// streamKPays, splitHandoverPays): large, m16, m64, n64, mid, pl, pl128
/// (at most 128 columns past a wave) and the two-blocks-an-SM m64w and
/// n64w.
bool familyBatched(Family family);
/// The family's tile on `chip` for `bLayout` (its kernels' manifest tile).
Tile familyTile(Family family, Chip chip, BLayout bLayout);
bool familySwapped(Family family);
bool familyPersistent(Family family);
/// The f16 sums a chunk of the family's kernels keep, whose kernel chip
/// and tile are `chip` and `tile` (its manifest's): its own where the
/// family names them (N64S, X64SQ: kLongChunkSets), else the tile's
/// (accumulatorSets).
int64_t familySets(Family family, Chip chip, const Tile &tile);

/// How the library compiles a family's kernels for `chip` besides its tile
/// (0 or false: the compiler's choice for dynamic shapes).
struct FamilyConfig {
  /// Copy pipeline stages and blocks an SM.
  int64_t stages = 0;
  int64_t blocksPerSM = 0;
  /// Blocks that loop over C tiles (one K slice).
  bool persistent = false;
  /// sm_90a's split handover (gpupoor-select-kernel-config's
  /// split-handover=true): the two-warpgroup tiles a block a tile hand a
  /// chunk's first half over while its second half runs. The compiler
  /// takes it for static grids of at most two tiles an SM or in tiles
  /// narrower than 256 columns (splitHandoverPays); these families serve
  /// mostly such grids. Of the persistent ones, the twins chooseLaunch
  /// takes where splitHandoverPays holds, as the compiler's static kernel
  /// does (docs/design/decisions.md, "The split handover").
  bool splitHandover = false;
  /// Blocks a cluster along M (kernel_config cluster_m).
  int64_t clusterM = 1;
  /// Persistent blocks sharing the last tiles by chunks of K
  /// (gpupoor-select-kernel-config's stream-k=true).
  bool streamK = false;
  /// The swapped families' kernels, launched on C's transposed view: the
  /// epilogue's column stores (gpupoor-select-kernel-config's
  /// column-stores=true), as the compiler's kernels of swapped ops.
  bool columnStores = false;
  /// The f16 sums a chunk keeps (gpupoor-split-k's sets; 0: the tile's).
  int64_t sets = 0;
};
/// `batched`: the family's batched variants, which take no split handover
/// (splitHandoverPays: the compiler's static kernel of a batch takes none).
FamilyConfig familyConfig(Family family, Chip chip, bool batched = false);

/// What the package launches for a product whose sizes are all known.
struct Launch {
  Family family = Family::Large;
  /// The slices the family's kernel is asked for (Strategy::askedSlices).
  int64_t askedSlices = 0;
  /// The layout of A the family's variant reads: K x M where the library
  /// holds the family so, else M x K (the variant's kernels read such an A
  /// through its strides).
  ALayout aLayout = ALayout::MK;
  /// Whether A, read as K x M, is first copied as it lies into padded rows
  /// (Strategy::padsA).
  bool padsA = false;
  /// The kernel's chip, tile and whether it computes C^T.
  Chip chip = Chip::SM80;
  Tile tile = kDefaultTile;
  bool swapped = false;
  /// S (the call's, else the tile's default, tileNumSplits) and P'.
  int64_t splits = 1;
  int64_t slices = 1;
  /// The f16 sums a chunk keeps (familySets).
  int64_t sets = 1;
  /// T, the kernel's C tiles (launchTiles), and the grid.
  int64_t tiles = 0;
  int64_t gridX = 0;
  int64_t gridY = 1;
};

/// The grid of a launch of `tiles` C tiles in `slices` slices: x the tiles,
/// for a persistent kernel (whose blocks loop over tiles, one an SM: its
/// register split takes an SM's registers) at most `smCount`, in whole
/// clusters of `clusterM` (one at least); y the slices. The emitted host code
/// spells the same as IR (HostLaunch.cpp).
std::pair<int64_t, int64_t> launchGrid(int64_t tiles, int64_t slices,
                                       bool persistent, int64_t smCount,
                                       int64_t clusterM = 1);

/// The family that runs `strategy` (chooseStrategy's for the same problem)
/// on `chip`, the library's: its own tile's where the library has one,
/// else the nearest (128 x 160 and 128 x 192 tiles: 128 x 256; the 32-row
/// swapped tile: 64 x 16; the mma.sync kernel's 32-row tiles: 64 x 128; BK
/// aside).
Family familyOf(const Strategy &strategy, const Problem &problem);

/// The tuned table's choice for `problem` (lib/Policy/Tuned/*.def, written
/// by benchmarks/tune_policy.py), or `problem.forced`: for a 2-D product of
/// static sizes with no tile asked for, by the chip, the layouts and the
/// size classes of M, N and K (sizeClass); none where the table has no row,
/// its family does not build for the layouts, or the operand rows do not
/// start on 32-byte sectors (rowsSectorAligned): the rows are measured on
/// sizes that are multiples of 64 (the tuner's draws), and the rules' choice
/// ran faster than the table's at 1000^3 and 3000^3, whose rows start off
/// sectors.
std::optional<TunedChoice> tunedChoice(const Problem &problem);
/// ceil(log2(size)): 1 is class 0, 2 class 1, 3-4 class 2, 257-512 class 9.
int64_t sizeClass(int64_t size);

/// The launch of `problem` (every size static; `problem.chip`: the
/// library's chip; `problem.tile` unset; `problem.splits` unset: the
/// tile's default split count): chooseStrategy's choice mapped onto the
/// families (familyOf and its twins; a forced exact choice's own family
/// where the strategy took it), with the slices of the family's kernel
/// (launchSlices) and its grid: x the tiles (a persistent kernel's at most
/// one an SM), y the slices.
Launch chooseLaunch(const Problem &problem);

/// Whether launch `l` of `p` runs the swapped decode tile's element
/// kernels (Problem::elementReads; A as M x K, whose B the kernel reads as
/// N x K: the tile measured so) over at least a third of the SMs' worth of
/// tiles, which take the family's two-blocks-an-SM twin and, where no
/// slices are asked for, elementReadSlices.
bool elementReadsDecode(const Problem &p, const Launch &l);

/// The slices of the swapped decode tile's element kernels
/// (elementReadsDecode): as many as fit two blocks an SM in one wave
/// (2 x SMs / tiles, at most the chunks) while that is two or more; past
/// the SMs' worth, three while they fit two such waves (3 x tiles <= 4 x
/// SMs); else the rule's `slices` (launchSlices gives one from a third of
/// the SMs).
/// The element kernels read less a block than the TMA kernel (one
/// warpgroup, latency-bound: ncu), so their grid must fill the SMs. On an
/// H100 through the package, x cuBLAS f32acc, the s16w family forced in 1
/// to 6 slices (benchmarks/data/element_whole_tiles_h100_sm_90a.json,
/// `slices`), 24 products of 48 to 224 tiles: this rule 0.976 (geomean;
/// 0.697 at worst) against 0.883 (0.633) for two slices up to three
/// quarters of the SMs, 1.105x (0.967x to 1.409x; 1 x 4098 x 4096, B as
/// K x N, 0.892 in four slices against 0.633 in two). Held out (`heldout`),
/// 16 products: 1.199x (0.937x to 1.552x), 1.054 of cuBLAS (0.880) against
/// 0.879 (0.694). Past three quarters of the SMs, two slices against one
/// lost 1-6% on weights stored N x K and gained 26-33% on weights stored
/// K x N (6 products held out: 1.113x). Past the SMs' worth, three slices
/// against one, the s16w family forced (H100, the package;
/// benchmarks/data/element_past_sms_h100_sm_90a.json, `fit`): 8 products
/// of 137 to 173 tiles gained 1.008x-1.328x; at 193 tiles, where three
/// slices take three waves, they lost (0.949x). Held out (`heldout`), 16
/// products of 133 to 176 tiles: 1.094x (0.817x to 1.448x), 1.239 of
/// cuBLAS (0.902 at worst) against 1.133 (0.656); the two that lost, of K
/// 1076 and 2008, still ran 1.36 and 1.25 of cuBLAS.
int64_t elementReadSlices(int64_t slices, int64_t tiles, int64_t splits,
                          int64_t smCount);

/// The slices of a launch of a family, `tiles` of `tile` with `splits`
/// chunks: one for a persistent family, else launchSlices, and for the
/// swapped decode tile's element kernels (`elementDecode`:
/// elementReadsDecode) where no slices are asked for, elementReadSlices.
/// chooseLaunch and the package's launch both take their slices from here.
int64_t familyLaunchSlices(int64_t askedSlices, Chip chip, const Tile &tile,
                           int64_t k, int64_t tiles, int64_t splits,
                           int64_t smCount, bool persistent,
                           bool elementDecode);

} // namespace mlir::gpupoor::policy

#endif // GPUPOOR_POLICY_POLICY_H
