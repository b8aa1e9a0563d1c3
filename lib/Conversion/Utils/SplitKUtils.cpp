//===- SplitKUtils.cpp - split-k geometry shared by the lowerings ---------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/SplitKUtils.h"

#include "gpupoor/Dialect/GPUPoor/TargetUtils/ChipInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// S at run time: gpu_poor's rule next_pow2(floor(sqrt(ceil(K / 32))))
/// (1 for a root of at most 1), at least kMinLongKSplits from
/// kLongKRuleBlocks blocks on, clamped to [1, maxSplits]
/// (defaultNumSplits). With r = floor(sqrt(n)), r <= 2^j exactly when n <
/// (2^j + 1)^2, so next_pow2(r) is 2^c for c the count of j >= 0 with n >=
/// (2^j + 1)^2: independent comparisons, exact, the same on the CPU and the
/// GPU. (A root digit by digit took 16 dependent 64-bit steps that every
/// thread of a kernel ran before its first load: measured on an H100, the
/// package's dynamic-shape decode kernel then ran 13.3 us at 1 x 2048 x
/// 5120 and 8.9 at 1 x 1024 x 4096, against 12.7-12.8 and 8.4 now and the
/// static kernel's 12.6-12.7 and 8.2-8.3.)
static Value emitDefaultSplits(ImplicitLocOpBuilder &b, Value k,
                               SplitKAttr strategy) {
  int64_t maxSplits = strategy.getMaxSplits();
  Type i64 = b.getI64Type();
  auto cst = [&](int64_t v) { return arith::ConstantIntOp::create(b, i64, v); };
  Value n = arith::IndexCastOp::create(
      b, i64,
      arith::CeilDivSIOp::create(
          b, k, arith::ConstantIndexOp::create(b, kSplitRuleBlock)));
  // Past 2^levels >= maxSplits the count only raises what the clamp cuts.
  int64_t levels = llvm::Log2_64_Ceil(std::max<int64_t>(maxSplits, 1));
  Value count = cst(0);
  for (int64_t j = 0; j < levels; ++j) {
    int64_t edge = ((int64_t(1) << j) + 1) * ((int64_t(1) << j) + 1);
    Value past =
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge, n, cst(edge));
    count = arith::AddIOp::create(b, count,
                                  arith::ExtUIOp::create(b, i64, past));
  }
  Value splits = arith::ShLIOp::create(b, cst(1), count);
  Value isLong = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, n,
                                       cst(kLongKRuleBlocks));
  splits = arith::SelectOp::create(
      b, isLong, arith::MaxSIOp::create(b, splits, cst(kMinLongKSplits)),
      splits);
  // The tile's chunks of at most longestChunk where it has one
  // (tileNumSplits).
  if (int64_t chunk = policy::longestChunk(toPolicy(strategy.getChip()),
                                           toPolicyTile(strategy.getTile()))) {
    Value chunks = arith::IndexCastOp::create(
        b, i64,
        arith::CeilDivSIOp::create(b, k,
                                   arith::ConstantIndexOp::create(b, chunk)));
    splits = arith::MaxSIOp::create(b, splits, chunks);
  }
  splits = arith::MinSIOp::create(b, splits, cst(maxSplits));
  return arith::IndexCastOp::create(b, b.getIndexType(), splits);
}

SplitGeometry mlir::gpupoor::emitSplitGeometry(ImplicitLocOpBuilder &b, Value k,
                                               SplitKAttr strategy,
                                               Value splits) {
  Value bk = arith::ConstantIndexOp::create(b, strategy.getTileK());
  SplitGeometry g;
  g.numKBlocks = arith::CeilDivSIOp::create(b, k, bk);
  if (strategy.getSplits())
    g.splits = arith::ConstantIndexOp::create(b, *strategy.getSplits());
  else if (splits)
    // The launch's S, at least 1: a launcher's 0 or a negative count runs
    // one chunk rather than divide by zero.
    g.splits =
        arith::MaxSIOp::create(b, splits, arith::ConstantIndexOp::create(b, 1));
  else
    g.splits = emitDefaultSplits(b, k, strategy);
  g.numChunks = arith::MinSIOp::create(b, g.splits, g.numKBlocks);
  // With K = 0 there are no chunks: divide by 1 (q = r = 0).
  Value divisor = arith::MaxSIOp::create(b, g.numChunks,
                                        arith::ConstantIndexOp::create(b, 1));
  g.perChunk = arith::DivUIOp::create(b, g.numKBlocks, divisor);
  g.remainder = arith::RemUIOp::create(b, g.numKBlocks, divisor);
  return g;
}

Value SplitGeometry::emitChunkStart(ImplicitLocOpBuilder &b, Value c) const {
  // Two statements: the order of a call's arguments is the compiler's, and
  // the IR's op order should not be.
  Value whole = arith::MulIOp::create(b, c, perChunk);
  Value longer = arith::MinSIOp::create(b, c, remainder);
  return arith::AddIOp::create(b, whole, longer);
}

