//===- HostLaunch.cpp - host code that launches a gpupoor kernel ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/HostLaunch.h"

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"
#include "gpupoor/Conversion/GPUKernel/OperandChecksIR.h"
#include "gpupoor/Conversion/SplitKUtils.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelRequirements.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// The address of a memref's first element (its offset applied) plus
/// `extra` elements (null: none), as the global pointer a Triton-ABI kernel
/// takes.
static Value pointerOf(ImplicitLocOpBuilder &b, Value memref,
                       Value extra = {}) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, memref);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, meta.getBaseBuffer());
  int64_t eltBytes =
      cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8;
  Value offset = meta.getOffset();
  if (extra)
    offset = arith::AddIOp::create(b, offset, extra);
  Value offsetBytes = arith::MulIOp::create(
      b, offset, arith::ConstantIndexOp::create(b, eltBytes));
  Type i64 = b.getI64Type();
  Value addr = arith::IndexCastOp::create(
      b, i64, arith::AddIOp::create(b, base, offsetBytes));
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), kGlobalSpace);
  return LLVM::IntToPtrOp::create(b, ptrType, addr);
}

/// The rank-2 views of batch element 0 of A, B and C (their sizes and
/// strides are every element's; with an empty batch nothing reads them).
static std::array<Value, 3> firstBatchElement(ImplicitLocOpBuilder &b,
                                              MatmulOp op) {
  // A reinterpret_cast at the operand's own offset and strides, not a
  // subview: with a static size of 0 (the batch, M, N or K) a subview at
  // offset 0 fails its verifier, though the host code launches nothing then.
  auto slice = [&](Value memref) -> Value {
    auto type = cast<MemRefType>(memref.getType());
    auto meta = memref::ExtractStridedMetadataOp::create(b, memref);
    auto [strides, offset] = type.getStridesAndOffset();
    auto mixed = [&](int64_t known, Value value) -> OpFoldResult {
      if (ShapedType::isDynamic(known))
        return value;
      return b.getIndexAttr(known);
    };
    SmallVector<OpFoldResult> sizes = {
        mixed(type.getDimSize(1), meta.getSizes()[1]),
        mixed(type.getDimSize(2), meta.getSizes()[2])};
    SmallVector<OpFoldResult> rowStrides = {
        mixed(strides[1], meta.getStrides()[1]),
        mixed(strides[2], meta.getStrides()[2])};
    auto layout = StridedLayoutAttr::get(b.getContext(), offset,
                                         {strides[1], strides[2]});
    auto viewType =
        MemRefType::get({type.getDimSize(1), type.getDimSize(2)},
                        type.getElementType(), layout, type.getMemorySpace());
    return memref::ReinterpretCastOp::create(b, viewType, memref,
                                             mixed(offset, meta.getOffset()),
                                             sizes, rowStrides);
  };
  return {slice(op.getA()), slice(op.getB()), slice(op.getInit())};
}

