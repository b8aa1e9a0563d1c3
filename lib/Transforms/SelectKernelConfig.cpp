//===- SelectKernelConfig.cpp - tiles and kernel configurations -----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The kernel configuration of each gpupoor.matmul
// (gpupoor-select-kernel-config), which convert-gpupoor-to-nvgpu then builds
// as it is; the tile is the policy's (gpupoor/Policy/Tiles.h). Measurements
// behind each choice: docs/GPU.md.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelRequirements.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"
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

/// Half of a warp's m16 rows of f32 outer sums in shared memory for warp
/// tiles 64 or more wide: 64 f16 and 128 f32 accumulators do not fit in 255
/// registers next to double-buffered fragments.
int64_t autoSharedOuterRows(const KernelSpec &spec) {
  return !spec.outerType.isF16() && spec.warpN() >= 64 ? spec.mTiles() / 2 : 0;
}

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

KernelSpec GPUPoorSelectKernelConfigPass::select(MatmulOp op) const {
  KernelSpec spec(op);
  // Measured on an H100: 64 x 64 warp tiles of 2 x 2 warps (128 threads,
  // two blocks an SM) are fastest. Element-wise copies need the registers
  // of the 64 x 32 tile.
  // Small-M tiles with BK = 64 (BM < 128) also take 4 stages: measured on
  // an H100, 4-15% faster than 3 at M = 64 and 128 (docs/GPU.md), two
  // blocks an SM still.
  bool smallMk64 = spec.bm < 128 && spec.bk == 64;
  spec.stages = stages ? stages : (spec.bk >= 64 && !smallMk64 ? 3 : 4);
  // What the operand types rule out is not chosen: element copies for
  // strides that 16-byte copies cannot take, 64-bit indices for operands of
  // 2^31 elements or more.
  bool async = asyncCopies && asyncCopiesHold(op) != std::optional<bool>(false);
  // Tiles of eight 64 x 64 warp tiles (256 x 128, the split-k pass's choice
  // for large static shapes on sm_90) take eight warps, one block an SM.
  bool eightWarps = async && spec.bm % 64 == 0 && spec.bn % 64 == 0 &&
                    (spec.bm / 64) * (spec.bn / 64) == 8;
  // Small-M tiles (BM < 64) lay their warps out along N: four, or as many
  // as A's tile has 16-byte copies for (32 each) and BN has 16 columns for.
  bool smallM = spec.bm < 64;
  int64_t smallWarpsN = 4;
  while (smallWarpsN > 1 && (spec.bm * spec.bk / 8 % (32 * smallWarpsN) != 0 ||
                             spec.bn % (16 * smallWarpsN) != 0))
    smallWarpsN /= 2;
  spec.warpsM =
      warpsM ? warpsM : (eightWarps ? spec.bm / 64 : (smallM ? 1 : 2));
  spec.warpsN = warpsN
                    ? warpsN
                    : (eightWarps ? spec.bn / 64
                                  : (smallM ? smallWarpsN : (async ? 2 : 4)));
  auto pickSharedOuterRows = [&] {
    return sharedOuterRows >= 0 ? sharedOuterRows : autoSharedOuterRows(spec);
  };
  spec.sharedOuterRows = pickSharedOuterRows();
  // Where two such blocks do not fit the SM's shared memory, 4 warps an SM
  // would be too few to hide latency: 2 x 4 warps of 64 x 32 instead.
  const ChipInfo &chip = getChipInfo(spec.chip);
  if (!warpsN && !eightWarps && async && spec.bm % 32 == 0 &&
      spec.bn % 32 == 0 &&
      2 * (spec.sharedBytes() + chip.reservedSharedPerBlock) >
          chip.sharedPerSM) {
    spec.warpsN = 4;
    spec.sharedOuterRows = pickSharedOuterRows();
  }
  spec.groupM = groupM;
  spec.asyncCopies = async;
  spec.fragmentPrefetch = fragmentPrefetch;
  spec.epiloguePasses = sharedEpilogue ? spec.fewestEpiloguePasses() : 0;
  // Only f32 outer sums have a handover to move. auto: on the tensor cores
  // for eight 64 x 64 warps, where it measured 3-6% faster; with 2 x 2
  // warps it was no faster.
  MmaHandoverChoice handover = mmaHandover;
  spec.mmaHandover =
      !spec.outerType.isF16() &&
      (handover == MmaHandoverChoice::Always ||
       (handover == MmaHandoverChoice::Auto && spec.warpsM * spec.warpsN == 8 &&
        spec.warpM() == 64 && spec.warpN() == 64));
  spec.indexBitwidth =
      offsetsFit32Bits(op) == std::optional<bool>(false) ? 64 : indexBitwidth;
  return spec;
}

