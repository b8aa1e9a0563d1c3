// Kernel options that do not fit the kernel, one diagnostic each: the
// selection checks what it chose, and fails.
// RUN: gpupoor-opt %s -gpupoor-select-kernel-config=fragment-prefetch=3 -verify-diagnostics -split-input-file
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config="warps-m=-1 stages=3" 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=stages=1 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config="warps-n=2 shared-outer-rows=5" 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=group-m=0 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=index-bitwidth=16 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=mma-handover=yes 2>&1 | FileCheck %s --check-prefix=HANDOVER

// BK = 32 has two k16 steps: fragments can load at most two steps ahead.
// WARPS: error: 'gpupoor.matmul' op needs at least one warp along M and N, got -1 x 2
// A 2 x 2 warp tile of 128 x 128 has 64 / 16 = 4 rows of m16 tiles.
// SHARED: error: 'gpupoor.matmul' op 5 m16 rows of outer sums in shared memory is outside [0, warp rows / 16 = 4]
// STAGES: error: 'gpupoor.matmul' op the copy pipeline needs at least 2 stages, got 1
// GROUP: error: 'gpupoor.matmul' op the grouped block order needs group-m >= 1, got 0
// WIDTH: error: gpupoor-select-kernel-config: index-bitwidth must be 32 or 64, got 16
// HANDOVER: for the --mma-handover option: Cannot find option named 'yes'!
func.func @prefetch(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op fragment prefetch of 3 k steps is outside [0, BK/16 = 2]}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
