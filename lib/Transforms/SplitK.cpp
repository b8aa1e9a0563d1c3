//===- SplitK.cpp - linalg matmuls to gpupoor split-k matmuls -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Rewrites eligible f16 linalg matmuls into gpupoor.matmul, fusing a bias
// add and an activation that consume the matmul alone into the epilogue.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORSPLITK
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

//===----------------------------------------------------------------------===//
// Elementwise body classification
//===----------------------------------------------------------------------===//

/// Evaluates a linalg body on doubles. Classifying bodies by their values,
/// rather than by their op structure, accepts every spelling of ReLU, GELU
/// and a bias add (maxnumf or maximumf, erf written with divf or mulf, casts
/// in between) without a pattern per spelling. Casts are the identity: the
/// epilogue computes in the outer accumulator type, never less precisely.
std::optional<double> evaluateBody(Block &body, ArrayRef<double> args) {
  DenseMap<Value, double> values;
  for (auto [arg, v] : llvm::zip(body.getArguments(), args))
    values[arg] = v;
  auto get = [&](Value v) -> std::optional<double> {
    auto it = values.find(v);
    if (it != values.end())
      return it->second;
    FloatAttr cst;
    if (matchPattern(v, m_Constant(&cst)))
      return cst.getValueAsDouble();
    return std::nullopt;
  };
  for (Operation &op : body) {
    if (auto yield = dyn_cast<linalg::YieldOp>(op)) {
      if (yield.getNumOperands() != 1)
        return std::nullopt;
      return get(yield.getOperand(0));
    }
    if (isa<arith::ConstantOp>(op))
      continue;
    SmallVector<double, 3> in;
    for (Value operand : op.getOperands()) {
      std::optional<double> v = get(operand);
      if (!v)
        return std::nullopt;
      in.push_back(*v);
    }
    std::optional<double> out =
        TypeSwitch<Operation *, std::optional<double>>(&op)
            .Case<arith::AddFOp>([&](auto) { return in[0] + in[1]; })
            .Case<arith::SubFOp>([&](auto) { return in[0] - in[1]; })
            .Case<arith::MulFOp>([&](auto) { return in[0] * in[1]; })
            .Case<arith::DivFOp>([&](auto) { return in[0] / in[1]; })
            .Case<arith::NegFOp>([&](auto) { return -in[0]; })
            .Case<arith::MaximumFOp, arith::MaxNumFOp>(
                [&](auto) { return std::max(in[0], in[1]); })
            .Case<arith::MinimumFOp, arith::MinNumFOp>(
                [&](auto) { return std::min(in[0], in[1]); })
            .Case<arith::ExtFOp, arith::TruncFOp>([&](auto) { return in[0]; })
            .Case<math::ErfOp>([&](auto) { return std::erf(in[0]); })
            .Case<math::TanhOp>([&](auto) { return std::tanh(in[0]); })
            .Case<math::SqrtOp>([&](auto) { return std::sqrt(in[0]); })
            .Case<math::ExpOp>([&](auto) { return std::exp(in[0]); })
            .Case<math::PowFOp>([&](auto) { return std::pow(in[0], in[1]); })
            .Case<math::FmaOp>([&](auto) { return in[0] * in[1] + in[2]; })
            .Default([](Operation *) { return std::nullopt; });
    if (!out || op.getNumResults() != 1)
      return std::nullopt;
    values[op.getResult(0)] = *out;
  }
  return std::nullopt;
}

/// Loose enough for constants spelled in f32 (1/sqrt(2) has 8 digits there),
/// tight enough to tell erf-GELU from its tanh approximation (they differ by
/// 4e-4 at x = -3).
bool closeTo(double got, double want) {
  return std::abs(got - want) <= 1e-5 * std::max(1.0, std::abs(want));
}

/// The activation a unary body computes, if it is one the epilogue has.
std::optional<Epilogue> classifyUnary(Block &body) {
  static constexpr double kSamples[] = {-3.0, -1.5, -0.5, -0.1, 0.0,
                                        0.3,  1.0,  2.5,  7.0};
  bool relu = true, gelu = true;
  for (double x : kSamples) {
    std::optional<double> y = evaluateBody(body, {x, 0.0});
    if (!y)
      return std::nullopt;
    relu &= closeTo(*y, std::max(x, 0.0));
    gelu &= closeTo(*y, 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))));
  }
  if (relu)
    return Epilogue::Relu;
  if (gelu)
    return Epilogue::Gelu;
  return std::nullopt;
}

