//===- TmaPipeline.cpp - the TMA ring of A and B tiles --------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/TmaPipeline.h"

#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// The suspend-time hint of a barrier wait, in nanoseconds (CUTLASS's).
static constexpr int64_t kWaitTicks = 0x989680;

TmaPipeline::TmaPipeline(KernelContext &kc, Value aMap, Value bMap, Value first)
    : KernelPart(kc), aMap(aMap), bMap(bMap), first(first) {
  base = memref::ExtractAlignedPointerAsIndexOp::create(b, kc.rawSmem);
}

Value TmaPipeline::i32(Value v) {
  return arith::IndexCastOp::create(b, b.getI32Type(), v);
}

Value TmaPipeline::sharedPointer(Value bytes) {
  return gpupoor::sharedPointer(b, base, bytes);
}

Value TmaPipeline::barrier(int64_t which, Value stage) {
  return sharedPointer(
      add(idx(c.barriersOffset() + which * c.stages * 8), mul(stage, idx(8))));
}

Value TmaPipeline::positionOf(Value tile) {
  Value r = sub(tile, first);
  return before ? add(before, r) : r;
}

Value TmaPipeline::stageOf(Value tile) {
  return remU(positionOf(tile), idx(c.stages));
}

Value TmaPipeline::parityOf(Value tile) {
  return i32(remU(divU(positionOf(tile), idx(c.stages)), idx(2)));
}

Value TmaPipeline::stageShift(Value tile) {
  return mul(stageOf(tile), idx(c.stageElems() * 2));
}

Value TmaPipeline::clusterRank() {
  // A cluster_m x 1 cluster's blocks are x = cluster_m p + r, r <
  // cluster_m (%cluster_ctarank).
  return remU(gpu::BlockIdOp::create(b, gpu::Dimension::x), idx(c.clusterM));
}

void TmaPipeline::emitInit() {
  Value one = arith::ConstantIntOp::create(b, b.getI32Type(), 1);
  // One arrive a consumer warpgroup empties a stage; in a cluster, the
  // consumers of every block of it (each block's producer loads into all).
  Value consumers = arith::ConstantIntOp::create(
      b, b.getI32Type(),
      c.threads() / KernelSpec::kWarpgroupThreads * c.clusterM);
  for (int64_t s = 0; s < c.stages; ++s) {
    NVVM::MBarrierInitOp::create(b, barrier(0, idx(s)), one, Value());
    NVVM::MBarrierInitOp::create(b, barrier(1, idx(s)), consumers, Value());
    if (c.tmaBarriersPerStage() > 2)
      NVVM::MBarrierInitOp::create(b, barrier(2, idx(s)), one, Value());
  }
  // The initialized barriers, visible to the async proxy (TMA's
  // complete_tx) as well.
  NVVM::FenceMbarrierInitOp::create(b);
}

