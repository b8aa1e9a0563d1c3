//===- Passes.td - gpupoor conversion passes ---------------*- tablegen -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_PASSES_TD
#define GPUPOOR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGPUPoorToLoops : Pass<"convert-gpupoor-to-loops"> {
  let summary = "Lower memref gpupoor.matmul to target-independent split-k loops";
  let description = [{
    Lowers each `gpupoor.matmul` on memrefs to the loop form that the GPU
    lowerings start from and that also runs on the CPU:

    * an `scf.parallel` over output tiles (batch x BM x BN), one per thread
      block of the GPU kernel;
    * `scf.for` over the rows and columns of a tile;
    * the split loop over the S chunks of K. K is cut into ceil(K / BK)
      blocks and chunk s takes blocks [s * b, (s + 1) * b) with
      b = ceil(blocks / S), clipped to K: uneven chunks absorb any tail and
      no work is dropped (chunks past the end are empty);
    * inside a chunk, the f16 accumulator is updated once per 16-wide k
      step, exactly as m16n8k16 mma with f16 accumulators does it: the
      (up to) 16 products and the incoming accumulator are summed in f64
      and rounded once, to nearest, into f16;
    * each chunk's f16 result is added to the outer accumulator (f32, or f16
      with one rounding per add);
    * the epilogue converts to f32, adds the bias, applies ReLU or GELU
      (erf form) and converts to C's element type.

    When the strategy has no `splits`, S is computed from K at run time with
    gpu_poor's rule. Tensor-semantics ops are rejected: bufferize first.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ConvertGPUPoorToNVGPU : Pass<"convert-gpupoor-to-nvgpu", "::mlir::ModuleOp"> {
  let summary = "Lower memref gpupoor.matmul to an mma.sync kernel and its launch";
  let description = [{
    Replaces each `gpupoor.matmul` on memrefs with a `gpu.launch_func` of a
    kernel in a new `gpu.module`. The kernel takes the Triton ABI of gpu_poor's
    `_matmul_kernel`: `(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, stride_am,
    stride_ak, stride_bk, stride_bn, stride_cm, stride_cn)`, global pointers
    and i32 sizes and element strides, on a 1-D grid of
    `ceil(M/BM) * ceil(N/BN)` blocks of `32 * warps-m * warps-n` threads,
    with `stages * (BM + BN) * BK * 2` bytes of dynamic shared memory, plus
    16 bytes (8 with f16 outer sums) a thread for each outer-sum fragment
    kept in shared memory (`shared-outer-rows`).

    Inside: grouped block order; A and B tiles staged through a `stages`-deep
    `nvgpu.device_async_copy` pipeline (16-byte copies, L1 bypassed; plain
    copies while the refilled tile lies inside K, zero-filling ones for the
    K tail) in an XOR-swizzled shared layout; `nvgpu.ldmatrix` fragments
    loaded `fragment-prefetch` k16 steps ahead, across the barrier that
    publishes the next tile; `nvgpu.mma.sync` m16n8k16 with f16
    accumulators; one loop per split-k chunk whose last tile is peeled, so
    that adding the f16 accumulators into the outer accumulators overlaps
    with its mma.sync; an epilogue (bias, ReLU/GELU, conversion) that
    stages each warp's share of C through its own region of the idle
    stages and stores guarded 16-byte row vectors (`shared-epilogue`).

    Warps default to 2 x 2 (64 x 64 warp tiles), or eight 64 x 64 warp
    tiles where the tile holds eight (256 x 128, 128 x 256). With f32 outer sums half
    of a warp's outer sums then live in shared memory, one 16-byte slot per
    thread and fragment touched only at chunk ends, since 64 f16 and 128
    f32 accumulators do not fit in 255 registers next to the fragments.
    Where two such blocks do not fit the chip's shared memory per SM (f32
    outer sums on sm_80..sm_89, f16 ones with 4 stages on sm_86/sm_89),
    the kernel takes 2 x 4 warps of 64 x 32 with all sums in registers.
    The split geometry is the loop form's (see `convert-gpupoor-to-loops`),
    so the kernel's results equal the CPU loop form's bit for bit (with
    `mma-handover` the f32 outer adds run on the tensor cores, whose
    rounding may differ in the last bit of an f32 sum).

    The 16-byte copies need the inner strides of A and B to be 1 and rows
    (and pointers) 16-byte aligned: a launcher checks that before choosing
    this kernel. With `async-copies=false` the kernel loads tiles element
    by element instead and takes any strides and alignment (K = 1031, say),
    at a lower speed. A batched matmul launches the same kernel once per
    batch element, in an `scf.for` over rank-reduced `memref.subview`s of A,
    B and C (the bias is shared); the launch's `gpupoor.kernel` info says
    `batched = true`. sm_90a (wgmma) is rejected for now.
  }];
  let options = [
    Option<"warpsM", "warps-m", "int64_t", /*default=*/"0",
           "Warps along M in a block (0: BM / 64 for tiles of eight 64 x 64 "
           "warp tiles, such as 256 x 128, with async copies; else 2)">,
    Option<"warpsN", "warps-n", "int64_t", /*default=*/"0",
           "Warps along N in a block (0: BN / 64 for tiles of eight 64 x 64 "
           "warp tiles with async copies; else 2 with async copies, unless "
           "two such blocks do not fit the SM's shared memory; else 4)">,
    Option<"stages", "stages", "int64_t", /*default=*/"3",
           "Depth of the cp.async pipeline (0: 4 for BK = 32, 3 for BK of "
           "64 or more)">,
    Option<"groupM", "group-m", "int64_t", /*default=*/"8",
           "Row tiles per group in the grouped block order">,
    Option<"asyncCopies", "async-copies", "bool", /*default=*/"true",
           "Stage tiles with 16-byte cp.async (needs unit inner strides and "
           "16-byte aligned rows); false loads element by element (any "
           "strides and alignment, slower)">,
    Option<"fragmentPrefetch", "fragment-prefetch", "int64_t",
           /*default=*/"1",
           "How many k16 steps ahead the ldmatrix fragments load (0 to "
           "BK/16). With 1 or more they are double-buffered in registers "
           "and the next tile's first fragments load across its barrier "
           "while this tile's last mma.sync run; each step costs one k "
           "step's fragments in registers">,
    Option<"sharedOuterRows", "shared-outer-rows", "int64_t",
           /*default=*/"-1",
           "How many of a warp's m16 rows of outer sums live in shared "
           "memory instead of registers (0 to warp rows / 16; -1: half of "
           "them for f32 outer sums of warp tiles 64 or more wide, else 0). "
           "Each thread owns its slots, touched only at chunk ends; the "
           "registers they free let 64 x 64 warp tiles keep f32 outer sums">,
    Option<"sharedEpilogue", "shared-epilogue", "bool", /*default=*/"true",
           "Store C through shared memory: each warp writes its fragments "
           "into its own region of the idle stages and stores 16-byte row "
           "vectors (element stores where C is not contiguous, aligned or "
           "whole along N). Falls back to stores straight from the "
           "fragments when the stages cannot hold a warp's 16 rows">,
    Option<"mmaHandover", "mma-handover", "std::string", /*default=*/"\"auto\"",
           "At chunk ends, add the f16 sums into f32 outer sums on the "
           "tensor cores (an n8 tile's sums are the A fragment of an "
           "m16n8k8 mma.sync; times the 8 x 8 identity with f32 "
           "accumulation) instead of converting and adding them one by "
           "one (true, false or auto). Measured on an H100: 3-6% faster "
           "with 8 warps of 64 x 64, no faster with 2 x 2 warps; auto "
           "takes it for f32 outer sums of 8 warps of 64 x 64">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "Width of index in the lowered kernel; must match the NVVM "
           "lowering's (gpupoor-kernel-to-nvvm)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def ConvertGPUPoorKernelToNVVM
    : Pass<"convert-gpupoor-kernel-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower a gpu.module of gpupoor kernels to NVVM with one type converter";
  let description = [{
    Converts the nvgpu, gpu, memref, arith, cf, func and math ops of a
    `gpu.module` to the LLVM and NVVM dialects in one conversion, with one
    LLVM type converter whose index width is `index-bitwidth`. Upstream's
    `convert-nvgpu-to-nvvm` always uses 64-bit indices; run separately before
    `convert-gpu-to-nvvm{index-bitwidth=32}`, the two disagree on the memref
    descriptors. This pass reuses upstream's pattern sets; only the assembly
    is ours. Multi-dimensional vector ops (MMA fragments) are left to
    `convert-vector-to-llvm`.
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "Width of index in the kernel (32: cheaper address arithmetic, "
           "element offsets below 2^31)">
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
  ];
}

#endif // GPUPOOR_CONVERSION_PASSES_TD