/// Whether a binary body computes x + y.
bool isAddBody(Block &body) {
  static constexpr double kSamples[][2] = {
      {-3.0, 0.5}, {0.25, -1.75}, {1.0, 2.0}, {0.0, -0.125}};
  for (auto [x, y] : kSamples) {
    std::optional<double> z = evaluateBody(body, {x, y, 0.0});
    if (!z || !closeTo(*z, x + y))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Matmul analysis
//===----------------------------------------------------------------------===//

/// What the rewrite needs to know about one eligible matmul.
struct MatmulMatch {
  BLayout bLayout;
  /// The tensor the gpupoor op writes into (the zero fill's destination), or
  /// the memref that the matmul writes.
  Value init;
};

bool isZero(Value v) {
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// Whether `init` holds zeros when `op` runs: a zero linalg.fill on tensors,
/// or, on memrefs, a zero fill of the same buffer right before the matmul.
bool isZeroFilled(linalg::LinalgOp op, Value init) {
  if (isa<RankedTensorType>(init.getType())) {
    auto fill = init.getDefiningOp<linalg::FillOp>();
    return fill && isZero(fill.value());
  }
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  return fill && fill.output() == init && isZero(fill.value());
}

/// A type as diagnostics quote it: 'f16'.
std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '\'' << t << '\'';
  return s;
}

/// Decides whether `op` can become a gpupoor.matmul. On failure, returns the
/// reason in words.
FailureOr<MatmulMatch> analyzeMatmul(linalg::LinalgOp op, std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  Operation *operation = op.getOperation();
  bool batched = isa<linalg::BatchMatmulOp>(operation);
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(operation))
    return fail("'" + operation->getName().getStringRef() +
                "' is not linalg.matmul or linalg.batch_matmul");
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return fail("expected two inputs and one init");

  // A*B or A*B^T, nothing else (transposed A, broadcasts, ...).
  MLIRContext *ctx = op.getContext();
  unsigned numDims = batched ? 4 : 3;
  SmallVector<AffineExpr> d(numDims);
  bindDimsList(ctx, MutableArrayRef<AffineExpr>(d));
  SmallVector<AffineExpr> lead;
  if (batched)
    lead.push_back(d[0]);
  AffineExpr m = d[numDims - 3], n = d[numDims - 2], k = d[numDims - 1];
  auto map = [&](AffineExpr r, AffineExpr c) {
    SmallVector<AffineExpr> results(lead);
    results.append({r, c});
    return AffineMap::get(numDims, 0, results, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  BLayout bLayout;
  if (maps[0] != map(m, k) || maps[2] != map(m, n))
    return fail("indexing maps are neither A*B nor A*B^T");
  if (maps[1] == map(k, n))
    bLayout = BLayout::KN;
  else if (maps[1] == map(n, k))
    bLayout = BLayout::NK;
  else
    return fail("indexing maps are neither A*B nor A*B^T");

  Type aElt = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type bElt = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  Type cElt = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (aElt != bElt)
    return fail("mixed operand element types " + typeStr(aElt) + " and " +
                typeStr(bElt));
  if (aElt.isBF16())
    return fail("bf16 operands: mma has no bf16 accumulator");
  if (isa<IntegerType>(aElt))
    return fail("integer operands (" + typeStr(aElt) + ")");
  if (!aElt.isF16())
    return fail(typeStr(aElt) +
                " operands: only f16 operands are accumulated in f16");
  if (!cElt.isF16() && !cElt.isF32())
    return fail("result element type " + typeStr(cElt) + " is not f16 or f32");

  Value init = op.getDpsInits()[0];
  if (!isZeroFilled(op, init))
    return fail("init is not a zero fill (gpupoor.matmul overwrites C)");
  if (isa<RankedTensorType>(init.getType()))
    init = init.getDefiningOp<linalg::FillOp>().output();
  return MatmulMatch{bLayout, init};
}

//===----------------------------------------------------------------------===//
// Epilogue analysis
//===----------------------------------------------------------------------===//

/// The ops after the matmul that fold into the epilogue.
struct EpilogueMatch {
  Value bias;
  Epilogue epilogue = Epilogue::None;
  /// The last op folded in; its result is what the gpupoor op replaces.
  Operation *last = nullptr;
  SmallVector<Operation *> folded;
};

bool allParallel(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
}

/// The only user of `v`, if it is a linalg op of the same result type.
linalg::LinalgOp soleElementwiseUser(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  auto user = dyn_cast<linalg::LinalgOp>(*v.getUsers().begin());
  if (!user || user->getNumResults() != 1 ||
      user->getResult(0).getType() != v.getType() || !allParallel(user) ||
      user.hasIndexSemantics())
    return nullptr;
  return user;
}

/// Matches `user` as `v + bias[n]`: a generic whose body adds with a bias
/// broadcast along the last dimension, or linalg.add with a linalg.broadcast
/// of a rank-1 bias.
Value matchBiasAdd(linalg::LinalgOp user, Value v) {
  if (user.getNumDpsInputs() != 2)
    return nullptr;
  unsigned vIdx = user.getDpsInputs()[0] == v ? 0 : 1;
  if (user.getDpsInputs()[vIdx] != v)
    return nullptr;
  Value other = user.getDpsInputs()[1 - vIdx];
  unsigned rank = user.getNumLoops();
  MLIRContext *ctx = user.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap lastDim = AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx));
  SmallVector<AffineMap> maps = user.getIndexingMapsArray();
  if (maps[vIdx] != id || maps[2] != id)
    return nullptr;

  if (isa<linalg::GenericOp>(user.getOperation())) {
    if (maps[1 - vIdx] != lastDim || !isAddBody(*user.getBlock()))
      return nullptr;
    return other;
  }
  if (isa<linalg::AddOp>(user.getOperation())) {
    auto bcast = other.getDefiningOp<linalg::BroadcastOp>();
    if (!bcast || !bcast->hasOneUse() ||
        cast<ShapedType>(bcast.getInput().getType()).getRank() != 1)
      return nullptr;
    // The kept dimension must be the last one: dimensions lists the added.
    SmallVector<int64_t> added = llvm::to_vector(bcast.getDimensions());
    SmallVector<int64_t> expected =
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
    if (added != expected)
      return nullptr;
    return bcast.getInput();
  }
  return nullptr;
}

/// Matches `user` as an activation of `v`: a unary generic whose body
/// computes ReLU or GELU, or linalg.max against a zero fill.
std::optional<Epilogue> matchActivation(linalg::LinalgOp user, Value v) {
  unsigned rank = user.getNumLoops();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, user.getContext());
  if (!llvm::all_of(user.getIndexingMapsArray(),
                    [&](AffineMap m) { return m == id; }))
    return std::nullopt;
  if (isa<linalg::GenericOp>(user.getOperation())) {
    if (user.getNumDpsInputs() != 1 || user.getDpsInputs()[0] != v)
      return std::nullopt;
    return classifyUnary(*user.getBlock());
  }
  if (isa<linalg::MaxOp>(user.getOperation())) {
    Value other = user.getDpsInputs()[0] == v ? user.getDpsInputs()[1]
                                              : user.getDpsInputs()[0];
    auto fill = other.getDefiningOp<linalg::FillOp>();
    if (fill && isZero(fill.value()))
      return Epilogue::Relu;
  }
  return std::nullopt;
}

