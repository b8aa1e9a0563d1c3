//===- RowCopy.cpp - copies of rows of 2-byte elements in 16-byte words ---===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The copies that matter most to a product are those of its operands into
// rows padded to 16 bytes (gpupoor-split-k's, where K or N is no multiple
// of 8, and the package's). An elementwise kernel (one thread an element,
// upstream's parallel-loop mapping, or torch's copy_) moves them at a
// fraction of the memory's bandwidth: on an H200, 17.6 us for the two
// operands of 327 x 1234 x 4052, the product itself 18.8. The source rows
// start wherever K puts them, so no vector load of a row is aligned; this
// kernel reads the 16-byte words around each destination chunk of 8
// elements instead (aligned, always legal) and shifts the chunk out of
// them (a funnel shift of 32-bit lanes), 9.2 us there. One kernel serves
// the compiler (gpupoor-offload-to-gpu launches it for every row copy) and
// the package (the library's gpupoor_row_copy cubin, from the same
// builder). Neither upstream's vector transfers nor the nvgpu utilities
// read a memref at an address rounded down past its first element, so the
// body is written in the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#include "RowCopy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

/// The kernel's parameters, in order.
enum RowCopyParam {
  Src,
  Dst,
  Batch,
  Rows,
  Cols,
  SrcBatchStride,
  SrcRowStride,
  DstBatchStride,
  DstRowStride,
  SrcEnd,
  NumParams
};

constexpr unsigned kGlobal = 1;

Value i64Const(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIntOp::create(b, b.getI64Type(), v);
}

Value globalPtr(ImplicitLocOpBuilder &b, Value addr) {
  return LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), kGlobal), addr);
}

/// The chunk's 8 elements from the two aligned 16-byte words around them:
/// the words' eight 32-bit lanes `lanes`, the chunk starting `shift`
/// elements into the first.
Value shiftedChunk(ImplicitLocOpBuilder &b, ArrayRef<Value> lanes,
                   Value shift) {
  Type i32 = b.getI32Type();
  Value q = arith::ShRUIOp::create(b, shift, i64Const(b, 1));
  Value odd = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, shift, i64Const(b, 1)), i64Const(b, 0));
  // Lane q + j, by selects: an indexed array would live in local memory.
  auto lane = [&](int64_t j) {
    Value at = arith::AddIOp::create(b, q, i64Const(b, j));
    Value r = lanes[0];
    for (int64_t l = 1; l < 8; ++l)
      r = arith::SelectOp::create(
          b,
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, at,
                                i64Const(b, l)),
          lanes[l], r);
    return r;
  };
  auto vecType = VectorType::get({4}, i32);
  Value out = LLVM::PoisonOp::create(b, vecType);
  Value sixteen = arith::ConstantIntOp::create(b, i32, 16);
  for (int64_t j = 0; j < 4; ++j) {
    Value lo = lane(j), hi = lane(j + 1);
    // (hi:lo) >> 16: lo's upper element, then hi's lower one.
    Value mid = LLVM::FshrOp::create(b, hi, lo, sixteen);
    Value word = arith::SelectOp::create(b, odd, mid, lo);
    out = LLVM::InsertElementOp::create(b, out, word,
                                        LLVM::ConstantOp::create(b, i32, j));
  }
  return out;
}

/// Copies the chunk's 8 elements through the aligned words around them.
void copyByWords(ImplicitLocOpBuilder &b, Value aligned, Value twoWords,
                 Value shift, Value dstAddr) {
  Type i32 = b.getI32Type();
  auto vecType = VectorType::get({4}, i32);
  // Invariant: no thread writes the source (ld.global.nc, through the
  // read-only cache, which serves the word two threads share).
  Value w0 =
      LLVM::LoadOp::create(b, vecType, globalPtr(b, aligned),
                           /*alignment=*/16, /*isVolatile=*/false,
                           /*isNonTemporal=*/false, /*isInvariant=*/true);
  // The second word only where the chunk reaches into it: it may lie past
  // the source's last element otherwise.
  auto second = scf::IfOp::create(
      b, twoWords,
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder ib(loc, ob);
        Value next = arith::AddIOp::create(ib, aligned, i64Const(ib, 16));
        Value w1 = LLVM::LoadOp::create(
            ib, vecType, globalPtr(ib, next), /*alignment=*/16,
            /*isVolatile=*/false, /*isNonTemporal=*/false,
            /*isInvariant=*/true);
        scf::YieldOp::create(ib, w1);
      },
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder ib(loc, ob);
        scf::YieldOp::create(ib, Value(LLVM::ZeroOp::create(ib, vecType)));
      });
  SmallVector<Value> lanes;
  for (Value w : {w0, second.getResult(0)})
    for (int64_t l = 0; l < 4; ++l)
      lanes.push_back(LLVM::ExtractElementOp::create(
          b, w, LLVM::ConstantOp::create(b, i32, l)));
  LLVM::StoreOp::create(b, shiftedChunk(b, lanes, shift), globalPtr(b, dstAddr),
                        /*alignment=*/16);
}

