//===- SliceReduction.cpp - parallel split-k's meeting of slices ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/SliceReduction.h"

#include "gpupoor/Conversion/GPUKernel/Epilogue.h"
#include "gpupoor/Conversion/GPUKernel/OpaqueValue.h"
#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gpupoor;

void mlir::gpupoor::emitWorkspaceCheck(KernelContext &kc,
                                       const KernelArgs &args, Value tiles,
                                       Value slices) {
  ImplicitLocOpBuilder &b = kc.b;
  const KernelSpec &c = kc.spec;
  Type i64 = b.getI64Type();
  auto wide = [&](Value v) { return arith::IndexCastOp::create(b, i64, v); };
  auto cst = [&](int64_t v) { return arith::ConstantIntOp::create(b, i64, v); };
  Value t = wide(tiles);
  // T * P' * (bytes of a tile's sums) <= ws_bytes, as T <= ws_bytes /
  // (P' * bytes): P' < 2^16 and a tile's sums take at most 2^26 bytes, so
  // nothing wraps, whatever T.
  Value perTile = arith::MulIOp::create(b, wide(slices), cst(c.sliceSumBytes()));
  Value bad = arith::CmpIOp::create(
      b, arith::CmpIPredicate::sgt, t,
      arith::DivSIOp::create(b, args.wsBytes, perTile));
  bad = arith::OrIOp::create(
      b, bad,
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, args.locksCount, t));
  Value addr = LLVM::PtrToIntOp::create(b, i64, args.wsPtr);
  bad = arith::OrIOp::create(
      b, bad,
      arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b, addr, cst(15)), cst(0)));
  // A 32-bit kernel indexes the sums in 32 bits: T * P' * BM * BN < 2^31.
  if (c.indexBitwidth == 32) {
    Value perTileElems =
        arith::MulIOp::create(b, wide(slices), cst(c.sliceSumElems()));
    bad = arith::OrIOp::create(
        b, bad,
        arith::CmpIOp::create(
            b, arith::CmpIPredicate::sgt, t,
            arith::DivSIOp::create(b, cst((int64_t(1) << 31) - 1),
                                   perTileElems)));
  }
  auto ifBad = scf::IfOp::create(b, bad, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifBad.thenBlock());
  LLVM::Trap::create(b);
}

Value mlir::gpupoor::sliceSumOffset(KernelContext &kc, Value slot, int64_t f) {
  ImplicitLocOpBuilder &b = kc.b;
  const KernelSpec &c = kc.spec;
  auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  // Slice sums by (slot, fragment, thread): a warp's fragment is 512
  // contiguous bytes (f32), one 16-byte vector a lane.
  int64_t fragElems = c.threads() * 4;
  int64_t perSlice = c.mTiles() * c.nTiles() * fragElems;
  return arith::AddIOp::create(
      b, arith::MulIOp::create(b, slot, idx(perSlice)),
      arith::AddIOp::create(b, idx(f * fragElems),
                            arith::MulIOp::create(b, kc.tid, idx(4))));
}

/// A fragment's four elements as one vector access of their size.
static llvm::MaybeAlign fragmentAlign(Type elementType) {
  return llvm::MaybeAlign(4 * elementType.getIntOrFloatBitWidth() / 8);
}

void mlir::gpupoor::storeSliceSums(KernelContext &kc, Value view, Value slot,
                                   ArrayRef<Value> sums) {
  ImplicitLocOpBuilder &b = kc.b;
  auto fragType = cast<VectorType>(sums.front().getType());
  auto flatType = VectorType::get({4}, fragType.getElementType());
  for (auto [f, v] : llvm::enumerate(sums))
    vector::StoreOp::create(b, vector::ShapeCastOp::create(b, flatType, v),
                            view, ValueRange{sliceSumOffset(kc, slot, f)},
                            false, fragmentAlign(fragType.getElementType()));
}

SmallVector<Value> mlir::gpupoor::loadSliceSums(KernelContext &kc, Value view,
                                                Value slot, VectorType fragType,
                                                int64_t count) {
  ImplicitLocOpBuilder &b = kc.b;
  auto flatType = VectorType::get({4}, fragType.getElementType());
  SmallVector<Value> loaded;
  for (int64_t f = 0; f < count; ++f) {
    Value v = vector::LoadOp::create(b, flatType, view,
                                     ValueRange{sliceSumOffset(kc, slot, f)},
                                     false,
                                     fragmentAlign(fragType.getElementType()));
    loaded.push_back(vector::ShapeCastOp::create(b, fragType, v));
  }
  return loaded;
}