/// Finds the bias add and activation that consume `result` alone, in that
/// order. Only on tensors: on memrefs the consumers' buffers would need an
/// alias analysis to prove the fold safe.
EpilogueMatch analyzeEpilogue(Value result) {
  EpilogueMatch match;
  if (!result)
    return match;
  Value current = result;
  if (linalg::LinalgOp user = soleElementwiseUser(current)) {
    if (Value bias = matchBiasAdd(user, current)) {
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

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// The strategy options of the pass, resolved once.
struct StrategyOptions {
  std::optional<int64_t> splits;
  int64_t maxSplits;
  SmallVector<int64_t, 3> tile;
  Type outer;
  Chip chip;
};

struct MatmulToSplitK : OpInterfaceRewritePattern<linalg::LinalgOp> {
  MatmulToSplitK(MLIRContext *ctx, const StrategyOptions &options)
      : OpInterfaceRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!linalg::isaContractionOpInterface(op))
      return failure();
    std::string why;
    FailureOr<MatmulMatch> match = analyzeMatmul(op, why);
    if (failed(match))
      return rewriter.notifyMatchFailure(op, why);

    Value result = op->getNumResults() ? op->getResult(0) : Value();
    EpilogueMatch epilogue = analyzeEpilogue(result);

    // An explicit per-op attribute beats the pass option.
    std::optional<int64_t> splits = options.splits;
    if (auto attr = op->getAttrOfType<IntegerAttr>("gpupoor.splits"))
      splits = attr.getInt();
    // With a static K the rule is evaluated now, so the IR says what runs.
    int64_t k =
        cast<ShapedType>(op.getDpsInputs()[0].getType()).getShape().back();
    SmallVector<int64_t, 3> tile =
        options.tile.empty()
            ? selectTile(cast<ShapedType>(op.getDpsInits()[0].getType()),
                         options.chip)
            : options.tile;
    if (!splits && !ShapedType::isDynamic(k))
      splits =
          defaultNumSplits(llvm::divideCeil(k, tile[2]), options.maxSplits);

    MLIRContext *ctx = getContext();
    auto diag = [&]() { return op->emitOpError(); };
    SplitKAttr strategy = SplitKAttr::getChecked(
        diag, ctx, splits, options.maxSplits, ArrayRef<int64_t>(tile),
        Type(Float16Type::get(ctx)), options.outer, epilogue.epilogue,
        match->bLayout, options.chip);
    if (!strategy)
      return failure();

    Type resultType = result ? result.getType() : Type();
    auto mm = gpupoor::MatmulOp::create(
        rewriter, op.getLoc(), resultType, op.getDpsInputs()[0],
        op.getDpsInputs()[1], epilogue.bias, match->init, strategy,
        /*config=*/KernelConfigAttr());
    if (!result) {
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOp(epilogue.last, mm.getResult());
    for (Operation *folded : llvm::reverse(epilogue.folded))
      if (folded != epilogue.last)
        rewriter.eraseOp(folded);
    if (op.getOperation() != epilogue.last)
      rewriter.eraseOp(op);
    return success();
  }

  StrategyOptions options;
};

struct GPUPoorSplitKPass : gpupoor::impl::GPUPoorSplitKBase<GPUPoorSplitKPass> {
  using Base::Base;

  LogicalResult resolveOptions(StrategyOptions &resolved) {
    MLIRContext *ctx = &getContext();
    Location loc = UnknownLoc::get(ctx);
    if (splits < 0)
      return emitError(loc) << "gpupoor-split-k: splits must be >= 0, got "
                            << static_cast<int64_t>(splits);
    if (splits > 0)
      resolved.splits = splits;
    resolved.maxSplits = maxSplits;
    // Empty: chosen per matmul (selectTile).
    resolved.tile.assign(tile.begin(), tile.end());
    if (outerType == "f16")
      resolved.outer = Float16Type::get(ctx);
    else if (outerType == "f32")
      resolved.outer = Float32Type::get(ctx);
    else
      return emitError(loc) << "gpupoor-split-k: outer-type must be f16 or "
                               "f32, got '"
                            << outerType << "'";
    std::optional<Chip> parsedChip = symbolizeChip(chip);
    if (!parsedChip)
      return emitError(loc) << "gpupoor-split-k: unknown chip '" << chip
                            << "' (expected sm_80, sm_86, sm_89, sm_90 or "
                               "sm_90a)";
    resolved.chip = *parsedChip;
    // Check the combination once, with the attribute's own verifier.
    auto diag = [&]() {
      return emitError(loc) << "gpupoor-split-k: invalid strategy options: ";
    };
    SmallVector<int64_t, 3> checkedTile = resolved.tile;
    if (checkedTile.empty())
      checkedTile = defaultTile();
    if (!SplitKAttr::getChecked(diag, ctx, resolved.splits, resolved.maxSplits,
                                ArrayRef<int64_t>(checkedTile),
                                Type(Float16Type::get(ctx)), resolved.outer,
                                Epilogue::None, BLayout::KN, resolved.chip))
      return failure();
    return success();
  }

  void runOnOperation() override {
    StrategyOptions resolved;
    if (failed(resolveOptions(resolved)))
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    patterns.add<MatmulToSplitK>(&getContext(), resolved);
    // Only the matched ops change: keep the driver from folding or erasing
    // anything else in the user's IR.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    config.enableFolding(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();

    if (!reportIneligible && !strict)
      return;
    bool failedStrict = false;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!linalg::isaContractionOpInterface(op))
        return;
      std::string why;
      if (succeeded(analyzeMatmul(op, why)))
        why = "rewrite failed";
      if (strict) {
        op->emitError() << "not rewritten to gpupoor.matmul: " << why;
        failedStrict = true;
      } else {
        op->emitRemark() << "not rewritten to gpupoor.matmul: " << why;
      }
    });
    if (failedStrict)
      signalPassFailure();
  }
};

} // namespace
