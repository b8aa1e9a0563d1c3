// RUN: gpupoor-opt %s -gpupoor-split-k="chip=sm_90a" | FileCheck %s --check-prefix=RULES
// RUN: gpupoor-opt %s -gpupoor-split-k="chip=sm_90a swap=true" | FileCheck %s --check-prefix=SWAP
// RUN: gpupoor-opt %s -gpupoor-split-k="chip=sm_90a swap=false" | FileCheck %s --check-prefix=NOSWAP

// A small product with A stored K x M, which the rules run transposed in
// 64 x 64 tiles in clusters (swappedFillTile); swap=true keeps that tile,
// swap=false runs it as it stands.
// RULES-LABEL: func @few_rows
// RULES: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a, swapped = true>)
// SWAP-LABEL: func @few_rows
// SWAP: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a, swapped = true>)
// NOSWAP-LABEL: func @few_rows
// NOSWAP: strategy(#gpupoor.split_k<splits = 16, tile = [64, 128, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a>)
func.func @few_rows(%x: tensor<3560x352xf16>, %w: tensor<3560x1224xf16>) -> tensor<352x1224xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<352x1224xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<352x1224xf16>) -> tensor<352x1224xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<3560x352xf16>, tensor<3560x1224xf16>)
                     outs(%f : tensor<352x1224xf16>) -> tensor<352x1224xf16>
  return %r : tensor<352x1224xf16>
}
