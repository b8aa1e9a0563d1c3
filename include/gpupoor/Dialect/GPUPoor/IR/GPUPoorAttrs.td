//===- GPUPoorAttrs.td - gpupoor attributes ----------------*- tablegen -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORATTRS_TD
#define GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORATTRS_TD

include "gpupoor/Dialect/GPUPoor/IR/GPUPoorBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def GPUPoor_BLayout : I32EnumAttr<"BLayout",
    "storage layout of the B operand", [
      // B is K x N (row-major), as in C = A * B.
      I32EnumAttrCase<"KN", 0, "kn">,
      // B is N x K, the nn.Linear weight layout: C = A * B^T.
      I32EnumAttrCase<"NK", 1, "nk">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

def GPUPoor_ALayout : I32EnumAttr<"ALayout",
    "storage layout of the A operand", [
      // A is M x K (row-major), as in C = A * B.
      I32EnumAttrCase<"MK", 0, "mk">,
      // A is K x M: C = A^T * B (a front end's transposed activation).
      I32EnumAttrCase<"KM", 1, "km">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

def GPUPoor_Chip : I32EnumAttr<"Chip",
    "NVIDIA compute capability the strategy is chosen for", [
      I32EnumAttrCase<"SM80", 80, "sm_80">,
      I32EnumAttrCase<"SM86", 86, "sm_86">,
      I32EnumAttrCase<"SM89", 89, "sm_89">,
      I32EnumAttrCase<"SM90", 90, "sm_90">,
      // Hopper with the architecture-specific features (wgmma).
      I32EnumAttrCase<"SM90a", 91, "sm_90a">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

def GPUPoor_CopyMode : I32EnumAttr<"CopyMode",
    "how a kernel stages A and B tiles in shared memory", [
      // 16-byte cp.async copies: A's and B's inner strides are 1, their
      // rows and pointers 16-byte aligned.
      I32EnumAttrCase<"Async", 0, "async">,
      // Element loads and 16-byte shared stores: any strides and alignment.
      I32EnumAttrCase<"Elements", 1, "elements">,
      // sm_90a: TMA tile loads by a producer warpgroup into an mbarrier
      // ring, from tensor maps the launcher builds (kernel parameters
      // a_desc, b_desc); the operand requirements of `async`.
      I32EnumAttrCase<"Tma", 2, "tma">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

def GPUPoor_Handover : I32EnumAttr<"Handover",
    "how a chunk's f16 sums are added into the outer sums", [
      // Widened (f32 outer sums) and added element by element.
      I32EnumAttrCase<"Convert", 0, "convert">,
      // On the tensor cores: an n8 tile's f16 sums are the A fragment of
      // an m16n8k8 mma.sync times the 8 x 8 identity (f32 outer sums only).
      I32EnumAttrCase<"Mma", 1, "mma">,
      // sm_90a's TMA kernel with two consumer warpgroups: as `convert`, the
      // tile's columns in two halves of their own wgmma chains, each
      // half's sums handed over while the other half's wgmma run (no order
      // barrier between the warpgroups); chunks of at least two K tiles,
      // else the kernel hands over as `convert` at run time.
      I32EnumAttrCase<"Split", 2, "split">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

def GPUPoor_Launch : I32EnumAttr<"Launch",
    "what one launch of a kernel computes", [
      I32EnumAttrCase<"Single", 0, "single">,
      // Every batch element in one launch: the blocks of element b follow
      // those of element b - 1 along grid x, and the kernel takes each
      // operand's batch stride.
      I32EnumAttrCase<"Batched", 1, "batched">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class GPUPoor_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<GPUPoor_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A list of integers printed and parsed in square brackets, so that it reads
// as one value inside a struct-format attribute.
class GPUPoor_IntListParameter<string desc> : ArrayRefParameter<"int64_t", desc> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
      ::llvm::SmallVector<int64_t> sizes;
      if ($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&]() {
                return $_parser.parseInteger(sizes.emplace_back());
              }))
        return ::mlir::failure();
      return sizes;
    }()
  }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}
def GPUPoor_TileParameter : GPUPoor_IntListParameter<"[BM, BN, BK]">;

def GPUPoor_SplitKAttr : GPUPoor_Attr<"SplitK", "split_k"> {
  let summary = "How a matmul is split along K and accumulated";
  let description = [{
    Describes the split-k strategy of a `gpupoor.matmul`:

    * `splits`: the number S of K chunks. When absent, S follows gpu_poor's
      rule `next_pow2(floor(sqrt(ceil(K / 32))))`, at least 12 from
      `ceil(K / 32) = 64` on, clamped to `[1, max_splits]`, evaluated at
      run time when K is dynamic. K counts in gpu_poor's blocks of 32
      whatever BK: S, and with it the error, does not depend on the tile.
      The `ceil(K / BK)` K tiles go into `C = min(S, ceil(K / BK))`
      balanced chunks, the first `ceil(K / BK) mod C` of them one tile
      longer than the others (docs/design/Numerics.md).
    * `max_splits`: the upper clamp of that rule (default 256,
      `policy::kDefaultMaxSplits`).
    * `tile`: the output tile and K step `[BM, BN, BK]` of one thread block.
      It must map onto the chip's f16 MMA fragments: m16n8k16 (`mma.sync`)
      for sm_80 to sm_90, m64nNk16 (`wgmma`, N <= 256) for sm_90a.
    * `inner`: the accumulator type inside a chunk; f16 only, the point of
      the project (mma has no bf16 accumulator).
    * `outer`: the type the chunk results are summed in: f16 (gpu_poor's
      choice) or f32.
    * `b_layout`: `kn` when B is K x N, `nk` when B is N x K.
    * `a_layout`: `mk` when A is M x K, `km` when A is K x M (sm_90a's
      wgmma kernel reads it M-major, in atoms of 64 rows: BM a multiple of
      64; the mma.sync kernels read it through its strides, with element
      copies).
    * `slices`: P, the K slices that run in different blocks (parallel
      split-k; at most 65535, grid y's limit); 1, the default, runs every
      chunk in one block's loop. Slice p takes chunks
      `[p * S / P', (p + 1) * S / P')` (floor divisions,
      `P' = min(P, S, 65535)`), sums them in the outer type, and the slice sums
      are added in the outer type in the order p = 0 .. P' - 1. 0 chooses
      P' at run time from the shape: for `T = batch * ceil(M / BM) *
      ceil(N / BN)` C tiles, the fewest slices that minimize the busiest
      SM's work `ceil(T P / SMs) / P` with every block in one wave of B
      an SM (B = 1 for the tiles whose kernel fills an SM's registers: the
      sm_90a kernel's BM >= 128, BM * BN >= 128 * 256; else 2):
      `P1 = clamp(floor(SMs / T), 1, S)`,
      `P2 = clamp(floor(B SMs / T), 1, S)`, P' = P2 if P2 > 2 P1, else P1;
      but 1 where `4 T >= SMs` for the sm_90a kernel's one-warpgroup tiles
      (BM = 64), whose memory-bound products stream as fast from a quarter
      of the SMs (gpupoor-split-k writes the number instead when the shape
      is static).
    * `chip`: the target the tile was chosen for.
    * `swapped`: the GPU kernel computes the transposed product
      `C^T = B A^T` (B's N rows fill the MMA's M side and A's few rows its
      N side, so no MMA rows are padding when M is tiny); `tile` is then
      the swapped product's `[BN, BM, BK]`. Needs a 2-D op; its B is A
      (`nk` for A as M x K, `kn` for A as K x M, which needs `chip =
      sm_90a`: sm_90a's kernel reads a B as K x N of 8, 16 or 32 columns);
      B either way (its A is B: `mk` for B as N x K, `km` for B as K x N).
      `gpupoor-swap-operands` rewrites such an op on memrefs into the
      plain op on the swapped operands (C as a transposed view); the
      CPU lowering computes C as it stands (the same chunks in the same
      order, so the same result).
    * `sets`: the f16 sums a chunk keeps (default 1; a power of two
      dividing BK / 16; more than one on sm_90a's wgmma kernel without the
      split handover and with `sets * BN <= 128`, on the mma.sync kernel
      where a warp's sums take at most 32 m16 x n8 fragments,
      `KernelSpec::kMmaSetFragments`). k16 step j of each of a chunk's K
      tiles adds into sum j mod `sets`; the chunk's sums enter the outer
      sum one after the other, sum 0 first, so a chunk of L elements is
      `sets` f16 sums of L / `sets` (docs/design/Numerics.md). The chip's
      rules give the swapped tiles (8, 16 or 32 columns) and the narrow
      tile (16 columns, unswapped: `policy::kNarrowTile`) four, sm_90's
      16 x 128 and 16 x 256 mma.sync decode tiles four
      (`policy::kMmaDecodeSets`), sm_90a's 64 x 32 tile of 56 to 64 rows
      (`policy::kRows64Tile`) four, its 32-row tile (`policy::kThinTile`)
      two (`policy::accumulatorSets`), and its 64 x 64 tile two where a
      static K and S make chunks of at least 320 (`policy::chunkSets`).

    Example:

    ```mlir
    #gpupoor.split_k<splits = 4, tile = [128, 128, 32], inner = f16,
                     outer = f32, b_layout = nk,
                     chip = sm_80>
    ```
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<int64_t>", "number of K splits">:$splits,
    DefaultValuedParameter<"int64_t", "::mlir::gpupoor::policy::kDefaultMaxSplits",
                           "upper clamp of the default rule">:$max_splits,
    GPUPoor_TileParameter:$tile,
    "::mlir::Type":$inner,
    "::mlir::Type":$outer,
    DefaultValuedParameter<"::mlir::gpupoor::BLayout",
        "::mlir::gpupoor::BLayout::KN", "layout of B">:$b_layout,
    DefaultValuedParameter<"::mlir::gpupoor::ALayout",
        "::mlir::gpupoor::ALayout::MK", "layout of A">:$a_layout,
    DefaultValuedParameter<"int64_t", "1",
        "K slices run by different blocks">:$slices,
    DefaultValuedParameter<"::mlir::gpupoor::Chip",
        "::mlir::gpupoor::Chip::SM80", "target chip">:$chip,
    DefaultValuedParameter<"bool", "false",
        "whether the kernel computes C^T = B A^T">:$swapped,
    DefaultValuedParameter<"int64_t", "1",
        "f16 sums a chunk keeps, by k16 step">:$sets
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether A is stored K x M.
    bool isATransposed() const { return getALayout() == ALayout::KM; }
    int64_t getTileM() const { return getTile()[0]; }
    int64_t getTileN() const { return getTile()[1]; }
    int64_t getTileK() const { return getTile()[2]; }
  }];
}

def GPUPoor_KernelConfigAttr : GPUPoor_Attr<"KernelConfig", "kernel_config"> {
  let summary = "How the GPU kernel of a gpupoor.matmul is built";
  let description = [{
    The configuration `gpupoor-select-kernel-config` chooses for the
    `nvgpu.mma.sync` kernel of one `gpupoor.matmul`, on top of its split-k
    strategy (which fixes the tile, S and the accumulator types).
    `convert-gpupoor-to-nvgpu` builds exactly this kernel, and
    `gpupoor-dump-kernels` writes it into the kernel's manifest.

    * `warps`: `[WM, WN]`, the block's warps along M and N; a warp computes
      a `BM / WM x BN / WN` tile of C in m16n8k16 fragments.
    * `stages`: depth of the shared-memory copy pipeline.
    * `group_m`: row tiles per group in the grouped (L2-friendly) block
      order; sm_90a's persistent TMA kernel without stream-K runs fewer
      than twice as many as one group.
    * `copies`: `async` (16-byte `cp.async`; unit inner strides of A and B,
      16-byte aligned rows and pointers), `elements` (element loads; any
      strides and alignment) or, on sm_90a, `tma` (a producer warpgroup
      issues TMA loads into an mbarrier ring for the consumer warpgroups;
      the requirements of `async`, and two tensor maps among the kernel's
      parameters; a third, C's, where the persistent kernel stores f16 C
      by TMA).
    * `fragment_prefetch`: how many k16 steps ahead ldmatrix fragments load
      (0 to BK / 16).
    * `shared_outer_rows`: how many of a warp's m16 rows of outer sums live
      in shared memory instead of registers.
    * `epilogue_passes`: C goes through shared memory in this many passes
      over a warp's rows, read back as 16-byte row vectors in rounds of
      the warp's 32 lanes (a row takes at most 32 of them); 0 stores
      straight from the fragments.
    * `handover`: how chunk sums enter the outer sums (`convert`, `mma` or,
      on sm_90a's TMA kernel with two consumer warpgroups, `split`: each
      half of the tile's columns handed over while the other half's wgmma
      run).
    * `index_bitwidth`: width of `index` in the kernel (32 or 64); every
      element offset must stay below 2^31 with 32.
    * `persistent` (default false; `copies = tma` with one K slice): blocks
      loop over C tiles, grid x at most the SM count, the producer loading
      the next tile's K tiles while the consumers store the last; the
      shared-memory epilogue then has a buffer of its own after the
      barriers, and `epilogue_passes` splits a warp's columns (0: stores
      from the fragments).
    * `blocks_per_sm` (default 1; `copies = tma` with one consumer
      warpgroup): the blocks an SM runs at once. With 2 the kernel's
      registers at launch are half an SM's (ptxas `.minnctapersm 2`), the
      consumer warpgroup taking what the producer gives up; the stages fit
      half the SM's shared memory.
    * `stream_k` (default false; `persistent` with f32 outer sums, not
      batched): past the whole waves of work tiles, the blocks share the
      last T mod G tiles by chunks of K (stream-K): the block with a tile's
      last chunk adds the sums that the blocks with its earlier chunks
      leave in the workspace (`ws_ptr`, `locks_ptr`), and stores C.
    * `cluster_m` (default 1; 2 or 4: `copies = tma`, not `stream_k`; the
      sm_90a TMA kernel checks that B's box rows over `cluster_m` are
      whole 8-row swizzle periods): blocks run in clusters of `cluster_m`
      along M, the tiles of a cluster sharing B's tile, each block loading
      a `cluster_m`-th of it into all (TMA multicast); a persistent
      cluster loops over clusters of work tiles. The kernel's fallbacks
      (element copies, 64-bit indices) keep the clusters' tile order and
      launch.
    * `splits_arg` (default false): S is the kernel's last parameter,
      `splits`, which the launcher passes (at least 1; the chunks are
      `min(S, ceil(K / BK))` as ever), instead of the strategy's rule
      evaluated in the kernel. Where the strategy fixes S the kernel takes
      no such parameter. The emitted host code passes the strategy's rule; a
      launcher of the kernel on its own (the PyTorch package) chooses S per
      call, any S with one kernel.
    * `column_stores` (default false; with `epilogue_passes`, not
      `persistent`): the shared-memory epilogue also has a transposed
      path, taken where C is contiguous along M (`stride_cm` = 1,
      `stride_cn` a multiple of 16 bytes, C's pointer 16-byte aligned: a
      swapped product's C^T view): each warp writes its fragments into its
      region by columns and stores 16-byte column vectors; otherwise row
      vectors as ever. Chosen for the kernels of swapped strategies.

    Example:

    ```mlir
    #gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8,
                           copies = async, fragment_prefetch = 1,
                           shared_outer_rows = 2, epilogue_passes = 1,
                           handover = convert, index_bitwidth = 32>
    ```
  }];
  let parameters = (ins
    GPUPoor_IntListParameter<"[WM, WN]">:$warps,
    "int64_t":$stages,
    "int64_t":$group_m,
    "::mlir::gpupoor::CopyMode":$copies,
    "int64_t":$fragment_prefetch,
    "int64_t":$shared_outer_rows,
    "int64_t":$epilogue_passes,
    "::mlir::gpupoor::Handover":$handover,
    "int64_t":$index_bitwidth,
    DefaultValuedParameter<"bool", "false">:$persistent,
    DefaultValuedParameter<"int64_t", "1">:$blocks_per_sm,
    DefaultValuedParameter<"bool", "false">:$stream_k,
    DefaultValuedParameter<"int64_t", "1">:$cluster_m,
    DefaultValuedParameter<"bool", "false">:$splits_arg,
    DefaultValuedParameter<"bool", "false">:$column_stores
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getWarpsM() const { return getWarps()[0]; }
    int64_t getWarpsN() const { return getWarps()[1]; }
    /// 16-byte copies of aligned rows: cp.async or TMA.
    bool hasAsyncCopies() const { return getCopies() != CopyMode::Elements; }
  }];
}

def GPUPoor_KernelAttr : GPUPoor_Attr<"Kernel", "kernel"> {
  let summary = "What a launcher needs to know of a gpupoor kernel";
  let description = [{
    Set by `convert-gpupoor-to-nvgpu` on each `gpu.launch_func` of a gpupoor
    kernel and read by `gpupoor-dump-kernels`, which writes it out as the
    kernel's JSON manifest: the split-k strategy, the kernel configuration,
    C's element type, the type the epilogue receives the product in, the
    element types of the epilogue's operands (each a pointer and two
    strides among the kernel's parameters), whether the epilogue reads C
    (`C += A * B`), the epilogue region as text (empty without one), and
    whether one launch computes a whole batch (`batched`: batch strides
    among the parameters). The kernel's parameters are the Triton ABI of
    `convert-gpupoor-to-nvgpu`.
  }];
  let parameters = (ins
    "::mlir::gpupoor::SplitKAttr":$strategy,
    "::mlir::gpupoor::KernelConfigAttr":$config,
    "::mlir::Type":$c_type,
    "::mlir::Type":$acc_type,
    "::mlir::ArrayAttr":$epilogue_inputs,
    "::mlir::BoolAttr":$reads_c,
    "::mlir::StringAttr":$epilogue,
    "::mlir::gpupoor::Launch":$launch
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORATTRS_TD
