//===- WarpgroupMma.h - wgmma on shared-memory tiles ------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Hopper's warpgroup MMA with f16 accumulators: each warpgroup (four warps)
// multiplies its 64 rows of a stage's A tile by the whole B tile with
// `nvvm.wgmma.mma_async` m64nBNk16, both operands read from shared memory
// through matrix descriptors. The stages are the copy pipeline's, whose
// XOR swizzle of 16-byte chunks over 128-byte rows (BK = 64, K-major A and
// B) is the 128-byte swizzle wgmma reads.
//
// Why not nvgpu.warpgroup.mma: in MLIR 22 it carries f16 accumulators as a
// struct of scalar f16, which convert-nvvm-to-llvm rejects, and
// nvgpu.warpgroup.mma.store refuses them. The accumulator here is wgmma's
// own register form, 2 * BN / 8 32-bit registers of f16 pairs; each pair of
// registers is the m16n8 fragment of mma.sync's f16 accumulator for the
// warp's 16 rows, so the split handover and the epilogue take them as they
// take mma.sync's.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_WARPGROUPMMA_H
#define GPUPOOR_CONVERSION_GPUKERNEL_WARPGROUPMMA_H

#include "gpupoor/Conversion/GPUKernel/KernelPart.h"

namespace mlir::gpupoor {

class OuterSums;

class WarpgroupMma : public KernelPart {
public:
  /// The descriptors of this warpgroup's A rows and of B in stage 0.
  /// Emitted where every lane of each warp runs: it shuffles across the
  /// warp (uniformWarpgroup).
  explicit WarpgroupMma(KernelContext &kc);

  /// One f16 sum's type: an LLVM struct of 2 * cols / 8 i32 (cols = BN
  /// unless the tile's columns are split into parts).
  Type accType(int64_t cols = 0) const;
  /// The type of a chunk's sums, the strategy's `sets` f16 sums of the
  /// whole tile one after the other (accType with one).
  Type sumsType() const;
  /// A chunk's sums, zero.
  Value zero();
  /// A chunk's sums (or with `cols` > 0 one sum of that many columns)
  /// whose registers hold nothing yet, for a `fresh` stage.
  Value unset(int64_t cols = 0);
  /// acc += A * B over the stage `stageShift` bytes into the dynamic shared
  /// memory: BK / 16 wgmma in one commit group, not waited for, k16 step
  /// ks adding into sum ks mod sets of `acc` (sumsType). A `fresh` stage
  /// starts new sums: each sum's first wgmma ignores it (scale-d = 0), so
  /// no instructions zero the registers first. With `cols` > 0 (one sum),
  /// `acc` holds the tile's columns [firstCol, firstCol + cols) only
  /// (m64n<cols>k16).
  Value emitStage(Value stageShift, Value acc, bool fresh = false,
                  int64_t firstCol = 0, int64_t cols = 0);
  /// Waits until at most `pending` commit groups of this warpgroup run.
  void emitWait(int64_t pending);
  /// `acc`'s registers, each passed through an empty volatile asm: placed
  /// after a wait, it keeps the reads of an accumulator behind the wait
  /// (LLVM sees wgmma's results as defined at its issue and would move
  /// their uses ahead of the wait, where ptxas then waits for every group;
  /// CUTLASS's warpgroup_fence_operand does the same).
  Value fenced(Value acc);
  /// `values` (vectors, e.g. outer-sum fragments) passed through empty
  /// volatile asm 32 bits at a time, in place: what they hold is computed
  /// before the side effects that follow (the next wgmma), not sunk past
  /// them.
  void fence(MutableArrayRef<Value> values);
  /// The warp's m16n8 f16 fragments (vector<2x2xf16>, n8 tile by tile) of
  /// a waited-for accumulator, sum after sum.
  SmallVector<Value> fragments(Value acc);
  /// Adds a waited-for chunk's sums `acc` (sumsType) into `outer`, sum 0,
  /// 1, ... in turn, `regs` being its sums in registers; returns their new
  /// values.
  SmallVector<Value> handOver(Value acc, ArrayRef<Value> regs,
                              OuterSums &outer);

private:
  /// `word` (i32) through empty volatile asm: the value the asm returns.
  Value keep(Value word);
  /// kc.tid / 128, the warpgroup among the threads that multiply, in a
  /// form ptxas knows to be the same in every lane of a warp.
  Value uniformWarpgroup();

  Value descA, descB;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_WARPGROUPMMA_H
