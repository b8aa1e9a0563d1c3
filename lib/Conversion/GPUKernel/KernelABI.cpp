//===- KernelABI.cpp - the Triton ABI of gpupoor kernels ------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelManifest.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::gpupoor;

Type mlir::gpupoor::tensorMapType(MLIRContext *ctx) {
  return LLVM::LLVMArrayType::get(IntegerType::get(ctx, 64),
                                  kTensorMapBytes / 8);
}

gpu::GPUFuncOp mlir::gpupoor::createKernelFunc(ModuleOp module,
                                               SymbolTable &symbols,
                                               Location loc, StringRef name,
                                               const KernelSpec &spec) {
  MLIRContext *ctx = module.getContext();
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(mb, loc, (name + "_module").str());
  symbols.insert(gpuModule);
  gpuModule->setAttr(getKernelConfigAttrName(), spec.getConfig(ctx));

  Type ptr = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
  // Sizes and strides are as wide as the kernel's index: 64-bit kernels take
  // operands of 2^31 elements and more.
  Type intType = IntegerType::get(ctx, spec.indexBitwidth);
  Type i64 = IntegerType::get(ctx, 64);
  SmallVector<KernelParam> params = getKernelParams(spec);
  SmallVector<Type> argTypes;
  for (const KernelParam &param : params) {
    switch (param.kind) {
    case KernelParamKind::Pointer:
      argTypes.push_back(ptr);
      break;
    case KernelParamKind::Size:
      argTypes.push_back(intType);
      break;
    case KernelParamKind::I64:
      argTypes.push_back(i64);
      break;
    case KernelParamKind::TensorMap:
      // The body reads the map where it lies, in the parameter space: a
      // byval pointer that stays a grid constant (no local copy; see
      // convert-gpupoor-kernel-to-nvvm).
      argTypes.push_back(LLVM::LLVMPointerType::get(ctx));
      break;
    }
  }
  OpBuilder gb = OpBuilder::atBlockBegin(gpuModule.getBody());
  auto func = gpu::GPUFuncOp::create(gb, loc, name,
                                     FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  func.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {int32_t(spec.blockThreads()), 1, 1}));
  // The TMA kernel's register split (setmaxnreg) is computed from the
  // registers a thread has at launch: ptxas must allot exactly the share
  // of blocksPerSM blocks an SM (without a budget at entry it ignores
  // setmaxnreg).
  if (spec.tmaCopies)
    func->setAttr(
        NVVM::NVVMDialect::getMinctasmAttrName(),
        IntegerAttr::get(IntegerType::get(ctx, 32), spec.blocksPerSM));
  // Clusters along x (.reqnctapercluster): a plain launch of whole
  // clusters runs them.
  if (spec.clusterM > 1)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  DenseI32ArrayAttr::get(ctx, {int32_t(spec.clusterM), 1, 1}));
  // (A tensor map's byval and grid-constant attributes are set once the
  // kernel is an llvm.func: gpu.func drops or refuses them.)
  for (auto [i, param] : llvm::enumerate(params))
    func.setArgAttr(i, "gpupoor.name", StringAttr::get(ctx, param.name));
  return func;
}

/// A memref descriptor of `rank` dimensions (integers of type `i64`) whose
/// allocated and aligned pointers are `ptr`, the rest still to fill.
static Value descriptorOf(ImplicitLocOpBuilder &b, Value ptr, int64_t rank,
                          Type i64) {
  MLIRContext *ctx = b.getContext();
  auto arr = LLVM::LLVMArrayType::get(i64, rank);
  auto ptrType = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
  auto descType =
      LLVM::LLVMStructType::getLiteral(ctx, {ptrType, ptrType, i64, arr, arr});
  Value desc = LLVM::PoisonOp::create(b, descType);
  desc = LLVM::InsertValueOp::create(b, desc, ptr, ArrayRef<int64_t>{0});
  return LLVM::InsertValueOp::create(b, desc, ptr, ArrayRef<int64_t>{1});
}

