// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="slices=0 chip=sm_90" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="slices=0 chip=sm_80" | FileCheck %s --check-prefix=SM80

// slices = 0 chooses P' from a static shape: the fewest slices that
// minimize the busiest SM's work ceil(T P / SMs) / P within one wave of two
// blocks an SM (132 SMs on sm_90, 108 on sm_80): P1 = clamp(SMs / T, 1, S),
// P2 = clamp(2 SMs / T, 1, S), P2 if P2 > 2 P1, else P1.
// Decode: M = 1 takes the 16 x 128 x 128 tile; N = 4096 makes T = 32
// tiles (K = 4096: 128 blocks of 32, S = 16; on sm_90 the decode tile's
// chunks of 128, S = 32, policy::tileNumSplits): P1 = 4, P2 = 8, no
// better than 4.
// CHECK-LABEL: func.func @decode
// CHECK: #gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, slices = 4, chip = sm_90, sets = 4>
// sm_80: P1 = 3, P2 = 6.
// SM80-LABEL: func.func @decode
// SM80: #gpupoor.split_k<splits = 16, tile = [16, 128, 128], inner = f16, outer = f32, slices = 3>
func.func @decode(%a: tensor<1x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf16>, tensor<4096x4096xf16>) outs(%f : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}

// -----

// N = 14336: T = 112, P1 = 1, P2 = 2 (224 blocks, two on most SMs: the
// busiest SM's work is not less): one slice, the sequential kernel (not
// printed).
// CHECK-LABEL: func.func @wide_n
// CHECK: #gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>
// SM80-LABEL: func.func @wide_n
// SM80: #gpupoor.split_k<splits = 16, tile = [16, 128, 128], inner = f16, outer = f32>
func.func @wide_n(%a: tensor<1x4096xf16>, %b: tensor<4096x14336xf16>) -> tensor<1x14336xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x14336xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x14336xf16>) -> tensor<1x14336xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf16>, tensor<4096x14336xf16>) outs(%f : tensor<1x14336xf16>) -> tensor<1x14336xf16>
  return %r : tensor<1x14336xf16>
}

// -----

// N = 3072, K = 16384 (S = 32; sm_90's decode tile takes chunks of 128:
// S = 128): T = 24, P1 = 5, P2 = 11 > 10: eleven slices, two blocks on
// most SMs. sm_80: P1 = 4, P2 = 9 > 8.
// CHECK-LABEL: func.func @two_an_sm
// CHECK: #gpupoor.split_k<splits = 128, tile = [16, 128, 128], inner = f16, outer = f32, slices = 11, chip = sm_90, sets = 4>
// SM80-LABEL: func.func @two_an_sm
// SM80: #gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, slices = 9>
func.func @two_an_sm(%a: tensor<1x16384xf16>, %b: tensor<16384x3072xf16>) -> tensor<1x3072xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x3072xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x3072xf16>) -> tensor<1x3072xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x16384xf16>, tensor<16384x3072xf16>) outs(%f : tensor<1x3072xf16>) -> tensor<1x3072xf16>
  return %r : tensor<1x3072xf16>
}

// -----

// A product that fills the chip keeps one slice; a batch counts its tiles:
// 16 x 2 x 2 = 64 tiles of 128 x 128, P1 = 2, P2 = 4: two slices.
// CHECK-LABEL: func.func @large
// CHECK: #gpupoor.split_k<splits = 16, tile = [256, 128, 64], inner = f16, outer = f32, chip = sm_90>
// CHECK-LABEL: func.func @batched
// CHECK: #gpupoor.split_k<splits = 12, tile = [128, 128, 32], inner = f16, outer = f32, slices = 2, chip = sm_90>
func.func @large(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}
func.func @batched(%a: tensor<16x256x2048xf16>, %b: tensor<16x2048x256xf16>, %c: tensor<16x256x256xf16>) -> tensor<16x256x256xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<16x256x2048xf16>, tensor<16x2048x256xf16>) outs(%c : tensor<16x256x256xf16>) -> tensor<16x256x256xf16>
  return %r : tensor<16x256x256xf16>
}

// -----

