//===- CheckMemorySpaces.cpp - host memrefs the LLVM lowering translates --===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Upstream's finalize-memref-to-llvm translates a memref's memory space to
// an LLVM address space only where it is an integer (or absent); for any
// other space (#gpu.address_space<workgroup>, say) its type converter
// prints an error and the pass still succeeds, so a pipeline would exit 0
// with the memref unconverted. This pass, run before that lowering, turns
// such a memref in host code into an error that fails the pipeline.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORCHECKMEMORYSPACES
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;

namespace {

/// A memref type whose memory space the LLVM lowering cannot translate.
bool untranslatable(Type t) {
  auto memref = dyn_cast<BaseMemRefType>(t);
  return memref && memref.getMemorySpace() &&
         !isa<IntegerAttr>(memref.getMemorySpace());
}

struct GPUPoorCheckMemorySpacesPass
    : gpupoor::impl::GPUPoorCheckMemorySpacesBase<
          GPUPoorCheckMemorySpacesPass> {
  void runOnOperation() override {
    WalkResult result =
        getOperation()->walk<WalkOrder::PreOrder>([](Operation *op) {
          // Device code maps its spaces itself (convert-gpu-to-nvvm).
          if (isa<gpu::GPUModuleOp>(op))
            return WalkResult::skip();
          SmallVector<Type> types(op->getOperandTypes());
          llvm::append_range(types, op->getResultTypes());
          for (Region &region : op->getRegions())
            for (Block &block : region)
              llvm::append_range(types, block.getArgumentTypes());
          auto it = llvm::find_if(types, untranslatable);
          if (it == types.end())
            return WalkResult::advance();
          op->emitOpError("uses ")
              << *it
              << ", whose memory space has no LLVM address space in host "
                 "code (only integer memory spaces translate)";
          return WalkResult::interrupt();
        });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
