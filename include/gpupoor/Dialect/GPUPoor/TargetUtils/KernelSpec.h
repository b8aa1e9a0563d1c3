//===- KernelSpec.h - the resolved shape of an mma.sync kernel --*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// A gpupoor.matmul's strategy, kernel configuration and element types,
// resolved into the numbers every part of the mma.sync kernel reads: warp
// tiles, fragment counts, shared-memory layout and size. Configuration
// selection, the lowering and the manifest all derive them here, so that
// they agree.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELSPEC_H
#define GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELSPEC_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/ChipInfo.h"
#include "gpupoor/Policy/Checks.h"

#include <algorithm>

namespace mlir::gpupoor {

/// Everything that shapes one mma.sync kernel.
struct KernelSpec {
  /// The strategy's part: tile, layout, types. The configuration's fields
  /// keep their defaults below until applyConfig (or the selection) sets
  /// them.
  KernelSpec(SplitKAttr strategy, Type cType);
  /// The spec of `op`'s kernel: its strategy, types and epilogue, and its
  /// configuration when it has one.
  explicit KernelSpec(MatmulOp op);
  /// The spec a launch's #gpupoor.kernel describes (no epilogue block).
  explicit KernelSpec(KernelAttr kernel);

  /// Takes the configuration's fields.
  void applyConfig(KernelConfigAttr config);
  /// The configuration fields as an attribute.
  KernelConfigAttr getConfig(MLIRContext *ctx) const;

  /// Checks that the kernel maps onto warps, copies and the chip's shared
  /// memory and threads.
  LogicalResult verify(function_ref<InFlightDiagnostic()> emitError) const;
  /// verify's checks of sm_90a's wgmma kernel.
  LogicalResult verifyWgmma(function_ref<InFlightDiagnostic()> emitError) const;

  SplitKAttr strategy;
  Chip chip;
  int64_t bm, bn, bk;
  /// A stored K x M (a_layout = km).
  bool aTransposed;
  bool bTransposed;
  Type cType;
  Type outerType;
  /// The type the epilogue receives the product in (C's without one).
  Type accType;
  /// The element types of the epilogue's ins operands, each a pointer and
  /// two strides among the kernel's parameters.
  SmallVector<Type, 2> epilogueInputTypes;
  /// Whether the epilogue reads C (C += A * B).
  bool readsC = false;
  /// A batched product: one launch, the batch index from grid x, a batch
  /// stride per operand among the parameters.
  bool batched = false;
  /// The epilogue the kernel clones (null: C = acc) and its operands' maps
  /// from C's dimensions; set from an op only.
  Block *epilogueBlock = nullptr;
  SmallVector<AffineMap, 2> epilogueMaps;

  int64_t warpsM = 1, warpsN = 1;
  int64_t stages = 2;
  int64_t groupM = 1;
  // cp.async 16-byte copies (aligned, unit-stride rows) or element loads.
  bool asyncCopies = true;
  // sm_90a: TMA loads by a producer warpgroup (implies asyncCopies'
  // operand requirements); the block has that warpgroup beyond threads().
  bool tmaCopies = false;
  // The TMA kernel's blocks loop over C tiles (persistent()).
  bool persistentTiles = false;
  // The persistent blocks share the last wave's tiles by chunks
  // (streamK()).
  bool streamKTiles = false;
  // Blocks an SM runs at once (the TMA kernel with one consumer warpgroup:
  // 1 or 2); the register split follows (consumerRegisters).
  int64_t blocksPerSM = 1;
  /// Blocks a cluster along M (1 or 2): the two tiles of a cluster share
  /// B's tile, each block loading half of it into both (TMA multicast).
  int64_t clusterM = 1;
  /// The rows of B's TMA box: a block of a cluster loads half of B's tile
  /// (into both blocks), half the rows of each of its atoms (as N x K, BN
  /// rows of K; as K x N, BK rows of N).
  int64_t bBoxRows() const { return (bTransposed ? bn : bk) / clusterM; }
  /// The rows of A's TMA box: BM rows of K as M x K, BK rows of M as K x M
  /// (each block loads its own A tile).
  int64_t aBoxRows() const { return aMMajor() ? bk : bm; }
  // (A box's columns: an atom's, kSwizzleCols, for A; bAtomCols for B.
  // The manifest, the emitted host code and the kernel's loads take the
  // box from these.)
  // k16 steps ahead that fragments load.
  int64_t fragmentPrefetch = 0;
  // A warp's first `sharedOuterRows` m16 rows of outer sums live in shared
  // memory.
  int64_t sharedOuterRows = 0;
  // Passes of the shared-memory epilogue; 0: stores from the fragments.
  int64_t epiloguePasses = 0;
  // The shared-memory epilogue's transposed path, for a C contiguous along
  // M (column vectors; kernel_config column_stores).
  bool columnStores = false;
  // Chunk ends add f16 sums into f32 outer sums with mma.sync instead of
  // conversions and adds.
  bool mmaHandover = false;
  // sm_90a's TMA kernel with two consumer warpgroups: the tile's columns
  // in two halves, each handed over while the other's wgmma run (no order
  // barrier: Handover::Split).
  bool splitHandover = false;
  /// S comes from the launch (the `splits` parameter) where the strategy
  /// leaves it to the rule (takesSplits()).
  bool splitsArg = false;
  /// Whether the kernel's last parameter is S: splitsArg where the
  /// strategy names no S.
  bool takesSplits() const { return splitsArg && !strategy.getSplits(); }
  // Width of index in the lowered kernel (memref descriptors match it).
  unsigned indexBitwidth = 64;

