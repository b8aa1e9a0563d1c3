// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=stages=0 -convert-gpupoor-to-nvgpu | FileCheck %s

// stages=0 (the gpupoor-to-cubin pipeline's default): 4 stages of BK = 32.
// CHECK-LABEL: func @bk32
// CHECK: gpu.launch_func
// CHECK-SAME: dynamic_shared_memory_size %c98304_i32
// CHECK-SAME: #gpupoor.kernel<{{.*}}stages = 4,{{.*}}handover = convert,
func.func @bk32(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// 3 of BK = 64: 3 x 48 KiB of stages and half of the f32 outer sums of
// eight 64 x 64 warp tiles (64 KiB) fit the 227 KiB a block may have; 4
// stages would not. mma-handover=auto adds those f32 sums on the tensor
// cores for eight warps (not for the 2 x 2 above).
// CHECK-LABEL: func @bk64
// CHECK: gpu.launch_func
// CHECK-SAME: threads in (%c256{{.*}}dynamic_shared_memory_size %c212992_i32
// CHECK-SAME: #gpupoor.kernel<{{.*}}warps = [4, 2],{{.*}}stages = 3,{{.*}}shared_outer_rows = 2,{{.*}}handover = mma,
func.func @bk64(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [256, 128, 64], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