/// Copies `count` elements one at a time.
void copyByElements(ImplicitLocOpBuilder &b, Value srcAddr, Value dstAddr,
                    Value count) {
  Type i16 = b.getI16Type();
  auto loop = scf::ForOp::create(b, i64Const(b, 0), count, i64Const(b, 1));
  ImplicitLocOpBuilder ib(b.getLoc(), loop.getBody(), loop.getBody()->begin());
  Value bytes =
      arith::MulIOp::create(ib, loop.getInductionVar(), i64Const(ib, 2));
  Value v = LLVM::LoadOp::create(
      ib, i16, globalPtr(ib, arith::AddIOp::create(ib, srcAddr, bytes)),
      /*alignment=*/2);
  LLVM::StoreOp::create(
      ib, v, globalPtr(ib, arith::AddIOp::create(ib, dstAddr, bytes)),
      /*alignment=*/2);
}

// shiftedChunk's eight lanes are two 16-byte words: a chunk of 8 elements.
static_assert(kRowCopyChunkElems == 8);

/// Thread `chunk`'s copy.
void buildChunkCopy(ImplicitLocOpBuilder &b, Value chunk, ValueRange p) {
  auto mul = [&](Value x, Value y) { return arith::MulIOp::create(b, x, y); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, x, y); };
  Value c8 = i64Const(b, kRowCopyChunkElems), c2 = i64Const(b, 2);
  Value per = arith::CeilDivUIOp::create(b, p[Cols], c8);
  Value row = arith::DivUIOp::create(b, chunk, per);
  Value col = mul(arith::SubIOp::create(b, chunk, mul(row, per)), c8);
  // The row's first element in source and destination (in elements). One
  // batch (2-D rows, the common copy) skips the division by the rows and
  // the batch strides' products: the copy's threads spend more issue slots
  // than memory time on them.
  auto rowStarts = scf::IfOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, p[Batch],
                            i64Const(b, 1)),
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder ib(loc, ob);
        scf::YieldOp::create(
            ib, ValueRange{arith::MulIOp::create(ib, row, p[SrcRowStride]),
                           arith::MulIOp::create(ib, row, p[DstRowStride])});
      },
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder ib(loc, ob);
        Value batch = arith::DivUIOp::create(ib, row, p[Rows]);
        Value inBatch = arith::SubIOp::create(
            ib, row, arith::MulIOp::create(ib, batch, p[Rows]));
        auto start = [&](Value batchStride, Value rowStride) -> Value {
          return arith::AddIOp::create(
              ib, arith::MulIOp::create(ib, batch, batchStride),
              arith::MulIOp::create(ib, inBatch, rowStride));
        };
        scf::YieldOp::create(
            ib, ValueRange{start(p[SrcBatchStride], p[SrcRowStride]),
                           start(p[DstBatchStride], p[DstRowStride])});
      });
  auto addrOf = [&](Value base, Value rowStart) {
    return add(base, mul(add(rowStart, col), c2));
  };
  Value srcAddr = addrOf(p[Src], rowStarts.getResult(0));
  Value dstAddr = addrOf(p[Dst], rowStarts.getResult(1));
  Value need =
      arith::MinUIOp::create(b, arith::SubIOp::create(b, p[Cols], col), c8);
  Value aligned = arith::AndIOp::create(b, srcAddr, i64Const(b, ~int64_t(15)));
  Value shift = arith::ShRUIOp::create(
      b, arith::AndIOp::create(b, srcAddr, i64Const(b, 15)), i64Const(b, 1));
  Value twoWords =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, add(shift, need), c8);
  Value wordsEnd =
      add(aligned, arith::SelectOp::create(b, twoWords, i64Const(b, 32),
                                           i64Const(b, 16)));
  // 16-byte stores need a destination whose rows start on 16 bytes; whole
  // chunks only (the last of a row stays inside it), and words inside the
  // source's span.
  // (A batch stride counts only where there is more than one batch.)
  Value dstBatchStride = arith::SelectOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, p[Batch],
                            i64Const(b, 1)),
      p[DstBatchStride], i64Const(b, 0));
  Value dstBits = arith::OrIOp::create(
      b, p[Dst],
      mul(arith::OrIOp::create(b, p[DstRowStride], dstBatchStride), c2));
  Value dstAligned = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, dstBits, i64Const(b, 15)), i64Const(b, 0));
  Value whole = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, need, c8);
  Value inSpan =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ule, wordsEnd, p[SrcEnd]);
  Value byWords = arith::AndIOp::create(
      b, dstAligned, arith::AndIOp::create(b, whole, inSpan));
  scf::IfOp::create(
      b, byWords,
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder ib(loc, ob);
        copyByWords(ib, aligned, twoWords, shift, dstAddr);
        scf::YieldOp::create(ib);
      },
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder ib(loc, ob);
        copyByElements(ib, srcAddr, dstAddr, need);
        scf::YieldOp::create(ib);
      });
}

} // namespace

