// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=2" | FileCheck %s --check-prefix=SLICES

// 1040 x 1714 x 1512: 126 tiles of 128 x 128 would fit the 132 SMs, but
// rows off 32-byte sectors launch them in clusters of two along M, 10 row
// tiles for 9: 140, two waves. C's rows off 16 bytes take no transposed
// product (below): the narrowest wider tile whose clusters fit one wave
// runs instead, 128 x 160 (110 tiles) with B as N x K; with B as K x N,
// whose 160 columns need whole row tiles, 128 x 192 (90).
// CHECK-LABEL: func @spill_nk
// CHECK: tile = [128, 160, 64]
// CHECK-LABEL: func @spill_kn
// CHECK: tile = [128, 192, 64]
// 126 tiles of rows on sectors launch without clusters: 128 x 128.
// CHECK-LABEL: func @fits
// CHECK: tile = [128, 128, 64]
func.func @spill_nk(%a: tensor<1040x1512xf16>, %b: tensor<1714x1512xf16>, %c: tensor<1040x1714xf16>) -> tensor<1040x1714xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1040x1512xf16>, tensor<1714x1512xf16>)
                     outs(%c : tensor<1040x1714xf16>) -> tensor<1040x1714xf16>
  return %r : tensor<1040x1714xf16>
}
func.func @spill_kn(%a: tensor<1040x1512xf16>, %b: tensor<1512x1714xf16>, %c: tensor<1040x1714xf16>) -> tensor<1040x1714xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<1040x1512xf16>, tensor<1512x1714xf16>)
                     outs(%c : tensor<1040x1714xf16>) -> tensor<1040x1714xf16>
  return %r : tensor<1040x1714xf16>
}
func.func @fits(%a: tensor<1040x1536xf16>, %b: tensor<1536x1728xf16>, %c: tensor<1040x1728xf16>) -> tensor<1040x1728xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<1040x1536xf16>, tensor<1536x1728xf16>)
                     outs(%c : tensor<1040x1728xf16>) -> tensor<1040x1728xf16>
  return %r : tensor<1040x1728xf16>
}

// -----

// Where the product's 128 x 128 tiles spill a wave in clusters
// (swappedMidTile; the transposed product's then fit it as launched):
// C^T = B^T A^T in 128 x 128 tiles, one slice, every layout. 1040 x 1712 x
// 1512: 14 x 9 tiles, in clusters of two (K off sectors) whole pairs of 14
// row tiles; 1040 x 1720 x 1536: 14 x 9 without clusters. Slices asked
// keep the product as it is.
// CHECK-LABEL: func @swapped_mid_nk
// CHECK: splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_mid_kn
// CHECK: splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_mid_km
// CHECK: splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_mid_on_sectors
// CHECK: splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// SLICES-LABEL: func @swapped_mid_nk
// SLICES-NOT: swapped = true
// SLICES-LABEL: func @swapped_mid_kn
// SLICES-NOT: swapped = true
// SLICES: return
func.func @swapped_mid_nk(%a: tensor<1040x1512xf16>, %b: tensor<1712x1512xf16>, %c: tensor<1040x1712xf16>) -> tensor<1040x1712xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1040x1512xf16>, tensor<1712x1512xf16>)
                     outs(%c : tensor<1040x1712xf16>) -> tensor<1040x1712xf16>
  return %r : tensor<1040x1712xf16>
}
func.func @swapped_mid_kn(%a: tensor<1040x1512xf16>, %b: tensor<1512x1712xf16>, %c: tensor<1040x1712xf16>) -> tensor<1040x1712xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<1040x1512xf16>, tensor<1512x1712xf16>)
                     outs(%c : tensor<1040x1712xf16>) -> tensor<1040x1712xf16>
  return %r : tensor<1040x1712xf16>
}
func.func @swapped_mid_km(%a: tensor<1512x1040xf16>, %b: tensor<1512x1712xf16>, %c: tensor<1040x1712xf16>) -> tensor<1040x1712xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1512x1040xf16>, tensor<1512x1712xf16>)
                     outs(%c : tensor<1040x1712xf16>) -> tensor<1040x1712xf16>
  return %r : tensor<1040x1712xf16>
}
func.func @swapped_mid_on_sectors(%a: tensor<1040x1536xf16>, %b: tensor<1536x1720xf16>, %c: tensor<1040x1720xf16>) -> tensor<1040x1720xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<1040x1536xf16>, tensor<1536x1720xf16>)
                     outs(%c : tensor<1040x1720xf16>) -> tensor<1040x1720xf16>
  return %r : tensor<1040x1720xf16>
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

