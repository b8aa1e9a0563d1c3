//===- HostLaunch.cpp - host code that launches a gpupoor kernel ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/HostLaunch.h"

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// The address of a memref's first element (its offset applied), as the
/// global pointer a Triton-ABI kernel takes.
static Value pointerOf(ImplicitLocOpBuilder &b, Value memref) {
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

/// Opens an scf.for over the batch of `op` at `b` and returns the rank-2
/// views of element `i` of A, B and C.
static std::array<Value, 3> sliceBatch(ImplicitLocOpBuilder &b, MatmulOp op) {
  Value zero = arith::ConstantIndexOp::create(b, 0);
  Value one = arith::ConstantIndexOp::create(b, 1);
  auto loop =
      scf::ForOp::create(b, zero, memref::DimOp::create(b, op.getA(), 0), one);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  auto slice = [&](Value memref) -> Value {
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<OpFoldResult> sizes =
        memref::getMixedSizes(b, b.getLoc(), memref);
    sizes[0] = b.getIndexAttr(1);
    SmallVector<OpFoldResult> offsets = {loop.getInductionVar(),
                                         b.getIndexAttr(0), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> unit(3, b.getIndexAttr(1));
    SmallVector<int64_t> shape = {type.getDimSize(1), type.getDimSize(2)};
    auto sliceType = memref::SubViewOp::inferRankReducedResultType(
        shape, type, offsets, sizes, unit);
    return memref::SubViewOp::create(b, sliceType, memref, offsets, sizes,
                                     unit);
  };
  Value a = slice(op.getA());
  Value bMem = slice(op.getB());
  Value c = slice(op.getInit());
  return {a, bMem, c};
}

void mlir::gpupoor::emitHostLaunch(MatmulOp op, gpu::GPUFuncOp func,
                                   const KernelSpec &spec) {
  MLIRContext *ctx = op.getContext();
  ImplicitLocOpBuilder b(op.getLoc(), op);
  Value aMem = op.getA(), bMem = op.getB(), cMem = op.getInit();
  if (op.isBatched()) {
    std::array<Value, 3> views = sliceBatch(b, op);
    aMem = views[0];
    bMem = views[1];
    cMem = views[2];
  }
  Type i32 = b.getI32Type();
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
  Value bk = spec.bTransposed ? b1 : b0;
  Value bn = spec.bTransposed ? b0 : b1;
  auto [cm, cn] = strides(cMem);
  Type ptr = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
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
      b, m, arith::ConstantIndexOp::create(b, spec.bm));
  Value gridN = arith::CeilDivSIOp::create(
      b, n, arith::ConstantIndexOp::create(b, spec.bn));
  Value grid = arith::MulIOp::create(b, gridM, gridN);
  Value threads = arith::ConstantIndexOp::create(b, spec.threads());
  Value smem = arith::ConstantIntOp::create(b, i32, spec.sharedBytes());
  auto launch =
      gpu::LaunchFuncOp::create(b, func, gpu::KernelDim3{grid, c1, c1},
                                gpu::KernelDim3{threads, c1, c1}, smem, args);
  launch->setAttr(getKernelAttrName(),
                  KernelAttr::get(ctx, spec.strategy, spec.getConfig(ctx),
                                  spec.cType, spec.biasType,
                                  op.isBatched() ? Launch::PerBatchElement
                                                 : Launch::Single));
}
