//===- KernelRequirements.cpp - what kernels need of operands -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelRequirements.h"

#include "gpupoor/Dialect/GPUPoor/TargetUtils/ChipInfo.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"
#include "gpupoor/Policy/Tiles.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

/// The last two sizes and strides of a memref (one batch element's matrix);
/// kDynamic where the type does not say.
struct MatrixLayout {
  int64_t rows, cols, rowStride, colStride;
};

/// The strides of a memref value's type (kDynamic where it does not say);
/// nullopt for a tensor or a layout without strides.
std::optional<SmallVector<int64_t>> stridesOf(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  return strides;
}

std::optional<MatrixLayout> matrixLayout(Value memref) {
  std::optional<SmallVector<int64_t>> strides = stridesOf(memref);
  if (!strides)
    return std::nullopt;
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  return MatrixLayout{type.getDimSize(rank - 2), type.getDimSize(rank - 1),
                      (*strides)[rank - 2], (*strides)[rank - 1]};
}

bool isStatic(int64_t v) { return !ShapedType::isDynamic(v); }

} // namespace

std::optional<bool> mlir::gpupoor::asyncCopiesHold(MatmulOp op) {
  for (Value v : {op.getA(), op.getB()}) {
    std::optional<MatrixLayout> l = matrixLayout(v);
    if (!l)
      return std::nullopt;
    // A stored K x M is read along K (its strides swapped) but by sm_90a's
    // wgmma kernel, which reads it as it lies (KernelSpec::aMMajor).
    if (v == op.getA() && op.getStrategy().isATransposed() &&
        !KernelSpec::aMMajorOf(op.getStrategy()))
      std::swap(l->rowStride, l->colStride);
    // Rows of 16-byte chunks: a unit inner stride, a row stride of a
    // multiple of 8 f16 elements.
    if (isStatic(l->colStride) && l->colStride != 1)
      return false;
    if (isStatic(l->rowStride) && l->rowStride % 8 != 0)
      return false;
    // A batched product's elements start 16-byte aligned where its first
    // does only if the batch stride is a multiple of 8 elements.
    int64_t batchStride = op.isBatched() ? stridesOf(v)->front() : 0;
    if (isStatic(batchStride) && batchStride % 8 != 0)
      return false;
  }
  return std::nullopt;
}

/// Epilogue operand `in`, read through `map`, as the M x N view the kernel
/// reads: C's last two sizes, its strides along them (0 where it
/// broadcasts).
static std::optional<MatrixLayout> epilogueLayout(MatmulOp op, Value in,
                                                  AffineMap map) {
  std::optional<SmallVector<int64_t>> strides = stridesOf(in);
  if (!strides)
    return std::nullopt;
  ShapedType c = op.getInitType();
  int64_t rank = c.getRank();
  MatrixLayout l{c.getDimSize(rank - 2), c.getDimSize(rank - 1), 0, 0};
  for (auto [r, e] : llvm::enumerate(map.getResults())) {
    unsigned dim = cast<AffineDimExpr>(e).getPosition();
    if (dim == rank - 2)
      l.rowStride = (*strides)[r];
    else if (dim == rank - 1)
      l.colStride = (*strides)[r];
  }
  return l;
}

/// The most sum_slots a launch of `op`'s kernel indexes: 0 where one
/// slice runs; where automatic slices run more, policy::mostSumSlots times
/// the blocks a cluster (the slices count the product's tiles, a launch
/// whole clusters of row tiles: at most that many times as many); for
/// a named count, its tiles (whole clusters of row tiles, launchTiles) times
/// it where C's shape is static.
static policy::KnownRange staticSumSlots(MatmulOp op) {
  SplitKAttr strategy = op.getStrategy();
  int64_t slices = strategy.getSlices();
  if (slices == 1)
    return policy::KnownRange::exactly(0);
  KernelConfigAttr config = op.getConfigAttr();
  if (!config)
    return {0, std::nullopt};
  if (slices == 0)
    return {0, policy::mostSumSlots(toPolicy(strategy.getChip()),
                                    toPolicyTile(strategy.getTile()),
                                    getChipInfo(strategy.getChip()).smCount) *
                   config.getClusterM()};
  ShapedType init = op.getInitType();
  if (!init.hasStaticShape())
    return {0, std::nullopt};
  ArrayRef<int64_t> shape = init.getShape();
  policy::CShape c;
  c.batched = shape.size() == 3;
  c.batch = c.batched ? shape.front() : 1;
  c.m = shape[shape.size() - 2];
  c.n = shape.back();
  int64_t tiles = policy::launchTiles(c, toPolicyTile(strategy.getTile()),
                                      config.getClusterM());
  return {0, policy::sumSlots(tiles, slices)};
}

