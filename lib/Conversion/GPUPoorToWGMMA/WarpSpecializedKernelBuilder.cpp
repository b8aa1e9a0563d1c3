//===- WarpSpecializedKernelBuilder.cpp - TMA producer, wgmma consumers ---===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "WarpSpecializedKernelBuilder.h"

#include "gpupoor/Conversion/GPUKernel/DependentLaunch.h"
#include "gpupoor/Conversion/GPUKernel/Epilogue.h"
#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"
#include "gpupoor/Conversion/GPUKernel/SliceReduction.h"
#include "gpupoor/Conversion/GPUKernel/TileScheduler.h"
#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// The named barrier of the consumer warpgroups (0 is the block's).
static constexpr int64_t kConsumerBarrier = 1;

void WarpSpecializedKernelBuilder::emitRelease(Value kb, Value when) {
  Value cond = when ? arith::AndIOp::create(b, releases, when) : releases;
  auto ifRelease = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifRelease.thenBlock());
  ring->emitRelease(kb);
  if (!leads)
    return;
  // The first warpgroup's wgmma on the tile are done: the others may take
  // it.
  auto ifLeads = scf::IfOp::create(b, leads, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifLeads.thenBlock());
  ring->emitPassOn(kb);
}

Value WarpSpecializedKernelBuilder::emitTile(Value kb, Value kbStart, Value acc,
                                             bool fresh) {
  if (leads) {
    auto ifFollows = scf::IfOp::create(
        b,
        arith::XOrIOp::create(
            b, leads, arith::ConstantIntOp::create(b, b.getI1Type(), 1)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifFollows.thenBlock());
    ring->emitWaitPassed(kb);
  }
  ring->emitWaitLoaded(kb);
  acc = wgmma->emitStage(ring->stageShift(kb), acc, fresh);
  // The previous tile's group is done: its stage goes back to the producer.
  wgmma->emitWait(1);
  emitRelease(sub(kb, idx(1)),
              arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, kb, kbStart));
  return acc;
}

void WarpSpecializedKernelBuilder::emitChunk(scf::ForOp chunkLoop) {
  SmallVector<Value> regs(chunkLoop.getRegionIterArgs());
  Value chunk = chunkLoop.getInductionVar();
  Value kbStart = geometry.emitChunkStart(b, chunk);
  Value kbEnd = geometry.emitChunkStart(b, add(chunk, idx(1)));
  Value acc = emitChunkTiles(kbStart, kbEnd, [] {});
  wgmma->emitWait(0);
  // Chunks are never empty (SplitGeometry): the last tile is kbEnd-1.
  emitRelease(sub(kbEnd, idx(1)));
  // The reads pass through empty asm as in emitDeferredChunks. Unfenced,
  // ptxas scheduled the handover differently: -0.2 to 2.5% slower at the
  // power cap in one call's three sustained runs on five shapes (H100,
  // docs/design/decisions.md#fewer-instructions-a-k-tile).
  scf::YieldOp::create(b, wgmma->handOver(wgmma->fenced(acc), regs, *outer));
}

Value WarpSpecializedKernelBuilder::emitChunkTiles(
    Value kbStart, Value kbEnd, function_ref<void()> afterFirst) {
  // The first tile starts the sums (scale-d = 0): no registers are zeroed,
  // so no moves land after its wgmma.fence (zeroed registers had to pass
  // through empty volatile asm, else ptxas added a fence: C7519).
  Value acc = emitTile(kbStart, kbStart, wgmma->unset(), /*fresh=*/true);
  afterFirst();
  auto loop = scf::ForOp::create(b, add(kbStart, idx(1)), kbEnd, idx(1),
                                 ValueRange{acc});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  scf::YieldOp::create(b, emitTile(loop.getInductionVar(), kbStart,
                                   loop.getRegionIterArgs().front()));
  return loop.getResult(0);
}

