// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=0 tuned-table=false" | FileCheck %s

// At most 16 columns over more than 32 rows: the decode tile unswapped
// (policy::kNarrowTile), 4 f16 sums a chunk of 128 (S = 32 at K = 4096),
// whatever the layouts; 17 columns keep the 64 x 64 tile, and 32 rows
// the 32-row tile.
// CHECK-LABEL: func @narrow_n16
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 4>)
// CHECK-LABEL: func @narrow_n5_kn
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, chip = sm_90a, sets = 4>)
// CHECK-LABEL: func @narrow_n16_km
// CHECK: strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, a_layout = km, chip = sm_90a, sets = 4>)
// CHECK-LABEL: func @narrow_n17
// CHECK: tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk
// CHECK-LABEL: func @narrow_m32
// CHECK: tile = [32, 64, 128], inner = f16, outer = f32, b_layout = nk
func.func @narrow_n16(%a: tensor<4096x4096xf16>, %b: tensor<16x4096xf16>) -> tensor<4096x16xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x16xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x16xf16>) -> tensor<4096x16xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x4096xf16>, tensor<16x4096xf16>)
                     outs(%c : tensor<4096x16xf16>) -> tensor<4096x16xf16>
  return %r : tensor<4096x16xf16>
}
func.func @narrow_n5_kn(%a: tensor<4096x4096xf16>, %b: tensor<4096x5xf16>) -> tensor<4096x5xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x5xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x5xf16>) -> tensor<4096x5xf16>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x5xf16>)
                     outs(%c : tensor<4096x5xf16>) -> tensor<4096x5xf16>
  return %r : tensor<4096x5xf16>
}
func.func @narrow_n16_km(%a: tensor<4096x4096xf16>, %b: tensor<4096x16xf16>) -> tensor<4096x16xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x16xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x16xf16>) -> tensor<4096x16xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x16xf16>)
                     outs(%c : tensor<4096x16xf16>) -> tensor<4096x16xf16>
  return %r : tensor<4096x16xf16>
}
func.func @narrow_n17(%a: tensor<4096x4096xf16>, %b: tensor<17x4096xf16>) -> tensor<4096x17xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x17xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x17xf16>) -> tensor<4096x17xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<4096x4096xf16>, tensor<17x4096xf16>)
                     outs(%c : tensor<4096x17xf16>) -> tensor<4096x17xf16>
  return %r : tensor<4096x17xf16>
}
func.func @narrow_m32(%a: tensor<32x4096xf16>, %b: tensor<16x4096xf16>) -> tensor<32x16xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x16xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<32x16xf16>) -> tensor<32x16xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<32x4096xf16>, tensor<16x4096xf16>)
                     outs(%c : tensor<32x16xf16>) -> tensor<32x16xf16>
  return %r : tensor<32x16xf16>
}
