//===- MatmulLayouts.cpp - operand layouts folded into linalg matmuls -----===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Front ends hand matmuls over with their operands' layouts spelled as ops:
// nn.Linear's weight goes through a linalg.transpose (or a generic that
// copies it transposed), a linear layer on a 3-D input is a batch_matmul of
// the weight broadcast over the batch, and attention's K^T is a transpose of
// a 4-D tensor collapsed to 3-D. Each pattern here moves one such layout
// into the matmul itself, on tensors, so that gpupoor-split-k sees the
// products the kernels compute (A * B or A * B^T over M, N, K and a batch)
// and the copies go:
//
//  * a transpose of A's or B's last two dimensions becomes its indexing
//    map (gpupoor-split-k's a_layout = km, b_layout = nk);
//  * a batch_matmul of a B broadcast over the batch becomes a matmul of A
//    with its batch collapsed into M, its result expanded back; upstream's
//    reshape-by-collapsing patterns then move that expand_shape past the
//    elementwise consumers, so they still form one chain on the matmul;
//  * collapse_shape(transpose(x)) becomes transpose(collapse_shape(x)) when
//    the transpose keeps each collapsed group together (attention's K^T);
//  * an elementwise consumer of the matmul takes in what its other operands
//    are computed from on the side (a bias extended and broadcast), so that
//    the epilogue reads the bias itself.
//
// Every rewrite computes the same elements from the same values (reshapes
// and transposes only re-index); nothing else in the IR changes.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "OperandForms.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

/// Whether `op` is a linalg.matmul or linalg.batch_matmul of f16 operands
/// on tensors (what gpupoor-split-k may take: others are left as written).
bool isTensorMatmul(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) &&
         linalgOp.hasPureTensorSemantics() &&
         llvm::all_of(linalgOp.getDpsInputs(), [](Value v) {
           return getElementTypeOrSelf(v.getType()).isF16();
         });
}

/// Whether `perm` swaps the last two of its dimensions and keeps the others.
bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t n = perm.size();
  if (n < 2)
    return false;
  for (int64_t i = 0; i < n - 2; ++i)
    if (perm[i] != i)
      return false;
  return perm[n - 2] == n - 1 && perm[n - 1] == n - 2;
}

/// If `v` is `x` with its last two dimensions swapped (a linalg.transpose,
/// or a generic that only copies its input through a permuted map), `x`.
Value transposeSource(Value v) {
  if (auto t = v.getDefiningOp<linalg::TransposeOp>())
    return swapsLastTwo(t.getPermutation()) ? t.getInput() : Value();
  OpOperand *in = copiedInput(v);
  if (!in)
    return {};
  auto g = cast<linalg::GenericOp>(in->getOwner());
  AffineMap map = g.getMatchingIndexingMap(in);
  if (!map.isPermutation())
    return {};
  SmallVector<int64_t> perm;
  for (AffineExpr e : map.getResults())
    perm.push_back(cast<AffineDimExpr>(e).getPosition());
  return swapsLastTwo(perm) ? in->get() : Value();
}

/// matmul(transpose(X), transpose(W)) -> matmul(X, W) with A's and B's
/// maps transposed (either operand alone too).
struct FoldTransposedOperands : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isTensorMatmul(op))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<std::pair<OpOperand *, Value>> folds;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      // The same tensor as A and B: one fold would change both reads.
      if (op.getDpsInputs()[0] == op.getDpsInputs()[1])
        break;
      if (Value source = transposeSource(operand->get()))
        folds.push_back({operand, source});
    }
    if (folds.empty())
      return rewriter.notifyMatchFailure(op, "no operand is a transpose");
    SmallVector<Operation *> transposes;
    for (auto [operand, source] : folds) {
      AffineMap &map = maps[operand->getOperandNumber()];
      SmallVector<AffineExpr> results(map.getResults());
      std::swap(results[results.size() - 2], results.back());
      map = AffineMap::get(map.getNumDims(), 0, results, op.getContext());
      transposes.push_back(operand->get().getDefiningOp());
    }
    rewriter.modifyOpInPlace(op, [&] {
      for (auto [operand, source] : folds)
        operand->set(source);
      op->setAttr("indexing_maps", rewriter.getAffineMapArrayAttr(maps));
    });
    for (Operation *transpose : transposes)
      if (transpose->use_empty())
        rewriter.eraseOp(transpose);
    return success();
  }
};