namespace {

/// What the host knows of one launch's operands: rank-2 views of A, B and
/// C, their sizes and strides (index) and pointers.
struct LaunchOperands {
  Value a, b, c;
  Value m, n, k;
  Value am, ak, b0, b1, cm, cn;
  Value aPtr, bPtr, cPtr;
  /// Batched: the batch count and A's, B's and C's batch strides.
  Value batch, ab, bb, cb;
  /// Each epilogue operand's pointer and its element strides along C's
  /// rows and columns (and batch).
  SmallVector<Value> inPtrs, inStridesM, inStridesN, inStridesB;
};

/// The element strides of epilogue operand `in` along each of C's
/// dimensions (b, m, n or m, n): its stride in the dimension `map` sends
/// that one to, 0 where it broadcasts.
SmallVector<Value> loopStrides(ImplicitLocOpBuilder &b, Value in,
                               AffineMap map) {
  SmallVector<Value> strides(map.getNumDims(),
                             arith::ConstantIndexOp::create(b, 0));
  auto meta = memref::ExtractStridedMetadataOp::create(b, in);
  for (auto [r, e] : llvm::enumerate(map.getResults()))
    strides[cast<AffineDimExpr>(e).getPosition()] = meta.getStrides()[r];
  return strides;
}

LaunchOperands readOperands(ImplicitLocOpBuilder &b, MatmulOp op) {
  Value aMem = op.getA(), bMem = op.getB(), cMem = op.getInit();
  LaunchOperands o;
  if (op.isBatched()) {
    auto batchStride = [&](Value memref) {
      return memref::ExtractStridedMetadataOp::create(b, memref)
          .getStrides()[0];
    };
    o.batch = memref::DimOp::create(b, aMem, 0);
    o.ab = batchStride(aMem);
    o.bb = batchStride(bMem);
    o.cb = batchStride(cMem);
    std::tie(aMem, bMem, cMem) =
        std::apply([](auto... v) { return std::make_tuple(v...); },
                   firstBatchElement(b, op));
  } else {
    o.batch = arith::ConstantIndexOp::create(b, 1);
  }
  o.a = aMem;
  o.b = bMem;
  o.c = cMem;
  auto strides = [&](Value memref) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, memref);
    return std::make_pair(meta.getStrides()[0], meta.getStrides()[1]);
  };
  // A stored K x M is read through its strides: A[m][k] at m * am + k * ak
  // (unit ak is then rare, and the element-copy kernel runs).
  bool aTransposed = op.getStrategy().isATransposed();
  o.m = memref::DimOp::create(b, aMem, aTransposed ? 1 : 0);
  o.k = memref::DimOp::create(b, aMem, aTransposed ? 0 : 1);
  o.n = memref::DimOp::create(b, cMem, 1);
  std::tie(o.am, o.ak) = strides(aMem);
  if (aTransposed)
    std::swap(o.am, o.ak);
  std::tie(o.b0, o.b1) = strides(bMem);
  std::tie(o.cm, o.cn) = strides(cMem);
  o.aPtr = pointerOf(b, aMem);
  o.bPtr = pointerOf(b, bMem);
  o.cPtr = pointerOf(b, cMem);
  for (auto [in, map] :
       llvm::zip_equal(op.getEpilogueIns(),
                       op.getEpilogueMaps().getAsValueRange<AffineMapAttr>())) {
    SmallVector<Value> strides = loopStrides(b, in, map);
    o.inPtrs.push_back(pointerOf(b, in));
    o.inStridesM.push_back(strides[strides.size() - 2]);
    o.inStridesN.push_back(strides.back());
    if (op.isBatched())
      o.inStridesB.push_back(strides.front());
  }
  return o;
}

/// The launch's values by ABI parameter name (policy::OperandChecks'),
/// for a kernel of `spec`.
Value launchValue(const KernelSpec &spec, const LaunchOperands &o,
                  StringRef name) {
  // B's rows are b0 apart: N of them as N x K, K as K x N.
  Value bk = spec.bTransposed ? o.b1 : o.b0;
  Value bn = spec.bTransposed ? o.b0 : o.b1;
  Value v = llvm::StringSwitch<Value>(name)
                .Case("M", o.m)
                .Case("N", o.n)
                .Case("K", o.k)
                .Case("batch", o.batch)
                .Case("a_ptr", o.aPtr)
                .Case("b_ptr", o.bPtr)
                .Case("c_ptr", o.cPtr)
                .Case("stride_am", o.am)
                .Case("stride_ak", o.ak)
                .Case("stride_bk", bk)
                .Case("stride_bn", bn)
                .Case("stride_cm", o.cm)
                .Case("stride_cn", o.cn)
                .Case("stride_ab", o.ab)
                .Case("stride_bb", o.bb)
                .Case("stride_cb", o.cb)
                .Default(Value());
  // An epilogue operand's strides: stride_in<i>m, stride_in<i>n.
  unsigned i;
  if (!v && name.consume_front("stride_in") && !name.consumeInteger(10, i) &&
      i < o.inPtrs.size())
    v = name == "m" ? o.inStridesM[i] : name == "n" ? o.inStridesN[i] : Value();
  assert(v && "a check names a parameter the host code does not read");
  return v;
}

