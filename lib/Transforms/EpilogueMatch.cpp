//===- EpilogueMatch.cpp - consumers a split-k epilogue computes ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Matches, by structure, the elementwise consumers of a matmul that the
// split-k epilogue computes bit for bit: a bias add and a ReLU or an exact
// (erf) GELU. Each consumer produces a tensor of C's type T, so the epilogue
// rounds to T after each one it folds (emitEpilogue); a body may compute in
// T, or, for T = f16, widen to f32 and truncate its result. What is accepted
// below is exactly what that computes:
//
//   * ReLU: maximumf(x, +0.0) in T or in f32 (rounding is monotonic, so the
//     maximum commutes with it; NaN propagates as maximumf says);
//   * bias: addf(x, b) in T or in f32, b of type f16 or f32, widened where
//     the body widens it; an f16 add done as an f32 add and one rounding to
//     f16 is exact (24 >= 2 * 11 + 2 bits);
//   * GELU: (x * 0.5) * (erf(x * 0.70710677) + 1), in f32, operands of each
//     add and multiply in either order (both are commutative in IEEE).
//
// Anything else (maxnumf, clamps, leaky slopes, bodies that read the
// generic's init, other spellings of GELU, f16 arithmetic over several ops)
// stays a separate op.
//
//===----------------------------------------------------------------------===//

#include "EpilogueMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

/// A constant of exactly the value `want` (+0.0 is not -0.0).
bool isConstant(Value v, double want) {
  FloatAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  APFloat value = attr.getValue();
  bool losesInfo = false;
  APFloat expected(want);
  expected.convert(value.getSemantics(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
  return !losesInfo && value.bitwiseIsEqual(expected);
}

/// The op of type OpTy that defines `v`, when `match` accepts its two
/// operands in one order or the other.
template <typename OpTy>
bool matchCommutative(Value v, function_ref<bool(Value, Value)> match) {
  auto op = v.getDefiningOp<OpTy>();
  return op &&
         (match(op.getLhs(), op.getRhs()) || match(op.getRhs(), op.getLhs()));
}

/// A body's computation: the value it yields before any final truncation
/// to T, and the type it computes in.
struct BodyResult {
  Value value;
  Type type;
};

/// The yielded value of a one-result generic body of result type `t`:
/// itself, or, for t = f16, the f32 value it truncates.
std::optional<BodyResult> bodyResult(Block &body, Type t) {
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return std::nullopt;
  Value v = yield.getOperand(0);
  if (v.getType() != t)
    return std::nullopt;
  // A truncation with its own rounding mode is not the epilogue's (to
  // nearest even).
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>())
    if (t.isF16() && trunc.getIn().getType().isF32() &&
        !trunc.getRoundingmodeAttr())
      return BodyResult{trunc.getIn(), trunc.getIn().getType()};
  return BodyResult{v, t};
}

/// Whether `v` is block argument `arg` as a value of the computation type
/// `u`: the argument itself, or its extension from f16 to f32.
bool isArgument(Value v, BlockArgument arg, Type u) {
  if (v == arg)
    return arg.getType() == u;
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  return ext && ext.getIn() == arg && u.isF32() && arg.getType().isF16();
}

bool isRelu(BodyResult r, BlockArgument x) {
  return matchCommutative<arith::MaximumFOp>(r.value, [&](Value a, Value b) {
    return isArgument(a, x, r.type) && isConstant(b, 0.0);
  });
}

bool isGelu(BodyResult r, BlockArgument x) {
  if (!r.type.isF32())
    return false;
  auto isX = [&](Value v) { return isArgument(v, x, r.type); };
  auto isHalfX = [&](Value v) {
    return matchCommutative<arith::MulFOp>(
        v, [&](Value a, Value b) { return isX(a) && isConstant(b, 0.5); });
  };
  auto isOnePlusErf = [&](Value v) {
    return matchCommutative<arith::AddFOp>(v, [&](Value a, Value b) {
      auto erf = a.getDefiningOp<math::ErfOp>();
      return erf && isConstant(b, 1.0) &&
             matchCommutative<arith::MulFOp>(
                 erf.getOperand(), [&](Value s, Value c) {
                   return isX(s) && isConstant(c, float(M_SQRT1_2));
                 });
    });
  };
  return matchCommutative<arith::MulFOp>(
      r.value, [&](Value a, Value b) { return isHalfX(a) && isOnePlusErf(b); });
}

bool isBiasAdd(BodyResult r, BlockArgument x, BlockArgument bias) {
  return matchCommutative<arith::AddFOp>(r.value, [&](Value a, Value b) {
    return isArgument(a, x, r.type) && isArgument(b, bias, r.type);
  });
}

bool allParallel(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
}

/// The only user of `v`, if it is an elementwise linalg op of the same
/// result type that reads `v` whole as one of its inputs (not as its init,
/// which the fused op would not compute from) and writes its result whole.
linalg::LinalgOp soleElementwiseUser(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  OpOperand *in = &*v.getUses().begin();
  auto user = dyn_cast<linalg::LinalgOp>(in->getOwner());
  if (!user || !user.isDpsInput(in) || user->getNumResults() != 1 ||
      user->getResult(0).getType() != v.getType() || !allParallel(user) ||
      user.hasIndexSemantics() || user.getNumDpsInits() != 1)
    return nullptr;
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(user.getNumLoops(), user.getContext());
  if (user.getMatchingIndexingMap(in) != id ||
      user.getMatchingIndexingMap(user.getDpsInitOperand(0)) != id)
    return nullptr;
  return user;
}

/// Matches `user` as `v + bias[n]`: a generic whose body adds a bias
/// broadcast along the last dimension, or linalg.add with a linalg.broadcast
/// of a rank-1 bias. The bias must be available before `matmul`.
Value matchBiasAdd(Operation *matmul, linalg::LinalgOp user, Value v) {
  if (user.getNumDpsInputs() != 2)
    return nullptr;
  // soleElementwiseUser made `v` one of the two inputs.
  unsigned vIdx = user.getDpsInputs()[0] == v ? 0 : 1;
  Value other = user.getDpsInputs()[1 - vIdx];
  unsigned rank = user.getNumLoops();
  MLIRContext *ctx = user.getContext();
  AffineMap lastDim = AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx));
  Type t = getElementTypeOrSelf(v.getType());
  Value bias;
  if (auto generic = dyn_cast<linalg::GenericOp>(user.getOperation())) {
    Block &body = *generic.getBody();
    std::optional<BodyResult> r = bodyResult(body, t);
    if (user.getIndexingMapsArray()[1 - vIdx] != lastDim || !r ||
        !isBiasAdd(*r, body.getArgument(vIdx), body.getArgument(1 - vIdx)))
      return nullptr;
    bias = other;
  } else if (isa<linalg::AddOp>(user.getOperation())) {
    auto bcast = other.getDefiningOp<linalg::BroadcastOp>();
    if (!bcast || !bcast->hasOneUse() ||
        cast<ShapedType>(bcast.getInput().getType()).getRank() != 1)
      return nullptr;
    // The kept dimension must be the last one: dimensions lists the added.
    SmallVector<int64_t> added = llvm::to_vector(bcast.getDimensions());
    if (added != llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)))
      return nullptr;
    bias = bcast.getInput();
  } else {
    return nullptr;
  }
  Type biasType = getElementTypeOrSelf(bias.getType());
  if (!biasType.isF16() && !biasType.isF32())
    return nullptr;
  // A bias computed after the matmul (from its result, say) cannot be its
  // operand.
  if (!DominanceInfo(matmul).properlyDominates(bias, matmul))
    return nullptr;
  return bias;
}