// -----

// Where 64 x 64 tiles would exceed one wave, 64 x 96 ones that fit it in
// more blocks than 64 x 128 (ninetySixFills): B as N x K up to K = 2048
// (756 x 832 x 1920: 108 tiles against 84), B as K x N up to K = 1024 (165
// x 2944 x 832: 93 against 69), A as K x M as B as K x N (640 x 1088 x
// 1152: 64 x 128 with A as K x M, 64 x 96 with A as M x K); past those, 64
// x 128 (165 x 2944 x 1728, B as K x N; 304 x 1920 x 2112, B as N x K:
// transposed, 32 clusters of four, more than swappedFillTile takes), and
// where rows lie off 32-byte sectors (200 x 2200 x 600: 64 x 128 in
// clusters of four).
// CHECK-LABEL: func @ninety_six_nk
// CHECK: tile = [64, 96, 64]
// CHECK-LABEL: func @ninety_six_kn
// CHECK: tile = [64, 96, 64]
// CHECK-LABEL: func @ninety_six_kn_long_k
// CHECK: tile = [64, 128, 64]
// CHECK-LABEL: func @ninety_six_nk_long_k
// CHECK: tile = [64, 128, 64]
// CHECK-LABEL: func @ninety_six_km_long_k
// CHECK: tile = [64, 128, 64]
// CHECK-LABEL: func @ninety_six_mk
// CHECK: tile = [64, 96, 64]
// CHECK-LABEL: func @ninety_six_off_sectors
// CHECK: tile = [64, 128, 64]
func.func @ninety_six_nk(%a: tensor<756x1920xf16>, %b: tensor<832x1920xf16>, %c: tensor<756x832xf16>) -> tensor<756x832xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<756x1920xf16>, tensor<832x1920xf16>)
                     outs(%c : tensor<756x832xf16>) -> tensor<756x832xf16>
  return %r : tensor<756x832xf16>
}
func.func @ninety_six_kn(%a: tensor<165x832xf16>, %b: tensor<832x2944xf16>, %c: tensor<165x2944xf16>) -> tensor<165x2944xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<165x832xf16>, tensor<832x2944xf16>)
                     outs(%c : tensor<165x2944xf16>) -> tensor<165x2944xf16>
  return %r : tensor<165x2944xf16>
}
func.func @ninety_six_kn_long_k(%a: tensor<165x1728xf16>, %b: tensor<1728x2944xf16>, %c: tensor<165x2944xf16>) -> tensor<165x2944xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<165x1728xf16>, tensor<1728x2944xf16>)
                     outs(%c : tensor<165x2944xf16>) -> tensor<165x2944xf16>
  return %r : tensor<165x2944xf16>
}
func.func @ninety_six_nk_long_k(%a: tensor<304x2112xf16>, %b: tensor<1920x2112xf16>, %c: tensor<304x1920xf16>) -> tensor<304x1920xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<304x2112xf16>, tensor<1920x2112xf16>)
                     outs(%c : tensor<304x1920xf16>) -> tensor<304x1920xf16>
  return %r : tensor<304x1920xf16>
}
func.func @ninety_six_km_long_k(%a: tensor<1152x640xf16>, %b: tensor<1088x1152xf16>, %c: tensor<640x1088xf16>) -> tensor<640x1088xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1152x640xf16>, tensor<1088x1152xf16>)
                     outs(%c : tensor<640x1088xf16>) -> tensor<640x1088xf16>
  return %r : tensor<640x1088xf16>
}
func.func @ninety_six_mk(%a: tensor<640x1152xf16>, %b: tensor<1088x1152xf16>, %c: tensor<640x1088xf16>) -> tensor<640x1088xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<640x1152xf16>, tensor<1088x1152xf16>)
                     outs(%c : tensor<640x1088xf16>) -> tensor<640x1088xf16>
  return %r : tensor<640x1088xf16>
}
func.func @ninety_six_off_sectors(%a: tensor<200x600xf16>, %b: tensor<2200x600xf16>, %c: tensor<200x2200xf16>) -> tensor<200x2200xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<200x600xf16>, tensor<2200x600xf16>)
                     outs(%c : tensor<200x2200xf16>) -> tensor<200x2200xf16>
  return %r : tensor<200x2200xf16>
}

