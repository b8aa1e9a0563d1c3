//===- SelectKernelConfig.cpp - tiles and kernel configurations -----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The kernel configuration of each gpupoor.matmul
// (gpupoor-select-kernel-config), which convert-gpupoor-to-nvgpu then builds
// as it is; the tile is the policy's (gpupoor/Policy/Tiles.h). Measurements
// behind each choice: docs/design/decisions.md.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelRequirements.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"
#include "gpupoor/Policy/KernelConfig.h"
#include "gpupoor/Transforms/KernelConfig.h"
#include "gpupoor/Transforms/Passes.h"

#include "mlir/IR/TypeUtilities.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORSELECTKERNELCONFIG
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

struct GPUPoorSelectKernelConfigPass
    : gpupoor::impl::GPUPoorSelectKernelConfigBase<
          GPUPoorSelectKernelConfigPass> {
  using Base::Base;

  void runOnOperation() override;

  /// Range-checks the options before any arithmetic on them.
  LogicalResult checkOptions();

  /// The configuration of `op`'s kernel under the pass's options (0 or -1:
  /// choose).
  KernelSpec select(MatmulOp op) const;
  /// The same for the sm_90a (wgmma) kernel.
  KernelSpec selectWgmma(MatmulOp op) const;
};

} // namespace

/// The policy's view of `op`'s strategy (KernelConfig.h).
static policy::ConfigProblem configProblem(MatmulOp op) {
  SplitKAttr strategy = op.getStrategy();
  ShapedType init = op.getInitType();
  ArrayRef<int64_t> aShape = op.getAType().getShape();
  policy::ConfigProblem p;
  p.chip = toPolicy(strategy.getChip());
  p.tile = toPolicyTile(strategy.getTile());
  p.staticShape = init.hasStaticShape();
  p.swapped = op->hasAttr(getSwappedOperandsAttrName());
  if (p.staticShape)
    p.tiles = staticTileCount(init.getShape(), p.tile[0], p.tile[1]);
  p.batched = init.getRank() == 3;
  // (gpupoor-swap-operands has made a swapped strategy's op the product its
  // kernel computes.)
  p.m = init.getDimSize(init.getRank() - 2);
  p.n = init.getDimSize(init.getRank() - 1);
  p.slices = strategy.getSlices();
  p.splits = strategy.getSplits();
  p.sets = strategy.getSets();
  p.bLayout = toPolicy(strategy.getBLayout());
  // K, A's reduction dimension.
  p.k = aShape[aShape.size() - (strategy.isATransposed() ? 2 : 1)];
  return p;
}

KernelSpec GPUPoorSelectKernelConfigPass::select(MatmulOp op) const {
  KernelSpec spec(op);
  policy::Tile tile = {spec.bm, spec.bn, spec.bk};
  spec.stages = stages ? stages : policy::mmaStages(tile);
  // What the operand types rule out is not chosen: element copies for
  // strides that 16-byte copies cannot take, 64-bit indices for operands of
  // 2^31 elements or more.
  bool async = asyncCopies && asyncCopiesHold(op) != std::optional<bool>(false);
  policy::WarpLayout layout = policy::mmaWarps(tile, async);
  spec.warpsM = warpsM ? warpsM : layout.warpsM;
  spec.warpsN = warpsN ? warpsN : layout.warpsN;
  auto pickSharedOuterRows = [&] {
    return sharedOuterRows >= 0
               ? sharedOuterRows
               : policy::sharedOuterRows(spec.outerType.isF16(), spec.warpN(),
                                         spec.mTiles());
  };
  spec.sharedOuterRows = pickSharedOuterRows();
  if (!warpsN && policy::mmaWarpsWiden(toPolicy(spec.chip), tile, layout, async,
                                       spec.sharedBytes())) {
    spec.warpsN = 4;
    spec.sharedOuterRows = pickSharedOuterRows();
  }
  spec.groupM = groupM;
  spec.asyncCopies = async;
  spec.fragmentPrefetch = fragmentPrefetch;
  spec.epiloguePasses = sharedEpilogue ? spec.fewestEpiloguePasses() : 0;
  // Only f32 outer sums have a handover to move.
  MmaHandoverChoice handover = mmaHandover;
  spec.mmaHandover =
      !spec.outerType.isF16() &&
      (handover == MmaHandoverChoice::Always ||
       (handover == MmaHandoverChoice::Auto &&
        policy::mmaHandoverPays(spec.outerType.isF16(), spec.warpsM,
                                spec.warpsN, spec.warpM(), spec.warpN())));
  spec.indexBitwidth =
      offsetsFit32Bits(op) == std::optional<bool>(false) ? 64 : indexBitwidth;
  return spec;
}

