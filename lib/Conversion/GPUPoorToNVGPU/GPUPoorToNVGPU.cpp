//===- GPUPoorToNVGPU.cpp - gpupoor.matmul to an mma.sync kernel ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Replaces each memref gpupoor.matmul with a gpu.launch_func of a kernel that
// takes the Triton ABI (raw pointers, sizes, element strides) and computes
// the split-k product with nvgpu ops:
//
//   * a 1-D grid of ceil(M/BM) * ceil(N/BN) blocks in grouped (L2-friendly)
//     order;
//   * A and B tiles staged through dynamic shared memory by a `stages`-deep
//     cp.async (nvgpu.device_async_copy) pipeline with zero-filled tails, in
//     an XOR-swizzled layout that ldmatrix reads without bank conflicts;
//   * nvgpu.ldmatrix fragments and nvgpu.mma.sync m16n8k16 with f16
//     accumulators; at the end of each of the S chunks of K, the f16
//     accumulators are added into the outer (f32 or f16) accumulators;
//   * a guarded epilogue: bias, ReLU/GELU, conversion, store.
//
// Why not upstream tiling + vectorization + convert-vector-to-gpu: that path
// takes static shapes only, keeps shared memory static (no 4+ stages), drops
// the L1 bypass on predicated copies and cannot express the split-k
// accumulator handover (see the project's notes); this generator emits the
// same nvgpu ops directly, shaped for this one kernel.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/Passes.h"
#include "gpupoor/Conversion/SplitKUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_CONVERTGPUPOORTONVGPU
#include "gpupoor/Conversion/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

constexpr int64_t kWarpSize = 32;
constexpr unsigned kGlobalSpace = 1;

/// Everything that shapes one kernel.
struct KernelConfig {
  int64_t bm, bn, bk;
  int64_t warpsM, warpsN;
  int64_t stages;
  int64_t groupM;
  bool bTransposed;
  bool hasBias;
  Type biasType; // element type of the bias, when present
  Type cType;
  Type outerType;
  Epilogue epilogue;
  SplitKAttr strategy;
  // cp.async 16-byte copies (aligned, unit-stride rows) or element loads.
  bool asyncCopies;
  // k16 steps ahead that fragments load (see KernelBuilder).
  int64_t fragmentPrefetch;
  // A warp's first `sharedOuterRows` m16 rows of outer sums live in shared
  // memory (see KernelBuilder).
  int64_t sharedOuterRows;
  // Stores C through shared memory (see KernelBuilder::emitEpilogue) when
  // the stages can hold a warp's rows; else straight from the fragments.
  bool sharedEpilogue;
  // Chunk ends add f16 sums into f32 outer sums with mma.sync instead of
  // conversions and adds (see KernelBuilder::build); never for f16 ones.
  bool mmaHandover;
  // Width of index in the lowered kernel (memref descriptors match it).
  unsigned indexBitwidth;

  int64_t threads() const { return warpsM * warpsN * kWarpSize; }
  int64_t warpM() const { return bm / warpsM; }
  int64_t warpN() const { return bn / warpsN; }
  int64_t mTiles() const { return warpM() / 16; }
  int64_t nTiles() const { return warpN() / 8; }
  // Shared tiles: A is BM x BK; B is BK x BN (kn) or BN x BK (nk).
  int64_t aElems() const { return bm * bk; }
  int64_t bElems() const { return bn * bk; }
  // A stage holds A's tile, then B's.
  int64_t stageElems() const { return aElems() + bElems(); }
  int64_t stagesBytes() const { return stages * stageElems() * 2; }
  // Outer-sum fragments (vector<2x2>) kept in shared memory, one slot per
  // thread each, after the stages.
  int64_t sharedOuterFrags() const { return sharedOuterRows * nTiles(); }
  int64_t outerSlotElems() const { return sharedOuterFrags() * threads() * 4; }
  int64_t sharedBytes() const {
    return stagesBytes() +
           outerSlotElems() * outerType.getIntOrFloatBitWidth() / 8;
  }

  // The shared-memory epilogue: each warp writes its fragments into its
  // own region of the (then idle) stages, rows padded so that the
  // fragments' 8 rows of one store land in distinct banks, and reads them
  // back as 16-byte row vectors.
  int64_t cBytes() const { return cType.getIntOrFloatBitWidth() / 8; }
  int64_t epilogueVector() const { return 16 / cBytes(); }
  int64_t epilogueLanesPerRow() const { return warpN() * cBytes() / 16; }
  int64_t epilogueRowElems() const {
    // A store of 2 elements a lane covers 8 rows x 4 words (f16: one
    // phase) or, per half warp, 4 rows x 8 words (f32). Rows of an odd
    // number of such 4- or 8-word units land those rows on distinct banks;
    // warpN (a multiple of 16) makes an even number, and 8 more elements
    // add one unit.
    return warpN() + 8;
  }
  /// Passes over a warp's m16 rows such that every warp's region of one
  /// pass fits the stages; 0 when the epilogue cannot go through shared
  /// memory.
  int64_t epiloguePasses() const {
    int64_t lanesPerRow = epilogueLanesPerRow();
    if (!sharedEpilogue || (warpN() * cBytes()) % 16 != 0 ||
        lanesPerRow > kWarpSize || kWarpSize % lanesPerRow != 0)
      return 0;
    int64_t warps = warpsM * warpsN;
    for (int64_t passes = 1; passes <= mTiles(); passes *= 2) {
      int64_t rows = warpM() / passes;
      if (mTiles() % passes == 0 && rows % (kWarpSize / lanesPerRow) == 0 &&
          warps * rows * epilogueRowElems() * cBytes() <= stagesBytes())
        return passes;
    }
    return 0;
  }
};

/// Shared memory an SM of `chip` has for blocks, and what the driver
/// reserves of it per block (CUDA programming guide, compute capabilities).
int64_t sharedPerSM(Chip chip) {
  switch (chip) {
  case Chip::SM80:
    return 164 * 1024;
  case Chip::SM86:
  case Chip::SM89:
    return 100 * 1024;
  case Chip::SM90:
  case Chip::SM90a:
    return 228 * 1024;
  }
  llvm_unreachable("unknown chip");
}
constexpr int64_t kReservedSharedPerBlock = 1024;

/// Checks that the generator can map `config` onto warps and copies.
LogicalResult checkConfig(const KernelConfig &c,
                          function_ref<InFlightDiagnostic()> emitError) {
  if (c.warpsM < 1 || c.warpsN < 1)
    return emitError() << "needs at least one warp along M and N, got "
                       << c.warpsM << " x " << c.warpsN;
  if (c.bm % (16 * c.warpsM) != 0)
    return emitError() << "tile BM = " << c.bm << " does not split into "
                       << c.warpsM << " warp rows of 16-row MMA tiles";
  if (c.bn % (16 * c.warpsN) != 0)
    return emitError() << "tile BN = " << c.bn << " does not split into "
                       << c.warpsN << " warp columns of 16 columns";
  if (c.bk % 16 != 0)
    return emitError() << "tile BK = " << c.bk << " is not a multiple of 16";
  if ((c.aElems() / 8) % c.threads() != 0 ||
      (c.bElems() / 8) % c.threads() != 0)
    return emitError() << "tile " << c.bm << "x" << c.bn << "x" << c.bk
                       << " does not split into 16-byte copies over "
                       << c.threads() << " threads";
  if (c.fragmentPrefetch < 0 || c.fragmentPrefetch > c.bk / 16)
    return emitError() << "fragment prefetch of " << c.fragmentPrefetch
                       << " k steps is outside [0, BK/16 = " << c.bk / 16
                       << "]";
  if (c.groupM < 1)
    return emitError() << "the grouped block order needs group-m >= 1, got "
                       << c.groupM;
  if (c.stages < 2)
    return emitError() << "the copy pipeline needs at least 2 stages, got "
                       << c.stages;
  if (c.sharedOuterRows < 0 || c.sharedOuterRows > c.mTiles())
    return emitError() << c.sharedOuterRows
                       << " m16 rows of outer sums in shared memory is "
                          "outside [0, warp rows / 16 = "
                       << c.mTiles() << "]";
  // Opt-in dynamic shared memory limit of sm_80..sm_90.
  if (c.sharedBytes() > 227 * 1024)
    return emitError() << "shared memory of " << c.sharedBytes()
                       << " bytes exceeds the 227 KiB a block can have";
  return success();
}

