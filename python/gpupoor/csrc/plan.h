//===- plan.h - a launch worked out once ------------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Everything a launch needs but the call's pointers and workspace: the
// variant (the policy's family for the device's best chip that has it), its
// first kernel whose checks hold, the slices, grid and parameter values, and
// the tensor maps' specs.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_PYTHON_PLAN_H
#define GPUPOOR_PYTHON_PLAN_H

#include "library.h"
#include "loader.h"

#include "gpupoor/Runtime/Driver.h"

#include <ATen/core/Tensor.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace gpupoor::package {

/// A TMA kernel's tensor map: everything but the operand's address.
struct MapPlan {
  int slot;
  int operand; // the call's A (0), B (1) or C (2)
  runtime::TensorMapSpec spec;
};

/// A CUtensorMap, 64-byte aligned as its kernel parameter is.
struct alignas(64) MapBytes {
  CUtensorMap map;
};

/// A launch of one kernel for one (variant, device, sizes, strides,
/// pointer alignment, slices).
struct Plan {
  const KernelInfo *info = nullptr;
  std::shared_ptr<const Variant> variant;      // keeps `info` alive
  std::atomic<LoadedKernel *> loaded{nullptr}; // at the first launch
  unsigned gridX = 1, gridY = 1;
  int64_t slices = 1, tiles = 0, sumBytes = 0;
  std::string family;
  bool swapped = false;
  /// One 8-byte slot a parameter (i32 values in the low half); pointers
  /// filled per call; a tensor map's parameter points at its bytes instead.
  std::vector<uint64_t> values;
  int aSlot = -1, bSlot = -1, cSlot = -1, biasSlot = -1, wsSlot = -1;
  std::vector<MapPlan> maps;
  /// c_desc where it does not describe C: 128 zero bytes (the kernel then
  /// stores from its lanes).
  int zeroMapSlot = -1;
  /// Each map encoded once per operand address, for the 256 most recent.
  std::mutex encodedLock;
  std::vector<std::unordered_map<uintptr_t, MapBytes>> encoded;
};

/// The first kernel of `variant` whose manifest checks hold for the
/// parameter values `args` (by ABI name) launched with `slices` slices;
/// ValueError naming `what` and each kernel's reason otherwise.
const KernelInfo &chooseKernel(const Variant &variant,
                               const std::map<std::string, int64_t> &args,
                               int64_t slices, const std::string &what);

/// The choice the policy takes instead of its tuned table's for every plan
/// made from now on (benchmarks/tune_policy.py's candidates; none: the
/// table's, or with `useTable` false the rules'), and S where `splits` > 0
/// (0: the policy's). Plans made before keep theirs: the caller forgets
/// them.
void setForcedChoice(std::optional<policy::TunedChoice> choice,
                     bool useTable = true, int64_t splits = 0);

/// The plan of C = epilogue(A @ B [+ bias]) (A M x K, B K x N, C M x N
/// views; bias (N) where `key` has a bias_* epilogue) on a device of `info`,
/// with variants from `find`. ValueError where no kernel takes the operands.
std::unique_ptr<Plan> makePlan(at::Tensor a, at::Tensor b,
                               const std::optional<at::Tensor> &bias,
                               at::Tensor c, const VariantKey &key,
                               int64_t slices, const DeviceInfo &info,
                               const Finder &find = findVariant);

} // namespace gpupoor::package

#endif // GPUPOOR_PYTHON_PLAN_H
