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
    Finds `linalg.matmul` (plain and transposed-B through `indexing_maps`),
    `linalg.matmul_transpose_b` and `linalg.batch_matmul` with f16 operands
    and an f16 or f32 result, on tensors or memrefs, static or dynamic, and
    rewrites each into a `gpupoor.matmul` carrying a `#gpupoor.split_k`
    strategy. The init must be a zero fill (the gpupoor op overwrites C).
    A bias add and a ReLU/GELU that are the matmul's only users are fused
    into the op's epilogue.

    Matmuls that are not eligible (integer, f32/f64 or bf16 operands, mixed
    operand types, other contractions) are left as they are. With
    `report-ineligible`, each one gets a remark naming the reason; with
    `strict`, that is an error and the pass fails.

    The number of splits follows gpu_poor's rule
    `next_pow2(floor(sqrt(ceil(K / BK))))` clamped to `[1, max-splits]`;
    `splits` or a `gpupoor.splits` integer attribute on the matmul fixes it.

    Without a `tile` option the tile is 128 x 128 x 32, except for sm_90
    matmuls whose static shape makes at least 256 tiles of 256 x 128 x 64
    (counting the batch): they take that tile, which
    `convert-gpupoor-to-nvgpu` runs as eight 64 x 64 warps, one block an
    SM. Measured on an H100 (docs/GPU.md), it is 5-15% faster on large
    products under sustained load (at the board's power cap), 5-10% slower
    at 8192^3 in short batches from an idle GPU, and a fifth slower on
    products too small to fill the SMs twice; a dynamic shape could be
    either, so it keeps the small tile.
  }];
  let options = [
    Option<"splits", "splits", "int64_t", /*default=*/"0",
           "Fixed number of K splits (0: gpu_poor's rule)">,
    Option<"maxSplits", "max-splits", "int64_t", /*default=*/"32",
           "Upper clamp of the default split rule">,
    Option<"outerType", "outer-type", "std::string", /*default=*/"\"f32\"",
           "Outer accumulator type: f16 or f32">,
    ListOption<"tile", "tile", "int64_t",
               "Tile [BM, BN, BK] (default: 256,128,64 for static sm_90 "
               "matmuls of at least 256 such tiles, else 128,128,32)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target chip: sm_80, sm_86, sm_89, sm_90 or sm_90a">,
    Option<"reportIneligible", "report-ineligible", "bool", /*default=*/"false",
           "Emit a remark naming the reason for each matmul left unchanged">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Make every ineligible matmul an error">
  ];
  let dependentDialects = [
    "::mlir::gpupoor::GPUPoorDialect",
  ];
}

def GPUPoorDumpKernels : Pass<"gpupoor-dump-kernels", "::mlir::ModuleOp"> {
  let summary = "Write the kernels of gpu.binary ops and a manifest to a directory";
  let description = [{
    For every `gpu.launch_func` of a gpupoor kernel, writes the kernel's
    object from its `gpu.binary` (`<kernel>.cubin` for binaries,
    `<kernel>.ptx` for assembly) and `<kernel>.json`, a manifest with the
    kernel name, its parameter list (Triton ABI), block size, dynamic shared
    memory, chip, tile, S and outer type, so that a launcher outside MLIR
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