KernelSpec GPUPoorSelectKernelConfigPass::selectWgmma(MatmulOp op) const {
  KernelSpec spec(op);
  // A warpgroup per 64 rows, each warp 16 rows across the tile: the only
  // layout of this kernel (the warps options shape mma.sync kernels).
  spec.warpsM = spec.mmaRows() / 16;
  spec.warpsN = 1;
  policy::ConfigProblem problem = configProblem(op);
  // The package's swapped families are the transposed product written
  // unswapped, their kernels launched on C^T: they ask for column stores,
  // which mark them as the transposed product here.
  problem.swapped |= columnStores;
  problem.narrowNMajorB =
      policy::narrowNMajorB(problem.chip, problem.bLayout, problem.tile);
  // Asked for clusters, the choice of two blocks an SM gives way (the
  // policy's clusters follow its blocks an SM: clusterBlocks).
  spec.blocksPerSM = blocksPerSM    ? blocksPerSM
                     : clusterM > 1 ? 1
                                    : policy::wgmmaBlocksPerSM(problem);
  // As many stages as fit, up to what the policy says (each stage of the
  // TMA kernel adds its 8-byte mbarriers).
  spec.stages = stages ? stages
                       : policy::wgmmaStages(
                             problem.chip, problem.tile, spec.stageElems() * 2,
                             8 * spec.tmaBarriersPerStage(), spec.blocksPerSM);
  spec.groupM = groupM;
  spec.asyncCopies =
      asyncCopies && asyncCopiesHold(op) != std::optional<bool>(false);
  spec.fragmentPrefetch = 0;
  spec.sharedOuterRows = 0;
  spec.mmaHandover = false;
  spec.indexBitwidth =
      offsetsFit32Bits(op) == std::optional<bool>(false) ? 64 : indexBitwidth;
  // The warp-specialized kernel where it applies (KernelSpec::verify).
  spec.tmaCopies = tma && spec.tmaFits();
  // (A 32-row tile is never persistent: KernelSpec::verify.) The 64-row
  // tile in clusters of four is (policy::quadClusterPays), unless asked for
  // other clusters, two blocks an SM or stream-K (which clusters exclude).
  bool quadClusters = (clusterM == 0 || clusterM == 4) && blocksPerSM <= 1 &&
                      streamK != StreamKChoice::Always &&
                      policy::quadClusterPays(problem);
  spec.persistentTiles = spec.tmaCopies && !spec.parallel() &&
                         spec.bm == spec.mmaRows() &&
                         (persistent == PersistentChoice::Always ||
                          (persistent == PersistentChoice::Auto &&
                           (policy::persistentPays(problem) || quadClusters)));
  // Stream-K where asked for, and by default where the last wave is short
  // (policy::streamKPays; its meeting costs more than it saves elsewhere).
  spec.streamKTiles = spec.persistentTiles && spec.outerType.isF32() &&
                      !spec.batched &&
                      (streamK == StreamKChoice::Always ||
                       (streamK == StreamKChoice::Auto && clusterM <= 1 &&
                        policy::streamKPays(problem)));
  // The split handover where its kernel applies (KernelSpec::verify): one
  // f16 sum a chunk (sets), unless asked for.
  spec.splitHandover =
      spec.tmaCopies && spec.threads() == 2 * KernelSpec::kWarpgroupThreads &&
      spec.bn % spec.splitHandoverColumnUnit() == 0 && !spec.streamKTiles &&
      (splitHandover == SplitHandoverChoice::Always ||
       (splitHandover == SplitHandoverChoice::Auto && spec.sets() == 1 &&
        policy::splitHandoverPays(problem)));
  // Two blocks an SM are the TMA kernel's, whose register split follows
  // them (the others' registers are ptxas's choice), and not a persistent
  // grid's, which has a block an SM.
  if (!blocksPerSM && (!spec.tmaCopies || spec.persistentTiles))
    spec.blocksPerSM = 1;
  // Clusters where asked for (KernelSpec::verify refuses the kernels that
  // cannot take them), else where the policy says they pay for the blocks
  // an SM chosen above.
  spec.clusterM = clusterM
                      ? clusterM
                      : (spec.tmaCopies && !spec.streamKTiles
                             ? policy::clusterBlocks(problem, spec.blocksPerSM)
                             : 1);
  // In clusters of four the transposed product's 64 x 64 tile ran faster
  // with fewer stages than fit, the swapped decode tiles with more than
  // wgmmaStages gives alone (policy::clusterStages); stages asked for stand.
  if (!stages)
    spec.stages = policy::clusterStages(problem, spec.clusterM,
                                        spec.blocksPerSM, spec.stages);
  // (The persistent kernel's passes split the columns: KernelSpec.) Its
  // buffer of its own comes after the stages: a stage gives way to it (the
  // fragment stores ran 4-7% slower).
  // A 32-row tile's upper warps store nothing (KernelSpec::mmaRows), so it
  // stores from the fragments: the shared-memory epilogue's barriers would
  // wait for them.
  spec.epiloguePasses = sharedEpilogue && spec.bm == spec.mmaRows()
                            ? spec.fewestEpiloguePasses()
                            : 0;
  while (!stages && sharedEpilogue && spec.persistentTiles &&
         spec.epiloguePasses == 0 && spec.stages > 3) {
    --spec.stages;
    spec.epiloguePasses = spec.fewestEpiloguePasses();
  }
  // A swapped product's C is C^T's view, contiguous along the kernel's M,
  // where row vectors fall apart into 2-byte stores a row apart: at
  // 288 x 2144 x 2408 in 64 x 96 tiles the kernel ran 1.35x the time of
  // the same kernel storing a C contiguous along N (H200). (The package's
  // swapped families ask for them: their kernels are launched on C^T.)
  spec.columnStores =
      (columnStores || op->hasAttr(getSwappedOperandsAttrName())) &&
      spec.columnStoresFit();
  return spec;
}

