// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_80" | FileCheck %s --check-prefix=SM80

// Rows that lie off 16 bytes (K = 4052, no multiple of 8 elements): the
// fast kernels would read A and B an element at a time, so each is copied
// into rows padded to 4064 elements (32-byte rows, policy::paddedRowElems)
// and read through the slice of its first 4052 columns (policy::copiesUnalignedOperands: 327 x 1234 x 4052
// multiply-adds, past kMinCopiedWork), on every chip.
// CHECK-LABEL: func @nk
// CHECK: %[[PA:.*]] = tensor.empty() : tensor<327x4064xf16>
// CHECK: %[[SA:.*]] = tensor.extract_slice %[[PA]][0, 0] [327, 4052] [1, 1] : tensor<327x4064xf16> to tensor<327x4052xf16>
// CHECK: %[[A:.*]] = linalg.copy ins(%arg0 : tensor<327x4052xf16>) outs(%[[SA]] : tensor<327x4052xf16>)
// CHECK: %[[PB:.*]] = tensor.empty() : tensor<1234x4064xf16>
// CHECK: %[[SB:.*]] = tensor.extract_slice %[[PB]][0, 0] [1234, 4052] [1, 1]
// CHECK: %[[B:.*]] = linalg.copy ins(%arg1 : tensor<1234x4052xf16>) outs(%[[SB]] : tensor<1234x4052xf16>)
// CHECK: gpupoor.matmul %[[A]], %[[B]]
// SM80-LABEL: func @nk
// SM80-COUNT-2: linalg.copy
// SM80: gpupoor.matmul
func.func @nk(%a: tensor<327x4052xf16>, %b: tensor<1234x4052xf16>) -> tensor<327x1234xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<327x1234xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<327x1234xf16>) -> tensor<327x1234xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<327x4052xf16>, tensor<1234x4052xf16>) outs(%f : tensor<327x1234xf16>) -> tensor<327x1234xf16>
  return %c : tensor<327x1234xf16>
}

// -----

// B as K x N lies in rows of N = 1234 elements: B alone is copied (A's
// rows of K = 4096 are whole 16 bytes), and C keeps its shape.
// CHECK-LABEL: func @kn
// CHECK-NOT: linalg.copy ins(%arg0
// CHECK: %[[PB:.*]] = tensor.empty() : tensor<4096x1248xf16>
// CHECK: %[[SB:.*]] = tensor.extract_slice %[[PB]][0, 0] [4096, 1234] [1, 1]
// CHECK: %[[B:.*]] = linalg.copy ins(%arg1 : tensor<4096x1234xf16>) outs(%[[SB]]
// CHECK: gpupoor.matmul %arg0, %[[B]] outs(%{{.*}} : tensor<327x1234xf16>)
func.func @kn(%a: tensor<327x4096xf16>, %b: tensor<4096x1234xf16>) -> tensor<327x1234xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<327x1234xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<327x1234xf16>) -> tensor<327x1234xf16>
  %c = linalg.matmul ins(%a, %b : tensor<327x4096xf16>, tensor<4096x1234xf16>) outs(%f : tensor<327x1234xf16>) -> tensor<327x1234xf16>
  return %c : tensor<327x1234xf16>
}

// -----

// A as K x M in rows of M = 327 elements: copied as it lies into padded
// rows (327 -> 336, policy::Strategy::padsA), whatever the product's size,
// as the package copies it, and read as K x M; B's rows of 1234 are padded
// too. No transpose: it moved the same bytes five times slower. Off sm_90a
// (not measured there) A is transposed M x K as before.
// SM80-LABEL: func @km
// SM80: linalg.transpose ins(%arg0 : tensor<4052x327xf16>)
// SM80-NOT: a_layout = km
// SM80: return
// CHECK-LABEL: func @km
// CHECK-NOT: linalg.transpose
// CHECK: %[[PA:.*]] = tensor.empty() : tensor<4052x336xf16>
// CHECK: %[[SA:.*]] = tensor.extract_slice %[[PA]][0, 0] [4052, 327] [1, 1]
// CHECK: %[[A:.*]] = linalg.copy ins(%arg0 : tensor<4052x327xf16>) outs(%[[SA]] : tensor<4052x327xf16>)
// CHECK-NOT: linalg.copy ins(%[[A]]
// CHECK: %[[PB:.*]] = tensor.empty() : tensor<4052x1248xf16>
// CHECK: %[[SB:.*]] = tensor.extract_slice %[[PB]]
// CHECK: %[[B:.*]] = linalg.copy ins(%arg1 : tensor<4052x1234xf16>) outs(%[[SB]]
// CHECK: gpupoor.matmul %[[A]], %[[B]]
// CHECK-SAME: a_layout = km
func.func @km(%a: tensor<4052x327xf16>, %b: tensor<4052x1234xf16>) -> tensor<327x1234xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<327x1234xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<327x1234xf16>) -> tensor<327x1234xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<4052x327xf16>, tensor<4052x1234xf16>) outs(%f : tensor<327x1234xf16>) -> tensor<327x1234xf16>
  return %c : tensor<327x1234xf16>
}

