//===- KernelSpec.cpp - the resolved shape of an mma.sync kernel ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"

#include "gpupoor/Policy/KernelConfig.h"
#include "gpupoor/Policy/Tiles.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::gpupoor;

KernelSpec::KernelSpec(SplitKAttr strategy, Type cType)
    : strategy(strategy), chip(strategy.getChip()), bm(strategy.getTileM()),
      bn(strategy.getTileN()), bk(strategy.getTileK()),
      aTransposed(strategy.isATransposed()),
      bTransposed(strategy.getBLayout() == BLayout::NK), cType(cType),
      outerType(strategy.getOuter()), accType(cType) {}

KernelSpec::KernelSpec(MatmulOp op)
    : KernelSpec(op.getStrategy(), op.getInitType().getElementType()) {
  accType = op.getAccType();
  for (Value in : op.getEpilogueIns())
    epilogueInputTypes.push_back(getElementTypeOrSelf(in.getType()));
  readsC = op.readsInit();
  batched = op.isBatched();
  epilogueBlock = op.getEpilogueBlock();
  for (AffineMap map : op.getEpilogueMaps().getAsValueRange<AffineMapAttr>())
    epilogueMaps.push_back(map);
  if (KernelConfigAttr config = op.getConfigAttr())
    applyConfig(config);
}

KernelSpec::KernelSpec(KernelAttr kernel)
    : KernelSpec(kernel.getStrategy(), kernel.getCType()) {
  accType = kernel.getAccType();
  for (Attribute t : kernel.getEpilogueInputs())
    epilogueInputTypes.push_back(cast<TypeAttr>(t).getValue());
  readsC = kernel.getReadsC().getValue();
  batched = kernel.getLaunch() == Launch::Batched;
  applyConfig(kernel.getConfig());
}

void KernelSpec::applyConfig(KernelConfigAttr config) {
  warpsM = config.getWarpsM();
  warpsN = config.getWarpsN();
  stages = config.getStages();
  groupM = config.getGroupM();
  asyncCopies = config.hasAsyncCopies();
  tmaCopies = config.getCopies() == CopyMode::Tma;
  fragmentPrefetch = config.getFragmentPrefetch();
  sharedOuterRows = config.getSharedOuterRows();
  epiloguePasses = config.getEpiloguePasses();
  mmaHandover = config.getHandover() == Handover::Mma;
  splitHandover = config.getHandover() == Handover::Split;
  indexBitwidth = config.getIndexBitwidth();
  persistentTiles = config.getPersistent();
  blocksPerSM = config.getBlocksPerSm();
  streamKTiles = config.getStreamK();
  clusterM = config.getClusterM();
  splitsArg = config.getSplitsArg();
  columnStores = config.getColumnStores();
}

KernelConfigAttr KernelSpec::getConfig(MLIRContext *ctx) const {
  return KernelConfigAttr::get(ctx, {warpsM, warpsN}, stages, groupM,
                               tmaCopies     ? CopyMode::Tma
                               : asyncCopies ? CopyMode::Async
                                             : CopyMode::Elements,
                               fragmentPrefetch, sharedOuterRows,
                               epiloguePasses,
                               mmaHandover     ? Handover::Mma
                               : splitHandover ? Handover::Split
                                               : Handover::Convert,
                               indexBitwidth, persistentTiles, blocksPerSM,
                               streamKTiles, clusterM, splitsArg, columnStores);
}

int64_t KernelSpec::launchRegisters() const {
  const ChipInfo &info = getChipInfo(chip);
  int64_t perThread = info.registersPerSM / (blockThreads() * blocksPerSM);
  return std::min(perThread, info.maxRegistersPerThread) / 8 * 8;
}

int64_t KernelSpec::consumerRegisters() const {
  int64_t pool = launchRegisters() * blockThreads();
  int64_t rest = pool - kProducerRegisters * kWarpgroupThreads;
  return std::min(rest / threads() / 8 * 8, kMaxConsumerRegisters);
}

