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
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// The gpupoor-split-k options a pipeline's options ask for.
template <typename Derived>
static GPUPoorSplitKOptions
splitKOptions(const SplitKOptionsBase<Derived> &options) {
  GPUPoorSplitKOptions splitK;
  splitK.splits = options.splits;
  splitK.maxSplits = options.maxSplits;
  splitK.slices = options.slices;
  splitK.outerType = options.outerType;
  splitK.tile.assign(options.tile.begin(), options.tile.end());
  splitK.sets = options.sets;
  splitK.swap = options.swap;
  splitK.relaxF32Accumulation = options.relaxF32Accumulation;
  splitK.foldLayouts = options.foldLayouts;
  splitK.tunedTable = options.tunedTable;
  splitK.reportIneligible = options.reportIneligible;
  splitK.strict = options.strict;
  return splitK;
}

/// The front half every pipeline shares: rewrite eligible linalg matmuls,
/// then bufferize (identity layouts at function boundaries, so that callers
/// see plain memrefs) and free what bufferization allocated. A result that
/// is materialized into a destination is computed there: the tensor.empty
/// it was built on becomes that destination, instead of a new buffer
/// copied into it (for a GPU kernel, a host copy of device memory).
static void addSplitKAndBufferize(OpPassManager &pm,
                                  const GPUPoorSplitKOptions &splitK) {
  pm.addPass(createGPUPoorSplitK(splitK));
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  // It copies a buffer a function returns without owning it
  // (bufferization.clone): as an allocation and a copy, which
  // gpupoor-to-cubin's gpupoor-offload-to-gpu moves to the device.
  pm.addPass(createGPUPoorLowerClones());
}

namespace {
/// What the host code of a pipeline's output holds besides functions,
/// memrefs and control flow: the CPU loop form's math (the kernels run on
/// the host), or the GPU form's launches and device buffers.
enum class HostTarget { CPU, GPULaunches };
} // namespace