// -----

// A small product (100 x 136 x 64) of A as K x M in rows of 100: padded
// all the same (100 -> 112), where the sm_90a kernel would read A as it
// lies an element at a time; B's rows are whole 16 bytes.
// CHECK-LABEL: func @km_small
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64x112xf16>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[E]][0, 0] [64, 100] [1, 1]
// CHECK: %[[A:.*]] = linalg.copy ins(%arg0 : tensor<64x100xf16>) outs(%[[S]] : tensor<64x100xf16>)
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %[[A]], %arg1
// CHECK-SAME: a_layout = km
func.func @km_small(%a: tensor<64x100xf16>, %b: tensor<64x136xf16>) -> tensor<100x136xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<100x136xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<100x136xf16>) -> tensor<100x136xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<64x100xf16>, tensor<64x136xf16>) outs(%f : tensor<100x136xf16>) -> tensor<100x136xf16>
  return %c : tensor<100x136xf16>
}

// -----

// Left as they lie: fewer multiply-adds than kMinCopiedWork (128 x 130 x
// 130), whose time the copies would add to; a single row (1 x 1234 x 4052),
// which reads each operand once; a dynamic K, whose rows the host code's
// checks judge.
// CHECK-LABEL: func @small
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-LABEL: func @row
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-LABEL: func @dynamic_k
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %arg0, %arg1
func.func @small(%a: tensor<128x130xf16>, %b: tensor<130x130xf16>) -> tensor<128x130xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x130xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<128x130xf16>) -> tensor<128x130xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<128x130xf16>, tensor<130x130xf16>) outs(%f : tensor<128x130xf16>) -> tensor<128x130xf16>
  return %c : tensor<128x130xf16>
}
func.func @row(%a: tensor<1x4052xf16>, %b: tensor<1234x4052xf16>) -> tensor<1x1234xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x1234xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x1234xf16>) -> tensor<1x1234xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<1x4052xf16>, tensor<1234x4052xf16>) outs(%f : tensor<1x1234xf16>) -> tensor<1x1234xf16>
  return %c : tensor<1x1234xf16>
}
func.func @dynamic_k(%a: tensor<327x?xf16>, %b: tensor<1234x?xf16>) -> tensor<327x1234xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<327x1234xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<327x1234xf16>) -> tensor<327x1234xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<327x?xf16>, tensor<1234x?xf16>) outs(%f : tensor<327x1234xf16>) -> tensor<327x1234xf16>
  return %c : tensor<327x1234xf16>
}

// -----

// A batch (4 x 327 x 1234 x 4052): each element's rows padded, the batch
// stride with them.
// CHECK-LABEL: func @batched
// CHECK: tensor.empty() : tensor<4x327x4064xf16>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [4, 327, 4052] [1, 1, 1]
// CHECK: tensor.empty() : tensor<4x1234x4064xf16>
// CHECK: gpupoor.matmul
func.func @batched(%a: tensor<4x327x4052xf16>, %b: tensor<4x1234x4052xf16>) -> tensor<4x327x1234xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x327x1234xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<4x327x1234xf16>) -> tensor<4x327x1234xf16>
  %c = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
       ins(%a, %b : tensor<4x327x4052xf16>, tensor<4x1234x4052xf16>) outs(%f : tensor<4x327x1234xf16>) -> tensor<4x327x1234xf16>
  return %c : tensor<4x327x1234xf16>
}

// -----

// On memrefs nothing is copied (no allocation is the pass's to make): the
// element kernels read the rows as they lie, A as K x M too.
// CHECK-LABEL: func @memrefs
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: a_layout = km
func.func @memrefs(%a: memref<4052x327xf16>, %b: memref<4052x1234xf16>, %c: memref<327x1234xf16>) {
  %z = arith.constant 0.0 : f16
  linalg.fill ins(%z : f16) outs(%c : memref<327x1234xf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : memref<4052x327xf16>, memref<4052x1234xf16>) outs(%c : memref<327x1234xf16>)
  return
}

// -----