SmallVector<Value> SliceReduction::emitOrderedSum(Value tile, Value slices,
                                                  ArrayRef<Value> sums) {
  auto fragType = cast<VectorType>(sums.front().getType());
  Value zero = arith::ConstantOp::create(b, b.getZeroAttr(fragType));
  SmallVector<Value> init(sums.size(), zero);
  // The loads of a group of slices go out before their adds: one slice a
  // trip made the last block wait out one L2 round trip per slice, which is
  // most of a decode kernel's tail. A group is as many slices (up to 8) as
  // 128 registers of a thread hold.
  int64_t floatsPerSlice = int64_t(sums.size()) * 4;
  int64_t group = std::clamp<int64_t>(128 / floatsPerSlice, 1, 8);
  auto loop = scf::ForOp::create(b, idx(0), slices, idx(group), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value first = loop.getInductionVar();
  Value lastSlice = sub(slices, idx(1));
  SmallVector<SmallVector<Value>> loaded(group);
  for (int64_t u = 0; u < group; ++u) {
    // Past P' - 1 the load repeats the last slice (always in bounds) and
    // its sum is dropped below.
    Value p = arith::MinUIOp::create(b, add(first, idx(u)), lastSlice);
    loaded[u] = loadSliceSums(kc, sumsView, add(mul(tile, slices), p),
                              fragType, sums.size());
  }
  // From zero, p = 0 .. P' - 1: the CPU loop form's order.
  SmallVector<Value> next(loop.getRegionIterArgs());
  for (int64_t u = 0; u < group; ++u) {
    Value valid = lt(add(first, idx(u)), slices);
    for (auto [acc, v] : llvm::zip_equal(next, loaded[u]))
      acc = arith::SelectOp::create(b, valid, arith::AddFOp::create(b, acc, v),
                                    acc);
  }
  scf::YieldOp::create(b, next);
  return SmallVector<Value>(loop.getResults());
}

std::pair<Value, SmallVector<Value>>
SliceReduction::emit(ArrayRef<Value> sums) {
  Value tile = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value tiles = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value p = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value slices = gpu::GridDimOp::create(b, gpu::Dimension::y);
  SmallVector<Type> types = {b.getI1Type()};
  for (Value v : sums)
    types.push_back(v.getType());
  Value trueV = arith::ConstantIntOp::create(b, b.getI1Type(), 1);
  // Expected false: the one-slice launch falls through to the epilogue,
  // the slices' meeting placed out of its way. (A comparison of its own:
  // given the same value as emitSliceBounds' branch, LLVM merged the two
  // and laid the meeting out before the epilogue again, in the PTX of the
  // 64 x 128 cluster kernel.)
  Value several = LLVM::ExpectOp::create(
      b, lt(idx(1), slices), arith::ConstantIntOp::create(b, b.getI1Type(), 0));
  auto multi = scf::IfOp::create(b, types, several, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(multi.elseBlock());
    SmallVector<Value> single = {trueV};
    single.append(sums.begin(), sums.end());
    scf::YieldOp::create(b, single);
    b.setInsertionPointToStart(multi.thenBlock());

    emitWorkspaceCheck(kc, args, tiles, slices);
    Type outerElem = c.outerType;
    // (The sums' offsets fit the index: the check above.)
    Value wsElems = mul(mul(tiles, slices), idx(c.sliceSumElems()));
    Value counters = memref1DFromPointer(b, args.locksPtr, b.getI32Type(),
                                         tiles, c.indexBitwidth);
    sumsView = memref1DFromPointer(b, args.wsPtr, outerElem, wsElems,
                                   c.indexBitwidth);

    storeSliceSums(kc, sumsView, add(mul(tile, slices), p), sums);
    // Release: every thread's sums are visible device-wide before thread 0
    // counts the block in. (The barrier also ends every warp's reads of the
    // stages, which the flag below overwrites.)
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    gpu::BarrierOp::create(b);
    Value flag = sharedView(b, kc.rawSmem, b.getI32Type(), 1, idx(0));
    auto first = scf::IfOp::create(b, lt(kc.tid, idx(1)), false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(first.thenBlock());
      Value one = arith::ConstantIntOp::create(b, b.getI32Type(), 1);
      Value before = memref::AtomicRMWOp::create(
          b, arith::AtomicRMWKind::addi, one, counters, ValueRange{tile});
      // Acquire: the other blocks' sums, for the whole block after the
      // barrier.
      NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
      memref::StoreOp::create(b, before, flag, ValueRange{idx(0)});
    }
    gpu::BarrierOp::create(b);
    Value arrived = arith::IndexCastOp::create(
        b, b.getIndexType(),
        memref::LoadOp::create(b, flag, ValueRange{idx(0)}));
    // The epilogue may reuse the flag's bytes.
    gpu::BarrierOp::create(b);
    Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, arrived,
                                       sub(slices, idx(1)));
    auto ifLast =
        scf::IfOp::create(b, ArrayRef<Type>(types).drop_front(), last, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(ifLast.elseBlock());
      scf::YieldOp::create(b, sums);
      b.setInsertionPointToStart(ifLast.thenBlock());
      // Every block of the tile has counted itself in: the counter goes
      // back to zero for the next launch.
      auto reset = scf::IfOp::create(b, lt(kc.tid, idx(1)), false);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(reset.thenBlock());
        memref::StoreOp::create(
            b, arith::ConstantIntOp::create(b, b.getI32Type(), 0), counters,
            ValueRange{tile});
      }
      scf::YieldOp::create(b, emitOrderedSum(tile, slices, sums));
    }
    SmallVector<Value> results = {last};
    llvm::append_range(results, ifLast.getResults());
    scf::YieldOp::create(b, results);
  }
  return {multi.getResult(0),
          SmallVector<Value>(multi.getResults().drop_front())};
}

