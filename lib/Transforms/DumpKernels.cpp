//===- DumpKernels.cpp - write gpupoor kernels and manifests --------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "RowCopy.h"

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelManifest.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"
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

/// Resources of the kernel in a cubin, from its `.nv.info` section (the
/// attributes ptxas writes for the driver): register count (EIATTR_REGCOUNT,
/// 0x2f) and stack frame (EIATTR_FRAME_SIZE, 0x11; non-zero when registers
/// spill to local memory). The cubin holds one kernel. Reading the ELF here
/// spares running ptxas a second time with -v.
struct CubinResources {
  std::optional<uint32_t> registers, frameBytes;
};

CubinResources readCubinResources(StringRef elf) {
  CubinResources res;
  // ELF64, little endian (every cubin of sm_80 .. sm_90).
  auto file = llvm::object::ELF64LEFile::create(elf);
  if (!file) {
    llvm::consumeError(file.takeError());
    return res;
  }
  auto sections = file->sections();
  if (!sections) {
    llvm::consumeError(sections.takeError());
    return res;
  }
  for (const auto &section : *sections) {
    auto name = file->getSectionName(section);
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name != ".nv.info")
      continue;
    auto contents = file->getSectionContents(section);
    if (!contents) {
      llvm::consumeError(contents.takeError());
      continue;
    }
    ArrayRef<uint8_t> info = *contents;
    // Entries: format byte, attribute byte, then a 16-bit size and that
    // many payload bytes (format 0x04) or a 16-bit value.
    using llvm::support::endian::read16le;
    using llvm::support::endian::read32le;
    for (size_t at = 0; at + 4 <= info.size();) {
      uint8_t format = info[at], attr = info[at + 1];
      size_t payload = at + 4;
      size_t len = format == 0x04 ? read16le(&info[at + 2]) : 0;
      if (payload + len > info.size())
        break;
      if (format == 0x04 && len >= 8) {
        if (attr == 0x2f)
          res.registers = read32le(&info[payload + 4]);
        else if (attr == 0x11)
          res.frameBytes = read32le(&info[payload + 4]);
      }
      at = payload + len;
    }
  }
  return res;
}

/// setmaxnreg.inc waits until the block's registers hold what its
/// consumers ask for: a kernel whose cubin gives a thread fewer registers
/// at launch than its split assumes would hang, so it is an error here.
static LogicalResult checkRegisterSplit(gpu::LaunchFuncOp launch,
                                        const llvm::json::Object &manifest,
                                        int64_t registers) {
  const llvm::json::Object *split = manifest.getObject("register_split");
  if (!split)
    return success();
  int64_t least = *split->getInteger("least_at_launch");
  if (registers >= least)
    return success();
  return launch.emitError()
         << "gpupoor-dump-kernels: the cubin gives a thread " << registers
         << " registers at launch, the kernel's register split (setmaxnreg) "
            "needs "
         << least;
}

