// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=1 tuned-table=false" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=1 tile=16,128,64" | FileCheck %s --check-prefix=SMALL
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=0 tuned-table=false" | FileCheck %s --check-prefix=AUTO
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=0 splits=16 tuned-table=false" | FileCheck %s --check-prefix=SPLITS
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=1 tile=32,128,64" | FileCheck %s --check-prefix=T32
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=1 tile=32,16,256" | FileCheck %s --check-prefix=T32W
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=0 tuned-table=false tile=128,256,64" | FileCheck %s --check-prefix=WIDE

// sm_90a: nn.Linear's product (A as M x K, B as N x K) takes the wgmma
// kernel's 128 x 256 x 64 tile; K = 4096 is 128 blocks of 32 (the split
// rule's unit, not BK), 16 splits: chunks of 256, four K tiles.
// CHECK-LABEL: func @linear
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// A tile the wgmma kernel cannot take (16 rows) gets the sm_90 mma.sync
// kernel.
// SMALL-LABEL: func @linear
// SMALL: tile = [16, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90, sets = 4>
func.func @linear(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}

// -----

// B as K x N: the wgmma kernel reads it N-major (transposed), with the
// tile B as N x K takes.
// CHECK-LABEL: func @kn
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, chip = sm_90a>)
func.func @kn(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}

// -----

// Automatic slices plan one block an SM for the wgmma kernel's 128-row
// tiles (two warpgroups of up to 255 registers fill the register file):
// 256 x 2560 is T = 2 x 10 = 20 tiles of 128 x 256, K = 32768 is 1024
// blocks of 32, S = 32 by the rule, 128 in the 128 x 256 tile's chunks of
// at most 256; P1 = clamp(132 / 20, 1, min(S, 32)) = 6, and with one block
// an SM P2 = P1 (two an SM would have given 13 > 12) (the WIDE run: the tile
// named). Chosen, the tile is the filling 64 x 160 one (4 x 16 = 64 tiles
// in two slices, whose meeting costs less than six slices'; AUTO).
// WIDE-LABEL: func @one_block_an_sm
// WIDE: strategy(#gpupoor.split_k<splits = 128, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 6, chip = sm_90a>)
// AUTO-LABEL: func @one_block_an_sm
// AUTO: strategy(#gpupoor.split_k<splits = 32, tile = [64, 160, 64], inner = f16, outer = f32, b_layout = nk, slices = 2, chip = sm_90a>)
func.func @one_block_an_sm(%a: tensor<256x32768xf16>, %b: tensor<2560x32768xf16>) -> tensor<256x2560xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x2560xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x2560xf16>) -> tensor<256x2560xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<256x32768xf16>, tensor<2560x32768xf16>)
                     outs(%c : tensor<256x2560xf16>) -> tensor<256x2560xf16>
  return %r : tensor<256x2560xf16>
}

// -----

// Tiles by shape (static): M <= 16 runs transposed where the swapped
// product's 64 x 16 tiles fill from a third of the 132 SMs to two blocks
// an SM (4096 / 64 = 64 of them), one slice each, also when slices are chosen (AUTO); a
// tile the options name is never swapped (SMALL). A decode tile (16 columns
// swapped, or 16 rows) sums chunks of at most 128 K elements
// (policy::tileNumSplits): S = 32 at K = 4096, where the rule gives 16,
// and 10 at K = 1280 (decode_short_k), where it gives 8.
// CHECK-LABEL: func @decode
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
// AUTO-LABEL: func @decode
// AUTO: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
// SMALL-LABEL: func @decode
// SMALL: strategy(#gpupoor.split_k<splits = 32, tile = [16, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90, sets = 4>)
func.func @decode(%a: tensor<1x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}

// -----

// 16 < M <= 128: one warpgroup's 64-row wgmma tile; where 64 x 64 tiles (1
// x 64 here) fit the 132 SMs in one wave, 56 to 64 rows take 64 x 32 x 64
// with four f16 sums a chunk (policy::kRows64Tile, kRows64MinRows).
// CHECK-LABEL: func @mid
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 32, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 4>)
// Automatic slices: these 128 tiles cover a third of the SMs or more, so
// one slice.
// AUTO-LABEL: func @mid
// AUTO: strategy(#gpupoor.split_k<splits = 16, tile = [64, 32, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 4>)
func.func @mid(%a: tensor<64x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<64x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<64x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  return %r : tensor<64x4096xf16>
}

// -----

// Fewer than policy::kRows64MinRows rows keep 64 x 64 x 64 with one sum,
// and so does A stored K x M short of 64 rows (56 here); A as K x M of 64 rows takes
// 64 x 32 x 64.
// CHECK-LABEL: func @mid_rows_55
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @mid_rows_55(%a: tensor<55x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<55x4096xf16>) -> tensor<55x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<55x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<55x4096xf16>) -> tensor<55x4096xf16>
  return %r : tensor<55x4096xf16>
}
// CHECK-LABEL: func @mid_rows_56
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 32, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 4>)
func.func @mid_rows_56(%a: tensor<56x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<56x4096xf16>) -> tensor<56x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<56x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<56x4096xf16>) -> tensor<56x4096xf16>
  return %r : tensor<56x4096xf16>
}
// CHECK-LABEL: func @mid_km_rows_56
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90a>)
func.func @mid_km_rows_56(%a: tensor<4096x56xf16>, %b: tensor<4096x4096xf16>, %c: tensor<56x4096xf16>) -> tensor<56x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x56xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<56x4096xf16>) -> tensor<56x4096xf16>
  return %r : tensor<56x4096xf16>
}
// CHECK-LABEL: func @mid_km_rows_64
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 32, 64], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90a, sets = 4>)
func.func @mid_km_rows_64(%a: tensor<4096x64xf16>, %b: tensor<4096x4096xf16>, %c: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x64xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  return %r : tensor<64x4096xf16>
}
// Off 128-byte lines (K, or N of B as K x N, no multiple of 64): 64 x 64.
// CHECK-LABEL: func @mid_k_tail
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @mid_k_tail(%a: tensor<64x4000xf16>, %b: tensor<4096x4000xf16>, %c: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<64x4000xf16>, tensor<4096x4000xf16>)
                     outs(%c : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  return %r : tensor<64x4096xf16>
}
// CHECK-LABEL: func @mid_kn_n_off_lines
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, chip = sm_90a>)
func.func @mid_kn_n_off_lines(%a: tensor<64x4096xf16>, %b: tensor<4096x4000xf16>, %c: tensor<64x4000xf16>) -> tensor<64x4000xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<64x4096xf16>, tensor<4096x4000xf16>)
                     outs(%c : tensor<64x4000xf16>) -> tensor<64x4000xf16>
  return %r : tensor<64x4000xf16>
}

// -----

// M > 64 whose 128 x 256 tiles (4 x 16 = 64) fill less than half the SMs
// and whose 128 x 128 tiles (4 x 32 = 128) fill from half to all of them
// in one wave: 128 x 128 x 64, one slice each (AUTO below).
// CHECK-LABEL: func @few_wide
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// AUTO-LABEL: func @few_wide
// AUTO: strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @few_wide(%a: tensor<512x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<512x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x4096xf16>) -> tensor<512x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<512x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<512x4096xf16>) -> tensor<512x4096xf16>
  return %r : tensor<512x4096xf16>
}

// -----

