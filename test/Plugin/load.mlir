// REQUIRES: plugins
// RUN: mlir-opt %s --load-dialect-plugin=%gpupoor_libs/GPUPoorPlugin%shlibext | FileCheck %s

// A stock mlir-opt parses and prints gpupoor ops once the plugin is loaded.
// CHECK-LABEL: func @plugin_roundtrip
// CHECK: gpupoor.matmul
func.func @plugin_roundtrip(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>,
                            %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<16x8xf32>)
       strategy(#gpupoor.split_k<tile = [16, 8, 16], inner = f16, outer = f32>)
       : tensor<16x32xf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
