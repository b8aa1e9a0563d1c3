//===- EpilogueFusion.cpp - elementwise chains into matmul epilogues ------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Moves the elementwise linalg ops that consume a matmul into the epilogue
// region of the gpupoor.matmul that replaces it. Nothing is recognised by
// what it computes: each consumer's body is cloned as it is, its block
// arguments bound to the previous consumer's value at the same element, to
// the other operands' elements (read through their indexing maps, which
// are projected permutations: per-row, per-column, transposed, full-size or
// 0-d) or to constants. Every element of a chain of all-parallel ops without
// linalg.index is a function of those elements alone, so the region
// computes exactly what the chain did, in the chain's own types (see
// docs/design/Numerics.md).
//
//===----------------------------------------------------------------------===//

#include "EpilogueFusion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

/// Where the epilogue takes one operand of a consumer's body from.
struct Source {
  enum Kind { Chain, Constant, Splat, Tensor, Out } kind;
  /// Chain: the fused value; Constant: the scalar constant; Tensor: the
  /// tensor read.
  Value value;
  /// Tensor: from C's dimensions to the tensor's.
  AffineMap map;
  /// Splat: the value of every element of a constant tensor.
  TypedAttr splat;
};

/// The values the fused ops compute (the matmul's result and each fused
/// consumer's), which the region holds at the current element.
using GroupValues = llvm::SmallPtrSet<Value, 8>;

/// A scalar constant the region may hold (an arith constant: other
/// dialects' constants, llvm.mlir.constant or ub.poison, are not epilogue
/// ops).
bool isScalarConstant(Value v) {
  Operation *def = v.getDefiningOp();
  return v.getType().isIntOrIndexOrFloat() && matchPattern(v, m_Constant()) &&
         def && isValidEpilogueOp(def) &&
         whyUntranslatableEpilogueOp(def).empty();
}

/// Where the epilogue reads `x` (through `map`) from: a value of the group,
/// a constant (a linalg.fill of one, or a splat tensor constant: a host
/// constant the kernel could not read), the input of a linalg.broadcast,
/// the fused op's own init (`out`, at the same element), or `x` itself.
/// `folded` collects the fills and broadcasts looked through.
Source resolve(Value x, AffineMap map, const GroupValues &group, Value out,
               SetVector<Operation *> *folded = nullptr) {
  if (group.contains(x))
    return {Source::Chain, x, {}, {}};
  while (true) {
    DenseElementsAttr dense;
    // (Of a type the region may compute with: a splat becomes a scalar
    // constant in it.)
    if (matchPattern(x, m_Constant(&dense)) && dense.isSplat() &&
        dense.getElementType().isIntOrFloat() &&
        isEpilogueScalarType(dense.getElementType()))
      return {Source::Splat, {}, {}, dense.getSplatValue<TypedAttr>()};
    if (auto fill = x.getDefiningOp<linalg::FillOp>()) {
      // A fill may convert its value to the element type: not then.
      if (!fill.hasPureTensorSemantics() || !isScalarConstant(fill.value()) ||
          fill.value().getType() != getElementTypeOrSelf(x.getType()))
        break;
      if (folded)
        folded->insert(fill);
      return {Source::Constant, fill.value(), {}, {}};
    }
    auto bcast = x.getDefiningOp<linalg::BroadcastOp>();
    if (!bcast || !bcast.hasPureTensorSemantics())
      break;
    // `dimensions` lists the output dimensions the broadcast adds; the
    // others are the input's, in order.
    SmallVector<AffineExpr> kept;
    for (auto [j, e] : llvm::enumerate(map.getResults()))
      if (!llvm::is_contained(bcast.getDimensions(), int64_t(j)))
        kept.push_back(e);
    map = AffineMap::get(map.getNumDims(), 0, kept, map.getContext());
    x = bcast.getInput();
    if (folded)
      folded->insert(bcast);
  }
  if (x == out && map.isIdentity())
    return {Source::Out, {}, {}, {}};
  return {Source::Tensor, x, map, {}};
}

/// Kernels address epilogue operands in whole bytes.
bool readableElementType(Type t) {
  return isa<IntegerType, FloatType>(t) && t.getIntOrFloatBitWidth() % 8 == 0;
}