  int64_t numEpilogueInputs() const { return epilogueInputTypes.size(); }
  /// Whether the kernel reads A along M: sm_90a's wgmma kernel takes A
  /// stored K x M as it lies (M-major, wgmma's transposed A), its tile
  /// atoms of 64 M columns by BK rows of K. The mma.sync kernels read
  /// such an A along K through its strides (element copies).
  bool aMMajor() const { return aMMajorOf(strategy); }
  static bool aMMajorOf(SplitKAttr strategy) {
    return strategy.isATransposed() && strategy.getChip() == Chip::SM90a;
  }
  /// What BN must be a multiple of for the split handover: each half an
  /// m64n(BN/2)k16 chain of whole n8 tiles, and with B as K x N of whole
  /// 64-column atoms (wgmma's N-major B reads whole atoms).
  int64_t splitHandoverColumnUnit() const {
    return bTransposed ? 16 : 2 * kSwizzleCols;
  }
  /// Whether K slices may run in different blocks (grid y): the kernel
  /// then takes a workspace and meets the slice sums in it.
  bool parallel() const { return strategy.getSlices() != 1; }
  /// Whether the kernel may be launched with programmatic stream
  /// serialization (sm_90 and later; DependentLaunch.h): each of its
  /// threads waits for the previous kernel before its first access to
  /// global memory.
  bool dependentLaunch() const {
    return chip == Chip::SM90 || chip == Chip::SM90a;
  }
  /// The widest tile whose consumers defer the handover at one block an
  /// SM (defersHandover), and the most columns of all blocks an SM: two
  /// chunks' f16 sums of a 64 x 128 tile and its f32 outer sums take 128
  /// registers a thread. ptxas spilled 104 bytes at 64 x 160, and 16 at 64
  /// x 128 two blocks an SM (128 registers a thread at launch).
  static constexpr int64_t kDeferredHandoverMaxBN = 128;
  /// The f16 sums' m16 x n8 fragments a warp of the mma.sync kernel may
  /// carry over all its sets (sets > 1): one sum of a 64 x 64 warp tile's,
  /// 64 registers, four sums of the 16-row decode tiles' warps (16 x 64).
  static constexpr int64_t kMmaSetFragments = 32;
  /// Whether the TMA kernel's consumers hand a chunk's f16 sums over
  /// behind the next chunk's first wgmma group rather than after draining
  /// the chain at the chunk's end: tiles of one consumer warpgroup up to
  /// kDeferredHandoverMaxBN columns over the blocks an SM (the decode
  /// tiles, the 32-row tile and the 64-row ones), whose tensor cores the
  /// drain leaves idle while the sums are converted and added; a
  /// two-warpgroup tile hands over one warpgroup's half at a time instead
  /// (splitHandover). Measured on an H200
  /// (docs/design/decisions.md#deferred-handover).
  bool defersHandover() const {
    return tmaCopies && threads() == kWarpgroupThreads &&
           bn * std::max<int64_t>(blocksPerSM, 1) <= kDeferredHandoverMaxBN;
  }
  /// Rows of A that the tile's MMAs compute: BM, or on sm_90a at least
  /// one warpgroup's 64. A 32-row tile (the swapped decode tile, to spread
  /// a weight over twice the blocks) loads 32 rows; wgmma's m64 reads 32
  /// more from the bytes after each atom, which the stage holds (verify),
  /// and the epilogue stores none of those rows.
  int64_t mmaRows() const { return mmaRowsOf(chip, bm); }
  static int64_t mmaRowsOf(Chip chip, int64_t bm) {
    return chip == Chip::SM90a ? std::max<int64_t>(bm, 64) : bm;
  }
  /// Whether B's tile of `bn` x `bk` holds the 32 rows of 64 columns that
  /// wgmma's m64 reads past a 32-row tile's last atom of A.
  static bool thinTileFits(int64_t bn, int64_t bk) {
    return bn * bk >= 32 * kSwizzleCols;
  }
  /// Elements of one tile's sum of one slice: every computed row's.
  int64_t sliceSumElems() const { return mmaRows() * bn; }
  /// Bytes of one tile's sum of one slice.
  int64_t sliceSumBytes() const {
    return sliceSumElems() * outerType.getIntOrFloatBitWidth() / 8;
  }
  /// The f16 sums a chunk keeps (the strategy's `sets`).
  int64_t sets() const { return strategy.getSets(); }
  /// The threads that compute (and store) the tile.
  int64_t threads() const { return warpsM * warpsN * kWarpSize; }
  /// Threads of a warpgroup: the TMA kernel's producer is one.
  static constexpr int64_t kWarpgroupThreads = 128;
  /// Whether the warp-specialized TMA kernel can take this configuration
  /// (verify names each condition that fails): sm_90a, async copies' operand
  /// requirements, 32-bit index, one to three consumer warpgroups.
  bool tmaFits() const {
    return chip == Chip::SM90a && asyncCopies && indexBitwidth == 32 &&
           tmaTakesRows(bm);
  }
  /// The tile rows the TMA kernel takes: a 32-row tile or one to three
  /// consumer warpgroups of 64 (setmaxnreg's split: 24 registers a producer
  /// thread, up to 240 a consumer's, 160 beside three).
  static bool tmaTakesRows(int64_t bm) {
    return bm == 32 || bm == 64 || bm == 128 || bm == 192;
  }
  /// Whether blocks loop over C tiles (grid x at most the SM count): the
  /// TMA kernel with one K slice, whose producer then loads the next
  /// tile's K tiles while the consumers store the last one. The stages are
  /// never idle, so its shared-memory epilogue has a buffer of its own
  /// (ownEpilogueBuffer).
  bool persistent() const { return tmaCopies && persistentTiles; }
  /// What decides the kernel's requirements (policy::requiredChecks: the
  /// manifest's `checks`, the host code's checks).
  policy::KernelTraits traits() const;
  /// What its 32-bit bounds read besides the parameters
  /// (policy::kernelBounds): the slice sums' size where it has them.
  policy::CheckedKernel checkedKernel() const {
    return {{bm, bn, bk}, groupM, parallel() ? sliceSumElems() : 0, clusterM};
  }
  /// Whether the persistent blocks split the work tiles past their whole
  /// waves by chunks of K (StreamK.h); such a kernel takes the workspace.
  bool streamK() const { return persistent() && streamKTiles; }
  /// Whether the kernel takes the workspace parameters (ws_ptr, ws_bytes,
  /// locks_ptr, locks_count).
  bool takesWorkspace() const { return parallel() || streamK(); }
  /// The TMA kernel's register split (setmaxnreg takes multiples of 8 from
  /// 24 to 256): a thread has launchRegisters() at entry (ptxas allots the
  /// block no more, `.minnctapersm blocksPerSM`), the producer warpgroup
  /// keeps kProducerRegisters, and setmaxnreg.inc waits until the block's
  /// pool holds what the consumers ask: consumerRegisters() leaves it
  /// exactly enough (asking for more would wait forever).
  static constexpr int64_t kProducerRegisters = 24;
  static constexpr int64_t kMaxConsumerRegisters = 240;
  int64_t launchRegisters() const;
  int64_t consumerRegisters() const;
  /// The block: the computing threads, and the TMA kernel's producer.
  int64_t blockThreads() const {
    return threads() + (tmaCopies ? kWarpgroupThreads : 0);
  }
  int64_t warpM() const { return mmaRows() / warpsM; }
  int64_t warpN() const { return bn / warpsN; }
  int64_t mTiles() const { return warpM() / 16; }
  int64_t nTiles() const { return warpN() / 8; }
  /// Columns of one 128-byte swizzle atom: the rows of wgmma's K-major
  /// operands and the boxes of the tensor maps are this wide.
  static constexpr int64_t kSwizzleCols = 64;
  /// The L2 promotion, in bytes, of A's and B's tensor maps: 256 where a
  /// box's rows run along K (A as M x K, B as N x K), whose next bytes are
  /// the block's next K tile; where they run along M or N (A as K x M, B as
  /// K x N) the next bytes belong to another block's tile, and the
  /// promotion takes 128 bytes (a box row of 64 columns). Measured on an H200
  /// (docs/design/decisions.md#l2-promotion-of-m--and-n-major-operands).
  static int64_t l2PromotionBytes(bool rowsAlongK) {
    return rowsAlongK ? 256 : 2 * kSwizzleCols;
  }
  int64_t aL2PromotionBytes() const { return l2PromotionBytes(!aMMajor()); }
  int64_t bL2PromotionBytes() const { return l2PromotionBytes(bTransposed); }
  /// C's map: stores take no promotion (any value encodes the same stores);
  /// 256 as the K-major maps.
  static int64_t cL2PromotionBytes() { return l2PromotionBytes(true); }
  /// Whether the shared tiles lie as atoms of kSwizzleCols columns (all
  /// rows of K columns [64 a, 64 a + 64) before those of the next): the
  /// sm_90a kernel's operands, which wgmma reads in 128-byte rows; BK =
  /// 128 makes two atoms a tile.
  bool swizzleAtoms() const { return chip == Chip::SM90a; }
  /// The columns of an atom of B's shared tile as K x N (swizzleAtoms): 64
  /// in rows of 128 bytes (the 128-byte swizzle); a tile of 16 or 32 columns
  /// (the swapped decode tile, its B being a K x M activation) is one atom
  /// of rows of 32 or 64 bytes, swizzled across them (wgmma's 32- and
  /// 64-byte swizzles; its TMA box as wide), a tile of 8 one atom of
  /// unswizzled 16-byte rows (wgmma's no-swizzle mode, whose 8-row groups
  /// are its core matrices). A box of 64 columns past those
  /// would load four times the bytes into shared memory (zeros past M):
  /// H200, the package's km decode products at 0.45-0.96 of cuBLAS against
  /// 0.88-1.06 with A copied M x K.
  /// A tile of 96, 160 or 224 columns is three, five or seven atoms of 32
  /// (policy::wgmmaTakesNMajorB).
  int64_t bAtomCols() const {
    if (!swizzleAtoms() || bTransposed || bn % kSwizzleCols == 0)
      return kSwizzleCols;
    return bn < kSwizzleCols ? bn : 32;
  }
  /// The bytes of a row of B's atoms as K x N (their swizzle span).
  int64_t bAtomRowBytes() const { return bAtomCols() * 2; }
  // Shared tiles: A is BM x BK; B is BK x BN (kn) or BN x BK (nk).
  int64_t aElems() const { return bm * bk; }
  int64_t bElems() const { return bn * bk; }
  // A stage holds A's tile, then B's.
  int64_t stageElems() const { return aElems() + bElems(); }
  int64_t stagesBytes() const { return stages * stageElems() * 2; }
  // Outer-sum fragments (vector<2x2>) kept in shared memory, one slot per
  // thread each, after the stages.
  int64_t sharedOuterFrags() const { return sharedOuterRows * nTiles(); }
  int64_t outerSlotElems() const { return sharedOuterFrags() * threads() * 4; }
  /// The TMA ring's mbarriers of 8 bytes a stage: full, empty, and with
  /// two consumer warpgroups that hand whole tiles over the order in which
  /// they take a tile (TmaPipeline); after the stages and the outer-sum
  /// slots.
  int64_t tmaBarriersPerStage() const {
    return threads() > kWarpgroupThreads && !splitHandover ? 3 : 2;
  }
  int64_t barriersOffset() const {
    return stagesBytes() +
           outerSlotElems() * outerType.getIntOrFloatBitWidth() / 8;
  }
  /// The end of the barriers: where the persistent kernel's epilogue
  /// buffer starts (16-byte aligned).
  int64_t barriersEnd() const {
    return barriersOffset() +
           (tmaCopies ? 8 * tmaBarriersPerStage() * stages : 0);
  }
  /// Whether the shared-memory epilogue has a buffer of its own after the
  /// barriers: the persistent kernel's, whose producer refills the stages
  /// while the consumers store a tile. Its passes split a warp's columns,
  /// the others' its m16 rows.
  bool ownEpilogueBuffer() const { return persistent() && epiloguePasses > 0; }
  /// The TMA store epilogue's boxes: 128 bytes of a C row (64 f16) by a
  /// warp's rows, in the 128-byte swizzle (the layout C's tensor map
  /// names), so that the fragment writes of 8 rows land on distinct banks.
  static constexpr int64_t kStoreBoxBytes = 128;
  int64_t storeBoxCols() const { return kStoreBoxBytes / cBytes(); }
  int64_t storeBoxBytes() const { return warpM() * kStoreBoxBytes; }
  /// Whether the persistent kernel's epilogue in `passes` column passes
  /// hands its C tile to TMA stores (f16 C: the runtime's tensor maps are
  /// f16): each warp's pass columns are whole boxes, its region holds
  /// them (slots), and the warp goes on while TMA drains them. Where C's
  /// map cannot describe C (the kernel checks as the host code does), the
  /// lanes store their fragments instead.
  bool tmaStoreBoxes(int64_t passes) const {
    return persistent() && cType.isF16() && passes > 0 &&
           warpN() % (passes * storeBoxCols()) == 0;
  }
  bool tmaStores() const {
    return ownEpilogueBuffer() && tmaStoreBoxes(epiloguePasses);
  }
  /// Box slots of a warp's region with TMA stores: one pass's boxes.
  int64_t storeSlots() const {
    return warpN() / epiloguePasses / storeBoxCols();
  }
  int64_t epilogueBufferOffset() const {
    return epilogueBufferOffset(epiloguePasses);
  }
  /// 16-byte aligned after the barriers; TMA's 128-byte swizzle repeats
  /// every 1024 bytes, and its boxes start at a multiple of that.
  int64_t epilogueBufferOffset(int64_t passes) const {
    int64_t align = tmaStoreBoxes(passes) ? 1024 : 16;
    return (barriersEnd() + align - 1) / align * align;
  }
  /// Bytes of the shared-memory epilogue in `passes` passes when it has a
  /// buffer of its own: each warp's rows, a pass's columns plus padding
  /// (none in TMA store boxes, whose swizzle spreads the banks).
  int64_t epilogueBufferBytes(int64_t passes) const {
    int64_t pad = tmaStoreBoxes(passes) ? 0 : 8;
    return warpsM * warpsN * warpM() * (warpN() / passes + pad) * cBytes();
  }
  int64_t sharedBytes() const {
    return ownEpilogueBuffer()
               ? epilogueBufferOffset() + epilogueBufferBytes(epiloguePasses)
               : barriersEnd();
  }

