//===- GPUPoorToLoops.cpp - gpupoor.matmul to split-k loops ---------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The loop form is written by hand rather than produced by linalg tiling:
// rounding the f16 accumulator once per 16-wide k step is not a reduction
// linalg can express (it is neither an f16 nor an f64 sum), and this form
// must model the tensor cores' numerics exactly, since the CPU tests compare
// against it bit for bit.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/Passes.h"
#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_CONVERTGPUPOORTOLOOPS
#include "gpupoor/Conversion/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

/// The k width of one m16n8k16 MMA: the f16 accumulator rounds once per
/// this many products.
constexpr int64_t kMmaK = 16;

/// Indices of C's element (row, col), with the batch index first if any.
using IndexFn = llvm::function_ref<SmallVector<Value, 3>(Value, Value)>;

/// The value the sums of `op` start from: -0.0, IEEE's additive identity,
/// where the epilogue adds them to C (C + sum must be C where every product
/// is -0.0, as in a sum that starts from C), else +0.0 (the sum that starts
/// from a dropped +0.0 fill).
Value emitSumStart(ImplicitLocOpBuilder &b, gpupoor::MatmulOp op, Type t) {
  return arith::ConstantOp::create(
      b, b.getFloatAttr(t, op.getSumsFromNegativeZero() ? -0.0 : 0.0));
}

/// Adds `chunk` (f16, or a slice sum in the outer type) into `outer`.
Value addOuter(ImplicitLocOpBuilder &b, Type outerType, Value outer,
               Value chunk) {
  if (outerType.isF16()) {
    // Sum in f64 (exact for two f16 values) and round once, as an f16 add
    // does; an f16 add lowered through f32 could round twice.
    Value outer64 = arith::ExtFOp::create(b, b.getF64Type(), outer);
    Value chunk64 = arith::ExtFOp::create(b, b.getF64Type(), chunk);
    return arith::TruncFOp::create(
        b, b.getF16Type(), arith::AddFOp::create(b, outer64, chunk64));
  }
  if (chunk.getType() != outerType)
    chunk = arith::ExtFOp::create(b, outerType, chunk);
  return arith::AddFOp::create(b, outer, chunk);
}

/// The f16 accumulator of C(i, j) over the k16 steps kBegin, kBegin +
/// stride, ... below kEnd: one rounding per step, the step's products
/// summed exactly in f64.
Value emitChunkSum(ImplicitLocOpBuilder &b, gpupoor::MatmulOp op, Value i,
                   Value j, Value kBegin, Value kEnd, int64_t stride,
                   IndexFn index) {
  OpBuilder::InsertionGuard guard(b);
  Type f16 = b.getF16Type(), f64 = b.getF64Type();
  SplitKAttr strategy = op.getStrategy();
  bool aTransposed = strategy.isATransposed();
  bool bTransposed = strategy.getBLayout() == BLayout::NK;
  Value step = arith::ConstantIndexOp::create(b, kMmaK);
  Value one = arith::ConstantIndexOp::create(b, 1);
  Value start = emitSumStart(b, op, f16);
  auto kSteps = scf::ForOp::create(
      b, kBegin, kEnd, arith::ConstantIndexOp::create(b, stride), start);
  b.setInsertionPointToStart(kSteps.getBody());
  Value k0 = kSteps.getInductionVar();
  Value kStop =
      arith::MinSIOp::create(b, arith::AddIOp::create(b, k0, step), kEnd);
  Value acc64 = arith::ExtFOp::create(b, f64, kSteps.getRegionIterArgs()[0]);
  auto products = scf::ForOp::create(b, k0, kStop, one, acc64);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(products.getBody());
    Value kk = products.getInductionVar();
    Value a = memref::LoadOp::create(
        b, op.getA(), aTransposed ? index(kk, i) : index(i, kk));
    Value bv = memref::LoadOp::create(
        b, op.getB(), bTransposed ? index(j, kk) : index(kk, j));
    // A product of two f16 values is exact in f64.
    Value prod = arith::MulFOp::create(b, arith::ExtFOp::create(b, f64, a),
                                       arith::ExtFOp::create(b, f64, bv));
    Value sum = arith::AddFOp::create(b, products.getRegionIterArgs()[0], prod);
    scf::YieldOp::create(b, sum);
  }
  Value rounded = arith::TruncFOp::create(b, f16, products.getResult(0));
  scf::YieldOp::create(b, rounded);
  return kSteps.getResult(0);
}

