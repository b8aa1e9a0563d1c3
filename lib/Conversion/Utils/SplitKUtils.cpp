//===- SplitKUtils.cpp - split-k geometry shared by the lowerings ---------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

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

Value mlir::gpupoor::emitEpilogue(ImplicitLocOpBuilder &b, Value acc,
                                  Value bias, Epilogue epilogue,
                                  Type resultType) {
  Type f32 = b.getF32Type();
  auto widen = [&](Value v) {
    return v.getType().isF32() ? v : arith::ExtFOp::create(b, f32, v);
  };
  auto cst = [&](float v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  };
  Value v = widen(acc);
  // The matmul, the bias add and the activation each produce a value of the
  // result type in the IR the epilogue fuses (see EpilogueMatch.cpp): round
  // to it after each, as the IR does. (For f32 results that is no rounding.)
  auto roundToResult = [&](Value x) -> Value {
    if (resultType.isF32())
      return x;
    return arith::ExtFOp::create(
        b, f32, arith::TruncFOp::create(b, resultType, x).getResult());
  };
  if (bias || epilogue != Epilogue::None)
    v = roundToResult(v);
  if (bias)
    v = roundToResult(arith::AddFOp::create(b, v, widen(bias)));
  switch (epilogue) {
  case Epilogue::None:
    break;
  case Epilogue::Relu:
    v = arith::MaximumFOp::create(b, v, cst(0.0f));
    break;
  case Epilogue::Gelu: {
    // Exact GELU: 0.5 * v * (1 + erf(v / sqrt(2))).
    Value erf =
        math::ErfOp::create(b, arith::MulFOp::create(b, v, cst(M_SQRT1_2)));
    Value onePlusErf = arith::AddFOp::create(b, erf, cst(1.0f));
    Value halfV = arith::MulFOp::create(b, v, cst(0.5f));
    v = arith::MulFOp::create(b, halfV, onePlusErf);
    break;
  }
  }
  return resultType.isF32() ? v : arith::TruncFOp::create(b, resultType, v);
}
