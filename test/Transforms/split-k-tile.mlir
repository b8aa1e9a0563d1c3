// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90 slices=1" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_80 slices=1" | FileCheck %s --check-prefix=SM80
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90 slices=1 tile=128,128,32" | FileCheck %s --check-prefix=FIXED
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_86 slices=1" -gpupoor-select-kernel-config | FileCheck %s --check-prefix=SM86

// Without a tile option, a static sm_90 matmul of at least 256 tiles of
// 256 x 128 takes that tile with BK = 64; S does not follow BK: K = 4096
// is 128 blocks of 32, sqrt = 11, 16 splits.
// CHECK-LABEL: func @large
// CHECK: strategy(#gpupoor.split_k<splits = 16, tile = [256, 128, 64], inner = f16, outer = f32, chip = sm_90>)
// SM80-LABEL: func @large
// SM80: strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 32], inner = f16, outer = f32>)
// FIXED-LABEL: func @large
// FIXED: strategy(#gpupoor.split_k<splits = 16, tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
func.func @large(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}

// -----

// 2 x 80 = 160 tiles of 256 x 128: too few to fill 132 SMs twice.
// CHECK-LABEL: func @skinny
// CHECK: tile = [128, 128, 32]
func.func @skinny(%a: tensor<512x2048xf16>, %b: tensor<2048x10240xf16>) -> tensor<512x10240xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<512x10240xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<512x10240xf16>) -> tensor<512x10240xf16>
  %r = linalg.matmul ins(%a, %b : tensor<512x2048xf16>, tensor<2048x10240xf16>)
                     outs(%c : tensor<512x10240xf16>) -> tensor<512x10240xf16>
  return %r : tensor<512x10240xf16>
}

// -----

// The batch counts: 2 x (8 x 16) = 256 tiles, exactly the threshold.
// CHECK-LABEL: func @batched
// CHECK: tile = [256, 128, 64]
func.func @batched(%a: tensor<2x2048x1024xf16>, %b: tensor<2x1024x2048xf16>) -> tensor<2x2048x2048xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x2048x2048xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<2x2048x2048xf16>) -> tensor<2x2048x2048xf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x2048x1024xf16>, tensor<2x1024x2048xf16>)
                           outs(%c : tensor<2x2048x2048xf16>) -> tensor<2x2048x2048xf16>
  return %r : tensor<2x2048x2048xf16>
}

// -----

// One batch element of the same shape: 128 tiles.
// CHECK-LABEL: func @unbatched
// CHECK: tile = [128, 128, 32]
func.func @unbatched(%a: tensor<2048x1024xf16>, %b: tensor<1024x2048xf16>) -> tensor<2048x2048xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2048x2048xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<2048x2048xf16>) -> tensor<2048x2048xf16>
  %r = linalg.matmul ins(%a, %b : tensor<2048x1024xf16>, tensor<1024x2048xf16>)
                     outs(%c : tensor<2048x2048xf16>) -> tensor<2048x2048xf16>
  return %r : tensor<2048x2048xf16>
}

// -----

// A dynamic shape may be small: the small tile.
// CHECK-LABEL: func @dynamic
// CHECK: tile = [128, 128, 32]
func.func @dynamic(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %e: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %cst = arith.constant 0.0 : f16
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}

// -----

// A decode product takes BK = 128 where its three stages fit a block's
// shared memory (108 KiB: sm_80's 163, sm_90's 227), BK = 64 on sm_86 and
// sm_89 (99 KiB), whose kernel then verifies (4 stages of 18 KiB).
// CHECK-LABEL: func @decode
// CHECK: tile = [16, 128, 128]
// SM80-LABEL: func @decode
// SM80: tile = [16, 128, 128]
// SM86-LABEL: func @decode
// SM86: strategy(#gpupoor.split_k<splits = 16, tile = [16, 128, 64], inner = f16, outer = f32, chip = sm_86>)
// SM86-SAME: stages = 4
func.func @decode(%a: memref<1x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1x4096xf16>) {
  linalg.matmul ins(%a, %b : memref<1x4096xf16>, memref<4096x4096xf16>)
                outs(%c : memref<1x4096xf16>)
  return
}