bool mlir::gpupoor::isRowCopy(linalg::CopyOp copy) {
  if (!copy.hasPureBufferSemantics() || copy.getInputs().size() != 1)
    return false;
  auto src = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
  auto dst = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
  if (!src || !dst || src.getElementType() != dst.getElementType() ||
      src.getRank() != dst.getRank() || src.getRank() < 2 ||
      src.getRank() > 3 || !src.getElementType().isIntOrFloat() ||
      src.getElementTypeBitWidth() != 16)
    return false;
  // Global memory only: the kernel's loads and stores are of address space
  // 1 (the default space, or 1 itself).
  for (MemRefType t : {src, dst}) {
    if (Attribute space = t.getMemorySpace()) {
      auto number = dyn_cast<IntegerAttr>(space);
      if (!number || (number.getInt() != 0 && number.getInt() != kGlobal))
        return false;
    }
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(t.getStridesAndOffset(strides, offset)) || strides.back() != 1)
      return false;
  }
  return true;
}

gpu::GPUFuncOp mlir::gpupoor::getOrCreateRowCopyKernel(OpBuilder &builder,
                                                       ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kRowCopyKernelName))
    return existing.lookupSymbol<gpu::GPUFuncOp>(kRowCopyKernelName);
  MLIRContext *ctx = module.getContext();
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(ctx));
  OpBuilder::InsertionGuard guard(builder);
  Location loc = NameLoc::get(StringAttr::get(ctx, kRowCopyKernelName));
  builder.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(builder, loc, kRowCopyKernelName);
  builder.setInsertionPointToStart(gpuModule.getBody());
  SmallVector<Type> params(NumParams, builder.getI64Type());
  auto func = gpu::GPUFuncOp::create(builder, loc, kRowCopyKernelName,
                                     FunctionType::get(ctx, params, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  func.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {int32_t(kRowCopyBlockSize), 1, 1}));
  static_assert(std::size(kRowCopyParams) == NumParams);
  for (auto [i, name] : llvm::enumerate(kRowCopyParams))
    func.setArgAttr(i, "gpupoor.name", StringAttr::get(ctx, name));

  ImplicitLocOpBuilder b(loc, &func.getBody().front(),
                         func.getBody().front().begin());
  ValueRange p = func.getArguments();
  auto i64Of = [&](Value index) {
    return arith::IndexCastUIOp::create(b, b.getI64Type(), index);
  };
  Value chunk = arith::AddIOp::create(
      b,
      arith::MulIOp::create(b,
                            i64Of(gpu::BlockIdOp::create(b, gpu::Dimension::x)),
                            i64Const(b, kRowCopyBlockSize)),
      i64Of(gpu::ThreadIdOp::create(b, gpu::Dimension::x)));
  Value per =
      arith::CeilDivUIOp::create(b, p[Cols], i64Const(b, kRowCopyChunkElems));
  Value total = arith::MulIOp::create(
      b, arith::MulIOp::create(b, p[Batch], p[Rows]), per);
  Value inside =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, chunk, total);
  scf::IfOp::create(b, inside, [&](OpBuilder &ob, Location l) {
    ImplicitLocOpBuilder ib(l, ob);
    buildChunkCopy(ib, chunk, p);
    scf::YieldOp::create(ib);
  });
  gpu::ReturnOp::create(b);
  return func;
}

