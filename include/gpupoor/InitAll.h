//===- InitAll.h - register everything gpupoor provides ---------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_INITALL_H
#define GPUPOOR_INITALL_H

#include "gpupoor/Conversion/Passes.h"
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "gpupoor/Dialect/GPUPoor/Transforms/BufferizableOpInterfaceImpl.h"
#include "gpupoor/Pipelines/Pipelines.h"
#include "gpupoor/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::gpupoor {

/// gpupoor's dialect and its interfaces, and everything its pipelines need
/// of upstream MLIR (registerPipelineDependencies): one call lets a
/// compiler parse linalg on tensors and run gpupoor-to-cubin to LLVM IR.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<GPUPoorDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
  registerPipelineDependencies(registry);
}

inline void registerAllPasses() {
  registerGPUPoorTransformsPasses();
  registerGPUPoorConversionPasses();
  registerPipelines();
}

} // namespace mlir::gpupoor

#endif // GPUPOOR_INITALL_H
