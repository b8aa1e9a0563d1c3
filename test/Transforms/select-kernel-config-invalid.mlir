// Kernel options out of range, one diagnostic each, before any op is
// looked at; then options in range that do not fit an op's tile: the
// selection checks what it chose, and fails on the op.
// RUN: gpupoor-opt %s -gpupoor-select-kernel-config=fragment-prefetch=3 -verify-diagnostics -split-input-file
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config="warps-n=2 shared-outer-rows=5" 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=warps-m=-1 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=warps-n=4611686018427387904 2>&1 | FileCheck %s --check-prefix=WARPSN
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config="warps-m=8 warps-n=8" 2>&1 | FileCheck %s --check-prefix=THREADS
// A given warp count with a chosen one can still exceed a block:
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=warps-n=32 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=stages=1 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=stages=100000 2>&1 | FileCheck %s --check-prefix=STAGES-BIG
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=group-m=0 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=fragment-prefetch=-1 2>&1 | FileCheck %s --check-prefix=PREFETCH
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=shared-outer-rows=-2 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=index-bitwidth=16 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=mma-handover=yes 2>&1 | FileCheck %s --check-prefix=HANDOVER
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=blocks-per-sm=3 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=persistent=maybe 2>&1 | FileCheck %s --check-prefix=PERSISTENT

// A 2 x 2 warp tile of 128 x 128 has 64 / 16 = 4 rows of m16 tiles.
// SHARED: error: 'gpupoor.matmul' op 5 m16 rows of outer sums in shared memory is outside [0, warp rows / 16 = 4]
// WARPS: error: gpupoor-select-kernel-config: warps-m must be 0 (chosen) or in [1, 32], got -1
// WARPSN: error: gpupoor-select-kernel-config: warps-n must be 0 (chosen) or in [1, 32], got 4611686018427387904
// THREADS: error: gpupoor-select-kernel-config: warps-m x warps-n must be at most 32 warps (1024 threads), got 64
// BLOCK: error: 'gpupoor.matmul' op 2 x 32 warps exceed the 1024 threads a block can have
// STAGES: error: gpupoor-select-kernel-config: stages must be 0 (chosen) or in [2, 32], got 1
// STAGES-BIG: error: gpupoor-select-kernel-config: stages must be 0 (chosen) or in [2, 32], got 100000
// GROUP: error: gpupoor-select-kernel-config: group-m must be in [1, 65536], got 0
// PREFETCH: error: gpupoor-select-kernel-config: fragment-prefetch must be >= 0, got -1
// ROWS: error: gpupoor-select-kernel-config: shared-outer-rows must be -1 (chosen) or in [0, 256], got -2
// WIDTH: error: gpupoor-select-kernel-config: index-bitwidth must be 32 or 64, got 16
// HANDOVER: for the --mma-handover option: Cannot find option named 'yes'!
// BLOCKS: error: gpupoor-select-kernel-config: blocks-per-sm must be 0 (chosen), 1 or 2, got 3
// PERSISTENT: for the --persistent option: Cannot find option named 'maybe'!
// BK = 32 has two k16 steps: fragments can load at most two steps ahead.
func.func @prefetch(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op fragment prefetch of 3 k steps is outside [0, BK/16 = 2]}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// The kernels compute the product as the op states it: a swapped strategy
// must have become the transposed product first.
func.func @swapped(%a: memref<1x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1x4096xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op has a swapped strategy; run gpupoor-swap-operands first}}
  gpupoor.matmul %a, %b outs(%c : memref<1x4096xf16>)
      strategy(#gpupoor.split_k<tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true>)
      : memref<1x4096xf16>, memref<4096x4096xf16>
  return
}