/// i1: the requirements of `spec`'s copies hold (policy::requiredChecks,
/// as the manifest lists them): the cp.async kernel's (`tma` false: unit
/// inner strides of A and B, 16-byte rows and pointers) or its tensor
/// maps' (rows stepping forward). The bounds are checked apart.
Value emitCopyChecksHold(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                         const LaunchOperands &o, bool tma) {
  policy::KernelTraits traits = spec.traits();
  traits.asyncCopies = !tma;
  traits.tmaCopies = tma;
  traits.persistent = false;
  traits.indexBitwidth = 64;
  return emitChecksHold(b, policy::requiredChecks(traits), [&](StringRef name) {
    return launchValue(spec, o, name);
  });
}

/// i1: C's tensor map describes C for the TMA store epilogue
/// (policy::cTensorMapChecks, which the kernel checks too).
Value emitTmaStoresHold(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                        const LaunchOperands &o) {
  return emitChecksHold(
      b, policy::cTensorMapChecks(spec.batched),
      [&](StringRef name) { return launchValue(spec, o, name); });
}

/// The launch's grid: T C tiles of every batch element along x (1 <= T <
/// 2^31, asserted), P' slices along y; and S where the kernel takes it
/// (KernelSpec::takesSplits), the one the slices were counted with.
struct SliceLaunch {
  Value tiles, slices, splits;
};

SliceLaunch emitGrid(ImplicitLocOpBuilder &b, MatmulOp op,
                     const LaunchOperands &o, const KernelSpec &spec) {
  SplitKAttr strategy = op.getStrategy();
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  // Clusters of two along M take whole pairs of row tiles: an odd last
  // row's partner loads its half of B and stores nothing.
  Value tiles =
      spec.clusterM == 1
          ? emitTileCount(b, strategy, o.m, o.n, Value())
          : emitTileCount(
                b, strategy,
                arith::MulIOp::create(
                    b,
                    arith::CeilDivSIOp::create(
                        b, o.m, cst(strategy.getTileM() * spec.clusterM)),
                    cst(strategy.getTileM() * spec.clusterM)),
                o.n, Value());
  if (op.isBatched()) {
    // ceil(M/BM) and ceil(N/BN) are below 2^62 each: a product past
    // 2^31 - 1 per factor is caught before the next multiplication.
    Value fits =
        compareConst(b, arith::CmpIPredicate::sle, tiles, kMax32BitOffset);
    tiles = arith::MulIOp::create(b, tiles, o.batch);
    fits = arith::AndIOp::create(
        b, fits,
        compareConst(b, arith::CmpIPredicate::sle, o.batch, kMax32BitOffset));
    fits = arith::AndIOp::create(
        b, fits,
        compareConst(b, arith::CmpIPredicate::sle, tiles, kMax32BitOffset));
    cf::AssertOp::create(b, fits,
                         "gpupoor.matmul: batch * ceil(M/BM) * ceil(N/BN) "
                         "blocks exceed the grid (2^31 - 1)");
  }
  Value slices = cst(1), splits;
  if (spec.parallel() || spec.takesSplits())
    splits = emitSplitGeometry(b, o.k, strategy).splits;
  // P' counts the product's tiles, whatever the clusters, as the policy
  // does (policy::launchSlices of CShape::tiles).
  if (spec.parallel())
    slices = emitSliceCount(
        b, strategy,
        spec.clusterM == 1 ? tiles
                           : emitTileCount(b, strategy, o.m, o.n,
                                           op.isBatched() ? o.batch : Value()),
        splits, o.k);
  return {tiles, slices, splits};
}

