//===- library.cpp - the kernel library, as the launcher reads it ---------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "library.h"

#include "gpupoor/Policy/KernelConfig.h"
#include "gpupoor/Runtime/Driver.h"

#include <c10/util/Exception.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <iterator>
#include <mutex>

namespace py = pybind11;

namespace gpupoor::package {
namespace {

struct Resolver {
  py::object deviceInfo;  // index -> (chips best first, SM count)
  py::object findVariant; // (chip, key fields, family, prebuilt) -> kernels
  py::object findRowCopy; // chip -> (manifest, image) or None; or None
};

Resolver &resolver() {
  // Never destroyed: Python objects must not be released after the
  // interpreter is gone.
  static auto *r = new Resolver();
  return *r;
}

std::mutex cacheMutex;
std::map<int, DeviceInfo> devices;

std::map<std::string, std::shared_ptr<const Variant>> variants;
std::map<std::string, std::shared_ptr<const RowCopyKernel>> rowCopies;

namespace rowcopy = mlir::gpupoor::rowcopy;

template <typename T> T field(const py::dict &d, const char *key, T otherwise) {
  return d.contains(key) ? d[key].cast<T>() : otherwise;
}

int enumOf(const std::string &what, const std::string &value,
           std::initializer_list<std::pair<const char *, int>> known) {
  for (auto [name, v] : known)
    if (value == name)
      return v;
  TORCH_CHECK_VALUE(false, "kernel manifest: unknown ", what, " '", value, "'");
}

/// A variant from `find_variant`'s answer (a list of (manifest, image)
/// pairs, or None).
std::shared_ptr<const Variant> variantOf(const py::object &got,
                                         const std::string &name) {
  if (got.is_none())
    return nullptr;
  auto v = std::make_shared<Variant>();
  for (py::handle kernel : got) {
    auto pair = kernel.cast<py::tuple>();
    v->push_back(
        kernelOf(pair[0].cast<py::dict>(), pair[1].cast<std::string>()));
  }
  TORCH_CHECK_VALUE(!v->empty(), "variant ", name, " has no kernels");
  return v;
}

/// `find`'s variant (a find_variant as set_resolver takes it); the caller
/// holds the GIL.
std::shared_ptr<const Variant> ask(const py::object &find,
                                   const std::string &chip,
                                   const VariantKey &key, policy::Family family,
                                   bool prebuilt) {
  return variantOf(find(chip, key.nk ? "nk" : "kn",
                        key.f16Outer ? "f16" : "f32",
                        epilogueName(key.epilogue), key.f32Out ? "f32" : "f16",
                        std::string(policy::familyName(family)), key.maxSplits,
                        prebuilt, key.km ? "km" : "mk", key.batched),
                   chip + "/" + variantName(key, family));
}

} // namespace

policy::OperandChecks checksOf(const py::dict &checks) {
  policy::OperandChecks c;
  auto names = [&](const char *key) {
    return field<std::vector<std::string>>(checks, key, {});
  };
  c.unitStride = names("unit_stride");
  c.strideMultipleOf8 = names("stride_multiple_of_8");
  c.pointerAligned16 = names("pointer_aligned_16");
  for (const auto &pair : field<std::vector<std::vector<std::string>>>(
           checks, "positive_row_stride", {})) {
    TORCH_CHECK_VALUE(pair.size() == 2,
                      "positive_row_stride holds [stride, rows] pairs");
    c.positiveRowStride.push_back({pair[0], pair[1]});
  }
  auto number = [&](const char *key) -> std::optional<int64_t> {
    if (!checks.contains(key))
      return std::nullopt;
    return checks[key].cast<int64_t>();
  };
  c.maxWorkTiles = number("max_work_tiles");
  c.maxSize = number("max_size");
  c.maxOffset = number("max_offset");
  TORCH_CHECK_VALUE(c.maxSize.has_value() == c.maxOffset.has_value(),
                    "checks name max_size and max_offset together");
  return c;
}

KernelInfo kernelOf(const py::dict &m, const std::string &image) {
  KernelInfo k;
  k.name = m["kernel"].cast<std::string>();
  k.image = image;
  k.chip = m["chip"].cast<std::string>();
  k.params = m["params"].cast<std::vector<std::string>>();
  k.paramTypes = m["param_types"].cast<std::vector<std::string>>();
  TORCH_CHECK_VALUE(
      k.params.size() == k.paramTypes.size() && k.params.size() <= 64,
      "kernel manifest of ", k.name, ": params and param_types differ");
  k.sharedBytes = m["dynamic_shared_memory"].cast<unsigned>();
  k.block = m["block_size"].cast<unsigned>();
  k.dependent = field<bool>(m, "dependent_launch", false);
  k.persistent = field<bool>(m, "persistent", false);
  k.batched = field<bool>(m, "batched", false);
  k.streamK = field<bool>(m, "stream_k", false);
  k.workspacePerBlock = field<int64_t>(m, "workspace_bytes_per_block", 0);
  TORCH_CHECK_VALUE(!k.streamK || (k.persistent && k.workspacePerBlock > 0),
                    "kernel manifest of ", k.name,
                    ": stream_k without persistent blocks and "
                    "workspace_bytes_per_block");
  auto tile = m["tile"].cast<std::vector<int64_t>>();
  TORCH_CHECK_VALUE(tile.size() == 3, "kernel manifest of ", k.name, ": tile");
  k.tile = {tile[0], tile[1], tile[2]};
  k.groupM = field<int64_t>(m, "group_m", 1);
  if (m.contains("splits"))
    k.splits = py::str(m["splits"]).cast<std::string>();
  if (m.contains("split_rule"))
    for (auto item : m["split_rule"].cast<py::dict>())
      k.splitRule[item.first.cast<std::string>()] = item.second.cast<int64_t>();
  k.sets = field<int64_t>(m, "sets", 1);
  k.clusterM = field<int64_t>(m, "cluster_m", 1);
  TORCH_CHECK_VALUE(mlir::gpupoor::policy::clusterSizeSupported(k.clusterM),
                    "kernel manifest of ", k.name, ": cluster_m ", k.clusterM);
  // A tile's sums of a slice: every row its MMAs compute (sm_90a: at least
  // 64), in elements of the outer type.
  int64_t outerBytes = field<std::string>(m, "outer", "f32") == "f16" ? 2 : 4;
  k.workspacePerTileSlice = field<int64_t>(m, "workspace_bytes_per_tile_slice",
                                           tile[0] * tile[1] * outerBytes);
  k.sumsPerTileSlice = k.workspacePerTileSlice / outerBytes;
  if (m.contains("checks"))
    k.checks = checksOf(m["checks"].cast<py::dict>());
  if (m.contains("tensor_maps"))
    for (auto item : m["tensor_maps"].cast<py::dict>()) {
      auto name = item.first.cast<std::string>();
      if (name == "note")
        continue;
      auto spec = item.second.cast<py::dict>();
      auto box = spec["box_dim"].cast<std::vector<unsigned>>();
      auto strides = spec["element_strides"].cast<std::vector<unsigned>>();
      // A batched kernel's maps take the batch third, a box of one element.
      size_t rank = k.batched ? 3 : 2;
      TORCH_CHECK_VALUE(box.size() == rank && strides.size() == rank &&
                            (rank == 2 || (box[2] == 1 && strides[2] == 1)),
                        "kernel manifest of ", k.name, ": tensor map ", name,
                        k.batched ? " is not 3-D in boxes of one batch element"
                                  : " is not 2-D");
      KernelInfo::MapInfo map;
      auto dims = spec["global_dim"].cast<std::vector<std::string>>();
      TORCH_CHECK_VALUE(!dims.empty(), "kernel manifest of ", k.name,
                        ": tensor map ", name, " has no dimensions");
      map.inner = dims.front();
      std::copy(box.begin(), box.begin() + 2, map.box);
      std::copy(strides.begin(), strides.begin() + 2, map.elementStrides);
      map.dataType = CUtensorMapDataType(
          enumOf("data_type", spec["data_type"].cast<std::string>(),
                 {{"float16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16}}));
      map.swizzle = CUtensorMapSwizzle(
          enumOf("swizzle", spec["swizzle"].cast<std::string>(),
                 {{"none", CU_TENSOR_MAP_SWIZZLE_NONE},
                  {"32B", CU_TENSOR_MAP_SWIZZLE_32B},
                  {"64B", CU_TENSOR_MAP_SWIZZLE_64B},
                  {"128B", CU_TENSOR_MAP_SWIZZLE_128B}}));
      // A box row is one swizzle span (or 16 unswizzled bytes), as the
      // kernel's shared tiles (runtime::encodeTensorMap refuses other maps).
      TORCH_CHECK_VALUE(gpupoor::runtime::boxRowSwizzleFits(
                            map.swizzle, int64_t{map.box[0]} * 2),
                        "kernel manifest of ", k.name, ": tensor map ", name,
                        " swizzles ", spec["swizzle"].cast<std::string>(),
                        " across a box row of ", map.box[0] * 2, " bytes");
      map.l2 = CUtensorMapL2promotion(
          enumOf("l2_promotion", spec["l2_promotion"].cast<std::string>(),
                 {{"none", CU_TENSOR_MAP_L2_PROMOTION_NONE},
                  {"64B", CU_TENSOR_MAP_L2_PROMOTION_L2_64B},
                  {"128B", CU_TENSOR_MAP_L2_PROMOTION_L2_128B},
                  {"256B", CU_TENSOR_MAP_L2_PROMOTION_L2_256B}}));
      map.oob = CUtensorMapFloatOOBfill(
          enumOf("oob_fill", spec["oob_fill"].cast<std::string>(),
                 {{"zero", CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE}}));
      k.maps.emplace(name, map);
    }
  return k;
}

void checkSplitRule(const KernelInfo &k, int64_t maxSplits) {
  auto stale = [&](const std::string &what) {
    TORCH_CHECK_VALUE(false, "kernel manifest of ", k.name, ": ", what,
                      ", not the split rule this package plans for, while "
                      "the kernel evaluates S itself; rebuild the kernel "
                      "library (python -m gpupoor.build_library) or point "
                      "GPUPOOR_KERNEL_DIR at one this gpupoor built");
  };
  if (k.splits != "default")
    stale("S fixed at " + (k.splits.empty() ? "none" : k.splits));
  std::optional<policy::Chip> chip = policy::parseChip(k.chip);
  TORCH_CHECK_VALUE(chip, "kernel manifest of ", k.name, ": unknown chip ",
                    k.chip);
  std::vector<policy::SplitRuleParam> want =
      policy::splitRuleParams(*chip, k.tile, maxSplits);
  for (const policy::SplitRuleParam &param : want) {
    auto it = k.splitRule.find(param.name);
    int64_t got = it == k.splitRule.end() ? 0 : it->second;
    if (got != param.value)
      stale(std::string("split_rule.") + param.name + " " +
            std::to_string(got) +
            " (this package's: " + std::to_string(param.value) + ")");
  }
  for (const auto &[name, value] : k.splitRule)
    if (std::none_of(want.begin(), want.end(),
                     [&](const auto &param) { return name == param.name; }))
      stale("split_rule." + name + " " + std::to_string(value) +
            " (this package's rule has no " + name + ")");
}

void checkSets(const KernelInfo &k, policy::Family family) {
  std::optional<policy::Chip> chip = policy::parseChip(k.chip);
  TORCH_CHECK_VALUE(chip, "kernel manifest of ", k.name, ": unknown chip ",
                    k.chip);
  int64_t want = policy::familySets(family, *chip, k.tile);
  // The message is composed here, as checkSplitRule's: on the GPU machine
  // TORCH_CHECK's own formatting of these arguments crashed (a fault under
  // its ostream insertion, in library.cpp's build there).
  if (k.sets != want)
    TORCH_CHECK_VALUE(
        false, "kernel manifest of " + k.name + ": sets " +
                   std::to_string(k.sets) +
                   ", not the f16 sums a chunk this package gives its "
                   "family " +
                   std::string(policy::familyName(family)) + " (" +
                   std::to_string(want) +
                   "): a kernel of another gpupoor; rebuild the kernel "
                   "library (python -m gpupoor.build_library) with this "
                   "gpupoor's gpupoor-opt, or point GPUPOOR_KERNEL_DIR at "
                   "one it built");
}

policy::CheckedKernel checkedKernel(const KernelInfo &kernel) {
  return {kernel.tile, kernel.groupM, kernel.sumsPerTileSlice, kernel.clusterM};
}

const char *epilogueName(Epilogue e) {
  switch (e) {
  case Epilogue::None:
    return "none";
  case Epilogue::Bias:
    return "bias";
  case Epilogue::BiasRelu:
    return "bias_relu";
  case Epilogue::BiasGelu:
    return "bias_gelu";
  }
  return "none";
}

std::string variantName(const VariantKey &key,
                        std::optional<policy::Family> family) {
  std::string tile =
      family ? std::string(policy::familyName(*family)) + "_" : "";
  // A batched variant prefixes its layouts with "b" (bnk, bkmkn).
  return std::string(key.batched ? "b" : "") + (key.km ? "km" : "") +
         (key.nk ? "nk" : "kn") + "_" + (key.f16Outer ? "f16" : "f32") + "_" +
         epilogueName(key.epilogue) + "_" + (key.f32Out ? "f32" : "f16") + "_" +
         tile + "s" + std::to_string(key.maxSplits);
}

void setResolver(py::object deviceInfo, py::object findVariant,
                 py::object findRowCopy) {
  std::lock_guard<std::mutex> guard(cacheMutex);
  resolver().deviceInfo = std::move(deviceInfo);
  resolver().findVariant = std::move(findVariant);
  resolver().findRowCopy = std::move(findRowCopy);
  devices.clear();
  variants.clear();
  rowCopies.clear();
}

std::shared_ptr<const RowCopyKernel> rowCopyKernel(const std::string &chip) {
  {
    std::lock_guard<std::mutex> guard(cacheMutex);
    auto it = rowCopies.find(chip);
    if (it != rowCopies.end())
      return it->second;
  }
  std::shared_ptr<RowCopyKernel> kernel;
  {
    py::gil_scoped_acquire gil;
    py::object got = resolver().findRowCopy && !resolver().findRowCopy.is_none()
                         ? resolver().findRowCopy(chip)
                         : py::none();
    if (!got.is_none()) {
      auto pair = got.cast<py::tuple>();
      auto manifest = pair[0].cast<py::dict>();
      kernel = std::make_shared<RowCopyKernel>();
      KernelInfo &k = kernel->info;
      k.name = manifest["kernel"].cast<std::string>();
      k.image = pair[1].cast<std::string>();
      k.chip = chip;
      k.block = manifest["block_size"].cast<unsigned>();
      k.params = manifest["params"].cast<std::vector<std::string>>();
      // The launch is this package's (copyRows): a kernel of another ABI
      // (another gpupoor's library) is not launched; torch copies instead.
      int64_t chunk = field<int64_t>(manifest, "chunk_elements", 0);
      if (!std::equal(k.params.begin(), k.params.end(),
                      std::begin(rowcopy::kRowCopyParams),
                      std::end(rowcopy::kRowCopyParams)) ||
          k.block != rowcopy::kRowCopyBlockSize ||
          chunk != rowcopy::kRowCopyChunkElems) {
        TORCH_WARN("gpupoor: the row-copy kernel ", k.image,
                   " has another launch ABI than this package's "
                   "(gpupoor/Runtime/RowCopyAbi.h); padded copies by torch");
        kernel = nullptr;
      }
    }
  }
  std::lock_guard<std::mutex> guard(cacheMutex);
  return rowCopies.emplace(chip, std::move(kernel)).first->second;
}

DeviceInfo deviceInfo(int device) {
  {
    std::lock_guard<std::mutex> guard(cacheMutex);
    auto it = devices.find(device);
    if (it != devices.end())
      return it->second;
  }
  DeviceInfo info;
  {
    py::gil_scoped_acquire gil;
    TORCH_CHECK(resolver().deviceInfo, "gpupoor's launcher has no resolver: "
                                       "import gpupoor, not gpupoor._C alone");
    auto got = resolver().deviceInfo(device).cast<py::tuple>();
    info.chips = got[0].cast<std::vector<std::string>>();
    info.smCount = got[1].cast<int64_t>();
  }
  std::lock_guard<std::mutex> guard(cacheMutex);
  return devices.emplace(device, info).first->second;
}

/// The variant of `key` and `family` for `chip`: null where the library
/// lacks it (with `prebuilt`: where no library root holds it; else also
/// where it cannot be compiled).
std::shared_ptr<const Variant> findVariant(const std::string &chip,
                                           const VariantKey &key,
                                           policy::Family family,
                                           bool prebuilt) {
  std::string name = chip + "/" + variantName(key, family);
  {
    std::lock_guard<std::mutex> guard(cacheMutex);
    auto it = variants.find(name);
    if (it != variants.end())
      return it->second;
  }
  std::shared_ptr<const Variant> found;
  {
    py::gil_scoped_acquire gil;
    found = ask(resolver().findVariant, chip, key, family, prebuilt);
    if (!found)
      return nullptr;
  }
  std::lock_guard<std::mutex> guard(cacheMutex);
  return variants.emplace(name, found).first->second;
}

Finder finderOf(py::object find) {
  return [find](const std::string &chip, const VariantKey &key,
                policy::Family family, bool prebuilt) {
    py::gil_scoped_acquire gil;
    return ask(find, chip, key, family, prebuilt);
  };
}

} // namespace gpupoor::package
