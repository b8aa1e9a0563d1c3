//===- KernelABI.h - the Triton ABI of gpupoor kernels ----------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// gpupoor's kernels take gpu_poor's Triton ABI: (a_ptr, b_ptr, c_ptr, M, N,
// K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn),
// global pointers and i32 sizes and element strides (i64 for kernels with
// 64-bit indices), then a pointer and two strides per epilogue operand
// (getKernelParams). A batched kernel adds the i64 batch strides of A,
// B and C and the batch count after C's strides, and a batch stride after
// each epilogue operand's; a parallel split-k kernel the workspace last.
// This part declares such a kernel and gives its body the arguments as
// memrefs (a batched kernel's at a batch element).
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_KERNELABI_H
#define GPUPOOR_CONVERSION_GPUKERNEL_KERNELABI_H

#include "gpupoor/Conversion/GPUKernel/KernelPart.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::gpupoor {

/// The address space of global memory in NVVM.
constexpr unsigned kGlobalSpace = 1;

/// A CUtensorMap: 128 opaque bytes, 64-byte aligned.
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlign = 64;
/// The LLVM type that carries a tensor map by value (host) or names it as a
/// byval kernel parameter (device): 16 x i64.
Type tensorMapType(MLIRContext *ctx);

/// Declares `gpu.module @<name>_module { gpu.func @<name>(Triton ABI) }` at
/// the end of `module`: a kernel of `spec.threads()` threads, its arguments
/// named after the ABI, the module carrying the kernel's configuration.
gpu::GPUFuncOp createKernelFunc(ModuleOp module, SymbolTable &symbols,
                                Location loc, StringRef name,
                                const KernelSpec &spec);

/// The kernel's arguments, as its body reads them.
struct KernelArgs {
  /// 2-D global memrefs of A, B (K x N or N x K) and C; `cUnit` is C with a
  /// unit column stride, for vector stores once that is checked.
  Value a, b, c, cUnit;
  /// The element-copy kernels' (KernelSpec::asyncCopies off) A and B with
  /// a unit inner stride, and, per operand, the elements of the cp.async
  /// pieces it can read its rows in: 4 (8 bytes) or 2 (4 bytes) where the
  /// operand's start and row stride lie on that many bytes and its inner
  /// stride is 1 (checked at run time), 0 where it takes element loads.
  /// Null with 16-byte copies and in 64-bit kernels (element loads).
  Value aUnit, bUnit, aPieceElems, bPieceElems;
  /// With column stores (KernelSpec::columnStores): C's transposed view,
  /// N x M with a unit stride along M, for column-vector stores once that
  /// is checked; null otherwise.
  Value cColumns;
  /// C's pointer.
  Value cPtr;
  Value strideCm, strideCn;
  /// A batched kernel's C batch stride (i64, as passed), which whether C's
  /// tensor map describes C reads; null otherwise.
  Value strideCb;
  /// The epilogue's operands as M x N memrefs (strides 0 where they
  /// broadcast).
  SmallVector<Value> epilogueInputs;
  /// Parallel split-k's workspace: global pointer and bytes (i64: a
  /// 32-bit kernel's index could not hold every size).
  Value wsPtr, wsBytes;
  /// Its per-tile counters: global pointer and count (i64). Apart from the
  /// sums, so that a buffer reused for launches of other grids never has a
  /// launch's sums where another expects zeroed counters.
  Value locksPtr, locksCount;
  /// The TMA kernel's tensor maps of A and B, and of C where the epilogue
  /// stores by TMA (KernelSpec::tmaStores; null otherwise): generic
  /// pointers into the parameter space.
  Value aMap, bMap, cMap;
};

/// A 1-D global memref of `size` elements of `elementType` over `ptr`.
Value memref1DFromPointer(ImplicitLocOpBuilder &b, Value ptr, Type elementType,
                          Value size, unsigned indexBitwidth);

/// Sets kc.tid, kc.lane and the warp's place in the spec's warp grid
/// (row-major: warps along N vary fastest), counting threads from
/// `firstThread` (the TMA kernel's consumers follow its producer).
void emitThreadIds(KernelContext &kc, int64_t firstThread = 0);

/// Reads the arguments at the start of `func`'s body; sets kc.m, kc.n,
/// kc.k, the tile counts and kc.pid, and for a batched kernel kc.batches
/// and kc.batch (of a persistent kernel: 0, which its loop over work tiles
/// sets per tile, reading the pointers with kernelArgsAt). With async
/// copies, A's and B's inner strides are taken to be 1 (the launcher
/// checks; the manifest says so).
KernelArgs readKernelArgs(KernelContext &kc, gpu::GPUFuncOp func);
/// The arguments of `func` (in its body, after readKernelArgs) with a
/// batched kernel's pointers at batch element `batch`.
KernelArgs kernelArgsAt(KernelContext &kc, gpu::GPUFuncOp func, Value batch);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_KERNELABI_H