// A dynamic shape leaves P = 0: the host code computes P' at run time by
// the same rule. A gpupoor.slices attribute overrides the option.
// CHECK-LABEL: func.func @dynamic
// CHECK: #gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, slices = 0, chip = sm_90>
// CHECK: #gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, slices = 3, chip = sm_90, sets = 4>
func.func @dynamic(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf16>,
                   %x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>, %y: tensor<1x4096xf16>) -> (tensor<?x?xf16>, tensor<1x4096xf16>) {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  %s = linalg.matmul {gpupoor.slices = 3 : i64} ins(%x, %w : tensor<1x4096xf16>, tensor<4096x4096xf16>) outs(%y : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r, %s : tensor<?x?xf16>, tensor<1x4096xf16>
}

// -----

// Short static products on sm_90 (selectTile): a K of one 128-wide tile
// gives the decode tile BK = 64 (two K tiles); a K of at most 512 whose
// 128 x 128 tiles, the batch included, leave SMs idle (32 x 4 = 128 < 132)
// takes 128 x 64 x 32 tiles; with a longer K (@prefill_long) or enough
// tiles (@prefill_many: 48 x 4 = 192) the 128 x 128 tile stays. sm_80 keeps
// its tiles.
// CHECK-LABEL: func.func @decode_short
// CHECK: #gpupoor.split_k<splits = 2, tile = [16, 128, 64], inner = f16, outer = f32, chip = sm_90, sets = 4>
// CHECK-LABEL: func.func @prefill_short
// CHECK: #gpupoor.split_k<splits = 4, tile = [128, 64, 32], inner = f16, outer = f32, chip = sm_90>
// CHECK-LABEL: func.func @prefill_long
// CHECK: #gpupoor.split_k<splits = 8, tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>
// CHECK-LABEL: func.func @prefill_many
// CHECK: #gpupoor.split_k<splits = 4, tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>
// SM80-LABEL: func.func @decode_short
// SM80: #gpupoor.split_k<splits = 2, tile = [16, 128, 128]
// SM80-LABEL: func.func @prefill_short
// SM80: #gpupoor.split_k<splits = 4, tile = [128, 128, 32]
func.func @decode_short(%a: tensor<32x1x128xf16>, %b: tensor<32x128x4096xf16>, %c: tensor<32x1x4096xf16>) -> tensor<32x1x4096xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<32x1x128xf16>, tensor<32x128x4096xf16>) outs(%c : tensor<32x1x4096xf16>) -> tensor<32x1x4096xf16>
  return %r : tensor<32x1x4096xf16>
}
func.func @prefill_short(%a: tensor<32x512x512xf16>, %b: tensor<32x512x128xf16>, %c: tensor<32x512x128xf16>) -> tensor<32x512x128xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<32x512x512xf16>, tensor<32x512x128xf16>) outs(%c : tensor<32x512x128xf16>) -> tensor<32x512x128xf16>
  return %r : tensor<32x512x128xf16>
}
func.func @prefill_long(%a: tensor<32x512x1024xf16>, %b: tensor<32x1024x128xf16>, %c: tensor<32x512x128xf16>) -> tensor<32x512x128xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<32x512x1024xf16>, tensor<32x1024x128xf16>) outs(%c : tensor<32x512x128xf16>) -> tensor<32x512x128xf16>
  return %r : tensor<32x512x128xf16>
}
func.func @prefill_many(%a: tensor<48x512x512xf16>, %b: tensor<48x512x128xf16>, %c: tensor<48x512x128xf16>) -> tensor<48x512x128xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<48x512x512xf16>, tensor<48x512x128xf16>) outs(%c : tensor<48x512x128xf16>) -> tensor<48x512x128xf16>
  return %r : tensor<48x512x128xf16>
}

// -----

// A dynamic K with a static M x N: no short-K rule (K may be long), and the
// large tile where the static tiles make two waves of it.
// CHECK-LABEL: func.func @large_dynamic_k
// CHECK: #gpupoor.split_k<tile = [256, 128, 64], inner = f16, outer = f32, slices = 0, chip = sm_90>
// CHECK-LABEL: func.func @decode_dynamic_k
// CHECK: #gpupoor.split_k<tile = [16, 128, 128], inner = f16, outer = f32, slices = 0, chip = sm_90, sets = 4>
func.func @large_dynamic_k(%a: tensor<4096x?xf16>, %b: tensor<?x4096xf16>, %c: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<4096x?xf16>, tensor<?x4096xf16>) outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}
func.func @decode_dynamic_k(%a: tensor<1x?xf16>, %b: tensor<?x4096xf16>, %c: tensor<1x4096xf16>) -> tensor<1x4096xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<1x?xf16>, tensor<?x4096xf16>) outs(%c : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}