/// i1: `spec`'s 32-bit bounds (policy::kernelBounds) that the types of
/// `op` leave open hold for this launch; none where the types prove all.
/// sum_slots is T P' where P' > 1, with T taken as at most 2^31 (which
/// already breaks the bound) so that the product cannot wrap.
Value emitBoundsFit32Bits(ImplicitLocOpBuilder &b, MatmulOp op,
                          const KernelSpec &spec, const LaunchOperands &o,
                          const SliceLaunch &slice) {
  SmallVector<policy::Bound> open;
  for (const policy::Bound &bound :
       policy::kernelBounds(policy::requiredChecks(spec.traits()),
                            spec.checkedKernel(), o.inPtrs.size()))
    if (boundHoldsStatically(op, bound) != std::optional<bool>(true))
      open.push_back(bound);
  if (open.empty())
    return Value();
  return emitBoundsHold(b, open, [&](StringRef name) -> Value {
    if (name != "sum_slots")
      return launchValue(spec, o, name);
    auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
    Value tiles = arith::MinSIOp::create(b, slice.tiles, cst(int64_t(1) << 31));
    Value slots = arith::MulIOp::create(b, tiles, slice.slices);
    Value sliced = compareConst(b, arith::CmpIPredicate::sgt, slice.slices, 1);
    return arith::SelectOp::create(b, sliced, slots, cst(0));
  });
}

/// The runtime's function `name`, declared in `op`'s module: ptr(i64).
static LLVM::LLVMFuncOp runtimeFunction(ImplicitLocOpBuilder &b, Operation *op,
                                        StringRef name) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  MLIRContext *ctx = b.getContext();
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMPointerType::get(ctx),
                                          {b.getI64Type()});
  auto f = LLVM::LLVMFuncOp::create(b, name, type);
  f.setPrivate();
  return f;
}

/// The workspace of a launch: `slots` tiles' sums (KernelSpec) and `locks`
/// zeroed counters where `needed`, else neither (null pointers, sizes 0). A
/// parallel launch with P' > 1 takes T x P' slots and T counters, a
/// stream-K one G of each (StreamK.h). Both come from the runtime's buffers
/// of the calling thread (gpupoorSliceSums, gpupoorSliceCounters), kept
/// between calls and zeroed once, every launch leaving its counters zero:
/// an allocation, a fill kernel and a free a call cost more than a small
/// product (the PyTorch package's launcher keeps its buffers so too).
/// Appends their pointers and sizes to `args`.
void emitWorkspace(ImplicitLocOpBuilder &b, Operation *op,
                   const KernelSpec &spec, Value needed, Value slots,
                   Value locks, SmallVector<Value> &args) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  auto i64 = [&](Value v) {
    return arith::IndexCastOp::create(b, b.getI64Type(), v).getResult();
  };
  Value sumBytes = arith::MulIOp::create(b, slots, cst(spec.sliceSumBytes()));
  sumBytes = i64(arith::SelectOp::create(b, needed, sumBytes, cst(0)));
  Value lockCount = i64(arith::SelectOp::create(b, needed, locks, cst(0)));
  auto global = LLVM::LLVMPointerType::get(b.getContext(), kGlobalSpace);
  auto call = [&](StringRef name, Value size) {
    Value p =
        LLVM::CallOp::create(b, runtimeFunction(b, op, name), size).getResult();
    return LLVM::AddrSpaceCastOp::create(b, global, p).getResult();
  };
  args.append({call("gpupoorSliceSums", sumBytes), sumBytes,
               call("gpupoorSliceCounters", lockCount), lockCount});
}

