//===- Tuned.cpp - the measured choices of the policy ---------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The tuned table: for classes of products (a chip, the operand layouts and
// the size classes of M, N and K), the family and slices that measured
// fastest on that chip (benchmarks/tune_policy.py writes the rows, one .def
// file a chip, from a device run whose measurements it also saves). The
// hand-written rules (Tiles.cpp, Splits.cpp) decide every product the table
// has no row for.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/KernelConfig.h"
#include "gpupoor/Policy/Policy.h"

namespace {
using namespace mlir::gpupoor::policy;

struct TunedRow {
  Chip chip;
  ALayout aLayout;
  BLayout bLayout;
  int64_t mClass, nClass, kClass;
  Family family;
  int64_t slices;
};

// clang-format off
#define GPUPOOR_TUNED(CHIP, A, B, M, N, K, FAMILY, SLICES)                     \
  {Chip::CHIP, ALayout::A, BLayout::B, M, N, K, Family::FAMILY, SLICES},
const TunedRow kTunedRows[] = {
#include "Tuned/SM90a.def"
    // (No class is -1: a row that never matches, so that the array is never
    // empty.)
    {Chip::SM80, ALayout::MK, BLayout::KN, -1, -1, -1, Family::Large, 0},
};
#undef GPUPOOR_TUNED
// clang-format on
} // namespace

int64_t mlir::gpupoor::policy::sizeClass(int64_t size) {
  int64_t c = 0;
  while ((int64_t(1) << c) < size)
    ++c;
  return c;
}

std::optional<TunedChoice>
mlir::gpupoor::policy::tunedChoice(const Problem &p) {
  if (p.tile || p.shape.batched || !p.shape.isStatic() || isDynamic(p.k))
    return std::nullopt;
  std::optional<TunedChoice> choice = p.forced;
  bool fromTable = false;
  if (!choice && p.useTable && rowsSectorAligned(p.shape.n, p.k)) {
    int64_t m = sizeClass(p.shape.m), n = sizeClass(p.shape.n),
            k = sizeClass(p.k);
    for (const TunedRow &r : kTunedRows)
      if (r.chip == p.chip && r.aLayout == p.aLayout &&
          r.bLayout == p.bLayout && r.mClass == m && r.nClass == n &&
          r.kClass == k) {
        choice = TunedChoice{r.family, r.slices};
        fromTable = true;
      }
  }
  // A row for a family the layouts have no kernel of (a table from another
  // version) is no choice. Nor is a row of the filling tiles' families: the
  // rules take them only where their one wave fits the SMs (selectTile),
  // while a class spans grids past it, where the compiler's kernel of 64 x
  // 160 or 64 x 192 would take two blocks an SM, which those families have
  // no variant of. (A forced one runs as asked.)
  bool filling =
      choice && isFillingTile(familyTile(choice->family, p.chip, p.bLayout));
  if (choice && ((fromTable && filling) ||
                 !familyBuilds(choice->family, p.chip, p.aLayout, p.bLayout)))
    return std::nullopt;
  return choice;
}
