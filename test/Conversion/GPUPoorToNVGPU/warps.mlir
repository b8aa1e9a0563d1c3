// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=stages=4 -convert-gpupoor-to-nvgpu | FileCheck %s

// The default warp layout: 2 x 2 warps (64 x 64 warp tiles) where two
// blocks fit an SM's shared memory, 2 x 4 otherwise; half of the f32 outer
// sums of 64 x 64 warp tiles live in shared memory.

// sm_90, f32 outer sums: 4 x 16 KiB stages + 32 KiB of outer sums; two
// blocks fit in 228 KiB.
// CHECK-LABEL: func @f32_sm90
// CHECK: gpu.launch_func
// CHECK-SAME: threads in (%c128{{.*}}dynamic_shared_memory_size %c98304_i32
// CHECK-SAME: #gpupoor.kernel<{{.*}}warps = [2, 2],{{.*}}shared_outer_rows = 2,
func.func @f32_sm90(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// sm_80 has 164 KiB: two such blocks do not fit; 2 x 4 warps keep all
// sums in registers.
// CHECK-LABEL: func @f32_sm80
// CHECK: gpu.launch_func
// CHECK-SAME: threads in (%c256{{.*}}dynamic_shared_memory_size %c65536_i32
// CHECK-SAME: #gpupoor.kernel<{{.*}}warps = [2, 4],{{.*}}shared_outer_rows = 0,
func.func @f32_sm80(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_80>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// f16 outer sums need no shared memory beyond the stages: two 64 KiB
// blocks fit sm_80's 164 KiB ...
// CHECK-LABEL: func @f16_sm80
// CHECK: gpu.launch_func
// CHECK-SAME: threads in (%c128{{.*}}dynamic_shared_memory_size %c65536_i32
// CHECK-SAME: #gpupoor.kernel<{{.*}}warps = [2, 2],{{.*}}shared_outer_rows = 0,
func.func @f16_sm80(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f16, chip = sm_80>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// ... but not sm_89's 100 KiB.
// CHECK-LABEL: func @f16_sm89
// CHECK: gpu.launch_func
// CHECK-SAME: threads in (%c256
// CHECK-SAME: #gpupoor.kernel<{{.*}}warps = [2, 4],
func.func @f16_sm89(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f16, chip = sm_89>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A tile of eight 64 x 64 warp tiles (the split-k pass's pick for large
// static shapes on sm_90) runs as 4 x 2 warps, one block an SM.
// CHECK-LABEL: func @f16_256x128
// CHECK: gpu.launch_func
// CHECK-SAME: threads in (%c256{{.*}}dynamic_shared_memory_size %c196608_i32
// CHECK-SAME: #gpupoor.kernel<{{.*}}warps = [4, 2],{{.*}}shared_outer_rows = 0,
func.func @f16_256x128(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [256, 128, 64], inner = f16, outer = f16, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// CHECK-LABEL: func @f16_128x256
// CHECK: gpu.launch_func
// CHECK-SAME: threads in (%c256
// CHECK-SAME: #gpupoor.kernel<{{.*}}warps = [2, 4],
func.func @f16_128x256(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 32], inner = f16, outer = f16, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