struct GPUPoorDumpKernelsPass
    : gpupoor::impl::GPUPoorDumpKernelsBase<GPUPoorDumpKernelsPass> {
  using Base::Base;

  /// The row-copy kernel (RowCopy.h) and a manifest naming its image, block
  /// and parameters: the package launches it for its padded copies.
  LogicalResult dumpRowCopy(gpu::LaunchFuncOp launch) {
    auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
        launch, launch.getKernelModuleName());
    if (!binary)
      return launch.emitError("gpupoor-dump-kernels: no gpu.binary for the "
                              "row copy; run gpu-module-to-binary first");
    llvm::json::Object manifest;
    StringRef kernel = gpupoor::kRowCopyKernelName;
    manifest["kernel"] = kernel.str();
    manifest["block_size"] = gpupoor::kRowCopyBlockSize;
    manifest["chunk_elements"] = gpupoor::kRowCopyChunkElems;
    llvm::json::Array params;
    for (const char *name : gpupoor::kRowCopyParams)
      params.push_back(name);
    manifest["params"] = std::move(params);
    for (Attribute attr : binary.getObjectsAttr()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      if (object.getFormat() == gpu::CompilationTarget::Offload)
        continue;
      bool isAsm = object.getFormat() == gpu::CompilationTarget::Assembly;
      SmallString<128> path(dir);
      llvm::sys::path::append(path, kernel + (isAsm ? ".ptx" : ".cubin"));
      if (failed(writeFile(launch, path, object.getObject().getValue())))
        return failure();
      manifest[isAsm ? "ptx" : "cubin"] = llvm::sys::path::filename(path).str();
    }
    return writeManifest(launch, kernel, std::move(manifest));
  }

  /// Writes `manifest` as DIR/KERNEL.json.
  LogicalResult writeManifest(Operation *op, StringRef kernel,
                              llvm::json::Object manifest) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, kernel + ".json");
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)))
       << "\n";
    return writeFile(op, path, text);
  }

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
    // The host code tries a product's kernels in the order of its launches
    // (an scf.if chain, the configured kernel first: emitHostLaunch), which
    // the walk visits in turn; `order` counts the module's launches, so
    // within a product it rises in that order, which a launcher of the
    // dumped kernels reads instead of keeping its own.
    int64_t order = 0;
    bool rowCopyDumped = false;
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto info = launch->getAttrOfType<gpupoor::KernelAttr>(
          gpupoor::getKernelAttrName());
      if (!info) {
        if (launch.getKernelModuleName() != gpupoor::kRowCopyKernelName ||
            rowCopyDumped)
          return WalkResult::advance();
        rowCopyDumped = true;
        return failed(dumpRowCopy(launch)) ? WalkResult::interrupt()
                                           : WalkResult::advance();
      }
      auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
          launch, launch.getKernelModuleName());
      if (!binary) {
        launch.emitError("gpupoor-dump-kernels: no gpu.binary for this "
                         "kernel; run gpu-module-to-binary first");
        return WalkResult::interrupt();
      }
      StringRef kernel = launch.getKernelName().getValue();
      llvm::json::Object manifest = gpupoor::getKernelManifest(info);
      manifest["kernel"] = kernel.str();
      manifest["order"] = order++;
      // gpupoor-swap-operands made this launch of a product C = A B^T: its
      // kernel computes C^T = B A^T, so a launcher passes the product's B
      // as a_ptr, its A as b_ptr and C's transposed view (strides swapped).
      if (launch->hasAttr(gpupoor::getSwappedOperandsAttrName()))
        manifest["swapped_operands"] = true;
      // The resource summary: what ptxas allotted, from a cubin, and the
      // count of the key instructions, from PTX.
      std::string summary;
      llvm::raw_string_ostream sum(summary);
      sum << kernel << ": " << *manifest.getInteger("dynamic_shared_memory")
          << " bytes of dynamic shared memory, "
          << *manifest.getInteger("block_size") << " threads";
      for (Attribute attr : binary.getObjectsAttr()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        bool isAsm = object.getFormat() == gpu::CompilationTarget::Assembly;
        // cubin-format=llvm: the kernel's LLVM bitcode, which no launcher
        // loads (a manifest for tools).
        bool isLLVM = object.getFormat() == gpu::CompilationTarget::Offload;
        StringRef bytes = object.getObject().getValue();
        SmallString<128> path(dir);
        llvm::sys::path::append(path, kernel + (isAsm    ? ".ptx"
                                                : isLLVM ? ".bc"
                                                         : ".cubin"));
        if (failed(writeFile(launch, path, bytes)))
          return WalkResult::interrupt();
        manifest[isAsm    ? "ptx"
                 : isLLVM ? "llvm_bitcode"
                          : "cubin"] = llvm::sys::path::filename(path).str();
        if (isAsm) {
          llvm::json::Object counts;
          for (StringRef op : {"mma.sync", "ldmatrix", "cp.async.cg"}) {
            int64_t n = bytes.count(op);
            counts[op] = n;
            sum << ", " << n << " " << op;
          }
          sum << " in the PTX";
          manifest["ptx_counts"] = std::move(counts);
        } else if (object.getFormat() == gpu::CompilationTarget::Binary) {
          CubinResources res = readCubinResources(bytes);
          if (res.registers) {
            manifest["registers"] = int64_t(*res.registers);
            sum << ", " << *res.registers << " registers";
            if (failed(checkRegisterSplit(launch, manifest, *res.registers)))
              return WalkResult::interrupt();
          }
          if (res.frameBytes) {
            manifest["stack_frame_bytes"] = int64_t(*res.frameBytes);
            sum << ", " << *res.frameBytes << "-byte stack frame"
                << (*res.frameBytes ? " (spills)" : " (no spills)");
          }
        }
      }
      mlir::emitRemark(launch.getLoc()) << summary;
      if (failed(writeManifest(launch, kernel, std::move(manifest))))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