void mlir::gpupoor::launchRowCopy(RewriterBase &rewriter, linalg::CopyOp copy,
                                  gpu::GPUFuncOp kernel) {
  rewriter.setInsertionPoint(copy);
  ImplicitLocOpBuilder b(copy.getLoc(), rewriter);
  Type i64 = b.getI64Type();
  auto toI64 = [&](Value index) {
    return arith::IndexCastOp::create(b, i64, index);
  };
  struct View {
    Value addr;
    SmallVector<Value> sizes, strides;
  };
  auto viewOf = [&](Value memref) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, memref);
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, meta.getBaseBuffer());
    View v;
    v.addr = toI64(arith::AddIOp::create(
        b, base,
        arith::MulIOp::create(b, meta.getOffset(),
                              arith::ConstantIndexOp::create(b, 2))));
    for (Value s : meta.getSizes())
      v.sizes.push_back(toI64(s));
    for (Value s : meta.getStrides())
      v.strides.push_back(toI64(s));
    return v;
  };
  View src = viewOf(copy.getInputs()[0]), dst = viewOf(copy.getOutputs()[0]);
  bool batched = src.sizes.size() == 3;
  Value zero = i64Const(b, 0), one = i64Const(b, 1);
  Value batch = batched ? src.sizes[0] : one;
  Value rows = src.sizes[batched ? 1 : 0], cols = src.sizes.back();
  Value srcBatchStride = batched ? src.strides[0] : zero;
  Value dstBatchStride = batched ? dst.strides[0] : zero;
  Value srcRowStride = src.strides[batched ? 1 : 0];
  Value dstRowStride = dst.strides[batched ? 1 : 0];
  // One past the source's last element, where no stride is negative (the
  // kernel's words end there at the latest; they start on the 16 bytes at
  // or before the first element); else 0.
  Value span = one, nonNegative = arith::ConstantIntOp::create(b, 1, 1);
  for (auto [size, stride] : llvm::zip(src.sizes, src.strides)) {
    span = arith::AddIOp::create(
        b, span,
        arith::MulIOp::create(b, arith::SubIOp::create(b, size, one), stride));
    nonNegative = arith::AndIOp::create(
        b, nonNegative,
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge, stride, zero));
  }
  Value srcEnd = arith::SelectOp::create(
      b, nonNegative,
      arith::AddIOp::create(b, src.addr,
                            arith::MulIOp::create(b, span, i64Const(b, 2))),
      zero);
  Value total = arith::MulIOp::create(
      b, arith::MulIOp::create(b, batch, rows),
      arith::CeilDivUIOp::create(b, cols, i64Const(b, kRowCopyChunkElems)));
  SmallVector<Value> args = {
      src.addr,       dst.addr,     batch,          rows,         cols,
      srcBatchStride, srcRowStride, dstBatchStride, dstRowStride, srcEnd};
  Value any = arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, total, zero);
  scf::IfOp::create(b, any, [&](OpBuilder &ob, Location l) {
    ImplicitLocOpBuilder ib(l, ob);
    Value blocks = arith::IndexCastOp::create(
        ib, ib.getIndexType(),
        arith::CeilDivUIOp::create(ib, total, i64Const(ib, kRowCopyBlockSize)));
    Value c1 = arith::ConstantIndexOp::create(ib, 1);
    Value threads = arith::ConstantIndexOp::create(ib, kRowCopyBlockSize);
    gpu::LaunchFuncOp::create(ib, kernel, gpu::KernelDim3{blocks, c1, c1},
                              gpu::KernelDim3{threads, c1, c1},
                              /*dynamicSharedMemorySize=*/Value(), args);
    scf::YieldOp::create(ib);
  });
  rewriter.eraseOp(copy);
}