// 128 x 128 tiles fill 80 of 132 SMs, but 128 x 256 tiles (2 x 20 = 40) in
// slices that fill more of them (132 / 40 = 3: 120) cover 13824 / 3 = 4608
// >= 4096 of K each: the 128 x 256 tile where the slices are named; where
// they are chosen (AUTO) the filling 64 x 160 tile (128 tiles of all of K),
// whose wave costs an SM less than the three slices' meeting. With K = 5120
// (slices of 1706) the 128 x 128 tile stays where the slices are named
// (@mid_short_k), and where they are chosen (AUTO) gives way to the filling
// 64 x 160 tile, 4 x 32 = 128 tiles in one wave. The 128 x 256 tile sums
// chunks of at most 256 (ceil(13824 / 256) = 54 where the rule gives 32:
// policy::kWideTileChunk); the 64 x 160 tile keeps the rule.
// CHECK-LABEL: func @few_wide_long_k
// CHECK: strategy(#gpupoor.split_k<splits = 54, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// AUTO-LABEL: func @few_wide_long_k
// AUTO: strategy(#gpupoor.split_k<splits = 32, tile = [64, 160, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// CHECK-LABEL: func @mid_short_k
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// AUTO-LABEL: func @mid_short_k
// AUTO: strategy(#gpupoor.split_k<splits = 16, tile = [64, 160, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @few_wide_long_k(%a: tensor<256x13824xf16>, %b: tensor<5120x13824xf16>) -> tensor<256x5120xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x5120xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x5120xf16>) -> tensor<256x5120xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<256x13824xf16>, tensor<5120x13824xf16>)
                     outs(%c : tensor<256x5120xf16>) -> tensor<256x5120xf16>
  return %r : tensor<256x5120xf16>
}
func.func @mid_short_k(%a: tensor<256x5120xf16>, %b: tensor<5120x5120xf16>) -> tensor<256x5120xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x5120xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x5120xf16>) -> tensor<256x5120xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<256x5120xf16>, tensor<5120x5120xf16>)
                     outs(%c : tensor<256x5120xf16>) -> tensor<256x5120xf16>
  return %r : tensor<256x5120xf16>
}

// -----

// 128 x 128 tiles too few as well (4 x 16 = 64 < 66), and the slices that
// would fill the SMs with 128 x 256 tiles (132 / 32 = 4) cover 1280 < 4096
// of K each: the 64 x 128 tile.
// CHECK-LABEL: func @few_mid
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @few_mid(%a: tensor<512x5120xf16>, %b: tensor<2048x5120xf16>) -> tensor<512x2048xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x2048xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x2048xf16>) -> tensor<512x2048xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<512x5120xf16>, tensor<2048x5120xf16>)
                     outs(%c : tensor<512x2048xf16>) -> tensor<512x2048xf16>
  return %r : tensor<512x2048xf16>
}

// -----

// Few tiles of either width (2 x 8 = 16 and 2 x 16 = 32), but the
// slices that fill the SMs (132 / 16 = 8) cover 32768 / 8 = 4096 of K
// each: the rules' 128 x 256 tile. Where the slices are chosen (AUTO), its
// eight slices' meeting costs more than the filling 64 x 192 tile's three
// (4 x 11 = 44 tiles, 132 blocks). The 128 x 256 tile takes S = 128 (chunks
// of 256: policy::kWideTileChunk), the filling tile the rule's 32.
// CHECK-LABEL: func @long_k
// CHECK: strategy(#gpupoor.split_k<splits = 128, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// AUTO-LABEL: func @long_k
// AUTO: strategy(#gpupoor.split_k<splits = 32, tile = [64, 192, 64], inner = f16, outer = f32, b_layout = nk, slices = 3, chip = sm_90a>)
func.func @long_k(%a: tensor<256x32768xf16>, %b: tensor<2048x32768xf16>) -> tensor<256x2048xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x2048xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x2048xf16>) -> tensor<256x2048xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<256x32768xf16>, tensor<2048x32768xf16>)
                     outs(%c : tensor<256x2048xf16>) -> tensor<256x2048xf16>
  return %r : tensor<256x2048xf16>
}

// -----

// M = 128 whose 128 x 128 tiles (112) fill the SMs in one wave: 128 x
// 128 x 64 rather than one warpgroup's 64-row tile.
// CHECK-LABEL: func @mid_one_wave
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @mid_one_wave(%a: tensor<128x4096xf16>, %b: tensor<14336x4096xf16>) -> tensor<128x14336xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x14336xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<128x14336xf16>) -> tensor<128x14336xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<128x4096xf16>, tensor<14336x4096xf16>)
                     outs(%c : tensor<128x14336xf16>) -> tensor<128x14336xf16>
  return %r : tensor<128x14336xf16>
}

// -----

// M <= 64 (a 128-row tile would be half padding) whose 64 x 64 tiles
// (224) need more than one wave: 64 x 128 x 64.
// CHECK-LABEL: func @mid_wide
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @mid_wide(%a: tensor<64x4096xf16>, %b: tensor<14336x4096xf16>) -> tensor<64x14336xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x14336xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<64x14336xf16>) -> tensor<64x14336xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<64x4096xf16>, tensor<14336x4096xf16>)
                     outs(%c : tensor<64x14336xf16>) -> tensor<64x14336xf16>
  return %r : tensor<64x14336xf16>
}

// -----

// Fewer tiles than a quarter of the SMs (64 x 2048: 32 of 64 x 64): the
// automatic count, P1 = 4 (P2 = 8 is not more than twice that); under a
// third of the SMs, 64 x 64 in slices rather than 64 x 32 tiles in one
// (policy::kRows64Tile). Its chunks of 320 keep two f16 sums
// (policy::chunkSets).
// AUTO-LABEL: func @mid_few_tiles
// AUTO: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, slices = 4, chip = sm_90a, sets = 2>)
func.func @mid_few_tiles(%a: tensor<64x5120xf16>, %b: tensor<2048x5120xf16>) -> tensor<64x2048xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x2048xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<64x2048xf16>) -> tensor<64x2048xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<64x5120xf16>, tensor<2048x5120xf16>)
                     outs(%c : tensor<64x2048xf16>) -> tensor<64x2048xf16>
  return %r : tensor<64x2048xf16>
}

// -----

// Up to two swapped tiles an SM (14336 / 64 = 224): swapped.
// CHECK-LABEL: func @decode_two_waves
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
func.func @decode_two_waves(%a: tensor<16x4096xf16>, %b: tensor<14336x4096xf16>) -> tensor<16x14336xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x14336xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<16x14336xf16>) -> tensor<16x14336xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<16x4096xf16>, tensor<14336x4096xf16>)
                     outs(%c : tensor<16x14336xf16>) -> tensor<16x14336xf16>
  return %r : tensor<16x14336xf16>
}

// -----

// More swapped tiles than two an SM (17024 / 64 = 266 > 264): a weight
// stored N x K stays swapped (policy::selectSwappedTile).
// CHECK-LABEL: func @decode_wide
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
func.func @decode_wide(%a: tensor<16x4096xf16>, %b: tensor<17024x4096xf16>) -> tensor<16x17024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x17024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<16x17024xf16>) -> tensor<16x17024xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<16x4096xf16>, tensor<17024x4096xf16>)
                     outs(%c : tensor<16x17024xf16>) -> tensor<16x17024xf16>
  return %r : tensor<16x17024xf16>
}

// -----

