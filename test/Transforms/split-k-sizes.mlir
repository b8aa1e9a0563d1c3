// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a" -verify-diagnostics

// Static sizes past any device's memory are an error before the policy
// chooses (its tile and wave counts would overflow: sm_90a's rules divided
// by zero here), as sizes no kernel can address or launch are (see
// test/Pipelines/cubin-invalid.mlir).
func.func @int64_bytes(%a: tensor<1099511627776x64xf16>, %b: tensor<64x1099511627776xf16>, %c: tensor<1099511627776x1099511627776xf16>) -> tensor<1099511627776x1099511627776xf16> {
  // expected-error @+1 {{operand of type 'tensor<1099511627776x1099511627776xf16>' has more bytes than an int64 counts}}
  %r = linalg.matmul ins(%a, %b : tensor<1099511627776x64xf16>, tensor<64x1099511627776xf16>) outs(%c : tensor<1099511627776x1099511627776xf16>) -> tensor<1099511627776x1099511627776xf16>
  return %r : tensor<1099511627776x1099511627776xf16>
}

// -----

// A of 2^48 + 2^24 elements (2^49 bytes: an int64 counts them).
func.func @past_2_to_48(%a: tensor<16777216x16777217xf16>, %b: tensor<16777217x8xf16>, %c: tensor<16777216x8xf16>) -> tensor<16777216x8xf16> {
  // expected-error @+1 {{has an operand of more than 2^48 elements (batch * M * N, M * K or K * N): more than any device holds}}
  %r = linalg.matmul ins(%a, %b : tensor<16777216x16777217xf16>, tensor<16777217x8xf16>) outs(%c : tensor<16777216x8xf16>) -> tensor<16777216x8xf16>
  return %r : tensor<16777216x8xf16>
}

// -----

// A batch's C of 2^48 + 2^32 elements, each size small.
func.func @batch_past_2_to_48(%a: memref<65537x65536x64xf16>, %b: memref<65537x64x65536xf16>, %c: memref<65537x65536x65536xf16>) {
  // expected-error @+1 {{has an operand of more than 2^48 elements}}
  linalg.batch_matmul ins(%a, %b : memref<65537x65536x64xf16>, memref<65537x64x65536xf16>) outs(%c : memref<65537x65536x65536xf16>)
  return
}

// -----

// C of 2^48 elements: the policy chooses; its tiles exceed a grid.
func.func @grid(%a: tensor<16777216x64xf16>, %b: tensor<64x16777216xf16>, %c: tensor<16777216x16777216xf16>) -> tensor<16777216x16777216xf16> {
  // expected-error @+1 {{more blocks than a grid launches (2147483647)}}
  %r = linalg.matmul ins(%a, %b : tensor<16777216x64xf16>, tensor<64x16777216xf16>) outs(%c : tensor<16777216x16777216xf16>) -> tensor<16777216x16777216xf16>
  return %r : tensor<16777216x16777216xf16>
}