LogicalResult GPUPoorSelectKernelConfigPass::checkOptions() {
  // Plain integers: a diagnostic prints an option object as a character.
  int64_t wm = warpsM, wn = warpsN, st = stages, gm = groupM;
  int64_t prefetch = fragmentPrefetch, outerRows = sharedOuterRows;
  unsigned width = indexBitwidth;
  auto error = [&](StringRef option) {
    return emitError(getOperation()->getLoc())
           << "gpupoor-select-kernel-config: " << option << " must be ";
  };
  for (auto [name, warps] :
       {std::pair<StringRef, int64_t>{"warps-m", wm}, {"warps-n", wn}})
    if (warps < 0 || warps > kMaxWarps)
      return error(name) << "0 (chosen) or in [1, " << kMaxWarps << "], got "
                         << warps;
  if (wm * wn > kMaxWarps)
    return error("warps-m x warps-n")
           << "at most " << kMaxWarps << " warps (1024 threads), got "
           << wm * wn;
  if (st != 0 && (st < 2 || st > kMaxStages))
    return error("stages") << "0 (chosen) or in [2, " << kMaxStages << "], got "
                           << st;
  if (gm < 1 || gm > kMaxGroupM)
    return error("group-m") << "in [1, " << kMaxGroupM << "], got " << gm;
  if (prefetch < 0)
    return error("fragment-prefetch") << ">= 0, got " << prefetch;
  if (outerRows < -1 || outerRows > kMaxTileSize / 16)
    return error("shared-outer-rows")
           << "-1 (chosen) or in [0, " << kMaxTileSize / 16 << "], got "
           << outerRows;
  if (width != 32 && width != 64)
    return error("index-bitwidth") << "32 or 64, got " << width;
  if (int64_t blocks = blocksPerSM; blocks < 0 || blocks > 2)
    return error("blocks-per-sm") << "0 (chosen), 1 or 2, got " << blocks;
  return success();
}

/// Whether f16 outer sums give C bit for bit what `op`'s f32 ones do
/// (policy::f16OuterIsExact).
static bool f16OuterIsExact(MatmulOp op) {
  return policy::f16OuterIsExact(
      configProblem(op), op.getStrategy().getOuter().isF32(),
      op.getInitType().getElementType().isF16(),
      op.getEpilogueBlock() || !op.getEpilogueIns().empty());
}

void GPUPoorSelectKernelConfigPass::runOnOperation() {
  if (failed(checkOptions()))
    return signalPassFailure();
  WalkResult result = getOperation()->walk([&](MatmulOp op) {
    if (op.getConfig())
      return WalkResult::advance();
    SplitKAttr strategy = op.getStrategy();
    // Other sm_90a ops get the mma.sync kernel, which runs on sm_90a as on
    // sm_90.
    Chip chip = strategy.getChip();
    if (chip == Chip::SM90a &&
        !wgmmaTakes(strategy.getALayout(), strategy.getBLayout(),
                    strategy.getTile()))
      chip = Chip::SM90;
    Type outer = f16OuterIsExact(op) ? Float16Type::get(op.getContext())
                                     : strategy.getOuter();
    if (chip != strategy.getChip() || outer != strategy.getOuter())
      op.setStrategyAttr(SplitKAttr::get(
          op.getContext(), strategy.getSplits(), strategy.getMaxSplits(),
          strategy.getTile(), strategy.getInner(), outer, strategy.getBLayout(),
          strategy.getALayout(), strategy.getSlices(), chip,
          strategy.getSwapped(), strategy.getSets()));
    KernelSpec spec = op.getStrategy().getChip() == Chip::SM90a
                          ? selectWgmma(op)
                          : select(op);
    spec.splitsArg = splitsArg;
    if (failed(spec.verify([&] { return op.emitOpError(); })))
      return WalkResult::interrupt();
    op.setConfigAttr(spec.getConfig(op.getContext()));
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    signalPassFailure();
}
