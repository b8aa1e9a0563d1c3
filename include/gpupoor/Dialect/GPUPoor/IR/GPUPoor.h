//===- GPUPoor.h - gpupoor dialect ------------------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H
#define GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorDialect.h.inc"
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorAttrs.h.inc"

#define GET_OP_CLASSES
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoorOps.h.inc"

namespace mlir::gpupoor {

/// Bounds of the strategy's and the kernel configuration's fields, checked
/// by the attribute verifiers and the options alike, so that no product of
/// them overflows.
constexpr int64_t kMaxWarps = 32; // 1024 threads
constexpr int64_t kMaxStages = 32;
constexpr int64_t kMaxGroupM = 65536;
constexpr int64_t kMaxTileSize = 4096; // each of BM, BN, BK
constexpr int64_t kMaxSplits = 65536;
/// Slices run along grid y, which has at most 65535 blocks.
constexpr int64_t kMaxSlices = 65535;
/// C's tiles (of every batch element) run along grid x, which has at most
/// 2^31 - 1 blocks.
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;

/// The discardable attribute that carries a kernel's #gpupoor.kernel_config
/// on its gpu.module (the NVVM lowering reads the index width from it).
inline StringRef getKernelConfigAttrName() { return "gpupoor.kernel_config"; }

/// The #gpupoor.kernel attribute on each launch of a gpupoor kernel (what
/// gpupoor-dump-kernels writes out as the manifest).
inline StringRef getKernelAttrName() { return "gpupoor.kernel"; }

/// The unit attribute gpupoor-swap-operands puts on the gpupoor.matmul it
/// makes of a swapped one, and the kernel lowerings on its launches: the op
/// computes the source's C^T = B A^T (gpupoor-dump-kernels says so).
inline StringRef getSwappedOperandsAttrName() {
  return "gpupoor.swapped_operands";
}

/// The widest integer device code (an epilogue among it) may compute with:
/// the NVPTX backend has no libcalls for wider ones (fptosi to i128 aborts
/// it).
constexpr unsigned kMaxDeviceIntegerWidth = 64;

/// Whether `op` may be in a gpupoor.matmul epilogue: a side-effect free
/// arith or math op without regions on scalars (integers of at most
/// kMaxDeviceIntegerWidth bits), which every lowering can clone per
/// element.
bool isValidEpilogueOp(Operation *op);

/// The K step that the default split rule counts K in: gpu_poor's BK. The
/// rule counts in these blocks whatever the tile's own K step, so that S,
/// and with it the error depend on K alone (the chunk lengths too where S
/// divides the tiles; elsewhere the balanced chunks are whole tiles of the
/// kernel's BK, so their lengths follow BK by at most a tile): a wgmma tile
/// (BK = 64) or a decode tile (BK = 128) would otherwise halve or quarter S
/// and raise the error (docs/Numerics.md).
constexpr int64_t kSplitRuleBlock = 32;

/// From this many rule blocks on (K > 2016) the default takes at least
/// kMinLongKSplits chunks. gpu_poor's rule gives S between sqrt(blocks) and
/// twice it, and its error against a plain f16 sum's goes as 1/sqrt(S):
/// where the root is a power of two it is at its worst, and at 64 to 80
/// blocks (K in (2016, 2560]) gpu_poor's 8 chunks measured 0.38 of cuBLAS
/// f16acc's error, 12 balanced chunks 0.33 at 1.4-2.3% of speed, 16 chunks
/// 0.29 at up to 12% (H100, docs/Hopper.md). From 81 blocks on the rule
/// gives 16 or more; below 64, a third of f16acc's error would take chunks
/// of one or two wgmma K tiles, which the handover makes 10-35% slower.
constexpr int64_t kLongKRuleBlocks = 64;
constexpr int64_t kMinLongKSplits = 12;

/// The default number of K splits for a reduction of `k` elements:
/// gpu_poor's next_pow2(floor(sqrt(ceil(k / kSplitRuleBlock)))), at least
/// kMinLongKSplits from kLongKRuleBlocks blocks on, clamped to
/// [1, maxSplits].
int64_t defaultNumSplits(int64_t k, int64_t maxSplits);

/// The slice count P' that runs: min(slices, S) for a strategy that names
/// `slices` > 0. For 0 (automatic), the fewest slices that minimize the
/// work of the busiest SM, ceil(T P / SMs) / P, over P in [1, S] with all
/// T P blocks in one wave of B blocks an SM (sliceBlocksPerSM): with
/// P1 = clamp(floor(SMs / T), 1, S) (one block an SM) and
/// PB = clamp(floor(B SMs / T), 1, S), PB if PB > 2 P1, else P1; but 1
/// where Q T >= SMs for a tile share Q > 0 (sliceOneSliceShare).
/// Measured on an H100 (docs/GPU.md): more slices than that only add
/// slice sums to meet; 224 blocks of 112 tiles ran slower than 112, and
/// 240 blocks of the wgmma kernel (one an SM) ran at 0.8x of 96. Every
/// lowering and the model share this rule (host code and the CPU loop form
/// emit it with emitSliceCount).
int64_t numSlices(int64_t slices, int64_t tiles, int64_t splits,
                  int64_t smCount, int64_t blocksPerSM,
                  int64_t oneSliceShare = 0);

/// T, the C tiles of BM x BN in a static C shape [batch x] M x N: batch *
/// ceil(M / BM) * ceil(N / BN).
int64_t staticTileCount(ArrayRef<int64_t> cShape, int64_t bm, int64_t bn);

/// B, the blocks an SM the automatic slice count plans for: 1 for tiles
/// whose kernel takes 256 threads of up to 255 registers, which fill the
/// 64K-register file (the wgmma kernel's BM >= 128: two warpgroups; 128 x
/// 256 and 256 x 128 mma.sync tiles: eight warps); 2 for the rest. A
/// function of the strategy alone, so that the CPU loop form counts the
/// same slices as the kernels.
int64_t sliceBlocksPerSM(Chip chip, ArrayRef<int64_t> tile);

/// Q, the share of the SMs from which tiles run one slice (T Q >= SMs), or
/// 0 for none: 4 for sm_90a's one-warpgroup (64-row) wgmma tiles, whose
/// memory-bound products stream the weights as fast from a quarter of the
/// SMs. Measured on an H100 (docs/Hopper.md): at 64 x 4096 x 4096 and 64 x
/// 4096 x 14336 (64 tiles of 64 x 64) one slice ran 1.13x and 1.03x the
/// two of the rule without it; at 128 x 2048 x 5120 (64 tiles) 0.93x,
/// still 1.03x cuBLAS; with 32 tiles (64 x 2048 x 5120) four slices ran
/// 1.04x one. A function of the strategy alone, as sliceBlocksPerSM.
int64_t sliceOneSliceShare(Chip chip, ArrayRef<int64_t> tile);

} // namespace mlir::gpupoor

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOR_H
