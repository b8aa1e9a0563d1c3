// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k=chip=sm_90a | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a tile=16,128,64" | FileCheck %s --check-prefix=SMALL
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=0" | FileCheck %s --check-prefix=AUTO

// sm_90a: nn.Linear's product (A as M x K, B as N x K) takes the wgmma
// kernel's 128 x 256 x 64 tile; K = 4096 is 64 blocks, 8 splits.
// CHECK-LABEL: func @linear
// CHECK: strategy(#gpupoor.split_k<splits = 8, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// A tile the wgmma kernel cannot take (16 rows) gets the sm_90 mma.sync
// kernel.
// SMALL-LABEL: func @linear
// SMALL: tile = [16, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90>
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

// B as K x N: the mma.sync kernel (retargeted to sm_90) and sm_90's tile.
// CHECK-LABEL: func @kn
// CHECK: strategy(#gpupoor.split_k<splits = 8, tile = [256, 128, 64], inner = f16, outer = f32, chip = sm_90>)
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
// 256 x 2560 is T = 2 x 10 = 20 tiles of 128 x 256, K = 8192 is 128 blocks
// of 64, S = 16; P1 = clamp(132 / 20, 1, 16) = 6, and with one block an SM
// P2 = P1 (two an SM would have given 13 > 12).
// AUTO-LABEL: func @one_block_an_sm
// AUTO: strategy(#gpupoor.split_k<splits = 16, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 6, chip = sm_90a>)
func.func @one_block_an_sm(%a: tensor<256x8192xf16>, %b: tensor<2560x8192xf16>) -> tensor<256x2560xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x2560xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x2560xf16>) -> tensor<256x2560xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<256x8192xf16>, tensor<2560x8192xf16>)
                     outs(%c : tensor<256x2560xf16>) -> tensor<256x2560xf16>
  return %r : tensor<256x2560xf16>
}
