//===- KernelConfig.h - tiles and kernel configurations ---------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Every heuristic that shapes a gpupoor kernel: the tile (asked for by
// gpupoor-split-k, since S follows the tile's K step) and the kernel
// configuration (gpupoor-select-kernel-config).
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_TRANSFORMS_KERNELCONFIG_H
#define GPUPOOR_TRANSFORMS_KERNELCONFIG_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::gpupoor {

/// A three-way option: auto (the measured choice), true or false.
enum class AutoChoice { Auto, Always, Never };
using MmaHandoverChoice = AutoChoice;
using PersistentChoice = AutoChoice;
using StreamKChoice = AutoChoice;
using SplitHandoverChoice = AutoChoice;

/// The spellings of such an option, saying where auto and true apply; for
/// the pass and the pipelines alike.
inline auto autoChoices(const char *autoApplies, const char *alwaysApplies) {
  return llvm::cl::values(clEnumValN(AutoChoice::Auto, "auto", autoApplies),
                          clEnumValN(AutoChoice::Always, "true", alwaysApplies),
                          clEnumValN(AutoChoice::Never, "false", "never"));
}
inline auto mmaHandoverChoices() {
  return autoChoices("for f32 outer sums of eight 64 x 64 warps",
                     "for f32 outer sums");
}
inline auto persistentChoices() {
  return autoChoices("static grids of two-warpgroup tiles beyond one wave",
                     "with tma and one K slice");
}
inline auto splitHandoverChoices() {
  return autoChoices("static products of at most two work tiles a block",
                     "sm_90a TMA kernels of two consumer warpgroups");
}
inline auto streamKChoices() {
  return autoChoices("see gpupoor-select-kernel-config",
                     "persistent kernels with f32 outer sums, not batched");
}

/// The tile [BM, BN, BK] that gpupoor-split-k takes when its options name
/// none, for a matmul of C type `init` and reduction size `k` (dynamic:
/// ShapedType::kDynamic) on `chip`. On sm_90a a tile the wgmma kernel does
/// not take (M <= 16) is for the mma.sync kernel the op is retargeted to.
SmallVector<int64_t, 3> selectTile(ShapedType init, int64_t k, Chip chip);

/// The swapped tile [BN, BM, BK] (see #gpupoor.split_k's `swapped`) that
/// gpupoor-split-k takes for a product of C type `init` and these layouts
/// on `chip` when its options name no tile, or std::nullopt where the
/// product keeps selectTile's tile: sm_90a's static 2-D decode products
/// (M <= 16, A M x K, B N x K) whose swapped 64-row tiles number up to two
/// blocks an SM.
/// `k`: the product's K; `splits`: the splits its options give (none: the
/// default), at most `maxSplits`. A 32-row tile (kThinSwappedTile) takes
/// one chunk a K tile: its splits are ceil(K / 256).
std::optional<SmallVector<int64_t, 3>>
selectSwappedTile(ShapedType init, ALayout aLayout, BLayout bLayout, Chip chip,
                  int64_t k, std::optional<int64_t> splits, int64_t maxSplits);

/// The swapped tile of 32 weight rows (KernelSpec::mmaRows) that
/// selectSwappedTile gives where 64-row tiles would take slices.
inline constexpr int64_t kThinSwappedTile[3] = {32, 16, 256};

/// Whether sm_90a's wgmma kernel can compute a product of these layouts
/// with `tile` (empty: the one selectTile gives): it reads K-major A and B
/// in 128-byte rows (BK = 64, or 128 or 256 as atoms of 64 columns), 64
/// rows a warpgroup (or a 32-row tile of BK >= 128 whose B tile holds at
/// least 32 x 64 elements: KernelSpec::mmaRows), at most 256 columns.
bool wgmmaTakes(ALayout aLayout, BLayout bLayout, ArrayRef<int64_t> tile);

/// The tile that stands for every matmul where no shape is known.
inline SmallVector<int64_t, 3> defaultTile() { return {128, 128, 32}; }

} // namespace mlir::gpupoor

#endif // GPUPOOR_TRANSFORMS_KERNELCONFIG_H
