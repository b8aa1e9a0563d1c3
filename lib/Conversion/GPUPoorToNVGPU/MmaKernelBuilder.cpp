//===- MmaKernelBuilder.cpp - the mma.sync split-k kernel's body ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "MmaKernelBuilder.h"

#include "gpupoor/Conversion/GPUKernel/DependentLaunch.h"
#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"
#include "gpupoor/Conversion/GPUKernel/SliceReduction.h"
#include "gpupoor/Conversion/GPUKernel/TileScheduler.h"
#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::gpupoor;

SmallVector<Value> MmaKernelBuilder::emitPrologue() {
  copies->emitPrologue();
  // Fragments of the first `fragmentPrefetch` k steps, all in tile 0.
  SmallVector<Value> frags;
  if (c.fragmentPrefetch > 0)
    copies->emitWaitAndBarrier();
  for (int64_t ks = 0; ks < c.fragmentPrefetch; ++ks)
    frags.append(mma->load(copies->stageView(firstTile), ks));
  return frags;
}

void MmaKernelBuilder::emitTile(Value kb, SmallVector<Value> &inner,
                                SmallVector<Value> &ahead, bool full,
                                Value fullIf) {
  int64_t kSteps = c.bk / 16;
  int64_t dist = c.fragmentPrefetch;
  Value refill = add(kb, idx(c.stages - 1));
  if (dist == 0) {
    // Tile kb has landed and every warp is done with tile kb - 1, whose
    // stage takes tile kb + stages - 1.
    copies->emitWaitAndBarrier();
    copies->emitGroup(refill, full, fullIf);
    Value stage = copies->stageView(kb);
    for (int64_t ks = 0; ks < kSteps; ++ks)
      emitStep(mma->load(stage, ks), ks, inner);
    return;
  }
  // Step ks loads the fragments of step ks + dist, in the next tile once
  // that runs past this one: the barrier that publishes the next tile
  // comes first, at step kSteps - dist. Every read of the stage that the
  // refill overwrites (tile kb - 1's) was issued before the previous
  // tile's barrier. With the barrier at step 0 the refill precedes it.
  int64_t barrierStep = kSteps - dist;
  int64_t setSize = mma->setSize();
  Value stage = copies->stageView(kb), nextStage;
  for (int64_t ks = 0; ks < kSteps; ++ks) {
    // The wait counts the refill's group among the pending ones: with the
    // barrier at step 0 the refill comes first.
    if (ks == 0 && barrierStep == 0)
      copies->emitGroup(refill, full, fullIf);
    if (ks == barrierStep) {
      copies->emitWaitAndBarrier();
      nextStage = copies->stageView(add(kb, idx(1)));
    }
    // Past the last tile this reads a stage no copy is writing; the
    // values are never used.
    SmallVector<Value> next = ks + dist < kSteps
                                  ? mma->load(stage, ks + dist)
                                  : mma->load(nextStage, ks + dist - kSteps);
    // Otherwise the refill follows the step's fragment loads: ptxas keeps
    // shared memory accesses in program order and spreads the copies over
    // the step's mma.sync, so loads placed after the copies would issue
    // only once the last copy had.
    if (ks == 0 && barrierStep != 0)
      copies->emitGroup(refill, full, fullIf);
    SmallVector<Value> now(ahead.begin(), ahead.begin() + setSize);
    emitStep(now, ks, inner);
    ahead.erase(ahead.begin(), ahead.begin() + setSize);
    ahead.append(next);
  }
}

void MmaKernelBuilder::emitStep(ArrayRef<Value> frags, int64_t ks,
                                SmallVector<Value> &inner) {
  // Sum ks mod sets: BK / 16 is a multiple of sets (SplitKAttr's verifier)
  // and chunks start on K tiles, so it is k16 step j of the chunk's j mod
  // sets, as the numerics model and the CPU lowering sum.
  int64_t numFrags = outer->numFrags();
  auto sum =
      MutableArrayRef<Value>(inner).slice(ks % c.sets() * numFrags, numFrags);
  SmallVector<Value> next = mma->emitMma(frags, ValueRange(sum));
  llvm::copy(next, sum.begin());
}