  // The shared-memory epilogue: each warp writes its fragments into its
  // own region of the (then idle) stages, rows padded so that the
  // fragments' 8 rows of one store land in distinct banks, and reads them
  // back as 16-byte row vectors.
  int64_t cBytes() const { return cType.getIntOrFloatBitWidth() / 8; }
  int64_t epilogueVector() const { return 16 / cBytes(); }
  /// A warp's columns in one pass of the shared-memory epilogue: all of
  /// them, or a pass's share where the passes split the columns.
  int64_t epilogueColumns() const {
    return ownEpilogueBuffer() ? warpN() / epiloguePasses : warpN();
  }
  int64_t epilogueLanesPerRow() const {
    return epilogueColumns() * cBytes() / 16;
  }
  int64_t epilogueRowElems() const {
    // A store of 2 elements a lane covers 8 rows x 4 words (f16: one
    // phase) or, per half warp, 4 rows x 8 words (f32). Rows of an odd
    // number of such 4- or 8-word units land those rows on distinct banks;
    // the columns (a multiple of 16, or sm_90a's 8) make an even number
    // (one), and 8 more elements add one unit.
    return epilogueColumns() + 8;
  }
  /// Whether the shared-memory epilogue can run in `passes` passes over a
  /// warp's m16 rows (columns, with a buffer of its own): every warp's
  /// region of one pass fits the stages (the chip's shared memory after the
  /// barriers) and the row vectors map onto whole lanes.
  bool epiloguePassesFit(int64_t passes) const;
  /// The fewest passes (a power of two) that fit; 0 when none does.
  int64_t fewestEpiloguePasses() const;

  // The transposed path (columnStores): each warp's region holds a pass's
  // rows of each of its columns, column after column, padded by a 16-byte
  // vector (16 rows a pass: the fragments' four column pairs 2 columns
  // apart then start 24 banks apart, f16, or 40, f32: on distinct banks),
  // and is read back as 16-byte column vectors.
  int64_t epilogueColumnElems() const {
    return warpM() / std::max<int64_t>(epiloguePasses, 1) + epilogueVector();
  }
  /// Whether the transposed path takes the epilogue's passes: sm_90a's
  /// wgmma kernel, passes that fit (epiloguePassesFit), a pass's rows whole
  /// vectors, each round a vector a lane, and the regions in the stages.
  bool columnStoresFit() const;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_KERNELSPEC_H
