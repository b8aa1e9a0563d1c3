//===- NarrowOperands.cpp - matmul operands back to the f16 they extend ---===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// torch-mlir decomposes an f16 nn.Linear with a bias (aten.addmm) with
// PyTorch's opmath upcast: the matmul's operands arrive as arith.extf of
// the f16 input and of the (transposed) f16 weight, an f32 x f32 -> f32
// linalg.matmul. The pattern here gives such a matmul the f16 values
// themselves, the extension (elementwise generics of one arith.extf, or
// arith.extf on tensors) moved behind the layout ops between it and the
// matmul (linalg.transpose, linalg.broadcast, generics that only copy their
// input re-indexed, collapse_shape and expand_shape), which are rebuilt on
// f16. The matmul then reads what gpupoor-split-k takes (f16 x f16 into f32,
// under relax-f32-accumulation) and the layouts fold into its maps.
//
// This is exact: linalg.matmul casts each operand to the result's type
// before it multiplies, and cast(extf(x)) = cast(x) for every float result
// type, since extf is exact. Only extensions from f16 are taken: bf16 (and
// any other) sources stay as written.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "OperandForms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Remarks.h"

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

/// The layout ops looked through between an extension and the matmul.
constexpr int kMaxLayoutOps = 4;

bool isF16Tensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isF16();
}

/// If `v` is the extension of an f16 tensor `x` element by element (an
/// arith.extf on tensors, or a generic of parallel loops and identity maps
/// whose body only extends its one input), `x`.
Value extendedF16(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return isF16Tensor(ext.getIn()) ? ext.getIn() : Value();
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops() ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  Value in = g.getDpsInputs()[0];
  Block *body = g.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto ext = dyn_cast_or_null<arith::ExtFOp>(
      yield.getNumOperands() == 1 ? yield.getOperand(0).getDefiningOp()
                                  : nullptr);
  if (!isF16Tensor(in) || !ext || &body->front() != ext.getOperation() ||
      ext.getIn() != body->getArgument(0))
    return {};
  return in;
}

/// The operand of the layout op that makes `v`, for the layout ops
/// narrowed() rebuilds; none for any other op.
Value layoutSource(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || !isa<RankedTensorType>(v.getType()))
    return {};
  if (auto t = dyn_cast<linalg::TransposeOp>(def))
    return t.getInput();
  if (auto b = dyn_cast<linalg::BroadcastOp>(def))
    return b.getInput();
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(def))
    return c.getSrc();
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(def))
    return e.getSrc();
  if (OpOperand *in = copiedInput(v))
    return in->get();
  return {};
}

/// Whether `v` is an extension of f16 values, through at most `depth` layout
/// ops.
bool narrowable(Value v, int depth) {
  if (extendedF16(v))
    return true;
  Value source = layoutSource(v);
  return source && depth > 0 && narrowable(source, depth - 1);
}

/// `v` (narrowable) rebuilt on f16: the extension's source, through the
/// same layout ops on f16 tensors.
Value narrowed(PatternRewriter &rewriter, Value v) {
  if (Value x = extendedF16(v))
    return x;
  Value x = narrowed(rewriter, layoutSource(v));
  Operation *def = v.getDefiningOp();
  Location loc = def->getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(def);
  auto type = cast<RankedTensorType>(v.getType()).clone(rewriter.getF16Type());
  // An f16 init of the op's init's sizes (the DPS ops).
  auto init = [&](Value like) -> Value {
    return tensor::EmptyOp::create(rewriter, loc,
                                   tensor::getMixedSizes(rewriter, loc, like),
                                   rewriter.getF16Type());
  };
  if (auto t = dyn_cast<linalg::TransposeOp>(def))
    return linalg::TransposeOp::create(rewriter, loc, x, init(t.getInit()),
                                       t.getPermutation())
        ->getResult(0);
  if (auto b = dyn_cast<linalg::BroadcastOp>(def))
    return linalg::BroadcastOp::create(rewriter, loc, x, init(b.getInit()),
                                       b.getDimensions())
        ->getResult(0);
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(def))
    return tensor::CollapseShapeOp::create(rewriter, loc, type, x,
                                           c.getReassociationIndices());
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(def))
    return tensor::ExpandShapeOp::create(rewriter, loc, type, x,
                                         e.getReassociationIndices(),
                                         e.getMixedOutputShape());
  auto g = cast<linalg::GenericOp>(def);
  auto copy = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, ValueRange{x},
      ValueRange{init(g.getDpsInits()[0])}, g.getIndexingMapsArray(),
      g.getIteratorTypesArray(),
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  return copy.getResult(0);
}

/// matmul(extf(x), extf(w)) -> matmul(x, w) on tensors, each operand f16
/// already or the extension of f16 values (through layout ops).
struct NarrowExtendedOperands : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
        !op.hasPureTensorSemantics() ||
        !isa<FloatType>(getElementTypeOrSelf(op.getDpsInits()[0].getType())))
      return failure();
    bool any = false;
    for (Value in : op.getDpsInputs()) {
      if (isF16Tensor(in))
        continue;
      if (!narrowable(in, kMaxLayoutOps))
        return rewriter.notifyMatchFailure(
            op, "an operand is neither f16 nor an extension of f16 values");
      any = true;
    }
    if (!any)
      return rewriter.notifyMatchFailure(op, "the operands are f16");
    SmallVector<Value> inputs;
    for (Value in : op.getDpsInputs())
      inputs.push_back(isF16Tensor(in) ? in : narrowed(rewriter, in));
    // A new op, not new operands: the body's block arguments have the
    // operands' element types (the builder writes the casts to the
    // result's type). Its maps and other attributes stay.
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName() != "operandSegmentSizes")
        attrs.push_back(attr);
    Operation *product;
    if (isa<linalg::MatmulOp>(op))
      product =
          linalg::MatmulOp::create(rewriter, op.getLoc(), op->getResultTypes(),
                                   inputs, op.getDpsInits(), attrs);
    else
      product = linalg::BatchMatmulOp::create(rewriter, op.getLoc(),
                                              op->getResultTypes(), inputs,
                                              op.getDpsInits(), attrs);
    rewriter.replaceOp(op, product->getResults());
    // Opt-in (--remarks-filter=gpupoor-split-k): where f32 operands became
    // the f16 values they extend.
    remark::analysis(product->getLoc(),
                     remark::RemarkOpts::name("NarrowedOperands")
                         .category("gpupoor-split-k"))
        << "operands narrowed: each was the extension of f16 values";
    return success();
  }
};

} // namespace

void mlir::gpupoor::populateNarrowOperandPatterns(RewritePatternSet &patterns) {
  patterns.add<NarrowExtendedOperands>(patterns.getContext());
}
