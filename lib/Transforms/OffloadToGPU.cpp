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

#include "RowCopy.h"

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

/// A constant tensor is a memref.global in host memory: the device reads a
/// copy of it, freed at the end of the block. Not where the global's memref
/// leaves the block (yielded; a returned one is a copy, the buffer
/// deallocation's clone): gpupoor-check-host-memory then reports it.
void copyGlobalToDevice(IRRewriter &rewriter, memref::GetGlobalOp global) {
  Block *block = global->getBlock();
  Operation *terminator = block->getTerminator();
  for (Operation *user : global->getUsers())
    if (block->findAncestorOpInBlock(*user) == terminator || !terminator)
      return;
  Location loc = global.getLoc();
  rewriter.setInsertionPointAfter(global);
  Value device;
  Operation *memcpy = nullptr;
  synchronously(rewriter, loc, [&](Type token, Value start) {
    auto alloc = gpu::AllocOp::create(
        rewriter, loc, global.getType(), token, ValueRange{start},
        /*dynamicSizes=*/ValueRange(), /*symbolOperands=*/ValueRange(),
        /*hostShared=*/false);
    device = alloc.getMemref();
    memcpy = gpu::MemcpyOp::create(rewriter, loc, token,
                                   ValueRange{alloc.getAsyncToken()}, device,
                                   global.getResult());
    return memcpy->getResult(0);
  });
  rewriter.replaceAllUsesExcept(global.getResult(), device, memcpy);
  rewriter.setInsertionPoint(terminator);
  synchronously(rewriter, loc, [&](Type token, Value start) {
    return gpu::DeallocOp::create(rewriter, loc, token, ValueRange{start},
                                  device)
        .getAsyncToken();
  });
}

/// Allocations and frees of host code as the device's.
void allocateOnDevice(IRRewriter &rewriter, Operation *root) {
  // Collected first: the rewrites below erase the ops they visit.
  SmallVector<Operation *> ops;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Device code already (a gpu.module, a gpu.launch's body) runs where
    // it is.
    if (isa<gpu::GPUModuleOp, gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
            memref::CopyOp>(op))
      ops.push_back(op);
    return WalkResult::advance();
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getSymbolOperands().empty())
        continue;
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
    } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
      copyGlobalToDevice(rewriter, global);
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
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
      if (isa<gpu::GPUModuleOp, gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (linalgOp.hasPureBufferSemantics())
          ops.push_back(linalgOp);
      return WalkResult::advance();
    });
    SmallVector<Operation *> created;
    for (linalg::LinalgOp op : ops) {
      // Rows of 2-byte elements (an operand copied into padded rows, say)
      // move in 16-byte words (RowCopy.h).
      if (auto copy = dyn_cast<linalg::CopyOp>(op.getOperation());
          copy && gpupoor::isRowCopy(copy)) {
        gpupoor::launchRowCopy(
            rewriter, copy,
            gpupoor::getOrCreateRowCopyKernel(rewriter, getOperation()));
        continue;
      }
      if (op.getNumParallelLoops() == 0)
        runInOneThread(rewriter, op);
      else
        spreadOverThreads(rewriter, op, created);
    }
    // Constant tile bounds, which convert-parallel-loops-to-gpu needs to
    // size the blocks: folding only, and only of the loops made here (the
    // canonicalizer would also inline a tile loop of one iteration, whose
    // threads would then become blocks; the user's code stays as it is).
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (!created.empty() &&
        failed(applyOpPatternsGreedily(
            created, RewritePatternSet(&getContext()), config)))
      return signalPassFailure();
  }

  /// Without a parallel dimension there is nothing to spread: one thread
  /// runs the op's loops.
  static void runInOneThread(IRRewriter &rewriter, linalg::LinalgOp op) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto launch =
        gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    rewriter.setInsertionPointToEnd(&launch.getBody().front());
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    rewriter.moveOpBefore(op, terminator);
    rewriter.setInsertionPoint(op);
    if (succeeded(linalg::linalgOpToLoops(rewriter, op)))
      rewriter.eraseOp(op);
  }

  /// `op` as one parallel loop over all its parallel dimensions, tiled by
  /// the block size; `created` collects the ops that replace it.
  void spreadOverThreads(IRRewriter &rewriter, linalg::LinalgOp op,
                         SmallVectorImpl<Operation *> &created) {
    Block *block = op->getBlock();
    Operation *prev = op->getPrevNode(), *next = op->getNextNode();
    auto madeHere = [&] {
      SmallVector<Operation *> made;
      for (Operation *it = prev ? prev->getNextNode() : &block->front();
           it != next; it = it->getNextNode())
        made.push_back(it);
      return made;
    };
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::LinalgLoops> loops =
        linalg::linalgOpToParallelLoops(rewriter, op);
    if (failed(loops))
      return;
    rewriter.eraseOp(op);
    auto parallel = dyn_cast<scf::ParallelOp>(loops->front());
    if (!parallel)
      return;
    // One dimension, so that every parallel dimension is spread over blocks
    // and threads (the mapping takes at most three, in order).
    if (unsigned n = parallel.getNumLoops(); n > 1) {
      std::vector<unsigned> all(n);
      std::iota(all.begin(), all.end(), 0u);
      collapseParallelLoops(rewriter, parallel, {all});
      // The collapsed loop replaced `parallel` in place.
      for (Operation *it : madeHere())
        if (auto p = dyn_cast<scf::ParallelOp>(it))
          parallel = p;
    }
    scf::tileParallelLoop(parallel, {static_cast<int64_t>(blockSize)},
                          /*noMinMaxBounds=*/false);
    for (Operation *it : madeHere())
      it->walk([&](Operation *nested) { created.push_back(nested); });
  }
};

} // namespace
