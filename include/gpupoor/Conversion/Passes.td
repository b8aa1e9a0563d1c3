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
      with one rounding per add); a strategy of `sets` > 1 keeps that many
      f16 accumulators a chunk, k16 step t of each K tile into accumulator
      t mod sets, added to the outer one in turn (one whose steps all lie
      past K adds +0.0, as the GPU's zero-filled steps do);
    * the epilogue rounds the outer sum to the epilogue's `acc` type, loads
      each `ins` operand's element (and C's, when the region reads it) and
      computes the op's epilogue region, cloned into the loop.

    When the strategy has no `splits`, S is computed from K at run time with
    gpu_poor's rule. Tensor-semantics ops are rejected: bufferize first.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ConvertGPUPoorToNVGPU : Pass<"convert-gpupoor-to-nvgpu", "::mlir::ModuleOp"> {
  let summary = "Lower memref gpupoor.matmul to an mma.sync kernel and its launch";
  let description = [{
    Replaces each `gpupoor.matmul` on memrefs with a `gpu.launch_func` of a
    kernel in a new `gpu.module`, built exactly as the op's
    `#gpupoor.kernel_config` says (`gpupoor-select-kernel-config` sets it;
    an op without one is an error). The kernel takes the Triton ABI of
    gpu_poor's `_matmul_kernel`: `(a_ptr, b_ptr, c_ptr, M, N, K, stride_am,
    stride_ak, stride_bk, stride_bn, stride_cm, stride_cn)`, global
    pointers and i32 sizes and element strides, then `(in<i>_ptr,
    stride_in<i>m, stride_in<i>n)` for each epilogue operand (its strides
    along C's rows and columns, 0 where it broadcasts), on a 1-D grid of
    `ceil(M/BM) * ceil(N/BN)` blocks of `32 * WM * WN` threads, with
    `stages * (BM + BN) * BK * 2` bytes of dynamic shared memory, plus
    16 bytes (8 with f16 outer sums) a thread for each outer-sum fragment
    kept in shared memory (`shared_outer_rows`).

    Inside: grouped block order; A and B tiles staged through a `stages`-deep
    `nvgpu.device_async_copy` pipeline (16-byte copies, L1 bypassed; plain
    copies while the refilled tile lies inside K, zero-filling ones for the
    K tail) in an XOR-swizzled shared layout; `nvgpu.ldmatrix` fragments
    loaded `fragment_prefetch` k16 steps ahead, across the barrier that
    publishes the next tile; `nvgpu.mma.sync` m16n8k16 with f16
    accumulators, the strategy's `sets` of them a chunk (k16 step j of a K
    tile into sum j mod `sets`); one loop per split-k chunk whose last tile
    is peeled, so that adding the f16 accumulators into the outer
    accumulators (sum 0 first) overlaps with its mma.sync; an epilogue (the
    op's region, cloned per element, its operands read at clamped indices,
    C read where the region reads it) that
    stages each warp's share of C through its own region of the idle
    stages and stores guarded 16-byte row vectors (`epilogue_passes`).
    The split geometry is the loop form's (see `convert-gpupoor-to-loops`),
    so the kernel's results equal the CPU loop form's bit for bit (with
    `handover = mma` the f32 outer adds run on the tensor cores, whose
    rounding may differ in the last bit of an f32 sum).

    With `copies = async` the 16-byte copies need the inner strides of A
    and B to be 1 and rows (and pointers) 16-byte aligned: a launcher checks
    that before choosing this kernel. With `copies = elements` the kernel
    takes any strides and alignment (K = 1031, say), at a lower speed: it
    reads rows that start and lie on 8 or 4 bytes with a unit inner stride
    in 8- or 4-byte cp.async pieces (zero-filled only in the K tiles that
    cross an operand's edge), others element by element. A batched matmul launches
    once for the whole batch: the blocks of batch element b follow those of
    element b - 1 along grid x, and the kernel takes the batch strides of
    A, B, C and the epilogue operands (0 where they broadcast) as i64
    parameters. A strategy with slices (parallel split-k) launches P'
    blocks along grid y and passes a workspace and zeroed per-tile counters
    the host code allocates; the tile's last block adds the slice sums in
    order and runs the epilogue.
    Each launch carries a `#gpupoor.kernel` attribute (strategy,
    configuration, element types) that `gpupoor-dump-kernels` writes out as
    the kernel's manifest; each `gpu.module` carries its kernel's
    configuration as `gpupoor.kernel_config`. Ops for sm_90a are
    `convert-gpupoor-to-wgmma`'s: this pass rejects them.

    For sm_90 every thread first waits for the previous kernel of the
    stream (`griddepcontrol.wait`, inline assembly with a memory clobber),
    so that a launcher may use programmatic dependent launch (the manifest
    says `dependent_launch`); launched plainly the wait does nothing.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def ConvertGPUPoorToWGMMA : Pass<"convert-gpupoor-to-wgmma", "::mlir::ModuleOp"> {
  let summary = "Lower memref gpupoor.matmul for sm_90a to a wgmma kernel and its launch";
  let description = [{
    Replaces each `gpupoor.matmul` on memrefs whose strategy names `sm_90a`
    with a `gpu.launch_func` of a Hopper kernel and leaves every other op to
    `convert-gpupoor-to-nvgpu`. The kernel takes the same Triton ABI, grid,
    split geometry, parallel slices, workspace, handover and epilogue as
    that pass's mma.sync kernel, and is built from the same parts (its
    results equal the CPU loop form's where every partial sum is exact; in
    general they may differ in rounding, as the order in which wgmma adds
    a k16 step's products into an f16 accumulator is the hardware's). What
    differs is the main loop:

    * each of the `BM / 64` warpgroups (four warps, `warps = [BM/16, 1]`)
      multiplies its 64 rows of the stage's A tile by the B tile with
      `nvvm.wgmma.mma_async` m64nBNk16 with f16 accumulators, both operands
      read from shared memory through matrix descriptors (128-byte swizzle,
      atoms of 64 columns: A as M x K, B as N x K, or B as K x N read
      N-major through wgmma's transposed B with `BN` a multiple of 64, or
      in 32-column atoms of 64-byte rows for `BN` = 96, 160 or 224, or one
      narrow atom of 8, 16 or 32 columns: policy::wgmmaTakesNMajorB);
    * a tile's wgmma run asynchronously as one commit group; the next
      tile's barrier follows a wait for all but the newest group, so the
      cp.async ring runs `stages - 2` tiles ahead and a refill takes the
      stage two tiles back;
    * at the end of a chunk the accumulators are waited for; their
      registers (pairs of f16 in 32-bit registers, mma.sync's m16n8 fragment
      layout) go into the outer sums as the mma.sync kernel's do. The TMA
      kernel's tiles of one consumer warpgroup and at most 128 columns over
      the blocks an SM (the decode tiles, the 32-row tile, 64 x 64 and 64 x
      128 a block an SM: `KernelSpec::defersHandover`) hand a chunk over
      behind the next chunk's first commit group
      instead, once the wait for all but the newest group has seen it done,
      in unrolled groups of four chunks that end in a drain; the chunks and
      the order of the adds are the same.

    The dynamic shared memory is 1024-byte aligned
    (`convert-gpupoor-kernel-to-nvvm`), as the swizzle's phase needs.

    Dependent launch: every kernel waits for the previous kernel of the
    stream before its first global access (the cp.async kernel's threads at
    entry; the TMA kernel's loading thread before its first load and its
    consumers at their start). No kernel signals its dependents early
    (`griddepcontrol.launch_dependents`): the next kernel launches as the
    blocks exit.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
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

    The index width is the `index_bitwidth` of the module's
    `gpupoor.kernel_config` (set by `convert-gpupoor-to-nvgpu`), so that it
    matches the memref descriptors the kernel builds (an `index-bitwidth`
    option that says otherwise is an error); for a module without one, the
    option's width, or 64.
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"0",
           "Width of index in the kernel (0: the module's kernel "
           "configuration's, else 64)">
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
  ];
}

#endif // GPUPOOR_CONVERSION_PASSES_TD
