//===- GPUPoorToWGMMA.cpp - gpupoor.matmul to a wgmma kernel --------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Replaces each memref gpupoor.matmul whose strategy names sm_90a with the
// launch of a Hopper kernel: warpgroup MMA (wgmma m64nBNk16) with f16
// accumulators on A and B tiles that a cp.async ring stages into the
// 128-byte-swizzled shared layout wgmma reads. The kernel takes the same
// Triton ABI, grid, split geometry, handover, slice meeting and epilogue
// as the mma.sync kernel of convert-gpupoor-to-nvgpu, whose parts
// (gpupoor/Conversion/GPUKernel) it is built from; WgmmaKernelBuilder
// assembles the main loop.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/Passes.h"

#include "WarpSpecializedKernelBuilder.h"
#include "WgmmaKernelBuilder.h"
#include "gpupoor/Conversion/GPUKernel/KernelVariants.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_CONVERTGPUPOORTOWGMMA
#include "gpupoor/Conversion/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

struct ConvertGPUPoorToWGMMAPass
    : gpupoor::impl::ConvertGPUPoorToWGMMABase<ConvertGPUPoorToWGMMAPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<MatmulOp> ops;
    module.walk([&](MatmulOp op) {
      if (op.getStrategy().getChip() == Chip::SM90a)
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SymbolTable symbols(module);
    for (MatmulOp op : ops)
      if (failed(
              lowerToKernels(op, module, symbols, "convert-gpupoor-to-wgmma",
                             [](KernelContext &kc, gpu::GPUFuncOp func) {
                               if (kc.spec.tmaCopies)
                                 WarpSpecializedKernelBuilder(kc, func).build();
                               else
                                 WgmmaKernelBuilder(kc, func).build();
                             })))
        return signalPassFailure();
  }
};

} // namespace
