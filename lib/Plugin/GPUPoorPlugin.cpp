//===- GPUPoorPlugin.cpp - gpupoor as an mlir-opt plugin ------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Lets a stock mlir-opt (linked against the same libMLIR.so) use the
// gpupoor dialect and passes:
//   mlir-opt --load-dialect-plugin=GPUPoorPlugin.so \
//            --load-pass-plugin=GPUPoorPlugin.so ...
//
//===----------------------------------------------------------------------===//

#include "gpupoor/InitAll.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GPUPoor", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlir::gpupoor::registerAllDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GPUPoorPasses", LLVM_VERSION_STRING,
          []() { mlir::gpupoor::registerAllPasses(); }};
}