/// If `v` is a 2-D tensor broadcast over a new leading (batch) dimension (a
/// linalg.broadcast, or a generic that only copies its input through the
/// map (b, i, j) -> (i, j)), the 2-D tensor.
Value batchBroadcastSource(Value v) {
  if (auto bc = v.getDefiningOp<linalg::BroadcastOp>())
    return bc.getDimensions() == ArrayRef<int64_t>{0} ? bc.getInput() : Value();
  OpOperand *in = copiedInput(v);
  if (!in)
    return {};
  auto g = cast<linalg::GenericOp>(in->getOwner());
  if (g.getNumLoops() != 3)
    return {};
  MLIRContext *ctx = g.getContext();
  AffineMap dropBatch = AffineMap::get(
      3, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
  return g.getMatchingIndexingMap(in) == dropBatch ? in->get() : Value();
}

/// batch_matmul(A, broadcast(B)) -> expand_shape(matmul(collapse_shape(A),
/// B)): one product of (batch * M) rows instead of a batch of M-row ones.
struct CollapseBatchOfBroadcastB : OpRewritePattern<linalg::BatchMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!isTensorMatmul(op))
      return failure();
    Value b2 = batchBroadcastSource(op.getDpsInputs()[1]);
    if (!b2)
      return rewriter.notifyMatchFailure(op, "B is not a batch broadcast");
    // Only the maps of A * B and A * B^T: the batch is d0 in A and C.
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    AffineExpr bt = getAffineDimExpr(0, ctx), m = getAffineDimExpr(1, ctx),
               n = getAffineDimExpr(2, ctx), k = getAffineDimExpr(3, ctx);
    auto map4 = [&](ArrayRef<AffineExpr> r) {
      return AffineMap::get(4, 0, r, ctx);
    };
    if (maps[0] != map4({bt, m, k}) || maps[2] != map4({bt, m, n}))
      return rewriter.notifyMatchFailure(op, "not a batch of A * B");
    bool nk = maps[1] == map4({bt, n, k});
    if (!nk && maps[1] != map4({bt, k, n}))
      return rewriter.notifyMatchFailure(op, "not a batch of A * B");
    // The expand_shape back to the batch would have two dynamic sizes in
    // one group, which LLVM 22's expand-strided-metadata cannot lower (it
    // crashes; upstream fixed it in LLVM 23): the batch stays a batch.
    auto cType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    if (cType.isDynamicDim(0) && cType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(
          op, "batch and M both dynamic: the expand_shape back would have "
              "two dynamic sizes in one group");

    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> reassoc = {{0, 1}, {2}};
    Value a = tensor::CollapseShapeOp::create(rewriter, loc,
                                              op.getDpsInputs()[0], reassoc);
    Value init = op.getDpsInits()[0];
    Value cInit = tensor::CollapseShapeOp::create(rewriter, loc, init, reassoc);
    AffineExpr m2 = getAffineDimExpr(0, ctx), n2 = getAffineDimExpr(1, ctx),
               k2 = getAffineDimExpr(2, ctx);
    auto map3 = [&](ArrayRef<AffineExpr> r) {
      return AffineMap::get(3, 0, r, ctx);
    };
    SmallVector<AffineMap> maps2 = {map3({m2, k2}),
                                    nk ? map3({n2, k2}) : map3({k2, n2}),
                                    map3({m2, n2})};
    auto matmul = linalg::MatmulOp::create(
        rewriter, loc, TypeRange{cInit.getType()}, ValueRange{a, b2},
        ValueRange{cInit},
        {rewriter.getNamedAttr("indexing_maps",
                               rewriter.getAffineMapArrayAttr(maps2))});
    // Attributes a user set (gpupoor.splits) stay with the product.
    for (NamedAttribute attr : op->getDiscardableAttrs())
      matmul->setAttr(attr.getName(), attr.getValue());
    SmallVector<OpFoldResult> shape =
        tensor::getMixedSizes(rewriter, loc, init);
    Operation *bcast = op.getDpsInputs()[1].getDefiningOp();
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, init.getType(), matmul.getResult(0), reassoc, shape);
    if (bcast->use_empty())
      rewriter.eraseOp(bcast);
    return success();
  }
};