// -----

// 193 to 384 rows whose 64-row tiles leave SMs idle, K from 2048 to 6144:
// the transposed product C^T = B^T A^T in 64 x 96 tiles, one slice
// (swappedFillTile; clusters of four: select-kernel-config), every layout
// (288 x 2144 x 2408: 3 x 9 clusters). Not with C's rows off 16 bytes (288
// x 2140: no column vectors), K past 6144, five 96-column tiles (400
// rows), under half the SMs (288 x 1024: 3 x 4 clusters) or past 28
// clusters (240 x 2624: 3 x 11). A as K x M with B as K x N takes 64 x 64
// tiles where their clusters of four fit the chip's at once (352 x 1224: 6 x
// 5 of 30), else 64 x 96 (288 x 2144: 5 x 9); with B as N x K (not
// measured) 64 x 96.
// CHECK-LABEL: func @swapped_fill_nk
// CHECK: splits = 12, tile = [64, 96, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_fill_kn
// CHECK: splits = 12, tile = [64, 96, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_fill_km
// CHECK: splits = 12, tile = [64, 96, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_fill_km_64
// CHECK: splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// In chunks of 375 the transposed 64 x 64 tile keeps two f16 sums a chunk
// (chunkSets), as the package's x64sq does.
// CHECK-LABEL: func @swapped_fill_km_64_long_chunks
// CHECK: splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a, swapped = true, sets = 2>
// CHECK-LABEL: func @swapped_fill_km_nk
// CHECK: splits = 16, tile = [64, 96, 64], inner = f16, outer = f32, {{[^s]*}}chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_fill_off_16_bytes
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_fill_long_k
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_fill_many_rows
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_fill_few_blocks
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_fill_many_clusters
// CHECK-NOT: swapped = true
// CHECK: return
func.func @swapped_fill_nk(%a: tensor<288x2408xf16>, %b: tensor<2144x2408xf16>, %c: tensor<288x2144xf16>) -> tensor<288x2144xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<288x2408xf16>, tensor<2144x2408xf16>)
                     outs(%c : tensor<288x2144xf16>) -> tensor<288x2144xf16>
  return %r : tensor<288x2144xf16>
}
func.func @swapped_fill_kn(%a: tensor<288x2408xf16>, %b: tensor<2408x2144xf16>, %c: tensor<288x2144xf16>) -> tensor<288x2144xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<288x2408xf16>, tensor<2408x2144xf16>)
                     outs(%c : tensor<288x2144xf16>) -> tensor<288x2144xf16>
  return %r : tensor<288x2144xf16>
}
func.func @swapped_fill_km(%a: tensor<2408x288xf16>, %b: tensor<2408x2144xf16>, %c: tensor<288x2144xf16>) -> tensor<288x2144xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<2408x288xf16>, tensor<2408x2144xf16>)
                     outs(%c : tensor<288x2144xf16>) -> tensor<288x2144xf16>
  return %r : tensor<288x2144xf16>
}
func.func @swapped_fill_km_64(%a: tensor<3560x352xf16>, %b: tensor<3560x1224xf16>, %c: tensor<352x1224xf16>) -> tensor<352x1224xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<3560x352xf16>, tensor<3560x1224xf16>)
                     outs(%c : tensor<352x1224xf16>) -> tensor<352x1224xf16>
  return %r : tensor<352x1224xf16>
}
func.func @swapped_fill_km_64_long_chunks(%a: tensor<6000x352xf16>, %b: tensor<6000x1224xf16>, %c: tensor<352x1224xf16>) -> tensor<352x1224xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<6000x352xf16>, tensor<6000x1224xf16>)
                     outs(%c : tensor<352x1224xf16>) -> tensor<352x1224xf16>
  return %r : tensor<352x1224xf16>
}
func.func @swapped_fill_km_nk(%a: tensor<3560x352xf16>, %b: tensor<1224x3560xf16>, %c: tensor<352x1224xf16>) -> tensor<352x1224xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<3560x352xf16>, tensor<1224x3560xf16>)
                     outs(%c : tensor<352x1224xf16>) -> tensor<352x1224xf16>
  return %r : tensor<352x1224xf16>
}
func.func @swapped_fill_off_16_bytes(%a: tensor<288x2408xf16>, %b: tensor<2408x2140xf16>, %c: tensor<288x2140xf16>) -> tensor<288x2140xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<288x2408xf16>, tensor<2408x2140xf16>)
                     outs(%c : tensor<288x2140xf16>) -> tensor<288x2140xf16>
  return %r : tensor<288x2140xf16>
}
func.func @swapped_fill_long_k(%a: tensor<288x6208xf16>, %b: tensor<6208x2144xf16>, %c: tensor<288x2144xf16>) -> tensor<288x2144xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<288x6208xf16>, tensor<6208x2144xf16>)
                     outs(%c : tensor<288x2144xf16>) -> tensor<288x2144xf16>
  return %r : tensor<288x2144xf16>
}
func.func @swapped_fill_many_rows(%a: tensor<400x2408xf16>, %b: tensor<2408x1536xf16>, %c: tensor<400x1536xf16>) -> tensor<400x1536xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<400x2408xf16>, tensor<2408x1536xf16>)
                     outs(%c : tensor<400x1536xf16>) -> tensor<400x1536xf16>
  return %r : tensor<400x1536xf16>
}
func.func @swapped_fill_few_blocks(%a: tensor<288x2408xf16>, %b: tensor<2408x1024xf16>, %c: tensor<288x1024xf16>) -> tensor<288x1024xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<288x2408xf16>, tensor<2408x1024xf16>)
                     outs(%c : tensor<288x1024xf16>) -> tensor<288x1024xf16>
  return %r : tensor<288x1024xf16>
}
func.func @swapped_fill_many_clusters(%a: tensor<240x2408xf16>, %b: tensor<2408x2624xf16>, %c: tensor<240x2624xf16>) -> tensor<240x2624xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<240x2408xf16>, tensor<2408x2624xf16>)
                     outs(%c : tensor<240x2624xf16>) -> tensor<240x2624xf16>
  return %r : tensor<240x2624xf16>
}

