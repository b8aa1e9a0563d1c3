//===- WgmmaKernelBuilder.cpp - the wgmma split-k kernel's body -----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernelBuilder.h"

#include "gpupoor/Conversion/GPUKernel/DependentLaunch.h"
#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"
#include "gpupoor/Conversion/GPUKernel/SliceReduction.h"
#include "gpupoor/Conversion/GPUKernel/TileScheduler.h"
#include "gpupoor/Conversion/SplitKUtils.h"

using namespace mlir;
using namespace mlir::gpupoor;

Value WgmmaKernelBuilder::emitTile(Value kb, Value acc, bool full) {
  copies->emitWaitAndBarrier(/*asyncProxy=*/true);
  copies->emitGroup(add(kb, idx(copies->ahead())), full);
  acc = wgmma->emitStage(copies->stageShift(kb), acc);
  // The previous tile's group is done: its stage may be refilled after
  // the next barrier.
  wgmma->emitWait(1);
  return acc;
}

Value WgmmaKernelBuilder::emitTileLoop(Value lo, Value hi, Value acc,
                                       bool full) {
  auto loop = scf::ForOp::create(b, lo, hi, idx(1), ValueRange{acc});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value next = emitTile(loop.getInductionVar(),
                        loop.getRegionIterArgs().front(), full);
  scf::YieldOp::create(b, next);
  return loop.getResult(0);
}

void WgmmaKernelBuilder::emitChunk(scf::ForOp chunkLoop) {
  SmallVector<Value> regs(chunkLoop.getRegionIterArgs());
  Value chunk = chunkLoop.getInductionVar();
  Value kbStart = geometry.emitChunkStart(b, chunk);
  Value kbEnd = geometry.emitChunkStart(b, add(chunk, idx(1)));
  Value acc = wgmma->zero();
  // Refills of whole tiles take plain copies, the rest guarded ones: two
  // loops rather than a branch per tile (see MmaKernelBuilder).
  Value fastEnd = kbStart;
  if (wholeTilesEnd) {
    fastEnd = maxI(minI(wholeTilesEnd, kbEnd), kbStart);
    acc = emitTileLoop(kbStart, fastEnd, acc, /*full=*/true);
  }
  acc = emitTileLoop(fastEnd, kbEnd, acc, /*full=*/false);
  wgmma->emitWait(0);
  scf::YieldOp::create(b, wgmma->handOver(acc, regs, *outer));
}

void WgmmaKernelBuilder::build() {
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

  copies.emplace(kc, args, slice.endTile, slice.firstTile, /*lag=*/1);
  wgmma.emplace(kc);
  copies->emitPrologue();
  outer.emplace(kc);
  wholeTilesEnd = copies->emitWholeTilesEnd();

  auto chunkLoop =
      scf::ForOp::create(b, slice.chunkBegin, slice.emitChunkEnd(b), idx(1),
                         outer->initialRegisters());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(chunkLoop.getBody());
    emitChunk(chunkLoop);
  }
  copies->emitDrain();
  emitTileStores(kc, args, outer->emitFinal(chunkLoop.getResults()));
}
