//===- StreamK.cpp - persistent blocks sharing the last wave's tiles ------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/StreamK.h"

#include "gpupoor/Conversion/GPUKernel/SliceReduction.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gpupoor;

StreamKPlan StreamK::emitPlan(Value tiles, Value chunks) {
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value left = remU(tiles, grid);
  auto pos = [&](Value v) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, v, idx(0));
  };
  Value active = arith::AndIOp::create(b, lt(grid, tiles), pos(left));
  active = arith::AndIOp::create(b, active, pos(chunks));
  active = arith::AndIOp::create(
      b, active,
      arith::CmpIOp::create(b, arith::CmpIPredicate::sle, grid,
                            idx(kMaxStreamKBlocks)));
  StreamKPlan plan;
  plan.wholeTiles = select(active, sub(tiles, left), tiles);
  plan.sharingBlocks =
      select(active, minI(grid, mul(left, idx(kStreamKPiecesPerTile))), idx(0));
  plan.chunks = chunks;
  plan.units = select(active, mul(left, chunks), idx(0));
  Value j = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value mine = arith::AndIOp::create(b, active, lt(j, plan.sharingBlocks));
  Value begin = runStart(plan, j);
  Value end = runStart(plan, add(j, idx(1)));
  plan.unitBegin = select(mine, begin, idx(0));
  plan.unitEnd = select(mine, end, idx(0));
  return plan;
}

Value StreamK::runStart(const StreamKPlan &plan, Value j) {
  // In 64 bits: j R C passes 2^31 long before G' does.
  Type i64 = b.getI64Type();
  auto wide = [&](Value v) { return arith::IndexCastOp::create(b, i64, v); };
  // G' is 0 when inactive: divide by 1 then (the result is unused).
  Value divisor = maxI(plan.sharingBlocks, idx(1));
  Value start = arith::DivUIOp::create(
      b, arith::MulIOp::create(b, wide(j), wide(plan.units)), wide(divisor));
  return arith::IndexCastOp::create(b, b.getIndexType(), start);
}

void StreamK::emitWorkspace(const StreamKPlan &plan) {
  emitWorkspaceCheck(kc, args, plan.sharingBlocks, idx(1));
  sumsView = memref1DFromPointer(
      b, args.wsPtr, c.outerType,
      mul(plan.sharingBlocks, idx(c.sliceSumElems())), c.indexBitwidth);
  flags = memref1DFromPointer(b, args.locksPtr, b.getI32Type(),
                              plan.sharingBlocks, c.indexBitwidth);
}

void StreamK::emitLeave(ArrayRef<Value> sums) {
  storeSliceSums(kc, sumsView, gpu::BlockIdOp::create(b, gpu::Dimension::x),
                 sums);
}

void StreamK::emitRaise() {
  Value j = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  // Release: every thread's sums are visible device-wide before thread 0
  // raises the flag.
  NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
  gpu::BarrierOp::create(b);
  auto first = scf::IfOp::create(b, lt(kc.tid, idx(1)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(first.thenBlock());
  memref::AtomicRMWOp::create(
      b, arith::AtomicRMWKind::assign,
      arith::ConstantIntOp::create(b, b.getI32Type(), 1), flags, ValueRange{j});
}

Value StreamK::firstBlock(const StreamKPlan &plan, Value tileStart) {
  Type i64 = b.getI64Type();
  auto wide = [&](Value v) { return arith::IndexCastOp::create(b, i64, v); };
  // The last j' with runStart(j') <= X, ceil((X + 1) G' / R C) - 1 (the
  // inverse of runStart).
  Value units = wide(maxI(plan.units, idx(1)));
  Value num = arith::MulIOp::create(b, wide(add(tileStart, idx(1))),
                                    wide(plan.sharingBlocks));
  Value ceil = arith::DivUIOp::create(
      b,
      arith::AddIOp::create(
          b, num,
          arith::SubIOp::create(b, units,
                                arith::ConstantIntOp::create(b, i64, 1))),
      units);
  return sub(arith::IndexCastOp::create(b, b.getIndexType(), ceil), idx(1));
}

void StreamK::emitWaitRaised(Value peer) {
  Type i32 = b.getI32Type();
  Value zero = arith::ConstantIntOp::create(b, i32, 0);
  auto spin = scf::WhileOp::create(b, TypeRange{}, ValueRange{});
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&spin.getBefore());
  b.setInsertionPointToStart(before);
  // An atomic read: plain loads may be served from a stale L1 line.
  Value flag = memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::ori, zero,
                                           flags, ValueRange{peer});
  scf::ConditionOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, flag, zero),
      ValueRange{});
  Block *after = b.createBlock(&spin.getAfter());
  b.setInsertionPointToStart(after);
  scf::YieldOp::create(b, ValueRange{});
}

SmallVector<Value> StreamK::emitGather(const StreamKPlan &plan, Value tileStart,
                                       ArrayRef<Value> sums) {
  Type i32 = b.getI32Type();
  Value j = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value begin = firstBlock(plan, tileStart);
  auto loop = scf::ForOp::create(b, begin, j, idx(1), sums);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value peer = loop.getInductionVar();
  SmallVector<Value> acc(loop.getRegionIterArgs());
  // A peer with an empty run (more blocks than chunks) has no piece.
  Value some = lt(runStart(plan, peer), runStart(plan, add(peer, idx(1))));
  auto ifSome = scf::IfOp::create(b, ValueRange(acc).getTypes(), some,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(ifSome.elseBlock());
    scf::YieldOp::create(b, acc);
    b.setInsertionPointToStart(ifSome.thenBlock());
    auto first = scf::IfOp::create(b, lt(kc.tid, idx(1)), false);
    {
      OpBuilder::InsertionGuard g3(b);
      b.setInsertionPointToStart(first.thenBlock());
      Value zero = arith::ConstantIntOp::create(b, i32, 0);
      emitWaitRaised(peer);
      // Acquire: the peer's sums, for the whole block after the barrier.
      NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
      // The flag down for the next launch: no block raises it again in
      // this one.
      memref::StoreOp::create(b, zero, flags, ValueRange{peer});
    }
    gpu::BarrierOp::create(b);
    SmallVector<Value> loaded =
        loadSliceSums(kc, sumsView, peer,
                      cast<VectorType>(sums.front().getType()), sums.size());
    SmallVector<Value> next;
    for (auto [a, v] : llvm::zip_equal(acc, loaded))
      next.push_back(arith::AddFOp::create(b, a, v));
    scf::YieldOp::create(b, next);
  }
  scf::YieldOp::create(b, ifSome.getResults());
  return SmallVector<Value>(loop.getResults());
}
