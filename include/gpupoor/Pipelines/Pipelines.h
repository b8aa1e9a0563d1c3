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
/// that gpupoor-split-k picks.
struct SplitKPipelineOptions
    : public PassPipelineOptions<SplitKPipelineOptions> {
  PassOptions::Option<int64_t> splits{
      *this, "splits",
      llvm::cl::desc("Fixed number of K splits (0: gpu_poor's rule)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> maxSplits{
      *this, "max-splits",
      llvm::cl::desc("Upper clamp of the default split rule"),
      llvm::cl::init(32)};
  PassOptions::Option<std::string> outerType{
      *this, "outer-type", llvm::cl::desc("Outer accumulator type: f16 or f32"),
      llvm::cl::init("f32")};
  PassOptions::ListOption<int64_t> tile{
      *this, "tile", llvm::cl::desc("Tile [BM, BN, BK] (default 128,128,32)")};
};

/// linalg (tensors or memrefs) -> gpupoor.matmul -> memrefs -> split-k loops
/// -> LLVM dialect, with C-interface wrappers for every function. The result
/// translates with mlir-translate --mlir-to-llvmir and runs on the host.
void buildCPUPipeline(OpPassManager &pm, const SplitKPipelineOptions &options);

/// Registers the pipelines with the global pass registry.
void registerPipelines();

} // namespace gpupoor
} // namespace mlir

#endif // GPUPOOR_PIPELINES_PIPELINES_H