/// The runtime's tensor-map encoder (libgpupoor_cuda_runtime), declared in
/// `op`'s module: gpupoorTensorMapEncodeTiled (map, address; inner dimension,
/// rows, row stride, box columns, box rows, L2 promotion bytes; the
/// swizzle spans a box row), or for a batched
/// kernel's maps gpupoorTensorMapEncodeTiledBatched (two more i64: batch count
/// and stride).
LLVM::LLVMFuncOp tensorMapEncoder(ImplicitLocOpBuilder &b, Operation *op,
                                  bool batched) {
  auto module = op->getParentOfType<ModuleOp>();
  StringRef name = batched ? "gpupoorTensorMapEncodeTiledBatched"
                           : "gpupoorTensorMapEncodeTiled";
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  SmallVector<Type> params = {ptr, ptr, i64, i64, i64, i64, i64, i64};
  if (batched)
    params.append({i64, i64});
  auto type =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params);
  auto f = LLVM::LLVMFuncOp::create(b, name, type);
  f.setPrivate();
  return f;
}

/// The tensor maps of A and B for the TMA kernel (and of C where it stores
/// by TMA), in 128-byte host buffers (allocated once, at the function's
/// entry: a launch in a loop reuses them); their pointers, which the launch
/// passes by value once the kernel is a binary
/// (gpupoor-tensor-maps-by-value). The runtime's encoder writes f16 maps of
/// boxes 64 elements wide (B's narrow tile as K x N: its 8, 16 or 32), A's and
/// B's atoms; a batched kernel's maps have the batch as a third dimension.
SmallVector<Value> emitTensorMaps(ImplicitLocOpBuilder &b, MatmulOp op,
                                  const KernelSpec &spec,
                                  const LaunchOperands &o) {
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Value> maps;
  {
    OpBuilder::InsertionGuard guard(b);
    auto func = op->getParentOfType<FunctionOpInterface>();
    b.setInsertionPointToStart(&func.getFunctionBody().front());
    Value one = LLVM::ConstantOp::create(b, b.getI64Type(), 1);
    for (int i = 0; i < (spec.tmaStores() ? 3 : 2); ++i)
      maps.push_back(LLVM::AllocaOp::create(b, ptr, tensorMapType(ctx), one,
                                            kTensorMapAlign));
  }
  LLVM::LLVMFuncOp encode = tensorMapEncoder(b, op, spec.batched);
  auto i64 = [&](Value v) {
    return arith::IndexCastOp::create(b, b.getI64Type(), v).getResult();
  };
  auto generic = [&](Value p) {
    return LLVM::AddrSpaceCastOp::create(b, ptr, p).getResult();
  };
  auto cst = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, b.getI64Type(), v).getResult();
  };
  // Map `map` of `rows` x `inner` at `p`, and the batch where the kernel
  // is batched.
  auto emitEncode = [&](Value map, Value p, Value inner, Value rows,
                        Value rowStride, int64_t boxRows, Value batchStride,
                        int64_t l2PromotionBytes,
                        int64_t boxInner = KernelSpec::kSwizzleCols) {
    SmallVector<Value> args = {map,
                               generic(p),
                               i64(inner),
                               i64(rows),
                               i64(rowStride),
                               cst(boxInner),
                               cst(boxRows),
                               cst(l2PromotionBytes)};
    if (spec.batched)
      args.append({i64(o.batch), i64(batchStride)});
    LLVM::CallOp::create(b, encode, args);
  };
  // A's rows: M of K as M x K; K of M as K x M (read along M); in boxes of
  // KernelSpec::aBoxRows.
  bool aM = spec.aMMajor();
  emitEncode(maps[0], o.aPtr, aM ? o.m : o.k, aM ? o.k : o.m, aM ? o.ak : o.am,
             spec.aBoxRows(), o.ab, spec.aL2PromotionBytes());
  // B's rows, b0 apart: N of K as N x K; K of N as K x N (its tile's
  // N-major atoms); in boxes of bBoxRows x bAtomCols.
  bool bK = spec.bTransposed;
  emitEncode(maps[1], o.bPtr, bK ? o.k : o.n, bK ? o.n : o.k, o.b0,
             spec.bBoxRows(), o.bb, spec.bL2PromotionBytes(), spec.bAtomCols());
  // C as M rows of N, stored in boxes of 64 columns by a warp's rows, where
  // a tensor map describes C; else the kernel stores from its lanes (it
  // checks the same conditions) and the map's bytes are zeros.
  if (spec.tmaStores()) {
    LLVM::StoreOp::create(b, LLVM::ZeroOp::create(b, tensorMapType(ctx)),
                          maps[2], kTensorMapAlign);
    auto ifMap = scf::IfOp::create(b, emitTmaStoresHold(b, spec, o),
                                   /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifMap.thenBlock());
    emitEncode(maps[2], o.cPtr, o.n, o.m, o.cm, spec.warpM(), o.cb,
               KernelSpec::cL2PromotionBytes(), spec.storeBoxCols());
  }
  return maps;
}

