//===- CopyPipeline.cpp - the cp.async ring of A and B tiles --------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/CopyPipeline.h"

#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gpupoor;

CopyPipeline::CopyPipeline(KernelContext &kc, const KernelArgs &args,
                           Value endTile, Value firstTile, int64_t lag)
    : KernelPart(kc), numKBlocks(endTile), firstTile(firstTile), lag(lag) {
  Value a = args.a, aUnit = args.aUnit, aPieces = args.aPieceElems;
  if (c.aMMajor())
    aPlan = plan(a, aUnit, aPieces, 0, c.bk, c.bm / 8, /*kAlongRows=*/true,
                 kc.m0, kc.m);
  else
    aPlan = plan(a, aUnit, aPieces, 0, c.bm, c.bk / 8, /*kAlongRows=*/false,
                 kc.m0, kc.m);
  int64_t bBase = c.aElems();
  Value bUnit = args.bUnit, bPieces = args.bPieceElems;
  if (c.bTransposed)
    bPlan = plan(args.b, bUnit, bPieces, bBase, c.bn, c.bk / 8, false, kc.n0,
                 kc.n);
  else
    bPlan = plan(args.b, bUnit, bPieces, bBase, c.bk, c.bn / 8, true, kc.n0,
                 kc.n, c.bAtomCols());
}

CopyPipeline::CopyPlan
CopyPipeline::plan(Value gmem, Value unitGmem, Value pieceElems,
                   int64_t smemBase, int64_t rows, int64_t chunksPerRow,
                   bool kAlongRows, Value fixedBase, Value fixedLimit,
                   int64_t atomCols) {
  CopyPlan p;
  p.gmem = gmem;
  p.unitGmem = unitGmem;
  p.pieceElems = pieceElems;
  p.kAlongRows = kAlongRows;
  // The sm_90a kernel's tiles lie in atoms of 64 columns (B's narrow tile
  // as K x N of its 8, 16 or 32), all rows of an atom before the next
  // (KernelSpec::swizzleAtoms): K columns of A as M x K and of B as N x K
  // (K-major), M or N columns of A as K x M and B as K x N (M- or N-major,
  // whose rows are K); else rows of the whole tile, swizzled across it.
  int64_t atomChunks = c.swizzleAtoms() ? atomCols / 8 : chunksPerRow;
  int64_t rowElems = atomChunks * 8;
  auto dstOf = [&](Value row, Value chunk) {
    Value atomBase = idx(smemBase);
    if (atomChunks != chunksPerRow) {
      atomBase = add(atomBase, mul(divU(chunk, idx(atomChunks)),
                                   idx(rows * rowElems)));
      chunk = remU(chunk, idx(atomChunks));
    }
    Value phys = swizzle(b, row, chunk, atomChunks);
    return add(atomBase, add(mul(row, idx(rowElems)), mul(phys, idx(8))));
  };
  Value limitMinus1 = sub(fixedLimit, idx(1));
  // Copy i takes chunk tid + i * threads. When the threads cover whole
  // rows and a whole number of swizzle periods, copy i is copy 0 moved by
  // a constant number of rows: same chunk, same swizzle, and a destination
  // that is an immediate offset from copy 0's.
  int64_t period = swizzlePeriod(atomChunks);
  int64_t chunks = rows * chunksPerRow;
  bool uniform = c.threads() % chunksPerRow == 0 &&
                 (c.threads() / chunksPerRow) % period == 0;
  int64_t rowStep = c.threads() / chunksPerRow;
  Value row0 = divU(kc.tid, idx(chunksPerRow));
  Value chunk0 = remU(kc.tid, idx(chunksPerRow));
  Value dst0 = dstOf(row0, chunk0);
  // A tile whose chunks are no multiple of the threads (B's 176 columns of
  // K: 1408 chunks over 256 threads) ends in a round that the first threads
  // make alone; the others' chunk lies past the tile.
  int64_t rounds = llvm::divideCeilSigned(chunks, c.threads());
  for (int64_t i = 0; i < rounds; ++i) {
    int64_t inRound = std::min(chunks - i * c.threads(), c.threads());
    p.makes.push_back(inRound < c.threads() ? lt(kc.tid, idx(inRound))
                                            : Value());
    Value row, chunk;
    if (uniform) {
      row = add(row0, idx(i * rowStep));
      chunk = chunk0;
      p.dstOff.push_back(add(dst0, idx(i * rowStep * rowElems)));
    } else {
      Value chunkId = add(kc.tid, idx(i * c.threads()));
      row = divU(chunkId, idx(chunksPerRow));
      chunk = remU(chunkId, idx(chunksPerRow));
      p.dstOff.push_back(dstOf(row, chunk));
    }
    if (!kAlongRows) {
      // Rows are M (A in mk) or N (B in nk): a row past the edge reads the
      // last row instead; the epilogue never stores what it feeds.
      p.fixedIdx.push_back(minI(add(fixedBase, row), limitMinus1));
      p.kOff.push_back(mul(chunk, idx(8)));
    } else {
      // Rows are k; the chunk is 8 columns of M or N, fewer (zero-filled)
      // or none at the edge.
      Value g = add(fixedBase, mul(chunk, idx(8)));
      Value count = clamp8(sub(fixedLimit, g));
      p.fixedCount.push_back(count);
      p.fixedIdx.push_back(minI(g, limitMinus1));
      p.kOff.push_back(row);
    }
  }
  return p;
}