/// A strided memref over raw global pointer `ptr` with offset 0, dynamic
/// `sizes` and `strides` (index), and the layout's strides as
/// `staticStrides` says (ShapedType::kDynamic where only run time knows; a
/// contiguous 1-D memref takes the identity layout).
static Value memrefOver(ImplicitLocOpBuilder &b, Value ptr, Type elementType,
                        ArrayRef<Value> sizes, ArrayRef<Value> strides,
                        ArrayRef<int64_t> staticStrides,
                        unsigned indexBitwidth) {
  MLIRContext *ctx = b.getContext();
  // The descriptor's integers are as wide as the NVVM lowering's index.
  Type iN = b.getIntegerType(indexBitwidth);
  auto toIN = [&](Value v) { return arith::IndexCastOp::create(b, iN, v); };
  int64_t rank = sizes.size();
  Value desc = descriptorOf(b, ptr, rank, iN);
  desc = LLVM::InsertValueOp::create(
      b, desc, LLVM::ConstantOp::create(b, iN, b.getIntegerAttr(iN, 0)),
      ArrayRef<int64_t>{2});
  for (int64_t d = 0; d < rank; ++d)
    desc = LLVM::InsertValueOp::create(b, desc, toIN(sizes[d]),
                                       ArrayRef<int64_t>{3, d});
  for (int64_t d = 0; d < rank; ++d)
    desc = LLVM::InsertValueOp::create(b, desc, toIN(strides[d]),
                                       ArrayRef<int64_t>{4, d});
  MemRefLayoutAttrInterface layout;
  if (rank != 1 || staticStrides.front() != 1)
    layout = StridedLayoutAttr::get(ctx, 0, staticStrides);
  auto type =
      MemRefType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                      elementType, layout, b.getI64IntegerAttr(kGlobalSpace));
  // The memref-to-LLVM lowering folds this cast with its inverse.
  return UnrealizedConversionCastOp::create(b, type, desc).getResult(0);
}

/// A 2-D strided memref over raw global pointer `ptr`.
static Value memrefFromPointer(ImplicitLocOpBuilder &b, Value ptr,
                               Type elementType, Value rows, Value cols,
                               Value rowStride, Value colStride,
                               bool unitColStride, unsigned indexBitwidth) {
  int64_t dyn = ShapedType::kDynamic;
  return memrefOver(b, ptr, elementType, {rows, cols}, {rowStride, colStride},
                    {dyn, unitColStride ? int64_t(1) : dyn}, indexBitwidth);
}

Value mlir::gpupoor::memref1DFromPointer(ImplicitLocOpBuilder &b, Value ptr,
                                         Type elementType, Value size,
                                         unsigned indexBitwidth) {
  return memrefOver(b, ptr, elementType, {size},
                    {arith::ConstantIndexOp::create(b, 1)}, {1}, indexBitwidth);
}

/// `ptr` moved to batch element `batchIndex` by its i64 batch stride
/// `stride` (elements of `elementType`), in 64-bit arithmetic.
static Value batchElement(ImplicitLocOpBuilder &b, Value ptr, Type elementType,
                          Value batchIndex, Value stride) {
  Type i64 = b.getI64Type();
  Value off = arith::MulIOp::create(
      b, arith::IndexCastOp::create(b, i64, batchIndex), stride);
  return LLVM::GEPOp::create(b, ptr.getType(), elementType, ptr,
                             ValueRange{off});
}

/// The elements of the cp.async pieces an element-copy kernel can read the
/// rows of an operand in (KernelArgs::aPieceElems): 4 (8 bytes) or 2 (4
/// bytes) where `ptr` and, past one row, `rowStride` lie on that many bytes
/// and the rows are contiguous (`innerStride` 1); 0 otherwise. An operand
/// whose rows lie off 16 bytes (K, or M or N along the rows, no multiple of
/// 8) is read so asynchronously, as the 16-byte kernels read theirs,
/// instead of by element loads, which stall each copy's thread until its
/// loads land.
static Value copyPieceElems(ImplicitLocOpBuilder &b, Value ptr, Value rows,
                            Value rowStride, Value innerStride) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x, y);
  };
  auto onlyLowBitsZero = [&](Value v, int64_t bytes) {
    return eq(arith::AndIOp::create(b, v, cst(bytes - 1)), cst(0));
  };
  Value addr = arith::IndexCastOp::create(
      b, b.getIndexType(), LLVM::PtrToIntOp::create(b, b.getI64Type(), ptr));
  Value contiguous = eq(innerStride, cst(1));
  // One row's stride is never applied: its rows clamp to row 0.
  Value oneRow = arith::CmpIOp::create(b, arith::CmpIPredicate::sle, rows,
                                       cst(1));
  auto fits = [&](int64_t elems) {
    Value rowsAligned =
        arith::OrIOp::create(b, onlyLowBitsZero(rowStride, elems), oneRow);
    return arith::AndIOp::create(
        b, contiguous,
        arith::AndIOp::create(b, onlyLowBitsZero(addr, 2 * elems),
                              rowsAligned));
  };
  // In sequence (C++ leaves the order of a call's arguments open): 4-byte
  // pieces, then 8-byte ones where they fit.
  Value narrow = arith::SelectOp::create(b, fits(2), cst(2), cst(0));
  Value wide = fits(4);
  return arith::SelectOp::create(b, wide, cst(4), narrow);
}

