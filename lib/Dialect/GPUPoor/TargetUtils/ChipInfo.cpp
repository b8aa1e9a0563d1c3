//===- ChipInfo.cpp - facts about the chips gpupoor targets ---------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/ChipInfo.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::gpupoor;

static constexpr int64_t KiB = 1024;

// clang-format off
static constexpr ChipInfo kChips[] = {
  // chip        SMs  shared/SM  max/block  reserved  regs/SM    regs/thread  threads  wgmma
  {Chip::SM80,   108, 164 * KiB, 163 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    false},
  {Chip::SM86,    82, 100 * KiB,  99 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    false},
  {Chip::SM89,   128, 100 * KiB,  99 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    false},
  {Chip::SM90,   132, 228 * KiB, 227 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    false},
  {Chip::SM90a,  132, 228 * KiB, 227 * KiB, 1 * KiB,  64 * KiB, 255,         1024,    true},
};
// clang-format on

const ChipInfo &mlir::gpupoor::getChipInfo(Chip chip) {
  for (const ChipInfo &info : kChips)
    if (info.chip == chip)
      return info;
  llvm_unreachable("a chip without an entry in the chip table");
}