SmallVector<Value>
WarpSpecializedKernelBuilder::emitDeferredChunks(Value chunkBegin,
                                                 Value chunkEnd) {
  auto start = [&](Value chunk) { return geometry.emitChunkStart(b, chunk); };
  // Groups of kDeferredGroup chunks, unrolled, then the rest one by one
  // with a drain each (emitChunk). ptxas serializes every wgmma of a kernel
  // that copies or reads an accumulator while its group may be in flight
  // (C7514): a chunk loop carrying the previous chunk's sums beside the new
  // chunk's copies them at its back edge, and so does a join of two
  // chunks' sums (LLVM merges the drains of a branch's two arms into one
  // after them). Unrolled, each chunk's sums are read once, behind the next
  // chunk's first wait, and a group ends in a drain.
  constexpr int64_t kDeferredGroup = 4;
  // A slice past the last chunk has chunkBegin > chunkEnd (emitSliceBounds)
  // and no chunk: no group either.
  Value count =
      arith::MaxSIOp::create(b, sub(chunkEnd, chunkBegin), idx(0));
  Value groupsEnd = add(
      chunkBegin, arith::AndIOp::create(b, count, idx(-kDeferredGroup)));
  auto groups = scf::ForOp::create(b, chunkBegin, groupsEnd,
                                   idx(kDeferredGroup),
                                   outer->initialRegisters());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(groups.getBody());
    Value group = groups.getInductionVar();
    SmallVector<Value> regs(groups.getRegionIterArgs());
    Value acc;
    for (int64_t u = 0; u < kDeferredGroup; ++u) {
      Value chunk = add(group, idx(u));
      Value kbStart = start(chunk);
      Value pending = acc;
      // Chunks are never empty (SplitGeometry).
      acc = emitChunkTiles(kbStart, start(add(chunk, idx(1))), [&] {
        if (!pending)
          return;
        // The wait behind this chunk's first group has seen the previous
        // chunk's last one done: its stage goes back, its sums over,
        // while this chunk's wgmma run.
        emitRelease(sub(kbStart, idx(1)));
        regs = wgmma->handOver(wgmma->fenced(pending), regs, *outer);
      });
    }
    wgmma->emitWait(0);
    emitRelease(sub(start(add(group, idx(kDeferredGroup))), idx(1)));
    scf::YieldOp::create(b, wgmma->handOver(wgmma->fenced(acc), regs, *outer));
  }
  auto rest = scf::ForOp::create(b, groupsEnd, chunkEnd, idx(1),
                                 groups.getResults());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rest.getBody());
    emitChunk(rest);
  }
  return SmallVector<Value>(rest.getResults());
}

std::pair<Value, Value> WarpSpecializedKernelBuilder::emitSplitTile(
    Value kb, Value acc0, Value acc1, bool fresh, bool release,
    function_ref<Value()> handover0, function_ref<Value()> handover1) {
  int64_t half = c.bn / 2;
  if (handover0)
    acc0 = handover0();
  ring->emitWaitLoaded(kb);
  Value shift = ring->stageShift(kb);
  Value a0 = wgmma->emitStage(shift, acc0, fresh, 0, half);
  wgmma->emitWait(1);
  if (release)
    emitRelease(sub(kb, idx(1)));
  if (handover1)
    acc1 = handover1();
  Value a1 = wgmma->emitStage(shift, acc1, fresh, half, half);
  return {a0, a1};
}

std::pair<Value, Value>
WarpSpecializedKernelBuilder::emitSplitTiles(Value from, Value to, Value acc0,
                                             Value acc1) {
  auto loop = scf::ForOp::create(b, from, to, idx(1), ValueRange{acc0, acc1});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  auto [a0, a1] =
      emitSplitTile(loop.getInductionVar(), loop.getRegionIterArgs()[0],
                    loop.getRegionIterArgs()[1], /*fresh=*/false,
                    /*release=*/true, {}, {});
  scf::YieldOp::create(b, ValueRange{a0, a1});
  return {loop.getResult(0), loop.getResult(1)};
}