// -----

// 65 to 128 rows from K = 4096 whose transposed product's 64-row tiles
// number from a third of the SMs to 30 clusters of four (swappedRowsTile):
// the transposed product in 64 x 128 tiles, one slice (persistent clusters
// of four sharing A's tile: select-kernel-config), every layout (100 x
// 4096: 64 tiles; 72 x 4104: 65; 113 x 3688: 58). Not with A's rows on
// 32-byte sectors (128 rows, whose clusters would not run persistent), K
// under 4096, 43 tiles (N = 2752) or 31 clusters (N = 7688).
// CHECK-LABEL: func @swapped_rows_nk
// CHECK: splits = 16, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_rows_kn
// CHECK: splits = 16, tile = [64, 128, 64], inner = f16, outer = f32, chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_rows_km
// CHECK: splits = 16, tile = [64, 128, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_rows_on_sectors
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_rows_short_k
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_rows_few_tiles
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_rows_many_clusters
// CHECK-NOT: swapped = true
// CHECK: return
func.func @swapped_rows_nk(%a: tensor<100x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<100x4096xf16>) -> tensor<100x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<100x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<100x4096xf16>) -> tensor<100x4096xf16>
  return %r : tensor<100x4096xf16>
}
func.func @swapped_rows_kn(%a: tensor<72x5136xf16>, %b: tensor<5136x4104xf16>, %c: tensor<72x4104xf16>) -> tensor<72x4104xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<72x5136xf16>, tensor<5136x4104xf16>)
                     outs(%c : tensor<72x4104xf16>) -> tensor<72x4104xf16>
  return %r : tensor<72x4104xf16>
}
func.func @swapped_rows_km(%a: tensor<5136x113xf16>, %b: tensor<5136x3688xf16>, %c: tensor<113x3688xf16>) -> tensor<113x3688xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<5136x113xf16>, tensor<5136x3688xf16>)
                     outs(%c : tensor<113x3688xf16>) -> tensor<113x3688xf16>
  return %r : tensor<113x3688xf16>
}
func.func @swapped_rows_on_sectors(%a: tensor<128x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<128x4096xf16>) -> tensor<128x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<128x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<128x4096xf16>) -> tensor<128x4096xf16>
  return %r : tensor<128x4096xf16>
}
func.func @swapped_rows_short_k(%a: tensor<100x4088xf16>, %b: tensor<4096x4088xf16>, %c: tensor<100x4096xf16>) -> tensor<100x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<100x4088xf16>, tensor<4096x4088xf16>)
                     outs(%c : tensor<100x4096xf16>) -> tensor<100x4096xf16>
  return %r : tensor<100x4096xf16>
}
func.func @swapped_rows_few_tiles(%a: tensor<100x4096xf16>, %b: tensor<2752x4096xf16>, %c: tensor<100x2752xf16>) -> tensor<100x2752xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<100x4096xf16>, tensor<2752x4096xf16>)
                     outs(%c : tensor<100x2752xf16>) -> tensor<100x2752xf16>
  return %r : tensor<100x2752xf16>
}
func.func @swapped_rows_many_clusters(%a: tensor<100x4096xf16>, %b: tensor<7688x4096xf16>, %c: tensor<100x7688xf16>) -> tensor<100x7688xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<100x4096xf16>, tensor<7688x4096xf16>)
                     outs(%c : tensor<100x7688xf16>) -> tensor<100x7688xf16>
  return %r : tensor<100x7688xf16>
}

