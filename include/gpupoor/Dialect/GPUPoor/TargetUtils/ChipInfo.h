//===- ChipInfo.h - facts about the chips gpupoor targets -------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The policy's table of the hardware facts that kernel configuration and
// lowering read, so that no heuristic carries its own copy of a chip's
// numbers.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_CHIPINFO_H
#define GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_CHIPINFO_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

namespace mlir::gpupoor {

// The table lives with the policy (gpupoor/Policy/Chips.h), which the
// PyTorch package shares.
using policy::ChipInfo;
using policy::kWarpSize;

/// The facts of `chip`.
inline const ChipInfo &getChipInfo(Chip chip) {
  return policy::getChipInfo(toPolicy(chip));
}

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_TARGETUTILS_CHIPINFO_H
