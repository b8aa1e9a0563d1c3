//===- Chips.cpp - facts about the chips gpupoor targets ------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/Chips.h"

#include <cstdlib>

using namespace mlir::gpupoor::policy;

static constexpr int64_t KiB = 1024;

// clang-format off
static constexpr ChipInfo kChips[] = {
  // chip        SMs  shared/SM  max/block  reserved  regs/SM    regs/thread  threads  wgmma  clusters of 4
  {Chip::SM80,   108, 164 * KiB, 163 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    false, 0},
  {Chip::SM86,    82, 100 * KiB,  99 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    false, 0},
  {Chip::SM89,   128, 100 * KiB,  99 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    false, 0},
  {Chip::SM90,   132, 228 * KiB, 227 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    false, 0},
  {Chip::SM90a,  132, 228 * KiB, 227 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    true,  30},
};
// clang-format on

static constexpr std::pair<Chip, std::string_view> kNames[] = {
    {Chip::SM80, "sm_80"},
    {Chip::SM86, "sm_86"},
    {Chip::SM89, "sm_89"},
    {Chip::SM90, "sm_90"},
    {Chip::SM90a, "sm_90a"}};

const ChipInfo &mlir::gpupoor::policy::getChipInfo(Chip chip) {
  for (const ChipInfo &info : kChips)
    if (info.chip == chip)
      return info;
  // Every enumerator has a row; a cast from outside the enum does not.
  std::abort();
}

std::string_view mlir::gpupoor::policy::chipName(Chip chip) {
  for (auto [c, name] : kNames)
    if (c == chip)
      return name;
  std::abort();
}

std::optional<Chip> mlir::gpupoor::policy::parseChip(std::string_view name) {
  for (auto [c, spelling] : kNames)
    if (spelling == name)
      return c;
  return std::nullopt;
}
