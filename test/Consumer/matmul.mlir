// An nn.Linear layer in f16: y = relu(x * W^T + b), x[16, 4096], W[14336, 4096].
// gpupoor rewrites the matmul, the bias add and the ReLU into one split-k
// gpupoor.matmul with f16 inner accumulation.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @linear_relu(%x: tensor<16x4096xf16>, %w: tensor<14336x4096xf16>,
                       %b: tensor<14336xf16>) -> tensor<16x14336xf16> {
  %zero = arith.constant 0.0 : f16
  %empty = tensor.empty() : tensor<16x14336xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%empty : tensor<16x14336xf16>) -> tensor<16x14336xf16>
  %mm = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<16x4096xf16>, tensor<14336x4096xf16>)
      outs(%acc : tensor<16x14336xf16>) -> tensor<16x14336xf16>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id],
                            iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x14336xf16>, tensor<14336xf16>)
      outs(%empty : tensor<16x14336xf16>) {
  ^bb0(%v: f16, %bias: f16, %out: f16):
    %s = arith.addf %v, %bias : f16
    linalg.yield %s : f16
  } -> tensor<16x14336xf16>
  %relu = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<16x14336xf16>) outs(%empty : tensor<16x14336xf16>) {
  ^bb0(%v: f16, %out: f16):
    %r = arith.maximumf %v, %zero : f16
    linalg.yield %r : f16
  } -> tensor<16x14336xf16>
  return %relu : tensor<16x14336xf16>
}
