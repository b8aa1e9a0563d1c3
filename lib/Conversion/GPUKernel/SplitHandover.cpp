//===- SplitHandover.cpp - chunk sums into the outer sums -----------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/SplitHandover.h"

#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gpupoor;

static VectorType outerFragType(const KernelSpec &c) {
  return VectorType::get({2, 2}, c.outerType);
}
static VectorType slotType(const KernelSpec &c) {
  return VectorType::get({4}, c.outerType);
}
static int64_t slotAlign(const KernelSpec &c) {
  return 4 * c.outerType.getIntOrFloatBitWidth() / 8;
}

OuterSums::OuterSums(KernelContext &kc) : KernelPart(kc) {
  VectorType outerType = outerFragType(c);
  outerZero = arith::ConstantOp::create(b, outerType, b.getZeroAttr(outerType));
  // The handover on the tensor cores (f32 outer sums): a lane holds the
  // identity's rows 2 (lane % 4) + {0, 1} of column lane / 4.
  if (c.mmaHandover) {
    Type f16 = b.getF16Type();
    Value col = divU(kc.lane, idx(4));
    Value row = mul(remU(kc.lane, idx(4)), idx(2));
    Value one = arith::ConstantOp::create(b, f16, b.getF16FloatAttr(1.0));
    Value zero = arith::ConstantOp::create(b, f16, b.getF16FloatAttr(0.0));
    Value d0 =
        select(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, row, col),
               one, zero);
    Value d1 = select(arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                            add(row, idx(1)), col),
                      one, zero);
    identity = vector::FromElementsOp::create(b, VectorType::get({1, 2}, f16),
                                              ValueRange{d0, d1});
  }
  // Slot f of thread t holds 4 elements at (f * threads + t) * 4, so that a
  // warp's 16-byte accesses to one slot are contiguous (no bank conflicts).
  // Only this thread touches its slots: no barrier.
  if (c.sharedOuterFrags() > 0) {
    slots = sharedView(b, kc.rawSmem, c.outerType, c.outerSlotElems(),
                       idx(c.stagesBytes()));
    for (int64_t f = 0; f < c.sharedOuterFrags(); ++f)
      storeSlot(f, outerZero);
  }
}

SmallVector<Value> OuterSums::initialRegisters() const {
  return SmallVector<Value>(numInRegisters(), outerZero);
}

Value OuterSums::slotIndex(int64_t f) {
  return mul(add(idx(f * c.threads()), kc.tid), idx(4));
}

Value OuterSums::loadSlot(int64_t f) {
  Value v = vector::LoadOp::create(
      b, slotType(c), slots, ValueRange{slotIndex(f)},
      /*nontemporal=*/false, llvm::MaybeAlign(slotAlign(c)));
  return vector::ShapeCastOp::create(b, outerFragType(c), v);
}

void OuterSums::storeSlot(int64_t f, Value v) {
  vector::StoreOp::create(b, vector::ShapeCastOp::create(b, slotType(c), v),
                          slots, ValueRange{slotIndex(f)},
                          /*nontemporal=*/false,
                          llvm::MaybeAlign(slotAlign(c)));
}

SmallVector<Value> OuterSums::emitHandover(ArrayRef<Value> inner,
                                           ArrayRef<Value> regs,
                                           int64_t first) {
  assert(first + int64_t(inner.size()) <= numFrags() &&
         "handover past the outer sums");
  int64_t numShared = c.sharedOuterFrags();
  SmallVector<Value> yielded(regs);
  auto outerAt = [&](int64_t i) {
    return i < numShared ? loadSlot(i) : yielded[i - numShared];
  };
  auto setOuter = [&](int64_t i, Value v) {
    if (i < numShared)
      storeSlot(i, v);
    else
      yielded[i - numShared] = v;
  };
  for (auto [j, frag] : llvm::enumerate(inner)) {
    int64_t i = first + j;
    if (c.mmaHandover) {
      // An n8 tile's f16 sums are, register for register, the A fragment
      // of an m16 x k8 tile; times the 8 x 8 identity (m16n8k8, products
      // by 1 and 0 are exact) they add into its f32 outer sums.
      setOuter(i, nvgpu::MmaSyncOp::create(b, frag, identity, outerAt(i),
                                           ArrayRef<int64_t>{16, 8, 8}));
      continue;
    }
    Value widened = frag;
    if (!c.outerType.isF16())
      widened = arith::ExtFOp::create(b, outerFragType(c), widened);
    setOuter(i, arith::AddFOp::create(b, outerAt(i), widened));
  }
  return yielded;
}

SmallVector<Value> OuterSums::emitFinal(ValueRange regs) {
  SmallVector<Value> all;
  for (int64_t i = 0; i < c.sharedOuterFrags(); ++i)
    all.push_back(loadSlot(i));
  llvm::append_range(all, regs);
  return all;
}