/// The physical 16-byte chunk of logical chunk `chunk` in row `row` of a
/// shared tile with `chunksPerRow` chunks a row: XOR-ing with a few row bits
/// puts the 8 rows one ldmatrix phase reads in 8 different bank groups.
Value swizzle(ImplicitLocOpBuilder &b, Value row, Value chunk,
              int64_t chunksPerRow) {
  int64_t rowsPerPhase = std::max<int64_t>(1, 8 / chunksPerRow);
  int64_t phases = std::min<int64_t>(chunksPerRow, 8);
  if (phases == 1)
    return chunk;
  Value phase = arith::RemUIOp::create(
      b,
      arith::DivUIOp::create(b, row,
                             arith::ConstantIndexOp::create(b, rowsPerPhase)),
      arith::ConstantIndexOp::create(b, phases));
  return arith::XOrIOp::create(b, chunk, phase);
}

/// Builds a 2-D strided memref over raw global pointer `ptr`.
Value memrefFromPointer(ImplicitLocOpBuilder &b, Value ptr, Type elementType,
                        Value rows, Value cols, Value rowStride,
                        Value colStride, bool unitColStride,
                        unsigned indexBitwidth) {
  MLIRContext *ctx = b.getContext();
  // The descriptor's integers are as wide as the NVVM lowering's index.
  Type i64 = b.getIntegerType(indexBitwidth);
  auto toI64 = [&](Value v) { return arith::IndexCastOp::create(b, i64, v); };
  auto arr = LLVM::LLVMArrayType::get(i64, 2);
  auto ptrType = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
  auto descType =
      LLVM::LLVMStructType::getLiteral(ctx, {ptrType, ptrType, i64, arr, arr});
  Value desc = LLVM::PoisonOp::create(b, descType);
  desc = LLVM::InsertValueOp::create(b, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, desc, ptr, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(
      b, desc, LLVM::ConstantOp::create(b, i64, b.getIntegerAttr(i64, 0)),
      ArrayRef<int64_t>{2});
  desc = LLVM::InsertValueOp::create(b, desc, toI64(rows),
                                     ArrayRef<int64_t>{3, 0});
  desc = LLVM::InsertValueOp::create(b, desc, toI64(cols),
                                     ArrayRef<int64_t>{3, 1});
  desc = LLVM::InsertValueOp::create(b, desc, toI64(rowStride),
                                     ArrayRef<int64_t>{4, 0});
  desc = LLVM::InsertValueOp::create(b, desc, toI64(colStride),
                                     ArrayRef<int64_t>{4, 1});
  int64_t dyn = ShapedType::kDynamic;
  auto layout =
      StridedLayoutAttr::get(ctx, 0, {dyn, unitColStride ? int64_t(1) : dyn});
  auto type = MemRefType::get({dyn, dyn}, elementType, layout,
                              b.getI64IntegerAttr(kGlobalSpace));
  // The memref-to-LLVM lowering folds this cast with its inverse.
  return UnrealizedConversionCastOp::create(b, type, desc).getResult(0);
}

/// Emits the kernel body into `func`.
///
/// The main loop follows the multistage scheme of CUTLASS's sm80 GEMMs:
/// fragments load `fragmentPrefetch` k16 steps ahead (double-buffered in
/// registers by default), and the barrier that hands the next shared-memory
/// stage to the warps sits before the last such steps of a tile, so that
/// the last step's mma.sync instructions keep the tensor cores busy while
/// the warps meet and the next tile's first fragments load. All per-thread
/// address arithmetic that does not depend on the K block is computed once,
/// before the loop. Upstream's pipelining (`nvgpu` multi-buffering and
/// `scf` pipelining) works on static shapes and static shared memory, and
/// cannot express the split-k handover; hence this generator.
class KernelBuilder {
public:
  KernelBuilder(const KernelConfig &config, gpu::GPUFuncOp func)
      : c(config), func(func), b(func.getLoc(), func.getContext()) {}

  void build();

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value minI(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value maxI(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, cond, x, y);
  }
  Value clamp8(Value v) { return maxI(minI(v, idx(8)), idx(0)); }

  /// One thread's share of the copies of one operand's tile.
  struct CopyPlan {
    Value gmem;          // 2-D global memref
    bool kAlongRows;     // B in kn layout: the tile's rows are k
    // Per copy: offset in the stage, and the K-independent coordinate.
    SmallVector<Value> dstOff;
    SmallVector<Value> fixedIdx;   // clamped row (k along columns) or column
    SmallVector<Value> fixedCount; // kn: elements of the column chunk
    SmallVector<Value> kOff;       // k offset of the copy inside the tile
  };
  CopyPlan planCopies(Value gmem, int64_t smemBase, int64_t rows,
                      int64_t chunksPerRow, bool kAlongRows, Value fixedBase,
                      Value fixedLimit);
  void emitCopies(const CopyPlan &plan, Value stage, Value tile, bool full);

  /// The shared-memory stage of K tile `tile`, as a view whose base address
  /// is the stage's: every per-thread offset into it is loop-invariant, so
  /// each ldmatrix or cp.async address costs one add to the stage base (or
  /// none, as an immediate).
  Value stageView(Value tile);
  /// Fragments of one k16 step: mTiles A fragments, nTiles/2 B pairs.
  SmallVector<Value> loadFragments(Value stage, int64_t ks);
  SmallVector<Value> emitMma(ArrayRef<Value> frags, ValueRange acc);
  void emitEpilogue(ValueRange outer);
  /// Whether C takes `len`-element vector stores: contiguous along N, its
  /// row stride a multiple of `len` and its pointer aligned to the vector.
  Value cTakesVectors(int64_t len);
  /// Stores `v` (a vector) at C[row, col...]: one vector store when the row
  /// lies inside M, the vector inside N and `vectorsOk` holds; else the
  /// elements inside M and N one by one.
  void storeRow(Value v, Value row, Value col, Value vectorsOk);
  /// Stores C tile values through shared memory in `passes` passes;
  /// `value(mt, nt, h)` is a lane's vector<2> of fragment (mt, nt), row
  /// half h.
  void emitSharedStores(
      int64_t passes,
      function_ref<Value(int64_t, int64_t, int64_t)> value);

  const KernelConfig &c;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder b;

  // Kernel-wide values.
  Value aMem, bMem, cMem, cMemUnit, biasPtr;
  Value m, n, k, strideCm, strideCn;
  Value rawSmem;
  Value tid, lane, warpRow, warpCol;
  Value m0, n0;
  Value numKBlocks;
  CopyPlan aPlan, bPlan;
  // Loop-invariant ldmatrix offsets: A per k step; B per k step (nk) or per
  // n16 pair (kn). The other index is a constant offset from these.
  SmallVector<Value> aFragOff, bFragOff;
};

KernelBuilder::CopyPlan
KernelBuilder::planCopies(Value gmem, int64_t smemBase, int64_t rows,
                          int64_t chunksPerRow, bool kAlongRows,
                          Value fixedBase, Value fixedLimit) {
  CopyPlan p;
  p.gmem = gmem;
  p.kAlongRows = kAlongRows;
  int64_t rowElems = chunksPerRow * 8;
  Value limitMinus1 = sub(fixedLimit, idx(1));
  // Copy i takes chunk tid + i * threads. When the threads cover whole
  // rows and a whole number of swizzle periods, copy i is copy 0 moved by
  // a constant number of rows: same chunk, same swizzle, and a destination
  // that is an immediate offset from copy 0's.
  int64_t rowsPerPhase = std::max<int64_t>(1, 8 / chunksPerRow);
  int64_t period = rowsPerPhase * std::min<int64_t>(chunksPerRow, 8);
  bool uniform = c.threads() % chunksPerRow == 0 &&
                 (c.threads() / chunksPerRow) % period == 0;
  int64_t rowStep = c.threads() / chunksPerRow;
  Value row0 = arith::DivUIOp::create(b, tid, idx(chunksPerRow));
  Value chunk0 = arith::RemUIOp::create(b, tid, idx(chunksPerRow));
  Value dst0 = add(idx(smemBase),
                   add(mul(row0, idx(rowElems)),
                       mul(swizzle(b, row0, chunk0, chunksPerRow), idx(8))));
  for (int64_t i = 0; i < rows * chunksPerRow / c.threads(); ++i) {
    Value row, chunk;
    if (uniform) {
      row = add(row0, idx(i * rowStep));
      chunk = chunk0;
      p.dstOff.push_back(add(dst0, idx(i * rowStep * rowElems)));
    } else {
      Value chunkId = add(tid, idx(i * c.threads()));
      row = arith::DivUIOp::create(b, chunkId, idx(chunksPerRow));
      chunk = arith::RemUIOp::create(b, chunkId, idx(chunksPerRow));
      Value phys = swizzle(b, row, chunk, chunksPerRow);
      p.dstOff.push_back(add(idx(smemBase), add(mul(row, idx(rowElems)),
                                                mul(phys, idx(8)))));
    }
    if (!kAlongRows) {
      // Rows are M (A) or N (B in nk): a row past the edge reads the last
      // row instead; the epilogue never stores what it feeds.
      p.fixedIdx.push_back(minI(add(fixedBase, row), limitMinus1));
      p.kOff.push_back(mul(chunk, idx(8)));
    } else {
      // Rows are k; the chunk is 8 columns of N, fewer (zero-filled) or
      // none at N's edge.
      Value g = add(fixedBase, mul(chunk, idx(8)));
      Value count = clamp8(sub(fixedLimit, g));
      p.fixedCount.push_back(count);
      p.fixedIdx.push_back(minI(g, limitMinus1));
      p.kOff.push_back(row);
    }
  }
  return p;
}

Value KernelBuilder::stageView(Value tile) {
  Value shift = mul(arith::RemUIOp::create(b, tile, idx(c.stages)),
                    idx(c.stageElems() * 2));
  auto type = MemRefType::get(
      {c.stageElems()}, b.getF16Type(), MemRefLayoutAttrInterface(),
      cast<MemRefType>(rawSmem.getType()).getMemorySpace());
  return memref::ViewOp::create(b, type, rawSmem, shift, ValueRange{});
}

void KernelBuilder::emitCopies(const CopyPlan &p, Value stage, Value tile,
                               bool full) {
  Value kBase = mul(tile, idx(c.bk));
  if (full) {
    // The tile lies inside K (and, for B in kn, its columns inside N):
    // plain 16-byte copies. A zero-filling copy costs about six more
    // instructions: its fill count travels in the low address bits.
    for (size_t i = 0; i < p.dstOff.size(); ++i) {
      Value kIdx = add(kBase, p.kOff[i]);
      Value row = p.kAlongRows ? kIdx : p.fixedIdx[i];
      Value col = p.kAlongRows ? p.fixedIdx[i] : kIdx;
      nvgpu::DeviceAsyncCopyOp::create(
          b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), stage,
          ValueRange{p.dstOff[i]}, p.gmem, ValueRange{row, col},
          b.getIndexAttr(8), Value(), b.getUnitAttr());
    }
    return;
  }
  // Only K (and N's edge for B in kn) needs zero fill: a copy reads the
  // elements before K and fills the rest of its 16 bytes with zeros; its
  // address stays inside A or B.
  Value kMinus1 = sub(k, idx(1));
  for (size_t i = 0; i < p.dstOff.size(); ++i) {
    Value kIdx = add(kBase, p.kOff[i]);
    Value count, row, col;
    if (!p.kAlongRows) {
      count = clamp8(sub(k, kIdx));
      row = p.fixedIdx[i];
      col = minI(kIdx, kMinus1);
    } else {
      count = select(lt(kIdx, k), p.fixedCount[i], idx(0));
      row = minI(kIdx, kMinus1);
      col = p.fixedIdx[i];
    }
    Value dst = p.dstOff[i];
    if (c.asyncCopies) {
      nvgpu::DeviceAsyncCopyOp::create(
          b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), stage,
          ValueRange{dst}, p.gmem, ValueRange{row, col}, b.getIndexAttr(8),
          count, b.getUnitAttr());
      continue;
    }
    // Element by element, for operands whose rows are not 16-byte aligned
    // or not contiguous: `count` loads (clamped in bounds, masked to zero
    // past it) and one 16-byte shared-memory store.
    Type f16 = b.getF16Type();
    Value zeroF16 = arith::ConstantOp::create(b, b.getZeroAttr(f16));
    SmallVector<Value> values;
    for (int64_t e = 0; e < 8; ++e) {
      Value inside = lt(idx(e), count);
      // The 8 elements of a chunk are adjacent along the row in global
      // memory for every layout.
      Value cl = select(inside, add(col, idx(e)), col);
      Value v = memref::LoadOp::create(b, p.gmem, ValueRange{row, cl});
      values.push_back(select(inside, v, zeroF16));
    }
    Value chunk =
        vector::FromElementsOp::create(b, VectorType::get({8}, f16), values);
    vector::StoreOp::create(b, chunk, stage, ValueRange{dst});
  }
}