/// Shared memory a wgmma block fills with stages when it has an SM to
/// itself: 8 stages of 64 x 128 x 64, 12 of 64 x 64 x 64, 6 of 128 x 128 x
/// 64, 4 of 128 x 256 x 64. Measured on an H100 (docs/Hopper.md): 12 stages
/// of 64 x 64 ran 0.99-1.01x 8 at M = 64 and 1.07-1.11x at M = 128; 8 of 64
/// x 128 ran 1.01-1.05x 6; 6 of 128 x 128 ran 1.17x 4 at 512 x 4096 x 4096
/// (7: no faster).
static constexpr int64_t kOneBlockStageBytes = 192 * 1024;

/// The most stages of a two-warpgroup tile (BM = 128), which fills an SM's
/// registers: one block an SM whatever its stages. Measured on an H100
/// (bench_skinny.py, docs/Hopper.md): 128 x 128 x 64 with 6 stages 1.17x 4
/// at 512 x 4096 x 4096 (one wave; 7 no faster), 1.16x at 512 x 14336 x
/// 4096 (several waves); 128 x 160 x 64 at 512 x 10240 x 2048 (two waves)
/// 36.7 us with 6, 37.7 with 5, 41.3 with 4.
static constexpr int64_t kTwoWarpgroupStages = 6;

/// The most stages of a one-warpgroup tile: the swapped decode tile (64 x
/// 16 x 64, 10 KiB a stage) would fit 19 with an SM to itself. Measured on
/// an H100 (bench_skinny.py's weights from HBM, docs/Hopper.md), one block
/// an SM: 12 stages 15.2-15.6 us at 1 x 4096 x 4096 against 16.5-17.1 with
/// 19 and 15.6-15.8 with 8; 43.8-44.0 at 1 x 4096 x 14336 against 44.5-45.7
/// and 46.3-46.4.
static constexpr int64_t kOneWarpgroupMaxStages = 12;

/// Whether the static grid (tiles x slices) of `op`'s strategy takes more
/// blocks than the chip has SMs.
static bool gridExceedsSMs(MatmulOp op) {
  ShapedType init = op.getInitType();
  SplitKAttr strategy = op.getStrategy();
  if (!init.hasStaticShape() || strategy.getSlices() == 0)
    return false;
  int64_t blocks = staticTileCount(init.getShape(), strategy.getTileM(),
                                   strategy.getTileN()) *
                   strategy.getSlices();
  return blocks > getChipInfo(strategy.getChip()).smCount;
}

/// The blocks an SM of a wgmma tile: two 64-row (one warpgroup) blocks
/// where a static grid exceeds the SMs, so that the whole grid is resident
/// at once; else one. Measured on an H100 (swapped decode tile 64 x 16 x
/// 64 at 1 x 14336 x 4096, 224 blocks, docs/Hopper.md): 42.8 us with two
/// blocks an SM (6 or 8 stages; 4: 43.2), 46.4 with one, cuBLAS 42.8.
static int64_t wgmmaBlocksPerSM(MatmulOp op) {
  return op.getStrategy().getTileM() <= 64 && gridExceedsSMs(op) ? 2 : 1;
}