SmallVector<Value>
WarpSpecializedKernelBuilder::emitSplitChunks(Value chunkBegin,
                                              Value chunkEnd) {
  int64_t half = c.bn / 2, halfFrags = half / 8;
  auto start = [&](Value chunk) { return geometry.emitChunkStart(b, chunk); };
  SmallVector<Value> init = outer->initialRegisters();
  // A slice past the last chunk has none (emitSliceBounds).
  auto ifAny = scf::IfOp::create(b, ValueRange(init).getTypes(),
                                 lt(chunkBegin, chunkEnd),
                                 /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifAny.elseBlock());
  scf::YieldOp::create(b, init);
  b.setInsertionPointToStart(ifAny.thenBlock());

  // (Operands built one by one: their ops' order would otherwise be the
  // C++ compiler's.)
  Value firstTile = start(chunkBegin);
  Value unset0 = wgmma->unset(half), unset1 = wgmma->unset(half);
  auto [acc0, acc1] = emitSplitTile(firstTile, unset0, unset1, /*fresh=*/true,
                                    /*release=*/false, {}, {});
  SmallVector<Value> carried(init);
  carried.push_back(acc0);
  carried.push_back(acc1);
  Value lastChunk = sub(chunkEnd, idx(1));
  auto chunks = scf::ForOp::create(b, chunkBegin, lastChunk, idx(1), carried);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(chunks.getBody());
    Value chunk = chunks.getInductionVar();
    auto args = chunks.getRegionIterArgs();
    SmallVector<Value> regs(args.drop_back(2));
    Value next = start(add(chunk, idx(1)));
    Value last = sub(next, idx(1));
    Value second = add(start(chunk), idx(1));
    auto [r0, r1] =
        emitSplitTiles(second, last, args[args.size() - 2], args.back());
    // The chunk's last tile outside the loop: ptxas serializes every wgmma
    // of the kernel (C7514) when the first half's sums are read behind a
    // wait that follows the loop rather than the second half's group.
    auto [a0, a1] = emitSplitTile(last, r0, r1, /*fresh=*/false,
                                  /*release=*/true, {}, {});
    // The last tile's first half is done, its second half may run while
    // the first half's sums are handed over; the next chunk's first tile
    // starts new sums in the same registers (a fresh group ignores them).
    // Then the same for the second half behind the new first half.
    wgmma->emitWait(1);
    auto handOver = [&](Value acc, int64_t first) {
      Value f = wgmma->fenced(acc);
      regs = outer->emitHandover(wgmma->fragments(f), regs, first);
      // The adds stay ahead of the group that reuses the registers: LLVM
      // would sink them past it, and copy the sums to keep them.
      wgmma->fence(MutableArrayRef<Value>(regs).slice(first, halfFrags));
      return f;
    };
    auto [n0, n1] = emitSplitTile(
        next, a0, a1, /*fresh=*/true, /*release=*/true,
        [&, a0 = a0] { return handOver(a0, 0); },
        [&, a1 = a1] { return handOver(a1, halfFrags); });
    regs.push_back(n0);
    regs.push_back(n1);
    scf::YieldOp::create(b, regs);
  }
  auto res = chunks.getResults();
  SmallVector<Value> regs(res.drop_back(2));
  Value end = start(chunkEnd);
  Value lastSecond = add(start(lastChunk), idx(1));
  auto [a0, a1] =
      emitSplitTiles(lastSecond, end, res[res.size() - 2], res.back());
  wgmma->emitWait(0);
  emitRelease(sub(end, idx(1)));
  regs = outer->emitHandover(wgmma->fragments(wgmma->fenced(a0)), regs, 0);
  regs =
      outer->emitHandover(wgmma->fragments(wgmma->fenced(a1)), regs, halfFrags);
  scf::YieldOp::create(b, regs);
  return SmallVector<Value>(ifAny.getResults());
}

SmallVector<Value> WarpSpecializedKernelBuilder::emitChunks(Value chunkBegin,
                                                            Value chunkEnd) {
  auto chunkLoop = scf::ForOp::create(b, chunkBegin, chunkEnd, idx(1),
                                      outer->initialRegisters());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunkLoop.getBody());
  emitChunk(chunkLoop);
  return SmallVector<Value>(chunkLoop.getResults());
}

