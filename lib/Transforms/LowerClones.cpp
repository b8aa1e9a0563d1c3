//===- LowerClones.cpp - copies of returned buffers, in their layout ------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The buffer deallocation pipeline copies a buffer a function returns (or a
// region yields) without owning it: bufferization.clone. This pass lowers
// each to an allocation of the clone's type and a linalg.copy, which the
// CPU pipeline runs as loops and gpupoor-to-cubin's gpupoor-offload-to-gpu
// as a device allocation and a copy kernel. Written here rather than taken
// from upstream's convert-bufferization-to-memref, whose identity-layout
// allocation cannot become a static strided layout it does not match, and
// whose memref.copy of a strided buffer calls MLIR's C runner utilities.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORLOWERCLONES
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;

namespace {

/// A buffer of `type`'s layout for a copy of `source` (of the same type):
/// an allocation of its shape where the layout is the identity, else a 1-D
/// allocation of offset + 1 + sum((size - 1) * stride) elements (sizes of
/// 0 counted as 1) viewed with the source's offset, sizes and strides,
/// which the host code asserts are not negative.
Value allocateLike(ImplicitLocOpBuilder &b, MemRefType type, Value source) {
  if (type.getLayout().isIdentity()) {
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        sizes.push_back(memref::DimOp::create(b, source, i));
    return memref::AllocOp::create(b, type, sizes);
  }
  auto meta = memref::ExtractStridedMetadataOp::create(b, source);
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  Value zero = cst(0), one = cst(1);
  Value span = arith::AddIOp::create(b, meta.getOffset(), one);
  Value forward = arith::CmpIOp::create(b, arith::CmpIPredicate::sge,
                                        meta.getOffset(), zero);
  for (auto [size, stride] : llvm::zip(meta.getSizes(), meta.getStrides())) {
    Value last =
        arith::MaxSIOp::create(b, arith::SubIOp::create(b, size, one), zero);
    span =
        arith::AddIOp::create(b, span, arith::MulIOp::create(b, last, stride));
    forward = arith::AndIOp::create(
        b, forward,
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge, stride, zero));
  }
  cf::AssertOp::create(b, forward,
                       "gpupoor: a returned buffer's copy needs an offset "
                       "and strides that are not negative");
  auto flat =
      MemRefType::get({ShapedType::kDynamic}, type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  Value buffer = memref::AllocOp::create(b, flat, ValueRange{span});
  // Static entries of the type as attributes, the rest as the source's.
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  auto mixed = [&](int64_t known, Value value) -> OpFoldResult {
    return ShapedType::isDynamic(known) ? OpFoldResult(value)
                                        : OpFoldResult(b.getIndexAttr(known));
  };
  SmallVector<OpFoldResult> sizes, steps;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    sizes.push_back(mixed(type.getDimSize(i), meta.getSizes()[i]));
    steps.push_back(mixed(strides[i], meta.getStrides()[i]));
  }
  return memref::ReinterpretCastOp::create(
      b, type, buffer, mixed(offset, meta.getOffset()), sizes, steps);
}

struct GPUPoorLowerClonesPass
    : gpupoor::impl::GPUPoorLowerClonesBase<GPUPoorLowerClonesPass> {
  void runOnOperation() override {
    SmallVector<bufferization::CloneOp> clones;
    getOperation()->walk(
        [&](bufferization::CloneOp clone) { clones.push_back(clone); });
    for (bufferization::CloneOp clone : clones) {
      auto type = dyn_cast<MemRefType>(clone.getType());
      if (!type || clone.getInput().getType() != type) {
        clone.emitOpError("copies an unranked memref or into another type, "
                          "which gpupoor does not lower");
        return signalPassFailure();
      }
      ImplicitLocOpBuilder b(clone.getLoc(), clone);
      Value copy = allocateLike(b, type, clone.getInput());
      linalg::CopyOp::create(b, clone.getInput(), copy);
      clone.replaceAllUsesWith(copy);
      clone.erase();
    }
  }
};

} // namespace