SmallVector<Value> KernelBuilder::loadFragments(Value stage, int64_t ks) {
  Type f16 = b.getF16Type();
  auto frag4 = VectorType::get({4, 2}, f16);
  SmallVector<Value> frags;
  // A: lane l reads row l % 16 of the m16 tile at k-chunk l / 16; m16 tiles
  // are 16 rows apart, two swizzle periods, so their offsets differ by a
  // constant.
  for (int64_t mt = 0; mt < c.mTiles(); ++mt)
    frags.push_back(nvgpu::LdMatrixOp::create(
        b, frag4, stage, ValueRange{add(aFragOff[ks], idx(mt * 16 * c.bk))},
        /*transpose=*/false, /*numTiles=*/4));
  for (int64_t np = 0; np < c.nTiles() / 2; ++np) {
    // B follows A in the stage (bFragOff includes aElems).
    Value off;
    if (c.bTransposed)
      off = add(bFragOff[ks], idx(np * 16 * c.bk));
    else
      off = add(bFragOff[np], idx(ks * 16 * c.bn));
    frags.push_back(nvgpu::LdMatrixOp::create(b, frag4, stage, ValueRange{off},
                                              /*transpose=*/!c.bTransposed,
                                              /*numTiles=*/4));
  }
  return frags;
}

SmallVector<Value> KernelBuilder::emitMma(ArrayRef<Value> frags,
                                          ValueRange acc) {
  SmallVector<Value> next(acc.begin(), acc.end());
  SmallVector<Value> bFrag;
  for (int64_t np = 0; np < c.nTiles() / 2; ++np)
    for (int64_t half = 0; half < 2; ++half)
      bFrag.push_back(vector::ExtractStridedSliceOp::create(
          b, frags[c.mTiles() + np], ArrayRef<int64_t>{half * 2, 0},
          ArrayRef<int64_t>{2, 2}, ArrayRef<int64_t>{1, 1}));
  for (int64_t mt = 0; mt < c.mTiles(); ++mt)
    for (int64_t nt = 0; nt < c.nTiles(); ++nt) {
      Value &accVal = next[mt * c.nTiles() + nt];
      accVal = nvgpu::MmaSyncOp::create(b, frags[mt], bFrag[nt], accVal,
                                        ArrayRef<int64_t>{16, 8, 16});
    }
  return next;
}

