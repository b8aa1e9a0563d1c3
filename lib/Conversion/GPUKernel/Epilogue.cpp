//===- Epilogue.cpp - the epilogue region and C stores
//---------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/Epilogue.h"

#include "gpupoor/Conversion/GPUKernel/OperandChecksIR.h"
#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"
#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <numeric>
#include <optional>

using namespace mlir;
using namespace mlir::gpupoor;

Value EpilogueEmitter::epilogueElement(unsigned input, int64_t rowOff,
                                       int64_t colOff) {
  // An operand that does not vary along M (N) is read in row (column) 0:
  // fragment elements in one column (row) share the load.
  AffineMap map = c.epilogueMaps[input];
  unsigned rank = map.getNumDims();
  bool alongM = map.isFunctionOfDim(rank - 2);
  bool alongN = map.isFunctionOfDim(rank - 1);
  auto key = std::make_tuple(input, alongM ? rowOff : -1, alongN ? colOff : -1);
  auto it = loadedInputs.find(key);
  if (it != loadedInputs.end())
    return it->second;
  // Clamped to C's last row and column: elements past M or N are computed
  // but never stored, and read inside the operand.
  Value row =
      alongM ? minI(add(rowBase, idx(rowOff)), sub(kc.m, idx(1))) : idx(0);
  Value col =
      alongN ? minI(add(colBase, idx(colOff)), sub(kc.n, idx(1))) : idx(0);
  Value v = memref::LoadOp::create(b, args.epilogueInputs[input],
                                   ValueRange{row, col});
  loadedInputs[key] = v;
  return v;
}

Value EpilogueEmitter::epilogue(Value outer, int64_t rowOff, int64_t colOff) {
  SmallVector<Value> ins;
  for (unsigned i = 0; i < args.epilogueInputs.size(); ++i)
    ins.push_back(epilogueElement(i, rowOff, colOff));
  Value cIn;
  if (c.readsC)
    cIn = memref::LoadOp::create(
        b, args.c,
        ValueRange{minI(add(rowBase, idx(rowOff)), sub(kc.m, idx(1))),
                   minI(add(colBase, idx(colOff)), sub(kc.n, idx(1)))});
  return emitEpilogue(b, b.getLoc(), outer, c.accType, c.epilogueBlock, ins,
                      cIn);
}

void EpilogueEmitter::emit(ValueRange outer) {
  // A 32-row tile's warps past its rows computed what the stage held after
  // A's rows (KernelSpec::mmaRows): they store nothing.
  std::optional<OpBuilder::InsertionGuard> guard;
  if (c.mmaRows() > c.bm) {
    auto ifStores = scf::IfOp::create(
        b, lt(kc.warpRow, idx(c.bm / c.warpM())), /*withElseRegion=*/false);
    guard.emplace(b);
    b.setInsertionPointToStart(ifStores.thenBlock());
  }
  Value laneDiv4 = divU(kc.lane, idx(4));
  Value laneMod4 = remU(kc.lane, idx(4));
  rowBase = add(add(kc.m0, mul(kc.warpRow, idx(c.warpM()))), laneDiv4);
  colBase =
      add(add(kc.n0, mul(kc.warpCol, idx(c.warpN()))), mul(laneMod4, idx(2)));
  auto pairType = VectorType::get({2}, c.cType);
  auto value = [&](int64_t mt, int64_t nt, int64_t h) -> Value {
    Value frag = outer[mt * c.nTiles() + nt];
    SmallVector<Value> v;
    for (int64_t e = 0; e < 2; ++e)
      v.push_back(
          epilogue(vector::ExtractOp::create(b, frag, ArrayRef<int64_t>{h, e}),
                   mt * 16 + h * 8, nt * 8 + e));
    return vector::FromElementsOp::create(b, pairType, v);
  };
  if (c.tmaStores()) {
    emitTmaStores(value);
    return;
  }
  if (c.columnStores) {
    emitColumnStores(value);
    return;
  }
  if (c.epiloguePasses) {
    emitSharedStores(value);
    return;
  }
  emitFragmentStores(value);
}