/// Launches `v` on `o` with the Triton-ABI arguments (sizes and strides as
/// wide as the kernel's index) on ceil(M/BM) * ceil(N/BN) blocks (times P'
/// along y for a parallel kernel).
void emitLaunch(ImplicitLocOpBuilder &b, MatmulOp op, const KernelVariant &v,
                const LaunchOperands &o, SliceLaunch grid) {
  const KernelSpec &spec = v.spec;
  MLIRContext *ctx = b.getContext();
  Type intType = b.getIntegerType(spec.indexBitwidth);
  auto cast = [&](Value x) {
    return arith::IndexCastOp::create(b, intType, x).getResult();
  };
  Value bk = spec.bTransposed ? o.b1 : o.b0;
  Value bn = spec.bTransposed ? o.b0 : o.b1;
  SmallVector<Value> args = {o.aPtr,    o.bPtr,    o.cPtr,     cast(o.m),
                             cast(o.n), cast(o.k), cast(o.am), cast(o.ak),
                             cast(bk),  cast(bn),  cast(o.cm), cast(o.cn)};
  // Batch strides in i64 whatever the kernel's index: the kernel adds b
  // times them to the pointers in 64 bits; one element's offsets are what
  // a 32-bit kernel indexes.
  auto wide = [&](Value x) {
    return arith::IndexCastOp::create(b, b.getI64Type(), x).getResult();
  };
  if (spec.batched)
    args.append({wide(o.ab), wide(o.bb), wide(o.cb), cast(o.batch)});
  for (auto [i, ptr] : llvm::enumerate(o.inPtrs)) {
    args.append({ptr, cast(o.inStridesM[i]), cast(o.inStridesN[i])});
    if (spec.batched)
      args.push_back(wide(o.inStridesB[i]));
  }
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  // An empty C launches nothing (a grid of 0 blocks is a launch error).
  auto nonEmpty = scf::IfOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, grid.tiles,
                            arith::ConstantIndexOp::create(b, 0)),
      /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(nonEmpty.thenBlock());
  Value threads = arith::ConstantIndexOp::create(b, spec.blockThreads());
  Value smem =
      arith::ConstantIntOp::create(b, b.getI32Type(), spec.sharedBytes());
  // A persistent kernel's blocks loop over the tiles: one an SM (the TMA
  // kernel's register split takes an SM's registers). On a part with
  // fewer SMs than the chip's reference part the grid is merely more
  // than one wave.
  Value gridX = grid.tiles;
  // (Whole clusters: an even SM count, the tiles already whole pairs.)
  if (spec.persistent())
    gridX = arith::MinSIOp::create(
        b, gridX,
        arith::ConstantIndexOp::create(b, getChipInfo(spec.chip).smCount /
                                              spec.clusterM * spec.clusterM));
  if (spec.parallel())
    emitWorkspace(
        b, op, spec, compareConst(b, arith::CmpIPredicate::sgt, grid.slices, 1),
        arith::MulIOp::create(b, grid.tiles, grid.slices), grid.tiles, args);
  else if (spec.streamK())
    // The kernel touches G slots only where T > G (then G < 2^31).
    emitWorkspace(
        b, op, spec,
        arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, grid.tiles, gridX),
        gridX, gridX, args);
  if (spec.tmaCopies)
    args.append(emitTensorMaps(b, op, spec, o));
  // S where the kernel takes it: the strategy's rule, which the grid's
  // slices were counted with.
  if (spec.takesSplits())
    args.push_back(cast(grid.splits));
  auto launch = gpu::LaunchFuncOp::create(
      b, v.func, gpu::KernelDim3{gridX, grid.slices, c1},
      gpu::KernelDim3{threads, c1, c1}, smem, args);
  SmallVector<Attribute> inputs;
  for (Type t : spec.epilogueInputTypes)
    inputs.push_back(TypeAttr::get(t));
  // The region as a launcher reads it, in the manifest.
  std::string epilogue;
  if (Block *block = op.getEpilogueBlock()) {
    llvm::raw_string_ostream os(epilogue);
    AsmState state(op, OpPrintingFlags().useLocalScope());
    block->print(os, state);
  }
  launch->setAttr(
      getKernelAttrName(),
      KernelAttr::get(ctx, spec.strategy, spec.getConfig(ctx), spec.cType,
                      spec.accType, ArrayAttr::get(ctx, inputs),
                      BoolAttr::get(ctx, spec.readsC),
                      StringAttr::get(ctx, epilogue),
                      op.isBatched() ? Launch::Batched : Launch::Single));
  if (op->hasAttr(getSwappedOperandsAttrName()))
    launch->setAttr(getSwappedOperandsAttrName(), UnitAttr::get(ctx));
}

} // namespace

