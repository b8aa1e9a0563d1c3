// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k=strict -verify-diagnostics

// In strict mode every matmul left behind is an error, and eligible ones
// are still rewritten.

func.func @strict_bf16(%a: tensor<16x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{not rewritten to gpupoor.matmul: bf16 operands: mma has no bf16 accumulator}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @strict_mixed(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>, %c: tensor<16x16xi32>,
                        %d: tensor<16x32xf16>, %e: tensor<32x16xf16>) -> (tensor<16x16xi32>, tensor<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x16xf32>) -> tensor<16x16xf32>
  %ok = linalg.matmul ins(%d, %e : tensor<16x32xf16>, tensor<32x16xf16>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{not rewritten to gpupoor.matmul: integer operands ('i8')}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xi8>, tensor<32x16xi8>) outs(%c : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %r, %ok : tensor<16x16xi32>, tensor<16x16xf32>
}
