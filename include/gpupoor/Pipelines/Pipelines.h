//===- Pipelines.h - gpupoor pass pipelines ---------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_PIPELINES_PIPELINES_H
#define GPUPOOR_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;

namespace gpupoor {

/// Options shared by every pipeline that starts from linalg: the strategy
/// that gpupoor-split-k picks. `Derived` is the pipeline's options type.
template <typename Derived>
struct SplitKOptionsBase : public PassPipelineOptions<Derived> {
  ::mlir::detail::PassOptions::Option<int64_t> splits{
      *this, "splits",
      llvm::cl::desc("Fixed number of K splits (0: gpu_poor's rule)"),
      llvm::cl::init(0)};
  ::mlir::detail::PassOptions::Option<int64_t> maxSplits{
      *this, "max-splits",
      llvm::cl::desc("Upper clamp of the default split rule"),
      llvm::cl::init(32)};
  ::mlir::detail::PassOptions::Option<std::string> outerType{
      *this, "outer-type", llvm::cl::desc("Outer accumulator type: f16 or f32"),
      llvm::cl::init("f32")};
  ::mlir::detail::PassOptions::ListOption<int64_t> tile{
      *this, "tile",
      llvm::cl::desc("Tile [BM, BN, BK] (default: 256,128,64 for static sm_90 "
                     "matmuls of at least 256 such tiles, else 128,128,32)")};
};

/// Options of gpupoor-cpu-pipeline.
struct SplitKPipelineOptions : public SplitKOptionsBase<SplitKPipelineOptions> {
};

/// Options of gpupoor-to-cubin.
struct CubinPipelineOptions : public SplitKOptionsBase<CubinPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target: sm_80, sm_86, sm_89 or sm_90"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("Depth of the cp.async pipeline (0: 4 for BK = 32, "
                     "measured 5% faster than 3 on an H200; 3 for BK = 64)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> warpsM{
      *this, "warps-m",
      llvm::cl::desc("Warps along M (0: by outer type, see "
                     "convert-gpupoor-to-nvgpu)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> warpsN{
      *this, "warps-n",
      llvm::cl::desc("Warps along N (0: by outer type, see "
                     "convert-gpupoor-to-nvgpu)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> fragmentPrefetch{
      *this, "fragment-prefetch",
      llvm::cl::desc("k16 steps ahead that ldmatrix fragments load (0: none; "
                     "at most BK/16; each step costs a fragment set of "
                     "registers)"),
      llvm::cl::init(1)};
  PassOptions::Option<int64_t> sharedOuterRows{
      *this, "shared-outer-rows",
      llvm::cl::desc("m16 rows of a warp's outer sums kept in shared memory "
                     "(-1: by outer type, see convert-gpupoor-to-nvgpu)"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> sharedEpilogue{
      *this, "shared-epilogue",
      llvm::cl::desc("Store C through shared memory in 16-byte row vectors "
                     "(see convert-gpupoor-to-nvgpu)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> mmaHandover{
      *this, "mma-handover",
      llvm::cl::desc(
          "Add chunk sums into f32 outer sums with m16n8k8 mma.sync: "
          "true, false or auto (for 8 warps of 64 x 64; see "
          "convert-gpupoor-to-nvgpu)"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> groupM{
      *this, "group-m",
      llvm::cl::desc("Row tiles per group in the grouped (L2-friendly) block "
                     "order"),
      llvm::cl::init(8)};
  PassOptions::Option<bool> asyncCopies{
      *this, "async-copies",
      llvm::cl::desc("cp.async tile copies (aligned, unit-stride operands); "
                     "false: element loads for any operand"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Width of index in kernels (32: cheaper addresses and "
                     "fewer registers; element offsets must stay below "
                     "2^31, as with Triton's default)"),
      llvm::cl::init(32)};
  PassOptions::Option<std::string> cubinFormat{
      *this, "cubin-format",
      llvm::cl::desc("gpu-module-to-binary format: bin (cubin), isa (PTX), "
                     "fatbin"),
      llvm::cl::init("bin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose ptxas builds cubins"),
      llvm::cl::init("/usr/local/cuda")};
  PassOptions::Option<std::string> dumpDir{
      *this, "dump-dir",
      llvm::cl::desc("Also write each kernel and a JSON manifest here"),
      llvm::cl::init("")};
};

/// linalg -> gpupoor.matmul -> memrefs -> mma.sync kernel (nvgpu) and its
/// gpu.launch_func -> NVVM -> gpu.binary.
void buildCubinPipeline(OpPassManager &pm, const CubinPipelineOptions &options);

/// linalg (tensors or memrefs) -> gpupoor.matmul -> memrefs -> split-k loops
/// -> LLVM dialect, with C-interface wrappers for every function. The result
/// translates with mlir-translate --mlir-to-llvmir and runs on the host.
void buildCPUPipeline(OpPassManager &pm, const SplitKPipelineOptions &options);

/// Registers the pipelines with the global pass registry.
void registerPipelines();

} // namespace gpupoor
} // namespace mlir

#endif // GPUPOOR_PIPELINES_PIPELINES_H
