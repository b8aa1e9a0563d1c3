// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="fragment-prefetch=0 shared-outer-rows=4 stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s

// Every outer sum in shared memory and no prefetched fragments: the chunk
// loop carries nothing, and each chunk end adds its f16 sums into the
// slots (4 m16 rows x 8 n8 tiles = 32 slots of 4 f32 for each of 128
// threads, 64 KiB, after 3 stages of 16 KiB).
// CHECK-LABEL: func @all_shared
// CHECK: dynamic_shared_memory_size %c114688_i32
// CHECK-SAME: #gpupoor.kernel<{{.*}}shared_outer_rows = 4,
// CHECK: gpu.func @gpupoor_matmul_0
// CHECK-COUNT-32: vector.store %{{.*}} : memref<16384xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for {{.*}} -> (vector<2x2xf16>,
// CHECK: nvgpu.mma.sync
// CHECK-COUNT-32: arith.addf %{{.*}} : vector<2x2xf32>
// CHECK: vector.store {{.*}}vector<4xf32>{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
func.func @all_shared(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
