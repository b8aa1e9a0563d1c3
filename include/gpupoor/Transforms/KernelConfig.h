//===- KernelConfig.h - tiles and kernel configurations ---------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The kernel configuration's options (gpupoor-select-kernel-config) and the
// policy's tile rules on the dialect's types.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_TRANSFORMS_KERNELCONFIG_H
#define GPUPOOR_TRANSFORMS_KERNELCONFIG_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "gpupoor/Policy/Tiles.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::gpupoor {

/// A three-way option: auto (the measured choice), true or false.
enum class AutoChoice { Auto, Always, Never };
using MmaHandoverChoice = AutoChoice;
using PersistentChoice = AutoChoice;
using StreamKChoice = AutoChoice;
using SplitHandoverChoice = AutoChoice;
using SwapChoice = AutoChoice;

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
  return autoChoices("static products of at most two work tiles a block, "
                     "or in tiles narrower than 256 columns",
                     "sm_90a TMA kernels of two consumer warpgroups");
}
inline auto swapChoices() {
  return autoChoices("the rules' transposed products (decode tiles, few "
                     "rows, clusters that spill a wave) and the tuned "
                     "table's",
                     "2-D products on sm_90a, C^T = B^T A^T in `tile` (the "
                     "transposed product's) or the tile the rules give the "
                     "transposed shape");
}
inline auto streamKChoices() {
  return autoChoices("static persistent grids whose last wave is short",
                     "persistent kernels with f32 outer sums, not batched");
}

/// policy::wgmmaTakes of a tile as the dialect holds it (empty: the one
/// the policy chooses).
inline bool wgmmaTakes(ALayout aLayout, BLayout bLayout,
                       ArrayRef<int64_t> tile) {
  return policy::wgmmaTakes(toPolicy(aLayout), toPolicy(bLayout),
                            tile.empty() ? std::nullopt
                                         : std::optional(toPolicyTile(tile)));
}

/// The tile that stands for every matmul where no shape is known.
inline SmallVector<int64_t, 3> defaultTile() {
  return SmallVector<int64_t, 3>(policy::kDefaultTile.begin(),
                                 policy::kDefaultTile.end());
}

} // namespace mlir::gpupoor

#endif // GPUPOOR_TRANSFORMS_KERNELCONFIG_H