/// Host code -> LLVM dialect, with C-interface wrappers for the user's
/// functions.
static void addHostToLLVM(OpPassManager &pm, HostTarget target) {
  bool cpu = target == HostTarget::CPU;
  pm.addPass(createGPUPoorCheckMemorySpaces());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(arith::createArithExpandOpsPass());
  // Wrappers for the user's functions only: the libm declarations added
  // below must keep their C names.
  pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  if (cpu) {
    pm.addPass(createConvertMathToLLVMPass());
    // erf has no LLVM intrinsic: call libm's erff.
    pm.addPass(createConvertMathToLibmPass());
  }
  pm.addPass(createArithToLLVMConversionPass());
  if (!cpu)
    pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  if (!cpu)
    pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::gpupoor::buildCPUPipeline(OpPassManager &pm,
                                     const SplitKPipelineOptions &options) {
  addSplitKAndBufferize(pm, splitKOptions(options));

  pm.addPass(createConvertGPUPoorToLoops());
  // Whatever linalg is left (fills, matmuls that were not eligible) runs as
  // plain loops.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // linalg in device code too: the LLVM lowering below would rewrite its
  // bodies and leave invalid IR (found by fuzzing).
  pm.nest<gpu::GPUModuleOp>().addNestedPass<gpu::GPUFuncOp>(
      createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());

  addHostToLLVM(pm, HostTarget::CPU);
}

void mlir::gpupoor::buildCubinPipeline(OpPassManager &pm,
                                       const CubinPipelineOptions &options) {
  GPUPoorSplitKOptions splitK = splitKOptions(options);
  splitK.chip = options.chip;
  addSplitKAndBufferize(pm, splitK);
  // Decode products gpupoor-split-k chose to run transposed: C^T = B A^T on
  // C's transposed view.
  pm.addPass(createGPUPoorSwapOperands());

  GPUPoorSelectKernelConfigOptions kernel;
  kernel.stages = options.stages;
  kernel.warpsM = options.warpsM;
  kernel.warpsN = options.warpsN;
  kernel.asyncCopies = options.asyncCopies;
  kernel.tma = options.tma;
  kernel.persistent = options.persistent;
  kernel.streamK = options.streamK;
  kernel.splitHandover = options.splitHandover;
  kernel.blocksPerSM = options.blocksPerSM;
  kernel.clusterM = options.clusterM;
  kernel.splitsArg = options.splitsArg;
  kernel.columnStores = options.columnStores;
  kernel.fragmentPrefetch = options.fragmentPrefetch;
  kernel.sharedOuterRows = options.sharedOuterRows;
  kernel.sharedEpilogue = options.sharedEpilogue;
  kernel.mmaHandover = options.mmaHandover;
  kernel.groupM = options.groupM;
  kernel.indexBitwidth = options.indexBitwidth;
  pm.addPass(createGPUPoorSelectKernelConfig(kernel));
  pm.addPass(createConvertGPUPoorToWGMMA());
  pm.addPass(createConvertGPUPoorToNVGPU());
  // What else the host code would do to device buffers runs on the GPU:
  // elementwise kernels from upstream's parallel-loop mapping.
  GPUPoorOffloadToGPUOptions offload;
  offload.blockSize = options.blockSize;
  pm.addPass(createGPUPoorOffloadToGPU(offload));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // Constants (a math.fpowi's exponent, which the NVVM lowering needs as a
  // constant; a GELU's coefficients), dims and index selects used in a
  // launch are cloned into it: the outlining passes every value defined
  // outside as a kernel argument.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // The host code now only launches kernels and manages buffers: anything
  // else that touches one would run on the host, over device memory.
  pm.addPass(createGPUPoorCheckHostMemory());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = "+ptx80";
  // cubin-format=llvm serves tools that read the manifests: its bitcode
  // is left unoptimized (LLVM's O3 pipeline is most of the time that
  // format takes).
  target.optLevel = options.cubinFormat == "llvm" ? 0 : 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  // linalg the user wrote in device code (gpupoor-split-k leaves it alone:
  // gpupoor.matmul is host code) runs as loops in its thread.
  device.addNestedPass<gpu::GPUFuncOp>(createConvertLinalgToLoopsPass());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  device.addPass(arith::createArithExpandOpsPass());
  // Its index width is the kernel configuration's.
  device.addPass(createConvertGPUPoorKernelToNVVM());
  // What is left are the multi-dimensional vector ops of the MMA fragments,
  device.addPass(createConvertVectorToLLVMPass());
  // and the NVVM ops that are inline PTX (wgmma).
  device.addPass(createConvertNVVMToLLVMPass());
  // Unrolled vector casts (the shared-memory outer sums') start from
  // ub.poison.
  device.addPass(createUBToLLVMConversionPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.cubinFormat;
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createGPUPoorTensorMapsByValue());
  if (!options.dumpDir.empty()) {
    GPUPoorDumpKernelsOptions dump;
    dump.dir = options.dumpDir;
    pm.addPass(createGPUPoorDumpKernels(dump));
  }
}

void mlir::gpupoor::buildHostToLLVMPipeline(OpPassManager &pm) {
  addHostToLLVM(pm, HostTarget::GPULaunches);
}

LogicalResult mlir::gpupoor::checkCubinPipelineOptions(
    const CubinPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> error) {
  StringRef format = options.cubinFormat;
  if (format != "bin" && format != "isa" && format != "fatbin" &&
      format != "llvm")
    return error("gpupoor-to-cubin: cubin-format must be bin, isa, fatbin or "
                 "llvm, got '" +
                 format + "'");
  if (!symbolizeChip(options.chip))
    return error("gpupoor-to-cubin: unknown chip '" + options.chip +
                 "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)");
  // Only cubins need ptxas; upstream's serializer reports a missing toolkit
  // without failing the pass.
  if (format != "isa" && format != "llvm") {
    SmallString<128> ptxas(options.toolkit.getValue());
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    if (!llvm::sys::fs::can_execute(ptxas))
      return error("gpupoor-to-cubin: toolkit '" + options.toolkit +
                   "' has no bin/ptxas, which cubin-format=" + format +
                   " needs (cubin-format=isa and llvm need none)");
  }
  return success();
}

void mlir::gpupoor::registerPipelines() {
  registerPassPipeline(
      "gpupoor-to-cubin",
      "Compile f16 linalg matmuls to split-k mma.sync kernels with f16 "
      "accumulators, embedded as gpu.binary and launched by gpu.launch_func",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> error) {
        CubinPipelineOptions options;
        if (failed(options.parseFromString(text)) ||
            failed(checkCubinPipelineOptions(options, error)))
          return failure();
        buildCubinPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)> printOptions) {
        printOptions(CubinPipelineOptions());
      });
  PassPipelineRegistration<>(
      "gpupoor-host-to-llvm",
      "Lower the host side of gpupoor-to-cubin's output (launches, device "
      "buffers, the embedded gpu.binary) to the LLVM dialect, C-interface "
      "wrappers included, ready for mlir-translate --mlir-to-llvmir",
      buildHostToLLVMPipeline);
  PassPipelineRegistration<SplitKPipelineOptions>(
      "gpupoor-cpu-pipeline",
      "Lower f16 linalg matmuls through gpupoor split-k loops to the LLVM "
      "dialect for the host CPU (the numerics reference of the GPU kernels)",
      buildCPUPipeline);
}