/// Matches `user` as an activation of `v`: a unary generic whose body is
/// ReLU or GELU, or linalg.max against a +0.0 fill.
std::optional<Epilogue> matchActivation(linalg::LinalgOp user, Value v) {
  Type t = getElementTypeOrSelf(v.getType());
  if (auto generic = dyn_cast<linalg::GenericOp>(user.getOperation())) {
    if (user.getNumDpsInputs() != 1)
      return std::nullopt;
    Block &body = *generic.getBody();
    std::optional<BodyResult> r = bodyResult(body, t);
    if (!r)
      return std::nullopt;
    if (isRelu(*r, body.getArgument(0)))
      return Epilogue::Relu;
    if (isGelu(*r, body.getArgument(0)))
      return Epilogue::Gelu;
    return std::nullopt;
  }
  if (isa<linalg::MaxOp>(user.getOperation())) {
    Value other = user.getDpsInputs()[0] == v ? user.getDpsInputs()[1]
                                              : user.getDpsInputs()[0];
    auto fill = other.getDefiningOp<linalg::FillOp>();
    if (fill && isConstant(fill.value(), 0.0))
      return Epilogue::Relu;
  }
  return std::nullopt;
}

} // namespace

EpilogueMatch mlir::gpupoor::analyzeEpilogue(Operation *matmul, Value result) {
  EpilogueMatch match;
  if (!result)
    return match;
  Value current = result;
  if (linalg::LinalgOp user = soleElementwiseUser(current)) {
    if (Value bias = matchBiasAdd(matmul, user, current)) {
      match.bias = bias;
      match.folded.push_back(user);
      current = user->getResult(0);
    }
  }
  if (linalg::LinalgOp user = soleElementwiseUser(current)) {
    if (std::optional<Epilogue> act = matchActivation(user, current)) {
      match.epilogue = *act;
      match.folded.push_back(user);
      current = user->getResult(0);
    }
  }
  match.last = current.getDefiningOp();
  return match;
}