/// Whether `g`'s body can be cloned into an epilogue: scalar arith and math
/// ops without side effects that the lowerings translate, reading the
/// body's arguments, each other and constants. An op the lowerings cannot
/// translate is `untranslatable`, with `why`.
bool clonableBody(linalg::LinalgOp g, Operation *&untranslatable,
                  StringRef &why) {
  Block *body = g.getBlock();
  auto inside = [&](Value v) {
    return v.getParentBlock() == body || isScalarConstant(v);
  };
  // Whether every one of `values` is the body's or a constant it may hold;
  // where not, a constant from outside that the region could hold but no
  // lowering translates (an f8 one) is the untranslatable op.
  auto allInside = [&](ValueRange values) {
    if (llvm::all_of(values, inside))
      return true;
    for (Value v : values) {
      Operation *def = v.getDefiningOp();
      if (def && matchPattern(v, m_Constant()) && isValidEpilogueOp(def) &&
          !whyUntranslatableEpilogueOp(def).empty()) {
        untranslatable = def;
        why = whyUntranslatableEpilogueOp(def);
        break;
      }
    }
    return false;
  };
  for (Operation &op : body->without_terminator()) {
    if (!isValidEpilogueOp(&op) || !allInside(op.getOperands()))
      return false;
    why = whyUntranslatableEpilogueOp(&op);
    if (!why.empty()) {
      untranslatable = &op;
      return false;
    }
  }
  Operation *yield = body->getTerminator();
  return yield->getNumOperands() == 1 && allInside(yield->getOperands());
}

/// Whether `g`, which reads values of the group, can join it: it computes
/// each element of C's shape from the group's values at that element and
/// other tensors read through projected permutations, with a body the
/// region can hold. `fusion` takes an op of the body that no lowering
/// translates.
bool fusible(linalg::LinalgOp g, const GroupValues &group,
             RankedTensorType cType, Block *block, EpilogueFusion &fusion) {
  int64_t rank = cType.getRank();
  if (g->getBlock() != block || !g.hasPureTensorSemantics() ||
      g->getNumResults() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops() || g.hasIndexSemantics() ||
      g.getNumLoops() != rank)
    return false;
  auto rType = cast<RankedTensorType>(g->getResult(0).getType());
  // (Only the last op's result is stored: the others may be i1, say.)
  if (rType.getShape() != cType.getShape() ||
      !isa<IntegerType, FloatType>(rType.getElementType()))
    return false;
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, g.getContext());
  if (g.getMatchingIndexingMap(g.getDpsInitOperand(0)) != id)
    return false;
  for (OpOperand &operand : g->getOpOperands()) {
    AffineMap map = g.getMatchingIndexingMap(&operand);
    // Every read of the group's values is at the element being computed.
    if (group.contains(operand.get())) {
      if (map != id)
        return false;
      continue;
    }
    if (g.getMatchingBlockArgument(&operand).use_empty())
      continue;
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type || map.getNumSymbols() != 0 ||
        map.getNumResults() != type.getRank() ||
        !map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return false;
    Source s = resolve(operand.get(), map, group, Value());
    // (A constant tensor, a bias as a dense_resource say, is an operand
    // like any other: gpupoor-to-cubin gives the kernel a device copy of
    // its global, as it does for A and B.)
    if (s.kind == Source::Tensor &&
        !readableElementType(
            cast<ShapedType>(s.value.getType()).getElementType()))
      return false;
  }
  return clonableBody(g, fusion.untranslatable, fusion.untranslatableWhy);
}

/// Builds the epilogue block of `fusion` and collects its ins operands.
class EpilogueBuilder {
public:
  EpilogueBuilder(linalg::LinalgOp matmul, const EpilogueFusion &fusion)
      : matmul(matmul), fusion(fusion), block(std::make_unique<Block>()),
        b(matmul.getContext()) {
    // The block has no region yet: the builder takes the context from the
    // op.
    b.setInsertionPointToEnd(block.get());
  }

  /// The block: (acc, ins..., out) -> yield of the chain's last value;
  /// the caller takes it.
  std::unique_ptr<Block> build();

  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  /// The fills and broadcasts read through.
  SetVector<Operation *> folded;

private:
  /// The block argument of ins operand (x, map), added on first use.
  Value insArgument(Value x, AffineMap map);
  /// The region's value of `x` read through `map` at the current element.
  Value read(Value x, AffineMap map);
  /// Clones `g`'s body; returns the value it yields.
  Value cloneBody(linalg::LinalgOp g);
  /// `v` inside the region: mapped, or a constant from outside cloned.
  Value inRegion(Value v, IRMapping &mapping);