/// collapse_shape(transpose(x)) -> transpose(collapse_shape(x)) where the
/// transpose moves each collapsed group as a whole, for a collapse that
/// feeds matmuls (FoldTransposedOperands then takes the transpose).
struct SwapCollapseOfTranspose : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getSrc().getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !transpose.hasPureTensorSemantics() ||
        op->use_empty() || !llvm::all_of(op->getUsers(), [](Operation *u) {
          return isTensorMatmul(u) || isa<tensor::DimOp>(u);
        }))
      return failure();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<ReassociationIndices> groups = op.getReassociationIndices();
    // Output group i reads input dimensions perm[g.front()] .. in order.
    SmallVector<int64_t> firstIn;
    for (const ReassociationIndices &g : groups) {
      for (auto [j, d] : llvm::enumerate(g))
        if (perm[d] != perm[g.front()] + int64_t(j))
          return rewriter.notifyMatchFailure(op, "a group is permuted");
      firstIn.push_back(perm[g.front()]);
    }
    // The input's groups, in input order; newPerm maps output group i to
    // its input group.
    SmallVector<int64_t> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    llvm::sort(order, [&](int64_t x, int64_t y) {
      return firstIn[x] < firstIn[y];
    });
    SmallVector<ReassociationIndices> inGroups;
    SmallVector<int64_t> newPerm(groups.size());
    for (auto [pos, i] : llvm::enumerate(order)) {
      ReassociationIndices g;
      for (int64_t j = 0, e = groups[i].size(); j < e; ++j)
        g.push_back(firstIn[i] + j);
      inGroups.push_back(g);
    }
    for (auto [i, g] : llvm::enumerate(groups))
      newPerm[i] = llvm::find(order, int64_t(i)) - order.begin();
    Location loc = op.getLoc();
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, loc, transpose.getInput(), inGroups);
    auto resultType = cast<RankedTensorType>(op.getType());
    // The result's sizes, from the collapsed input (not from `op`'s result,
    // which the transpose replaces).
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, collapsed);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : newPerm)
      sizes.push_back(inSizes[d]);
    Value empty = tensor::EmptyOp::create(rewriter, loc, sizes,
                                          resultType.getElementType());
    // Sizes read of the collapse are the collapsed input's, so that the
    // transpose has the matmuls as its only users (and goes once they fold
    // it).
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      auto dim = dyn_cast<tensor::DimOp>(user);
      std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
      if (!index || *index < 0 || *index >= int64_t(newPerm.size()))
        continue;
      rewriter.setInsertionPoint(dim);
      rewriter.replaceOp(dim, getValueOrCreateConstantIndexOp(
                                  rewriter, dim.getLoc(),
                                  inSizes[newPerm[*index]]));
    }
    rewriter.setInsertionPoint(op);
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, collapsed, empty,
                                                     newPerm);
    return success();
  }
};

/// Whether `v` comes from a matmul through elementwise linalg ops (or is
/// one's result): the expand_shape of such a value is moved past the
/// consumers that the epilogue may fuse.
bool fromMatmul(Value v) {
  for (int depth = 0; depth < 16; ++depth) {
    auto op = v.getDefiningOp<linalg::LinalgOp>();
    if (!op)
      return false;
    if (isTensorMatmul(op))
      return true;
    if (op.getNumLoops() != op.getNumParallelLoops() ||
        op.getNumDpsInputs() == 0)
      return false;
    v = op.getDpsInputs()[0];
  }
  return false;
}

} // namespace

OpOperand *mlir::gpupoor::copiedInput(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops())
    return nullptr;
  OpOperand *in = g.getDpsInputOperand(0);
  auto yield = cast<linalg::YieldOp>(g.getBlock()->getTerminator());
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0) != g.getMatchingBlockArgument(in) ||
      getElementTypeOrSelf(in->get().getType()) !=
          getElementTypeOrSelf(v.getType()) ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return nullptr;
  return in;
}

void mlir::gpupoor::populateMatmulLayoutPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<FoldTransposedOperands, CollapseBatchOfBroadcastB,
               SwapCollapseOfTranspose>(ctx);
  linalg::populateFoldReshapeOpsByCollapsingPatterns(
      patterns, [](OpOperand *operand) {
        auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
        return expand && fromMatmul(expand.getSrc());
      });
  // What an epilogue operand is computed from on the side (torch-mlir's f32
  // bias: an extf of the f16 bias, broadcast by a copying generic) goes
  // into the elementwise consumer that reads it, which then reads the bias
  // itself through a broadcasting map (an epilogue operand of the fused
  // kernel) instead of a full-size tensor that separate loops would fill.
  // Exact: the same scalar ops on the same values; a producer with other
  // users stays for them. Never the matmul's own chain (which the epilogue
  // takes as it is).
  linalg::populateElementwiseOpsFusionPatterns(
      patterns, [](OpOperand *operand) {
        Operation *producer = operand->get().getDefiningOp();
        Operation *consumer = operand->getOwner();
        return isa_and_nonnull<linalg::GenericOp>(producer) &&
               consumer->getNumResults() == 1 &&
               fromMatmul(consumer->getResult(0)) &&
               !fromMatmul(operand->get());
      });
  // The reshapes the patterns above leave back to back cancel out.
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::populateFoldTensorEmptyPatterns(patterns);
  // A collapsed zero fill stays a zero fill (of the collapsed tensor).
  linalg::FillOp::getCanonicalizationPatterns(patterns, ctx);
  // The sizes of the expand_shapes left behind, read from the operands, so
  // that nothing but the consumers uses the matmul's result.
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
}
