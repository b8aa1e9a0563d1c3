// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="slices=0 chip=sm_90" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="slices=0 chip=sm_80" | FileCheck %s --check-prefix=SM80

// slices = 0 chooses P' from a static shape: the most slices that keep the
// C tiles within one wave of two blocks an SM (132 SMs on sm_90, 108 on
// sm_80), at most S. Decode: M = 1 takes the 16 x 128 x 128 tile; N = 4096
// makes 32 tiles, floor(264 / 32) = 8 = S (K = 4096: 32 blocks, S = 8).
// CHECK-LABEL: func.func @decode
// CHECK: #gpupoor.split_k<splits = 8, tile = [16, 128, 128], inner = f16, outer = f32, slices = 8, chip = sm_90>
// floor(216 / 32) = 6 on sm_80.
// SM80-LABEL: func.func @decode
// SM80: #gpupoor.split_k<splits = 8, tile = [16, 128, 128], inner = f16, outer = f32, slices = 6>
func.func @decode(%a: tensor<1x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf16>, tensor<4096x4096xf16>) outs(%f : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}

// -----

// N = 14336: 112 tiles, floor(264 / 112) = 2 slices; on sm_80
// floor(216 / 112) = 1, the sequential kernel (not printed).
// CHECK-LABEL: func.func @wide_n
// CHECK: #gpupoor.split_k<splits = 8, tile = [16, 128, 128], inner = f16, outer = f32, slices = 2, chip = sm_90>
// SM80-LABEL: func.func @wide_n
// SM80: #gpupoor.split_k<splits = 8, tile = [16, 128, 128], inner = f16, outer = f32>
func.func @wide_n(%a: tensor<1x4096xf16>, %b: tensor<4096x14336xf16>) -> tensor<1x14336xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x14336xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x14336xf16>) -> tensor<1x14336xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf16>, tensor<4096x14336xf16>) outs(%f : tensor<1x14336xf16>) -> tensor<1x14336xf16>
  return %r : tensor<1x14336xf16>
}

// -----

// A product that fills the chip keeps one slice; a batch counts its tiles:
// 16 x 2 x 2 = 64 tiles of 128 x 128, floor(264 / 64) = 4 slices.
// CHECK-LABEL: func.func @large
// CHECK: #gpupoor.split_k<splits = 8, tile = [256, 128, 64], inner = f16, outer = f32, chip = sm_90>
// CHECK-LABEL: func.func @batched
// CHECK: #gpupoor.split_k<splits = 8, tile = [128, 128, 32], inner = f16, outer = f32, slices = 4, chip = sm_90>
func.func @large(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}
func.func @batched(%a: tensor<16x256x2048xf16>, %b: tensor<16x2048x256xf16>, %c: tensor<16x256x256xf16>) -> tensor<16x256x256xf16> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<16x256x2048xf16>, tensor<16x2048x256xf16>) outs(%c : tensor<16x256x256xf16>) -> tensor<16x256x256xf16>
  return %r : tensor<16x256x256xf16>
}

// -----

// A dynamic shape leaves P = 0: the host code computes P' at run time by
// the same rule. A gpupoor.slices attribute overrides the option.
// CHECK-LABEL: func.func @dynamic
// CHECK: #gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, slices = 0, chip = sm_90>
// CHECK: #gpupoor.split_k<splits = 8, tile = [16, 128, 128], inner = f16, outer = f32, slices = 3, chip = sm_90>
func.func @dynamic(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf16>,
                   %x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>, %y: tensor<1x4096xf16>) -> (tensor<?x?xf16>, tensor<1x4096xf16>) {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  %s = linalg.matmul {gpupoor.slices = 3 : i64} ins(%x, %w : tensor<1x4096xf16>, tensor<4096x4096xf16>) outs(%y : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r, %s : tensor<?x?xf16>, tensor<1x4096xf16>
}
