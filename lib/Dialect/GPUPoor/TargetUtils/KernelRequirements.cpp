//===- KernelRequirements.cpp - what kernels need of operands -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelRequirements.h"

#include "gpupoor/Dialect/GPUPoor/TargetUtils/ChipInfo.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"

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

/// Whether the matrix fits 32-bit indexing: true/false when every number
/// is static or one static number already breaks it, nullopt otherwise.
std::optional<bool> fits32Bits(const MatrixLayout &l) {
  int64_t numbers[] = {l.rows, l.cols, l.rowStride, l.colStride};
  for (int64_t v : numbers)
    if (isStatic(v) && (v < 0 || v > kMax32BitSize))
      return false;
  // The last element's offset, (rows - 1) * rowStride + (cols - 1) *
  // colStride, term by term: a zero stride (a broadcast) makes its term 0
  // whatever the size. Each term is below 2^62: no overflow.
  int64_t last = 0;
  bool known = true;
  for (auto [size, stride] :
       {std::pair(l.rows, l.rowStride), std::pair(l.cols, l.colStride)}) {
    if (stride == 0 || size == 0)
      continue;
    if (!isStatic(size) || !isStatic(stride)) {
      known = false;
      continue;
    }
    last += (size - 1) * stride;
  }
  if (last > kMax32BitOffset)
    return false;
  // Sizes the kernel indexes with must fit too, even along a zero stride.
  if (!known || !isStatic(l.rows) || !isStatic(l.cols))
    return std::nullopt;
  return true;
}

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

std::optional<bool> mlir::gpupoor::sliceSumsFit32Bits(MatmulOp op) {
  SplitKAttr strategy = op.getStrategy();
  int64_t tileElems =
      KernelSpec::mmaRowsOf(strategy.getChip(), strategy.getTileM()) *
          strategy.getTileN() +
      4;
  if (strategy.getSlices() == 1)
    return true;
  // Automatic: T x P' stays within two blocks an SM (past it P' = 1 and
  // there are no sums).
  int64_t blocks = 2 * getChipInfo(strategy.getChip()).smCount;
  if (strategy.getSlices() > 0) {
    ShapedType init = op.getInitType();
    if (!init.hasStaticShape())
      return std::nullopt;
    blocks = staticTileCount(init.getShape(), strategy.getTileM(),
                             strategy.getTileN()) *
             strategy.getSlices();
  }
  if (blocks <= kMax32BitOffset / tileElems)
    return true;
  return std::nullopt;
}

std::optional<bool> mlir::gpupoor::offsetsFit32Bits(MatmulOp op) {
  bool allTrue = true;
  SmallVector<std::optional<MatrixLayout>> layouts;
  for (Value v : {op.getA(), op.getB(), op.getInit()})
    layouts.push_back(matrixLayout(v));
  for (auto [in, map] :
       llvm::zip_equal(op.getEpilogueIns(),
                       op.getEpilogueMaps().getAsValueRange<AffineMapAttr>()))
    layouts.push_back(epilogueLayout(op, in, map));
  for (std::optional<MatrixLayout> l : layouts) {
    if (!l)
      return std::nullopt;
    std::optional<bool> fits = fits32Bits(*l);
    if (fits && !*fits)
      return false;
    allTrue &= fits.value_or(false);
  }
  if (allTrue)
    return true;
  return std::nullopt;
}
