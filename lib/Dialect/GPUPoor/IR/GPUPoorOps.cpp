//===- GPUPoorOps.cpp - gpupoor operations --------------------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "gpupoor/Dialect/GPUPoor/IR/StaticSizes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/CheckedArithmetic.h"

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

/// The ins operands against their maps and C's shape.
static LogicalResult verifyEpilogueOperands(MatmulOp op) {
  ShapedType cType = op.getInitType();
  int64_t rank = cType.getRank();
  ArrayRef<Attribute> maps = op.getEpilogueMaps().getValue();
  if (maps.size() != op.getEpilogueIns().size())
    return op.emitOpError("has ")
           << op.getEpilogueIns().size() << " ins operands but " << maps.size()
           << " maps";
  if (!op.getEpilogueIns().empty() && op.getEpilogue().empty())
    return op.emitOpError("has ins operands but no epilogue to read them");
  for (auto [i, in, attr] : llvm::enumerate(op.getEpilogueIns(), maps)) {
    AffineMap map = cast<AffineMapAttr>(attr).getValue();
    auto type = cast<ShapedType>(in.getType());
    // Kernels address the operands in whole bytes.
    Type elt = type.getElementType();
    if (!isa<IntegerType, FloatType>(elt) ||
        elt.getIntOrFloatBitWidth() % 8 != 0)
      return op.emitOpError("ins operand ")
             << i << " must have integer or float elements of whole bytes, got "
             << elt;
    if (map.getNumDims() != rank || map.getNumSymbols() != 0 ||
        !map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return op.emitOpError("map ")
             << i << " must be a projected permutation of the " << rank
             << " dimensions of C, got " << AffineMapAttr::get(map);
    if (map.getNumResults() != type.getRank())
      return op.emitOpError("map ")
             << i << " has " << map.getNumResults()
             << " results for ins operand of rank " << type.getRank();
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      unsigned dim = cast<AffineDimExpr>(expr).getPosition();
      if (!compatible(type.getDimSize(d), cType.getDimSize(dim)))
        return op.emitOpError("ins operand ")
               << i << " has size " << dimStr(type.getDimSize(d))
               << " in dimension " << d << ", expected "
               << dimStr(cType.getDimSize(dim)) << " (C's dimension " << dim
               << ")";
    }
  }
  return success();
}

bool mlir::gpupoor::hasStridedLayout(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return !memref || memref.getLayout().isIdentity() ||
         isa<StridedLayoutAttr>(memref.getLayout());
}

LogicalResult
mlir::gpupoor::verifyOperandBytes(function_ref<InFlightDiagnostic()> emitError,
                                  TypeRange operandTypes) {
  // Bytes within an int64: the kernels' 64-bit offsets, the host code's
  // size arithmetic.
  for (Type t : operandTypes) {
    auto type = cast<ShapedType>(t);
    if (!type.hasStaticShape())
      continue;
    std::optional<int64_t> bytes = (type.getElementTypeBitWidth() + 7) / 8;
    for (int64_t size : type.getShape())
      if (bytes)
        bytes = llvm::checkedMul<int64_t>(*bytes, size);
    if (!bytes)
      return emitError() << "operand of type " << type
                         << " has more bytes than an int64 counts";
  }
  return success();
}

LogicalResult mlir::gpupoor::verifyStaticSizes(
    function_ref<InFlightDiagnostic()> emitError, TypeRange operandTypes,
    ArrayRef<int64_t> cShape, SplitKAttr strategy) {
  if (failed(verifyOperandBytes(emitError, operandTypes)))
    return failure();
  // Tiles within grid x: a count beyond it would overflow the host code's
  // index arithmetic, or fold its run-time check away.
  if (llvm::any_of(cShape, ShapedType::isDynamic))
    return success();
  int64_t batch = cShape.size() == 3 ? cShape.front() : 1;
  int64_t m = cShape[cShape.size() - 2], n = cShape.back();
  // A swapped strategy's tile is the transposed product's (until
  // gpupoor-swap-operands makes the op that product, unswapped).
  bool transposed = strategy.getSwapped();
  int64_t tiles =
      staticTileCount({batch, transposed ? n : m, transposed ? m : n},
                      strategy.getTileM(), strategy.getTileN());
  if (tiles > kMaxGridX)
    return emitError() << "static sizes give " << tiles << " tiles of "
                       << strategy.getTileM() << " x " << strategy.getTileN()
                       << ", more blocks than a grid launches (" << kMaxGridX
                       << ")";
  return success();
}

