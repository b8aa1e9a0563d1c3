//===- OffloadToGPU.cpp - host work on device buffers moved to the GPU ----===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// In gpupoor-to-cubin every memref is device memory. After the matmuls
// became launches, the host code may still hold what bufferization and the
// front end left there: buffers it allocates (a function's result, a
// temporary), copies, and linalg ops no epilogue took (attention's softmax,
// a consumer read by two ops). This pass moves each of them to the device:
// allocations become gpu.alloc / gpu.dealloc, copies linalg.copy, and every
// linalg op with a parallel dimension a parallel loop collapsed to one
// dimension and tiled by the block size, which upstream's
// gpu-map-parallel-loops and convert-parallel-loops-to-gpu then map onto
// blocks and threads (gpu-kernel-outlining makes the kernels). Reduction
// dimensions stay loops inside a thread; an op without parallel dimensions
// (a 0-d fill, a full reduction) runs as loops in a one-thread launch.
// Other memory accesses of the host code (a memref.load the user wrote)
// stay, for gpupoor-check-host-memory to report.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOOROFFLOADTOGPU
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;

namespace {

/// Runs `make(token)` as an async gpu op on a stream of its own, waited
/// for at once: upstream's gpu-to-llvm lowers gpu.alloc and gpu.dealloc
/// only in their async form.
template <typename MakeFn>
void synchronously(IRRewriter &rewriter, Location loc, MakeFn make) {
  Type token = gpu::AsyncTokenType::get(rewriter.getContext());
  Value start =
      gpu::WaitOp::create(rewriter, loc, token, ValueRange()).getAsyncToken();
  Value done = make(token, start);
  gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{done});
}

/// Allocations and frees of host code as the device's.
void allocateOnDevice(IRRewriter &rewriter, Operation *root) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getSymbolOperands().empty())
        return WalkResult::advance();
      Value memref;
      synchronously(rewriter, loc, [&](Type token, Value start) {
        auto device = gpu::AllocOp::create(
            rewriter, loc, alloc.getType(), token, ValueRange{start},
            alloc.getDynamicSizes(), /*symbolOperands=*/ValueRange(),
            /*hostShared=*/false);
        memref = device.getMemref();
        return device.getAsyncToken();
      });
      rewriter.replaceOp(alloc, memref);
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      synchronously(rewriter, loc, [&](Type token, Value start) {
        return gpu::DeallocOp::create(rewriter, loc, token, ValueRange{start},
                                      dealloc.getMemref())
            .getAsyncToken();
      });
      rewriter.eraseOp(dealloc);
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
    return WalkResult::advance();
  });
}

struct GPUPoorOffloadToGPUPass
    : gpupoor::impl::GPUPoorOffloadToGPUBase<GPUPoorOffloadToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      emitError(getOperation()->getLoc())
          << "gpupoor-offload-to-gpu: block-size must be in [1, 1024], got "
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    allocateOnDevice(rewriter, getOperation());

    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (linalgOp.hasPureBufferSemantics())
          ops.push_back(linalgOp);
      return WalkResult::advance();
    });
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      // Without a parallel dimension there is nothing to spread: one
      // thread runs the op's loops.
      if (op.getNumParallelLoops() == 0) {
        Location loc = op.getLoc();
        Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
        auto launch =
            gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
        rewriter.setInsertionPointToEnd(&launch.getBody().front());
        auto terminator = gpu::TerminatorOp::create(rewriter, loc);
        rewriter.moveOpBefore(op, terminator);
        rewriter.setInsertionPoint(op);
        if (failed(linalg::linalgOpToLoops(rewriter, op)))
          continue;
        rewriter.eraseOp(op);
        continue;
      }
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToParallelLoops(rewriter, op);
      if (failed(loops))
        continue;
      rewriter.eraseOp(op);
      auto parallel = dyn_cast<scf::ParallelOp>(loops->front());
      if (!parallel)
        continue;
      // One dimension, so that every parallel dimension is spread over
      // blocks and threads (the mapping takes at most three, in order).
      unsigned n = parallel.getNumLoops();
      if (n > 1) {
        std::vector<unsigned> all(n);
        std::iota(all.begin(), all.end(), 0u);
        // The collapsed loop replaces `parallel`, after the ops that compute
        // its bounds.
        Operation *before = parallel->getPrevNode();
        Block *block = parallel->getBlock();
        collapseParallelLoops(rewriter, parallel, {all});
        Operation *next = before ? before->getNextNode() : &block->front();
        while (next && !isa<scf::ParallelOp>(next))
          next = next->getNextNode();
        parallel = cast<scf::ParallelOp>(next);
      }
      scf::tileParallelLoop(parallel, {static_cast<int64_t>(blockSize)},
                            /*noMinMaxBounds=*/false);
    }
    // Constant tile bounds, which convert-parallel-loops-to-gpu needs to
    // size the blocks: folding only (the canonicalizer would also inline a
    // tile loop of one iteration, and its threads would become blocks).
    if (failed(applyPatternsGreedily(getOperation(),
                                     RewritePatternSet(&getContext()))))
      return signalPassFailure();
  }
};

} // namespace