/// What `op`'s types tell of the launch's parameter `name` (a bound's, by
/// ABI name; HostLaunch.cpp's launchValue reads the same at run time): its
/// static value, else at least 0 for a size.
static policy::KnownRange staticValue(MatmulOp op, StringRef name) {
  auto known = [](int64_t v, std::optional<int64_t> least = std::nullopt) {
    return isStatic(v) ? policy::KnownRange::exactly(v)
                       : policy::KnownRange{least, std::nullopt};
  };
  if (name == "sum_slots")
    return staticSumSlots(op);
  std::optional<MatrixLayout> a = matrixLayout(op.getA()),
                              b = matrixLayout(op.getB()),
                              c = matrixLayout(op.getInit());
  // Sizes are those of the types whatever their layout.
  auto aType = cast<ShapedType>(op.getA().getType());
  ShapedType cType = op.getInitType();
  bool aTransposed = op.getStrategy().isATransposed();
  int64_t rank = aType.getRank();
  if (name == "M")
    return known(aType.getDimSize(rank - (aTransposed ? 1 : 2)), 0);
  if (name == "K")
    return known(aType.getDimSize(rank - (aTransposed ? 2 : 1)), 0);
  if (name == "N")
    return known(cType.getDimSize(cType.getRank() - 1), 0);
  std::optional<int64_t> stride;
  // A[m][k] at m * am + k * ak; B's rows N apart as N x K, K as K x N.
  bool bTransposed = op.getStrategy().getBLayout() == BLayout::NK;
  if (a && (name == "stride_am" || name == "stride_ak"))
    stride = (name == "stride_am") != aTransposed ? a->rowStride : a->colStride;
  else if (b && (name == "stride_bk" || name == "stride_bn"))
    stride = (name == "stride_bk") != bTransposed ? b->rowStride : b->colStride;
  else if (c && name == "stride_cm")
    stride = c->rowStride;
  else if (c && name == "stride_cn")
    stride = c->colStride;
  // An epilogue operand's strides along C's rows and columns:
  // stride_in<i>m, stride_in<i>n.
  unsigned i;
  StringRef rest = name;
  if (!stride && rest.consume_front("stride_in") &&
      !rest.consumeInteger(10, i) && i < op.getEpilogueIns().size()) {
    AffineMap map = cast<AffineMapAttr>(op.getEpilogueMaps()[i]).getValue();
    if (std::optional<MatrixLayout> l =
            epilogueLayout(op, op.getEpilogueIns()[i], map))
      stride = rest == "m"   ? std::optional(l->rowStride)
               : rest == "n" ? std::optional(l->colStride)
                             : std::nullopt;
  }
  return stride ? known(*stride) : policy::KnownRange{};
}

std::optional<bool>
mlir::gpupoor::boundHoldsStatically(MatmulOp op, const policy::Bound &bound) {
  return policy::boundHolds(
      bound, [&](const std::string &name) { return staticValue(op, name); });
}

policy::OperandChecks mlir::gpupoor::checks32Bit() {
  policy::KernelTraits traits;
  traits.indexBitwidth = 32;
  return policy::requiredChecks(traits);
}

std::optional<bool> mlir::gpupoor::offsetsFit32Bits(MatmulOp op) {
  std::optional<bool> all = true;
  for (const policy::Bound &bound :
       policy::offsetBounds(checks32Bit(), op.getEpilogueIns().size())) {
    std::optional<bool> holds = boundHoldsStatically(op, bound);
    if (holds == false)
      return false;
    if (!holds)
      all = std::nullopt;
  }
  return all;
}
