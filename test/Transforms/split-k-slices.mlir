// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="slices=4" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="slices=1" | FileCheck %s --check-prefix=SEQ
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k | FileCheck %s --check-prefix=AUTO

// With a static K the rule gives S = 2 (K = 256, BK = 64 for M = 64): the
// strategy states P' = min(4, 2) = 2 slices.
// CHECK-LABEL: func.func @static_k
// CHECK: #gpupoor.split_k<splits = 2, tile = [64, 128, 64], inner = f16, outer = f32, slices = 2>
// One slice is the sequential mode, not printed.
// SEQ-LABEL: func.func @static_k
// SEQ-NOT: slices
// The default (slices = 0) chooses P' from the shape and the SMs: the one
// 64 x 128 tile takes both of S = 2's slices (a dynamic K leaves it to the
// host code: slices = 0).
// AUTO-LABEL: func.func @static_k
// AUTO: #gpupoor.split_k<splits = 2, tile = [64, 128, 64], inner = f16, outer = f32, slices = 2>
// AUTO-LABEL: func.func @dynamic_k
// AUTO: #gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, slices = 0>
func.func @static_k(%a: tensor<64x256xf16>, %b: tensor<256x64xf16>) -> tensor<64x64xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x64xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %r = linalg.matmul ins(%a, %b : tensor<64x256xf16>, tensor<256x64xf16>) outs(%f : tensor<64x64xf16>) -> tensor<64x64xf16>
  return %r : tensor<64x64xf16>
}

// -----

// A dynamic K leaves S to run time, and P with it (P' = min(P, S) there).
// CHECK-LABEL: func.func @dynamic_k
// CHECK: #gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, slices = 4>
func.func @dynamic_k(%a: tensor<64x?xf16>, %b: tensor<?x64xf16>) -> tensor<64x64xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x64xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %r = linalg.matmul ins(%a, %b : tensor<64x?xf16>, tensor<?x64xf16>) outs(%f : tensor<64x64xf16>) -> tensor<64x64xf16>
  return %r : tensor<64x64xf16>
}
