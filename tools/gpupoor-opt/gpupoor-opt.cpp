//===- gpupoor-opt.cpp - gpupoor optimizer driver -------------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// An mlir-opt with the gpupoor dialect, passes and pipelines added, so the
// whole flow from linalg to cubin runs in one tool.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::gpupoor::test {
void registerTestPolicyIRPass();
} // namespace mlir::gpupoor::test

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::gpupoor::registerAllPasses();
  // Test passes (test/lib), as mlir-opt registers upstream's.
  mlir::gpupoor::test::registerTestPolicyIRPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates to LLVM IR inside the pass; the GPU
  // dialects' translations must be known up front.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::gpupoor::registerAllDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gpupoor optimizer driver\n", registry));
}
