//===- SharedLayout.cpp - shared-memory layout of gpupoor kernels ---------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// Rows that share one swizzle phase, and the number of phases.
static int64_t rowsPerPhase(int64_t chunksPerRow) {
  return std::max<int64_t>(1, 8 / chunksPerRow);
}
static int64_t numPhases(int64_t chunksPerRow) {
  return std::min<int64_t>(chunksPerRow, 8);
}

int64_t mlir::gpupoor::swizzlePeriod(int64_t chunksPerRow) {
  return rowsPerPhase(chunksPerRow) * numPhases(chunksPerRow);
}

Value mlir::gpupoor::swizzle(ImplicitLocOpBuilder &b, Value row, Value chunk,
                             int64_t chunksPerRow) {
  int64_t phases = numPhases(chunksPerRow);
  if (phases == 1)
    return chunk;
  Value phase = arith::RemUIOp::create(
      b,
      arith::DivUIOp::create(
          b, row,
          arith::ConstantIndexOp::create(b, rowsPerPhase(chunksPerRow))),
      arith::ConstantIndexOp::create(b, phases));
  return arith::XOrIOp::create(b, chunk, phase);
}

Value mlir::gpupoor::sharedPointer(ImplicitLocOpBuilder &b, Value base,
                                   Value bytes) {
  Value address = arith::IndexCastUIOp::create(
      b, b.getI64Type(), arith::AddIOp::create(b, base, bytes));
  auto shared = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  return LLVM::IntToPtrOp::create(b, shared, address);
}

Value mlir::gpupoor::createDynamicSharedMemory(ImplicitLocOpBuilder &b) {
  auto workgroup = gpu::AddressSpaceAttr::get(
      b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  auto rawType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                 MemRefLayoutAttrInterface(), workgroup);
  return gpu::DynamicSharedMemoryOp::create(b, rawType);
}

Value mlir::gpupoor::sharedView(ImplicitLocOpBuilder &b, Value rawSmem,
                                Type elementType, int64_t elems,
                                Value byteShift) {
  auto type =
      MemRefType::get({elems}, elementType, MemRefLayoutAttrInterface(),
                      cast<MemRefType>(rawSmem.getType()).getMemorySpace());
  return memref::ViewOp::create(b, type, rawSmem, byteShift, ValueRange{});
}