SmallVector<Value>
WarpSpecializedKernelBuilder::emitSplitOrConvert(Value chunkBegin,
                                                 Value chunkEnd) {
  // Chunks have floor(blocks / chunks) K tiles or one more
  // (SplitGeometry): the split handover peels each chunk's first and last.
  Value twoTiles =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, geometry.numKBlocks,
                            mul(geometry.numChunks, idx(2)));
  SmallVector<Value> init = outer->initialRegisters();
  auto ifSplit = scf::IfOp::create(b, ValueRange(init).getTypes(), twoTiles,
                                   /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifSplit.thenBlock());
  scf::YieldOp::create(b, emitSplitChunks(chunkBegin, chunkEnd));
  b.setInsertionPointToStart(ifSplit.elseBlock());
  scf::YieldOp::create(b, emitChunks(chunkBegin, chunkEnd));
  return SmallVector<Value>(ifSplit.getResults());
}

Value WarpSpecializedKernelBuilder::workTiles() {
  // Clusters of two along M take whole pairs of row tiles (the host
  // launches as many blocks).
  Value rows =
      c.clusterM == 1
          ? kc.tilesM
          : mul(divU(add(kc.tilesM, idx(c.clusterM - 1)), idx(c.clusterM)),
                idx(c.clusterM));
  return mul(rows, kc.tilesN);
}

Value WarpSpecializedKernelBuilder::emitRingLoads() {
  Value perTile = sub(sliceEnd, sliceFirst);
  if (!c.persistent())
    return perTile;
  // A persistent block's work tiles: ceil((work - pid) / grid).
  Value work = c.batched ? mul(workTiles(), kc.batches) : workTiles();
  Value step = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value left = arith::MaxSIOp::create(b, sub(work, kc.pid), idx(0));
  return mul(divU(add(left, sub(step, idx(1))), step), perTile);
}

