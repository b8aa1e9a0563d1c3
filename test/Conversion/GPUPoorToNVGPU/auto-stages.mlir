// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-nvgpu=stages=0 | FileCheck %s

// stages=0 (the gpupoor-to-cubin pipeline's default): 4 stages of BK = 32.
// CHECK-LABEL: func @bk32
// CHECK: gpu.launch_func
// CHECK-SAME: dynamic_shared_memory = 98304 : i64{{.*}}mma_handover = false{{.*}}stages = 4 : i64
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
// CHECK-SAME: block_size = 256 : i64{{.*}}dynamic_shared_memory = 212992 : i64{{.*}}mma_handover = true{{.*}}shared_outer_rows = 2 : i64{{.*}}stages = 3 : i64{{.*}}warps = [4, 2]
func.func @bk64(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [256, 128, 64], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
