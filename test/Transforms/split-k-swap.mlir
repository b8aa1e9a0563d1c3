// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a" | FileCheck %s --check-prefix=RULES
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a swap=true tile=128,208,64" | FileCheck %s --check-prefix=TILE
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a swap=true" | FileCheck %s --check-prefix=SWAP
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a swap=false" | FileCheck %s --check-prefix=NOSWAP
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a swap=true tile=128,208,64" -one-shot-bufferize="bufferize-function-boundaries" -gpupoor-swap-operands -gpupoor-select-kernel-config="persistent=false" | FileCheck %s --check-prefix=PIPE

// `swap` overrides the rules' choice of running a product transposed (C^T =
// B^T A^T). An odd product with B as K x N, which the rules run as it
// stands in 128 x 256 tiles: asked to swap, in the tile asked for (the
// transposed product's: 208 of its columns, M here, where B as K x N could
// not take 208 as it stands), else in the tile the rules give the
// transposed shape.
// RULES-LABEL: func @odd
// RULES: strategy(#gpupoor.split_k<splits = 8, tile = [128, 256, 64], inner = f16, outer = f32, chip = sm_90a>)
// TILE-LABEL: func @odd
// TILE: strategy(#gpupoor.split_k<splits = 8, tile = [128, 208, 64], inner = f16, outer = f32, chip = sm_90a, swapped = true>)
// SWAP-LABEL: func @odd
// SWAP: strategy(#gpupoor.split_k<splits = 8, tile = [128, 224, 64], inner = f16, outer = f32, chip = sm_90a, swapped = true>)
// NOSWAP-LABEL: func @odd
// NOSWAP: strategy(#gpupoor.split_k<splits = 8, tile = [128, 256, 64], inner = f16, outer = f32, chip = sm_90a>)
// The transposed product reads B as K x N as its A stored K x M and A as
// its B stored N x K, into C's transposed view in 16-byte column vectors.
// PIPE-LABEL: func @odd
// PIPE: memref.transpose
// PIPE: gpupoor.matmul
// PIPE-SAME: strategy(#gpupoor.split_k<splits = 8, tile = [128, 208, 64], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90a>)
// PIPE-SAME: column_stores = true>)
// PIPE-SAME: {gpupoor.swapped_operands}
func.func @odd(%x: tensor<1032x1648xf16>, %w: tensor<1648x5976xf16>) -> tensor<1032x5976xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1032x5976xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1032x5976xf16>) -> tensor<1032x5976xf16>
  %r = linalg.matmul ins(%x, %w : tensor<1032x1648xf16>, tensor<1648x5976xf16>)
                     outs(%f : tensor<1032x5976xf16>) -> tensor<1032x5976xf16>
  return %r : tensor<1032x5976xf16>
}

// -----

// A decode product the rules run swapped (64 x 16 x 128 tiles over the
// weight's rows); swap=false keeps it as it stands, on the mma.sync
// kernel's 16-row tile in the slices that tile's 32 blocks take.
// RULES-LABEL: func @decode
// RULES: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
// SWAP-LABEL: func @decode
// SWAP: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 4>)
// NOSWAP-LABEL: func @decode
// NOSWAP: strategy(#gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, b_layout = nk, slices = 4, chip = sm_90, sets = 4>)
func.func @decode(%x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<1x4096xf16>, tensor<4096x4096xf16>)
                     outs(%f : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}