// B as K x N past two swapped tiles an SM: up to 7 rows still swapped
// (policy::kWideSwappedKNRows) where the 16 x 256 tile does not fit
// (policy::wideDecodeTileFits: 17024 / 256 = 67 tiles, under three
// quarters of the SMs); 8 rows on sm_90's decode tile, whose 133 tiles
// take one slice (policy::kMmaDecodeKNRows), and 9 and 16 rows as past two
// swapped tiles an SM.
// CHECK-LABEL: func @decode_wide_kn
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, chip = sm_90a, swapped = true, sets = 4>)
// CHECK-LABEL: func @decode_wide_kn8
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
// CHECK-LABEL: func @decode_wide_kn16
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
// CHECK-LABEL: func @decode_wide_kn9
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
func.func @decode_wide_kn(%a: tensor<7x4096xf16>, %b: tensor<4096x17024xf16>) -> tensor<7x17024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<7x17024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<7x17024xf16>) -> tensor<7x17024xf16>
  %r = linalg.matmul ins(%a, %b : tensor<7x4096xf16>, tensor<4096x17024xf16>)
                     outs(%c : tensor<7x17024xf16>) -> tensor<7x17024xf16>
  return %r : tensor<7x17024xf16>
}
func.func @decode_wide_kn8(%a: tensor<8x4096xf16>, %b: tensor<4096x17024xf16>) -> tensor<8x17024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x17024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<8x17024xf16>) -> tensor<8x17024xf16>
  %r = linalg.matmul ins(%a, %b : tensor<8x4096xf16>, tensor<4096x17024xf16>)
                     outs(%c : tensor<8x17024xf16>) -> tensor<8x17024xf16>
  return %r : tensor<8x17024xf16>
}
func.func @decode_wide_kn16(%a: tensor<16x4096xf16>, %b: tensor<4096x17024xf16>) -> tensor<16x17024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x17024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<16x17024xf16>) -> tensor<16x17024xf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x4096xf16>, tensor<4096x17024xf16>)
                     outs(%c : tensor<16x17024xf16>) -> tensor<16x17024xf16>
  return %r : tensor<16x17024xf16>
}
func.func @decode_wide_kn9(%a: tensor<9x4096xf16>, %b: tensor<4096x17024xf16>) -> tensor<9x17024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<9x17024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<9x17024xf16>) -> tensor<9x17024xf16>
  %r = linalg.matmul ins(%a, %b : tensor<9x4096xf16>, tensor<4096x17024xf16>)
                     outs(%c : tensor<9x17024xf16>) -> tensor<9x17024xf16>
  return %r : tensor<9x17024xf16>
}

// -----

// B as K x N of up to 8 rows where the 16 x 256 tile fits
// (policy::wideDecodeTileFits: 28672 / 256 = 112 tiles, from three quarters
// of the SMs to all of them): that tile, not swapped; 16 rows keep the
// 16 x 128 one. 8 rows of B as K x N within two swapped tiles an SM: the
// 16 x 128 tile where its tiles take one slice (13824 / 128 = 108), swapped
// where they would take slices (11008 / 128 = 86: three).
// CHECK-LABEL: func @decode_wide_tile_kn
// CHECK: strategy(#gpupoor.split_k<splits = 64, tile = [16, 256, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
// CHECK-LABEL: func @decode_wide_tile_kn8
// CHECK: strategy(#gpupoor.split_k<splits = 64, tile = [16, 256, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
// CHECK-LABEL: func @decode_wide_tile_kn16
// CHECK: strategy(#gpupoor.split_k<splits = 64, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
// CHECK-LABEL: func @decode_kn8_one_slice
// CHECK: strategy(#gpupoor.split_k<splits = 40, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
// CHECK-LABEL: func @decode_kn8_slices
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, chip = sm_90a, swapped = true, sets = 4>)
// Below K = 2048 (policy::kMmaDecodeKNMinK) swapped.
// CHECK-LABEL: func @decode_kn8_short_k
// CHECK: strategy(#gpupoor.split_k<splits = 8, tile = [64, 16, 128], inner = f16, outer = f32, chip = sm_90a, swapped = true, sets = 4>)
// CHECK-LABEL: func @decode_wide_tile_kn_short_k
// CHECK: strategy(#gpupoor.split_k<splits = 15, tile = [64, 16, 128], inner = f16, outer = f32, chip = sm_90a, swapped = true, sets = 4>)
// With slices chosen, one slice (no `slices` in the strategy) on both tiles.
// AUTO-LABEL: func @decode_wide_tile_kn8
// AUTO: strategy(#gpupoor.split_k<splits = 64, tile = [16, 256, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
// AUTO-LABEL: func @decode_kn8_one_slice
// AUTO: strategy(#gpupoor.split_k<splits = 40, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
// A memref's A as K x M, which cannot be copied, stays swapped where A as
// M x K takes the 16 x 256 tile (not measured on it).
// CHECK-LABEL: func @decode_wide_tile_km_memref
// CHECK: tile = [64, 8, 128]
// CHECK-SAME: a_layout = km, chip = sm_90a, swapped = true
func.func @decode_wide_tile_kn(%a: tensor<1x8192xf16>, %b: tensor<8192x28672xf16>) -> tensor<1x28672xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x28672xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x28672xf16>) -> tensor<1x28672xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x8192xf16>, tensor<8192x28672xf16>)
                     outs(%c : tensor<1x28672xf16>) -> tensor<1x28672xf16>
  return %r : tensor<1x28672xf16>
}
func.func @decode_wide_tile_kn8(%a: tensor<8x8192xf16>, %b: tensor<8192x28672xf16>) -> tensor<8x28672xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x28672xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<8x28672xf16>) -> tensor<8x28672xf16>
  %r = linalg.matmul ins(%a, %b : tensor<8x8192xf16>, tensor<8192x28672xf16>)
                     outs(%c : tensor<8x28672xf16>) -> tensor<8x28672xf16>
  return %r : tensor<8x28672xf16>
}
func.func @decode_wide_tile_kn16(%a: tensor<16x8192xf16>, %b: tensor<8192x28672xf16>) -> tensor<16x28672xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x28672xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<16x28672xf16>) -> tensor<16x28672xf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x8192xf16>, tensor<8192x28672xf16>)
                     outs(%c : tensor<16x28672xf16>) -> tensor<16x28672xf16>
  return %r : tensor<16x28672xf16>
}
func.func @decode_kn8_one_slice(%a: tensor<8x5120xf16>, %b: tensor<5120x13824xf16>) -> tensor<8x13824xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x13824xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<8x13824xf16>) -> tensor<8x13824xf16>
  %r = linalg.matmul ins(%a, %b : tensor<8x5120xf16>, tensor<5120x13824xf16>)
                     outs(%c : tensor<8x13824xf16>) -> tensor<8x13824xf16>
  return %r : tensor<8x13824xf16>
}
func.func @decode_kn8_slices(%a: tensor<8x4096xf16>, %b: tensor<4096x11008xf16>) -> tensor<8x11008xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x11008xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<8x11008xf16>) -> tensor<8x11008xf16>
  %r = linalg.matmul ins(%a, %b : tensor<8x4096xf16>, tensor<4096x11008xf16>)
                     outs(%c : tensor<8x11008xf16>) -> tensor<8x11008xf16>
  return %r : tensor<8x11008xf16>
}
func.func @decode_kn8_short_k(%a: tensor<8x1024xf16>, %b: tensor<1024x14336xf16>) -> tensor<8x14336xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x14336xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<8x14336xf16>) -> tensor<8x14336xf16>
  %r = linalg.matmul ins(%a, %b : tensor<8x1024xf16>, tensor<1024x14336xf16>)
                     outs(%c : tensor<8x14336xf16>) -> tensor<8x14336xf16>
  return %r : tensor<8x14336xf16>
}
func.func @decode_wide_tile_kn_short_k(%a: tensor<4x1920xf16>, %b: tensor<1920x28672xf16>) -> tensor<4x28672xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x28672xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4x28672xf16>) -> tensor<4x28672xf16>
  %r = linalg.matmul ins(%a, %b : tensor<4x1920xf16>, tensor<1920x28672xf16>)
                     outs(%c : tensor<4x28672xf16>) -> tensor<4x28672xf16>
  return %r : tensor<4x28672xf16>
}
func.func @decode_wide_tile_km_memref(%a: memref<8192x8xf16>, %b: memref<8192x28672xf16>, %c: memref<8x28672xf16>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %b : memref<8192x8xf16>, memref<8192x28672xf16>)
                outs(%c : memref<8x28672xf16>)
  return
}