/// Argument `i` of `entry` as an index.
static Value argIndex(ImplicitLocOpBuilder &b, Block &entry, unsigned i) {
  return arith::IndexCastOp::create(b, b.getIndexType(), entry.getArgument(i));
}

KernelArgs mlir::gpupoor::readKernelArgs(KernelContext &kc,
                                         gpu::GPUFuncOp func) {
  ImplicitLocOpBuilder &b = kc.b;
  const KernelSpec &spec = kc.spec;
  Block &entry = func.getBody().front();
  kc.m = argIndex(b, entry, 3);
  kc.n = argIndex(b, entry, 4);
  kc.k = argIndex(b, entry, 5);
  // The last parameter (getKernelParams).
  kc.splits = spec.takesSplits()
                  ? argIndex(b, entry, entry.getNumArguments() - 1)
                  : Value();
  kc.tilesM = arith::CeilDivSIOp::create(
      b, kc.m, arith::ConstantIndexOp::create(b, spec.bm));
  kc.tilesN = arith::CeilDivSIOp::create(
      b, kc.n, arith::ConstantIndexOp::create(b, spec.bn));
  kc.pid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  kc.batch = kc.batches = Value();
  if (spec.batched) {
    // A batched kernel's blocks of element b, ceil(M/BM) * ceil(N/BN) of
    // them, come after element b - 1's (a persistent kernel's work tiles
    // likewise).
    kc.batches = argIndex(b, entry, 15);
    if (spec.persistent()) {
      kc.batch = arith::ConstantIndexOp::create(b, 0);
    } else {
      Value tiles = arith::MulIOp::create(b, kc.tilesM, kc.tilesN);
      kc.batch = arith::DivUIOp::create(b, kc.pid, tiles);
      kc.pid = arith::RemUIOp::create(b, kc.pid, tiles);
    }
  }
  return kernelArgsAt(kc, func, kc.batch);
}

