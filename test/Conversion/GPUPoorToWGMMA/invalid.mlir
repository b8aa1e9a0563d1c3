// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-wgmma -verify-diagnostics

// The conversion builds the op's configuration as it is: one the wgmma
// kernel cannot take is an error, one case per check.

func.func @warps(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the sm_90a kernel takes warps = [max(BM, 64) / 16, 1] = [8, 1], got [2, 4]}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @bk(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the sm_90a kernel takes BK = 64, 128 or 256 (atoms of 64 columns in 128-byte rows, the 128-byte swizzle), got 32}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 32], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = async, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @km_thin(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the sm_90a kernel reads A as K x M (a_layout = km) in atoms of 64 rows: BM must be a multiple of 64, got 32}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [32, 64, 128], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @kn_bn(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the sm_90a kernel reads B as K x N (b_layout = kn) in atoms of 64 columns, or of 8, 16 or 32: BN must be 8, 16, 32, 96, 160, 224 or a multiple of 64, got 176}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 176, 64], inner = f16, outer = f32, b_layout = kn, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @nk_bn8(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the sm_90a kernel reads B as N x K (b_layout = nk) in tiles of a multiple of 16 columns, got 8}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 8, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @kn_split_handover(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the split handover takes sm_90a's TMA kernel with two consumer warpgroups (BM = 128) and BN a multiple of 128 (B as K x N: whole atoms a half), got 128x192x64}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 192, 64], inner = f16, outer = f32, b_layout = kn, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = split, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @stages(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the sm_90a kernel needs at least 3 stages (a tile's wgmma still read the previous stage), got 2}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 2, group_m = 8, copies = async, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @prefetch(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the sm_90a kernel takes no fragment prefetch, no shared outer rows and the convert or split handover}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Ops for other chips are convert-gpupoor-to-nvgpu's: left alone.
func.func @sm90(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @tma_bm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op TMA copies take BM = 32, 64, 128 or 192 (one to three consumer warpgroups), got 256}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [256, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [16, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @tma_i64(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op TMA copies take index_bitwidth = 32 (32-bit tensor-map coordinates)}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 64>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @persistent_slices(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op persistent blocks take one K slice (slices = 1), got 2}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 2, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32, persistent = true>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @persistent_shared_epilogue(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the persistent TMA kernel's shared-memory epilogue (a buffer of its own after the barriers: its producer refills the stages meanwhile) cannot run in 1 passes over a warp's 256 columns}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, persistent = true>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @two_blocks_two_warpgroups(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op blocks_per_sm = 2 takes the TMA kernel with one consumer warpgroup (BM = 64), got BM = 128}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, blocks_per_sm = 2>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Five stages of 64 x 128 x 64 (24 KiB each) and their barriers: two such
// blocks need more than an SM's 228 KiB.
func.func @two_blocks_shared_memory(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op blocks_per_sm = 2 blocks of 122960 bytes of shared memory exceed the 228 KiB of an SM}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [4, 1], stages = 5, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, blocks_per_sm = 2>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A 32-row tile's m64 wgmma reads 32 rows past each atom of A: past the
// last one they must lie in B's tile of the same stage.
func.func @thin_tile_small_b(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op a tile of BM = 32 rows takes BM = 32 and B's tile of at least 32 rows of 64 columns (BN * BK >= 2048), got 32x16x64}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [32, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 1, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Its upper warps store nothing: no shared-memory epilogue (its barriers
// would wait for them).
func.func @thin_tile_shared_epilogue(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op a tile of BM = 32 rows stores C from its fragments, not persistent}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [32, 16, 256], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 1, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @stream_k_f16_outer(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op stream_k takes f32 outer sums and one product (not batched): the blocks meet in f32 sums}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f16, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32, persistent = true, stream_k = true>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// The split handover's halves are two consumer warpgroups' wgmma chains
// fed by TMA: not the cp.async kernel.
func.func @split_cp_async(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the split handover takes sm_90a's TMA kernel with two consumer warpgroups (BM = 128) and BN a multiple of 16, got 128x256x64 without TMA copies}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = async, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = split, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @split_stream_k(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the split handover takes no stream_k}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = split, index_bitwidth = 32, persistent = true, stream_k = true>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Several f16 sums a chunk are one warpgroup's whole tile each.
func.func @sets_split_handover(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op sets = 2 takes sm_90a's wgmma kernel without the split handover and sets * BN <= 128, got 128x64x64 with the split handover}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 2>)
      config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 1, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = split, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @sets_too_many_registers(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op sets = 4 takes sm_90a's wgmma kernel without the split handover and sets * BN <= 128, got 64x64x64}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 4>)
      config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 1, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Column stores read a warp's region back in 16-byte column vectors, a
// vector a lane a round: 16 rows by 8 columns make 16 vectors.
func.func @column_stores_narrow(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op column_stores takes sm_90a's wgmma kernel whose epilogue passes fit and whose warps' 16 rows a pass by 8 columns make whole 16-byte column vectors, a vector a lane a round}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 8, 128], inner = f16, outer = f32, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, column_stores = true>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