// -----

// Fewer swapped 64-row tiles than a quarter of the SMs (2048 / 64 = 32):
// swapped, in 32-row tiles of BK = 256 (64 of them) with a chunk each K
// tile (5120 / 256 = 20 splits, more than gpu_poor's rule's 16:
// tileNumSplits' chunks, one K tile where BK passes 128), one
// slice. With the splits given, or fewer K tiles than the rule's splits
// (K = 1280: 5 against 8), the 64-row tile (its S 10: chunks of 128), in four slices where slices are chosen (132 /
// 32); below K = 2048 one slice (the meeting of the slices costs more than
// it saves). M = 17: not swapped.
// CHECK-LABEL: func @decode_narrow
// CHECK: strategy(#gpupoor.split_k<splits = 20, tile = [32, 16, 256], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
// AUTO-LABEL: func @decode_narrow
// AUTO: strategy(#gpupoor.split_k<splits = 20, tile = [32, 16, 256], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
// A given 32-row tile of BK = 64 stays the mma.sync kernel's; of BK = 256
// with B's tile of 16 x 256 it is wgmma's (not swapped: the tile is given).
// T32-LABEL: func @decode_narrow
// T32: tile = [32, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90>
// T32W-LABEL: func @decode_narrow
// T32W: tile = [32, 16, 256], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 4>
// SPLITS-LABEL: func @decode_narrow
// SPLITS: strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, slices = 4, chip = sm_90a, swapped = true, sets = 4>)
// AUTO-LABEL: func @decode_short_k
// AUTO: strategy(#gpupoor.split_k<splits = 10, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
// 17 to 32 rows (A as M x K, B either way) take the 32-row wgmma tile
// (policy::kThinTile), not swapped, in chunks of 128 (S = 32 at K = 4096,
// where the rule gives 16: policy::longestChunk), each two f16 sums
// (policy::kThinTileSets).
// CHECK-LABEL: func @seventeen_rows
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [32, 64, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 2>)
// CHECK-LABEL: func @thirty_two_rows_kn
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [32, 64, 128], inner = f16, outer = f32, chip = sm_90a, sets = 2>)
// CHECK: return
func.func @decode_narrow(%a: tensor<1x5120xf16>, %b: tensor<2048x5120xf16>) -> tensor<1x2048xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x2048xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x2048xf16>) -> tensor<1x2048xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1x5120xf16>, tensor<2048x5120xf16>)
                     outs(%c : tensor<1x2048xf16>) -> tensor<1x2048xf16>
  return %r : tensor<1x2048xf16>
}
func.func @decode_short_k(%a: tensor<1x1280xf16>, %b: tensor<2048x1280xf16>) -> tensor<1x2048xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x2048xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x2048xf16>) -> tensor<1x2048xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1x1280xf16>, tensor<2048x1280xf16>)
                     outs(%c : tensor<1x2048xf16>) -> tensor<1x2048xf16>
  return %r : tensor<1x2048xf16>
}
func.func @seventeen_rows(%a: tensor<17x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<17x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<17x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<17x4096xf16>) -> tensor<17x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<17x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<17x4096xf16>) -> tensor<17x4096xf16>
  return %r : tensor<17x4096xf16>
}
func.func @thirty_two_rows_kn(%a: tensor<32x4096xf16>, %b: tensor<4096x5120xf16>) -> tensor<32x5120xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x5120xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<32x5120xf16>) -> tensor<32x5120xf16>
  %r = linalg.matmul ins(%a, %b : tensor<32x4096xf16>, tensor<4096x5120xf16>)
                     outs(%c : tensor<32x5120xf16>) -> tensor<32x5120xf16>
  return %r : tensor<32x5120xf16>
}

// -----

// B as K x N: swapped too; the swapped product reads its A (B's transpose)
// as K x M in atoms of 64 rows, so the tile's rows are a multiple of 64.
// CHECK-LABEL: func @decode_kn
// CHECK: gpupoor.matmul
// CHECK-SAME: tile = [64, 16, 128]
// CHECK-SAME: chip = sm_90a, swapped = true
// CHECK: return
func.func @decode_kn(%a: tensor<1x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}

// -----