// Empty operands (M = 0, a batch of 0) whose rows of K = 7 lie off 16
// bytes: nothing to pad, a plain tensor.empty (an extract_slice at offset 0
// of a size-0 dimension would fail its verifier).
// CHECK-LABEL: func @empty_unaligned
// CHECK-NOT: tensor.extract_slice
// CHECK: gpupoor.matmul
// SM80-LABEL: func @empty_unaligned
// SM80-NOT: tensor.extract_slice
// SM80: gpupoor.matmul
func.func @empty_unaligned(%a: tensor<7x0xf16>, %b: tensor<7x64xf16>, %c: tensor<0x64xf16>) -> tensor<0x64xf16> {
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<7x0xf16>, tensor<7x64xf16>) outs(%c : tensor<0x64xf16>) -> tensor<0x64xf16>
  return %mm : tensor<0x64xf16>
}

// -----

// CHECK-LABEL: func @empty_batch_unaligned
// CHECK-NOT: tensor.extract_slice
// CHECK: gpupoor.matmul
func.func @empty_batch_unaligned(%a: tensor<0x7x16xf16>, %b: tensor<0x7x64xf16>, %c: tensor<0x16x64xf16>) -> tensor<0x16x64xf16> {
  %mm = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%a, %b : tensor<0x7x16xf16>, tensor<0x7x64xf16>) outs(%c : tensor<0x16x64xf16>) -> tensor<0x16x64xf16>
  return %mm : tensor<0x16x64xf16>
}

// -----

// Narrow products (16 rows or columns at most, policy::kPieceReadRows)
// whose copies would move most of their operands' elements: left as they
// lie where every such operand's rows lie on 8 bytes (K = 4100: the element
// kernels read them in 8-byte cp.async pieces), copied where they lie on 4
// (K = 4098), and where the copy is small (16 x 1200 x 1028: 1.2e6
// elements, below policy::kPieceReadMinCopy) or of the small operand only
// (B as K x N of rows of a multiple of 8: A of 16 x 4100 alone copied).
// Other chips than sm_90a keep the copies.
// CHECK-LABEL: func @narrow_pieces
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %arg0, %arg1
// SM80-LABEL: func @narrow_pieces
// SM80-COUNT-2: linalg.copy
// SM80: gpupoor.matmul
// CHECK-LABEL: func @decode_pieces
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-LABEL: func @narrow_4_byte_rows
// CHECK-COUNT-2: linalg.copy
// CHECK: gpupoor.matmul
// CHECK-LABEL: func @narrow_small_copy
// CHECK-COUNT-2: linalg.copy
// CHECK: gpupoor.matmul
// CHECK-LABEL: func @narrow_a_alone
// CHECK: linalg.copy ins(%arg0 : tensor<16x4100xf16>)
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul
func.func @narrow_pieces(%a: tensor<4096x4100xf16>, %b: tensor<16x4100xf16>) -> tensor<4096x16xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x16xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<4096x16xf16>) -> tensor<4096x16xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<4096x4100xf16>, tensor<16x4100xf16>) outs(%f : tensor<4096x16xf16>) -> tensor<4096x16xf16>
  return %c : tensor<4096x16xf16>
}
func.func @decode_pieces(%a: tensor<8x4100xf16>, %b: tensor<4100x4100xf16>) -> tensor<8x4100xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x4100xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<8x4100xf16>) -> tensor<8x4100xf16>
  %c = linalg.matmul ins(%a, %b : tensor<8x4100xf16>, tensor<4100x4100xf16>) outs(%f : tensor<8x4100xf16>) -> tensor<8x4100xf16>
  return %c : tensor<8x4100xf16>
}
func.func @narrow_4_byte_rows(%a: tensor<4096x4098xf16>, %b: tensor<16x4098xf16>) -> tensor<4096x16xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x16xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<4096x16xf16>) -> tensor<4096x16xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<4096x4098xf16>, tensor<16x4098xf16>) outs(%f : tensor<4096x16xf16>) -> tensor<4096x16xf16>
  return %c : tensor<4096x16xf16>
}
func.func @narrow_small_copy(%a: tensor<16x1028xf16>, %b: tensor<1200x1028xf16>) -> tensor<16x1200xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x1200xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<16x1200xf16>) -> tensor<16x1200xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<16x1028xf16>, tensor<1200x1028xf16>) outs(%f : tensor<16x1200xf16>) -> tensor<16x1200xf16>
  return %c : tensor<16x1200xf16>
}
func.func @narrow_a_alone(%a: tensor<16x4100xf16>, %b: tensor<4100x4096xf16>) -> tensor<16x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %c = linalg.matmul ins(%a, %b : tensor<16x4100xf16>, tensor<4100x4096xf16>) outs(%f : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  return %c : tensor<16x4096xf16>
}

// -----

