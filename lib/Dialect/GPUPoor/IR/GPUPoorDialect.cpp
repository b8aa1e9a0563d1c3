//===- GPUPoorDialect.cpp - gpupoor dialect and attributes ----------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

#include "gpupoor/Policy/KernelConfig.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::gpupoor;

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorDialect.cpp.inc"
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorAttrs.cpp.inc"

void GPUPoorDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// SplitKAttr verification
//===----------------------------------------------------------------------===//

LogicalResult SplitKAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 std::optional<int64_t> splits,
                                 int64_t maxSplits, ArrayRef<int64_t> tile,
                                 Type inner, Type outer, BLayout bLayout,
                                 ALayout aLayout, int64_t slices, Chip chip,
                                 bool swapped, int64_t sets) {
  if (splits && (*splits < 1 || *splits > kMaxSplits))
    return emitError() << "splits must be in [1, " << kMaxSplits << "], got "
                       << *splits;
  if (maxSplits < 1 || maxSplits > kMaxSplits)
    return emitError() << "max_splits must be in [1, " << kMaxSplits
                       << "], got " << maxSplits;
  if (slices < 0 || slices > kMaxSlices)
    return emitError() << "slices must be 0 (chosen at run time) or in [1, "
                       << kMaxSlices << "], got " << slices;
  if (splits && slices > *splits)
    return emitError() << "slices (" << slices << ") must not exceed splits ("
                       << *splits << "): each slice takes at least one chunk";
  if (tile.size() != 3)
    return emitError() << "tile must have 3 entries [BM, BN, BK], got "
                       << tile.size();
  static constexpr StringLiteral kTileNames[] = {"BM", "BN", "BK"};
  for (auto [name, size] : llvm::zip_equal(kTileNames, tile))
    if (size <= 0 || size > kMaxTileSize)
      return emitError() << "tile size " << name << " must be in [1, "
                         << kMaxTileSize << "], got " << size;

  // The tile must decompose into whole MMA fragments of the chip.
  int64_t bm = tile[0], bn = tile[1], bk = tile[2];
  if (chip == Chip::SM90a) {
    // wgmma: one warpgroup covers m64 (a tile of 32 rows computes 32 more
    // that it does not store), n is a multiple of 8 up to 256.
    if (bm % 64 != 0 && bm != 32)
      return emitError() << "tile BM = " << bm
                         << " is neither 32 nor a multiple of 64 (wgmma "
                            "m64nNk16)";
    if (bn % 8 != 0 || bn > 256)
      return emitError() << "tile BN = " << bn
                         << " must be a multiple of 8 no larger than 256 "
                            "(wgmma m64nNk16)";
  } else {
    if (bm % 16 != 0)
      return emitError() << "tile BM = " << bm
                         << " is not a multiple of 16 (mma.sync m16n8k16)";
    if (bn % 8 != 0)
      return emitError() << "tile BN = " << bn
                         << " is not a multiple of 8 (mma.sync m16n8k16)";
  }
  if (bk % 16 != 0)
    return emitError() << "tile BK = " << bk
                       << " is not a multiple of 16 (the MMA k step)";

  // The swapped product's B is A: as K x M, its B as K x N in a tile of
  // fewer than 64 columns, which only sm_90a's kernel reads.
  if (swapped && aLayout != ALayout::MK && chip != Chip::SM90a)
    return emitError() << "swapped with a_layout = km needs chip sm_90a (the "
                          "swapped product's B is A as K x N), got "
                       << stringifyChip(chip);

  // Each k16 step of a K tile goes to one sum, the same one in every tile:
  // sets divide the tile's steps.
  int64_t steps = bk / 16;
  if (sets < 1 || !llvm::isPowerOf2_64(sets) || steps % sets != 0)
    return emitError() << "sets = " << sets
                       << " must be a power of two dividing BK / 16 = "
                       << steps;

  if (!inner.isF16())
    return emitError() << "inner accumulator type must be f16, got " << inner;
  if (!outer.isF16() && !outer.isF32())
    return emitError() << "outer accumulator type must be f16 or f32, got "
                       << outer;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelConfigAttr verification
//===----------------------------------------------------------------------===//

// Each field on its own; whether the fields fit the tile, the types and the
// chip together is checked where the kernel is built (KernelSpec::verify).
LogicalResult KernelConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> warps,
    int64_t stages, int64_t groupM, CopyMode copies, int64_t fragmentPrefetch,
    int64_t sharedOuterRows, int64_t epiloguePasses, Handover handover,
    int64_t indexBitwidth, bool persistent, int64_t blocksPerSM, bool streamK,
    int64_t clusterM, bool splitsArg, bool columnStores) {
  if (warps.size() != 2)
    return emitError() << "warps must have 2 entries [WM, WN], got "
                       << warps.size();
  if (warps[0] < 1 || warps[1] < 1)
    return emitError() << "needs at least one warp along M and N, got "
                       << warps[0] << " x " << warps[1];
  if (warps[0] > kMaxWarps || warps[1] > kMaxWarps ||
      warps[0] * warps[1] > kMaxWarps)
    return emitError() << warps[0] << " x " << warps[1] << " warps exceed the "
                       << kMaxWarps << " warps (1024 threads) a block can have";
  if (stages < 2 || stages > kMaxStages)
    return emitError() << "the copy pipeline needs 2 to " << kMaxStages
                       << " stages, got " << stages;
  if (groupM < 1 || groupM > kMaxGroupM)
    return emitError() << "group_m must be in [1, " << kMaxGroupM << "], got "
                       << groupM;
  if (fragmentPrefetch < 0)
    return emitError() << "fragment_prefetch must be >= 0, got "
                       << fragmentPrefetch;
  if (sharedOuterRows < 0)
    return emitError() << "shared_outer_rows must be >= 0, got "
                       << sharedOuterRows;
  if (epiloguePasses < 0)
    return emitError() << "epilogue_passes must be >= 0, got "
                       << epiloguePasses;
  if (indexBitwidth != 32 && indexBitwidth != 64)
    return emitError() << "index_bitwidth must be 32 or 64, got "
                       << indexBitwidth;
  if (persistent && copies != CopyMode::Tma)
    return emitError() << "persistent blocks need copies = tma";
  if (blocksPerSM != 1 && blocksPerSM != 2)
    return emitError() << "blocks_per_sm must be 1 or 2, got " << blocksPerSM;
  if (!policy::clusterSizeSupported(clusterM))
    return emitError() << "cluster_m must be 1, 2 or 4, got " << clusterM;
  // (A TMA kernel's fallbacks, of element copies or 64-bit indices, keep
  // its pairs' tile order and launch: KernelSpec::verify checks the TMA
  // kernel itself.)
  if (clusterM > 1 && streamK)
    return emitError() << "cluster_m = " << clusterM
                       << " needs stream_k = false";
  if (blocksPerSM == 2 && (copies != CopyMode::Tma || persistent))
    return emitError() << "blocks_per_sm = 2 needs copies = tma and "
                          "persistent = false (a persistent grid has a block "
                          "an SM)";
  if (streamK && !persistent)
    return emitError() << "stream_k needs persistent = true (the blocks "
                          "share the last wave's tiles)";
  if (columnStores && (epiloguePasses == 0 || persistent))
    return emitError() << "column_stores needs the shared-memory epilogue "
                          "(epilogue_passes > 0) of a kernel that is not "
                          "persistent";
  return success();
}
