// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=stages=2 -convert-gpupoor-to-nvgpu | FileCheck %s

// The shared-memory epilogue needs the stages to hold 16 rows of every
// warp's tile at once; otherwise it falls back to stores from the fragments.

// With two stages of a 64 x 64 x 16 tile (8 KiB) not even 16 rows of each
// warp's 32 + 8 floats (4 x 2560 bytes) fit: the epilogue stores straight
// from the fragments, and the launch says so.
// CHECK-LABEL: func @small_stages
// CHECK: #gpupoor.kernel<{{.*}}epilogue_passes = 0,
// CHECK: gpu.func @gpupoor_matmul_0
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<?x?xf32, strided<[?, 1]>, 1>, vector<2xf32>
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK: gpu.return
func.func @small_stages(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf32>)
      strategy(#gpupoor.split_k<tile = [64, 64, 16], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// The same tile with f16 C: 16 rows of 32 + 8 halves a warp (4 x 1280
// bytes) fit the 8 KiB, in two passes of one m16 row each.
// CHECK-LABEL: func @small_stages_f16
// CHECK: #gpupoor.kernel<{{.*}}epilogue_passes = {{[1-9]}},
// CHECK: gpu.func @gpupoor_matmul_0
// CHECK: memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2560xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.bar.warp.sync
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<8xf16>
// CHECK: nvvm.bar.warp.sync
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<8xf16>
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK: gpu.return
func.func @small_stages_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 64, 16], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
