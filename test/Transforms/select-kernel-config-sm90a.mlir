// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=tma=false | FileCheck %s --check-prefix=CPA
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=persistent=true | FileCheck %s --check-prefix=PERS
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=persistent=false | FileCheck %s --check-prefix=NOPERS
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=blocks-per-sm=1 | FileCheck %s --check-prefix=ONE
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=split-handover=false | FileCheck %s --check-prefix=NOSPLIT
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=stream-k=false | FileCheck %s --check-prefix=NOSK
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=cluster-m=2 | FileCheck %s --check-prefix=PAIRS
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=stream-k=true | FileCheck %s --check-prefix=SK

// sm_90a's wgmma kernel: a warpgroup per 64 rows, BM / 16 warps along M.
// One warpgroup's tiles take 192 KiB of stages (one block an SM) when
// every block of the grid has an SM of its own: 64 x 4096 is 32 tiles of
// 64 x 128, 4 slices, 128 blocks on 132 SMs; 8 stages of 24 KiB.
// CHECK-LABEL: func @one_wave
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 8,
// CHECK-NOT: blocks_per_sm
func.func @one_wave(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x4096xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 4, chip = sm_90a>)
      : memref<64x4096xf16>, memref<4096x4096xf16>
  return
}

// -----

// 64 x 64 x 64 tiles (16 KiB a stage): 12 stages.
// CHECK-LABEL: func @narrow
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 12,
func.func @narrow(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x4096xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, slices = 2, chip = sm_90a>)
      : memref<64x4096xf16>, memref<4096x4096xf16>
  return
}

// -----

// A swapped 64 x 16 x 64 tile (10 KiB a stage) would fit 19 with an SM to
// itself: at most 12. Past the SMs (224 tiles), two blocks an SM of 9. The
// default swapped decode tile (64 x 16 x 128, policy::kSwappedDecodeTile)
// keeps as many bytes of A in flight: 6 stages, two blocks an SM of 4.
// CHECK-LABEL: func @swapped_one_wave
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 12,
// CHECK-NOT: blocks_per_sm
// CHECK-LABEL: func @swapped_two_waves
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 9,
// CHECK-SAME: blocks_per_sm = 2>
// CHECK-LABEL: func @swapped_k128_one_wave
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 6,
// CHECK-NOT: blocks_per_sm
// CHECK-LABEL: func @swapped_k128_two_waves
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 4,
// CHECK-SAME: blocks_per_sm = 2>
func.func @swapped_one_wave(%a: memref<4096x4096xf16>, %b: memref<16x4096xf16>, %c: memref<4096x16xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<4096x16xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<4096x4096xf16>, memref<16x4096xf16>
  return
}
func.func @swapped_two_waves(%a: memref<14336x4096xf16>, %b: memref<16x4096xf16>, %c: memref<14336x16xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<14336x16xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<14336x4096xf16>, memref<16x4096xf16>
  return
}
func.func @swapped_k128_one_wave(%a: memref<4096x4096xf16>, %b: memref<16x4096xf16>, %c: memref<4096x16xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<4096x16xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<4096x4096xf16>, memref<16x4096xf16>
  return
}
func.func @swapped_k128_two_waves(%a: memref<14336x4096xf16>, %b: memref<16x4096xf16>, %c: memref<14336x16xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<14336x16xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<14336x4096xf16>, memref<16x4096xf16>
  return
}

// -----

// Past the SMs the filling tiles' 64-row blocks go two an SM where three
// stages each fit (64 x 192: 32 KiB a stage), not 64 x 256 (40 KiB): one
// block an SM of four stages.
// CHECK-LABEL: func @wide_two_waves_192
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 3,
// CHECK-SAME: blocks_per_sm = 2>
// CHECK-LABEL: func @wide_two_waves_256
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 4,
// CHECK-NOT: blocks_per_sm
func.func @wide_two_waves_192(%a: memref<512x4096xf16>, %b: memref<14336x4096xf16>, %c: memref<512x14336xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x14336xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 192, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x4096xf16>, memref<14336x4096xf16>
  return
}
func.func @wide_two_waves_256(%a: memref<512x4096xf16>, %b: memref<14336x4096xf16>, %c: memref<512x14336xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x14336xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x4096xf16>, memref<14336x4096xf16>
  return
}

// -----

