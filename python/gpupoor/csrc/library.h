//===- library.h - the kernel library, as the launcher reads it -*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Which library chips a device runs and where a variant's kernels are is the
// Python package's business (gpupoor/_mlir_backend.py): it registers a
// resolver (setResolver), which the launcher asks once per device and once
// per variant; the manifests it hands over are read here into KernelInfo.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_PYTHON_LIBRARY_H
#define GPUPOOR_PYTHON_LIBRARY_H

#include "gpupoor/Policy/Checks.h"
#include "gpupoor/Policy/Policy.h"
#include "gpupoor/Runtime/RowCopyAbi.h"

#include <cuda.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpupoor::package {

namespace policy = mlir::gpupoor::policy;

enum class Epilogue { None, Bias, BiasRelu, BiasGelu };

/// The max_k_splits the library's variants are named and built with
/// (gpu_poor's default). They take S from the launch (splits-arg), so they
/// serve every call's max_k_splits, the default
/// (policy::kDefaultMaxSplits) too.
inline constexpr int64_t kLibraryMaxSplits = 32;

/// A library variant but its tile family (the launcher's to choose).
struct VariantKey {
  bool nk = true; // B's fast layout: unit stride along K (N x K rows)
  bool km = false; // A's: unit stride along M (K x M rows)
  bool f16Outer = false;
  Epilogue epilogue = Epilogue::None;
  bool f32Out = false;
  int64_t maxSplits = kLibraryMaxSplits;
  /// A batch of products (A, B and C rank 3, linalg.batch_matmul's):
  /// policy::familyBatched's families only.
  bool batched = false;
  /// A is a copy, M x K, of an A stored K x M (launchOperands): the
  /// policy's Problem::aCopiedFromKM, which chooses the f16 sums a chunk
  /// of such products. Not part of the variant's name.
  bool aCopiedFromKM = false;
};

/// The epilogue's name in variant names ("none", "bias", "bias_relu",
/// "bias_gelu").
const char *epilogueName(Epilogue e);

/// The variant's name (the library's directory name), with `family` as its
/// tile where given (without: for messages about the key).
std::string variantName(const VariantKey &key,
                        std::optional<policy::Family> family = std::nullopt);

/// A device's library chips, best first, and its SMs.
struct DeviceInfo {
  std::vector<std::string> chips;
  int64_t smCount = 0;
};

/// One kernel of a variant: its manifest, as the launcher reads it.
struct KernelInfo {
  std::string name, image, chip;
  std::vector<std::string> params, paramTypes;
  unsigned sharedBytes = 0, block = 0;
  bool dependent = false, persistent = false;
  /// A batched kernel (manifest batched): its parameters take the batch
  /// strides and count, its tensor maps the batch as a third dimension.
  bool batched = false;
  policy::Tile tile{};
  int64_t groupM = 1, sumsPerTileSlice = 0, workspacePerTileSlice = 0;
  /// The manifest's `splits` ("default" or S) and `split_rule` (the
  /// default rule's parameters by name).
  std::string splits;
  std::map<std::string, int64_t> splitRule;
  /// The f16 sums a chunk keeps (manifest sets).
  int64_t sets = 1;
  /// Stream-K (manifest stream_k): past the grid's whole waves the blocks
  /// share tiles, each leaving at most one tile's partial sums in its slot
  /// of workspacePerBlock bytes.
  bool streamK = false;
  int64_t workspacePerBlock = 0;
  /// Blocks a cluster along M (manifest cluster_m): the grid takes whole
  /// clusters of row tiles.
  int64_t clusterM = 1;
  policy::OperandChecks checks;
  /// A tensor map's box and encoding (cuTensorMapEncodeTiled's enums).
  struct MapInfo {
    /// The size its innermost dimension spans (global_dim[0]: "K", "N").
    std::string inner;
    unsigned box[2], elementStrides[2];
    CUtensorMapDataType dataType;
    CUtensorMapSwizzle swizzle;
    CUtensorMapL2promotion l2;
    CUtensorMapFloatOOBfill oob;
  };
  /// By parameter name (a_desc, b_desc, c_desc).
  std::map<std::string, MapInfo> maps;
};

/// A manifest's `checks` (a dict as its JSON gives it) as the policy's.
policy::OperandChecks checksOf(const pybind11::dict &checks);

/// A kernel's manifest (a dict as its JSON gives it) and image path.
KernelInfo kernelOf(const pybind11::dict &manifest, const std::string &image);

/// Refuses (ValueError) a kernel that evaluates S itself unless its
/// manifest's split rule is policy::splitRuleParams of its chip, tile and
/// `maxSplits`: the launcher plans its slices with that rule's S
/// (policy::tileNumSplits), and a kernel directory built by another
/// gpupoor would run another S.
void checkSplitRule(const KernelInfo &kernel, int64_t maxSplits);

/// Refuses a kernel of `family` whose f16 sums a chunk (its manifest's
/// sets) are not the ones this package's policy gives the family on its
/// chip and tile (policy::familySets): a library from another gpupoor
/// would round otherwise than the compiler's kernel of the same product.
void checkSets(const KernelInfo &kernel, policy::Family family);

/// What the policy's bounds checks read of a kernel besides its parameters.
policy::CheckedKernel checkedKernel(const KernelInfo &kernel);

/// A variant's kernels, in the order they are tried.
using Variant = std::vector<KernelInfo>;

/// Finds the variant of a key and family for a chip (with `prebuilt`: only
/// where a library root holds it); null where it is unavailable.
using Finder = std::function<std::shared_ptr<const Variant>(
    const std::string &chip, const VariantKey &key, policy::Family family,
    bool prebuilt)>;

/// Registers the package's resolver: `deviceInfo(index) -> (chips,
/// sm_count)`, `findVariant(chip, b_layout, outer, epilogue, out, family,
/// max_splits, prebuilt) -> [(manifest, image path)] or None` and
/// `findRowCopy(chip) -> (manifest, image path) or None` (or None itself);
/// forgets what the previous one said.
void setResolver(pybind11::object deviceInfo, pybind11::object findVariant,
                 pybind11::object findRowCopy);

/// The row-copy kernel (lib/Transforms/RowCopy.h; docs/reference/
/// kernel-abi.md) of a library, whose launch ABI is this package's
/// (gpupoor/Runtime/RowCopyAbi.h).
struct RowCopyKernel {
  KernelInfo info;
};

/// The row-copy kernel for `chip`, asked of the resolver once; null where
/// it has none, or one of another launch ABI (a warning).
std::shared_ptr<const RowCopyKernel> rowCopyKernel(const std::string &chip);

/// The resolver's answer for CUDA device `device`, asked once.
DeviceInfo deviceInfo(int device);

/// The resolver's variant, asked once per variant (the default Finder).
std::shared_ptr<const Variant> findVariant(const std::string &chip,
                                           const VariantKey &key,
                                           policy::Family family,
                                           bool prebuilt);

/// A Finder that asks `find` (as the resolver's findVariant) every time.
Finder finderOf(pybind11::object find);

} // namespace gpupoor::package

#endif // GPUPOOR_PYTHON_LIBRARY_H
