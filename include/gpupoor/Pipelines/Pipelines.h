//===- Pipelines.h - gpupoor pass pipelines ---------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_PIPELINES_PIPELINES_H
#define GPUPOOR_PIPELINES_PIPELINES_H

#include "gpupoor/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;

namespace gpupoor {

// The pipelines' options are the passes' options: each takes its default
// from the pass's generated options struct (the .td is the one definition
// of defaults and meanings; gpupoor-opt --help and docs/ show them there),
// so that a pass run alone and a pipeline agree.

/// Options shared by every pipeline that starts from linalg: the strategy
/// that gpupoor-split-k picks. `Derived` is the pipeline's options type.
template <typename Derived>
struct SplitKOptionsBase : public PassPipelineOptions<Derived> {
  using Defaults = GPUPoorSplitKOptions;
  ::mlir::detail::PassOptions::Option<int64_t> splits{
      *this, "splits", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().splits)};
  ::mlir::detail::PassOptions::Option<int64_t> maxSplits{
      *this, "max-splits", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().maxSplits)};
  ::mlir::detail::PassOptions::Option<int64_t> slices{
      *this, "slices", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().slices)};
  ::mlir::detail::PassOptions::Option<std::string> outerType{
      *this, "outer-type", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().outerType)};
  ::mlir::detail::PassOptions::ListOption<int64_t> tile{
      *this, "tile", llvm::cl::desc("See gpupoor-split-k")};
  ::mlir::detail::PassOptions::Option<SwapChoice> swap{
      *this, "swap", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().swap), swapChoices()};
  ::mlir::detail::PassOptions::Option<int64_t> sets{
      *this, "sets", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().sets)};
  ::mlir::detail::PassOptions::Option<bool> relaxF32Accumulation{
      *this, "relax-f32-accumulation", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().relaxF32Accumulation)};
  ::mlir::detail::PassOptions::Option<bool> tunedTable{
      *this, "tuned-table", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().tunedTable)};
  ::mlir::detail::PassOptions::Option<bool> foldLayouts{
      *this, "fold-layouts", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().foldLayouts)};
  ::mlir::detail::PassOptions::Option<bool> reportIneligible{
      *this, "report-ineligible", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().reportIneligible)};
  ::mlir::detail::PassOptions::Option<bool> strict{
      *this, "strict", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(Defaults().strict)};
};

/// Options of gpupoor-cpu-pipeline.
struct SplitKPipelineOptions : public SplitKOptionsBase<SplitKPipelineOptions> {
};

/// Options of gpupoor-to-cubin: gpupoor-split-k's, the kernel
/// configuration's (gpupoor-select-kernel-config) and the binary's.
struct CubinPipelineOptions : public SplitKOptionsBase<CubinPipelineOptions> {
  using Kernel = GPUPoorSelectKernelConfigOptions;
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("See gpupoor-split-k"),
      llvm::cl::init(GPUPoorSplitKOptions().chip)};
  PassOptions::Option<int64_t> stages{
      *this, "stages", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().stages)};
  PassOptions::Option<int64_t> warpsM{
      *this, "warps-m", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().warpsM)};
  PassOptions::Option<int64_t> warpsN{
      *this, "warps-n", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().warpsN)};
  PassOptions::Option<int64_t> fragmentPrefetch{
      *this, "fragment-prefetch",
      llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().fragmentPrefetch)};
  PassOptions::Option<int64_t> sharedOuterRows{
      *this, "shared-outer-rows",
      llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().sharedOuterRows)};
  PassOptions::Option<bool> sharedEpilogue{
      *this, "shared-epilogue",
      llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().sharedEpilogue)};
  PassOptions::Option<MmaHandoverChoice> mmaHandover{
      *this, "mma-handover", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().mmaHandover), mmaHandoverChoices()};
  PassOptions::Option<int64_t> groupM{
      *this, "group-m", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().groupM)};
  PassOptions::Option<bool> asyncCopies{
      *this, "async-copies", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().asyncCopies)};
  PassOptions::Option<bool> tma{
      *this, "tma", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().tma)};
  PassOptions::Option<PersistentChoice> persistent{
      *this, "persistent", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().persistent), persistentChoices()};
  PassOptions::Option<StreamKChoice> streamK{
      *this, "stream-k", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().streamK), streamKChoices()};
  PassOptions::Option<SplitHandoverChoice> splitHandover{
      *this, "split-handover",
      llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().splitHandover), splitHandoverChoices()};
  PassOptions::Option<int64_t> clusterM{
      *this, "cluster-m", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().clusterM)};
  PassOptions::Option<bool> columnStores{
      *this, "column-stores",
      llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().columnStores)};
  PassOptions::Option<bool> splitsArg{
      *this, "splits-arg", llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().splitsArg)};
  PassOptions::Option<int64_t> blocksPerSM{
      *this, "blocks-per-sm",
      llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().blocksPerSM)};
  PassOptions::Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("See gpupoor-select-kernel-config"),
      llvm::cl::init(Kernel().indexBitwidth)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::desc("See gpupoor-offload-to-gpu"),
      llvm::cl::init(GPUPoorOffloadToGPUOptions().blockSize)};
  PassOptions::Option<std::string> cubinFormat{
      *this, "cubin-format",
      llvm::cl::desc(
          "gpu-module-to-binary format: bin (cubin), isa (PTX), "
          "fatbin, or llvm (the kernels' unoptimized LLVM bitcode, no "
          "code generation: for tools that read only the "
          "manifests)"),
      llvm::cl::init("bin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose ptxas builds cubins"),
      llvm::cl::init("/usr/local/cuda")};
  PassOptions::Option<std::string> dumpDir{
      *this, "dump-dir",
      llvm::cl::desc("Also write each kernel and a JSON manifest here "
                     "(gpupoor-dump-kernels)"),
      llvm::cl::init("")};
};

/// Checks the options that no pass of the pipeline checks in time: the
/// binary format, the chip, and (for cubins) that the toolkit has ptxas;
/// reports the first bad one through `error`.
LogicalResult
checkCubinPipelineOptions(const CubinPipelineOptions &options,
                          function_ref<LogicalResult(const Twine &)> error);

/// linalg -> gpupoor.matmul -> memrefs -> mma.sync kernel (nvgpu) and its
/// gpu.launch_func -> NVVM -> gpu.binary.
void buildCubinPipeline(OpPassManager &pm, const CubinPipelineOptions &options);

/// The host side of buildCubinPipeline's output -> LLVM dialect: strided
/// metadata, control flow, arith, index, memref and func to LLVM, C-interface
/// wrappers, and gpu-to-llvm for the launches and the embedded gpu.binary
/// (the `mgpu*` runtime calls upstream's lowering emits).
void buildHostToLLVMPipeline(OpPassManager &pm);

/// linalg (tensors or memrefs) -> gpupoor.matmul -> memrefs -> split-k loops
/// -> LLVM dialect, with C-interface wrappers for every function. The result
/// translates with mlir-translate --mlir-to-llvmir and runs on the host.
void buildCPUPipeline(OpPassManager &pm, const SplitKPipelineOptions &options);

/// Registers the pipelines with the global pass registry.
void registerPipelines();

/// Adds what the pipelines reach to `registry`: the upstream dialects of
/// their inputs and stages, the external interface models bufferization and
/// the conversions to LLVM look up, the NVVM target and the LLVM IR
/// translations of the host and device modules. registerAllDialects
/// (gpupoor/InitAll.h) includes it.
void registerPipelineDependencies(DialectRegistry &registry);

} // namespace gpupoor
} // namespace mlir

#endif // GPUPOOR_PIPELINES_PIPELINES_H
