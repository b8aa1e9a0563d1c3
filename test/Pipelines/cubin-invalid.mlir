// RUN: gpupoor-opt %s -split-input-file --gpupoor-to-cubin="chip=sm_80 cubin-format=isa" -verify-diagnostics

// Static sizes beyond what an int64 counts, or whose tiles exceed a grid: a
// compile-time error, not a guarded launch that folds away (and a program
// that returns C unwritten).
func.func @size_overflow(%a: tensor<1099511627776x64xf16>, %b: tensor<64x1099511627776xf16>) -> tensor<1099511627776x1099511627776xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1099511627776x1099511627776xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<1099511627776x1099511627776xf16>) -> tensor<1099511627776x1099511627776xf16>
  // expected-error @+1 {{operand of type 'tensor<1099511627776x1099511627776xf16>' has more bytes than an int64 counts}}
  %r = linalg.matmul ins(%a, %b : tensor<1099511627776x64xf16>, tensor<64x1099511627776xf16>) outs(%c : tensor<1099511627776x1099511627776xf16>) -> tensor<1099511627776x1099511627776xf16>
  return %r : tensor<1099511627776x1099511627776xf16>
}

// -----

func.func @grid_overflow(%a: tensor<16777216x64xf16>, %b: tensor<64x16777216xf16>) -> tensor<16777216x16777216xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16777216x16777216xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<16777216x16777216xf16>) -> tensor<16777216x16777216xf16>
  // expected-error @+1 {{tiles of 128 x 128, more blocks than a grid launches (2147483647)}}
  %r = linalg.matmul ins(%a, %b : tensor<16777216x64xf16>, tensor<64x16777216xf16>) outs(%c : tensor<16777216x16777216xf16>) -> tensor<16777216x16777216xf16>
  return %r : tensor<16777216x16777216xf16>
}

// -----

// The same with rows off 16 bytes (K = 63), which the pattern
// would copy into padded rows: it checks the sizes before it changes any
// IR (a pattern that changed the op and failed was retried without end).
func.func @grid_overflow_unaligned(%a: tensor<16777216x63xf16>, %b: tensor<16777216x63xf16>) -> tensor<16777216x16777216xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16777216x16777216xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<16777216x16777216xf16>) -> tensor<16777216x16777216xf16>
  // expected-error @+1 {{more blocks than a grid launches (2147483647)}}
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<16777216x63xf16>, tensor<16777216x63xf16>) outs(%c : tensor<16777216x16777216xf16>) -> tensor<16777216x16777216xf16>
  return %r : tensor<16777216x16777216xf16>
}

// -----

// An elementwise op left on device buffers becomes a kernel; integers wider
// than 64 bits would abort the NVPTX backend.
func.func @wide_integer_kernel(%x: memref<64xf16>, %y: memref<64xi128>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<64xf16>) outs(%y : memref<64xi128>) {
  ^bb0(%v: f16, %o: i128):
    // expected-error @+1 {{'arith.fptosi' op computes with integers wider than 64 bits, which device code cannot (the NVPTX backend has no libcalls for them)}}
    %i = arith.fptosi %v : f16 to i128
    linalg.yield %i : i128
  }
  return
}