/// The stages of a wgmma tile of `stageBytes` a stage: for two warpgroups
/// kTwoWarpgroupStages (as many as fit, up to that); for one,
/// kOneBlockStageBytes of them over its blocks an SM (wgmmaBlocksPerSM),
/// at most kOneWarpgroupMaxStages: 8 of 64 x 128 x 64 with one, 4 with
/// two. Measured on an H100 (64 x 128 x 64, docs/Hopper.md): 6 stages ran
/// 1.00-1.13x 4 on grids of one wave.
static int64_t wgmmaStages(MatmulOp op, int64_t stageBytes,
                           int64_t blocksPerSM) {
  if (op.getStrategy().getTileM() >= 128)
    return kTwoWarpgroupStages;
  // As many bytes of A in flight as 12 stages of 64 x 64.
  SplitKAttr strategy = op.getStrategy();
  int64_t most = kOneWarpgroupMaxStages * 64 * 64 /
                 (strategy.getTileM() * strategy.getTileK());
  return std::min(most, kOneBlockStageBytes / blocksPerSM / stageBytes);
}

/// Whether a two-warpgroup TMA kernel loops over C tiles by default: where
/// a static grid exceeds one wave. Measured on an H100 (bench_skinny.py,
/// docs/Hopper.md) against one block a tile: 4096^3 1.025x, 4096 x 14336
/// x 4096 1.03x, 512 x 10240 x 2048 1.04x, 512 x 14336 x 4096 1.02x,
/// 2048 x 4096 x 14336 1.00x, 8192^3 0.995x.
static bool persistentPays(MatmulOp op) {
  return op.getStrategy().getTileM() == 128 && gridExceedsSMs(op);
}

/// K, A's reduction dimension (ShapedType::kDynamic where unknown).
static int64_t reductionSize(MatmulOp op) {
  ArrayRef<int64_t> aShape = op.getAType().getShape();
  return aShape[aShape.size() - (op.getStrategy().isATransposed() ? 2 : 1)];
}

/// Whether the split handover pays by default for a two-warpgroup TMA
/// kernel `spec` of `op`: a static product of at most two work tiles a
/// block (T <= 2 x SMs) whose chunks have at least two K tiles. Measured on
/// an H100 (bench_skinny.py, docs/Hopper.md), against the order barrier's
/// whole-tile handover: 512 x 10240 x 2048 and 512 x 4096 x 4096 5-6%
/// faster, 2048 x 4096 x 14336 1.2%; 4096^3 and 4096 x 14336 x 4096 (3.9
/// and 13.6 tiles a block) 0.5-1.5% slower, where the order barrier also
/// staggers the two warpgroups' epilogues.
static bool splitHandoverPays(MatmulOp op, const KernelSpec &spec) {
  ShapedType init = op.getInitType();
  SplitKAttr strategy = op.getStrategy();
  std::optional<int64_t> splits = strategy.getSplits();
  int64_t k = reductionSize(op);
  if (spec.batched || !init.hasStaticShape() || !splits ||
      ShapedType::isDynamic(k))
    return false;
  int64_t kTiles = llvm::divideCeil(k, strategy.getTileK());
  int64_t chunks = std::min(*splits, kTiles);
  int64_t tiles = staticTileCount(init.getShape(), spec.bm, spec.bn);
  return kTiles >= 2 * chunks && tiles <= 2 * getChipInfo(spec.chip).smCount;
}