void TmaPipeline::emitLoads(Value end) {
  Value ticks = arith::ConstantIntOp::create(b, b.getI32Type(), kWaitTicks);
  Value one = arith::ConstantIntOp::create(b, b.getI32Type(), 1);
  Value stageBytes =
      arith::ConstantIntOp::create(b, b.getI32Type(), c.stageElems() * 2);
  auto loop = scf::ForOp::create(b, first, end, idx(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kb = loop.getInductionVar();
  Value stage = stageOf(kb);
  // A stage's first use finds its empty barrier in phase 0, which waiting
  // for parity 1 (the phase "before" it) passes.
  NVVM::MBarrierTryWaitParityOp::create(
      b, barrier(1, stage), arith::XOrIOp::create(b, parityOf(kb), one), ticks);
  Value full = barrier(0, stage);
  NVVM::MBarrierArriveExpectTxOp::create(b, Type(), full, stageBytes,
                                         NVVM::MemScopeKind::CTA,
                                         /*relaxed=*/false, Value());
  Value kRow = mul(kb, idx(c.bk));
  Value k0 = i32(kRow);
  Value shift = stageShift(kb);
  // A batched kernel's maps take the work tile's batch element third.
  Value batch = c.batched ? i32(kc.batch) : Value();
  // Box coordinates: innermost (the atom's columns) first, then its rows.
  auto load = [&](Value map, Value inner, Value bytes, Value row,
                  Value mask = Value()) {
    SmallVector<Value, 3> coords = {inner, row};
    if (batch)
      coords.push_back(batch);
    // The shared::cluster form (a lone block is its own cluster) takes
    // cluster-window addresses: PTX 8.0 has no shared::cta form.
    auto cluster = LLVM::LLVMPointerType::get(
        b.getContext(),
        static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
    Value dst = LLVM::AddrSpaceCastOp::create(b, cluster, sharedPointer(bytes));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, dst, map, coords, full, ValueRange{}, mask, Value(),
        NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
  };
  // A tile is atoms of 64 columns (KernelSpec::swizzleAtoms), each one box
  // of the map, its row one swizzle span (128 bytes; B's narrow tile as K x
  // N is one atom of its 8, 16 or 32 columns, its 96 columns three of 32). A's
  // as M x K (and B's as N x K) are BK / 64 atoms of K columns, each BM (BN)
  // rows; A's as K x M (B's as K x N) are BM / 64 (BN / bAtomCols) atoms of M
  // (N) columns, each BK rows of K (the map's dimensions are [M, K] ([N, K])).
  auto cst = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, b.getI32Type(), v);
  };
  // (Each operand is built before the call: the order of a call's argument
  // evaluations is unspecified, and the IR must not depend on the compiler.)
  // K-major operands share the K coordinates of their atoms.
  SmallVector<Value> kAtoms;
  for (int64_t a = 0; a < c.bk / KernelSpec::kSwizzleCols; ++a)
    kAtoms.push_back(
        arith::AddIOp::create(b, k0, cst(a * KernelSpec::kSwizzleCols)));
  // In a cluster of Q = cluster_m blocks, B's tile is shared: block r loads
  // a Q-th of it into the same place in every block of the cluster
  // (multicast), its full barrier expecting the whole tile as alone. The
  // part is along the box's rows: as N x K rows [r BN / Q, (r + 1) BN / Q)
  // of its atoms, as K x N rows [r BK / Q, (r + 1) BK / Q) of each of its
  // atoms (a box of BK / Q rows, KernelSpec::bBoxRows).
  Value rank, mask;
  if (c.clusterM > 1) {
    rank = clusterRank();
    mask = arith::ConstantIntOp::create(b, b.getI16Type(),
                                        (int64_t{1} << c.clusterM) - 1);
  }
  // An operand's atoms: of 64 columns, or of B's narrow tile as K x N its
  // 8, 16 or 32 (KernelSpec::bAtomCols; its map's box as wide), in boxes of
  // `boxRows` rows (KernelSpec::aBoxRows, bBoxRows: the maps' boxes).
  auto loadOperand = [&](Value map, Value base, Value first, int64_t size,
                         bool kMajor, bool shared, int64_t atomCols,
                         int64_t boxRows) {
    int64_t atomBytes = atomCols * 2;
    int64_t atoms = (kMajor ? c.bk : size) / atomCols;
    bool half = shared && rank;
    // This block's first row of a box in its atom.
    Value skip = half ? mul(rank, idx(boxRows)) : Value();
    for (int64_t a = 0; a < atoms; ++a) {
      Value dst = add(base, idx(a * (kMajor ? size : c.bk) * atomBytes));
      if (!half) {
        if (kMajor)
          load(map, kAtoms[a], dst, i32(first));
        else
          load(map, i32(add(first, idx(a * atomCols))), dst, k0);
        continue;
      }
      dst = add(dst, mul(skip, idx(atomBytes)));
      if (kMajor) {
        load(map, kAtoms[a], dst, i32(add(first, skip)), mask);
      } else {
        Value atom = i32(add(first, idx(a * atomCols)));
        load(map, atom, dst, i32(add(kRow, skip)), mask);
      }
    }
  };
  loadOperand(aMap, shift, kc.m0, c.bm, !c.aMMajor(), /*shared=*/false,
              KernelSpec::kSwizzleCols, c.aBoxRows());
  loadOperand(bMap, add(shift, idx(c.aElems() * 2)), kc.n0, c.bn, c.bTransposed,
              /*shared=*/true, c.bAtomCols(), c.bBoxRows());
}

void TmaPipeline::emitWait(int64_t which, Value tile) {
  NVVM::MBarrierTryWaitParityOp::create(
      b, barrier(which, stageOf(tile)), parityOf(tile),
      arith::ConstantIntOp::create(b, b.getI32Type(), kWaitTicks));
}

void TmaPipeline::emitWaitLoaded(Value tile) { emitWait(0, tile); }

void TmaPipeline::emitPassOn(Value tile) {
  NVVM::MBarrierArriveOp::create(b, Type(), barrier(2, stageOf(tile)), Value());
}

void TmaPipeline::emitWaitPassed(Value tile) { emitWait(2, tile); }

void TmaPipeline::emitRelease(Value tile) {
  Value empty = barrier(1, stageOf(tile));
  NVVM::MBarrierArriveOp::create(b, Type(), empty, Value());
  if (c.clusterM == 1)
    return;
  // The other blocks' producers load into this block too: each waits for
  // this release as well (its empty barrier's count is every block's).
  // Block rank ^ d, 0 < d < cluster_m, runs over the others.
  Value rank = arith::IndexCastOp::create(b, b.getI32Type(), clusterRank());
  auto cluster = LLVM::LLVMPointerType::get(
      b.getContext(),
      static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  for (int64_t d = 1; d < c.clusterM; ++d) {
    Value other = arith::XOrIOp::create(
        b, rank, arith::ConstantIntOp::create(b, b.getI32Type(), d));
    Value remote = NVVM::MapaOp::create(b, cluster, empty, other);
    // The default scope (.release.cta), as CUTLASS's
    // ClusterBarrier::arrive: the stage's reads ended at the wgmma wait
    // before this. (A cluster-scope release cost about 0.3 us a stage:
    // docs/design/decisions.md, "Clusters of two where rows start off
    // sectors".)
    NVVM::MBarrierArriveOp::create(b, Type(), remote, Value());
  }
}

void TmaPipeline::emitDrain(Value loads) {
  if (c.clusterM == 1)
    return;
  // A block may exit only once the other blocks' consumers have released
  // its last stages (their arrives land here): wait for the releases of
  // ring positions [loads - stages, loads) (as many as there were).
  Value from = arith::MaxSIOp::create(b, idx(0), sub(loads, idx(c.stages)));
  auto loop = scf::ForOp::create(b, from, loads, idx(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value p = loop.getInductionVar();
  NVVM::MBarrierTryWaitParityOp::create(
      b, barrier(1, remU(p, idx(c.stages))),
      i32(remU(divU(p, idx(c.stages)), idx(2))),
      arith::ConstantIntOp::create(b, b.getI32Type(), kWaitTicks));
}
