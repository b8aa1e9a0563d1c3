// Kernel options the generator cannot map, one diagnostic each.
// RUN: gpupoor-opt %s -convert-gpupoor-to-nvgpu=fragment-prefetch=3 -verify-diagnostics -split-input-file
// RUN: not gpupoor-opt %s -convert-gpupoor-to-nvgpu=warps-m=-1 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not gpupoor-opt %s -convert-gpupoor-to-nvgpu=stages=1 2>&1 | FileCheck %s --check-prefix=STAGES

// BK = 32 has two k16 steps: fragments can load at most two steps ahead.
// WARPS: error: 'gpupoor.matmul' op needs at least one warp along M and N, got -1 x 4
// STAGES: error: 'gpupoor.matmul' op the copy pipeline needs at least 2 stages, got 1
func.func @prefetch(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op fragment prefetch of 3 k steps is outside [0, BK/16 = 2]}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