KernelSpec GPUPoorSelectKernelConfigPass::selectWgmma(MatmulOp op) const {
  KernelSpec spec(op);
  // A warpgroup per 64 rows, each warp 16 rows across the tile: the only
  // layout of this kernel (the warps options shape mma.sync kernels).
  spec.warpsM = spec.mmaRows() / 16;
  spec.warpsN = 1;
  // As many stages as fit, up to what wgmmaStages says.
  const ChipInfo &chip = getChipInfo(spec.chip);
  // (Each stage of the TMA kernel adds its 8-byte mbarriers.)
  int64_t fit = chip.maxSharedPerBlock /
                (spec.stageElems() * 2 + 8 * spec.tmaBarriersPerStage());
  spec.blocksPerSM = blocksPerSM ? blocksPerSM : wgmmaBlocksPerSM(op);
  int64_t most = wgmmaStages(op, spec.stageElems() * 2, spec.blocksPerSM);
  spec.stages = stages ? stages : std::clamp<int64_t>(fit, 3, most);
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
  // (A 32-row tile is never persistent: KernelSpec::verify.)
  spec.persistentTiles =
      spec.tmaCopies && !spec.parallel() && spec.bm == spec.mmaRows() &&
      (persistent == PersistentChoice::Always ||
       (persistent == PersistentChoice::Auto && persistentPays(op)));
  // Stream-K only where asked for: auto takes it nowhere, as measured on an
  // H100 (docs/Hopper.md: slower than whole tiles on most of the list).
  spec.streamKTiles = spec.persistentTiles && spec.outerType.isF32() &&
                      !spec.batched && streamK == StreamKChoice::Always;
  // The split handover where its kernel applies (KernelSpec::verify).
  spec.splitHandover = spec.tmaCopies &&
                       spec.threads() == 2 * KernelSpec::kWarpgroupThreads &&
                       spec.bn % 16 == 0 && !spec.streamKTiles &&
                       (splitHandover == SplitHandoverChoice::Always ||
                        (splitHandover == SplitHandoverChoice::Auto &&
                         splitHandoverPays(op, spec)));
  // Two blocks an SM are the TMA kernel's, whose register split follows
  // them (the others' registers are ptxas's choice), and not a persistent
  // grid's, which has a block an SM.
  if (!blocksPerSM && (!spec.tmaCopies || spec.persistentTiles))
    spec.blocksPerSM = 1;
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

/// Whether f16 outer sums give C bit for bit what `op`'s f32 ones do: C is
/// f16, nothing follows the sum (no epilogue), and K comes in at most two
/// non-empty chunks (S <= 2, or a static K of at most two K tiles). C is
/// then RN16(RN32(c0 + c1)) with f32 outer sums and RN16(c0 + c1) with f16
/// ones (f16 chunk sums c0, c1; slices of a parallel kernel hold one chunk
/// each and meet the same way). Where c0 + c1 is no f32 number, their
/// exponents lie 13 or more apart (an f16 has 11 bits, an f32 24), so the
/// smaller is below a quarter of the larger's f16 ulp and both forms round
/// to the larger. f16 sums take half the registers and handover work:
/// 32 x 512 x 512 x 128 (S = 2) 10.4 against 11.4 us on an H200 (cuBLAS
/// 10.0; docs/GPU.md).
static bool f16OuterIsExact(MatmulOp op) {
  SplitKAttr strategy = op.getStrategy();
  if (!strategy.getOuter().isF32() ||
      !op.getInitType().getElementType().isF16() || op.getEpilogueBlock() ||
      !op.getEpilogueIns().empty())
    return false;
  if (std::optional<int64_t> splits = strategy.getSplits())
    if (*splits <= 2)
      return true;
  int64_t k = reductionSize(op);
  return !ShapedType::isDynamic(k) &&
         llvm::divideCeil(k, strategy.getTileK()) <= 2;
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
          strategy.getTile(), strategy.getInner(), outer,
          strategy.getBLayout(), strategy.getALayout(), strategy.getSlices(),
          chip, strategy.getSwapped()));
    KernelSpec spec = op.getStrategy().getChip() == Chip::SM90a
                          ? selectWgmma(op)
                          : select(op);
    if (failed(spec.verify([&] { return op.emitOpError(); })))
      return WalkResult::interrupt();
    op.setConfigAttr(spec.getConfig(op.getContext()));
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    signalPassFailure();
}