// -----

// 33 to 64 rows from K = 2048 whose transposed product's 64-row tiles
// number from half the SMs to 30 clusters of four (swappedFewRowsTile): the
// transposed product in 64 x 64 tiles, one slice, two f16 sums a chunk in
// chunks of 320 or more (chunkSets; clusters of four sharing A's tile:
// select-kernel-config), every layout (46 x 4168: 66 tiles; 33 x 7680 at
// K = 2048: 120; 64 x 5120: 80, chunks of 432). Not
// under 33 rows, over 64 (65 rows at K = 2048, under swappedRowsTile's K),
// K under 2048, 65 tiles (N = 4160), 31 clusters (N = 7688), C's rows off
// 16 bytes, 64 rows with B stored N x K, or slices asked. With B stored
// K x N up to 63 rows from a third of the SMs (40 x 2816: 44 tiles; not 43
// at N = 2752, nor 64 rows at N = 3000, nor B as N x K at N = 2816).
// CHECK-LABEL: func @swapped_few_rows_nk
// CHECK: splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_few_rows_kn
// CHECK: splits = 12, tile = [64, 64, 64], inner = f16, outer = f32, chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_few_rows_km
// CHECK: splits = 32, tile = [64, 64, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a, swapped = true, sets = 2>
// CHECK-LABEL: func @swapped_few_rows_32_rows
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_65_rows
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_short_k
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_few_tiles
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_many_clusters
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_c_off_16_bytes
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_64_rows_nk
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_kn_a_third
// CHECK: splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, chip = sm_90a, swapped = true>
// CHECK-LABEL: func @swapped_few_rows_kn_under_a_third
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_kn_64_rows_under_half
// CHECK-NOT: swapped = true
// CHECK-LABEL: func @swapped_few_rows_nk_under_half
// CHECK-NOT: swapped = true
// CHECK: return
// SLICES-LABEL: func @swapped_few_rows_nk
// SLICES-NOT: swapped = true
// SLICES: return
func.func @swapped_few_rows_nk(%a: tensor<46x4096xf16>, %b: tensor<4168x4096xf16>, %c: tensor<46x4168xf16>) -> tensor<46x4168xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<46x4096xf16>, tensor<4168x4096xf16>)
                     outs(%c : tensor<46x4168xf16>) -> tensor<46x4168xf16>
  return %r : tensor<46x4168xf16>
}
func.func @swapped_few_rows_kn(%a: tensor<33x2048xf16>, %b: tensor<2048x7680xf16>, %c: tensor<33x7680xf16>) -> tensor<33x7680xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<33x2048xf16>, tensor<2048x7680xf16>)
                     outs(%c : tensor<33x7680xf16>) -> tensor<33x7680xf16>
  return %r : tensor<33x7680xf16>
}
func.func @swapped_few_rows_km(%a: tensor<13824x64xf16>, %b: tensor<13824x5120xf16>, %c: tensor<64x5120xf16>) -> tensor<64x5120xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<13824x64xf16>, tensor<13824x5120xf16>)
                     outs(%c : tensor<64x5120xf16>) -> tensor<64x5120xf16>
  return %r : tensor<64x5120xf16>
}
func.func @swapped_few_rows_32_rows(%a: tensor<32x4096xf16>, %b: tensor<5120x4096xf16>, %c: tensor<32x5120xf16>) -> tensor<32x5120xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<32x4096xf16>, tensor<5120x4096xf16>)
                     outs(%c : tensor<32x5120xf16>) -> tensor<32x5120xf16>
  return %r : tensor<32x5120xf16>
}
func.func @swapped_few_rows_65_rows(%a: tensor<65x2048xf16>, %b: tensor<5120x2048xf16>, %c: tensor<65x5120xf16>) -> tensor<65x5120xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<65x2048xf16>, tensor<5120x2048xf16>)
                     outs(%c : tensor<65x5120xf16>) -> tensor<65x5120xf16>
  return %r : tensor<65x5120xf16>
}
func.func @swapped_few_rows_short_k(%a: tensor<48x2040xf16>, %b: tensor<5120x2040xf16>, %c: tensor<48x5120xf16>) -> tensor<48x5120xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<48x2040xf16>, tensor<5120x2040xf16>)
                     outs(%c : tensor<48x5120xf16>) -> tensor<48x5120xf16>
  return %r : tensor<48x5120xf16>
}
func.func @swapped_few_rows_few_tiles(%a: tensor<48x4096xf16>, %b: tensor<4160x4096xf16>, %c: tensor<48x4160xf16>) -> tensor<48x4160xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<48x4096xf16>, tensor<4160x4096xf16>)
                     outs(%c : tensor<48x4160xf16>) -> tensor<48x4160xf16>
  return %r : tensor<48x4160xf16>
}
func.func @swapped_few_rows_many_clusters(%a: tensor<48x4096xf16>, %b: tensor<7688x4096xf16>, %c: tensor<48x7688xf16>) -> tensor<48x7688xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<48x4096xf16>, tensor<7688x4096xf16>)
                     outs(%c : tensor<48x7688xf16>) -> tensor<48x7688xf16>
  return %r : tensor<48x7688xf16>
}
func.func @swapped_few_rows_c_off_16_bytes(%a: tensor<48x4096xf16>, %b: tensor<5124x4096xf16>, %c: tensor<48x5124xf16>) -> tensor<48x5124xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<48x4096xf16>, tensor<5124x4096xf16>)
                     outs(%c : tensor<48x5124xf16>) -> tensor<48x5124xf16>
  return %r : tensor<48x5124xf16>
}
func.func @swapped_few_rows_64_rows_nk(%a: tensor<64x5120xf16>, %b: tensor<5120x5120xf16>, %c: tensor<64x5120xf16>) -> tensor<64x5120xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<64x5120xf16>, tensor<5120x5120xf16>)
                     outs(%c : tensor<64x5120xf16>) -> tensor<64x5120xf16>
  return %r : tensor<64x5120xf16>
}
func.func @swapped_few_rows_kn_a_third(%a: tensor<40x4096xf16>, %b: tensor<4096x2816xf16>, %c: tensor<40x2816xf16>) -> tensor<40x2816xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<40x4096xf16>, tensor<4096x2816xf16>)
                     outs(%c : tensor<40x2816xf16>) -> tensor<40x2816xf16>
  return %r : tensor<40x2816xf16>
}
func.func @swapped_few_rows_kn_under_a_third(%a: tensor<40x4096xf16>, %b: tensor<4096x2752xf16>, %c: tensor<40x2752xf16>) -> tensor<40x2752xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<40x4096xf16>, tensor<4096x2752xf16>)
                     outs(%c : tensor<40x2752xf16>) -> tensor<40x2752xf16>
  return %r : tensor<40x2752xf16>
}
func.func @swapped_few_rows_kn_64_rows_under_half(%a: tensor<64x4096xf16>, %b: tensor<4096x3000xf16>, %c: tensor<64x3000xf16>) -> tensor<64x3000xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<64x4096xf16>, tensor<4096x3000xf16>)
                     outs(%c : tensor<64x3000xf16>) -> tensor<64x3000xf16>
  return %r : tensor<64x3000xf16>
}
func.func @swapped_few_rows_nk_under_half(%a: tensor<40x4096xf16>, %b: tensor<2816x4096xf16>, %c: tensor<40x2816xf16>) -> tensor<40x2816xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<40x4096xf16>, tensor<2816x4096xf16>)
                     outs(%c : tensor<40x2816xf16>) -> tensor<40x2816xf16>
  return %r : tensor<40x2816xf16>
}