  linalg::LinalgOp matmul;
  const EpilogueFusion &fusion;
  std::unique_ptr<Block> block;
  OpBuilder b;
  /// The region's values of the group's values.
  DenseMap<Value, Value> groupValues;
  GroupValues group;
};

Value EpilogueBuilder::insArgument(Value x, AffineMap map) {
  for (auto [i, in] : llvm::enumerate(ins))
    if (in == x && maps[i] == map)
      return block->getArgument(i + 1);
  ins.push_back(x);
  maps.push_back(map);
  // Before the last argument, `out`.
  return block->insertArgument(block->getNumArguments() - 1,
                               getElementTypeOrSelf(x.getType()), x.getLoc());
}

Value EpilogueBuilder::read(Value x, AffineMap map) {
  Source s = resolve(x, map, group, fusion.init, &folded);
  switch (s.kind) {
  case Source::Chain:
    return groupValues.lookup(s.value);
  case Source::Constant:
    return b.clone(*s.value.getDefiningOp())->getResult(0);
  case Source::Splat:
    return arith::ConstantOp::create(b, x.getLoc(), s.splat);
  case Source::Out:
    return block->getArguments().back();
  case Source::Tensor:
    return insArgument(s.value, s.map);
  }
  llvm_unreachable("unknown source");
}

Value EpilogueBuilder::inRegion(Value v, IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(v))
    return mapped;
  // A constant from outside the body (clonableBody checked).
  Value cst = b.clone(*v.getDefiningOp())->getResult(0);
  mapping.map(v, cst);
  return cst;
}

Value EpilogueBuilder::cloneBody(linalg::LinalgOp g) {
  IRMapping mapping;
  for (OpOperand &operand : g->getOpOperands()) {
    BlockArgument arg = g.getMatchingBlockArgument(&operand);
    if (!arg.use_empty())
      mapping.map(arg, read(operand.get(), g.getMatchingIndexingMap(&operand)));
  }
  Block *body = g.getBlock();
  for (Operation &op : body->without_terminator()) {
    for (Value operand : op.getOperands())
      inRegion(operand, mapping);
    b.clone(op, mapping);
  }
  return inRegion(body->getTerminator()->getOperand(0), mapping);
}

std::unique_ptr<Block> EpilogueBuilder::build() {
  Location loc = matmul.getLoc();
  Type accType = getElementTypeOrSelf(matmul.getDpsInits()[0].getType());
  Type cType = getElementTypeOrSelf(fusion.init.getType());
  block->addArgument(accType, loc);
  block->addArgument(cType, loc);
  Value current = block->getArgument(0);
  if (fusion.cIn) {
    int64_t rank = cast<ShapedType>(fusion.cIn.getType()).getRank();
    Value c = read(fusion.cIn,
                   AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
    // linalg.matmul's C + sum(A * B), with the sum as split-k computes it.
    current = arith::AddFOp::create(b, loc, c, current);
  }
  if (matmul->getNumResults()) {
    group.insert(matmul->getResult(0));
    groupValues[matmul->getResult(0)] = current;
  }
  for (linalg::LinalgOp g : fusion.chain) {
    current = cloneBody(g);
    group.insert(g->getResult(0));
    groupValues[g->getResult(0)] = current;
  }
  YieldOp::create(b, loc, current);
  return std::move(block);
}

} // namespace

