//===- GPUPoor.h - gpupoor dialect ------------------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H
#define GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "gpupoor/Policy/Checks.h"

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorDialect.h.inc"
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorAttrs.h.inc"

#define GET_OP_CLASSES
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorOps.h.inc"

namespace mlir::gpupoor {

/// Bounds of the strategy's and the kernel configuration's fields, checked
/// by the attribute verifiers and the options alike, so that no product of
/// them overflows.
constexpr int64_t kMaxWarps = 32; // 1024 threads
constexpr int64_t kMaxStages = 32;
constexpr int64_t kMaxGroupM = 65536;
using policy::kMaxSlices;
using policy::kMaxSplits;
using policy::kMaxTileSize; // each of BM, BN, BK
/// C's tiles (of every batch element) run along grid x, which has at most
/// 2^31 - 1 blocks.
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;

/// The discardable attribute that carries a kernel's #gpupoor.kernel_config
/// on its gpu.module (the NVVM lowering reads the index width from it).
inline StringRef getKernelConfigAttrName() { return "gpupoor.kernel_config"; }

/// The #gpupoor.kernel attribute on each launch of a gpupoor kernel (what
/// gpupoor-dump-kernels writes out as the manifest).
inline StringRef getKernelAttrName() { return "gpupoor.kernel"; }

/// The unit attribute gpupoor-swap-operands puts on the gpupoor.matmul it
/// makes of a swapped one, and the kernel lowerings on its launches: the op
/// computes the source's C^T = B A^T (gpupoor-dump-kernels says so).
inline StringRef getSwappedOperandsAttrName() {
  return "gpupoor.swapped_operands";
}

/// The widest integer device code (an epilogue among it) may compute with:
/// the NVPTX backend has no libcalls for wider ones (fptosi to i128 aborts
/// it).
constexpr unsigned kMaxDeviceIntegerWidth = 64;

/// Whether `op` may be in a gpupoor.matmul epilogue: a side-effect free
/// arith or math op without regions on scalars (integers of at most
/// kMaxDeviceIntegerWidth bits), which every lowering can clone per
/// element.
bool isValidEpilogueOp(Operation *op);

/// Whether both epilogue lowerings compute with `t`: integers of at most
/// kMaxDeviceIntegerWidth bits, index, f16, bf16, f32 and f64.
bool isEpilogueScalarType(Type t);

/// Why a lowering of the epilogue cannot translate `op`, an op
/// isValidEpilogueOp takes (an epilogue is cloned into a kernel, lowered to
/// NVVM, or into host loops, lowered to LLVM and libm, and must translate
/// both ways); empty where both do.
StringRef whyUntranslatableEpilogueOp(Operation *op);

//===----------------------------------------------------------------------===//
// The policy's rules (gpupoor/Policy) on the dialect's types
//===----------------------------------------------------------------------===//

static_assert(uint32_t(Chip::SM80) == uint32_t(policy::Chip::SM80) &&
                  uint32_t(Chip::SM86) == uint32_t(policy::Chip::SM86) &&
                  uint32_t(Chip::SM89) == uint32_t(policy::Chip::SM89) &&
                  uint32_t(Chip::SM90) == uint32_t(policy::Chip::SM90) &&
                  uint32_t(Chip::SM90a) == uint32_t(policy::Chip::SM90a),
              "the dialect's chips are the policy's");
static_assert(uint32_t(BLayout::NK) == uint32_t(policy::BLayout::NK) &&
                  uint32_t(ALayout::KM) == uint32_t(policy::ALayout::KM),
              "the dialect's layouts are the policy's");

inline policy::Chip toPolicy(Chip chip) {
  return static_cast<policy::Chip>(static_cast<uint32_t>(chip));
}
inline Chip fromPolicy(policy::Chip chip) {
  return static_cast<Chip>(static_cast<uint32_t>(chip));
}
inline policy::BLayout toPolicy(BLayout layout) {
  return static_cast<policy::BLayout>(static_cast<uint32_t>(layout));
}
inline policy::ALayout toPolicy(ALayout layout) {
  return static_cast<policy::ALayout>(static_cast<uint32_t>(layout));
}
/// A [BM, BN, BK] tile as the policy's.
inline policy::Tile toPolicyTile(ArrayRef<int64_t> tile) {
  assert(tile.size() == 3 && "a tile is [BM, BN, BK]");
  return {tile[0], tile[1], tile[2]};
}

using policy::defaultNumSplits;
using policy::kLongKRuleBlocks;
using policy::kMinLongKSplits;
using policy::kSplitRuleBlock;
using policy::numSlices;

/// T, the C tiles of BM x BN in a static C shape [batch x] M x N
/// (policy::tileCount).
inline int64_t staticTileCount(ArrayRef<int64_t> cShape, int64_t bm,
                               int64_t bn) {
  return policy::tileCount(cShape.size() == 3 ? cShape.front() : 1,
                           cShape[cShape.size() - 2], cShape.back(), bm, bn);
}

/// policy::sliceBlocksPerSM and policy::sliceOneSliceShare of a strategy's
/// chip and tile.
inline int64_t sliceBlocksPerSM(Chip chip, ArrayRef<int64_t> tile) {
  return policy::sliceBlocksPerSM(toPolicy(chip), toPolicyTile(tile));
}
inline int64_t sliceOneSliceShare(Chip chip, ArrayRef<int64_t> tile) {
  return policy::sliceOneSliceShare(toPolicy(chip), toPolicyTile(tile));
}
/// policy::slicesNeedLongK of a strategy's chip.
inline bool slicesNeedLongK(Chip chip) {
  return policy::slicesNeedLongK(toPolicy(chip));
}

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H