// -----
// More than 128 rows whose 64 x 128 tiles fill from a third of the SMs to
// one wave in one slice, K from 6144, rows on 32-byte sectors: 128 x 128
// tiles in floor(SMs / tiles) slices (341 x 1936 x 10656: 96 tiles of 64 x
// 128, 48 of 128 x 128 in two slices; 993 x 304 x 13776, B stored K x N:
// 24 in five; 224 x 1456 x 13040, A stored K x M: 24 in five). Not below
// K = 6144 (6128), with N off sectors (1944: 64 x 128 in clusters), where
// 64 x 128 tiles number under a third of the SMs (341 x 768: 36, which take
// slices themselves), nor where slices are asked.
// CHECK-LABEL: func @sliced_mid
// CHECK: splits = 32, tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 2, chip = sm_90a>
// CHECK-LABEL: func @sliced_mid_kn
// CHECK: splits = 32, tile = [128, 128, 64], inner = f16, outer = f32, slices = 5, chip = sm_90a>
// CHECK-LABEL: func @sliced_mid_km
// CHECK: splits = 32, tile = [128, 128, 64], inner = f16, outer = f32, a_layout = km, slices = 5, chip = sm_90a>
// CHECK-LABEL: func @sliced_mid_short_k
// CHECK: tile = [64, 128, 64]
// CHECK-LABEL: func @sliced_mid_off_sectors
// CHECK: tile = [64, 128, 64]
// CHECK-LABEL: func @sliced_mid_few_tiles
// CHECK: tile = [64, 128, 64]
// CHECK: return
// SLICES-LABEL: func @sliced_mid
// SLICES: tile = [64, 128, 64]
// SLICES: return
func.func @sliced_mid(%a: tensor<341x10656xf16>, %b: tensor<1936x10656xf16>, %c: tensor<341x1936xf16>) -> tensor<341x1936xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<341x10656xf16>, tensor<1936x10656xf16>)
                     outs(%c : tensor<341x1936xf16>) -> tensor<341x1936xf16>
  return %r : tensor<341x1936xf16>
}
func.func @sliced_mid_kn(%a: tensor<993x13776xf16>, %b: tensor<13776x304xf16>, %c: tensor<993x304xf16>) -> tensor<993x304xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<993x13776xf16>, tensor<13776x304xf16>)
                     outs(%c : tensor<993x304xf16>) -> tensor<993x304xf16>
  return %r : tensor<993x304xf16>
}
func.func @sliced_mid_km(%a: tensor<13040x224xf16>, %b: tensor<13040x1456xf16>, %c: tensor<224x1456xf16>) -> tensor<224x1456xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<13040x224xf16>, tensor<13040x1456xf16>)
                     outs(%c : tensor<224x1456xf16>) -> tensor<224x1456xf16>
  return %r : tensor<224x1456xf16>
}
func.func @sliced_mid_short_k(%a: tensor<341x6128xf16>, %b: tensor<1936x6128xf16>, %c: tensor<341x1936xf16>) -> tensor<341x1936xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<341x6128xf16>, tensor<1936x6128xf16>)
                     outs(%c : tensor<341x1936xf16>) -> tensor<341x1936xf16>
  return %r : tensor<341x1936xf16>
}
func.func @sliced_mid_off_sectors(%a: tensor<341x10656xf16>, %b: tensor<1944x10656xf16>, %c: tensor<341x1944xf16>) -> tensor<341x1944xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<341x10656xf16>, tensor<1944x10656xf16>)
                     outs(%c : tensor<341x1944xf16>) -> tensor<341x1944xf16>
  return %r : tensor<341x1944xf16>
}
func.func @sliced_mid_few_tiles(%a: tensor<341x10656xf16>, %b: tensor<768x10656xf16>, %c: tensor<341x768xf16>) -> tensor<341x768xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<341x10656xf16>, tensor<768x10656xf16>)
                     outs(%c : tensor<341x768xf16>) -> tensor<341x768xf16>
  return %r : tensor<341x768xf16>
}

