// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa dump-dir=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=KM
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_1.json --check-prefix=NK

// The L2 promotion of the TMA kernel's operand maps
// (KernelSpec::l2PromotionBytes): 256 bytes where a box's rows run along K,
// whose next bytes are the block's next K tile; one box row's 128 bytes
// where they run along M or N (A as K x M, B as K x N), whose next bytes
// are another block's.
// KM: "a_desc": {
// KM: "global_dim": [
// KM-NEXT: "M",
// KM-NEXT: "K"
// KM: "l2_promotion": "128B"
// KM: "b_desc": {
// KM: "global_dim": [
// KM-NEXT: "N",
// KM-NEXT: "K"
// KM: "l2_promotion": "128B"
func.func @km_kn(%xt: tensor<2048x512xf16>, %w: tensor<2048x1024xf16>) -> tensor<512x1024xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x1024xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<512x1024xf16>) -> tensor<512x1024xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%xt, %w : tensor<2048x512xf16>, tensor<2048x1024xf16>)
                     outs(%f : tensor<512x1024xf16>) -> tensor<512x1024xf16>
  return %r : tensor<512x1024xf16>
}

// NK: "a_desc": {
// NK: "global_dim": [
// NK-NEXT: "K",
// NK-NEXT: "M"
// NK: "l2_promotion": "256B"
// NK: "b_desc": {
// NK: "global_dim": [
// NK-NEXT: "K",
// NK-NEXT: "N"
// NK: "l2_promotion": "256B"
func.func @mk_nk(%x: tensor<512x2048xf16>, %w: tensor<1024x2048xf16>) -> tensor<512x1024xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x1024xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<512x1024xf16>) -> tensor<512x1024xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<512x2048xf16>, tensor<1024x2048xf16>)
                     outs(%f : tensor<512x1024xf16>) -> tensor<512x1024xf16>
  return %r : tensor<512x1024xf16>
}