LogicalResult MatmulOp::verify() {
  ShapedType aType = getAType(), bType = getBType(), cType = getInitType();
  bool isTensor = isa<RankedTensorType>(aType);

  // One world at a time: all tensors with a result, or all memrefs without.
  auto sameKind = [&](Type t) { return isa<RankedTensorType>(t) == isTensor; };
  if (!sameKind(bType) || !sameKind(cType) ||
      !llvm::all_of(getEpilogueIns().getTypes(), sameKind))
    return emitOpError("operands must be all ranked tensors or all memrefs");
  for (Type t : getOperandTypes())
    if (!hasStridedLayout(t))
      return emitOpError("operand type ")
             << t << " has a layout map that is not strided<...>";
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
  if (rank == 3 && getStrategy().getSwapped())
    return emitOpError("a swapped strategy takes 2-D operands only, got a "
                       "batched op");

  if (!aType.getElementType().isF16())
    return emitOpError("operand A must have f16 elements, got ")
           << aType.getElementType();
  if (!bType.getElementType().isF16())
    return emitOpError("operand B must have f16 elements, got ")
           << bType.getElementType();
  Type cElt = cType.getElementType();
  // The kernels store f16 or f32 elements.
  if (!cElt.isF16() && !cElt.isF32())
    return emitOpError("init must have f16 or f32 elements, got ") << cElt;

  // Trailing two dims are the matrix; a leading one is the batch.
  int64_t b0 = rank - 2;
  bool aTransposed = getStrategy().isATransposed();
  int64_t m = aType.getDimSize(aTransposed ? b0 + 1 : b0);
  int64_t k = aType.getDimSize(aTransposed ? b0 : b0 + 1);
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
  if (failed(verifyStaticSizes([&] { return emitOpError(); }, getOperandTypes(),
                               cType.getShape(), getStrategy())))
    return failure();

  return verifyEpilogueOperands(*this);
}

Type MatmulOp::getAccType() {
  Block *block = getEpilogueBlock();
  return block ? block->getArgument(0).getType()
               : getInitType().getElementType();
}

bool MatmulOp::readsInit() {
  Block *block = getEpilogueBlock();
  return block && !block->getArguments().back().use_empty();
}

LogicalResult MatmulOp::verifyRegions() {
  Block *block = getEpilogueBlock();
  if (!block)
    return success();
  unsigned numIns = getEpilogueIns().size();
  if (block->getNumArguments() != numIns + 2)
    return emitOpError("epilogue must have ")
           << numIns + 2 << " arguments (acc, one per ins operand, init), got "
           << block->getNumArguments();
  Type acc = block->getArgument(0).getType();
  if (!acc.isF16() && !acc.isF32())
    return emitOpError("epilogue's acc argument must be f16 or f32, got ")
           << acc;
  for (auto [i, in] : llvm::enumerate(getEpilogueIns())) {
    Type want = getElementTypeOrSelf(in.getType());
    Type got = block->getArgument(i + 1).getType();
    if (got != want)
      return emitOpError("epilogue argument ")
             << i + 1 << " has type " << got << ", expected " << want
             << " (the element type of ins operand " << i << ")";
  }
  Type cElt = getInitType().getElementType();
  if (block->getArguments().back().getType() != cElt)
    return emitOpError("epilogue's last argument has type ")
           << block->getArguments().back().getType() << ", expected " << cElt
           << " (init's element type)";
  auto yield = dyn_cast<YieldOp>(block->getTerminator());
  if (!yield)
    return emitOpError("epilogue must end with gpupoor.yield");
  if (yield.getValue().getType() != cElt)
    return yield.emitOpError("yields ")
           << yield.getValue().getType() << ", expected " << cElt
           << " (init's element type)";
  for (Operation &op : block->without_terminator()) {
    if (!isValidEpilogueOp(&op))
      return op.emitOpError("cannot be in a gpupoor.matmul epilogue: only "
                            "side-effect free arith and math ops on scalars "
                            "(integers of at most 64 bits)");
    if (StringRef why = whyUntranslatableEpilogueOp(&op); !why.empty())
      return op.emitOpError("cannot be in a gpupoor.matmul epilogue: ") << why;
  }
  return success();
}

void MatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (hasTensorSemantics())
    return;
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (&operand != &getInitMutable()) {
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
      continue;
    }
    if (readsInit())
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
  }
}