EpilogueFusion mlir::gpupoor::analyzeEpilogueFusion(linalg::LinalgOp matmul,
                                                    Value cIn, Value dest) {
  EpilogueFusion fusion;
  fusion.cIn = cIn;
  fusion.init = dest;
  if (matmul->getNumResults() != 1)
    return fusion;
  auto cType = cast<RankedTensorType>(matmul->getResult(0).getType());
  // The ops after the matmul that read its result or each other's, in
  // order, as long as each can join; the fused op stands for the longest
  // run of them whose last op's result is the only one read outside (a
  // chain, or a graph such as x * sigmoid(x) or LeakyReLU's max, min, mul
  // and add).
  GroupValues group = {matmul->getResult(0)};
  // Where each value of the group is written.
  DenseMap<Value, Value> destOf = {{matmul->getResult(0), dest}};
  SmallVector<linalg::LinalgOp> candidates;
  size_t best = 0;
  auto usedOutside = [&](Value v) {
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return !llvm::is_contained(candidates, user);
    });
  };
  for (Operation *op = matmul->getNextNode(); op; op = op->getNextNode()) {
    if (llvm::none_of(op->getOperands(),
                      [&](Value v) { return group.contains(v); }))
      continue;
    auto g = dyn_cast<linalg::LinalgOp>(op);
    if (!g || !fusible(g, group, cType, matmul->getBlock(), fusion))
      break;
    candidates.push_back(g);
    Value result = g->getResult(0);
    group.insert(result);
    // An op that updates a value of the group in place keeps its
    // destination.
    // (The destination is copied out before the insert: operator[] may
    // grow the map and move its entries.)
    Value gInit = g.getDpsInits()[0];
    Value gDest = group.contains(gInit) ? destOf.lookup(gInit) : gInit;
    destOf[result] = gDest;
    Type elt = getElementTypeOrSelf(result.getType());
    if ((elt.isF16() || elt.isF32()) &&
        !usedOutside(matmul->getResult(0)) &&
        llvm::all_of(llvm::drop_end(candidates), [&](linalg::LinalgOp c) {
          return !usedOutside(c->getResult(0));
        }))
      best = candidates.size();
  }
  candidates.resize(best);
  fusion.chain = std::move(candidates);
  if (!fusion.chain.empty())
    fusion.init = destOf[fusion.chain.back()->getResult(0)];
  // A constant fill as the destination is read (if at all) as its constant:
  // write into what it fills instead, so that the fill goes.
  if (auto fill = fusion.init.getDefiningOp<linalg::FillOp>())
    if (resolve(fusion.init, AffineMap(), GroupValues(), Value()).kind ==
        Source::Constant)
      fusion.init = fill.output();
  return fusion;
}

void mlir::gpupoor::buildFusedMatmul(RewriterBase &rewriter,
                                     linalg::LinalgOp matmul,
                                     const EpilogueFusion &fusion,
                                     SplitKAttr strategy) {
  // Opt-in (--remarks-filter=gpupoor-split-k).
  if (Operation *op = fusion.untranslatable)
    remark::missed(
        op->getLoc(),
        remark::RemarkOpts::name("EpilogueFusion").category("gpupoor-split-k"))
        << ("'" + op->getName().getStringRef() +
            "' stays outside the matmul's epilogue: " +
            fusion.untranslatableWhy)
               .str();
  Operation *last =
      fusion.chain.empty() ? matmul.getOperation() : fusion.chain.back();
  Value oldResult = last->getNumResults() ? last->getResult(0) : Value();
  Type accType = getElementTypeOrSelf(matmul.getDpsInits()[0].getType());
  Type cType = getElementTypeOrSelf(fusion.init.getType());
  // A plain product needs no region.
  bool plain = fusion.chain.empty() && !fusion.cIn && accType == cType;
  EpilogueBuilder builder(matmul, fusion);
  std::unique_ptr<Block> block = plain ? nullptr : builder.build();

  rewriter.setInsertionPoint(last);
  auto fused = MatmulOp::create(
      rewriter, matmul.getLoc(), oldResult ? fusion.init.getType() : Type(),
      matmul.getDpsInputs()[0], matmul.getDpsInputs()[1], builder.ins,
      fusion.init, strategy, KernelConfigAttr(),
      rewriter.getAffineMapArrayAttr(builder.maps),
      /*sums_from_negative_zero=*/fusion.cIn ? rewriter.getUnitAttr()
                                             : UnitAttr());
  if (block)
    fused.getEpilogue().push_back(block.release());
  if (oldResult)
    rewriter.replaceAllUsesWith(oldResult, fused.getResult());
  for (linalg::LinalgOp g : llvm::reverse(fusion.chain))
    rewriter.eraseOp(g);
  rewriter.eraseOp(matmul);
  // Broadcasts and fills that only the chain read (a broadcast may read a
  // fill: erase until nothing more is dead).
  SmallVector<Operation *> pending(builder.folded.begin(),
                                   builder.folded.end());
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : pending) {
      if (!op || !op->use_empty())
        continue;
      rewriter.eraseOp(op);
      op = nullptr;
      erased = true;
    }
  }
}