// -----
// From 512 rows the 128 x 128 tiles of one wave stay (1098 x 1104 x 6704,
// B stored K x N: 81 tiles) where below it the one-warpgroup filling tile
// takes over (496 x 2096 x 6704: 88 tiles of 64 x 192 for 68 of 128 x 128).
// CHECK-LABEL: func @mid_over_filling
// CHECK: splits = 16, tile = [128, 128, 64], inner = f16, outer = f32, chip = sm_90a>
// CHECK-LABEL: func @filling_under_512_rows
// CHECK: tile = [64, 192, 64]
func.func @mid_over_filling(%a: tensor<1098x6704xf16>, %b: tensor<6704x1104xf16>, %c: tensor<1098x1104xf16>) -> tensor<1098x1104xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<1098x6704xf16>, tensor<6704x1104xf16>)
                     outs(%c : tensor<1098x1104xf16>) -> tensor<1098x1104xf16>
  return %r : tensor<1098x1104xf16>
}
func.func @filling_under_512_rows(%a: tensor<496x6704xf16>, %b: tensor<6704x2096xf16>, %c: tensor<496x2096xf16>) -> tensor<496x2096xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<496x6704xf16>, tensor<6704x2096xf16>)
                     outs(%c : tensor<496x2096xf16>) -> tensor<496x2096xf16>
  return %r : tensor<496x2096xf16>
}