scf::ForOp MmaKernelBuilder::emitTileLoop(Value lo, Value hi,
                                          ArrayRef<Value> init, bool full) {
  int64_t numFrags = innerCount();
  auto loop = scf::ForOp::create(b, lo, hi, idx(1), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  ValueRange iter = loop.getRegionIterArgs();
  SmallVector<Value> inner(iter.take_front(numFrags));
  SmallVector<Value> cur(iter.drop_front(numFrags));
  emitTile(loop.getInductionVar(), inner, cur, full);
  SmallVector<Value> yielded(inner);
  yielded.append(cur);
  scf::YieldOp::create(b, yielded);
  return loop;
}

void MmaKernelBuilder::emitChunk(scf::ForOp chunkLoop) {
  int64_t numFrags = innerCount();
  int64_t numRegOuter = outer->numInRegisters();
  ValueRange iter = chunkLoop.getRegionIterArgs();
  SmallVector<Value> regs(iter.take_front(numRegOuter));
  Value chunk = chunkLoop.getInductionVar();
  Value kbStart = geometry.emitChunkStart(b, chunk);
  Value kbLast = sub(geometry.emitChunkStart(b, add(chunk, idx(1))), idx(1));
  SmallVector<Value> blockInit(numFrags, innerZero);
  blockInit.append(iter.begin() + numRegOuter, iter.end());
  // Iterations whose refill tile lies wholly inside K (and, for B in kn,
  // blocks inside N) issue plain copies; the last stages - 1 iterations
  // of the K loop, and edge blocks, the guarded ones. Two loops rather
  // than a branch per tile: ptxas if-converts such a branch and then
  // issues both kinds of copies.
  Value fastMid = kbStart;
  if (wholeTilesEnd) {
    fastMid = maxI(minI(wholeTilesEnd, kbLast), kbStart);
    auto fastLoop = emitTileLoop(kbStart, fastMid, blockInit, /*full=*/true);
    blockInit.assign(fastLoop.getResults().begin(),
                     fastLoop.getResults().end());
  }
  auto blockLoop = emitTileLoop(fastMid, kbLast, blockInit, /*full=*/false);
  // The chunk's last tile, then its f16 sums go into the outer sums. In
  // one basic block with that tile's mma.sync, ptxas interleaves the
  // handover with them instead of stalling the warp on a long run of adds
  // after the loop.
  SmallVector<Value> inner(blockLoop.getResults().take_front(numFrags));
  SmallVector<Value> cur(blockLoop.getResults().drop_front(numFrags));
  // Its refill is a whole tile in every chunk but the last ones: plain
  // copies then, behind a branch that ptxas keeps (each side is a block
  // of copies).
  emitTile(kbLast, inner, cur, /*full=*/false,
           wholeTilesEnd ? lt(kbLast, wholeTilesEnd) : Value());
  // The chunk's sums enter the outer sums in turn, sum 0 first.
  SmallVector<Value> yielded(regs);
  int64_t perSum = outer->numFrags();
  for (int64_t s = 0; s < c.sets(); ++s)
    yielded =
        outer->emitHandover(ArrayRef(inner).slice(s * perSum, perSum), yielded);
  yielded.append(cur);
  scf::YieldOp::create(b, yielded);
}

void MmaKernelBuilder::build() {
  b.setInsertionPointToStart(&func.getBody().front());
  KernelArgs args = readKernelArgs(kc, func);
  // Every thread copies operands and stores C: all wait for the previous
  // kernel first. The next kernel launches as this one's blocks exit (no
  // early signal: docs/design/decisions.md#dependent-launch).
  emitGridDependencyWait(kc);
  // Dynamic shared memory: `stages` stages, each A's tile then B's.
  kc.rawSmem = createDynamicSharedMemory(b);
  emitThreadIds(kc);
  GroupedTileOrder(kc).emitTileOrigin();
  auto [chunks, slice] = emitBlockChunks(kc);
  geometry = chunks;
  firstTile = slice.firstTile ? slice.firstTile : idx(0);

  // Loop-invariant parts of the copies and of the fragment loads.
  copies.emplace(kc, args, slice.endTile, slice.firstTile);
  mma.emplace(kc);
  SmallVector<Value> frags = emitPrologue();
  auto innerType = VectorType::get({2, 2}, b.getF16Type());
  innerZero = arith::ConstantOp::create(b, innerType, b.getZeroAttr(innerType));
  outer.emplace(kc);
  wholeTilesEnd = copies->emitWholeTilesEnd();

  // for each chunk s: inner[0..sets) = 0; for each K tile of the chunk and
  // k16 step j of it: inner[j mod sets] += A_kb,j B_kb,j; outer +=
  // inner[0], ..., inner[sets - 1]. The fragments of the next k step travel
  // through both loops.
  SmallVector<Value> chunkInit = outer->initialRegisters();
  chunkInit.append(frags);
  auto chunkLoop = scf::ForOp::create(b, slice.chunkBegin,
                                      slice.emitChunkEnd(b), idx(1), chunkInit);
  {
    OpBuilder::InsertionGuard guard(b);
    // Without iter_args (every outer sum in shared memory, no prefetched
    // fragments) the builder has already added the loop's scf.yield; the
    // chunk's own replaces it.
    if (chunkInit.empty())
      chunkLoop.getBody()->getTerminator()->erase();
    b.setInsertionPointToStart(chunkLoop.getBody());
    emitChunk(chunkLoop);
  }
  copies->emitDrain();
  SmallVector<Value> finalOuter = outer->emitFinal(
      chunkLoop.getResults().take_front(outer->numInRegisters()));
  emitTileStores(kc, args, finalOuter);
}
