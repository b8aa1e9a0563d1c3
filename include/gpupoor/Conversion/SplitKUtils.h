//===- SplitKUtils.h - split-k geometry shared by the lowerings -*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_SPLITKUTILS_H
#define GPUPOOR_CONVERSION_SPLITKUTILS_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::gpupoor {

/// How K is cut: B = ceil(K / BK) blocks in C = min(S, B) balanced chunks.
/// With B = q * C + r, the first r chunks hold q + 1 blocks and the others
/// q (none is empty): chunk c takes blocks [c * q + min(c, r), (c + 1) * q +
/// min(c + 1, r)); where S divides B every chunk holds B / S of them.
/// Chunks c >= C of the S are empty. Every lowering uses this one
/// definition, so the CPU loop form and the GPU kernels agree bit for bit.
struct SplitGeometry {
  Value numKBlocks; // index
  Value splits;     // index, S
  Value numChunks;  // index, min(S, numKBlocks)

  /// The first block of chunk `c` (index, 0 <= c <= numChunks), which ends
  /// where chunk c + 1 starts: c * q + min(c, r). No division in the chunk
  /// loop: the kernels' K is a run-time value, and floor(c * B / C) took an
  /// unsigned division a chunk bound (a build with it read 184.1 us at
  /// 4096^3 on an H100, this form 179.5-180.4 in a later run:
  /// docs/design/decisions.md#twelve-balanced-chunks-for-k-near-2048).
  Value emitChunkStart(ImplicitLocOpBuilder &b, Value c) const;

private:
  friend SplitGeometry emitSplitGeometry(ImplicitLocOpBuilder &, Value,
                                         SplitKAttr, Value);
  Value perChunk, remainder; // q, r
};

/// Emits the geometry for a reduction of `k` (index) elements under
/// `strategy`; S is a constant when the strategy fixes it, else `splits`
/// (index, the launch's; at least 1) where given, else gpu_poor's rule
/// evaluated at run time.
SplitGeometry emitSplitGeometry(ImplicitLocOpBuilder &b, Value k,
                                SplitKAttr strategy, Value splits = Value());

/// T, the C tiles of `batch` elements of M x N (index) under `strategy`'s
/// tile: batch * ceil(M/BM) * ceil(N/BN), as the kernels' grid counts them
/// (a null `batch`: one element).
Value emitTileCount(ImplicitLocOpBuilder &b, SplitKAttr strategy, Value m,
                    Value n, Value batch);

/// P', the K slices that run (launchSlices in IR): `tiles` (index) is the
/// number of C tiles of every batch element, `splits` S, `k` K (one slice
/// for sm_90a's kernels below policy::kMinWgmmaSliceK).
Value emitSliceCount(ImplicitLocOpBuilder &b, SplitKAttr strategy, Value tiles,
                     Value splits, Value k);

/// The epilogue of one element: the outer sum `outer` (f16 or f32) rounded
/// once to `accType`, then `epilogue`'s ops (a gpupoor.matmul's epilogue
/// block; null for none) cloned with that value, the element `ins[i]` of
/// each ins operand and C's element `cIn` as arguments; returns the value
/// it yields. `cIn` may be null when the block does not read it. CPU and GPU
/// lowerings share it, so that their epilogues compute the same function.
Value emitEpilogue(OpBuilder &b, Location loc, Value outer, Type accType,
                   Block *epilogue, ValueRange ins, Value cIn);

/// Emits, before memref `op`, a `cf.assert` that the operand sizes the types
/// leave dynamic agree: A's K with B's; the batch, M and N across A, B, C
/// and the epilogue's operands (on the dimensions their maps name). A
/// mismatch stops the program instead of letting a lowering read out of
/// bounds; nothing is emitted when the types settle every size.
void emitShapeChecks(ImplicitLocOpBuilder &b, MatmulOp op);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_SPLITKUTILS_H