Value CopyPipeline::stageShift(Value tile) {
  return mul(remU(tile, idx(c.stages)), idx(c.stageElems() * 2));
}

Value CopyPipeline::stageView(Value tile) {
  return sharedView(b, kc.rawSmem, b.getF16Type(), c.stageElems(),
                    stageShift(tile));
}

void CopyPipeline::emitCopies(const CopyPlan &p, Value stage, Value tile,
                              bool full) {
  Value kBase = mul(tile, idx(c.bk));
  if (full) {
    // The tile lies inside K (and, for A in km and B in kn, its columns
    // inside M and N): plain 16-byte copies, or the element kernels' pieces
    // without fill. A zero-filling copy costs about six more instructions:
    // its fill count travels in the low address bits.
    for (size_t i = 0; i < p.dstOff.size(); ++i) {
      emitCopy(p, i, [&] {
        Value kIdx = add(kBase, p.kOff[i]);
        Value row = p.kAlongRows ? kIdx : p.fixedIdx[i];
        Value col = p.kAlongRows ? p.fixedIdx[i] : kIdx;
        if (!c.asyncCopies) {
          emitElementCopy(p, i, stage, row, col, /*count=*/Value());
          return;
        }
        nvgpu::DeviceAsyncCopyOp::create(
            b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), stage,
            ValueRange{p.dstOff[i]}, p.gmem, ValueRange{row, col},
            b.getIndexAttr(8), Value(), b.getUnitAttr());
      });
    }
    return;
  }
  // Only K (and M's or N's edge for A in km or B in kn) needs zero fill: a copy
  // reads the elements before K and fills the rest of its 16 bytes with zeros;
  // its address stays inside A or B.
  Value kMinus1 = sub(kc.k, idx(1));
  for (size_t i = 0; i < p.dstOff.size(); ++i) {
    emitCopy(p, i, [&] {
      Value kIdx = add(kBase, p.kOff[i]);
      Value count, row, col;
      if (!p.kAlongRows) {
        count = clamp8(sub(kc.k, kIdx));
        row = p.fixedIdx[i];
        col = minI(kIdx, kMinus1);
      } else {
        count = select(lt(kIdx, kc.k), p.fixedCount[i], idx(0));
        row = minI(kIdx, kMinus1);
        col = p.fixedIdx[i];
      }
      if (!c.asyncCopies) {
        emitElementCopy(p, i, stage, row, col, count);
        return;
      }
      nvgpu::DeviceAsyncCopyOp::create(
          b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), stage,
          ValueRange{p.dstOff[i]}, p.gmem, ValueRange{row, col},
          b.getIndexAttr(8), count, b.getUnitAttr());
    });
  }
}

void CopyPipeline::emitCopy(const CopyPlan &p, size_t i,
                            function_ref<void()> emit) {
  if (!p.makes[i]) {
    emit();
    return;
  }
  OpBuilder::InsertionGuard guard(b);
  auto ifOp = scf::IfOp::create(b, p.makes[i], /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  emit();
}

void CopyPipeline::emitElementCopy(const CopyPlan &p, size_t i, Value stage,
                                   Value row, Value col, Value count) {
  if (!p.pieceElems) {
    emitElementLoads(p, i, stage, row, col, count);
    return;
  }
  // The piece size is the same for every copy of the launch (a block's
  // operand): the branches are uniform.
  auto is = [&](int64_t elems) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, p.pieceElems,
                                 idx(elems));
  };
  OpBuilder::InsertionGuard guard(b);
  auto wide = scf::IfOp::create(b, is(4), /*withElse=*/true);
  b.setInsertionPointToStart(wide.thenBlock());
  emitPieceCopies(p, i, stage, row, col, count, 4);
  b.setInsertionPointToStart(wide.elseBlock());
  auto narrow = scf::IfOp::create(b, is(2), /*withElse=*/true);
  b.setInsertionPointToStart(narrow.thenBlock());
  emitPieceCopies(p, i, stage, row, col, count, 2);
  b.setInsertionPointToStart(narrow.elseBlock());
  emitElementLoads(p, i, stage, row, col, count);
}

