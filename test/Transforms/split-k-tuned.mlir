// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a tuned-table=false" | FileCheck %s --check-prefix=RULES
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a slices=3" | FileCheck %s --check-prefix=ASKED
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a tile=64,128,64" | FileCheck %s --check-prefix=TILE

// 1024 x 1024 x 1024, B as N x K: the class (M, N and K 513-1024) has a
// row of sm_90a's tuned table (lib/Policy/Tuned/SM90a.def: N64, the rules'
// slices): 64 x 64 x 64 tiles in one slice. The rules alone run 64 x 128
// tiles (64 x 64 ones, 256, would not fit one wave); slices asked for
// replace the row's; a tile asked for replaces the table.
// CHECK-LABEL: func @tuned
// CHECK: tile = [64, 64, 64]
// CHECK-NOT: slices =
// CHECK-SAME: chip = sm_90a>
// RULES-LABEL: func @tuned
// RULES: tile = [64, 128, 64]
// ASKED-LABEL: func @tuned
// ASKED: tile = [64, 64, 64], {{.*}}slices = 3, chip = sm_90a>
// TILE-LABEL: func @tuned
// TILE: tile = [64, 128, 64]
func.func @tuned(%a: tensor<1024x1024xf16>, %b: tensor<1024x1024xf16>) -> tensor<1024x1024xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1024x1024xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1024x1024xf16>, tensor<1024x1024xf16>)
                     outs(%c : tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
  return %r : tensor<1024x1024xf16>
}

// -----

// Dynamic sizes and batched products have no class: the rules decide.
// CHECK-LABEL: func @dynamic
// CHECK: tile = [128, 256, 64]
// CHECK-NOT: swapped = true
func.func @dynamic(%a: tensor<?x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<?x4096xf16>) -> tensor<?x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<?x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  return %r : tensor<?x4096xf16>
}

// -----

// 1000 x 1000 x 1000 falls in the same class, but its rows of 1000
// elements are not 32-byte aligned and the table, measured on multiples of
// 64, does not answer (kTunedRowAlignment): the rules' 64 x 128 tiles, in
// clusters of two.
// CHECK-LABEL: func @unaligned_rows
// CHECK: tile = [64, 128, 64]
// RULES-LABEL: func @unaligned_rows
// RULES: tile = [64, 128, 64]
func.func @unaligned_rows(%a: tensor<1000x1000xf16>, %b: tensor<1000x1000xf16>, %c: tensor<1000x1000xf16>) -> tensor<1000x1000xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<1000x1000xf16>, tensor<1000x1000xf16>)
                     outs(%c : tensor<1000x1000xf16>) -> tensor<1000x1000xf16>
  return %r : tensor<1000x1000xf16>
}

// -----

// The class of 256 x 6144 x 4096 (M 129-256, N 4097-8192, K 2049-4096) has
// a row (Mid, one slice), tuned before the rules had filling tiles; where
// the rules' tile is one, 64 x 192 here (4 x 32 = 128 tiles, one wave), it
// runs instead. At 256 x 4160 x 2112 (the rules' 128 x 128 tile in two
// slices) the row stays.
// CHECK-LABEL: func @filling_over_row
// CHECK: tile = [64, 192, 64]
// CHECK-LABEL: func @row_over_rules
// CHECK: tile = [128, 128, 64]
// CHECK-NOT: slices =
// CHECK-SAME: chip = sm_90a>
// RULES-LABEL: func @row_over_rules
// RULES: tile = [128, 128, 64], {{.*}}slices = 2, chip = sm_90a>
func.func @filling_over_row(%a: tensor<256x4096xf16>, %b: tensor<6144x4096xf16>) -> tensor<256x6144xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x6144xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x6144xf16>) -> tensor<256x6144xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<256x4096xf16>, tensor<6144x4096xf16>)
                     outs(%c : tensor<256x6144xf16>) -> tensor<256x6144xf16>
  return %r : tensor<256x6144xf16>
}
func.func @row_over_rules(%a: tensor<256x2112xf16>, %b: tensor<4160x2112xf16>) -> tensor<256x4160xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x4160xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<256x4160xf16>) -> tensor<256x4160xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<256x2112xf16>, tensor<4160x2112xf16>)
                     outs(%c : tensor<256x4160xf16>) -> tensor<256x4160xf16>
  return %r : tensor<256x4160xf16>
}

// -----

// 64 x 4096 x 4096 and 50 x 4096 x 4096, B as N x K: the class (M 33-64, N
// and K 2049-4096) has a row (N64, one slice). From policy::kRows64MinRows
// rows the rules' 64 x 32 tile with four f16 sums (policy::kRows64Tile)
// replaces it, tuned after the table; fewer rows keep the row's 64 x 64.
// CHECK-LABEL: func @rows_64_over_the_row
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 32, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 4>)
// CHECK-LABEL: func @rows_50_keep_the_row
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
func.func @rows_64_over_the_row(%a: tensor<64x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<64x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  return %r : tensor<64x4096xf16>
}
func.func @rows_50_keep_the_row(%a: tensor<50x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<50x4096xf16>) -> tensor<50x4096xf16> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<50x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<50x4096xf16>) -> tensor<50x4096xf16>
  return %r : tensor<50x4096xf16>
}