// A decode product of an A stored K x M runs swapped, its kernel reading A
// as it is (as its B as K x N) where A's rows fill its boxes of 16 columns;
// of 12 rows A is copied M x K first (policy::copiesKMajorA). 32 rows run
// swapped the same way, in the 64 x 32 tile (policy::kSwappedKMTile),
// whatever K.
// CHECK-LABEL: func @decode_km
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: tile = [64, 16, 128]
// CHECK-SAME: a_layout = km, chip = sm_90a, swapped = true
// CHECK-LABEL: func @decode12_km
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<4096x12xf16>)
// CHECK: gpupoor.matmul %[[T]], %arg1
// CHECK-NOT: a_layout = km
// CHECK-SAME: chip = sm_90a, swapped = true
// CHECK-LABEL: func @rows32_km
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: tile = [64, 32, 128]
// CHECK-SAME: a_layout = km, chip = sm_90a, swapped = true, sets = 4>
// 8 rows run swapped on A as it lies too, in the 64 x 8 tile
// (policy::kSwappedKM8Tile: 16-byte rows); past two blocks an SM's swapped
// tiles (N = 28672: 448) A is copied M x K for sm_90's 16 x 256 tile
// (policy::wideDecodeTileFits).
// CHECK-LABEL: func @rows8_km
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: tile = [64, 8, 128]
// CHECK-SAME: a_layout = km, chip = sm_90a, swapped = true, sets = 4>
// CHECK-LABEL: func @rows8_wide_km
// CHECK: %[[COPY8:.*]] = linalg.transpose ins(%arg0 : tensor<8192x8xf16>)
// CHECK: gpupoor.matmul %[[COPY8]], %arg1
// CHECK-SAME: tile = [16, 256, 128]
// CHECK-NOT: a_layout = km
// CHECK-SAME: chip = sm_90, sets = 4>
// 24 rows (48-byte rows of A, off 32-byte sectors) are copied M x K for the
// 32-row tile, which keeps two f16 sums a chunk (64 columns).
// CHECK-LABEL: func @rows24_km
// CHECK: %[[COPY24:.*]] = linalg.transpose ins(%arg0 : tensor<4096x24xf16>)
// CHECK: gpupoor.matmul %[[COPY24]], %arg1
// CHECK-NOT: a_layout = km
// CHECK-SAME: tile = [32, 64, 128]
// CHECK-SAME: sets = 2>
// CHECK-LABEL: func @rows32_long_k_km
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: tile = [64, 32, 128]
// CHECK-SAME: a_layout = km, chip = sm_90a, swapped = true
// Past two swapped tiles an SM (N = 17024: 266 tiles) the product runs
// unswapped: 16 rows are copied (the 16-row mma.sync tile would read A an
// element at a time); 32 rows read as they lie in 64-row tiles, and are
// copied past a K of 8192 (policy::kCopiedThinAK).
// CHECK-LABEL: func @decode_wide_km
// CHECK: %[[COPYW:.*]] = linalg.transpose ins(%arg0 : tensor<1024x16xf16>)
// CHECK: gpupoor.matmul %[[COPYW]], %arg1
// CHECK-NOT: swapped
// CHECK-LABEL: func @rows32_wide_km
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: tile = [64, 128, 64]
// CHECK-SAME: a_layout = km, chip = sm_90a>
// CHECK-LABEL: func @rows32_wide_long_k_km
// CHECK: %[[COPYL:.*]] = linalg.transpose ins(%arg0 : tensor<8208x32xf16>)
// CHECK: gpupoor.matmul %[[COPYL]], %arg1
// CHECK-NOT: swapped
func.func @decode_km(%a: tensor<4096x16xf16>, %b: tensor<4096x4096xf16>) -> tensor<16x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x16xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  return %r : tensor<16x4096xf16>
}
func.func @decode12_km(%a: tensor<4096x12xf16>, %b: tensor<4096x4096xf16>) -> tensor<12x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<12x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<12x4096xf16>) -> tensor<12x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x12xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<12x4096xf16>) -> tensor<12x4096xf16>
  return %r : tensor<12x4096xf16>
}
func.func @rows32_km(%a: tensor<4096x32xf16>, %b: tensor<4096x4096xf16>) -> tensor<32x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<32x4096xf16>) -> tensor<32x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x32xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<32x4096xf16>) -> tensor<32x4096xf16>
  return %r : tensor<32x4096xf16>
}
func.func @rows8_km(%a: tensor<4096x8xf16>, %b: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x8xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  return %r : tensor<8x4096xf16>
}
func.func @rows8_wide_km(%a: tensor<8192x8xf16>, %b: tensor<8192x28672xf16>) -> tensor<8x28672xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x28672xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<8x28672xf16>) -> tensor<8x28672xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<8192x8xf16>, tensor<8192x28672xf16>)
                     outs(%c : tensor<8x28672xf16>) -> tensor<8x28672xf16>
  return %r : tensor<8x28672xf16>
}
func.func @rows24_km(%a: tensor<4096x24xf16>, %b: tensor<4096x4096xf16>) -> tensor<24x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<24x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<24x4096xf16>) -> tensor<24x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x24xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<24x4096xf16>) -> tensor<24x4096xf16>
  return %r : tensor<24x4096xf16>
}
func.func @rows32_long_k_km(%a: tensor<8208x32xf16>, %b: tensor<8208x4096xf16>) -> tensor<32x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<32x4096xf16>) -> tensor<32x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<8208x32xf16>, tensor<8208x4096xf16>)
                     outs(%c : tensor<32x4096xf16>) -> tensor<32x4096xf16>
  return %r : tensor<32x4096xf16>
}
func.func @decode_wide_km(%a: tensor<1024x16xf16>, %b: tensor<1024x17024xf16>) -> tensor<16x17024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x17024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<16x17024xf16>) -> tensor<16x17024xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1024x16xf16>, tensor<1024x17024xf16>)
                     outs(%c : tensor<16x17024xf16>) -> tensor<16x17024xf16>
  return %r : tensor<16x17024xf16>
}
func.func @rows32_wide_km(%a: tensor<1024x32xf16>, %b: tensor<1024x17024xf16>) -> tensor<32x17024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x17024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<32x17024xf16>) -> tensor<32x17024xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1024x32xf16>, tensor<1024x17024xf16>)
                     outs(%c : tensor<32x17024xf16>) -> tensor<32x17024xf16>
  return %r : tensor<32x17024xf16>
}
func.func @rows32_wide_long_k_km(%a: tensor<8208x32xf16>, %b: tensor<8208x17024xf16>) -> tensor<32x17024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x17024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<32x17024xf16>) -> tensor<32x17024xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<8208x32xf16>, tensor<8208x17024xf16>)
                     outs(%c : tensor<32x17024xf16>) -> tensor<32x17024xf16>
  return %r : tensor<32x17024xf16>
}

// -----

// Short K at M = 512: 128 x 256 tiles would take 96 of the 132 SMs (6144
// columns) or two waves, the second of 28 tiles (10240); 128 x 192 fills
// one wave with 128 tiles, 128 x 160 two full ones with 256 (their waves
// cost enough less at the measured 0.93 and 0.87 speed a flop).
// CHECK-LABEL: func @short_k_192
// CHECK: tile = [128, 192, 64]
// CHECK-LABEL: func @short_k_160
// CHECK: tile = [128, 160, 64]
// B as K x N takes 160 columns (five 32-column atoms) where M fills its
// row tiles; where the last one is partial, 192.
// CHECK-LABEL: func @short_k_kn
// CHECK: tile = [128, 160, 64]
// CHECK-LABEL: func @short_k_kn_partial_rows
// CHECK: tile = [128, 192, 64]
// A narrow N (128 columns) whose 128-row tiles fit one wave takes 64-row
// tiles (twice as many); past a wave the 128-row tile, 128 columns wide
// (wider ones would pad).
// CHECK-LABEL: func @narrow_n
// CHECK: tile = [64, 128, 64]
// CHECK-LABEL: func @narrow_n_waves
// CHECK: tile = [128, 128, 64]
// CHECK-LABEL: func @narrow_n_64
// CHECK: tile = [64, 64, 64]
func.func @short_k_192(%a: tensor<512x2048xf16>, %b: tensor<6144x2048xf16>) -> tensor<512x6144xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x6144xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x6144xf16>) -> tensor<512x6144xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<512x2048xf16>, tensor<6144x2048xf16>)
                     outs(%c : tensor<512x6144xf16>) -> tensor<512x6144xf16>
  return %r : tensor<512x6144xf16>
}
func.func @short_k_160(%a: tensor<512x2048xf16>, %b: tensor<10240x2048xf16>) -> tensor<512x10240xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x10240xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x10240xf16>) -> tensor<512x10240xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<512x2048xf16>, tensor<10240x2048xf16>)
                     outs(%c : tensor<512x10240xf16>) -> tensor<512x10240xf16>
  return %r : tensor<512x10240xf16>
}
func.func @short_k_kn(%a: tensor<512x2048xf16>, %b: tensor<2048x10240xf16>) -> tensor<512x10240xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x10240xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x10240xf16>) -> tensor<512x10240xf16>
  %r = linalg.matmul ins(%a, %b : tensor<512x2048xf16>, tensor<2048x10240xf16>)
                     outs(%c : tensor<512x10240xf16>) -> tensor<512x10240xf16>
  return %r : tensor<512x10240xf16>
}
func.func @short_k_kn_partial_rows(%a: tensor<320x5120xf16>, %b: tensor<5120x6912xf16>) -> tensor<320x6912xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<320x6912xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<320x6912xf16>) -> tensor<320x6912xf16>
  %r = linalg.matmul ins(%a, %b : tensor<320x5120xf16>, tensor<5120x6912xf16>)
                     outs(%c : tensor<320x6912xf16>) -> tensor<320x6912xf16>
  return %r : tensor<320x6912xf16>
}
func.func @narrow_n(%a: tensor<16384x512xf16>, %b: tensor<128x512xf16>) -> tensor<16384x128xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16384x128xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<16384x128xf16>) -> tensor<16384x128xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<16384x512xf16>, tensor<128x512xf16>)
                     outs(%c : tensor<16384x128xf16>) -> tensor<16384x128xf16>
  return %r : tensor<16384x128xf16>
}
func.func @narrow_n_waves(%a: tensor<32768x256xf16>, %b: tensor<128x256xf16>) -> tensor<32768x128xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32768x128xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<32768x128xf16>) -> tensor<32768x128xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<32768x256xf16>, tensor<128x256xf16>)
                     outs(%c : tensor<32768x128xf16>) -> tensor<32768x128xf16>
  return %r : tensor<32768x128xf16>
}
func.func @narrow_n_64(%a: tensor<16384x512xf16>, %b: tensor<64x512xf16>) -> tensor<16384x64xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16384x64xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<16384x64xf16>) -> tensor<16384x64xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<16384x512xf16>, tensor<64x512xf16>)
                     outs(%c : tensor<16384x64xf16>) -> tensor<16384x64xf16>
  return %r : tensor<16384x64xf16>
}