Value mlir::gpupoor::emitTileCount(ImplicitLocOpBuilder &b, SplitKAttr strategy,
                                   Value m, Value n, Value batch) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  Value tilesM = arith::CeilDivSIOp::create(b, m, cst(strategy.getTileM()));
  Value tilesN = arith::CeilDivSIOp::create(b, n, cst(strategy.getTileN()));
  Value tiles = arith::MulIOp::create(b, tilesM, tilesN);
  return batch ? arith::MulIOp::create(b, batch, tiles) : tiles;
}

Value mlir::gpupoor::emitSliceCount(ImplicitLocOpBuilder &b,
                                    SplitKAttr strategy, Value tiles,
                                    Value splits, Value k) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  Value one = cst(1);
  // At most kMaxSlices (grid y), whatever S.
  splits = arith::MinSIOp::create(b, splits, cst(kMaxSlices));
  if (strategy.getSlices() > 0)
    return arith::MaxSIOp::create(
        b, arith::MinSIOp::create(b, cst(strategy.getSlices()), splits), one);
  // numSlices' rule: P1 (one block an SM) or PB (B), clamped to [1, S];
  // where Q T >= SMs, 1, or P1 from K = kLongKShareK on.
  int64_t sms = getChipInfo(strategy.getChip()).smCount;
  int64_t blocks = sliceBlocksPerSM(strategy.getChip(), strategy.getTile());
  Value t = arith::MaxSIOp::create(b, tiles, one);
  auto clampToSplits = [&](Value v) -> Value {
    return arith::MaxSIOp::create(b, arith::MinSIOp::create(b, v, splits), one);
  };
  Value p1 = clampToSplits(arith::DivSIOp::create(b, cst(sms), t));
  Value p2 = clampToSplits(arith::DivSIOp::create(b, cst(blocks * sms), t));
  Value better = arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, p2,
                                       arith::MulIOp::create(b, p1, cst(2)));
  Value chosen = arith::SelectOp::create(b, better, p2, p1);
  int64_t share = sliceOneSliceShare(strategy.getChip(), strategy.getTile());
  if (share != 0) {
    Value enough = arith::CmpIOp::create(
        b, arith::CmpIPredicate::sge, arith::MulIOp::create(b, t, cst(share)),
        cst(sms));
    Value longK = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, k,
                                        cst(policy::kLongKShareK));
    Value shared = arith::SelectOp::create(b, longK, p1, one);
    chosen = arith::SelectOp::create(b, enough, shared, chosen);
  }
  if (!slicesNeedLongK(strategy.getChip()))
    return chosen;
  Value shortK = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, k,
                                       cst(policy::kMinWgmmaSliceK));
  return arith::SelectOp::create(b, shortK, one, chosen);
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

void mlir::gpupoor::emitShapeChecks(ImplicitLocOpBuilder &b, MatmulOp op) {
  int64_t rank = op.getInitType().getRank();
  bool nk = op.getStrategy().getBLayout() == BLayout::NK;
  // Each dimension of each operand, as a dimension of the iteration space
  // (batch, m, n, k as 0..3; without a batch, m, n, k as 1..3).
  SmallVector<std::pair<Value, SmallVector<int64_t>>> operands;
  int64_t lead = rank == 3 ? 1 : 0;
  auto dims = [&](std::initializer_list<int64_t> matrix) {
    SmallVector<int64_t> d;
    if (lead)
      d.push_back(0);
    d.append(matrix);
    return d;
  };
  operands.push_back({op.getA(), op.getStrategy().isATransposed()
                                     ? dims({3, 1})
                                     : dims({1, 3})});
  operands.push_back({op.getB(), nk ? dims({2, 3}) : dims({3, 2})});
  operands.push_back({op.getInit(), dims({1, 2})});
  for (auto [in, map] :
       llvm::zip_equal(op.getEpilogueIns(),
                       op.getEpilogueMaps().getAsValueRange<AffineMapAttr>())) {
    SmallVector<int64_t> d;
    for (AffineExpr e : map.getResults())
      d.push_back(cast<AffineDimExpr>(e).getPosition() + (lead ? 0 : 1));
    operands.push_back({in, d});
  }
  // The first operand that has each dimension defines it.
  std::array<std::pair<Value, int64_t>, 4> first{};
  Value ok;
  for (auto &[value, ds] : operands) {
    auto type = cast<MemRefType>(value.getType());
    for (auto [i, d] : llvm::enumerate(ds)) {
      auto &[firstValue, firstIdx] = first[d];
      if (!firstValue) {
        first[d] = {value, int64_t(i)};
        continue;
      }
      int64_t here = type.getDimSize(i);
      int64_t there =
          cast<MemRefType>(firstValue.getType()).getDimSize(firstIdx);
      // Static pairs are the verifier's.
      if (!ShapedType::isDynamic(here) && !ShapedType::isDynamic(there))
        continue;
      Value eq = arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq, memref::DimOp::create(b, value, i),
          memref::DimOp::create(b, firstValue, firstIdx));
      ok = ok ? arith::AndIOp::create(b, ok, eq).getResult() : eq;
    }
  }
  if (ok)
    cf::AssertOp::create(b, ok,
                         "gpupoor.matmul: operand sizes disagree (A, B, C and "
                         "the epilogue's operands must agree on the batch, "
                         "M, N and K)");
}