// 128 x 14336 is 2 x 112 = 224 blocks of one slice: two waves of one block
// an SM, so two blocks an SM (each thread with half the registers at
// launch), 4 stages each; blocks-per-sm=1 keeps 8.
// CHECK-LABEL: func @two_waves
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 4,
// CHECK-SAME: blocks_per_sm = 2>
// ONE-LABEL: func @two_waves
// ONE: config(#gpupoor.kernel_config<warps = [4, 1], stages = 8,
// ONE-NOT: blocks_per_sm
// ONE-LABEL: func @dynamic
func.func @two_waves(%a: memref<128x4096xf16>, %b: memref<14336x4096xf16>, %c: memref<128x14336xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<128x14336xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<128x4096xf16>, memref<14336x4096xf16>
  return
}

// -----

// Dynamic sizes (the grid is known only at run time): 8 stages.
// CHECK-LABEL: func @dynamic
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 8,
func.func @dynamic(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 0, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Two warpgroups' 128 x 256 x 64 tile: as many 48 KiB stages as fit, up to
// 4.
// The warp-specialized TMA kernel by default; tma=false gives the cp.async
// kernel.
// CHECK-LABEL: func @wide
// CHECK: config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma,
// CPA-LABEL: func @wide
// CPA: config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = async,
func.func @wide(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Two warpgroups' 128 x 128 x 64 tile (32 KiB a stage) on 512 x 4096: 128
// blocks, one an SM, so 192 KiB of stages: 6.
// CHECK-LABEL: func @mid_one_wave
// CHECK: config(#gpupoor.kernel_config<warps = [8, 1], stages = 6, group_m = 8, copies = tma,
func.func @mid_one_wave(%a: memref<512x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<512x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x4096xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x4096xf16>, memref<4096x4096xf16>
  return
}

// -----

// The same tile on 512 x 14336: 448 blocks, several waves; two blocks of
// 4 such stages (128 KiB) would not share an SM either: 6 stages. Blocks
// loop over the tiles (persistent, chosen for grids beyond a wave), the
// epilogue buffer next to the 6 stages; three whole waves and 52 tiles
// (runs of 2600 of K): stream-K.
// CHECK-LABEL: func @mid_waves
// CHECK: config(#gpupoor.kernel_config<warps = [8, 1], stages = 6, group_m = 8, copies = tma,
// CHECK-SAME: persistent = true, stream_k = true>
// NOPERS-LABEL: func @mid_waves
// NOPERS: config(#gpupoor.kernel_config<warps = [8, 1], stages = 6, group_m = 8, copies = tma,
// NOPERS-NOT: persistent
func.func @mid_waves(%a: memref<512x4096xf16>, %b: memref<14336x4096xf16>, %c: memref<512x14336xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x14336xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x4096xf16>, memref<14336x4096xf16>
  return
}

// -----

// Two-warpgroup tiles take as many stages as fit, up to 6 (one block an SM
// whatever their stages): 5 of 128 x 192 (40 KiB), 6 of 128 x 160. Rows of
// 192 and 160 f16 (24 and 20 lanes of 16-byte vectors) keep the
// shared-memory epilogue (read back in rounds of 32 vectors). The
// persistent kernel, chosen where the grid exceeds a wave (128 x 160: 256
// tiles; 128 x 192: 128, one wave), gives a stage of 128 x 160 up for its
// epilogue buffer.
// CHECK-LABEL: func @wide_192
// CHECK: config(#gpupoor.kernel_config<warps = [8, 1], stages = 5, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1,
// CHECK-NOT: persistent
// CHECK-LABEL: func @wide_160
// CHECK: config(#gpupoor.kernel_config<warps = [8, 1], stages = 5, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1,
// CHECK-SAME: persistent = true
// NOPERS-LABEL: func @wide_160
// NOPERS: config(#gpupoor.kernel_config<warps = [8, 1], stages = 6, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1,
// PERS-LABEL: func @wide_160
// PERS: config(#gpupoor.kernel_config<warps = [8, 1], stages = 5, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1,
// PERS-SAME: persistent = true
func.func @wide_192(%a: memref<512x2048xf16>, %b: memref<6144x2048xf16>, %c: memref<512x6144xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x6144xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 192, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<512x2048xf16>, memref<6144x2048xf16>
  return
}
func.func @wide_160(%a: memref<512x2048xf16>, %b: memref<10240x2048xf16>, %c: memref<512x10240xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x10240xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 160, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<512x2048xf16>, memref<10240x2048xf16>
  return
}

// -----

// One wave of 128 x 256 (or 128 x 128) tiles is persistent too where K is
// at most 3072 (policy::oneWavePersistentPays: its C stored by TMA): 1616 x
// 2160 x 712 (126 tiles), and 512 x 4096 x 3072 of 128 x 128 (128 tiles);
// not at K = 4096, nor where asked not to.
// CHECK-LABEL: func @one_wave_short_k
// CHECK: config(#gpupoor.kernel_config<{{.*}}persistent = true
// NOPERS-LABEL: func @one_wave_short_k
// NOPERS-NOT: persistent
// CHECK-LABEL: func @one_wave_mid_k3072
// CHECK: config(#gpupoor.kernel_config<{{.*}}persistent = true
// CHECK-LABEL: func @one_wave_long_k
// CHECK-NOT: persistent
func.func @one_wave_short_k(%a: memref<1616x712xf16>, %b: memref<2160x712xf16>, %c: memref<1616x2160xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1616x2160xf16>)
      strategy(#gpupoor.split_k<splits = 4, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<1616x712xf16>, memref<2160x712xf16>
  return
}
func.func @one_wave_mid_k3072(%a: memref<512x3072xf16>, %b: memref<4096x3072xf16>, %c: memref<512x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x4096xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x3072xf16>, memref<4096x3072xf16>
  return
}
func.func @one_wave_long_k(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1024x4096xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<1024x4096xf16>, memref<4096x4096xf16>
  return
}

// -----

// Stream-K by default where the persistent grid's last wave is short
// (policy::streamKPays): 216 tiles of 128 x 256 on 132 SMs, 84 in the last
// wave, runs of 2606 of K; not at 256 tiles (a nearly whole last wave), nor
// at 160 tiles of K = 2048 (runs of 512), nor where asked not to.
// CHECK-LABEL: func @short_last_wave
// CHECK: config(#gpupoor.kernel_config<{{.*}}persistent = true, stream_k = true>
// NOSK-LABEL: func @short_last_wave
// NOSK: persistent = true>
// CHECK-LABEL: func @nearly_whole_last_wave
// CHECK: config(#gpupoor.kernel_config<{{.*}}persistent = true>
// CHECK-LABEL: func @short_runs
// CHECK: config(#gpupoor.kernel_config<{{.*}}persistent = true>
// From two whole waves on, runs of 1024 suffice: 688 tiles (28 left, runs
// of 1024) take stream-K; 512 (116 left: more than two thirds of a wave) do
// not.
// CHECK-LABEL: func @short_last_of_six_waves
// CHECK: config(#gpupoor.kernel_config<{{.*}}persistent = true, stream_k = true>
// CHECK-LABEL: func @full_last_of_four_waves
// CHECK: config(#gpupoor.kernel_config<{{.*}}persistent = true>
func.func @short_last_wave(%a: memref<512x4096xf16>, %b: memref<13824x4096xf16>, %c: memref<512x13824xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x13824xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x4096xf16>, memref<13824x4096xf16>
  return
}
func.func @nearly_whole_last_wave(%a: memref<2048x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<2048x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<2048x4096xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<2048x4096xf16>, memref<4096x4096xf16>
  return
}
func.func @short_runs(%a: memref<512x2048xf16>, %b: memref<10240x2048xf16>, %c: memref<512x10240xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<512x10240xf16>)
      strategy(#gpupoor.split_k<splits = 12, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x2048xf16>, memref<10240x2048xf16>
  return
}
func.func @short_last_of_six_waves(%a: memref<2048x4096xf16>, %b: memref<11008x4096xf16>, %c: memref<2048x11008xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<2048x11008xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<2048x4096xf16>, memref<11008x4096xf16>
  return
}
func.func @full_last_of_four_waves(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<4096x4096xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<4096x4096xf16>, memref<4096x4096xf16>
  return
}

// -----

// The 32-row tile (wgmma's m64 computes 32 rows it does not store): one
// warpgroup of four warps, six stages, fragment stores (its upper warps
// store nothing), never persistent, also where persistent=true.
// CHECK-LABEL: func @thin
// CHECK: config(#gpupoor.kernel_config<warps = [4, 1], stages = 6, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0,
// CHECK-NOT: persistent
// PERS-LABEL: func @thin
// PERS: config(#gpupoor.kernel_config<warps = [4, 1], stages = 6, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0,
// PERS-NOT: persistent
// PERS: return
func.func @thin(%a: memref<2048x5120xf16>, %b: memref<1x5120xf16>, %c: memref<2048x1xf16, strided<[1, 2048]>>) {
  gpupoor.matmul %a, %b outs(%c : memref<2048x1xf16, strided<[1, 2048]>>)
      strategy(#gpupoor.split_k<splits = 20, tile = [32, 16, 256], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<2048x5120xf16>, memref<1x5120xf16>
  return
}

// -----

// The split handover by default: a static product of two-warpgroup TMA
// tiles, at most two work tiles a block (32 x 16 = 512 would be 3.9) and
// chunks of two or more K tiles (16 K tiles in 8 chunks).
// CHECK-LABEL: func @split_few_tiles
// CHECK: handover = split
// NOSPLIT-LABEL: func @split_few_tiles
// NOSPLIT: handover = convert
func.func @split_few_tiles(%a: memref<1024x1024xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1024x4096xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<1024x1024xf16>, memref<4096x1024xf16>
  return
}

// -----

// CHECK-LABEL: func @split_many_tiles
// CHECK: handover = convert
func.func @split_many_tiles(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<4096x4096xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<4096x4096xf16>, memref<4096x4096xf16>
  return
}

// -----

// Tiles narrower than 256 columns take it on any grid: 32 x 32 = 1024 tiles
// of 128 x 128 (7.8 a block).
// CHECK-LABEL: func @split_many_narrow_tiles
// CHECK: handover = split
func.func @split_many_narrow_tiles(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<4096x4096xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<4096x4096xf16>, memref<4096x4096xf16>
  return
}

// -----

// Chunks of one K tile (8 K tiles in 8 chunks) and unknown sizes keep the
// order barrier's whole-tile handover.
// CHECK-LABEL: func @split_short_chunks
// CHECK: handover = convert
func.func @split_short_chunks(%a: memref<1024x512xf16>, %b: memref<4096x512xf16>, %c: memref<1024x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1024x4096xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<1024x512xf16>, memref<4096x512xf16>
  return
}

// -----

// CHECK-LABEL: func @split_dynamic
// CHECK: handover = convert
func.func @split_dynamic(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}


// -----

// Rows that start off 32-byte sectors (N, K not multiples of 16): clusters
// of two along M (policy::clusterPays), one block an SM.
// CHECK-LABEL: func @unaligned_rows
// CHECK: cluster_m = 2
// CPA-LABEL: func @unaligned_rows
// CPA-NOT: cluster_m
func.func @unaligned_rows(%a: memref<1000x1000xf16>, %b: memref<1000x1000xf16>, %c: memref<1000x1000xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1000x1000xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<1000x1000xf16>, memref<1000x1000xf16>
  return
}

// -----

// B as N x K whose rows (K) lie on sectors and C's (N) do not: no clusters
// where their pairs of row tiles take a wave more than the tiles alone (270
// rows of 128 x 176: 129 tiles alone, 172 in pairs on 132 SMs; 1644 x 1278
// in 128 x 128: 130 and 140); clusters where they add none (128 x 256: 90
// and 120 tiles), for 128 x 128 tiles past a wave (2914 x 5748: 1035 and
// 1080) and with K off sectors (1040 x 1714 x 1512: 126 and 140). B as K
// x N likewise by its rows, N long: none where N lies on sectors and the
// pairs add a wave (270 x 7552 x 2648 in 128 x 192: 120 and 160), clusters
// where N is off them whatever the waves (270 x 7560).
// CHECK-LABEL: func @nk_rows_on_sectors
// CHECK: tile = [128, 176, 64]
// CHECK-SAME: handover = split, index_bitwidth = 32>
// CHECK: tile = [128, 256, 64]
// CHECK-SAME: index_bitwidth = 32, cluster_m = 2>
// CHECK-LABEL: func @nk_one_wave_on_sectors
// CHECK: tile = [128, 128, 64]
// CHECK-SAME: index_bitwidth = 32>
// CHECK-LABEL: func @nk_narrow_tiles_past_a_wave
// CHECK: tile = [128, 128, 64]
// CHECK-SAME: persistent = true, cluster_m = 2>
// CHECK-LABEL: func @nk_k_off_sectors
// CHECK: tile = [128, 128, 64]
// CHECK-SAME: index_bitwidth = 32, cluster_m = 2>
// CHECK-LABEL: func @kn_rows_on_sectors
// CHECK: tile = [128, 192, 64]
// CHECK-SAME: handover = convert, index_bitwidth = 32>
// CHECK-LABEL: func @kn_rows_off_sectors
// CHECK: tile = [128, 192, 64]
// CHECK-SAME: index_bitwidth = 32, cluster_m = 2>
func.func @nk_rows_on_sectors(%a: memref<270x2656xf16>, %b: memref<7556x2656xf16>, %c: memref<270x7556xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<270x7556xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 176, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<270x2656xf16>, memref<7556x2656xf16>
  gpupoor.matmul %a, %b outs(%c : memref<270x7556xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<270x2656xf16>, memref<7556x2656xf16>
  return
}
func.func @nk_one_wave_on_sectors(%a: memref<1644x2176xf16>, %b: memref<1278x2176xf16>, %c: memref<1644x1278xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1644x1278xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<1644x2176xf16>, memref<1278x2176xf16>
  return
}
func.func @nk_narrow_tiles_past_a_wave(%a: memref<2914x6352xf16>, %b: memref<5748x6352xf16>, %c: memref<2914x5748xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<2914x5748xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<2914x6352xf16>, memref<5748x6352xf16>
  return
}
func.func @nk_k_off_sectors(%a: memref<1040x1512xf16>, %b: memref<1714x1512xf16>, %c: memref<1040x1714xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1040x1714xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<1040x1512xf16>, memref<1714x1512xf16>
  return
}
func.func @kn_rows_on_sectors(%a: memref<270x2648xf16>, %b: memref<2648x7552xf16>, %c: memref<270x7552xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<270x7552xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 192, 64], inner = f16, outer = f32, b_layout = kn, slices = 1, chip = sm_90a>)
      : memref<270x2648xf16>, memref<2648x7552xf16>
  return
}
func.func @kn_rows_off_sectors(%a: memref<270x2656xf16>, %b: memref<2656x7560xf16>, %c: memref<270x7560xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<270x7560xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [128, 192, 64], inner = f16, outer = f32, b_layout = kn, slices = 1, chip = sm_90a>)
      : memref<270x2656xf16>, memref<2656x7560xf16>
  return
}

// -----

// The 64 x 128 tile's clusters of four along M (policy::quadClusterPays),
// persistent: four row tiles or more whose clusters of four all run at
// once, 20 (352 x 1224: six row tiles, launched as eight) and 30 (512 x
// 1912) on sm_90a's 30; 32 clusters (512 x 1928) and three row tiles (192
// rows) keep clusters of two. Not persistent where asked; clusters of two
// where asked are not persistent either.
// CHECK-LABEL: func @quad_clusters
// CHECK: index_bitwidth = 32, persistent = true, cluster_m = 4>
// CHECK: index_bitwidth = 32, persistent = true, cluster_m = 4>
// CHECK: index_bitwidth = 32, cluster_m = 2>
// CHECK: index_bitwidth = 32, cluster_m = 2>
// NOPERS-LABEL: func @quad_clusters
// NOPERS: index_bitwidth = 32, cluster_m = 4>
// NOPERS: index_bitwidth = 32, cluster_m = 4>
// NOPERS: index_bitwidth = 32, cluster_m = 2>
// PAIRS-LABEL: func @quad_clusters
// PAIRS: index_bitwidth = 32, cluster_m = 2>
// PAIRS: index_bitwidth = 32, cluster_m = 2>
// SK-LABEL: func @quad_clusters
// SK: index_bitwidth = 32, cluster_m = 4>
// SK: index_bitwidth = 32, cluster_m = 4>
func.func @quad_clusters(%a: memref<352x3560xf16>, %b: memref<1224x3560xf16>, %c: memref<352x1224xf16>,
                         %a1: memref<512x1000xf16>, %b1: memref<1912x1000xf16>, %c1: memref<512x1912xf16>,
                         %b2: memref<1928x1000xf16>, %c2: memref<512x1928xf16>,
                         %a3: memref<192x1000xf16>, %c3: memref<192x1912xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<352x1224xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<352x3560xf16>, memref<1224x3560xf16>
  gpupoor.matmul %a1, %b1 outs(%c1 : memref<512x1912xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x1000xf16>, memref<1912x1000xf16>
  gpupoor.matmul %a1, %b2 outs(%c2 : memref<512x1928xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<512x1000xf16>, memref<1928x1000xf16>
  gpupoor.matmul %a3, %b1 outs(%c3 : memref<192x1912xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<192x1000xf16>, memref<1912x1000xf16>
  return
}

// -----

// The same with B stored K x N and A stored K x M (456 x 1728: eight row
// tiles by fourteen, 28 clusters).
// CHECK-LABEL: func @quad_clusters_kn
// CHECK: copies = tma,
// CHECK-SAME: persistent = true, cluster_m = 4>
func.func @quad_clusters_kn(%a: memref<1512x456xf16>, %b: memref<1512x1728xf16>, %c: memref<456x1728xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<456x1728xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, a_layout = km, b_layout = kn, slices = 1, chip = sm_90a>)
      : memref<1512x456xf16>, memref<1512x1728xf16>
  return
}

// -----

// Aligned rows, one row tile, a 64-row grid beyond the SMs (two blocks an
// SM), parallel slices, dynamic sizes: no clusters.
// CHECK-LABEL: func @no_clusters
// CHECK-NOT: cluster_m
// CHECK: return
func.func @no_clusters(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>,
                       %a1: memref<64x1000xf16>, %b1: memref<1000x1000xf16>, %c1: memref<64x1000xf16>,
                       %a2: memref<4000x1000xf16>, %b2: memref<1000x1000xf16>, %c2: memref<4000x1000xf16>,
                       %a3: memref<1000x1000xf16>, %c3: memref<1000x1000xf16>,
                       %a4: memref<?x?xf16>, %b4: memref<?x?xf16>, %c4: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1024x1024xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<1024x1024xf16>, memref<1024x1024xf16>
  gpupoor.matmul %a1, %b1 outs(%c1 : memref<64x1000xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<64x1000xf16>, memref<1000x1000xf16>
  gpupoor.matmul %a2, %b2 outs(%c2 : memref<4000x1000xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<4000x1000xf16>, memref<1000x1000xf16>
  gpupoor.matmul %a3, %b1 outs(%c3 : memref<1000x1000xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 2, chip = sm_90a>)
      : memref<1000x1000xf16>, memref<1000x1000xf16>
  gpupoor.matmul %a4, %b4 outs(%c4 : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A decode product's activation stored K x M, the swapped kernel's B: 16
// columns read along N, TMA rows of 32 bytes (policy::clusterBlocks). One
// block an SM, 80 tiles (three quarters of the SMs at most): clusters of
// four; 224 tiles, two blocks an SM: clusters of two; 128 tiles, one block
// an SM: clusters of two (more clusters of four than the SMs hold at once).
// B as N x K (the activation read along K): none. In clusters of four the
// tile takes 8 stages, in clusters of two the 6 of one block alone
// (policy::clusterStages).
// CHECK-LABEL: func @narrow_n_major_b
// CHECK: stages = 8,
// CHECK-SAME: index_bitwidth = 32, cluster_m = 4, column_stores = true>
// CHECK: stages = 4,
// CHECK-SAME: blocks_per_sm = 2, cluster_m = 2, column_stores = true>
// CHECK: stages = 6,
// CHECK-SAME: index_bitwidth = 32, cluster_m = 2, column_stores = true>
// CHECK-NOT: cluster_m
// CHECK: return
// CPA-LABEL: func @narrow_n_major_b
// CPA-NOT: cluster_m
func.func @narrow_n_major_b(%a: memref<5120x5120xf16>, %b: memref<5120x16xf16>, %c: memref<5120x16xf16, strided<[1, 5120]>>,
                            %a1: memref<4096x14336xf16>, %c1: memref<14336x16xf16, strided<[1, 14336]>>, %b1: memref<4096x16xf16>,
                            %a2: memref<28672x8192xf16>, %b2: memref<28672x16xf16>, %c2: memref<8192x16xf16, strided<[1, 8192]>>,
                            %b3: memref<16x5120xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<5120x16xf16, strided<[1, 5120]>>)
      strategy(#gpupoor.split_k<splits = 40, tile = [64, 16, 128], inner = f16, outer = f32, a_layout = km, chip = sm_90a, sets = 4>) {gpupoor.swapped_operands}
      : memref<5120x5120xf16>, memref<5120x16xf16>
  gpupoor.matmul %a1, %b1 outs(%c1 : memref<14336x16xf16, strided<[1, 14336]>>)
      strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, a_layout = km, chip = sm_90a, sets = 4>) {gpupoor.swapped_operands}
      : memref<4096x14336xf16>, memref<4096x16xf16>
  gpupoor.matmul %a2, %b2 outs(%c2 : memref<8192x16xf16, strided<[1, 8192]>>)
      strategy(#gpupoor.split_k<splits = 224, tile = [64, 16, 128], inner = f16, outer = f32, a_layout = km, chip = sm_90a, sets = 4>) {gpupoor.swapped_operands}
      : memref<28672x8192xf16>, memref<28672x16xf16>
  gpupoor.matmul %a, %b3 outs(%c : memref<5120x16xf16, strided<[1, 5120]>>)
      strategy(#gpupoor.split_k<splits = 40, tile = [64, 16, 128], inner = f16, outer = f32, a_layout = km, b_layout = nk, chip = sm_90a, sets = 4>) {gpupoor.swapped_operands}
      : memref<5120x5120xf16>, memref<16x5120xf16>
  return
}

// -----

// A swapped product's C is C^T's view, contiguous along the kernel's M:
// its kernel stores 16-byte column vectors where C takes them
// (column_stores). The same product unswapped stores row vectors.
// CHECK-LABEL: func @swapped_column_stores
// CHECK: epilogue_passes = 1,
// CHECK-SAME: column_stores = true>) {gpupoor.swapped_operands}
// CHECK: epilogue_passes = 1,
// CHECK-NOT: column_stores
// CHECK: return
func.func @swapped_column_stores(%a: memref<2144x2408xf16>, %b: memref<288x2408xf16>, %c: memref<2144x288xf16, strided<[1, 2144]>>, %c1: memref<2144x288xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<2144x288xf16, strided<[1, 2144]>>)
      strategy(#gpupoor.split_k<splits = 12, tile = [64, 96, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) {gpupoor.swapped_operands}
      : memref<2144x2408xf16>, memref<288x2408xf16>
  gpupoor.matmul %a, %b outs(%c1 : memref<2144x288xf16>)
      strategy(#gpupoor.split_k<splits = 12, tile = [64, 96, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<2144x2408xf16>, memref<288x2408xf16>
  return
}

// -----

// The transposed product of few rows (policy::swappedFillTile) runs in
// clusters of four sharing A's tile (policy::clusterBlocks), in 64 x 64 tiles
// (A as K x M with B as K x N: x64q) as in 64 x 96 ones (x96q). The 64 x 64
// tiles keep 8 stages in clusters of four (policy::clusterStages), 12 in
// pairs (as many as fit 192 KiB); the 64 x 96 ones 9 (as many as fit).
// CHECK-LABEL: func @swapped_fill_km_clusters
// CHECK: stages = 8,
// CHECK-SAME: cluster_m = 4, column_stores = true>) {gpupoor.swapped_operands}
// CHECK: stages = 9,
// CHECK-SAME: cluster_m = 4, column_stores = true>) {gpupoor.swapped_operands}
// CHECK: return
// PAIRS-LABEL: func @swapped_fill_km_clusters
// PAIRS: stages = 12,
// PAIRS-SAME: cluster_m = 2, column_stores = true>) {gpupoor.swapped_operands}
func.func @swapped_fill_km_clusters(%a: memref<3560x1224xf16>, %b: memref<3560x352xf16>, %c: memref<1224x352xf16, strided<[1, 1224]>>, %a2: memref<2408x2144xf16>, %b2: memref<2408x288xf16>, %c2: memref<2144x288xf16, strided<[1, 2144]>>) {
  gpupoor.matmul %a, %b outs(%c : memref<1224x352xf16, strided<[1, 1224]>>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a>) {gpupoor.swapped_operands}
      : memref<3560x1224xf16>, memref<3560x352xf16>
  gpupoor.matmul %a2, %b2 outs(%c2 : memref<2144x288xf16, strided<[1, 2144]>>)
      strategy(#gpupoor.split_k<splits = 12, tile = [64, 96, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a>) {gpupoor.swapped_operands}
      : memref<2408x2144xf16>, memref<2408x288xf16>
  return
}

// -----

// The transposed product in 128 x 128 tiles (policy::swappedMidTile): a
// block a tile storing C^T in column vectors, never persistent (one wave
// of 128 x 128 tiles that is, unswapped, oneWavePersistentPays: its TMA
// stores of C^T ran slower); in clusters of two where its rows lie off
// 32-byte sectors (K = 1512), and the split handover.
// CHECK-LABEL: func @swapped_mid
// CHECK: handover = split, index_bitwidth = 32, cluster_m = 2, column_stores = true>) {gpupoor.swapped_operands}
// CHECK: handover = split, index_bitwidth = 32, column_stores = true>) {gpupoor.swapped_operands}
// CHECK: handover = split, index_bitwidth = 32, persistent = true>)
// CHECK: return
func.func @swapped_mid(%a: memref<1712x1512xf16>, %b: memref<1040x1512xf16>, %c: memref<1712x1040xf16, strided<[1, 1712]>>, %a1: memref<1720x1536xf16>, %b1: memref<1040x1536xf16>, %c1: memref<1720x1040xf16, strided<[1, 1720]>>, %c2: memref<1720x1040xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1712x1040xf16, strided<[1, 1712]>>)
      strategy(#gpupoor.split_k<splits = 8, slices = 1, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) {gpupoor.swapped_operands}
      : memref<1712x1512xf16>, memref<1040x1512xf16>
  gpupoor.matmul %a1, %b1 outs(%c1 : memref<1720x1040xf16, strided<[1, 1720]>>)
      strategy(#gpupoor.split_k<splits = 8, slices = 1, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) {gpupoor.swapped_operands}
      : memref<1720x1536xf16>, memref<1040x1536xf16>
  gpupoor.matmul %a1, %b1 outs(%c2 : memref<1720x1040xf16>)
      strategy(#gpupoor.split_k<splits = 8, slices = 1, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<1720x1536xf16>, memref<1040x1536xf16>
  return
}

// -----

// The three-warpgroup 192 x 192 tile: 12 warps, four stages (48 KiB each),
// no split handover (two warpgroups only). One wave (9 x 14 = 126 tiles) a
// block a tile; past it (11 x 23 = 253) persistent. Never stream-K (measured
// on three warpgroups only where the rules keep 128 x 256): 552 x 12808 x
// 4096 has 3 x 67 = 201 tiles, a last wave of 69 on 132 SMs that would take
// it (streamKPays) in 128-row tiles.
// CHECK-LABEL: func @three_warpgroup_wide
// CHECK: config(#gpupoor.kernel_config<warps = [12, 1], stages = 4, group_m = 8, copies = tma,
// CHECK-SAME: handover = convert
// CHECK-NOT: persistent
// CHECK: config(#gpupoor.kernel_config<warps = [12, 1], stages = 4, group_m = 8, copies = tma,
// CHECK-SAME: handover = convert, index_bitwidth = 32, persistent = true>
// CHECK: config(#gpupoor.kernel_config<warps = [12, 1], stages = 4, group_m = 8, copies = tma,
// CHECK-SAME: handover = convert, index_bitwidth = 32, persistent = true>
// NOPERS-LABEL: func @three_warpgroup_wide
// NOPERS-NOT: persistent
// NOPERS: return
func.func @three_warpgroup_wide(%a: memref<1624x744xf16>, %b: memref<2568x744xf16>, %c: memref<1624x2568xf16>,
                                %a2: memref<2100x1000xf16>, %b2: memref<4360x1000xf16>, %c2: memref<2100x4360xf16>,
                                %a3: memref<552x4096xf16>, %b3: memref<12808x4096xf16>, %c3: memref<552x12808xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1624x2568xf16>)
      strategy(#gpupoor.split_k<splits = 4, tile = [192, 192, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<1624x744xf16>, memref<2568x744xf16>
  gpupoor.matmul %a2, %b2 outs(%c2 : memref<2100x4360xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [192, 192, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<2100x1000xf16>, memref<4360x1000xf16>
  gpupoor.matmul %a3, %b3 outs(%c3 : memref<552x12808xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [192, 192, 64], inner = f16, outer = f32, b_layout = nk, slices = 1, chip = sm_90a>)
      : memref<552x4096xf16>, memref<12808x4096xf16>
  return
}
