//===- Passes.td - gpupoor transformation passes -----------*- tablegen -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_TRANSFORMS_PASSES_TD
#define GPUPOOR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUPoorSplitK : Pass<"gpupoor-split-k"> {
  let summary = "Rewrite eligible f16 linalg matmuls into gpupoor.matmul with a split-k strategy";
  let description = [{
    Finds `linalg.matmul` (with A and B each possibly transposed through
    `indexing_maps`), `linalg.matmul_transpose_b` and `linalg.batch_matmul`
    with f16 operands and an f16 or f32 result, on tensors or memrefs,
    static or dynamic, and rewrites each into a `gpupoor.matmul` carrying a
    `#gpupoor.split_k` strategy; a matmul in a `gpu.module` (device code) is
    left alone. A zero-filled init is not read; any other init is
    (`C += A * B`: the epilogue adds it); a function's tensor argument as
    the init that the op would write is copied first
    (`bufferization.alloc_tensor() copy(...)`), so that the caller's buffer
    stays as it was.

    First (`fold-layouts`, on tensors), the layouts front ends spell as ops
    become the matmuls' own: a `linalg.transpose` (or a generic that only
    copies its input transposed) of A or B becomes its indexing map
    (`a_layout = km`, `b_layout = nk`) and goes if nothing else reads it; a
    `batch_matmul` of a B broadcast over the batch becomes a matmul of
    batch * M rows (A collapsed, the result expanded back, and upstream's
    reshape-by-collapsing patterns move that reshape past the elementwise
    consumers); a transpose under a `collapse_shape` (attention's K^T)
    moves below it. A matmul whose operands are `arith.extf` of f16 values
    (through transposes, broadcasts, copying generics and reshapes: a
    biased `nn.Linear` from torch-mlir's FX importer) reads the f16 values
    instead, which is exact; and what an elementwise consumer's other
    operands are computed from on the side (the bias extended and
    broadcast) goes into that consumer, so that the epilogue reads the bias
    itself.

    On tensors, the elementwise linalg ops after the matmul that read its
    result or each other's (all-parallel, no `linalg.index`, bodies of
    side-effect free scalar `arith`/`math` ops; any other operand read
    through a projected-permutation map: bias, scale, residual, 0-d bounds,
    constant tensors too, which gpupoor-to-cubin copies to the device)
    are moved into the op's epilogue region, body by body, as long as only
    the last one's result is read elsewhere: a chain, or a graph such as
    `x * sigmoid(x)`. The fused op computes exactly what they did
    (docs/design/Numerics.md); operands produced by `linalg.broadcast`, by a
    `linalg.fill` of a constant or by a splat tensor constant are read
    through the broadcast's input or as the scalar. A `gpupoor.splits`
    attribute that is not an integer in [1, 65536] is an error.

    A matmul with an f32 result asks for f32 accumulation; with
    `relax-f32-accumulation` (the default) it is taken with f16 inner sums
    all the same (the front ends' only spelling of an f16 matmul; see
    docs/design/Numerics.md), and `--remarks-filter=gpupoor-split-k` reports
    each one.

    Matmuls that are not eligible (integer, bf16 operands, f32/f64 operands
    that are not extensions of f16 values, mixed
    operand types, other contractions) are left as they are. With
    `report-ineligible`, each one gets a remark naming the reason; with
    `strict`, that is an error and the pass fails.

    The split count S follows gpu_poor's rule (`policy::defaultNumSplits`,
    include/gpupoor/Policy/Splits.h), clamped to `[1, max-splits]`; on
    sm_90 and sm_90a a decode tile (16 rows, or swapped: 16 columns) takes
    at least `ceil(K / 128)` chunks (one K tile where BK passes 128), which
    cost its weight-streaming products nothing measurable; on sm_90a the
    32-row tile takes as many (at 0.985x the speed), and the 128 x 256 tile
    at least `ceil(K / 256)` (`policy::tileNumSplits`; for a dynamic K the
    host code evaluates it). `splits` or a
    `gpupoor.splits` integer attribute on the matmul fixes it. Each chunk
    keeps the f16 sums the chip's rules give its tile and, for a static K
    and S, its chunks' length (`policy::chunkSets`: sm_90a's 64 x 64 tile
    two in chunks of at least 320, unbatched, swapped too; its swapped
    decode tile eight, a sum a k16 step, where an A stored K x M is
    copied M x K first: `policy::kCopiedDecodeSets`), or `sets` of them.

    Parallel split-k: `slices` (or a `gpupoor.slices` integer attribute on
    the matmul, in [0, 65536]) names P, the K slices that run in different
    blocks; 0 chooses it from the shape and the chip's SM count
    (`policy::numSlices`). With a static shape the pass writes P' = min(P,
    S) (or the chosen count) into the strategy; otherwise the host code
    computes it at run time.

    Without a `tile` option the tile is the policy's (`policy::selectTile`
    and `policy::selectSwappedTile`, include/gpupoor/Policy/Tiles.h, which
    give each rule and the measurement behind it), or, for a static 2-D
    product with `tuned-table`, the chip's tuned table's (lib/Policy/Tuned).
    On sm_90a a static decode product (M <= 16; A as M x K, or as K x M
    of 8 or 16 rows), and one of A as K x M of 32 rows, may run swapped
    (`swapped = true`: C^T = B A^T, whose operands gpupoor-swap-operands
    then exchanges), as may 2-D products of 65 to 128 rows from K = 4096
    whose transposed product's 64 x 128 tiles fill the chip in persistent
    clusters of four (`policy::swappedRowsTile`); on memrefs, which cannot
    be copied, A as K x M of 1 to 32 rows. An A stored K x M (on tensors) is transposed M x K first
    where the policy's kernels would read it slowly along M
    (`policy::copiesKMajorA`: on sm_90a up to 31 rows but 8 and 16, 8
    past two blocks an SM's swapped tiles, and 16 or 32 rows the rules do
    not run swapped, 32 of them where K passes 8192; on the other chips up
    to 64 rows); elsewhere, where its static rows of M are no multiple of
    8 elements (16 bytes), which every kernel would read an element at a
    time, it is copied as it lies into padded rows and read as K x M on
    sm_90a (`policy::Strategy::padsA`), transposed M x K on the other
    chips. The copies' rows are padded
    (`policy::paddedRowElems`: rows of no multiple of 8 elements to a
    multiple of 16). One row (M = 1) of a K
    that is a multiple of 8 or dynamic is reshaped 1 x K instead, a view of
    the same elements. Likewise, on tensors,
    an operand whose static rows (K, or B's N as K x N) are no multiple of
    8 elements is copied into rows so padded (a `tensor.empty` of
    the padded shape, the `tensor.extract_slice` of the operand's, a
    `linalg.copy`) where `policy::copiesUnalignedOperands` says the copy
    pays (a product of one row or column where its other operand's rows
    lie on 2 bytes; else more than one row and column, 2^22 multiply-adds
    or more; on
    sm_90a, not a narrow product whose copies would move most of its
    elements and whose rows the element kernels read in 8- or 4-byte
    pieces: 16 rows or columns at most with 8-byte rows, a decode product
    on the swapped decode tile with 4-byte ones, 64 at most where the
    launch has an eighth more blocks than SMs;
    `policy::copiesUnalignedOperands` gives the whole rule), so that the
    fast kernels read it,
    as the Python package copies it.
  }];
  let options = [
    Option<"splits", "splits", "int64_t", /*default=*/"0",
           "Fixed number of K splits (0: gpu_poor's rule)">,
    Option<"maxSplits", "max-splits", "int64_t",
           /*default=*/"::mlir::gpupoor::policy::kDefaultMaxSplits",
           "Upper clamp of the default split rule (256)">,
    Option<"slices", "slices", "int64_t", /*default=*/"0",
           "K slices run by different blocks (parallel split-k): P, or 0 "
           "to choose from the shape and the chip's SM count">,
    Option<"outerType", "outer-type", "std::string", /*default=*/"\"f32\"",
           "Outer accumulator type: f16 or f32">,
    ListOption<"tile", "tile", "int64_t",
               "Tile [BM, BN, BK] (default: the policy's for the shape and "
               "chip, policy::selectTile)">,
    Option<"swap", "swap", "::mlir::gpupoor::SwapChoice",
           /*default=*/"::mlir::gpupoor::SwapChoice::Auto",
           "Run the product transposed, C^T = B^T A^T (the swapped operands, "
           "C's transposed view): true, false or auto (default: the rules' "
           "and the tuned table's choice). true takes 2-D products on "
           "sm_90a's wgmma kernel; `tile` is then the transposed product's",
           "::mlir::gpupoor::swapChoices()">,
    Option<"sets", "sets", "int64_t", /*default=*/"0",
           "f16 sums each chunk keeps, k16 step j into sum j mod sets (0: "
           "the chip's rules, policy::chunkSets; else a power of two "
           "dividing each matmul's BK / 16)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target chip: sm_80, sm_86, sm_89, sm_90 or sm_90a (the wgmma "
           "kernel for A as M x K and B either way; the sm_90 mma.sync "
           "kernel for other layouts and tiles)">,
    Option<"tunedTable", "tuned-table", "bool", /*default=*/"true",
           "Where the chip's tuned table (lib/Policy/Tuned) has a row for a "
           "static 2-D product's class, N and K are multiples of 16 and no "
           "tile is asked for, take its measured family and slices; off: "
           "the policy's rules alone">,
    Option<"relaxF32Accumulation", "relax-f32-accumulation", "bool",
           /*default=*/"true",
           "Take f16 x f16 -> f32 matmuls (the front ends' f16 matmul) with "
           "f16 inner sums; off: leave them alone">,
    Option<"foldLayouts", "fold-layouts", "bool", /*default=*/"true",
           "Fold transposes, batch broadcasts and reshapes of the operands "
           "into the matmuls first">,
    Option<"reportIneligible", "report-ineligible", "bool", /*default=*/"false",
           "Emit a remark naming the reason for each matmul left unchanged">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Make every ineligible matmul an error">
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpupoor::GPUPoorDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def GPUPoorSwapOperands : Pass<"gpupoor-swap-operands"> {
  let summary = "Rewrite swapped gpupoor.matmul strategies into the "
                "transposed product";
  let description = [{
    A `gpupoor.matmul` on memrefs whose strategy says `swapped = true`
    computes `C = A B^T` (A M x K, B N x K) as the kernel of the transposed
    product `C^T = B A^T`: this pass rewrites it into the plain op on
    operands `B, A` and init `memref.transpose` of C (a view: the kernel
    writes C through its strides), with each epilogue operand's map taking
    the swapped indices, the strategy's `swapped` cleared and the
    attribute `gpupoor.swapped_operands` set (`gpupoor-dump-kernels` says
    so in the manifest: a launcher outside MLIR passes B, A and C's
    transposed view). The result of every element is the same: each is
    the same K chunks of the same products, summed in the same order.

    `gpupoor-split-k` chooses the swap for sm_90a's decode products (see
    `#gpupoor.split_k`); `gpupoor-to-cubin` runs this pass after
    bufferization. Ops on tensors are left alone; the kernel lowerings
    refuse an op whose strategy is still swapped.
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUPoorCheckHostMemory
    : Pass<"gpupoor-check-host-memory", "::mlir::ModuleOp"> {
  let summary = "Fail where host code would access GPU memory";
  let description = [{
    In `gpupoor-to-cubin`, every memref a host function receives or creates
    is GPU memory: kernels read and write it, and the host code only
    computes the pointers, sizes and strides of their launches. This pass,
    run on the host code after the matmuls became launches, reports each op
    outside a `gpu.module` that reads, writes, allocates or frees memref
    memory as an error: an elementwise op the epilogue could not take (it
    would run as host loops over device buffers), a copy bufferization
    made (a `C += A * B` result materialized into another buffer), an
    allocation. Such host code would fault, or read garbage, at run time.
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUPoorCheckMemorySpaces
    : Pass<"gpupoor-check-memory-spaces", "::mlir::ModuleOp"> {
  let summary = "Fail where host code holds memrefs the LLVM lowering cannot "
                "translate";
  let description = [{
    Reports each op outside a `gpu.module` whose operands, results or block
    arguments include a memref in a memory space other than the default or
    an integer one (`#gpu.address_space<workgroup>`, say) as an error.
    Upstream's `finalize-memref-to-llvm` prints an error for such a memref
    and still succeeds; the CPU and host pipelines run this pass first, so
    that they fail instead.
  }];
}

def GPUPoorLowerClones : Pass<"gpupoor-lower-clones", "::mlir::ModuleOp"> {
  let summary = "Copy a buffer a function returns without owning it, in its "
                "own layout";
  let description = [{
    The buffer deallocation pipeline returns (or yields) a copy of a buffer
    a function does not own: `bufferization.clone`. This pass makes it an
    allocation and a `linalg.copy`: an identity-layout clone a `memref.alloc`
    of its shape; any other a 1-D allocation spanning the source's layout
    (its offset and last element), viewed by `memref.reinterpret_cast` with
    the source's offset, sizes and strides. The host code asserts at run
    time that the strides are not negative. In `gpupoor-to-cubin`,
    `gpupoor-offload-to-gpu` then moves both to the device.

    Upstream's `convert-bufferization-to-memref` allocates an identity
    layout, and refuses a clone of a static layout that no cast reaches
    (a subview of a wider buffer); its `memref.copy` of a strided buffer
    calls MLIR's C runner utilities, which gpupoor's host code does not
    link.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUPoorOffloadToGPU : Pass<"gpupoor-offload-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Move the host code's work on device buffers to the GPU";
  let description = [{
    In `gpupoor-to-cubin` every memref is device memory. After the matmuls
    became launches, the host code may still allocate buffers (a function's
    result, a temporary), copy them, and run the linalg ops no epilogue
    took (attention's softmax, a value read by two ops). This pass moves
    that work to the device: `memref.alloc` / `memref.dealloc` become
    `gpu.alloc` / `gpu.dealloc`, `memref.copy` a `linalg.copy`; a copy of
    2-D or 3-D rows of 2-byte elements with unit inner strides (an operand
    copied into padded rows) a launch of the row-copy kernel
    (`gpu.module @gpupoor_row_copy`, added once: each thread copies an
    8-element chunk of a destination row through the aligned 16-byte words
    around it, element by element where those words or the destination do
    not allow it); and each
    linalg op with a parallel dimension a `scf.parallel` over its parallel
    dimensions, collapsed into one and tiled by `block-size`, for upstream's
    `gpu-map-parallel-loops`, `convert-parallel-loops-to-gpu` and
    `gpu-kernel-outlining` to make a kernel of (one thread an element;
    reduction dimensions stay loops in the thread). A linalg op without a
    parallel dimension (a 0-d fill, a full reduction) runs as loops in a
    one-thread `gpu.launch`. Other accesses (a `memref.load` the user wrote
    in host code) stay, and `gpupoor-check-host-memory` reports them.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads a block of the elementwise kernels">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUPoorSelectKernelConfig : Pass<"gpupoor-select-kernel-config"> {
  let summary = "Choose the mma.sync kernel configuration of each gpupoor.matmul";
  let description = [{
    Sets the `config` of each `gpupoor.matmul` that has none to a
    `#gpupoor.kernel_config` for the `nvgpu.mma.sync` kernel that
    `convert-gpupoor-to-nvgpu` builds from it. This pass is the one place
    where the kernel's heuristics live (the tile itself is chosen by
    `gpupoor-split-k` through the same code); each option below overrides
    one choice, and its default is the measured one
    (docs/design/decisions.md). Ops with a `config` keep it.

    An op whose f32 outer sums meet at most two f16 chunk sums (S <= 2, or
    a static K of at most two K tiles) and round straight to an f16 C (no
    epilogue) gets `outer = f16` in its strategy: the result is the same bit
    for bit (both round c0 + c1 once to f16: where it is no f32 number the
    two lie 13 or more binades apart and both forms give the larger), and
    f16 sums take half the registers and handover work.

    sm_90a ops get the configuration of `convert-gpupoor-to-wgmma`'s kernel:
    warps `[BM / 16, 1]` (a warpgroup per 64 rows; the warps options do not
    apply); stages: for one warpgroup (BM = 64) 192 KiB of them, at most
    as many bytes of A as 12 stages of 64 x 64 x 64 (8 of 64 x 128 x 64, 12
    of 64 x 64 x 64, 6 of the swapped 64 x 16 x 128; one block an SM) where
    a static grid fits one wave of one block an SM and for dynamic shapes,
    else two blocks an SM (`blocks_per_sm = 2`, the TMA kernel; 96 KiB of
    stages each: 4 of 64 x 128 x 64 and of 64 x 16 x 128; not where three
    stages each would not fit,
    as 64 x 256 x 64's); for two warpgroups as many as fit up to 6 (4
    of 128 x 256; the persistent kernel gives stages up until its epilogue
    buffer fits), for three (192 rows) as many as fit (4 of 192 x 192);
    persistent blocks for static grids of two-warpgroup TMA tiles and of
    the three-warpgroup 192 x 192 tile beyond one wave (measured on an
    H100, 2026-11-25:
    docs/design/decisions.md#persistent-kernels-with-tma-stored-c; 192 x
    192: docs/design/decisions.md#192--192-tiles-over-three-consumer-warpgroups), and
    for the 64 x 128 tile in clusters of four (policy::quadClusterPays);
    8 stages, not 12, for the 64 x 64 tile in clusters of four (the
    transposed product's: policy::clusterStages;
    docs/design/decisions.md#eight-stages-for-the-transposed-products-64--64-tiles),
    and 8, not 6, for the swapped decode tiles of A stored K x M in
    clusters of four
    (docs/design/decisions.md#eight-stages-for-swapped-decode-tiles-in-clusters-of-four);
    no fragment prefetch, no shared outer rows, the convert handover.
    That kernel reads A as M x K or K x M (whole 64-row atoms: BM a
    multiple of 64) and B as N x K or K x N (whole 64-column atoms: BN a
    multiple of 64 in 128-byte rows; or 96, 160 or 224 columns in 32-column
    atoms of 64-byte rows, or one narrow atom of 8, 16 or 32:
    policy::wgmmaTakesNMajorB): an sm_90a op with a tile it cannot
    take (wgmmaTakes) is retargeted to sm_90 (the mma.sync kernel, which
    runs on sm_90a) and configured as below.

    * Warps: 2 x 2 (64 x 64 warp tiles, 128 threads, two blocks an SM), or
      eight 64 x 64 warp tiles where the tile holds eight (256 x 128,
      128 x 256), one block an SM. Where two 2 x 2 blocks do not fit the
      chip's shared memory per SM (f32 outer sums on sm_80..sm_89, f16 ones
      with 4 stages on sm_86/sm_89), 2 x 4 warps of 64 x 32 (chosen, not
      measured, on those chips). Element-wise copies take 2 x 4 warps: they
      need the registers of the 64 x 32 tile.
    * Stages: 4 for BK = 32 (5% faster than 3 on an H200), 3 for BK of 64
      or more (as many K elements, and room for the f32 outer sums of a
      256 x 128 tile).
    * Outer sums in shared memory: with f32 outer sums and warp tiles 64 or
      more wide, half of a warp's m16 rows (64 f16 and 128 f32 accumulators
      do not fit in 255 registers next to the fragments).
    * Epilogue: through shared memory in the fewest passes whose regions
      fit the stages (the persistent TMA kernel: its own buffer after the
      barriers, passes over a warp's columns, and with f16 C and whole
      64-column boxes a pass, TMA stores of C through a third tensor map);
      stores from the fragments where none does.
    * Handover: on the tensor cores for f32 outer sums of eight 64 x 64
      warps (3-6% faster on an H100), by conversions and adds otherwise.

    The configuration is checked against the tile, the types and the chip;
    a choice that does not fit is an error on the op.
  }];
  let options = [
    Option<"warpsM", "warps-m", "int64_t", /*default=*/"0",
           "Warps along M in a block (0: chosen, see above)">,
    Option<"warpsN", "warps-n", "int64_t", /*default=*/"0",
           "Warps along N in a block (0: chosen, see above)">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Depth of the cp.async pipeline (0: 4 for BK = 32, 3 for BK of "
           "64 or more)">,
    Option<"groupM", "group-m", "int64_t", /*default=*/"8",
           "Row tiles per group in the grouped block order (a persistent "
           "TMA kernel without stream-K runs fewer than twice as many as one "
           "group)">,
    Option<"asyncCopies", "async-copies", "bool", /*default=*/"true",
           "Stage tiles with 16-byte cp.async (needs unit inner strides and "
           "16-byte aligned rows); false loads element by element (any "
           "strides and alignment, slower)">,
    Option<"tma", "tma", "bool", /*default=*/"true",
           "sm_90a: the warp-specialized kernel (a TMA producer warpgroup, "
           "an mbarrier ring) where it applies (default); false: the "
           "cp.async wgmma kernel">,
    Option<"persistent", "persistent", "::mlir::gpupoor::PersistentChoice",
           /*default=*/"::mlir::gpupoor::PersistentChoice::Auto",
           "With tma and one K slice: blocks loop over C tiles (grid at most "
           "the SM count). true, false or auto (default: "
           "policy::persistentPays: static grids beyond one wave, one wave of "
           "128 x 128 or 128 x 256 tiles of a 2-D product with K <= 3072 and "
           "N % 8 == 0, not swapped (C^T in column vectors instead); or "
           "clusters of four by policy::quadClusterPays)",
           "::mlir::gpupoor::persistentChoices()">,
    Option<"streamK", "stream-k", "::mlir::gpupoor::StreamKChoice",
           /*default=*/"::mlir::gpupoor::StreamKChoice::Auto",
           "Persistent kernels with f32 outer sums, not batched: the tiles "
           "past the whole waves are shared by chunks of K, met through the "
           "workspace. true, false or auto (default: policy::streamKPays, "
           "static grids whose last wave is short, "
           "docs/design/decisions.md#stream-k-where-the-last-wave-is-short)",
           "::mlir::gpupoor::streamKChoices()">,
    Option<"splitHandover", "split-handover",
           "::mlir::gpupoor::SplitHandoverChoice",
           /*default=*/"::mlir::gpupoor::SplitHandoverChoice::Auto",
           "sm_90a TMA kernels of two consumer warpgroups: each half of the "
           "tile's columns hands its chunk sums over while the other half's "
           "wgmma run (kernel_config handover = split). true, false or auto "
           "(default: policy::splitHandoverPays)",
           "::mlir::gpupoor::splitHandoverChoices()">,
    Option<"clusterM", "cluster-m", "int64_t", /*default=*/"0",
           "sm_90a TMA kernels without stream-K: 2 or 4 runs the blocks in "
           "clusters of that many along M sharing B's tile by TMA "
           "multicast, one block an SM unless blocks-per-sm says 2 "
           "(kernel_config cluster_m); 1: none; 0 (default): as "
           "policy::clusterBlocks says (static products whose operand "
           "rows start off 32-byte sectors, of four where the 64 x 128 "
           "tile's clusters of four all run at once; a swapped decode "
           "product's A stored K x M)">,
    Option<"columnStores", "column-stores", "bool", /*default=*/"false",
           "sm_90a's shared-memory epilogue stores 16-byte column vectors "
           "where C is contiguous along M (kernel_config column_stores): "
           "for a kernel launched on C's transposed view (the package's "
           "swapped families), which the configuration rules then treat "
           "as a swapped product's (policy::clusterStages; on static "
           "shapes also oneWavePersistentPays and clusterBlocks). The kernels "
           "of swapped ops (gpupoor-swap-operands) take them anyway">,
    Option<"splitsArg", "splits-arg", "bool", /*default=*/"false",
           "Where the strategy names no S: the kernel takes S as its last "
           "parameter, `splits`, which the launch passes (the emitted host "
           "code: the strategy's rule), instead of evaluating the rule "
           "itself (kernel_config splits_arg): one kernel for any S">,
    Option<"blocksPerSM", "blocks-per-sm", "int64_t", /*default=*/"0",
           "The TMA kernel's blocks an SM (1 or 2; 0: chosen, see above); "
           "2 takes one consumer warpgroup (BM = 64) and halves its stages "
           "and the registers at launch">,
    Option<"fragmentPrefetch", "fragment-prefetch", "int64_t",
           /*default=*/"1",
           "How many k16 steps ahead the ldmatrix fragments load (0 to "
           "BK/16, default 1; from 1 on double-buffered in registers)">,
    Option<"sharedOuterRows", "shared-outer-rows", "int64_t",
           /*default=*/"-1",
           "How many of a warp's m16 rows of outer sums live in shared "
           "memory instead of registers (0 to warp rows / 16; -1: chosen, "
           "see above). Each thread owns its slots, touched only at chunk "
           "ends">,
    Option<"sharedEpilogue", "shared-epilogue", "bool", /*default=*/"true",
           "Store C through shared memory in 16-byte row vectors (default); "
           "false, or where the stages cannot hold a warp's 16 rows: "
           "straight from the fragments">,
    Option<"mmaHandover", "mma-handover", "::mlir::gpupoor::MmaHandoverChoice",
           /*default=*/"::mlir::gpupoor::MmaHandoverChoice::Auto",
           "At chunk ends, add the f16 sums into f32 outer sums on the "
           "tensor cores (mma.sync with the identity) instead of one by one. "
           "true, false or auto (default: policy::mmaHandoverPays)",
           "::mlir::gpupoor::mmaHandoverChoices()">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"32",
           "Width of index in the kernel (32: cheaper address arithmetic "
           "and fewer registers; element offsets must stay below 2^31, as "
           "with Triton's default; or 64)">
  ];
  let dependentDialects = [
    "::mlir::gpupoor::GPUPoorDialect",
  ];
}

def GPUPoorTensorMapsByValue
    : Pass<"gpupoor-tensor-maps-by-value", "::mlir::ModuleOp"> {
  let summary = "Pass the TMA kernels' tensor maps by value";
  let description = [{
    The host code of a TMA kernel (copies = tma) encodes the tensor maps of
    A and B (and C's, where the persistent kernel stores C by TMA) into host
    buffers and hands their pointers to `gpu.launch_func`,
    as the kernel's `gpu.func` declares them (its body reads each map where
    it lies). A CUtensorMap parameter is 128 bytes passed by value, though:
    once the kernel is a `gpu.binary`, this pass replaces each such launch
    operand with the 128 bytes it points to (an `!llvm.array<16 x i64>`
    load), which the host lowering packs as cuLaunchKernel expects. The
    parameters are found from the launch's `#gpupoor.kernel` attribute; a
    launch whose kernel is still a `gpu.func` is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def GPUPoorDumpKernels : Pass<"gpupoor-dump-kernels", "::mlir::ModuleOp"> {
  let summary = "Write the kernels of gpu.binary ops and a manifest to a directory";
  let description = [{
    For every `gpu.launch_func` of a gpupoor kernel, writes the kernel's
    object from its `gpu.binary` (`<kernel>.cubin` for binaries,
    `<kernel>.ptx` for assembly) and `<kernel>.json`, a manifest with the
    kernel name, its parameter list (Triton ABI), block size, dynamic shared
    memory, chip, tile, S, outer type and the rest of the kernel's
    `#gpupoor.kernel` attribute, so that a launcher outside MLIR
    (CUDA driver API, cuda-python) can run it. The IR is left unchanged.

    It also reports each kernel's resources as a remark on its launch, and
    in the manifest: dynamic shared memory and block size; for a cubin, the
    registers and the stack frame ptxas allotted (read from the cubin's
    `.nv.info` section; a non-zero frame means spills); for PTX, the
    counts of `mma.sync`, `ldmatrix` and `cp.async.cg`.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\"\"",
           "Directory to write into (created if missing)">
  ];
}

#endif // GPUPOOR_TRANSFORMS_PASSES_TD