void KernelBuilder::emitEpilogue(ValueRange outer) {
  Value laneDiv4 = arith::DivUIOp::create(b, lane, idx(4));
  Value laneMod4 = arith::RemUIOp::create(b, lane, idx(4));
  Value rowBase = add(add(m0, mul(warpRow, idx(c.warpM()))), laneDiv4);
  Value colBase =
      add(add(n0, mul(warpCol, idx(c.warpN()))), mul(laneMod4, idx(2)));
  Value biasMem;
  if (c.hasBias) {
    // A 1 x N view of the bias, read with a clamped index.
    auto layout = StridedLayoutAttr::get(b.getContext(), 0, {1});
    auto type = MemRefType::get({ShapedType::kDynamic}, c.biasType, layout,
                                b.getI64IntegerAttr(kGlobalSpace));
    Type i64 = b.getIntegerType(c.indexBitwidth);
    auto arr = LLVM::LLVMArrayType::get(i64, 1);
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), kGlobalSpace);
    auto descType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), {ptrType, ptrType, i64, arr, arr});
    Value desc = LLVM::PoisonOp::create(b, descType);
    desc = LLVM::InsertValueOp::create(b, desc, biasPtr, ArrayRef<int64_t>{0});
    desc = LLVM::InsertValueOp::create(b, desc, biasPtr, ArrayRef<int64_t>{1});
    Value zero64 = LLVM::ConstantOp::create(b, i64, b.getIntegerAttr(i64, 0));
    Value one64 = LLVM::ConstantOp::create(b, i64, b.getIntegerAttr(i64, 1));
    desc = LLVM::InsertValueOp::create(b, desc, zero64, ArrayRef<int64_t>{2});
    desc = LLVM::InsertValueOp::create(b, desc,
                                       arith::IndexCastOp::create(b, i64, n),
                                       ArrayRef<int64_t>{3, 0});
    desc = LLVM::InsertValueOp::create(b, desc, one64, ArrayRef<int64_t>{4, 0});
    biasMem = UnrealizedConversionCastOp::create(b, type, desc).getResult(0);
  }
  Value nMinus1 = sub(n, idx(1));
  // Bias of a lane's column pair of each n8 tile (clamped reads).
  SmallVector<Value> bias(2 * c.nTiles());
  if (biasMem)
    for (int64_t nt = 0; nt < c.nTiles(); ++nt)
      for (int64_t e = 0; e < 2; ++e)
        bias[2 * nt + e] = memref::LoadOp::create(
            b, biasMem,
            ValueRange{minI(add(colBase, idx(nt * 8 + e)), nMinus1)});
  auto pairType = VectorType::get({2}, c.cType);
  auto value = [&](int64_t mt, int64_t nt, int64_t h) -> Value {
    Value frag = outer[mt * c.nTiles() + nt];
    SmallVector<Value> v;
    for (int64_t e = 0; e < 2; ++e)
      v.push_back(gpupoor::emitEpilogue(
          b, vector::ExtractOp::create(b, frag, ArrayRef<int64_t>{h, e}),
          bias[2 * nt + e], c.epilogue, c.cType));
    return vector::FromElementsOp::create(b, pairType, v);
  };
  if (int64_t passes = c.epiloguePasses()) {
    emitSharedStores(passes, value);
    return;
  }

  // A lane holds pairs of adjacent columns: one 2-element store each where
  // C allows it.
  Value pairs = cTakesVectors(2);
  for (int64_t mt = 0; mt < c.mTiles(); ++mt)
    for (int64_t nt = 0; nt < c.nTiles(); ++nt)
      for (int64_t h = 0; h < 2; ++h)
        storeRow(value(mt, nt, h), add(rowBase, idx(mt * 16 + h * 8)),
                 add(colBase, idx(nt * 8)), pairs);
}

Value KernelBuilder::cTakesVectors(int64_t len) {
  Type i64 = b.getI64Type();
  Value cAddr = LLVM::PtrToIntOp::create(b, i64, func.getArgument(2));
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x, y);
  };
  Value aligned =
      eq(arith::AndIOp::create(
             b, cAddr,
             arith::ConstantIntOp::create(b, i64, len * c.cBytes() - 1)),
         arith::ConstantIntOp::create(b, i64, 0));
  return arith::AndIOp::create(
      b,
      arith::AndIOp::create(
          b, eq(strideCn, idx(1)),
          eq(arith::RemUIOp::create(b, strideCm, idx(len)), idx(0))),
      aligned);
}