// A decode product of rows on 4 bytes (K = 4102) whose launch as they lie
// is the swapped decode tile's element kernels: left as it lies on sm_90a
// (policy::copiesUnalignedOperands), unlike @narrow_4_byte_rows' 16
// columns of 4096 rows; copied on sm_80.
// CHECK-LABEL: func @decode_4_byte_rows
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %arg0, %arg1
// SM80-LABEL: func @decode_4_byte_rows
// SM80-COUNT-2: linalg.copy
// SM80: gpupoor.matmul
func.func @decode_4_byte_rows(%a: tensor<4x4102xf16>, %b: tensor<4096x4102xf16>) -> tensor<4x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<4x4102xf16>, tensor<4096x4102xf16>) outs(%f : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  return %c : tensor<4x4096xf16>
}

// -----

// Up to 64 rows or columns (policy::kPieceReadWaveRows), rows on 4 or 8
// bytes are left to the pieces where the launch has an eighth more blocks
// than SMs: 31 x 15008 x 4020 (235 blocks on sm_90a's 132 SMs) as it lies,
// 17 x 3388 x 5372 (53 blocks) copied; on sm_80 both copied.
// CHECK-LABEL: func @wave_pieces
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-LABEL: func @few_blocks
// CHECK-COUNT-2: linalg.copy
// CHECK: gpupoor.matmul
// SM80-LABEL: func @wave_pieces
// SM80-COUNT-2: linalg.copy
// SM80: gpupoor.matmul
func.func @wave_pieces(%a: tensor<31x4020xf16>, %b: tensor<15008x4020xf16>) -> tensor<31x15008xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<31x15008xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<31x15008xf16>) -> tensor<31x15008xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<31x4020xf16>, tensor<15008x4020xf16>) outs(%f : tensor<31x15008xf16>) -> tensor<31x15008xf16>
  return %c : tensor<31x15008xf16>
}
func.func @few_blocks(%a: tensor<17x5372xf16>, %b: tensor<3388x5372xf16>) -> tensor<17x3388xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<17x3388xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<17x3388xf16>) -> tensor<17x3388xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<17x5372xf16>, tensor<3388x5372xf16>) outs(%f : tensor<17x3388xf16>) -> tensor<17x3388xf16>
  return %c : tensor<17x3388xf16>
}

// -----

// A batch of dynamic size: its launch is not known, so A's copy stays
// (policy::copiesUnalignedOperands); with a static batch the same narrow
// product of 8-byte rows is left as it lies.
// CHECK-LABEL: func @dynamic_batch_narrow
// CHECK: linalg.copy ins(%arg0 : tensor<?x4096x4100xf16>)
// CHECK: gpupoor.matmul
// CHECK-LABEL: func @static_batch_narrow
// CHECK-NOT: linalg.copy
// CHECK: gpupoor.matmul %arg0, %arg1
func.func @dynamic_batch_narrow(%a: tensor<?x4096x4100xf16>, %b: tensor<?x4100x16xf16>, %c: tensor<?x4096x16xf16>) -> tensor<?x4096x16xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x4096x4100xf16>, tensor<?x4100x16xf16>) outs(%c : tensor<?x4096x16xf16>) -> tensor<?x4096x16xf16>
  return %r : tensor<?x4096x16xf16>
}
func.func @static_batch_narrow(%a: tensor<2x4096x4100xf16>, %b: tensor<2x4100x16xf16>, %c: tensor<2x4096x16xf16>) -> tensor<2x4096x16xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4096x4100xf16>, tensor<2x4100x16xf16>) outs(%c : tensor<2x4096x16xf16>) -> tensor<2x4096x16xf16>
  return %r : tensor<2x4096x16xf16>
}

// -----

// One row whose weight's rows lie on 2 bytes (K = 4051): the element kernels
// would read the weight an element at a time, so it is copied into padded
// rows whatever the work (policy::copiesUnalignedOperands); with K = 4052
// (@row above: 8-byte pieces) it is read as it lies.
// CHECK-LABEL: func @row_by_elements
// CHECK: %[[PB:.*]] = tensor.empty() : tensor<1234x4064xf16>
// CHECK: %[[SB:.*]] = tensor.extract_slice %[[PB]][0, 0] [1234, 4051] [1, 1]
// CHECK: %[[B:.*]] = linalg.copy ins(%arg1 : tensor<1234x4051xf16>) outs(%[[SB]] : tensor<1234x4051xf16>)
// CHECK: gpupoor.matmul %{{.*}}, %[[B]]
func.func @row_by_elements(%a: tensor<1x4051xf16>, %b: tensor<1234x4051xf16>) -> tensor<1x1234xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x1234xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x1234xf16>) -> tensor<1x1234xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %b : tensor<1x4051xf16>, tensor<1234x4051xf16>) outs(%f : tensor<1x1234xf16>) -> tensor<1x1234xf16>
  return %c : tensor<1x1234xf16>
}
