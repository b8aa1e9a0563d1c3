//===- GPUPoorOps.cpp - gpupoor operations --------------------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::gpupoor;

#define GET_OP_CLASSES
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorOps.cpp.inc"

namespace {
/// Dimension sizes are compatible when equal or when either is dynamic.
bool compatible(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) || lhs == rhs;
}

std::string dimStr(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}
} // namespace

LogicalResult MatmulOp::verify() {
  ShapedType aType = getAType(), bType = getBType(), cType = getInitType();
  bool isTensor = isa<RankedTensorType>(aType);

  // One world at a time: all tensors with a result, or all memrefs without.
  auto sameKind = [&](Type t) { return isa<RankedTensorType>(t) == isTensor; };
  if (!sameKind(bType) || !sameKind(cType) ||
      (getBias() && !sameKind(getBias().getType())))
    return emitOpError("operands must be all ranked tensors or all memrefs");
  if (isTensor && !getResult())
    return emitOpError("with tensor operands must return a tensor");
  if (!isTensor && getResult())
    return emitOpError("with memref operands must not return a value");
  if (getResult() && getResult().getType() != cType)
    return emitOpError("result type ")
           << getResult().getType() << " does not match init type " << cType;

  int64_t rank = aType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("operand A must have rank 2 or 3 (batched), got rank ")
           << rank;
  if (bType.getRank() != rank)
    return emitOpError("operand B must have the rank of A (")
           << rank << "), got rank " << bType.getRank();
  if (cType.getRank() != rank)
    return emitOpError("init must have the rank of A (")
           << rank << "), got rank " << cType.getRank();

  if (!aType.getElementType().isF16())
    return emitOpError("operand A must have f16 elements, got ")
           << aType.getElementType();
  if (!bType.getElementType().isF16())
    return emitOpError("operand B must have f16 elements, got ")
           << bType.getElementType();
  Type cElt = cType.getElementType();
  if (!cElt.isF16() && !cElt.isF32())
    return emitOpError("init must have f16 or f32 elements, got ") << cElt;

  // Trailing two dims are the matrix; a leading one is the batch.
  int64_t b0 = rank - 2;
  int64_t m = aType.getDimSize(b0), k = aType.getDimSize(b0 + 1);
  bool bTransposed = getStrategy().getBLayout() == BLayout::NK;
  int64_t bK = bType.getDimSize(bTransposed ? b0 + 1 : b0);
  int64_t n = bType.getDimSize(bTransposed ? b0 : b0 + 1);

  if (!compatible(k, bK))
    return emitOpError("reduction size K of operand B (")
           << dimStr(bK) << ") does not match K of operand A (" << dimStr(k)
           << ")";
  if (!compatible(m, cType.getDimSize(b0)))
    return emitOpError("init has ")
           << dimStr(cType.getDimSize(b0))
           << " rows, expected M = " << dimStr(m) << " from operand A";
  if (!compatible(n, cType.getDimSize(b0 + 1)))
    return emitOpError("init has ")
           << dimStr(cType.getDimSize(b0 + 1))
           << " columns, expected N = " << dimStr(n) << " from operand B";
  if (rank == 3) {
    int64_t batch = aType.getDimSize(0);
    if (!compatible(batch, bType.getDimSize(0)))
      return emitOpError("batch size of operand B (")
             << dimStr(bType.getDimSize(0)) << ") does not match operand A ("
             << dimStr(batch) << ")";
    if (!compatible(batch, cType.getDimSize(0)))
      return emitOpError("batch size of init (")
             << dimStr(cType.getDimSize(0)) << ") does not match operand A ("
             << dimStr(batch) << ")";
  }

  if (Value bias = getBias()) {
    auto biasType = cast<ShapedType>(bias.getType());
    if (biasType.getRank() != 1)
      return emitOpError("bias must have rank 1 (N), got rank ")
             << biasType.getRank();
    if (!compatible(biasType.getDimSize(0), n))
      return emitOpError("bias has ")
             << dimStr(biasType.getDimSize(0))
             << " elements, expected N = " << dimStr(n);
    Type biasElt = biasType.getElementType();
    if (!biasElt.isF16() && !biasElt.isF32())
      return emitOpError("bias must have f16 or f32 elements, got ") << biasElt;
  }
  return success();
}

void MatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (hasTensorSemantics())
    return;
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (&operand == &getInitMutable())
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}