/// Runs the epilogue on the outer sum `total` of C(i, j), with its operands
/// read through their maps (and C_in where it reads it), and stores it.
void emitEpilogueStore(ImplicitLocOpBuilder &b, gpupoor::MatmulOp op, Value i,
                       Value j, Value total, IndexFn index) {
  SmallVector<Value, 3> loops = index(i, j);
  SmallVector<Value> ins;
  for (auto [in, map] :
       llvm::zip_equal(op.getEpilogueIns(),
                       op.getEpilogueMaps().getAsValueRange<AffineMapAttr>())) {
    SmallVector<Value> at;
    for (AffineExpr e : map.getResults())
      at.push_back(loops[cast<AffineDimExpr>(e).getPosition()]);
    ins.push_back(memref::LoadOp::create(b, in, at));
  }
  Value cIn = op.readsInit()
                  ? Value(memref::LoadOp::create(b, op.getInit(), loops))
                  : Value();
  Value v = emitEpilogue(b, b.getLoc(), total, op.getAccType(),
                         op.getEpilogueBlock(), ins, cIn);
  memref::StoreOp::create(b, v, op.getInit(), loops);
}

struct MatmulToLoops : OpRewritePattern<gpupoor::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(gpupoor::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasTensorSemantics())
      return rewriter.notifyMatchFailure(op, "expected memref operands");

    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    emitShapeChecks(b, op);
    SplitKAttr strategy = op.getStrategy();
    bool batched = op.isBatched();
    Type outerType = strategy.getOuter();

    auto cIdx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, v);
    };
    Value c0 = cIdx(0), c1 = cIdx(1);
    unsigned b0 = batched ? 1 : 0;
    bool aTransposed = strategy.isATransposed();
    Value m = memref::DimOp::create(b, op.getA(), aTransposed ? b0 + 1 : b0);
    Value k = memref::DimOp::create(b, op.getA(), aTransposed ? b0 : b0 + 1);
    Value n = memref::DimOp::create(b, op.getInit(), b0 + 1);
    Value batch = batched ? Value(memref::DimOp::create(b, op.getA(), 0)) : c1;

    // Chunk s covers the K blocks [start(s), start(s + 1)) (SplitGeometry);
    // chunks from min(S, blocks) on are empty.
    SplitGeometry geometry = emitSplitGeometry(b, k, strategy);
    Value splits = geometry.splits;
    Value bk = cIdx(strategy.getTileK());

    Value outerStart = emitSumStart(b, op, outerType);
    // P', from the C tiles of every batch element as the GPU launch counts
    // them.
    Value slices;
    if (strategy.getSlices() != 1) {
      slices = emitSliceCount(
          b, strategy, emitTileCount(b, strategy, m, n, batch), splits, k);
    }

    auto tiles = scf::ParallelOp::create(
        b, ValueRange{c0, c0, c0}, ValueRange{batch, m, n},
        ValueRange{c1, cIdx(strategy.getTileM()), cIdx(strategy.getTileN())});
    b.setInsertionPointToStart(tiles.getBody());
    Value bt = tiles.getInductionVars()[0];
    Value tm = tiles.getInductionVars()[1];
    Value tn = tiles.getInductionVars()[2];
    Value mEnd = arith::MinSIOp::create(
        b, arith::AddIOp::create(b, tm, cIdx(strategy.getTileM())), m);
    Value nEnd = arith::MinSIOp::create(
        b, arith::AddIOp::create(b, tn, cIdx(strategy.getTileN())), n);

    auto index = [&](Value row, Value col) {
      SmallVector<Value, 3> idx;
      if (batched)
        idx.push_back(bt);
      idx.append({row, col});
      return idx;
    };

    auto rows = scf::ForOp::create(b, tm, mEnd, c1);
    b.setInsertionPointToStart(rows.getBody());
    Value i = rows.getInductionVar();
    auto cols = scf::ForOp::create(b, tn, nEnd, c1);
    b.setInsertionPointToStart(cols.getBody());
    Value j = cols.getInductionVar();

    // Parallel split-k: slice p sums chunks [p * S / P', (p + 1) * S / P')
    // into a sum of its own; the slice sums are added in the order
    // p = 0 .. P' - 1. One slice is the split loop alone.
    scf::ForOp sliceLoop;
    Value chunkBegin = c0, chunkEnd = splits;
    if (slices) {
      sliceLoop = scf::ForOp::create(b, c0, slices, c1, outerStart);
      b.setInsertionPointToStart(sliceLoop.getBody());
      Value p = sliceLoop.getInductionVar();
      chunkBegin = arith::DivSIOp::create(b, arith::MulIOp::create(b, p, splits),
                                          slices);
      chunkEnd = arith::DivSIOp::create(
          b, arith::MulIOp::create(b, arith::AddIOp::create(b, p, c1), splits),
          slices);
    }
    // The split loop, carrying the outer accumulator.
    auto splitLoop =
        scf::ForOp::create(b, chunkBegin, chunkEnd, c1, outerStart);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(splitLoop.getBody());
      Value s = arith::MinSIOp::create(b, splitLoop.getInductionVar(),
                                       geometry.numChunks);
      auto elementOf = [&](Value chunk) -> Value {
        return arith::MinSIOp::create(
            b, arith::MulIOp::create(b, geometry.emitChunkStart(b, chunk), bk),
            k);
      };
      Value kBegin = elementOf(s);
      Value kEnd = elementOf(arith::MinSIOp::create(
          b, arith::AddIOp::create(b, s, c1), geometry.numChunks));
      // The chunk's sums: sum t takes k16 steps t, t + sets, ... of each
      // of its K tiles, which (chunks starting on K tiles, sets dividing
      // BK / 16) are steps kBegin + 16 t, kBegin + 16 (t + sets), ....
      // They enter the outer sum in turn. A sum whose steps all lie past
      // K in a chunk that has some adds +0.0, as the GPU's does (its
      // zero-filled products); chunks past the last are empty, as ever.
      int64_t sets = strategy.getSets();
      Value outer = splitLoop.getRegionIterArgs()[0];
      Value zero16 = sets > 1
                         ? arith::ConstantOp::create(b, b.getF16FloatAttr(0.0))
                         : Value();
      for (int64_t t = 0; t < sets; ++t) {
        Value from =
            t ? arith::AddIOp::create(b, kBegin, cIdx(t * kMmaK)) : kBegin;
        Value chunk =
            emitChunkSum(b, op, i, j, from, kEnd, sets * kMmaK, index);
        if (t > 0) {
          using P = arith::CmpIPredicate;
          Value padded = arith::AndIOp::create(
              b, arith::CmpIOp::create(b, P::sge, from, kEnd),
              arith::CmpIOp::create(b, P::slt, kBegin, kEnd));
          chunk = arith::SelectOp::create(b, padded, zero16, chunk);
        }
        outer = addOuter(b, outerType, outer, chunk);
      }
      scf::YieldOp::create(b, outer);
    }
    Value total = splitLoop.getResult(0);
    if (sliceLoop) {
      scf::YieldOp::create(b, addOuter(b, outerType,
                                       sliceLoop.getRegionIterArgs()[0], total));
      b.setInsertionPointAfter(sliceLoop);
      total = sliceLoop.getResult(0);
    }
    emitEpilogueStore(b, op, i, j, total, index);

    rewriter.eraseOp(op);
    return success();
  }
};

struct ConvertGPUPoorToLoopsPass
    : gpupoor::impl::ConvertGPUPoorToLoopsBase<ConvertGPUPoorToLoopsPass> {
  void runOnOperation() override {
    WalkResult tensorOps = getOperation()->walk([](gpupoor::MatmulOp op) {
      if (!op.hasTensorSemantics())
        return WalkResult::advance();
      op.emitOpError("has tensor operands; bufferize before "
                     "convert-gpupoor-to-loops");
      return WalkResult::interrupt();
    });
    if (tensorOps.wasInterrupted())
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    populateGPUPoorToLoopsPatterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace

void mlir::gpupoor::populateGPUPoorToLoopsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MatmulToLoops>(patterns.getContext());
}