void mlir::gpupoor::emitHostLaunch(MatmulOp op,
                                   ArrayRef<KernelVariant> variants) {
  ImplicitLocOpBuilder b(op.getLoc(), op);
  emitShapeChecks(b, op);
  LaunchOperands o = readOperands(b, op);
  SliceLaunch slice = emitGrid(b, op, o, variants.front().spec);
  // Each requirement the types leave open is checked once.
  Value asyncOk, tmaOk, stepsFit;
  std::optional<Value> fits;
  auto requirement = [&](const KernelSpec &spec) -> Value {
    SmallVector<Value> conds;
    if (spec.asyncCopies) {
      if (!asyncOk)
        asyncOk = emitCopyChecksHold(b, spec, o, /*tma=*/false);
      conds.push_back(asyncOk);
    }
    if (spec.tmaCopies) {
      if (!tmaOk)
        tmaOk = emitCopyChecksHold(b, spec, o, /*tma=*/true);
      conds.push_back(tmaOk);
    }
    // A 32-bit kernel's bounds the types leave open (every 32-bit variant
    // shares the configured tile, group_m and slices).
    if (spec.indexBitwidth == 32) {
      if (!fits)
        fits = emitBoundsFit32Bits(b, op, spec, o, slice);
      if (*fits)
        conds.push_back(*fits);
    }
    // A persistent block steps its work tile by the grid (at most the
    // SMs) in the kernel's 32-bit index: the step past the last tile must
    // not wrap. Elsewhere the next variant (not persistent) runs.
    if (spec.persistent()) {
      if (!stepsFit)
        stepsFit =
            compareConst(b, arith::CmpIPredicate::sle, slice.tiles,
                         *policy::requiredChecks(spec.traits()).maxWorkTiles);
      conds.push_back(stepsFit);
    }
    return conds.empty() ? Value() : allOf(b, conds);
  };
  // The first variant whose requirements hold; the last needs nothing.
  for (const KernelVariant &v : variants) {
    Value cond = requirement(v.spec);
    if (!cond) {
      emitLaunch(b, op, v, o, slice);
      return;
    }
    auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    emitLaunch(b, op, v, o, slice);
    // The rest of the chain goes into the else block.
    b.setInsertionPointToStart(ifOp.elseBlock());
  }
  llvm_unreachable("the last kernel variant must need nothing");
}
