//===- policy.cpp - gpupoor._C: the policy library for the package --------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The package's launcher asks the compiler's own policy (gpupoor/Policy)
// what to launch: the same functions gpupoor-split-k calls, compiled into
// the extension from lib/Policy (setup.py), so that no rule has a Python
// copy.
//
//===----------------------------------------------------------------------===//

#include "launcher.h"

#include "gpupoor/Policy/Checks.h"
#include "gpupoor/Policy/KernelConfig.h"
#include "gpupoor/Policy/Policy.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>

#include <stdexcept>
#include <string>

namespace py = pybind11;
using namespace pybind11::literals;
using namespace mlir::gpupoor::policy;

namespace {

Chip chipArg(const std::string &name) {
  if (std::optional<Chip> chip = parseChip(name))
    return *chip;
  throw py::value_error("chip must be one of sm_80, sm_86, sm_89, sm_90, "
                        "sm_90a, got '" +
                        name + "'");
}

BLayout bLayoutArg(const std::string &name) {
  if (name == "kn" || name == "nk")
    return name == "nk" ? BLayout::NK : BLayout::KN;
  throw py::value_error("b_layout must be 'kn' or 'nk', got '" + name + "'");
}

ALayout aLayoutArg(const std::string &name) {
  if (name == "mk" || name == "km")
    return name == "km" ? ALayout::KM : ALayout::MK;
  throw py::value_error("a_layout must be 'mk' or 'km', got '" + name + "'");
}

Family familyArg(const std::string &name) {
  if (std::optional<Family> family = parseFamily(name))
    return *family;
  throw py::value_error("unknown kernel family '" + name + "'");
}

/// Sizes the policy takes: >= 0 (the launcher's M, N, K are > 0; a count
/// such as the SMs > 0).
int64_t sizeArg(const char *name, int64_t value, int64_t least = 0) {
  if (value < least)
    throw py::value_error(std::string(name) +
                          " must be >= " + std::to_string(least) + ", got " +
                          std::to_string(value));
  return value;
}

Tile tileArg(const std::vector<int64_t> &tile) {
  if (tile.size() != 3 || tile[0] < 1 || tile[1] < 1 || tile[2] < 1)
    throw py::value_error("tile must be three sizes >= 1 (BM, BN, BK)");
  return {tile[0], tile[1], tile[2]};
}

py::tuple tileTuple(const Tile &t) { return py::make_tuple(t[0], t[1], t[2]); }

py::dict chooseLaunchPy(const std::string &chip, int64_t m, int64_t n,
                        int64_t k, const std::string &bLayout, int64_t slices,
                        int64_t maxSplits, int64_t smCount,
                        const std::string &aLayout, bool tuned, int64_t batch,
                        bool elementReads) {
  Problem p;
  p.elementReads = elementReads;
  // batch 0: a 2-D product; else a batch of that many (linalg.batch_matmul).
  p.shape.batched = sizeArg("batch", batch) > 0;
  p.shape.batch = std::max<int64_t>(batch, 1);
  p.useTable = tuned;
  p.chip = chipArg(chip);
  p.aLayout = aLayoutArg(aLayout);
  p.shape.m = sizeArg("m", m, 1);
  p.shape.n = sizeArg("n", n, 1);
  p.k = sizeArg("k", k, 1);
  p.bLayout = bLayoutArg(bLayout);
  p.slices = sizeArg("slices", slices);
  p.maxSplits = sizeArg("max_splits", maxSplits, 1);
  p.smCount = sizeArg("sm_count", smCount, 1);
  if (!withinSizeLimits(p.shape, p.k))
    throw py::value_error("the operands must hold at most 2^48 elements "
                          "each (batch * m * n, m * k, k * n)");
  Launch l = chooseLaunch(p);
  return py::dict("family"_a = std::string(familyName(l.family)),
                  "a_layout"_a = l.aLayout == ALayout::KM ? "km" : "mk",
                  "asked_slices"_a = l.askedSlices,
                  "chip"_a = std::string(chipName(l.chip)),
                  "tile"_a = tileTuple(l.tile), "swapped"_a = l.swapped,
                  "splits"_a = l.splits, "slices"_a = l.slices,
                  "sets"_a = l.sets, "tiles"_a = l.tiles,
                  "grid"_a = py::make_tuple(l.gridX, l.gridY));
}

/// The rules of the copies into padded rows (policy::copiesUnalignedOperands,
/// rowAlignBytes).
void bindCopyRules(py::module_ &m) {
  m.def(
      "copies_unaligned_operands",
      [](int64_t m, int64_t n, int64_t k, int64_t aRowBytes, int64_t bRowBytes,
         const std::string &chip, const std::string &bLayout, int64_t smCount) {
        for (int64_t bytes : {aRowBytes, bRowBytes})
          if (bytes != 2 && bytes != 4 && bytes != 8 && bytes != kRowAlignBytes)
            throw py::value_error(
                "a_row_bytes and b_row_bytes must be 2, 4, 8 or 16, got " +
                std::to_string(aRowBytes) + " and " +
                std::to_string(bRowBytes));
        Problem p;
        p.chip = chipArg(chip);
        p.shape = CShape{false, 1, sizeArg("m", m, 1), sizeArg("n", n, 1)};
        p.k = sizeArg("k", k, 1);
        p.bLayout = bLayoutArg(bLayout);
        p.smCount = sizeArg("sm_count", smCount);
        return copiesUnalignedOperands(p, aRowBytes, bRowBytes);
      },
      "m"_a, "n"_a, "k"_a, "a_row_bytes"_a = 2, "b_row_bytes"_a = 2,
      "chip"_a = "sm_90a", "b_layout"_a = "nk", "sm_count"_a = 0,
      "Whether a call copies operands whose rows lie off 16 bytes into "
      "padded rows before an M x K by K x N product ("
      "copiesUnalignedOperands; a batch's element counts), A's and B's rows "
      "lying on a_row_bytes and b_row_bytes (16: as the fast kernels read "
      "them, 8 or 4: read in cp.async pieces, 2: by elements), on `chip` "
      "with `sm_count` SMs (0: the chip's), B stored as `b_layout` says.");
  m.def(
      "row_align_bytes",
      [](int64_t offsetElems, int64_t rowStride, int64_t batchStride) {
        return rowAlignBytes(offsetElems, rowStride, batchStride);
      },
      "offset_elems"_a, "row_stride"_a, "batch_stride"_a = 0,
      "The bytes (16, 8, 4 or 2) an f16 operand's start (elements past a "
      "16-byte aligned base) and its strides between rows and batch "
      "elements are all multiples of (rowAlignBytes; a stride of 0 "
      "counts as any), as copies_unaligned_operands takes them.");
}

/// `cluster_m`, checked: 1, 2 or 4.
int64_t clusterArg(int64_t clusterM) {
  if (!clusterSizeSupported(clusterM))
    throw py::value_error("cluster_m must be 1, 2 or 4, got " +
                          std::to_string(clusterM));
  return clusterM;
}

/// gpupoor._C.violation: policy::violation of a manifest's `checks`.
std::optional<std::string>
violationOf(const py::dict &checks, const std::vector<int64_t> &tile,
            int64_t groupM, int64_t sliceSumElems,
            const std::map<std::string, int64_t> &args, int64_t slices,
            int64_t clusterM) {
  CheckedKernel kernel{tileArg(tile), sizeArg("group_m", groupM, 1),
                       sizeArg("slice_sum_elems", sliceSumElems),
                       clusterArg(clusterM)};
  return violation(gpupoor::package::checksOf(checks), kernel, args,
                   sizeArg("slices", slices, 1));
}

} // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "gpupoor's native extension: the compiler's policy library, the "
            "gpupoor::split_k_matmul operator and its launcher";
  gpupoor::package::bindLauncher(m);
  gpupoor::package::bindOps(m);
  m.def(
      "default_splits",
      [](int64_t k, int64_t maxSplits) {
        return defaultNumSplits(sizeArg("k", k),
                                sizeArg("max_splits", maxSplits, 1));
      },
      "k"_a, "max_splits"_a,
      "S for K: gpu_poor's next_pow2(floor(sqrt(ceil(K / 32)))), at least 12 "
      "from ceil(K / 32) = 64 on, clamped to [1, max_splits].");
  m.def(
      "launch_slices",
      [](int64_t slices, const std::string &chip,
         const std::vector<int64_t> &tile, int64_t k, int64_t tiles,
         int64_t splits, int64_t smCount) {
        return launchSlices(
            sizeArg("slices", slices), chipArg(chip), tileArg(tile),
            sizeArg("k", k), sizeArg("tiles", tiles),
            sizeArg("splits", splits, 1), sizeArg("sm_count", smCount, 1));
      },
      "slices"_a, "chip"_a, "tile"_a, "k"_a, "tiles"_a, "splits"_a,
      "sm_count"_a,
      "P' for a kernel of `chip` and `tile` (the manifest's) over `tiles` C "
      "tiles: min(slices, S), or for slices = 0 the automatic count (one "
      "slice for sm_90a's kernels below K = 2048).");
  m.def("choose_launch", &chooseLaunchPy, "chip"_a, "m"_a, "n"_a, "k"_a,
        "b_layout"_a, "slices"_a, "max_splits"_a, "sm_count"_a,
        "a_layout"_a = "mk", "tuned"_a = true, "batch"_a = 0,
        "element_reads"_a = false,
        "What to launch for an M x K by K x N product (batch > 0: a batch of "
        "that many) on a device of `sm_count` "
        "SMs from `chip`'s library: the kernel family, the A layout its "
        "variant reads, its chip and tile, whether it computes C^T, S, P', the "
        "f16 sums a chunk keeps (sets), its C tiles and grid (tuned=False: by "
        "the rules alone, without the tuned "
        "table; element_reads: an operand's rows lie off 16 bytes, which the "
        "element kernels read).");
  m.def(
      "size_class",
      [](int64_t size) { return sizeClass(sizeArg("size", size, 1)); },
      "size"_a, "The tuned table's class of a size: ceil(log2(size)).");
  m.def(
      "family_tile",
      [](const std::string &family, const std::string &chip,
         const std::string &bLayout) {
        return tileTuple(
            familyTile(familyArg(family), chipArg(chip), bLayoutArg(bLayout)));
      },
      "family"_a, "chip"_a, "b_layout"_a,
      "The tile of a family's kernels on `chip`.");
  m.def(
      "family_config",
      [](const std::string &family, const std::string &chip, bool batched) {
        FamilyConfig c =
            familyConfig(familyArg(family), chipArg(chip), batched);
        return py::dict(
            "stages"_a = c.stages, "blocks_per_sm"_a = c.blocksPerSM,
            "persistent"_a = c.persistent, "split_handover"_a = c.splitHandover,
            "cluster_m"_a = c.clusterM, "stream_k"_a = c.streamK,
            "column_stores"_a = c.columnStores, "sets"_a = c.sets);
      },
      "family"_a, "chip"_a, "batched"_a = false,
      "How the library compiles a family's kernels for `chip` besides its "
      "tile (0 or False: the compiler's choice), batched or not.");
  m.def(
      "family_builds",
      [](const std::string &family, const std::string &chip,
         const std::string &bLayout, const std::string &aLayout, bool batched) {
        return familyBuilds(familyArg(family), chipArg(chip),
                            aLayoutArg(aLayout), bLayoutArg(bLayout), batched);
      },
      "family"_a, "chip"_a, "b_layout"_a, "a_layout"_a = "mk",
      "batched"_a = false,
      "Whether the library holds the family for `chip`, `b_layout` and "
      "`a_layout`, batched (a batch of products) or not.");
  m.def(
      "launch_grid",
      [](int64_t tiles, int64_t slices, bool persistent, int64_t smCount,
         int64_t clusterM) {
        auto [x, y] = launchGrid(
            sizeArg("tiles", tiles), sizeArg("slices", slices, 1), persistent,
            sizeArg("sm_count", smCount, 1), clusterArg(clusterM));
        return py::make_tuple(x, y);
      },
      "tiles"_a, "slices"_a, "persistent"_a, "sm_count"_a, "cluster_m"_a = 1,
      "The grid (x, y) of a launch of `tiles` C tiles in `slices` slices "
      "(a persistent one in whole clusters of `cluster_m` blocks).");
  m.def("violation", &violationOf, "checks"_a, "tile"_a, "group_m"_a,
        "slice_sum_elems"_a, "args"_a, "slices"_a, "cluster_m"_a = 1,
        "Why a kernel whose manifest has these `checks` cannot take the "
        "parameter "
        "values `args` (by ABI name; M, N, K nonzero) launched with `slices` "
        "slices (in clusters of `cluster_m` blocks along M), or None when "
        "every check holds (gpupoor/Policy/Checks.h).");
  m.def(
      "family_info",
      [](const std::string &name) {
        Family family = familyArg(name);
        auto builds = [&](ALayout a) {
          return familyBuilds(family, Chip::SM90a, a, BLayout::NK) ||
                 familyBuilds(family, Chip::SM90a, a, BLayout::KN);
        };
        bool mk = builds(ALayout::MK);
        // (Each B layout with an A layout the family has kernels for.)
        ALayout a = mk ? ALayout::MK : ALayout::KM;
        return py::dict(
            "swapped"_a = familySwapped(family),
            "persistent"_a = familyPersistent(family),
            "sm90a_only"_a =
                !familyBuilds(family, Chip::SM80, ALayout::MK, BLayout::NK) &&
                !familyBuilds(family, Chip::SM80, ALayout::MK, BLayout::KN),
            "nk_only"_a = !familyBuilds(family, Chip::SM90a, a, BLayout::KN),
            "kn_only"_a = !familyBuilds(family, Chip::SM90a, a, BLayout::NK),
            "mk"_a = mk, "km"_a = builds(ALayout::KM),
            "batched"_a = familyBatched(family));
      },
      "family"_a,
      "Whether the family's kernels compute C^T, loop over tiles, are "
      "sm_90a's only, are for B as N x K only, are for B as K x N only, and "
      "are built for A as M x K and for A as K x M (sm_90a), and have "
      "batched variants.");
  py::list families;
  for (Family f : kFamilies)
    families.append(std::string(familyName(f)));
  m.attr("FAMILIES") = py::tuple(families);
  // The default max_k_splits (max-splits), and the one the library's
  // variants are named and built with (they take S from the launch: any
  // call's max_k_splits runs on them).
  m.attr("DEFAULT_MAX_SPLITS") = kDefaultMaxSplits;
  // The most chunks (max_k_splits) and slices a call takes.
  m.attr("MAX_SPLITS") = kMaxSplits;
  m.attr("MAX_SLICES") = kMaxSlices;
  m.attr("LIBRARY_MAX_SPLITS") = gpupoor::package::kLibraryMaxSplits;
  bindCopyRules(m);
}
