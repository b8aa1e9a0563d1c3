//===- GPUPoorToNVGPU.cpp - gpupoor.matmul to an mma.sync kernel ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Replaces each memref gpupoor.matmul with a gpu.launch_func of a kernel that
// takes the Triton ABI (raw pointers, sizes, element strides) and computes
// the split-k product with nvgpu ops, as the op's #gpupoor.kernel_config
// says (gpupoor-select-kernel-config chooses it):
//
//   * a 1-D grid of ceil(M/BM) * ceil(N/BN) blocks in grouped (L2-friendly)
//     order;
//   * A and B tiles staged through dynamic shared memory by a `stages`-deep
//     cp.async (nvgpu.device_async_copy) pipeline with zero-filled tails, in
//     an XOR-swizzled layout that ldmatrix reads without bank conflicts;
//   * nvgpu.ldmatrix fragments and nvgpu.mma.sync m16n8k16 with f16
//     accumulators; at the end of each of the S chunks of K, the f16
//     accumulators are added into the outer (f32 or f16) accumulators;
//   * a guarded epilogue: the op's epilogue region cloned per element
//     (its operands read through their strides), conversion, store.
//
// Why not upstream tiling + vectorization + convert-vector-to-gpu: that path
// takes static shapes only, keeps shared memory static (no 4+ stages), drops
// the L1 bypass on predicated copies and cannot express the split-k
// accumulator handover (see the project's notes); this generator emits the
// same nvgpu ops directly, shaped for this one kernel.
//
// The kernel is built from the parts in gpupoor/Conversion/GPUKernel (ABI
// and host launch, tile order, shared layout, copy pipeline, fragments and
// mma.sync, split handover, epilogue); MmaKernelBuilder assembles them into
// the main loop. docs/design/Architecture.md says which file does what.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/Passes.h"

#include "MmaKernelBuilder.h"
#include "gpupoor/Conversion/GPUKernel/KernelVariants.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_CONVERTGPUPOORTONVGPU
#include "gpupoor/Conversion/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

struct ConvertGPUPoorToNVGPUPass
    : gpupoor::impl::ConvertGPUPoorToNVGPUBase<ConvertGPUPoorToNVGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<MatmulOp> ops;
    module.walk([&](MatmulOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SymbolTable symbols(module);
    for (MatmulOp op : ops)
      if (failed(lower(op, symbols)))
        return signalPassFailure();
  }

  LogicalResult lower(MatmulOp op, SymbolTable &symbols) {
    if (op.getStrategy().getChip() == Chip::SM90a)
      return op.emitOpError("is for sm_90a, whose wgmma kernel "
                            "convert-gpupoor-to-wgmma builds");
    return lowerToKernels(op, getOperation(), symbols,
                          "convert-gpupoor-to-nvgpu",
                          [](KernelContext &kc, gpu::GPUFuncOp func) {
                            MmaKernelBuilder(kc, func).build();
                          });
  }
};

} // namespace