void WarpSpecializedKernelBuilder::forEachWorkTile(
    function_ref<void(const WorkUnit &)> body) {
  WorkUnit whole{slice.chunkBegin, slice.emitChunkEnd(b), sliceEnd, Value(),
                 Value()};
  if (!c.persistent()) {
    GroupedTileOrder(kc).emitTileOrigin();
    body(whole);
    return;
  }
  if (c.streamK()) {
    emitStreamKUnits(body);
    return;
  }
  Value start = kc.pid, batch = kc.batch;
  Value step = gpu::GridDimOp::create(b, gpu::Dimension::x);
  // A batched product's work tiles: batch element b's after b - 1's, so
  // that the blocks of a wave share their elements' operands in L2.
  Value tiles = workTiles();
  Value work = c.batched ? mul(tiles, kc.batches) : tiles;
  auto loop = scf::ForOp::create(b, start, work, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value w = loop.getInductionVar();
  kc.pid = c.batched ? remU(w, tiles) : w;
  if (c.batched)
    kc.batch = divU(w, tiles);
  GroupedTileOrder(kc).emitTileOrigin();
  // Every work tile of the block takes the same K tiles, [first, end).
  ring->startWorkTile(
      mul(divU(sub(w, start), step), sub(sliceEnd, sliceFirst)));
  body(whole);
  ring->startWorkTile(Value());
  kc.pid = start;
  kc.batch = batch;
}

void WarpSpecializedKernelBuilder::emitStreamKUnits(
    function_ref<void(const WorkUnit &)> body) {
  auto start = [&](Value chunk) { return geometry.emitChunkStart(b, chunk); };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  };
  using P = arith::CmpIPredicate;
  Value j = kc.pid;
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value tilesPer = sub(sliceEnd, sliceFirst);
  // Whole tiles j, j + G, ... below D.
  Value whole = select(
      lt(j, plan.wholeTiles),
      add(divU(sub(sub(plan.wholeTiles, j), idx(1)), grid), idx(1)), idx(0));
  // The run [ub, ue): a piece of tile t1 = ub / C, chunks [ub - t1 C,
  // min(ue - t1 C, C)), and past (t1 + 1) C one of tile t1 + 1 from its
  // first chunk, which goes first: every block then reads K tile kb of its
  // first piece at the moment it reads K tile kb + (C - run) chunks of its
  // second, so that the blocks' reads of A and B meet in L2 as the whole
  // tiles' do (run from the end of one tile, each block's reads would
  // start at another K: measured 1.9x the time at 2048 x 4096 x 14336,
  // DRAM-bound).
  Value chunks = maxI(plan.chunks, idx(1));
  Value ub = plan.unitBegin, ue = plan.unitEnd;
  Value t1 = divU(ub, chunks);
  Value t1End = mul(add(t1, idx(1)), chunks);
  Value c1b = sub(ub, mul(t1, chunks));
  Value c1e = minI(sub(ue, mul(t1, chunks)), chunks);
  Value c2e = sub(ue, t1End);
  Value two = cmp(P::sgt, ue, t1End);
  Value pieces = select(lt(ub, ue), select(two, idx(2), idx(1)), idx(0));
  Value wholeUsed = mul(whole, tilesPer);
  // The first piece's K tiles: tile t1 + 1's [0, c2e) or tile t1's.
  Value firstPieceTiles = select(two, start(c2e), sub(start(c1e), start(c1b)));

  auto loop = scf::ForOp::create(b, idx(0), add(whole, pieces), idx(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value u = loop.getInductionVar();
  Value isWhole = lt(u, whole);
  // Tile t1 + 1's piece: the first of two.
  Value isNext = arith::AndIOp::create(b, two, cmp(P::eq, u, whole));
  Value isSecond = cmp(P::eq, u, add(whole, idx(1)));
  Value t = select(isNext, add(t1, idx(1)), t1);
  kc.pid = select(isWhole, add(j, mul(u, grid)), add(plan.wholeTiles, t));
  WorkUnit unit;
  unit.chunkBegin = select(isWhole, idx(0), select(isNext, idx(0), c1b));
  unit.chunkEnd = select(isWhole, geometry.numChunks, select(isNext, c2e, c1e));
  unit.endTile = start(unit.chunkEnd);
  unit.shared = arith::XOrIOp::create(
      b, isWhole, arith::ConstantIntOp::create(b, b.getI1Type(), 1));
  unit.tileStart = mul(t, chunks);
  Value used =
      select(isWhole, mul(u, tilesPer),
             select(isSecond, add(wholeUsed, firstPieceTiles), wholeUsed));
  GroupedTileOrder(kc).emitTileOrigin();
  ring->startWorkTile(used, start(unit.chunkBegin));
  body(unit);
  ring->startWorkTile(Value(), sliceFirst);
  kc.pid = j;
}

void WarpSpecializedKernelBuilder::emitStreamKEnd(const KernelArgs &args,
                                                  const WorkUnit &unit,
                                                  ArrayRef<Value> sums) {
  // A piece that ends before its tile's last chunk leaves its sums; the
  // tile's last piece adds the others'.
  Value leaves =
      arith::AndIOp::create(b, unit.shared,
                            arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                                  unit.chunkEnd, plan.chunks));
  auto ifLeaves = scf::IfOp::create(b, leaves, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifLeaves.thenBlock());
  streamK->emitLeave(sums);
  streamK->emitRaise();
  b.setInsertionPointToStart(ifLeaves.elseBlock());
  SmallVector<Type> types;
  for (Value v : sums)
    types.push_back(v.getType());
  auto ifOwner = scf::IfOp::create(b, types, unit.shared, true);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(ifOwner.thenBlock());
    scf::YieldOp::create(b, streamK->emitGather(plan, unit.tileStart, sums));
    b.setInsertionPointToStart(ifOwner.elseBlock());
    scf::YieldOp::create(b, sums);
  }
  EpilogueEmitter(kc, args).emit(SmallVector<Value>(ifOwner.getResults()));
}

void WarpSpecializedKernelBuilder::emitConsumers(const KernelArgs &args) {
  NVVM::SetMaxRegisterOp::create(b, c.consumerRegisters(),
                                 NVVM::SetMaxRegisterAction::increase);
  releases = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      remU(kc.tid, idx(KernelSpec::kWarpgroupThreads)), idx(0));
  if (c.tmaBarriersPerStage() > 2)
    leads = lt(kc.tid, idx(KernelSpec::kWarpgroupThreads));
  wgmma.emplace(kc);
  outer.emplace(kc);
  if (streamK)
    streamK->emitWorkspace(plan);
  forEachWorkTile([&](const WorkUnit &unit) {
    SmallVector<Value> regs;
    if (c.defersHandover()) {
      regs = emitDeferredChunks(unit.chunkBegin, unit.chunkEnd);
    } else if (c.splitHandover) {
      regs = emitSplitOrConvert(unit.chunkBegin, unit.chunkEnd);
    } else {
      regs = emitChunks(unit.chunkBegin, unit.chunkEnd);
    }
    SmallVector<Value> sums = outer->emitFinal(regs);
    if (!c.persistent()) {
      emitTileStores(kc, args, sums);
      return;
    }
    if (unit.shared) {
      emitStreamKEnd(args, unit, sums);
      return;
    }
    // A batched kernel's C and epilogue operands at the tile's element.
    if (c.batched)
      EpilogueEmitter(kc, kernelArgsAt(kc, func, kc.batch)).emit(sums);
    else
      EpilogueEmitter(kc, args).emit(sums);
  });
  if (!c.persistent())
    return;
  // The epilogue's TMA stores have read the buffer and written C before
  // the block's shared memory goes.
  if (c.tmaStores())
    NVVM::CpAsyncBulkWaitGroupOp::create(b, 0, UnitAttr());
  gpu::ReturnOp::create(b);
}

