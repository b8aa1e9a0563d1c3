// RUN: gpupoor-opt %s -gpupoor-split-k="chip=sm_90a swap=true" -verify-diagnostics -o /dev/null

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