void KernelBuilder::storeRow(Value v, Value row, Value col, Value vectorsOk) {
  auto type = cast<VectorType>(v.getType());
  int64_t len = type.getNumElements();
  auto andI = [&](Value x, Value y) { return arith::AndIOp::create(b, x, y); };
  Value rowOk = lt(row, m);
  // The column test is the same for every row of a lane: CSE shares it.
  Value whole = andI(rowOk, andI(vectorsOk, arith::CmpIOp::create(
                                                b, arith::CmpIPredicate::sle,
                                                add(col, idx(len)), n)));
  auto ifVec = scf::IfOp::create(b, whole, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifVec.thenBlock());
  // Without the alignment LLVM splits the vector into element stores.
  vector::StoreOp::create(b, v, cMemUnit, ValueRange{row, col},
                          /*nontemporal=*/false,
                          llvm::MaybeAlign(len * c.cBytes()));
  b.setInsertionPointToStart(ifVec.elseBlock());
  for (int64_t e = 0; e < len; ++e) {
    Value ce = add(col, idx(e));
    auto ifOp = scf::IfOp::create(b, andI(rowOk, lt(ce, n)), false);
    OpBuilder::InsertionGuard guard2(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(
        b, vector::ExtractOp::create(b, v, ArrayRef<int64_t>{e}), cMem,
        ValueRange{row, ce});
  }
}

void KernelBuilder::emitSharedStores(
    int64_t passes, function_ref<Value(int64_t, int64_t, int64_t)> value) {
  int64_t rowElems = c.epilogueRowElems();
  int64_t passRows = c.warpM() / passes;
  int64_t regionElems = passRows * rowElems;
  int64_t warps = c.warpsM * c.warpsN;
  int64_t vec = c.epilogueVector();
  int64_t lanesPerRow = c.epilogueLanesPerRow();
  int64_t rowsPerStore = kWarpSize / lanesPerRow;
  auto regionType = MemRefType::get(
      {warps * regionElems}, c.cType, MemRefLayoutAttrInterface(),
      cast<MemRefType>(rawSmem.getType()).getMemorySpace());
  Value regions =
      memref::ViewOp::create(b, regionType, rawSmem, idx(0), ValueRange{});
  Value warpBase =
      mul(arith::DivUIOp::create(b, tid, idx(kWarpSize)), idx(regionElems));
  // The stages become the warps' regions once no warp reads them any more
  // (the copies have drained: every thread waited for them).
  gpu::BarrierOp::create(b);
  Value fullMask =
      arith::ConstantIntOp::create(b, b.getI32Type(), int64_t(0xffffffff));

  // Fragment element (row lane/4 + 8h, columns 2 (lane%4) + {0, 1}) of
  // each m16 x n8 tile; row vectors read back by lanesPerRow lanes a row.
  Value laneDiv4 = arith::DivUIOp::create(b, lane, idx(4));
  Value laneMod4 = arith::RemUIOp::create(b, lane, idx(4));
  Value writeBase = add(warpBase, add(mul(laneDiv4, idx(rowElems)),
                                      mul(laneMod4, idx(2))));
  Value laneRow = arith::DivUIOp::create(b, lane, idx(lanesPerRow));
  Value laneCol =
      mul(arith::RemUIOp::create(b, lane, idx(lanesPerRow)), idx(vec));
  Value readBase = add(warpBase, add(mul(laneRow, idx(rowElems)), laneCol));
  Value rowOrigin = add(add(m0, mul(warpRow, idx(c.warpM()))), laneRow);
  Value col = add(add(n0, mul(warpCol, idx(c.warpN()))), laneCol);

  // 16-byte row vectors where C allows it.
  Value vectors = cTakesVectors(vec);
  auto vecType = VectorType::get({vec}, c.cType);
  int64_t eltBytes = c.cBytes();
  int64_t passTiles = c.mTiles() / passes;
  for (int64_t p = 0; p < passes; ++p) {
    // The previous pass's row vectors are read before they are overwritten.
    if (p > 0)
      NVVM::SyncWarpOp::create(b, fullMask);
    for (int64_t mtl = 0; mtl < passTiles; ++mtl)
      for (int64_t nt = 0; nt < c.nTiles(); ++nt)
        for (int64_t h = 0; h < 2; ++h)
          vector::StoreOp::create(
              b, value(p * passTiles + mtl, nt, h), regions,
              ValueRange{add(writeBase,
                             idx((mtl * 16 + h * 8) * rowElems + nt * 8))},
              /*nontemporal=*/false, llvm::MaybeAlign(2 * eltBytes));
    NVVM::SyncWarpOp::create(b, fullMask);
    for (int64_t r = 0; r < passRows; r += rowsPerStore) {
      Value v = vector::LoadOp::create(
          b, vecType, regions, ValueRange{add(readBase, idx(r * rowElems))},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
      storeRow(v, add(rowOrigin, idx(p * passRows + r)), col, vectors);
    }
  }
}

void KernelBuilder::build() {
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  MLIRContext *ctx = b.getContext();
  Type f16 = b.getF16Type();
  Type indexType = b.getIndexType();
  auto arg = [&](unsigned i) { return entry.getArgument(i); };
  auto argIndex = [&](unsigned i) {
    return arith::IndexCastOp::create(b, indexType, arg(i));
  };

  // Triton ABI: a, b, c, bias, M, N, K, am, ak, bk, bn, cm, cn.
  m = argIndex(4);
  n = argIndex(5);
  k = argIndex(6);
  Value strideAm = argIndex(7), strideAk = argIndex(8);
  Value strideBk = argIndex(9), strideBn = argIndex(10);
  strideCm = argIndex(11);
  strideCn = argIndex(12);
  // cp.async reads 16 contiguous bytes: with async copies, A's and B's
  // inner strides are 1 (the launcher checks; the manifest says so) and the
  // memrefs say so too; element-wise copies take any strides.
  bool unit = c.asyncCopies;
  Value one = idx(1);
  aMem = memrefFromPointer(b, arg(0), f16, m, k, strideAm,
                           unit ? one : strideAk, unit, c.indexBitwidth);
  if (c.bTransposed)
    bMem = memrefFromPointer(b, arg(1), f16, n, k, strideBn,
                             unit ? one : strideBk, unit, c.indexBitwidth);
  else
    bMem = memrefFromPointer(b, arg(1), f16, k, n, strideBk,
                             unit ? one : strideBn, unit, c.indexBitwidth);
  cMem = memrefFromPointer(b, arg(2), c.cType, m, n, strideCm, strideCn, false,
                           c.indexBitwidth);
  cMemUnit = memrefFromPointer(b, arg(2), c.cType, m, n, strideCm, one, true,
                               c.indexBitwidth);
  biasPtr = arg(3);

  // Dynamic shared memory: `stages` stages, each A's tile then B's.
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  auto rawType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                 MemRefLayoutAttrInterface(), workgroup);
  rawSmem = gpu::DynamicSharedMemoryOp::create(b, rawType);

  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, tid, idx(kWarpSize));
  Value warp = arith::DivUIOp::create(b, tid, idx(kWarpSize));
  warpRow = arith::DivUIOp::create(b, warp, idx(c.warpsN));
  warpCol = arith::RemUIOp::create(b, warp, idx(c.warpsN));

  // Grouped block order: GROUP_M row tiles share their B tiles in L2.
  Value pid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value numPidM = arith::CeilDivSIOp::create(b, m, idx(c.bm));
  Value numPidN = arith::CeilDivSIOp::create(b, n, idx(c.bn));
  Value inGroup = mul(idx(c.groupM), numPidN);
  Value groupId = arith::DivUIOp::create(b, pid, inGroup);
  Value firstM = mul(groupId, idx(c.groupM));
  Value groupSize = minI(sub(numPidM, firstM), idx(c.groupM));
  Value pidInGroup = arith::RemUIOp::create(b, pid, inGroup);
  Value pidM = add(firstM, arith::RemUIOp::create(b, pidInGroup, groupSize));
  Value pidN = arith::DivUIOp::create(b, pidInGroup, groupSize);
  m0 = mul(pidM, idx(c.bm));
  n0 = mul(pidN, idx(c.bn));

  SplitGeometry geometry = emitSplitGeometry(b, k, c.strategy);
  numKBlocks = geometry.numKBlocks;

  // Loop-invariant parts of the copies and of the fragment loads.
  aPlan = planCopies(aMem, 0, c.bm, c.bk / 8, /*kAlongRows=*/false, m0, m);
  int64_t bBase = c.aElems();
  if (c.bTransposed)
    bPlan = planCopies(bMem, bBase, c.bn, c.bk / 8, false, n0, n);
  else
    bPlan = planCopies(bMem, bBase, c.bk, c.bn / 8, true, n0, n);
  Value laneMod16 = arith::RemUIOp::create(b, lane, idx(16));
  Value laneDiv16 = arith::DivUIOp::create(b, lane, idx(16));
  Value laneMod8 = arith::RemUIOp::create(b, lane, idx(8));
  Value laneBit3 = arith::RemUIOp::create(
      b, arith::DivUIOp::create(b, lane, idx(8)), idx(2));
  int64_t kSteps = c.bk / 16;
  for (int64_t ks = 0; ks < kSteps; ++ks) {
    Value row = add(mul(warpRow, idx(c.warpM())), laneMod16);
    Value chunk = add(laneDiv16, idx(ks * 2));
    aFragOff.push_back(add(mul(row, idx(c.bk)),
                           mul(swizzle(b, row, chunk, c.bk / 8), idx(8))));
  }
  if (c.bTransposed) {
    // Rows are n: lanes 0-7 / 8-15 take k-chunks 0 / 1 of n 0-7, lanes
    // 16-31 the same for n 8-15.
    for (int64_t ks = 0; ks < kSteps; ++ks) {
      Value row = add(add(mul(warpCol, idx(c.warpN())), laneMod8),
                      mul(laneDiv16, idx(8)));
      Value chunk = add(laneBit3, idx(ks * 2));
      bFragOff.push_back(
          add(idx(bBase), add(mul(row, idx(c.bk)),
                              mul(swizzle(b, row, chunk, c.bk / 8), idx(8)))));
    }
  } else {
    // Rows are k: lanes 0-15 take k 0-15 of n-chunk 0, lanes 16-31 of
    // n-chunk 1; the transposed load yields the col-major fragment.
    for (int64_t np = 0; np < c.nTiles() / 2; ++np) {
      Value row = add(laneMod8, mul(laneBit3, idx(8)));
      Value chunk = add(
          arith::DivUIOp::create(
              b, add(mul(warpCol, idx(c.warpN())), idx(np * 16)), idx(8)),
          laneDiv16);
      bFragOff.push_back(
          add(idx(bBase), add(mul(row, idx(c.bn)),
                              mul(swizzle(b, row, chunk, c.bn / 8), idx(8)))));
    }
  }

  // Prologue: tiles 0 .. stages-2 in flight, one commit group each (empty
  // groups past the end keep the group count uniform); then tile 0's first
  // fragments.
  Type tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
  // The waits name the prologue's last group; the token only orders IR.
  Value token;
  // `full`: the tile is whole (plain copies). Otherwise guarded copies of
  // a tile below numKBlocks, or, when `fullIf` holds, plain ones.
  auto emitCopyGroup = [&](Value tile, bool full, Value fullIf = {}) -> Value {
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
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, tokenType, ValueRange{});
  };
  // Tile t has landed once at most stages-2 younger groups are pending.
  auto emitWaitAndBarrier = [&] {
    nvgpu::DeviceAsyncWaitOp::create(b, token,
                                     b.getI32IntegerAttr(c.stages - 2));
    gpu::BarrierOp::create(b);
  };
  for (int64_t s = 0; s + 1 < c.stages; ++s)
    token = emitCopyGroup(idx(s), /*full=*/false);
  // Fragments of the first `fragmentPrefetch` k steps, all in tile 0.
  SmallVector<Value> frags;
  if (c.fragmentPrefetch > 0)
    emitWaitAndBarrier();
  for (int64_t ks = 0; ks < c.fragmentPrefetch; ++ks)
    frags.append(loadFragments(stageView(idx(0)), ks));

  Type outerElt = c.outerType;
  auto innerType = VectorType::get({2, 2}, f16);
  auto outerType = VectorType::get({2, 2}, outerElt);
  int64_t numFrags = c.mTiles() * c.nTiles();
  Value innerZero =
      arith::ConstantOp::create(b, innerType, b.getZeroAttr(innerType));
  Value outerZero =
      arith::ConstantOp::create(b, outerType, b.getZeroAttr(outerType));

  // Outer sums of fragments below `numShared` live in shared memory: slot
  // f of thread t holds 4 elements at (f * threads + t) * 4, so that a
  // warp's 16-byte accesses to one slot are contiguous (no bank conflicts).
  // Only this thread touches its slots, at chunk ends: no barrier.
  int64_t numShared = c.sharedOuterFrags();
  int64_t numRegOuter = numFrags - numShared;
  Value outerSlots;
  auto slotType = VectorType::get({4}, outerElt);
  int64_t slotAlign = 4 * outerElt.getIntOrFloatBitWidth() / 8;
  auto slotIndex = [&](int64_t f) {
    return mul(add(idx(f * c.threads()), tid), idx(4));
  };
  auto loadSlot = [&](int64_t f) -> Value {
    Value v = vector::LoadOp::create(b, slotType, outerSlots,
                                     ValueRange{slotIndex(f)},
                                     /*nontemporal=*/false,
                                     llvm::MaybeAlign(slotAlign));
    return vector::ShapeCastOp::create(b, outerType, v);
  };
  auto storeSlot = [&](int64_t f, Value v) {
    vector::StoreOp::create(b, vector::ShapeCastOp::create(b, slotType, v),
                            outerSlots, ValueRange{slotIndex(f)},
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(slotAlign));
  };
  // The handover on the tensor cores (f32 outer sums): the B fragment of
  // the 8 x 8 identity. A lane holds B's rows 2 (lane % 4) + {0, 1} of
  // column lane / 4.
  Value identity;
  if (c.mmaHandover) {
    Value col = arith::DivUIOp::create(b, lane, idx(4));
    Value row = mul(arith::RemUIOp::create(b, lane, idx(4)), idx(2));
    Value one = arith::ConstantOp::create(b, f16, b.getF16FloatAttr(1.0));
    Value zero = arith::ConstantOp::create(b, f16, b.getF16FloatAttr(0.0));
    Value d0 = select(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, row,
                                            col),
                      one, zero);
    Value d1 = select(arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                            add(row, idx(1)), col),
                      one, zero);
    identity = vector::FromElementsOp::create(
        b, VectorType::get({1, 2}, f16), ValueRange{d0, d1});
  }
  if (numShared > 0) {
    auto type = MemRefType::get(
        {c.outerSlotElems()}, outerElt, MemRefLayoutAttrInterface(),
        cast<MemRefType>(rawSmem.getType()).getMemorySpace());
    outerSlots = memref::ViewOp::create(b, type, rawSmem,
                                        idx(c.stagesBytes()), ValueRange{});
    for (int64_t f = 0; f < numShared; ++f)
      storeSlot(f, outerZero);
  }

  // One K tile: refill, wait, fragments and mma.sync; `full` and `fullIf`
  // choose the refill's copies (see emitCopyGroup). Updates `inner` and
  // `ahead`, the fragments of the next `fragmentPrefetch` k steps (one set
  // after another).
  int64_t dist = c.fragmentPrefetch;
  auto emitTile = [&](Value kb, SmallVector<Value> &inner,
                      SmallVector<Value> &ahead, bool full,
                      Value fullIf = {}) {
    Value refill = add(kb, idx(c.stages - 1));
    if (dist == 0) {
      // Tile kb has landed and every warp is done with tile kb - 1, whose
      // stage takes tile kb + stages - 1.
      emitWaitAndBarrier();
      emitCopyGroup(refill, full, fullIf);
      Value stage = stageView(kb);
      for (int64_t ks = 0; ks < kSteps; ++ks)
        inner = emitMma(loadFragments(stage, ks), inner);
      return;
    }
    // Step ks loads the fragments of step ks + dist, in the next tile once
    // that runs past this one: the barrier that publishes the next tile
    // comes first, at step kSteps - dist. Every read of the stage that the
    // refill overwrites (tile kb - 1's) was issued before the previous
    // tile's barrier. With the barrier at step 0 the refill precedes it.
    int64_t barrierStep = kSteps - dist;
    // One k step's fragments: mTiles A fragments and nTiles/2 B pairs.
    int64_t setSize = c.mTiles() + c.nTiles() / 2;
    Value stage = stageView(kb), nextStage;
    for (int64_t ks = 0; ks < kSteps; ++ks) {
      // The wait counts the refill's group among the pending ones: with the
      // barrier at step 0 the refill comes first.
      if (ks == 0 && barrierStep == 0)
        emitCopyGroup(refill, full, fullIf);
      if (ks == barrierStep) {
        emitWaitAndBarrier();
        nextStage = stageView(add(kb, idx(1)));
      }
      // Past the last tile this reads a stage no copy is writing; the
      // values are never used.
      SmallVector<Value> next =
          ks + dist < kSteps ? loadFragments(stage, ks + dist)
                             : loadFragments(nextStage, ks + dist - kSteps);
      // Otherwise the refill follows the step's fragment loads: ptxas keeps
      // shared memory accesses in program order and spreads the copies over
      // the step's mma.sync, so loads placed after the copies would issue
      // only once the last copy had.
      if (ks == 0 && barrierStep != 0)
        emitCopyGroup(refill, full, fullIf);
      SmallVector<Value> now(ahead.begin(), ahead.begin() + setSize);
      inner = emitMma(now, inner);
      ahead.erase(ahead.begin(), ahead.begin() + setSize);
      ahead.append(next);
    }
  };
  // One loop over the K blocks [lo, hi) of a chunk, carrying the f16 sums
  // and the prefetched fragments.
  auto emitBlockLoop = [&](Value lo, Value hi, SmallVector<Value> init,
                           bool full) {
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
  };
  // Refill tiles below fastEnd are whole: inside K and, for B in kn, inside
  // N (A's and nk B's rows past M or N are clamped, never filled).
  Value fastEnd;
  if (c.asyncCopies) {
    Value fullTiles = arith::DivUIOp::create(b, k, idx(c.bk));
    fastEnd = sub(fullTiles, idx(c.stages - 1));
    if (!c.bTransposed)
      fastEnd = select(arith::CmpIOp::create(b, arith::CmpIPredicate::sle,
                                             add(n0, idx(c.bn)), n),
                       fastEnd, idx(0));
  }

  // for each chunk s: inner = 0; for each K block of the chunk: inner +=
  // A_kb B_kb; outer += inner. The fragments of the next k step travel
  // through both loops.
  SmallVector<Value> splitInit(numRegOuter, outerZero);
  splitInit.append(frags);
  // Only non-empty chunks: with more splits than K blocks the last ones
  // are empty, and each chunk below ends with its last tile peeled.
  // (With K = 0 a chunk has 0 blocks: no chunks, no division by zero.)
  Value numChunks = arith::CeilDivSIOp::create(
      b, numKBlocks, maxI(geometry.blocksPerSplit, idx(1)));
  auto splitLoop = scf::ForOp::create(b, idx(0), numChunks, idx(1), splitInit);
  {
    OpBuilder::InsertionGuard guard(b);
    // Without iter_args (every outer sum in shared memory, no prefetched
    // fragments) the builder has already added the loop's scf.yield; the
    // one below replaces it.
    if (splitInit.empty())
      splitLoop.getBody()->getTerminator()->erase();
    b.setInsertionPointToStart(splitLoop.getBody());
    ValueRange iter = splitLoop.getRegionIterArgs();
    SmallVector<Value> outer(iter.take_front(numRegOuter));
    Value kbStart = mul(splitLoop.getInductionVar(), geometry.blocksPerSplit);
    Value kbLast =
        sub(minI(add(kbStart, geometry.blocksPerSplit), numKBlocks), idx(1));
    SmallVector<Value> blockInit(numFrags, innerZero);
    blockInit.append(iter.begin() + numRegOuter, iter.end());
    // Iterations whose refill tile lies wholly inside K (and, for B in kn,
    // blocks inside N) issue plain copies; the last stages - 1 iterations
    // of the K loop, and edge blocks, the guarded ones. Two loops rather
    // than a branch per tile: ptxas if-converts such a branch and then
    // issues both kinds of copies.
    Value fastMid = kbStart;
    if (c.asyncCopies) {
      fastMid = maxI(minI(fastEnd, kbLast), kbStart);
      auto fastLoop =
          emitBlockLoop(kbStart, fastMid, blockInit, /*full=*/true);
      blockInit.assign(fastLoop.getResults().begin(),
                       fastLoop.getResults().end());
    }
    auto blockLoop = emitBlockLoop(fastMid, kbLast, blockInit, /*full=*/false);
    // The chunk's last tile, then its f16 sums go into the outer sums. In
    // one basic block with that tile's mma.sync, ptxas interleaves the
    // conversions and adds with them instead of stalling the warp on a
    // long run of adds after the loop.
    SmallVector<Value> inner(blockLoop.getResults().take_front(numFrags));
    SmallVector<Value> cur(blockLoop.getResults().drop_front(numFrags));
    // Its refill is a whole tile in every chunk but the last ones: plain
    // copies then, behind a branch that ptxas keeps (each side is a block
    // of copies).
    emitTile(kbLast, inner, cur, /*full=*/false,
             c.asyncCopies ? lt(kbLast, fastEnd) : Value());
    SmallVector<Value> yielded;
    auto outerAt = [&](int64_t i) {
      return i < numShared ? loadSlot(i) : outer[i - numShared];
    };
    auto setOuter = [&](int64_t i, Value v) {
      if (i < numShared)
        storeSlot(i, v);
      else
        yielded.push_back(v);
    };
    if (c.mmaHandover) {
      // An n8 tile's f16 sums are, register for register, the A fragment
      // of an m16 x k8 tile; times the 8 x 8 identity (m16n8k8, products
      // by 1 and 0 are exact) they add into its f32 outer sums.
      for (int64_t i = 0; i < numFrags; ++i)
        setOuter(i, nvgpu::MmaSyncOp::create(b, inner[i], identity,
                                             outerAt(i),
                                             ArrayRef<int64_t>{16, 8, 8}));
    } else {
      for (int64_t i = 0; i < numFrags; ++i) {
        Value widened = inner[i];
        if (!outerElt.isF16())
          widened = arith::ExtFOp::create(b, outerType, widened);
        setOuter(i, arith::AddFOp::create(b, outerAt(i), widened));
      }
    }
    yielded.append(cur);
    scf::YieldOp::create(b, yielded);
  }
  // No copy may still be writing shared memory when the block exits.
  nvgpu::DeviceAsyncWaitOp::create(b, token, b.getI32IntegerAttr(0));

  SmallVector<Value> finalOuter;
  for (int64_t i = 0; i < numShared; ++i)
    finalOuter.push_back(loadSlot(i));
  llvm::append_range(finalOuter, splitLoop.getResults().take_front(numRegOuter));
  emitEpilogue(finalOuter);
  gpu::ReturnOp::create(b);
}