void WarpSpecializedKernelBuilder::build() {
  b.setInsertionPointToStart(&func.getBody().front());
  KernelArgs args = readKernelArgs(kc, func);
  kc.rawSmem = createDynamicSharedMemory(b);
  // The consumers' thread ids: every part after the ring counts threads
  // from the first consumer, as in a block without the producer.
  emitThreadIds(kc, KernelSpec::kWarpgroupThreads);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  auto [chunks, bounds] = emitBlockChunks(kc);
  geometry = chunks;
  slice = bounds;
  sliceFirst = slice.firstTile ? slice.firstTile : idx(0);
  sliceEnd = slice.endTile;
  ring.emplace(kc, args.aMap, args.bMap, sliceFirst);
  if (c.streamK()) {
    streamK.emplace(kc, args);
    plan = streamK->emitPlan(mul(kc.tilesM, kc.tilesN), geometry.numChunks);
  }

  Value isThread0 =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, idx(0));
  {
    auto ifInit = scf::IfOp::create(b, isThread0, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifInit.thenBlock());
    ring->emitInit();
  }
  // Every thread of the block: the barriers are initialized. In a cluster,
  // every thread of every block of it: the other block's loads and
  // releases reach this block's barriers.
  if (c.clusterM == 1) {
    NVVM::BarrierOp::create(b);
  } else {
    NVVM::ClusterArriveOp::create(b, UnitAttr());
    NVVM::ClusterWaitOp::create(b, UnitAttr());
  }

  // Producer and consumers part for good: blocks of the function, each
  // ending in its own return.
  Region &body = func.getBody();
  Block *producer = new Block(), *consumers = new Block();
  body.push_back(producer);
  body.push_back(consumers);
  cf::CondBranchOp::create(b, lt(tid, idx(KernelSpec::kWarpgroupThreads)),
                           producer, consumers);

  b.setInsertionPointToStart(producer);
  NVVM::SetMaxRegisterOp::create(b, KernelSpec::kProducerRegisters,
                                 NVVM::SetMaxRegisterAction::decrease);
  {
    auto ifLoads = scf::IfOp::create(b, isThread0, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifLoads.thenBlock());
    // The one thread that loads: the rest of the producer touches no
    // global memory.
    emitGridDependencyWait(kc);
    forEachWorkTile(
        [&](const WorkUnit &unit) { ring->emitLoads(unit.endTile); });
    ring->emitDrain(emitRingLoads());
  }
  gpu::ReturnOp::create(b);

  b.setInsertionPointToStart(consumers);
  // The consumers read only shared memory until the epilogue, but a block
  // without K tiles stores C with no load before it.
  emitGridDependencyWait(kc);
  emitConsumers(args);

  // The shared parts meet with block barriers; here the block's consumers
  // meet without the producer, which has returned.
  SmallVector<gpu::BarrierOp> barriers;
  func.walk([&](gpu::BarrierOp op) { barriers.push_back(op); });
  for (gpu::BarrierOp op : barriers) {
    b.setInsertionPoint(op);
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, b.getI32Type(), v);
    };
    NVVM::BarrierOp::create(b, Type(), cst(kConsumerBarrier), cst(c.threads()),
                            NVVM::BarrierReductionAttr(), Value());
    op.erase();
  }
}
