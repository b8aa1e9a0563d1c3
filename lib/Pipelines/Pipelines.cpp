//===- Pipelines.cpp - gpupoor pass pipelines -----------------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Pipelines/Pipelines.h"

#include "gpupoor/Conversion/Passes.h"
#include "gpupoor/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::gpupoor;

void mlir::gpupoor::buildCPUPipeline(OpPassManager &pm,
                                     const SplitKPipelineOptions &options) {
  GPUPoorSplitKOptions splitK;
  splitK.splits = options.splits;
  splitK.maxSplits = options.maxSplits;
  splitK.outerType = options.outerType;
  splitK.tile.assign(options.tile.begin(), options.tile.end());
  pm.addPass(createGPUPoorSplitK(splitK));

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);

  pm.addPass(createConvertGPUPoorToLoops());
  // Whatever linalg is left (fills, matmuls that were not eligible) runs as
  // plain loops.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());

  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(arith::createArithExpandOpsPass());
  // Wrappers for the user's functions only: the libm declarations added
  // below must keep their C names.
  pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  pm.addPass(createConvertMathToLLVMPass());
  // erf has no LLVM intrinsic: call libm's erff.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::gpupoor::registerPipelines() {
  PassPipelineRegistration<SplitKPipelineOptions>(
      "gpupoor-cpu-pipeline",
      "Lower f16 linalg matmuls through gpupoor split-k loops to the LLVM "
      "dialect for the host CPU (the numerics reference of the GPU kernels)",
      buildCPUPipeline);
}