/// The address of a memref's first element (its offset applied), as the
/// global pointer a Triton-ABI kernel takes.
Value pointerOf(ImplicitLocOpBuilder &b, Value memref) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, memref);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, meta.getBaseBuffer());
  int64_t eltBytes =
      cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8;
  Value offsetBytes = arith::MulIOp::create(
      b, meta.getOffset(), arith::ConstantIndexOp::create(b, eltBytes));
  Type i64 = b.getI64Type();
  Value addr = arith::IndexCastOp::create(
      b, i64, arith::AddIOp::create(b, base, offsetBytes));
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), kGlobalSpace);
  return LLVM::IntToPtrOp::create(b, ptrType, addr);
}

struct ConvertGPUPoorToNVGPUPass
    : gpupoor::impl::ConvertGPUPoorToNVGPUBase<ConvertGPUPoorToNVGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpupoor::MatmulOp> ops;
    module.walk([&](gpupoor::MatmulOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    if (mmaHandover != "auto" && mmaHandover != "true" &&
        mmaHandover != "false") {
      module.emitError() << "convert-gpupoor-to-nvgpu: mma-handover must be "
                            "auto, true or false, got '"
                         << mmaHandover << "'";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    SymbolTable symbols(module);
    int counter = 0;
    for (gpupoor::MatmulOp op : ops)
      if (failed(lower(op, symbols, counter++)))
        return signalPassFailure();
  }

  LogicalResult lower(gpupoor::MatmulOp op, SymbolTable &symbols, int id) {
    if (op.hasTensorSemantics())
      return op.emitOpError("has tensor operands; bufferize before "
                            "convert-gpupoor-to-nvgpu");
    SplitKAttr strategy = op.getStrategy();
    if (strategy.getChip() == Chip::SM90a)
      return op.emitOpError("the sm_90a (wgmma) kernel is not implemented "
                            "yet; use chip sm_90 for mma.sync");
    KernelConfig config;
    config.bm = strategy.getTileM();
    config.bn = strategy.getTileN();
    config.bk = strategy.getTileK();
    // Measured on an H100 (docs/GPU.md): 64 x 64 warp tiles of 2 x 2 warps
    // (128 threads, two blocks an SM) are fastest. Their accumulators fit
    // in 255 registers next to double-buffered fragments with f16 outer
    // sums (64 + 64 registers); with f32 outer sums (64 + 128) only when
    // half of the outer sums live in shared memory. Where two such blocks
    // do not fit the SM's shared memory (f32 outer sums on sm_80..sm_89,
    // 4 stages on sm_86/sm_89), 4 warps an SM would be too few to hide
    // latency: 2 x 4 warps of 64 x 32 instead (chosen, not measured, on
    // those chips). Element-wise copies need the registers of the 64 x 32
    // tile.
    config.outerType = strategy.getOuter();
    // 0: four stages of BK = 32 (5% faster than three on an H200); three of
    // BK = 64, which already hold as many K elements and leave room for the
    // f32 outer sums of a 256 x 128 tile.
    config.stages = stages ? stages : (config.bk >= 64 ? 3 : 4);
    auto autoSharedRows = [&] {
      return !config.outerType.isF16() && config.warpN() >= 64
                 ? config.mTiles() / 2
                 : 0;
    };
    // Tiles of eight 64 x 64 warp tiles (256 x 128, the split-k pass's
    // choice for large static shapes on sm_90) take eight warps, one block
    // an SM, as measured.
    bool eightWarps = asyncCopies && config.bm % 64 == 0 &&
                      config.bn % 64 == 0 &&
                      (config.bm / 64) * (config.bn / 64) == 8;
    config.warpsM = warpsM ? warpsM : (eightWarps ? config.bm / 64 : 2);
    config.warpsN =
        warpsN ? warpsN : (eightWarps ? config.bn / 64 : (asyncCopies ? 2 : 4));
    config.sharedOuterRows =
        sharedOuterRows >= 0 ? sharedOuterRows : autoSharedRows();
    if (!warpsN && !eightWarps && asyncCopies && config.bm % 32 == 0 &&
        config.bn % 32 == 0 &&
        2 * (config.sharedBytes() + kReservedSharedPerBlock) >
            sharedPerSM(strategy.getChip())) {
      config.warpsN = 4;
      config.sharedOuterRows =
          sharedOuterRows >= 0 ? sharedOuterRows : autoSharedRows();
    }
    config.groupM = groupM;
    config.bTransposed = strategy.getBLayout() == BLayout::NK;
    config.hasBias = static_cast<bool>(op.getBias());
    config.biasType =
        config.hasBias ? getElementTypeOrSelf(op.getBias().getType()) : Type();
    config.cType = op.getInitType().getElementType();
    config.epilogue = strategy.getEpilogue();
    config.strategy = strategy;
    config.asyncCopies = asyncCopies;
    config.fragmentPrefetch = fragmentPrefetch;
    config.sharedEpilogue = sharedEpilogue;
    // Only f32 outer sums have a handover to move. auto: on the tensor cores
    // for eight 64 x 64 warps, where it measured 3-5% faster (docs/GPU.md);
    // with 2 x 2 warps it was no faster.
    config.mmaHandover =
        !config.outerType.isF16() &&
        (mmaHandover == "true" ||
         (mmaHandover == "auto" && config.warpsM * config.warpsN == 8 &&
          config.warpM() == 64 && config.warpN() == 64));
    config.indexBitwidth = indexBitwidth;
    if (failed(checkConfig(config, [&] { return op.emitOpError(); })))
      return failure();

    MLIRContext *ctx = op.getContext();
    ModuleOp module = getOperation();
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    std::string name = "gpupoor_matmul_" + std::to_string(id);
    auto gpuModule =
        gpu::GPUModuleOp::create(mb, op.getLoc(), name + "_module");
    symbols.insert(gpuModule);

    Type ptr = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
    Type i32 = IntegerType::get(ctx, 32);
    SmallVector<Type> argTypes = {ptr, ptr, ptr, ptr};
    argTypes.append(9, i32);
    OpBuilder gb = OpBuilder::atBlockBegin(gpuModule.getBody());
    auto func = gpu::GPUFuncOp::create(gb, op.getLoc(), name,
                                       FunctionType::get(ctx, argTypes, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
    func.setKnownBlockSizeAttr(
        DenseI32ArrayAttr::get(ctx, {int32_t(config.threads()), 1, 1}));
    static constexpr StringLiteral argNames[] = {
        "a_ptr",     "b_ptr",     "c_ptr",     "bias_ptr",  "M",
        "N",         "K",         "stride_am", "stride_ak", "stride_bk",
        "stride_bn", "stride_cm", "stride_cn"};
    for (auto [i, argName] : llvm::enumerate(argNames))
      func.setArgAttr(i, "gpupoor.name", StringAttr::get(ctx, argName));
    KernelBuilder(config, func).build();

    // Host side: the launch, with the Triton-ABI arguments. A batched
    // matmul launches the same kernel once per batch element, on rank-2
    // slices of A, B and C (the bias is shared): the kernel keeps the
    // Triton ABI, and each launch fills the GPU when M x N does.
    ImplicitLocOpBuilder b(op.getLoc(), op);
    Value aMem = op.getA(), bMem = op.getB(), cMem = op.getInit();
    if (op.isBatched()) {
      Value zero = arith::ConstantIndexOp::create(b, 0);
      Value one = arith::ConstantIndexOp::create(b, 1);
      auto loop = scf::ForOp::create(
          b, zero, memref::DimOp::create(b, aMem, 0), one);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      auto slice = [&](Value memref) -> Value {
        auto type = cast<MemRefType>(memref.getType());
        SmallVector<OpFoldResult> sizes =
            memref::getMixedSizes(b, b.getLoc(), memref);
        sizes[0] = b.getIndexAttr(1);
        SmallVector<OpFoldResult> offsets = {loop.getInductionVar(),
                                             b.getIndexAttr(0),
                                             b.getIndexAttr(0)};
        SmallVector<OpFoldResult> unit(3, b.getIndexAttr(1));
        SmallVector<int64_t> shape = {type.getDimSize(1), type.getDimSize(2)};
        auto sliceType = memref::SubViewOp::inferRankReducedResultType(
            shape, type, offsets, sizes, unit);
        return memref::SubViewOp::create(b, sliceType, memref, offsets, sizes,
                                         unit);
      };
      aMem = slice(aMem);
      bMem = slice(bMem);
      cMem = slice(cMem);
    }
    auto i32Of = [&](Value v) {
      return arith::IndexCastOp::create(b, i32, v).getResult();
    };
    auto strides = [&](Value memref) {
      auto meta = memref::ExtractStridedMetadataOp::create(b, memref);
      return std::make_pair(i32Of(meta.getStrides()[0]),
                            i32Of(meta.getStrides()[1]));
    };
    Value c1 = arith::ConstantIndexOp::create(b, 1);
    Value m = memref::DimOp::create(b, aMem, 0);
    Value kDim = memref::DimOp::create(b, aMem, 1);
    Value n = memref::DimOp::create(b, cMem, 1);
    auto [am, ak] = strides(aMem);
    auto [b0, b1] = strides(bMem);
    Value bk = config.bTransposed ? b1 : b0;
    Value bn = config.bTransposed ? b0 : b1;
    auto [cm, cn] = strides(cMem);
    Value biasPtr = op.getBias() ? pointerOf(b, op.getBias())
                                 : LLVM::ZeroOp::create(b, ptr).getResult();
    SmallVector<Value> args = {pointerOf(b, aMem),
                               pointerOf(b, bMem),
                               pointerOf(b, cMem),
                               biasPtr,
                               i32Of(m),
                               i32Of(n),
                               i32Of(kDim),
                               am,
                               ak,
                               bk,
                               bn,
                               cm,
                               cn};
    Value gridM = arith::CeilDivSIOp::create(
        b, m, arith::ConstantIndexOp::create(b, config.bm));
    Value gridN = arith::CeilDivSIOp::create(
        b, n, arith::ConstantIndexOp::create(b, config.bn));
    Value grid = arith::MulIOp::create(b, gridM, gridN);
    Value threads = arith::ConstantIndexOp::create(b, config.threads());
    Value smem = arith::ConstantIntOp::create(b, i32, config.sharedBytes());
    auto launch =
        gpu::LaunchFuncOp::create(b, func, gpu::KernelDim3{grid, c1, c1},
                                  gpu::KernelDim3{threads, c1, c1}, smem, args);
    // What a launcher outside MLIR needs (gpupoor-dump-kernels writes it).
    SmallVector<Attribute> params;
    for (StringRef argName : argNames)
      params.push_back(StringAttr::get(ctx, argName));
    std::string outer, cElt, bias;
    llvm::raw_string_ostream(outer) << config.outerType;
    llvm::raw_string_ostream(cElt) << config.cType;
    if (config.hasBias)
      llvm::raw_string_ostream(bias) << config.biasType;
    NamedAttrList info;
    info.append("params", ArrayAttr::get(ctx, params));
    info.append("block_size", b.getI64IntegerAttr(config.threads()));
    info.append("grid", b.getStringAttr("ceil(M/BM)*ceil(N/BN)"));
    // A batched matmul: one launch per batch element.
    info.append("batched", b.getBoolAttr(op.isBatched()));
    info.append("dynamic_shared_memory",
                b.getI64IntegerAttr(config.sharedBytes()));
    info.append("chip", b.getStringAttr(stringifyChip(strategy.getChip())));
    info.append("tile", b.getI64ArrayAttr({config.bm, config.bn, config.bk}));
    info.append("stages", b.getI64IntegerAttr(config.stages));
    info.append("splits",
                strategy.getSplits()
                    ? Attribute(b.getI64IntegerAttr(*strategy.getSplits()))
                    : Attribute(b.getStringAttr("default")));
    info.append("max_splits", b.getI64IntegerAttr(strategy.getMaxSplits()));
    info.append("outer", b.getStringAttr(outer));
    info.append("c_type", b.getStringAttr(cElt));
    info.append("bias", b.getStringAttr(config.hasBias ? bias : "none"));
    info.append("epilogue",
                b.getStringAttr(stringifyEpilogue(strategy.getEpilogue())));
    info.append("b_layout",
                b.getStringAttr(stringifyBLayout(strategy.getBLayout())));
    std::string requires_ =
        config.asyncCopies
            ? "stride_ak == 1, " +
                  std::string(config.bTransposed ? "stride_bk" : "stride_bn") +
                  " == 1, A/B rows and pointers 16-byte aligned"
            : "";
    if (indexBitwidth == 32)
      requires_ += std::string(requires_.empty() ? "" : ", ") +
                   "every element offset below 2^31";
    if (requires_.empty())
      requires_ = "none";
    info.append("requires", b.getStringAttr(requires_));
    info.append("async_copies", b.getBoolAttr(config.asyncCopies));
    info.append("warps", b.getI64ArrayAttr({config.warpsM, config.warpsN}));
    info.append("shared_outer_rows",
                b.getI64IntegerAttr(config.sharedOuterRows));
    info.append("shared_epilogue", b.getBoolAttr(config.epiloguePasses() > 0));
    info.append("mma_handover", b.getBoolAttr(config.mmaHandover));
    info.append("index_bitwidth", b.getI64IntegerAttr(indexBitwidth));
    launch->setAttr("gpupoor.kernel", info.getDictionary(ctx));
    op.erase();
    return success();
  }
};

} // namespace
