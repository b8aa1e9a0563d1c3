//===- SplitKUtils.cpp - split-k geometry shared by the lowerings ---------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// floor(sqrt(n)) for 0 <= n < 2^32, digit by digit in integers: GPU
/// kernels then need no libdevice square root, and CPU and GPU agree exactly.
static Value emitIntegerSqrt(ImplicitLocOpBuilder &b, Value n) {
  Type i64 = b.getI64Type();
  auto cst = [&](int64_t v) { return arith::ConstantIntOp::create(b, i64, v); };
  Value rest = n, root = cst(0), one = cst(1);
  for (int64_t bit = int64_t(1) << 30; bit > 0; bit >>= 2) {
    Value trial = arith::AddIOp::create(b, root, cst(bit));
    Value fits =
        arith::CmpIOp::create(b, arith::CmpIPredicate::uge, rest, trial);
    rest = arith::SelectOp::create(b, fits,
                                   arith::SubIOp::create(b, rest, trial), rest);
    Value halved = arith::ShRUIOp::create(b, root, one);
    root = arith::SelectOp::create(
        b, fits, arith::AddIOp::create(b, halved, cst(bit)), halved);
  }
  return root;
}

/// S at run time: gpu_poor's rule next_pow2(floor(sqrt(blocks))), clamped to
/// [1, maxSplits].
static Value emitDefaultSplits(ImplicitLocOpBuilder &b, Value numKBlocks,
                               int64_t maxSplits) {
  Type i64 = b.getI64Type();
  Value n = arith::IndexCastOp::create(b, i64, numKBlocks);
  Value root = emitIntegerSqrt(b, n);
  Value one = arith::ConstantIntOp::create(b, i64, 1);
  // next_pow2(r) for r > 1: smear the top bit of r - 1 down, add one.
  Value pow2 = arith::SubIOp::create(b, root, one);
  for (int64_t shift : {1, 2, 4, 8, 16, 32})
    pow2 = arith::OrIOp::create(
        b, pow2,
        arith::ShRUIOp::create(b, pow2,
                               arith::ConstantIntOp::create(b, i64, shift)));
  pow2 = arith::AddIOp::create(b, pow2, one);
  Value isSmall =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sle, root, one);
  Value splits = arith::SelectOp::create(b, isSmall, one, pow2);
  splits = arith::MinSIOp::create(
      b, splits, arith::ConstantIntOp::create(b, i64, maxSplits));
  return arith::IndexCastOp::create(b, b.getIndexType(), splits);
}

SplitGeometry mlir::gpupoor::emitSplitGeometry(ImplicitLocOpBuilder &b, Value k,
                                               SplitKAttr strategy) {
  Value bk = arith::ConstantIndexOp::create(b, strategy.getTileK());
  SplitGeometry g;
  g.numKBlocks = arith::CeilDivSIOp::create(b, k, bk);
  g.splits =
      strategy.getSplits()
          ? Value(arith::ConstantIndexOp::create(b, *strategy.getSplits()))
          : emitDefaultSplits(b, g.numKBlocks, strategy.getMaxSplits());
  g.blocksPerSplit = arith::CeilDivSIOp::create(b, g.numKBlocks, g.splits);
  g.chunkLen = arith::MulIOp::create(b, g.blocksPerSplit, bk);
  return g;
}

Value mlir::gpupoor::emitEpilogue(OpBuilder &b, Location loc, Value outer,
                                  Type accType, Block *epilogue, ValueRange ins,
                                  Value cIn) {
  Value acc = outer;
  unsigned have = outer.getType().getIntOrFloatBitWidth();
  unsigned want = accType.getIntOrFloatBitWidth();
  if (have > want)
    acc = arith::TruncFOp::create(b, loc, accType, outer);
  else if (have < want)
    acc = arith::ExtFOp::create(b, loc, accType, outer);
  if (!epilogue)
    return acc;
  IRMapping mapping;
  mapping.map(epilogue->getArgument(0), acc);
  for (auto [arg, in] :
       llvm::zip_equal(epilogue->getArguments().drop_front().drop_back(), ins))
    mapping.map(arg, in);
  BlockArgument cArg = epilogue->getArguments().back();
  assert((cIn || cArg.use_empty()) && "the epilogue reads C");
  if (cIn)
    mapping.map(cArg, cIn);
  for (Operation &op : epilogue->without_terminator())
    b.clone(op, mapping);
  return mapping.lookup(epilogue->getTerminator()->getOperand(0));
}