// -----

// A batched decode product (no swapped form: it is 3-D) takes sm_90's
// decode tile, with BK = 64 where K is one 128-wide tile.
// CHECK-LABEL: func @decode_batched_short_k
// CHECK: strategy(#gpupoor.split_k<splits = 2, tile = [16, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90, sets = 4>)
func.func @decode_batched_short_k(%a: tensor<32x1x128xf16>, %b: tensor<32x4096x128xf16>, %c: tensor<32x1x4096xf16>) -> tensor<32x1x4096xf16> {
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
                           ins(%a, %b : tensor<32x1x128xf16>, tensor<32x4096x128xf16>)
                           outs(%c : tensor<32x1x4096xf16>) -> tensor<32x1x4096xf16>
  return %r : tensor<32x1x4096xf16>
}

// -----

// The filling tiles (policy: one wave of 64-row tiles wider than 128
// columns where that costs the busiest SM less than the rules' 128-row
// tile). B as K x N takes whole atoms of 64 columns: 64 x 192 (4 x 27 =
// 108 tiles) rather than 64 x 160; past one wave (512 rows: 8 x 27 = 216)
// the rules' tile stays (B as N x K: 128 x 176, 4 x 63 = 252 tiles in two
// waves, wideTile), as it does where the operands' rows start off
// 32-byte sectors (N = 5112: clusters), and where the options name the
// slices (their cost assumes launchSlices').
// AUTO-LABEL: func @filling_kn
// AUTO: tile = [64, 192, 64], inner = f16, outer = f32, chip = sm_90a>
// AUTO-LABEL: func @filling_two_waves
// AUTO: tile = [128, 176, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>
// AUTO-LABEL: func @filling_off_sectors
// AUTO: tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>
// CHECK-LABEL: func @filling_kn
// CHECK: tile = [128, 128, 64], inner = f16, outer = f32, chip = sm_90a>
func.func @filling_kn(%a: tensor<256x5120xf16>, %b: tensor<5120x5120xf16>) -> tensor<256x5120xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x5120xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x5120xf16>) -> tensor<256x5120xf16>
  %r = linalg.matmul ins(%a, %b : tensor<256x5120xf16>, tensor<5120x5120xf16>)
                     outs(%c : tensor<256x5120xf16>) -> tensor<256x5120xf16>
  return %r : tensor<256x5120xf16>
}
func.func @filling_two_waves(%a: tensor<512x4096xf16>, %b: tensor<11008x4096xf16>) -> tensor<512x11008xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x11008xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x11008xf16>) -> tensor<512x11008xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<512x4096xf16>, tensor<11008x4096xf16>)
                     outs(%c : tensor<512x11008xf16>) -> tensor<512x11008xf16>
  return %r : tensor<512x11008xf16>
}
func.func @filling_off_sectors(%a: tensor<256x5120xf16>, %b: tensor<5112x5120xf16>) -> tensor<256x5112xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x5112xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x5112xf16>) -> tensor<256x5112xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<256x5120xf16>, tensor<5112x5120xf16>)
                     outs(%c : tensor<256x5112xf16>) -> tensor<256x5112xf16>
  return %r : tensor<256x5112xf16>
}

// -----

// 128 rows: the 128 x 128 tile fills 80 of 132 SMs; the filling 64 x 160
// tile, 2 x 64 = 128 in one wave, costs an SM less (AUTO). B as K x N takes
// no 160-column tile: 64 x 192 (2 x 54 = 108).
// CHECK-LABEL: func @mid_rows_filling
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// AUTO-LABEL: func @mid_rows_filling
// AUTO: strategy(#gpupoor.split_k<splits = 16, tile = [64, 160, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// Up to 128 rows, a K under 3072 keeps the 128 x 128 tile
// (kMidRowsFillingMinK).
// AUTO-LABEL: func @mid_rows_short_k
// AUTO: strategy(#gpupoor.split_k<splits = 12, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// AUTO-LABEL: func @mid_rows_filling_kn
// AUTO: strategy(#gpupoor.split_k<splits = 16, tile = [64, 192, 64], inner = f16, outer = f32, chip = sm_90a>)
func.func @mid_rows_filling(%a: tensor<128x8192xf16>, %b: tensor<10240x8192xf16>) -> tensor<128x10240xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x10240xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<128x10240xf16>) -> tensor<128x10240xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<128x8192xf16>, tensor<10240x8192xf16>)
                     outs(%c : tensor<128x10240xf16>) -> tensor<128x10240xf16>
  return %r : tensor<128x10240xf16>
}
func.func @mid_rows_short_k(%a: tensor<128x2048xf16>, %b: tensor<11008x2048xf16>) -> tensor<128x11008xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x11008xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<128x11008xf16>) -> tensor<128x11008xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<128x2048xf16>, tensor<11008x2048xf16>)
                     outs(%c : tensor<128x11008xf16>) -> tensor<128x11008xf16>
  return %r : tensor<128x11008xf16>
}
func.func @mid_rows_filling_kn(%a: tensor<128x8192xf16>, %b: tensor<8192x10240xf16>) -> tensor<128x10240xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x10240xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<128x10240xf16>) -> tensor<128x10240xf16>
  %r = linalg.matmul ins(%a, %b : tensor<128x8192xf16>, tensor<8192x10240xf16>)
                     outs(%c : tensor<128x10240xf16>) -> tensor<128x10240xf16>
  return %r : tensor<128x10240xf16>
}

// -----