/// `v` through an empty inline asm: the same value, which LLVM cannot
/// prove equal to `v` (a run-time `v`; a constant stays as it is).
static Value opaque(ImplicitLocOpBuilder &b, Value v) {
  if (matchPattern(v, m_Constant()))
    return v;
  return emitOpaqueIndex(b, v, 64, AsmPlacement::Movable);
}

BlockChunks mlir::gpupoor::emitBlockChunks(KernelContext &kc) {
  ImplicitLocOpBuilder &b = kc.b;
  SplitGeometry geometry =
      emitSplitGeometry(b, kc.k, kc.spec.strategy, kc.splits);
  return {geometry, emitSliceBounds(kc, geometry)};
}

SliceBounds mlir::gpupoor::emitSliceBounds(KernelContext &kc,
                                           const SplitGeometry &geometry) {
  ImplicitLocOpBuilder &b = kc.b;
  SliceBounds r;
  r.chunkBegin = arith::ConstantIndexOp::create(b, 0);
  r.endTile = geometry.numKBlocks;
  r.numChunks = geometry.numChunks;
  if (!kc.spec.parallel())
    return r;
  Value p = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value slices = gpu::GridDimOp::create(b, gpu::Dimension::y);
  Value one = arith::ConstantIndexOp::create(b, 1);
  Value zero = r.chunkBegin;
  // A one-slice launch takes every tile without S: the copies' first load
  // then waits on neither the split rule nor a division by P'. Where the
  // bounds were computed from S for every launch, the rule and three
  // divisions came before the block's first barrier, and a kernel built
  // for run-time slices ran one slice 0.3 us slower than the same kernel
  // built with slices=1 (256^3 2.60 against 2.29 us, 1024^3 6.58 against
  // 6.25; H200, CUDA-graph replay). The slices' branch takes a geometry
  // of its own, from a K LLVM cannot see is the consumers' K (else it
  // would reuse the dominating `geometry` there, and compute it before the
  // branch); the one-slice branch yields a chunk limit that needs no S
  // (numKBlocks >= numChunks), clamped where the chunks are summed
  // (emitChunkEnd). So the one-slice path's copies compute none of it,
  // and the consumers' uses of `geometry` sink to them.
  Value several = LLVM::ExpectOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, slices, one),
      arith::ConstantIntOp::create(b, b.getI1Type(), 0));
  Type index = b.getIndexType();
  auto bounds = scf::IfOp::create(b, TypeRange{index, index, index, index},
                                  several, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(bounds.elseBlock());
    // numKBlocks bounds numChunks (min(S, numKBlocks)), which
    // emitChunkEnd takes; opaque, or LLVM folds that min into this branch
    // (min(numKBlocks, numChunks) = numChunks) and computes S here.
    scf::YieldOp::create(b, ValueRange{zero, opaque(b, geometry.numKBlocks),
                                       zero, geometry.numKBlocks});
    b.setInsertionPointToStart(bounds.thenBlock());
    SplitGeometry own =
        emitSplitGeometry(b, opaque(b, kc.k), kc.spec.strategy, kc.splits);
    Value begin = arith::DivUIOp::create(
        b, arith::MulIOp::create(b, p, own.splits), slices);
    Value end = arith::MinSIOp::create(
        b,
        arith::DivUIOp::create(
            b,
            arith::MulIOp::create(b, arith::AddIOp::create(b, p, one),
                                  own.splits),
            slices),
        own.numChunks);
    // begin may pass end (a slice past the last chunk): its tiles are
    // then [start(numChunks), start(numChunks)) = [blocks, blocks).
    Value first =
        own.emitChunkStart(b, arith::MinSIOp::create(b, begin, own.numChunks));
    scf::YieldOp::create(
        b, ValueRange{begin, end, first, own.emitChunkStart(b, end)});
  }
  r.chunkBegin = bounds.getResult(0);
  r.chunkLimit = bounds.getResult(1);
  r.firstTile = bounds.getResult(2);
  r.endTile = bounds.getResult(3);
  return r;
}

Value SliceBounds::emitChunkEnd(ImplicitLocOpBuilder &b) const {
  if (!chunkLimit)
    return numChunks;
  return arith::MinSIOp::create(b, chunkLimit, numChunks);
}

void mlir::gpupoor::emitTileStores(KernelContext &kc, const KernelArgs &args,
                                   ArrayRef<Value> outer) {
  ImplicitLocOpBuilder &b = kc.b;
  if (!kc.spec.parallel()) {
    EpilogueEmitter(kc, args).emit(outer);
    gpu::ReturnOp::create(b);
    return;
  }
  // The tile's last block stores C from the sum of every slice.
  auto [stores, total] = SliceReduction(kc, args).emit(outer);
  auto ifStores = scf::IfOp::create(b, stores, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifStores.thenBlock());
    EpilogueEmitter(kc, args).emit(total);
  }
  gpu::ReturnOp::create(b);
}
