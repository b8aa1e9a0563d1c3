//===- DumpKernels.cpp - write gpupoor kernels and manifests --------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORDUMPKERNELS
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;

namespace {

LogicalResult writeFile(Operation *op, StringRef path, StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return op->emitError() << "cannot write '" << path << "': " << ec.message();
  os << bytes;
  return success();
}

struct GPUPoorDumpKernelsPass
    : gpupoor::impl::GPUPoorDumpKernelsBase<GPUPoorDumpKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (dir.empty()) {
      module.emitError("gpupoor-dump-kernels: no dir given");
      return signalPassFailure();
    }
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      module.emitError() << "gpupoor-dump-kernels: cannot create '" << dir
                         << "': " << ec.message();
      return signalPassFailure();
    }
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto info = launch->getAttrOfType<DictionaryAttr>("gpupoor.kernel");
      if (!info)
        return WalkResult::advance();
      auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
          launch, launch.getKernelModuleName());
      if (!binary) {
        launch.emitError("gpupoor-dump-kernels: no gpu.binary for this "
                         "kernel; run gpu-module-to-binary first");
        return WalkResult::interrupt();
      }
      StringRef kernel = launch.getKernelName().getValue();
      llvm::json::Object manifest;
      for (NamedAttribute entry : info) {
        Attribute v = entry.getValue();
        if (auto i = dyn_cast<IntegerAttr>(v))
          manifest[entry.getName().strref()] = i.getInt();
        else if (auto s = dyn_cast<StringAttr>(v))
          manifest[entry.getName().strref()] = s.getValue().str();
        else if (auto a = dyn_cast<ArrayAttr>(v)) {
          llvm::json::Array items;
          for (Attribute item : a) {
            if (auto s = dyn_cast<StringAttr>(item))
              items.push_back(s.getValue().str());
            else if (auto i = dyn_cast<IntegerAttr>(item))
              items.push_back(i.getInt());
          }
          manifest[entry.getName().strref()] = std::move(items);
        }
      }
      manifest["kernel"] = kernel.str();
      for (Attribute attr : binary.getObjectsAttr()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        bool isAsm = object.getFormat() == gpu::CompilationTarget::Assembly;
        SmallString<128> path(dir);
        llvm::sys::path::append(path, kernel + (isAsm ? ".ptx" : ".cubin"));
        if (failed(writeFile(launch, path, object.getObject().getValue())))
          return WalkResult::interrupt();
        manifest[isAsm ? "ptx" : "cubin"] =
            llvm::sys::path::filename(path).str();
      }
      SmallString<128> path(dir);
      llvm::sys::path::append(path, kernel + ".json");
      std::string text;
      llvm::raw_string_ostream os(text);
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)))
         << "\n";
      if (failed(writeFile(launch, path, text)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