KernelArgs mlir::gpupoor::kernelArgsAt(KernelContext &kc, gpu::GPUFuncOp func,
                                       Value batchIndex) {
  ImplicitLocOpBuilder &b = kc.b;
  const KernelSpec &spec = kc.spec;
  Block &entry = func.getBody().front();
  Type f16 = b.getF16Type();
  auto argIndex = [&](unsigned i) { return ::argIndex(b, entry, i); };
  KernelArgs args;
  // The pointers as the body reads them: a batched kernel's at element
  // `batchIndex`.
  SmallVector<Value> ptrs(entry.getArguments().begin(),
                          entry.getArguments().end());
  unsigned inputsAt = 12;
  if (spec.batched) {
    ptrs[0] = batchElement(b, ptrs[0], f16, batchIndex, ptrs[12]);
    ptrs[1] = batchElement(b, ptrs[1], f16, batchIndex, ptrs[13]);
    ptrs[2] = batchElement(b, ptrs[2], spec.cType, batchIndex, ptrs[14]);
    inputsAt = 16;
    for (auto [i, type] : llvm::enumerate(spec.epilogueInputTypes)) {
      unsigned first = inputsAt + 4 * i;
      ptrs[first] =
          batchElement(b, ptrs[first], type, batchIndex, ptrs[first + 3]);
    }
  }
  // In i64: a 32-bit index would drop the stride's high bits.
  if (spec.batched)
    args.strideCb = entry.getArgument(14);
  auto arg = [&](unsigned i) { return ptrs[i]; };
  Value strideAm = argIndex(6), strideAk = argIndex(7);
  Value strideBk = argIndex(8), strideBn = argIndex(9);
  args.strideCm = argIndex(10);
  args.strideCn = argIndex(11);
  // cp.async reads 16 contiguous bytes: with async copies the memrefs say
  // that A's and B's inner strides are 1; element-wise copies take any.
  bool unit = spec.asyncCopies;
  Value one = arith::ConstantIndexOp::create(b, 1);
  unsigned width = spec.indexBitwidth;
  // A as the kernel reads it: M rows of K, or, read along M (aMMajor), K
  // rows of M.
  if (spec.aMMajor())
    args.a = memrefFromPointer(b, arg(0), f16, kc.k, kc.m, strideAk,
                               unit ? one : strideAm, unit, width);
  else
    args.a = memrefFromPointer(b, arg(0), f16, kc.m, kc.k, strideAm,
                               unit ? one : strideAk, unit, width);
  if (spec.bTransposed)
    args.b = memrefFromPointer(b, arg(1), f16, kc.n, kc.k, strideBn,
                               unit ? one : strideBk, unit, width);
  else
    args.b = memrefFromPointer(b, arg(1), f16, kc.k, kc.n, strideBk,
                               unit ? one : strideBn, unit, width);
  // The same rows with a unit inner stride, read only where copyPieceElems
  // says so. Not in 64-bit kernels (operands past 2^31 elements): the
  // pieces' three copy paths double or triple an element kernel's code, and
  // those kernels are rare enough to keep theirs small.
  if (!unit && width == 32) {
    // An operand of `rows` rows of `cols`, `rowStride` apart, `inner` its
    // stride along them: its unit-stride view and its pieces' elements.
    auto pieces = [&](Value ptr, Value rows, Value cols, Value rowStride,
                      Value inner) -> std::pair<Value, Value> {
      Value view = memrefFromPointer(b, ptr, f16, rows, cols, rowStride, one,
                                     true, width);
      Value elems = copyPieceElems(b, ptr, rows, rowStride, inner);
      return {view, elems};
    };
    std::tie(args.aUnit, args.aPieceElems) =
        spec.aMMajor() ? pieces(arg(0), kc.k, kc.m, strideAk, strideAm)
                       : pieces(arg(0), kc.m, kc.k, strideAm, strideAk);
    std::tie(args.bUnit, args.bPieceElems) =
        spec.bTransposed ? pieces(arg(1), kc.n, kc.k, strideBn, strideBk)
                         : pieces(arg(1), kc.k, kc.n, strideBk, strideBn);
  }
  args.c = memrefFromPointer(b, arg(2), spec.cType, kc.m, kc.n, args.strideCm,
                             args.strideCn, false, width);
  args.cUnit = memrefFromPointer(b, arg(2), spec.cType, kc.m, kc.n,
                                 args.strideCm, one, true, width);
  if (spec.columnStores)
    args.cColumns = memrefFromPointer(b, arg(2), spec.cType, kc.n, kc.m,
                                      args.strideCn, one, true, width);
  args.cPtr = arg(2);
  // Each epilogue operand as an M x N view with its (possibly zero)
  // strides along C's rows and columns.
  unsigned perInput = spec.batched ? 4 : 3;
  for (auto [i, type] : llvm::enumerate(spec.epilogueInputTypes)) {
    unsigned first = inputsAt + perInput * i;
    args.epilogueInputs.push_back(
        memrefFromPointer(b, arg(first), type, kc.m, kc.n, argIndex(first + 1),
                          argIndex(first + 2), false, width));
  }
  unsigned next = inputsAt + perInput * spec.numEpilogueInputs();
  if (spec.takesWorkspace()) {
    args.wsPtr = arg(next);
    args.wsBytes = arg(next + 1);
    args.locksPtr = arg(next + 2);
    args.locksCount = arg(next + 3);
    next += 4;
  }
  if (spec.tmaCopies) {
    args.aMap = arg(next);
    args.bMap = arg(next + 1);
    if (spec.tmaStores())
      args.cMap = arg(next + 2);
  }
  return args;
}

void mlir::gpupoor::emitThreadIds(KernelContext &kc, int64_t firstThread) {
  ImplicitLocOpBuilder &b = kc.b;
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  kc.tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  if (firstThread)
    kc.tid = arith::SubIOp::create(b, kc.tid, cst(firstThread));
  kc.lane = arith::RemUIOp::create(b, kc.tid, cst(kWarpSize));
  Value warp = arith::DivUIOp::create(b, kc.tid, cst(kWarpSize));
  kc.warpRow = arith::DivUIOp::create(b, warp, cst(kc.spec.warpsN));
  kc.warpCol = arith::RemUIOp::create(b, warp, cst(kc.spec.warpsN));
}