void EpilogueEmitter::emitFragmentStores(
    function_ref<Value(int64_t, int64_t, int64_t)> value) {
  // A lane holds pairs of adjacent columns: one 2-element store each where
  // C allows it.
  StoreWidth pairs{2, cTakesVectors(2)};
  for (int64_t mt = 0; mt < c.mTiles(); ++mt)
    for (int64_t nt = 0; nt < c.nTiles(); ++nt)
      for (int64_t h = 0; h < 2; ++h)
        storeRow(value(mt, nt, h), add(rowBase, idx(mt * 16 + h * 8)),
                 add(colBase, idx(nt * 8)), pairs);
}

Value EpilogueEmitter::cTakesVectors(int64_t len, bool columns) {
  Type i64 = b.getI64Type();
  Value cAddr = LLVM::PtrToIntOp::create(b, i64, args.cPtr);
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x, y);
  };
  Value aligned = eq(
      arith::AndIOp::create(
          b, cAddr, arith::ConstantIntOp::create(b, i64, len * c.cBytes() - 1)),
      arith::ConstantIntOp::create(b, i64, 0));
  Value unit = columns ? args.strideCm : args.strideCn;
  Value step = columns ? args.strideCn : args.strideCm;
  return arith::AndIOp::create(
      b,
      arith::AndIOp::create(b, eq(unit, idx(1)),
                            eq(remU(step, idx(len)), idx(0))),
      aligned);
}

void EpilogueEmitter::storeColumn(Value v, Value row, Value col) {
  int64_t len = cast<VectorType>(v.getType()).getNumElements();
  auto andI = [&](Value x, Value y) { return arith::AndIOp::create(b, x, y); };
  Value inN = lt(col, kc.n);
  Value whole = arith::CmpIOp::create(b, arith::CmpIPredicate::sle,
                                      add(row, idx(len)), kc.m);
  auto ifVec = scf::IfOp::create(b, andI(inN, whole), /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifVec.thenBlock());
  vector::StoreOp::create(b, v, args.cColumns, ValueRange{col, row},
                          /*nontemporal=*/false,
                          llvm::MaybeAlign(len * c.cBytes()));
  b.setInsertionPointToStart(ifVec.elseBlock());
  storeElements(v, row, col, inN, /*alongM=*/true);
}