void CopyPipeline::emitPieceCopies(const CopyPlan &p, size_t i, Value stage,
                                   Value row, Value col, Value count,
                                   int64_t elems) {
  // A chunk's first column is a multiple of 8 from its row's start (K
  // tiles' chunks, and M's or N's from a tile's origin), so each piece
  // starts on `elems` * 2 bytes where the row does. Each piece reads the
  // chunk's elements inside the operand that fall in it and zero-fills the
  // rest; one with none reads nothing, from the row's first element (in
  // bounds and aligned, unlike `col` clamped into the row).
  for (int64_t j = 0; j < 8; j += elems) {
    // A whole chunk (no count): whole pieces, without fill.
    Value inPiece, at = add(col, idx(j));
    if (count) {
      inPiece = maxI(minI(sub(count, idx(j)), idx(elems)), idx(0));
      at = select(lt(idx(0), inPiece), at, idx(0));
    }
    nvgpu::DeviceAsyncCopyOp::create(
        b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), stage,
        ValueRange{add(p.dstOff[i], idx(j))}, p.unitGmem, ValueRange{row, at},
        b.getIndexAttr(elems), inPiece, /*bypassL1=*/UnitAttr());
  }
}

void CopyPipeline::emitElementLoads(const CopyPlan &p, size_t i, Value stage,
                                    Value row, Value col, Value count) {
  // For operands whose rows (or start) lie off 4 bytes or are not
  // contiguous:
  // `count` loads (clamped in bounds, masked to zero past it) and one
  // 16-byte shared-memory store.
  Type f16 = b.getF16Type();
  Value zeroF16 = arith::ConstantOp::create(b, b.getZeroAttr(f16));
  SmallVector<Value> values;
  for (int64_t e = 0; e < 8; ++e) {
    // The 8 elements of a chunk are adjacent along the row in global
    // memory for every layout.
    if (!count) {
      values.push_back(
          memref::LoadOp::create(b, p.gmem, ValueRange{row, add(col, idx(e))}));
      continue;
    }
    Value inside = lt(idx(e), count);
    Value cl = select(inside, add(col, idx(e)), col);
    Value v = memref::LoadOp::create(b, p.gmem, ValueRange{row, cl});
    values.push_back(select(inside, v, zeroF16));
  }
  Value chunk =
      vector::FromElementsOp::create(b, VectorType::get({8}, f16), values);
  vector::StoreOp::create(b, chunk, stage, ValueRange{p.dstOff[i]});
}

Value CopyPipeline::emitGroup(Value tile, bool full, Value fullIf) {
  auto emitBoth = [&](bool whole) {
    Value stage = stageView(tile);
    emitCopies(aPlan, stage, tile, whole);
    emitCopies(bPlan, stage, tile, whole);
  };
  if (full) {
    emitBoth(true);
  } else {
    OpBuilder::InsertionGuard guard(b);
    if (fullIf) {
      auto ifFull = scf::IfOp::create(b, fullIf, /*withElse=*/true);
      b.setInsertionPointToStart(ifFull.thenBlock());
      emitBoth(true);
      b.setInsertionPointToStart(ifFull.elseBlock());
    }
    auto ifOp = scf::IfOp::create(b, lt(tile, numKBlocks), false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    emitBoth(false);
  }
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), ValueRange{});
}

void CopyPipeline::emitPrologue() {
  for (int64_t s = 0; s < ahead(); ++s)
    token = emitGroup(firstTile ? add(firstTile, idx(s)) : idx(s),
                      /*full=*/false);
}

void CopyPipeline::emitWaitAndBarrier(bool asyncProxy) {
  // Tile t has landed once at most ahead()-1 younger groups are pending.
  nvgpu::DeviceAsyncWaitOp::create(b, token,
                                   b.getI32IntegerAttr(ahead() - 1));
  // cp.async and element stores write through the generic proxy; wgmma
  // reads shared memory through the async proxy. Each thread orders its
  // own writes before the barrier publishes them.
  if (asyncProxy)
    NVVM::FenceProxyOp::create(
        b, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(b);
}

void CopyPipeline::emitDrain() {
  nvgpu::DeviceAsyncWaitOp::create(b, token, b.getI32IntegerAttr(0));
}

Value CopyPipeline::emitWholeTilesEnd() {
  Value fullTiles = divU(kc.k, idx(c.bk));
  // A slice's refills stop at its end: tiles past it are the next slice's.
  if (firstTile)
    fullTiles = minI(fullTiles, numKBlocks);
  Value end = sub(fullTiles, idx(ahead()));
  // Rows past M or N (A as M x K, B as N x K) are clamped, never filled;
  // columns past M or N (A as K x M, B as K x N) are.
  auto inside = [&](Value first, int64_t size, Value limit) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::sle,
                                 add(first, idx(size)), limit);
  };
  if (!c.bTransposed)
    end = select(inside(kc.n0, c.bn, kc.n), end, idx(0));
  if (c.aMMajor())
    end = select(inside(kc.m0, c.bm, kc.m), end, idx(0));
  return end;
}
