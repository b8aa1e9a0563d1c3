//===- CheckHostMemory.cpp - host code must not touch GPU memory ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORCHECKHOSTMEMORY
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;

namespace {

/// Whether `op` reads, writes, allocates or frees memref memory (not
/// through a call or a launch: those name no memref effect).
bool touchesMemRefMemory(Operation *op) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
    Value v = e.getValue();
    return v && isa<BaseMemRefType>(v.getType());
  });
}

struct GPUPoorCheckHostMemoryPass
    : gpupoor::impl::GPUPoorCheckHostMemoryBase<GPUPoorCheckHostMemoryPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      // Device allocations are what the host code is for.
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::WaitOp, gpu::MemcpyOp>(op))
        return WalkResult::advance();
      // A constant in host memory that anything but a copy to the device
      // reads (gpupoor-offload-to-gpu copies the others).
      if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        if (llvm::all_of(global->getUsers(),
                         [](Operation *u) { return isa<gpu::MemcpyOp>(u); }))
          return WalkResult::advance();
        op->emitError() << "host constant read by device code: a "
                           "memref.global lives in host memory, and "
                           "gpupoor-offload-to-gpu gave this use no device "
                           "copy (its memref leaves the block)";
        failed = true;
        return WalkResult::advance();
      }
      if (touchesMemRefMemory(op)) {
        op->emitError()
            << "host code would access GPU memory here ('"
            << op->getName()
            << "'): in gpupoor-to-cubin every memref is device memory, "
               "which only kernels read and write (an op that neither an "
               "epilogue nor gpupoor-offload-to-gpu could move to the GPU "
               "runs here as host code)";
        failed = true;
      }
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
