//===- SwapOperands.cpp - swapped strategies as transposed products -------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Rewrites a memref gpupoor.matmul whose strategy is swapped (C = A B^T run
// as C^T = B A^T, gpupoor-split-k's choice for decode products on sm_90a)
// into the plain op on the swapped operands, C's transposed view as init.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "gpupoor/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORSWAPOPERANDS
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

void swapOperands(MatmulOp op) {
  OpBuilder b(op);
  MLIRContext *ctx = op.getContext();
  // (m, n) of the swapped product is (n, m) of the op.
  AffineMap swap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, ctx);
  Value init = memref::TransposeOp::create(b, op.getLoc(), op.getInit(),
                                           AffineMapAttr::get(swap));
  SmallVector<AffineMap> maps;
  for (AffineMap map : op.getEpilogueMaps().getAsValueRange<AffineMapAttr>())
    maps.push_back(map.compose(swap));
  // The swapped product's A is B: N x K is M x K again, K x N is K x M.
  // Its B is A: M x K is N x K, K x M is K x N.
  SplitKAttr s = op.getStrategy();
  ALayout aLayout = s.getBLayout() == BLayout::NK ? ALayout::MK : ALayout::KM;
  BLayout bLayout = s.getALayout() == ALayout::MK ? BLayout::NK : BLayout::KN;
  auto strategy = SplitKAttr::get(ctx, s.getSplits(), s.getMaxSplits(),
                                  s.getTile(), s.getInner(), s.getOuter(),
                                  bLayout, aLayout, s.getSlices(), s.getChip(),
                                  /*swapped=*/false, s.getSets());
  auto swapped = MatmulOp::create(
      b, op.getLoc(), Type(), op.getB(), op.getA(), op.getEpilogueIns(), init,
      strategy, op.getConfigAttr(), b.getAffineMapArrayAttr(maps),
      op.getSumsFromNegativeZeroAttr());
  // The epilogue computes each element from the same values: it moves as
  // it is.
  swapped.getEpilogue().takeBody(op.getEpilogue());
  for (NamedAttribute attr : op->getDiscardableAttrs())
    swapped->setAttr(attr.getName(), attr.getValue());
  swapped->setAttr(getSwappedOperandsAttrName(), UnitAttr::get(ctx));
  op.erase();
}

struct GPUPoorSwapOperandsPass
    : gpupoor::impl::GPUPoorSwapOperandsBase<GPUPoorSwapOperandsPass> {
  void runOnOperation() override {
    SmallVector<MatmulOp> ops;
    getOperation()->walk([&](MatmulOp op) {
      if (op.getStrategy().getSwapped() && !op.hasTensorSemantics())
        ops.push_back(op);
    });
    for (MatmulOp op : ops)
      swapOperands(op);
  }
};

} // namespace
