//===- OperandChecksIR.cpp - policy checks as IR --------------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/OperandChecksIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::gpupoor;

Value mlir::gpupoor::compareConst(ImplicitLocOpBuilder &b,
                                  arith::CmpIPredicate pred, Value x,
                                  int64_t y) {
  Value cst = x.getType().isIndex()
                  ? Value(arith::ConstantIndexOp::create(b, y))
                  : Value(arith::ConstantIntOp::create(b, x.getType(), y));
  return arith::CmpIOp::create(b, pred, x, cst);
}

/// i1: the low bits of `x` under `mask` are zero (a pointer's address).
static Value lowBitsZero(ImplicitLocOpBuilder &b, Value x, int64_t mask) {
  if (isa<LLVM::LLVMPointerType>(x.getType()))
    x = LLVM::PtrToIntOp::create(b, b.getI64Type(), x);
  Value cst = x.getType().isIndex()
                  ? Value(arith::ConstantIndexOp::create(b, mask))
                  : Value(arith::ConstantIntOp::create(b, x.getType(), mask));
  return compareConst(b, arith::CmpIPredicate::eq,
                      arith::AndIOp::create(b, x, cst), 0);
}

Value mlir::gpupoor::allOf(ImplicitLocOpBuilder &b, ArrayRef<Value> conds) {
  if (conds.empty())
    return arith::ConstantIntOp::create(b, b.getI1Type(), 1);
  Value all = conds.front();
  for (Value c : conds.drop_front())
    all = arith::AndIOp::create(b, all, c);
  return all;
}

Value mlir::gpupoor::emitChecksHold(ImplicitLocOpBuilder &b,
                                    const policy::OperandChecks &checks,
                                    function_ref<Value(StringRef)> valueOf) {
  assert(!checks.maxWorkTiles && !checks.maxSize && !checks.maxOffset &&
         "the bounds are their callers' to check");
  using P = arith::CmpIPredicate;
  SmallVector<Value> conds;
  for (const std::string &name : checks.unitStride)
    conds.push_back(compareConst(b, P::eq, valueOf(name), 1));
  // (x & 7 == 0 is x % 8 == 0 for negative x too.)
  for (const std::string &name : checks.strideMultipleOf8)
    conds.push_back(lowBitsZero(b, valueOf(name), 7));
  for (const std::string &name : checks.pointerAligned16)
    conds.push_back(lowBitsZero(b, valueOf(name), 15));
  for (const auto &[stride, rows] : checks.positiveRowStride) {
    Value forward = compareConst(b, P::sgt, valueOf(stride), 0);
    Value oneRow = compareConst(b, P::sle, valueOf(rows), 1);
    conds.push_back(arith::OrIOp::create(b, forward, oneRow));
  }
  return allOf(b, conds);
}

Value mlir::gpupoor::emitBoundsHold(ImplicitLocOpBuilder &b,
                                    ArrayRef<policy::Bound> bounds,
                                    function_ref<Value(StringRef)> valueOf) {
  using P = arith::CmpIPredicate;
  using Kind = policy::Bound::Kind;
  Value one = arith::ConstantIndexOp::create(b, 1);
  auto term = [&](StringRef count, StringRef stride) {
    return arith::MulIOp::create(
        b, arith::SubIOp::create(b, valueOf(count), one), valueOf(stride));
  };
  SmallVector<Value> conds;
  for (const policy::Bound &bound : bounds) {
    switch (bound.kind) {
    case Kind::Range: {
      Value v = valueOf(bound.name);
      conds.push_back(compareConst(b, P::sge, v, 0));
      conds.push_back(compareConst(b, P::sle, v, bound.limit));
      break;
    }
    case Kind::LastOffset: {
      const policy::OffsetView &v = bound.view;
      Value last = arith::AddIOp::create(b, term(v.rows, v.rowStride),
                                         term(v.cols, v.colStride));
      conds.push_back(compareConst(b, P::sle, last, bound.limit));
      break;
    }
    case Kind::Scaled: {
      // ceil(x / d) * f <= limit as ceil(x / d) <= floor(limit / f): no
      // product to wrap.
      Value v = valueOf(bound.name);
      if (bound.divisor != 1)
        v = arith::CeilDivSIOp::create(
            b, v, arith::ConstantIndexOp::create(b, bound.divisor));
      conds.push_back(compareConst(b, P::sle, v, bound.limit / bound.factor));
      break;
    }
    }
  }
  return allOf(b, conds);
}
