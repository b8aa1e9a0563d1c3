// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a swap=true tile=128,208,64" -verify-diagnostics -o /dev/null

// gpupoor-swap-operands transposes C's 2-D view: a batched product is
// refused rather than run as it stands.
func.func @batched(%x: tensor<4x64x256xf16>, %w: tensor<4x256x128xf16>) -> tensor<4x64x128xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x64x128xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<4x64x128xf16>) -> tensor<4x64x128xf16>
  // expected-error @+1 {{'linalg.batch_matmul' op is batched: swap=true takes 2-D products (C's transposed view)}}
  %r = linalg.batch_matmul ins(%x, %w : tensor<4x64x256xf16>, tensor<4x256x128xf16>)
                           outs(%f : tensor<4x64x128xf16>) -> tensor<4x64x128xf16>
  return %r : tensor<4x64x128xf16>
}

// -----

// With A stored K x M the transposed product's B is A as K x N, whose 208
// columns are no whole atoms: sm_90's mma.sync kernel would take it and
// write C two bytes at a time, so the swap is refused.
func.func @km_no_wgmma(%x: tensor<3560x352xf16>, %w: tensor<3560x1224xf16>) -> tensor<352x1224xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<352x1224xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<352x1224xf16>) -> tensor<352x1224xf16>
  // expected-error @+1 {{'linalg.matmul' op swap=true: sm_90a's wgmma kernel does not take the transposed product in 128x208x64 tiles (its A as K x M in atoms of 64 rows, its B as K x N in whole atoms); name a tile it takes}}
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<3560x352xf16>, tensor<3560x1224xf16>)
                     outs(%f : tensor<352x1224xf16>) -> tensor<352x1224xf16>
  return %r : tensor<352x1224xf16>
}
