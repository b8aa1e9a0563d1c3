// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a" | FileCheck %s

// 1040 x 1712 x 1512: 126 tiles of 128 x 128 would fit the 132 SMs, but
// rows off 32-byte sectors launch them in clusters of two along M, 10 row
// tiles for 9: 140, two waves. The narrowest wider tile whose clusters fit
// one wave runs instead: 128 x 160 (110 tiles) with B as N x K; with B as
// K x N, whose 160 columns need whole row tiles, 128 x 192 (90).
// CHECK-LABEL: func @spill_nk
// CHECK: tile = [128, 160, 64]
// CHECK-LABEL: func @spill_kn
// CHECK: tile = [128, 192, 64]
// 126 tiles of rows on sectors launch without clusters: 128 x 128.
// CHECK-LABEL: func @fits
// CHECK: tile = [128, 128, 64]
func.func @spill_nk(%a: tensor<1040x1512xf16>, %b: tensor<1712x1512xf16>, %c: tensor<1040x1712xf16>) -> tensor<1040x1712xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1040x1512xf16>, tensor<1712x1512xf16>)
                     outs(%c : tensor<1040x1712xf16>) -> tensor<1040x1712xf16>
  return %r : tensor<1040x1712xf16>
}
func.func @spill_kn(%a: tensor<1040x1512xf16>, %b: tensor<1512x1712xf16>, %c: tensor<1040x1712xf16>) -> tensor<1040x1712xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<1040x1512xf16>, tensor<1512x1712xf16>)
                     outs(%c : tensor<1040x1712xf16>) -> tensor<1040x1712xf16>
  return %r : tensor<1040x1712xf16>
}
func.func @fits(%a: tensor<1040x1536xf16>, %b: tensor<1536x1728xf16>, %c: tensor<1040x1728xf16>) -> tensor<1040x1728xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<1040x1536xf16>, tensor<1536x1728xf16>)
                     outs(%c : tensor<1040x1728xf16>) -> tensor<1040x1728xf16>
  return %r : tensor<1040x1728xf16>
}

// -----

// More than 128 rows whose 128 x 256 tiles fill under half the SMs take
// 64-row tiles: 64 x 64 where those fit one wave at K <= 2048
// (kMaxNarrowFillK: 192 x 1960 x 560, 93 tiles), else 64 x 128 (K = 8192).
// CHECK-LABEL: func @narrow_fill
// CHECK: tile = [64, 64, 64]
// CHECK-LABEL: func @long_k
// CHECK: tile = [64, 128, 64]
func.func @narrow_fill(%a: tensor<192x560xf16>, %b: tensor<1960x560xf16>, %c: tensor<192x1960xf16>) -> tensor<192x1960xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<192x560xf16>, tensor<1960x560xf16>)
                     outs(%c : tensor<192x1960xf16>) -> tensor<192x1960xf16>
  return %r : tensor<192x1960xf16>
}
func.func @long_k(%a: tensor<1024x8192xf16>, %b: tensor<256x8192xf16>, %c: tensor<1024x256xf16>) -> tensor<1024x256xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1024x8192xf16>, tensor<256x8192xf16>)
                     outs(%c : tensor<1024x256xf16>) -> tensor<1024x256xf16>
  return %r : tensor<1024x256xf16>
}