void EpilogueEmitter::emitColumnStores(
    function_ref<Value(int64_t, int64_t, int64_t)> value) {
  assert(c.columnStoresFit() && "column stores that do not fit");
  auto ifColumns =
      scf::IfOp::create(b, cTakesVectors(c.epilogueVector(), /*columns=*/true),
                        /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifColumns.elseBlock());
  emitSharedStores(value);
  // The branches load the epilogue's operands each for itself.
  loadedInputs.clear();
  b.setInsertionPointToStart(ifColumns.thenBlock());

  int64_t passes = c.epiloguePasses;
  int64_t passRows = c.warpM() / passes;
  int64_t passTiles = c.mTiles() / passes;
  int64_t colElems = c.epilogueColumnElems();
  int64_t regionElems = c.warpN() * colElems;
  int64_t vec = c.epilogueVector();
  int64_t lanesPerColumn = passRows / vec;
  int64_t rounds = c.warpN() * lanesPerColumn / kWarpSize;
  auto vecType = VectorType::get({vec}, c.cType);
  Value regions = sharedView(b, kc.rawSmem, c.cType,
                             c.warpsM * c.warpsN * regionElems, idx(0));
  Value warpBase = mul(divU(kc.tid, idx(kWarpSize)), idx(regionElems));
  Value fullMask =
      arith::ConstantIntOp::create(b, b.getI32Type(), int64_t(0xffffffff));
  // The stages become the warps' regions once no warp reads them any more.
  gpu::BarrierOp::create(b);
  // Fragment element (row lane/4 + 8h, columns 2 (lane%4) + {0, 1}) of each
  // m16 x n8 tile at column * colElems + row of the warp's region: a
  // store's 8 rows of 4 columns land on distinct banks
  // (KernelSpec::epilogueColumnElems).
  Value laneDiv4 = divU(kc.lane, idx(4));
  Value laneMod4 = remU(kc.lane, idx(4));
  Value writeBase =
      add(warpBase, add(laneDiv4, mul(laneMod4, idx(2 * colElems))));
  Value warpRowOrigin = add(kc.m0, mul(kc.warpRow, idx(c.warpM())));
  Value warpColOrigin = add(kc.n0, mul(kc.warpCol, idx(c.warpN())));
  for (int64_t p = 0; p < passes; ++p) {
    // The previous pass's column vectors are read before they are
    // overwritten.
    if (p > 0)
      NVVM::SyncWarpOp::create(b, fullMask);
    for (int64_t mtl = 0; mtl < passTiles; ++mtl)
      for (int64_t nt = 0; nt < c.nTiles(); ++nt)
        for (int64_t h = 0; h < 2; ++h) {
          Value pair = value(p * passTiles + mtl, nt, h);
          for (int64_t e = 0; e < 2; ++e)
            memref::StoreOp::create(
                b, vector::ExtractOp::create(b, pair, ArrayRef<int64_t>{e}),
                regions,
                ValueRange{add(writeBase, idx((nt * 8 + e) * colElems +
                                              mtl * 16 + h * 8))});
        }
    NVVM::SyncWarpOp::create(b, fullMask);
    // Round i reads vector lane + 32 i: column q / lanesPerColumn, rows
    // vec (q % lanesPerColumn) on.
    for (int64_t i = 0; i < rounds; ++i) {
      Value q = add(kc.lane, idx(i * kWarpSize));
      Value col = divU(q, idx(lanesPerColumn));
      Value row = mul(remU(q, idx(lanesPerColumn)), idx(vec));
      Value v = vector::LoadOp::create(
          b, vecType, regions,
          ValueRange{add(warpBase, add(mul(col, idx(colElems)), row))},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
      storeColumn(v, add(warpRowOrigin, add(row, idx(p * passRows))),
                  add(warpColOrigin, col));
    }
  }
}

void EpilogueEmitter::storeRow(Value v, Value row, Value col,
                               ArrayRef<StoreWidth> widths) {
  auto type = cast<VectorType>(v.getType());
  int64_t len = type.getNumElements();
  auto andI = [&](Value x, Value y) { return arith::AndIOp::create(b, x, y); };
  Value rowOk = lt(row, kc.m);
  // The column test is the same for every row of a lane: CSE shares it.
  Value whole = andI(rowOk, arith::CmpIOp::create(b, arith::CmpIPredicate::sle,
                                                  add(col, idx(len)), kc.n));
  // Vectors of each width of `ws` (widest first) where C takes them, else
  // the elements one by one; `firstOk`: whether C takes the first (null
  // where a test outside holds it).
  auto cascade = [&](ArrayRef<StoreWidth> ws, Value firstOk) {
    OpBuilder::InsertionGuard guard(b);
    for (auto [i, w] : llvm::enumerate(ws)) {
      Value ok = i == 0 ? firstOk : w.ok;
      auto ifVec = scf::IfOp::create(b, ok ? andI(whole, ok) : whole,
                                     /*withElse=*/true);
      b.setInsertionPointToStart(ifVec.thenBlock());
      // Without the alignment LLVM splits a vector into element stores.
      auto partType = VectorType::get({w.len}, type.getElementType());
      for (int64_t e = 0; e < len; e += w.len) {
        Value part = v;
        if (w.len < len) {
          SmallVector<int64_t> lanes(w.len);
          std::iota(lanes.begin(), lanes.end(), e);
          part = vector::ShuffleOp::create(b, partType, v, v, lanes);
        }
        vector::StoreOp::create(
            b, part, args.cUnit, ValueRange{row, add(col, idx(e))},
            /*nontemporal=*/false, llvm::MaybeAlign(w.len * c.cBytes()));
      }
      b.setInsertionPointToStart(ifVec.elseBlock());
    }
    storeElements(v, row, col, rowOk, /*alongM=*/false);
  };
  assert(!widths.empty() && "a vector width to store");
  if (widths.size() == 1) {
    cascade(widths, widths.front().ok);
    return;
  }
  // Where C takes the widest vectors (a test uniform over the kernel) the
  // narrower ones are not tried: behind their branches every row's store
  // cost 64 x 128 tiles at 1000^3 6% (docs/design/decisions.md, "C's
  // narrower row vectors behind a uniform branch").
  auto ifWidest = scf::IfOp::create(b, widths.front().ok, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifWidest.thenBlock());
  cascade(widths.take_front(), Value());
  b.setInsertionPointToStart(ifWidest.elseBlock());
  cascade(widths.drop_front(), widths[1].ok);
}

void EpilogueEmitter::storeElements(Value v, Value row, Value col, Value inside,
                                    bool alongM) {
  int64_t len = cast<VectorType>(v.getType()).getNumElements();
  for (int64_t e = 0; e < len; ++e) {
    Value r = alongM ? add(row, idx(e)) : row;
    Value cc = alongM ? col : add(col, idx(e));
    Value ok =
        arith::AndIOp::create(b, inside, alongM ? lt(r, kc.m) : lt(cc, kc.n));
    auto ifOp = scf::IfOp::create(b, ok, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(
        b, vector::ExtractOp::create(b, v, ArrayRef<int64_t>{e}), args.c,
        ValueRange{r, cc});
  }
}

void EpilogueEmitter::emitSharedStores(
    function_ref<Value(int64_t, int64_t, int64_t)> value) {
  int64_t passes = c.epiloguePasses;
  assert(c.epiloguePassesFit(passes) && "epilogue passes that do not fit");
  // Passes over a warp's m16 rows through the idle stages, or, with a
  // buffer of the epilogue's own (the persistent kernel), over its columns.
  bool ownBuffer = c.ownEpilogueBuffer();
  int64_t rowPasses = ownBuffer ? 1 : passes;
  int64_t colPasses = ownBuffer ? passes : 1;
  int64_t rowElems = c.epilogueRowElems();
  int64_t passRows = c.warpM() / rowPasses;
  int64_t passCols = c.epilogueColumns();
  int64_t regionElems = passRows * rowElems;
  int64_t warps = c.warpsM * c.warpsN;
  int64_t vec = c.epilogueVector();
  int64_t lanesPerRow = c.epilogueLanesPerRow();
  // Round i reads vector lane + 32 i of the pass's passRows x lanesPerRow:
  // where lanesPerRow divides the warp a lane keeps its column and steps
  // rowsPerStore rows a round; else its row and column change each round.
  bool wholeRows = kWarpSize % lanesPerRow == 0;
  int64_t rowsPerStore = wholeRows ? kWarpSize / lanesPerRow : 0;
  int64_t rounds = passRows * lanesPerRow / kWarpSize;
  Value regions = sharedView(b, kc.rawSmem, c.cType, warps * regionElems,
                             idx(ownBuffer ? c.epilogueBufferOffset() : 0));
  Value warpBase = mul(divU(kc.tid, idx(kWarpSize)), idx(regionElems));
  Value fullMask =
      arith::ConstantIntOp::create(b, b.getI32Type(), int64_t(0xffffffff));
  // The stages become the warps' regions once no warp reads them any more
  // (the copies have drained: every thread waited for them). A buffer of
  // its own is each warp's alone: its lanes have read back the last tile's
  // rows.
  if (ownBuffer)
    NVVM::SyncWarpOp::create(b, fullMask);
  else
    gpu::BarrierOp::create(b);

  // Fragment element (row lane/4 + 8h, columns 2 (lane%4) + {0, 1}) of
  // each m16 x n8 tile; row vectors read back by lanesPerRow lanes a row.
  Value laneDiv4 = divU(kc.lane, idx(4));
  Value laneMod4 = remU(kc.lane, idx(4));
  Value writeBase =
      add(warpBase, add(mul(laneDiv4, idx(rowElems)), mul(laneMod4, idx(2))));
  Value warpRowOrigin = add(kc.m0, mul(kc.warpRow, idx(c.warpM())));
  Value warpColOrigin = add(kc.n0, mul(kc.warpCol, idx(c.warpN())));
  // The row (in the pass) and column of round i's vector.
  auto readAt = [&](int64_t i) -> std::pair<Value, Value> {
    Value v = add(kc.lane, idx(wholeRows ? 0 : i * kWarpSize));
    Value row = divU(v, idx(lanesPerRow));
    if (wholeRows)
      row = add(row, idx(i * rowsPerStore));
    return {row, mul(remU(v, idx(lanesPerRow)), idx(vec))};
  };

  // 16-byte row vectors where C allows it, else the widest narrower ones
  // it takes: a row stride off the vector (N % 8 != 0 in a contiguous C)
  // stored element by element cost 1.2-1.3x the kernel's time at one wave of
  // 128-row tiles (904 x 3796 x 1398, 1017 x 1894 x 1834; H200).
  SmallVector<StoreWidth, 3> widths;
  for (int64_t len = vec; len >= 2; len /= 2)
    widths.push_back({len, cTakesVectors(len)});
  auto vecType = VectorType::get({vec}, c.cType);
  int64_t eltBytes = c.cBytes();
  int64_t passTiles = c.mTiles() / rowPasses;
  int64_t passNTiles = c.nTiles() / colPasses;
  for (int64_t p = 0; p < passes; ++p) {
    int64_t rp = ownBuffer ? 0 : p, cp = ownBuffer ? p : 0;
    // The previous pass's row vectors are read before they are overwritten.
    if (p > 0)
      NVVM::SyncWarpOp::create(b, fullMask);
    for (int64_t mtl = 0; mtl < passTiles; ++mtl)
      for (int64_t ntl = 0; ntl < passNTiles; ++ntl)
        for (int64_t h = 0; h < 2; ++h)
          vector::StoreOp::create(
              b, value(rp * passTiles + mtl, cp * passNTiles + ntl, h), regions,
              ValueRange{
                  add(writeBase, idx((mtl * 16 + h * 8) * rowElems + ntl * 8))},
              /*nontemporal=*/false, llvm::MaybeAlign(2 * eltBytes));
    NVVM::SyncWarpOp::create(b, fullMask);
    for (int64_t i = 0; i < rounds; ++i) {
      auto [row, laneCol] = readAt(i);
      Value v = vector::LoadOp::create(
          b, vecType, regions,
          ValueRange{add(warpBase, add(mul(row, idx(rowElems)), laneCol))},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
      storeRow(v, add(warpRowOrigin, add(row, idx(rp * passRows))),
               add(warpColOrigin, add(laneCol, idx(cp * passCols))), widths);
    }
  }
}

void EpilogueEmitter::emitTmaStores(
    function_ref<Value(int64_t, int64_t, int64_t)> value) {
  assert(c.tmaStores() && c.cBytes() == 2 && "TMA stores of f16 C");
  int64_t slots = c.storeSlots();
  int64_t boxCols = c.storeBoxCols();
  int64_t boxBytes = c.storeBoxBytes();
  int64_t boxNTiles = boxCols / 8;
  Value fullMask =
      arith::ConstantIntOp::create(b, b.getI32Type(), int64_t(0xffffffff));
  Value lane0 =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, kc.lane, idx(0));
  // The warp's box slots, after the other warps'.
  Value slotsBase =
      add(idx(c.epilogueBufferOffset()),
          mul(divU(kc.tid, idx(kWarpSize)), idx(slots * boxBytes)));
  Value elems = sharedView(b, kc.rawSmem, c.cType, c.sharedBytes() / 2, idx(0));
  Value smem = memref::ExtractAlignedPointerAsIndexOp::create(b, kc.rawSmem);
  auto i32 = [&](Value v) {
    return arith::IndexCastOp::create(b, b.getI32Type(), v).getResult();
  };
  // A lane's fragment element pairs: rows lane/4 + 8h (+ 16 mt), bytes
  // 4 (lane%4) of each n8 column block, which is a 16-byte chunk of the
  // box's 128-byte row. TMA's 128-byte swizzle is the kernels' own of 8
  // chunks a row (chunk j of row r at j ^ (r % 8)), and r % 8 = lane/4: a
  // store's 8 rows x 4 lanes fill the 32 banks.
  Value laneDiv4 = divU(kc.lane, idx(4));
  Value laneByte = mul(remU(kc.lane, idx(4)), idx(4));
  Value rowOrigin = add(kc.m0, mul(kc.warpRow, idx(c.warpM())));
  Value colOrigin = add(kc.n0, mul(kc.warpCol, idx(c.warpN())));
  // C's tensor map describes C (the host code encoded it) where the
  // policy's conditions hold (policy::cTensorMapChecks, which the launchers
  // check too); otherwise the lanes store their fragments, guarded (a
  // staged read-back beside the boxes' addresses held more registers than
  // the kernel has: ptxas spilled). A row ending inside 16 bytes is not
  // TMA's: on an H200 its stores wrote whole 16 bytes, columns N to N + 3
  // of a C of N = 260 in rows of 264 (run_gpu_suite.py's c_layout_suite).
  auto valueOf = [&](StringRef name) {
    Value v = llvm::StringSwitch<Value>(name)
                  .Case("M", kc.m)
                  .Case("N", kc.n)
                  .Case("batch", kc.batches)
                  .Case("c_ptr", args.cPtr)
                  .Case("stride_cm", args.strideCm)
                  .Case("stride_cn", args.strideCn)
                  .Case("stride_cb", args.strideCb)
                  .Default(Value());
    assert(v && "C's tensor-map checks name a parameter the kernel lacks");
    return v;
  };
  Value byTma = emitChecksHold(b, policy::cTensorMapChecks(c.batched), valueOf);
  SmallVector<Value, 3> boxOrigin = {Value(), i32(rowOrigin)};
  if (c.batched)
    boxOrigin.push_back(i32(kc.batch));
  auto ifTma = scf::IfOp::create(b, byTma, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifTma.elseBlock());
  emitFragmentStores(value);
  // The branches load the epilogue's operands each for itself.
  loadedInputs.clear();
  b.setInsertionPointToStart(ifTma.thenBlock());
  for (int64_t box = 0; box < c.warpN() / boxCols; ++box) {
    Value slot = add(slotsBase, idx(box % slots * boxBytes));
    // The slot's previous box has been read (lane 0 issued the stores, one
    // bulk group each; at most slots - 1 younger ones may still read).
    {
      auto ifLane0 = scf::IfOp::create(b, lane0, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard waitGuard(b);
      b.setInsertionPointToStart(ifLane0.thenBlock());
      NVVM::CpAsyncBulkWaitGroupOp::create(b, slots - 1, b.getUnitAttr());
    }
    NVVM::SyncWarpOp::create(b, fullMask);
    for (int64_t mt = 0; mt < c.mTiles(); ++mt)
      for (int64_t ntl = 0; ntl < boxNTiles; ++ntl)
        for (int64_t h = 0; h < 2; ++h) {
          Value row = add(laneDiv4, idx(mt * 16 + h * 8));
          Value chunk = swizzle(b, row, idx(ntl), /*chunksPerRow=*/8);
          Value byte = add(slot, add(mul(row, idx(KernelSpec::kStoreBoxBytes)),
                                     add(mul(chunk, idx(16)), laneByte)));
          vector::StoreOp::create(b, value(mt, box * boxNTiles + ntl, h), elems,
                                  ValueRange{divU(byte, idx(2))},
                                  /*nontemporal=*/false, llvm::MaybeAlign(4));
        }
    // TMA reads through the async proxy what the lanes wrote.
    NVVM::FenceProxyOp::create(
        b, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    NVVM::SyncWarpOp::create(b, fullMask);
    auto ifLane0 = scf::IfOp::create(b, lane0, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard boxGuard(b);
    b.setInsertionPointToStart(ifLane0.thenBlock());
    Value src = sharedPointer(b, smem, slot);
    // TMA writes nothing outside C (its rows end on 16 bytes): edge tiles
    // need no guard.
    boxOrigin[0] = i32(add(colOrigin, idx(box * boxCols)));
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        b, args.cMap, src, boxOrigin, Value(), NVVM::TMAStoreMode::TILE,
        Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(b);
  }
}
