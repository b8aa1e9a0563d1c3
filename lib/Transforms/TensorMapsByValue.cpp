//===- TensorMapsByValue.cpp - TMA tensor maps as launch values -----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelManifest.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORTENSORMAPSBYVALUE
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

struct GPUPoorTensorMapsByValuePass
    : gpupoor::impl::GPUPoorTensorMapsByValueBase<
          GPUPoorTensorMapsByValuePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = launch->getAttrOfType<KernelAttr>(getKernelAttrName());
      if (!kernel)
        return WalkResult::advance();
      KernelSpec spec(kernel);
      if (!spec.tmaCopies)
        return WalkResult::advance();
      // While the kernel is a gpu.func its signature names pointers, and
      // the launch's operands must match it.
      if (SymbolTable::lookupNearestSymbolFrom<gpu::GPUModuleOp>(
              launch, launch.getKernelModuleName())) {
        launch.emitOpError("gpupoor-tensor-maps-by-value runs once the "
                           "kernel is a gpu.binary (after "
                           "gpu-module-to-binary)");
        return WalkResult::interrupt();
      }
      OpBuilder b(launch);
      Type mapType = tensorMapType(&getContext());
      for (auto [i, param] : llvm::enumerate(getKernelParams(spec))) {
        if (param.kind != KernelParamKind::TensorMap)
          continue;
        Value ptr = launch.getKernelOperands()[i];
        if (ptr.getType() == mapType)
          continue;
        Value bytes = LLVM::LoadOp::create(b, launch.getLoc(), mapType, ptr,
                                           kTensorMapAlign);
        launch.getKernelOperandsMutable()[i].assign(bytes);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
