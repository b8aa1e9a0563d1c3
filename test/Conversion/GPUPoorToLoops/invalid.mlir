// RUN: gpupoor-opt %s -convert-gpupoor-to-loops -verify-diagnostics

func.func @tensor_operands(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'gpupoor.matmul' op has tensor operands; bufferize before convert-gpupoor-to-loops}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<16x8xf32>)
       strategy(#gpupoor.split_k<tile = [16, 8, 16], inner = f16, outer = f32>)
       : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