bool KernelSpec::epiloguePassesFit(int64_t passes) const {
  // The passes split a warp's columns (a buffer of the epilogue's own) or
  // its m16 rows (the stages).
  bool columns = persistent();
  if (passes < 1 || (columns ? nTiles() : mTiles()) % passes != 0)
    return false;
  int64_t rows = columns ? warpM() : warpM() / passes;
  int64_t cols = columns ? warpN() / passes : warpN();
  int64_t maxShared = getChipInfo(chip).maxSharedPerBlock;
  // TMA stores read the boxes (EpilogueEmitter::emitTmaStores): no lanes
  // read rows back.
  if (columns && tmaStoreBoxes(passes))
    return epilogueBufferOffset(passes) + epilogueBufferBytes(passes) <=
           maxShared;
  // The warp reads its region back in 16-byte row vectors, every lane a
  // vector each round (rows of 192 f16 take 24 lanes: a round covers a row
  // and a third); a row takes at most the warp's lanes.
  int64_t lanesPerRow = cols * cBytes() / 16;
  if ((cols * cBytes()) % 16 != 0 || lanesPerRow < 1 ||
      lanesPerRow > kWarpSize || (rows * lanesPerRow) % kWarpSize != 0)
    return false;
  if (columns)
    return epilogueBufferOffset(passes) + epilogueBufferBytes(passes) <=
           maxShared;
  return warpsM * warpsN * rows * (cols + 8) * cBytes() <= stagesBytes();
}

bool KernelSpec::columnStoresFit() const {
  if (chip != Chip::SM90a || epiloguePasses < 1 || persistent() ||
      !epiloguePassesFit(epiloguePasses) ||
      (warpM() / epiloguePasses) % epilogueVector() != 0)
    return false;
  int64_t lanesPerColumn = warpM() / epiloguePasses / epilogueVector();
  return (warpN() * lanesPerColumn) % kWarpSize == 0 &&
         warpsM * warpsN * warpN() * epilogueColumnElems() * cBytes() <=
             stagesBytes();
}

int64_t KernelSpec::fewestEpiloguePasses() const {
  for (int64_t passes = 1; passes <= (persistent() ? nTiles() : mTiles());
       passes *= 2)
    if (epiloguePassesFit(passes))
      return passes;
  return 0;
}

/// The checks of sm_90a's wgmma kernel (convert-gpupoor-to-wgmma).
LogicalResult
KernelSpec::verifyWgmma(function_ref<InFlightDiagnostic()> emitError) const {
  // A warpgroup takes 64 rows, each warp 16 of them across the whole tile;
  // operands in atoms of 128-byte rows, the layout of wgmma's 128-byte
  // swizzle (K-major A, K- or N-major B).
  if (warpsN != 1 || warpsM * 16 != mmaRows())
    return emitError() << "the sm_90a kernel takes warps = [max(BM, 64) / "
                          "16, 1] = ["
                       << mmaRows() / 16 << ", 1], got [" << warpsM << ", "
                       << warpsN << "]";
  if (bk != kSwizzleCols && bk != 2 * kSwizzleCols && bk != 4 * kSwizzleCols)
    return emitError() << "the sm_90a kernel takes BK = 64, 128 or 256 "
                          "(atoms of 64 columns in 128-byte rows, the "
                          "128-byte swizzle), got "
                       << bk;
  // A as K x M lies in atoms of 64 of its rows (M-major, wgmma's
  // transposed A), one a warpgroup: no 32-row tile.
  if (aTransposed && bm % kSwizzleCols != 0)
    return emitError() << "the sm_90a kernel reads A as K x M (a_layout = "
                          "km) in atoms of 64 rows: BM must be a multiple "
                          "of 64, "
                          "got "
                       << bm;
  // B as K x N lies in atoms of 64 of its columns (N-major, wgmma's
  // transposed B): a tile takes whole atoms, three, five or seven of 32
  // columns (96, 160, 224), or is one atom of 8, 16 or 32 (bAtomCols; the
  // policy's rule).
  if (!bTransposed && !policy::wgmmaTakesNMajorB(bn, bk))
    return emitError()
           << "the sm_90a kernel reads B as K x N (b_layout = "
              "kn) in atoms of 64 columns, or of 8, 16 or 32: "
              "BN must be 8, 16, 32, 96, 160, 224 or a multiple of 64, got "
           << bn;
  // An 8-column tile is B as K x N's unswizzled atom of 16-byte rows (a
  // row a copy, TMA's or a thread's); B as N x K was not measured so
  // narrow.
  if (bn % 16 != 0 && bTransposed)
    return emitError() << "the sm_90a kernel reads B as N x K (b_layout = "
                          "nk) in tiles of a multiple of 16 columns, got "
                       << bn;
  if (stages < 3)
    return emitError() << "the sm_90a kernel needs at least 3 stages (a "
                          "tile's wgmma still read the previous stage), got "
                       << stages;
  // The rows the register split holds (tmaTakesRows).
  if (tmaCopies && !tmaTakesRows(bm))
    return emitError() << "TMA copies take BM = 32, 64, 128 or 192 (one to "
                          "three consumer warpgroups), got "
                       << bm;
  if (bm < mmaRows()) {
    // wgmma's m64 reads 64 rows from each atom of A: past the last one,
    // the rows it does not compute lie in B's tile of the same stage.
    if (bm != 32 || !thinTileFits(bn, bk))
      return emitError() << "a tile of BM = " << bm
                         << " rows takes BM = "
                            "32 and B's tile of at least 32 rows of 64 "
                            "columns (BN * BK >= 2048), got "
                         << bm << "x" << bn << "x" << bk;
    if (epiloguePasses != 0 || persistentTiles)
      return emitError() << "a tile of BM = 32 rows stores C from its "
                            "fragments, not persistent";
  }
  if (tmaCopies && indexBitwidth != 32)
    return emitError() << "TMA copies take index_bitwidth = 32 (32-bit "
                          "tensor-map coordinates)";
  if (persistentTiles && parallel())
    return emitError() << "persistent blocks take one K slice (slices = 1), "
                          "got "
                       << strategy.getSlices();
  if (streamKTiles && (!outerType.isF32() || batched))
    return emitError() << "stream_k takes f32 outer sums and one product "
                          "(not batched): the blocks meet in f32 sums";
  if (persistent() && epiloguePasses != 0 && !epiloguePassesFit(epiloguePasses))
    return emitError() << "the persistent TMA kernel's shared-memory "
                          "epilogue (a buffer of its own after the "
                          "barriers: its producer refills the stages "
                          "meanwhile) cannot run in "
                       << epiloguePasses << " passes over a warp's " << warpN()
                       << " columns";
  if (fragmentPrefetch != 0 || sharedOuterRows != 0 || mmaHandover)
    return emitError() << "the sm_90a kernel takes no fragment prefetch, no "
                          "shared outer rows and the convert or split "
                          "handover";
  return success();
}