// Decode of a weight stored N x K past two swapped 64-row tiles an SM,
// whose 16 x 256 tiles number three quarters of the SMs to all (28672 rows,
// policy::wideDecodeTileFits) or fewer (20480): the swapped tile either
// way (the 16 x 256 tile stays B as K x N's: @decode_wide_tile_kn).
// CHECK-LABEL: func @wide_decode
// CHECK: strategy(#gpupoor.split_k<splits = 64, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
// CHECK-LABEL: func @wide_decode_few_tiles
// CHECK: strategy(#gpupoor.split_k<splits = 64, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
func.func @wide_decode(%a: tensor<1x8192xf16>, %b: tensor<28672x8192xf16>) -> tensor<1x28672xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x28672xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x28672xf16>) -> tensor<1x28672xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1x8192xf16>, tensor<28672x8192xf16>)
                     outs(%c : tensor<1x28672xf16>) -> tensor<1x28672xf16>
  return %r : tensor<1x28672xf16>
}
func.func @wide_decode_few_tiles(%a: tensor<1x8192xf16>, %b: tensor<20480x8192xf16>) -> tensor<1x20480xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x20480xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x20480xf16>) -> tensor<1x20480xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1x8192xf16>, tensor<20480x8192xf16>)
                     outs(%c : tensor<1x20480xf16>) -> tensor<1x20480xf16>
  return %r : tensor<1x20480xf16>
}

// -----

// 1536^3 with the slices chosen: one wave of 8 x 16 = 128 tiles of 192 x 96
// over three consumer warpgroups (policy::kThreeWarpgroupTile) costs the
// busiest SM less than 96 of 128 x 192; slices named, the 128-row tile.
// 2200 x 1024 x 1024 (K under kThreeWarpgroupMinK) keeps 128 x 192.
// CHECK-LABEL: func @three_warpgroups
// CHECK: strategy(#gpupoor.split_k<splits = 8, tile = [128, 192, 64], inner = f16, outer = f32, chip = sm_90a>)
// AUTO-LABEL: func @three_warpgroups
// AUTO: strategy(#gpupoor.split_k<splits = 8, tile = [192, 96, 64], inner = f16, outer = f32, chip = sm_90a>)
// AUTO-LABEL: func @three_warpgroups_short_k
// AUTO: strategy(#gpupoor.split_k<splits = 8, tile = [128, 192, 64], inner = f16, outer = f32, chip = sm_90a>)
func.func @three_warpgroups(%a: tensor<1536x1536xf16>, %b: tensor<1536x1536xf16>) -> tensor<1536x1536xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1536x1536xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1536x1536xf16>) -> tensor<1536x1536xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1536x1536xf16>, tensor<1536x1536xf16>)
                     outs(%c : tensor<1536x1536xf16>) -> tensor<1536x1536xf16>
  return %r : tensor<1536x1536xf16>
}
func.func @three_warpgroups_short_k(%a: tensor<2200x1024xf16>, %b: tensor<1024x1024xf16>) -> tensor<2200x1024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2200x1024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<2200x1024xf16>) -> tensor<2200x1024xf16>
  %r = linalg.matmul ins(%a, %b : tensor<2200x1024xf16>, tensor<1024x1024xf16>)
                     outs(%c : tensor<2200x1024xf16>) -> tensor<2200x1024xf16>
  return %r : tensor<2200x1024xf16>
}

// -----

// B as N x K: 128-row tiles 224 columns wide where their waves cost least
// (wideTile): 14336 columns in 64 tiles, 4 x 64 = 256 tiles in two
// waves where 128 x 256 (4 x 56 = 224) and 128 x 192 (4 x 75 = 300) take
// two and three. B as K x N reads whole atoms: 224 columns are none.
// AUTO-LABEL: func @wide_224
// AUTO: tile = [128, 224, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>
// AUTO-LABEL: func @wide_224_kn
// AUTO: tile = [128, 256, 64], inner = f16, outer = f32, chip = sm_90a>
func.func @wide_224(%a: tensor<512x4096xf16>, %b: tensor<14336x4096xf16>) -> tensor<512x14336xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x14336xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x14336xf16>) -> tensor<512x14336xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<512x4096xf16>, tensor<14336x4096xf16>)
                     outs(%c : tensor<512x14336xf16>) -> tensor<512x14336xf16>
  return %r : tensor<512x14336xf16>
}
func.func @wide_224_kn(%a: tensor<512x4096xf16>, %b: tensor<4096x14336xf16>) -> tensor<512x14336xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x14336xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x14336xf16>) -> tensor<512x14336xf16>
  %r = linalg.matmul ins(%a, %b : tensor<512x4096xf16>, tensor<4096x14336xf16>)
                     outs(%c : tensor<512x14336xf16>) -> tensor<512x14336xf16>
  return %r : tensor<512x14336xf16>
}

// -----

// Rows off 32-byte sectors (N = 4360): the 128-row tiles run in clusters of
// two, row tiles in whole pairs, and wideTile counts the waves of
// those tiles: 2100 rows are 17 row tiles, launched as 18, so 128 x 192
// tiles are 414 (four waves on 132 SMs), 128 x 256 324 (three), 128 x 224
// 360 (three), 128 x 128 630 (five, the least cost of the 128-row widths);
// the three-warpgroup 192 x 192 tiles (no clusters) are 253, two waves
// whose cost (2 x 1.5 x 192 / 0.90) is 5% under 128 x 128's (5 x 128 /
// 0.93). With N = 4352 (rows on sectors, no clusters) 128 x 192 tiles are
// 391, three waves, the least cost: 192 x 192's two waves are not 5% under.
// AUTO-LABEL: func @cluster_waves
// AUTO: tile = [192, 192, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>
// AUTO-LABEL: func @cluster_waves_on_sectors
// AUTO: tile = [128, 192, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>
func.func @cluster_waves(%a: tensor<2100x1000xf16>, %b: tensor<4360x1000xf16>) -> tensor<2100x4360xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2100x4360xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<2100x4360xf16>) -> tensor<2100x4360xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<2100x1000xf16>, tensor<4360x1000xf16>)
                     outs(%c : tensor<2100x4360xf16>) -> tensor<2100x4360xf16>
  return %r : tensor<2100x4360xf16>
}
func.func @cluster_waves_on_sectors(%a: tensor<2100x1024xf16>, %b: tensor<4352x1024xf16>) -> tensor<2100x4352xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2100x4352xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<2100x4352xf16>) -> tensor<2100x4352xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<2100x1024xf16>, tensor<4352x1024xf16>)
                     outs(%c : tensor<2100x4352xf16>) -> tensor<2100x4352xf16>
  return %r : tensor<2100x4352xf16>
}

// -----

// One wave of the three-warpgroup 192 x 192 tile (wideTile): 9 x 14 = 126
// tiles, where 128 x 192 ones (B as K x N, N off 32-byte sectors: 13 row
// tiles launched as 14 in clusters of two, 14 x 14 = 196) take two waves. 4096^3 keeps 128 x 256:
// four waves either way, 192 x 192's not 5% cheaper.
// AUTO-LABEL: func @three_warpgroup_wide_one_wave
// AUTO: tile = [192, 192, 64], inner = f16, outer = f32, chip = sm_90a>
// AUTO-LABEL: func @three_warpgroup_wide_large
// AUTO: tile = [128, 256, 64], inner = f16, outer = f32, chip = sm_90a>
func.func @three_warpgroup_wide_one_wave(%a: tensor<1624x744xf16>, %b: tensor<744x2568xf16>) -> tensor<1624x2568xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1624x2568xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1624x2568xf16>) -> tensor<1624x2568xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1624x744xf16>, tensor<744x2568xf16>)
                     outs(%c : tensor<1624x2568xf16>) -> tensor<1624x2568xf16>
  return %r : tensor<1624x2568xf16>
}
func.func @three_warpgroup_wide_large(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}

// -----

// A stored K x M of one row (a column) is the row it transposes to: where
// the policy would copy it M x K (policy::copiesKMajorA), it is reshaped
// instead (a view of its buffer once bufferized), as the package reads it;
// with a batch and a dynamic K too. A static K off 8 elements keeps the
// copy into padded rows, whose 16-byte rows the host code checks for.
// CHECK-LABEL: func @one_row_km
// CHECK-NOT: linalg.transpose
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<4096x1xf16> into tensor<4096xf16>
// CHECK: %[[ROW:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [1, 4096] : tensor<4096xf16> into tensor<1x4096xf16>
// CHECK: gpupoor.matmul %[[ROW]], %arg1
// CHECK-NOT: a_layout = km
// CHECK-SAME: swapped = true
// CHECK-LABEL: func @one_row_batched_km
// CHECK-NOT: linalg.transpose
// CHECK: %[[BFLAT:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<?x?x1xf16> into tensor<?x?xf16>
// CHECK: %[[BROW:.*]] = tensor.expand_shape %[[BFLAT]] {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 1, %{{.*}}] : tensor<?x?xf16> into tensor<?x1x?xf16>
// CHECK: gpupoor.matmul %[[BROW]], %arg1
// CHECK-NOT: a_layout = km
// CHECK-LABEL: func @one_row_unaligned_km
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[PADDED:.*]] = linalg.transpose ins(%arg0 : tensor<4100x1xf16>)
// CHECK: gpupoor.matmul %[[PADDED]], %arg1
func.func @one_row_km(%a: tensor<4096x1xf16>, %b: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x1xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}
func.func @one_row_batched_km(%a: tensor<?x?x1xf16>, %b: tensor<?x?x4096xf16>, %c: tensor<?x1x4096xf16>) -> tensor<?x1x4096xf16> {
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
                     ins(%a, %b : tensor<?x?x1xf16>, tensor<?x?x4096xf16>)
                     outs(%c : tensor<?x1x4096xf16>) -> tensor<?x1x4096xf16>
  return %r : tensor<?x1x4096xf16>
}
func.func @one_row_unaligned_km(%a: tensor<4100x1xf16>, %b: tensor<4100x4096xf16>) -> tensor<1x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4100x1xf16>, tensor<4100x4096xf16>)
                     outs(%c : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}

// -----

// The 64 x 64 tile keeps two f16 sums a chunk where its chunks are at
// least 320 long (policy::chunkSets): 11008 in 32 chunks of 344.
// CHECK-LABEL: func @long_chunks_two_sums
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 2>)
func.func @long_chunks_two_sums(%a: tensor<128x11008xf16>, %b: tensor<4096x11008xf16>, %c: tensor<128x4096xf16>) -> tensor<128x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<128x11008xf16>, tensor<4096x11008xf16>)
                     outs(%c : tensor<128x4096xf16>) -> tensor<128x4096xf16>
  return %r : tensor<128x4096xf16>
}

// -----

// Chunks of 256 (4096 in 16) keep one.
// CHECK-LABEL: func @chunks_of_256_one_sum
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @chunks_of_256_one_sum(%a: tensor<128x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<128x4096xf16>) -> tensor<128x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<128x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<128x4096xf16>) -> tensor<128x4096xf16>
  return %r : tensor<128x4096xf16>
}

// -----

// A dynamic K: the kernel's sums are fixed before its chunks are known,
// one.
// CHECK-LABEL: func @dynamic_k_one_sum
// CHECK: strategy(#gpupoor.split_k<tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @dynamic_k_one_sum(%a: tensor<128x?xf16>, %b: tensor<4096x?xf16>, %c: tensor<128x4096xf16>) -> tensor<128x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<128x?xf16>, tensor<4096x?xf16>)
                     outs(%c : tensor<128x4096xf16>) -> tensor<128x4096xf16>
  return %r : tensor<128x4096xf16>
}

// -----

// A batch keeps one (the products measured were unbatched).
// CHECK-LABEL: func @batched_one_sum
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 64, 64], inner = f16, outer = f32, chip = sm_90a>)
func.func @batched_one_sum(%a: tensor<2x128x11008xf16>, %b: tensor<2x11008x2048xf16>, %c: tensor<2x128x2048xf16>) -> tensor<2x128x2048xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x128x11008xf16>, tensor<2x11008x2048xf16>)
                           outs(%c : tensor<2x128x2048xf16>) -> tensor<2x128x2048xf16>
  return %r : tensor<2x128x2048xf16>
}

// -----

// 65 to 120 rows from K = 3072 take 64 x 128 tiles where 64 x 64 ones would
// fit one wave (policy's rowsTakeWiderTile; from K = 4096 such rows off
// sectors run transposed: split-k-sm90a-waves.mlir).
// CHECK-LABEL: func @rows_of_100_wider_tile
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @rows_of_100_wider_tile(%a: tensor<100x3072xf16>, %b: tensor<3072x3072xf16>, %c: tensor<100x3072xf16>) -> tensor<100x3072xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<100x3072xf16>, tensor<3072x3072xf16>)
                     outs(%c : tensor<100x3072xf16>) -> tensor<100x3072xf16>
  return %r : tensor<100x3072xf16>
}

// -----

// Below K = 3072 they keep 64 x 64.
// CHECK-LABEL: func @rows_of_100_short_k
// CHECK: strategy(#gpupoor.split_k<splits = 12, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @rows_of_100_short_k(%a: tensor<100x2048xf16>, %b: tensor<3072x2048xf16>, %c: tensor<100x3072xf16>) -> tensor<100x3072xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<100x2048xf16>, tensor<3072x2048xf16>)
                     outs(%c : tensor<100x3072xf16>) -> tensor<100x3072xf16>
  return %r : tensor<100x3072xf16>
}

// -----

// An A stored K x M of rows that are no multiple of 8 is copied M x K first
// (policy::copiesKMajorA); the swapped decode tile then keeps a sum a k16
// step (policy::kCopiedDecodeSets), as the package's s16e family does.
// CHECK-LABEL: func.func @copied_a_decode_keeps_eight_sums
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<4096x4xf16>)
// CHECK: gpupoor.matmul %[[T]], %arg1
// CHECK-SAME: tile = [64, 16, 128]
// CHECK-SAME: swapped = true, sets = 8
func.func @copied_a_decode_keeps_eight_sums(%x: tensor<4096x4xf16>, %b: tensor<4096x4096xf16>) -> tensor<4x4096xf16> {
  %z = arith.constant 0.0 : f16
  %c = tensor.empty() : tensor<4x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %b : tensor<4096x4xf16>, tensor<4096x4096xf16>) outs(%f : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  return %r : tensor<4x4096xf16>
}

// -----

// The same product of A as M x K keeps the tile's four sums.
// CHECK-LABEL: func.func @decode_keeps_four_sums
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: tile = [64, 16, 128]
// CHECK-SAME: swapped = true, sets = 4
func.func @decode_keeps_four_sums(%x: tensor<4x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4x4096xf16> {
  %z = arith.constant 0.0 : f16
  %c = tensor.empty() : tensor<4x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %r = linalg.matmul ins(%x, %b : tensor<4x4096xf16>, tensor<4096x4096xf16>) outs(%f : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  return %r : tensor<4x4096xf16>
}