LogicalResult
KernelSpec::verify(function_ref<InFlightDiagnostic()> emitError) const {
  // The fields' own ranges are the attribute's (KernelConfigAttr::verify)
  // and the options' (gpupoor-select-kernel-config); this checks how they
  // fit together.
  // The kernels compute the product as the op states it.
  if (strategy.getSwapped())
    return emitError() << "has a swapped strategy; run gpupoor-swap-operands "
                          "first";
  const ChipInfo &info = getChipInfo(chip);
  // Each warp count is bounded; a chosen one with a given one may still
  // exceed a block.
  if (blockThreads() > info.maxThreadsPerBlock)
    return emitError() << warpsM << " x " << warpsN << " warps exceed the "
                       << info.maxThreadsPerBlock
                       << " threads a block can have";
  if (mmaRows() % (16 * warpsM) != 0)
    return emitError() << "tile BM = " << bm << " does not split into "
                       << warpsM << " warp rows of 16-row MMA tiles";
  // wgmma's tiles are whole n8 tiles (an 8-column B as K x N is one
  // unswizzled atom, KernelSpec::bAtomCols); mma.sync's load B in pairs.
  int64_t warpColumnUnit = chip == Chip::SM90a && warpsN == 1 ? 8 : 16;
  if (bn % (warpColumnUnit * warpsN) != 0)
    return emitError() << "tile BN = " << bn << " does not split into "
                       << warpsN << " warp columns of " << warpColumnUnit
                       << " columns";
  if (chip == Chip::SM90a && failed(verifyWgmma(emitError)))
    return failure();
  if (columnStores && !columnStoresFit())
    return emitError() << "column_stores takes sm_90a's wgmma kernel whose "
                          "epilogue passes fit and whose warps' "
                       << warpM() / std::max<int64_t>(epiloguePasses, 1)
                       << " rows a pass by " << warpN()
                       << " columns make whole 16-byte column vectors, a "
                          "vector a lane a round";
  // Each half is an m64n(BN/2)k16 chain whose fragments are whole n8 tiles.
  if (splitHandover && (chip != Chip::SM90a || !tmaCopies ||
                        threads() != 2 * kWarpgroupThreads ||
                        bn % splitHandoverColumnUnit() != 0))
    return emitError() << "the split handover takes sm_90a's TMA kernel with "
                          "two consumer warpgroups (BM = 128) and BN a "
                          "multiple of "
                       << splitHandoverColumnUnit()
                       << (bTransposed ? ""
                                       : " (B as K x N: whole atoms a half)")
                       << ", got " << bm << "x" << bn << "x" << bk
                       << (tmaCopies ? "" : " without TMA copies");
  // Several sums a chunk: on sm_90a each a warpgroup's whole tile (no
  // split handover), in registers beside the next chunk's (the deferred
  // handover), as many columns as one sum of the widest tile that defers
  // at one block an SM. (At two blocks an SM the 64 x 32 tile's four sums,
  // 128 registers a thread in all, did not spill: lit's ptxas checks.)
  if (sets() > 1 && chip == Chip::SM90a &&
      (splitHandover || sets() * bn > kDeferredHandoverMaxBN))
    return emitError() << "sets = " << sets()
                       << " takes sm_90a's wgmma kernel without the split "
                          "handover and sets * BN <= "
                       << kDeferredHandoverMaxBN << ", got " << bm << "x" << bn
                       << "x" << bk
                       << (splitHandover ? " with the split handover" : "");
  // On the mma.sync kernel a warp's sums are loop values beside its outer
  // sums: at most as many fragments as one sum of a 64 x 64 warp tile.
  if (sets() > 1 && chip != Chip::SM90a &&
      sets() * mTiles() * nTiles() > kMmaSetFragments)
    return emitError() << "sets = " << sets()
                       << " on the mma.sync kernel takes at most "
                       << kMmaSetFragments
                       << " f16 fragments a warp in all (sets * a warp's m16 "
                          "x n8 tiles), got "
                       << sets() * mTiles() * nTiles() << " (a warp tile of "
                       << warpM() << "x" << warpN() << ")";
  // Both handovers' code and the shared tiles' would not fit the
  // registers (96 bytes of spills at 128 x 256).
  if (splitHandover && streamKTiles)
    return emitError() << "the split handover takes no stream_k";
  if (tmaCopies && chip != Chip::SM90a)
    return emitError() << "TMA copies need the sm_90a kernel, got chip "
                       << stringifyChip(chip);
  if (!policy::clusterSizeSupported(clusterM))
    return emitError() << "cluster_m must be 1, 2 or 4, got " << clusterM;
  // Each block of a cluster loads a cluster_m-th of the rows of B's atoms
  // into all, a whole number of the swizzle's 8-row periods. A persistent
  // cluster loops over clusters of work tiles; stream-K's shared tiles
  // would split a cluster.
  if (clusterM > 1 && (!tmaCopies || streamKTiles || bBoxRows() % 8 != 0 ||
                       (bTransposed ? bn : bk) % clusterM != 0))
    return emitError() << "cluster_m = " << clusterM
                       << " takes sm_90a's TMA kernel, not stream-K, and B's "
                          "box rows (BN as N x K, BK as K x N) over cluster_m "
                          "a multiple of 8";
  if (fragmentPrefetch > bk / 16)
    return emitError() << "fragment prefetch of " << fragmentPrefetch
                       << " k steps is outside [0, BK/16 = " << bk / 16 << "]";
  if (sharedOuterRows > mTiles())
    return emitError() << sharedOuterRows
                       << " m16 rows of outer sums in shared memory is "
                          "outside [0, warp rows / 16 = "
                       << mTiles() << "]";
  if (epiloguePasses != 0 && !epiloguePassesFit(epiloguePasses))
    return emitError() << "the shared-memory epilogue cannot run in "
                       << epiloguePasses << " passes over a warp's " << mTiles()
                       << " m16 rows";
  if (mmaHandover && !outerType.isF32())
    return emitError() << "the mma handover adds into f32 outer sums, got "
                       << outerType;
  if (sharedBytes() > info.maxSharedPerBlock)
    return emitError() << "shared memory of " << sharedBytes()
                       << " bytes exceeds the " << info.maxSharedPerBlock / 1024
                       << " KiB a block can "
                       << "have on " << stringifyChip(chip);
  if (blocksPerSM != 1) {
    // Two blocks an SM halve the registers a thread has at launch: one
    // consumer warpgroup still gets 232 of them, two would get 104.
    if (!tmaCopies || threads() != kWarpgroupThreads)
      return emitError() << "blocks_per_sm = " << blocksPerSM
                         << " takes the TMA kernel with one consumer "
                            "warpgroup (BM = 64), got BM = "
                         << bm;
    int64_t perBlock = sharedBytes() + info.reservedSharedPerBlock;
    if (blocksPerSM * perBlock > info.sharedPerSM)
      return emitError() << "blocks_per_sm = " << blocksPerSM << " blocks of "
                         << sharedBytes() << " bytes of shared memory exceed "
                         << "the " << info.sharedPerSM / 1024 << " KiB of an "
                         << "SM";
  }
  return success();
}

policy::KernelTraits KernelSpec::traits() const {
  policy::KernelTraits t;
  t.asyncCopies = asyncCopies;
  t.aMMajor = aMMajor();
  t.bTransposed = bTransposed;
  t.batched = batched;
  t.tmaCopies = tmaCopies;
  t.persistent = persistent();
  t.indexBitwidth = indexBitwidth;
  t.smCount = getChipInfo(chip).smCount;
  return t;
}
