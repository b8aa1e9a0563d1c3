// RUN: gpupoor-opt %s -gpupoor-select-kernel-config="fragment-prefetch=0" -convert-gpupoor-to-nvgpu | FileCheck %s
// RUN: gpupoor-opt %s -gpupoor-select-kernel-config="fragment-prefetch=1" -convert-gpupoor-to-nvgpu | FileCheck %s
// RUN: gpupoor-opt %s -gpupoor-select-kernel-config="fragment-prefetch=2" -convert-gpupoor-to-nvgpu | FileCheck %s

// Two f16 sums a chunk of K tiles of eight k16 steps (16 x 128 x 128, four
// warps of 16 x 32: four fragments a sum): steps 0, 2, 4, 6 of each tile add
// into sum 0, steps 1, 3, 5, 7 into sum 1, whatever the fragments' prefetch
// distance.
// CHECK-LABEL: gpu.func @gpupoor_matmul_0
// CHECK: scf.for {{.*}} iter_args(%[[S0:[a-z0-9]+]] = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %[[S1:[a-z0-9]+]] = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst{{.*}}) -> ({{(vector<2x2xf16>, ){7}vector<2x2xf16>[,)]}}
// CHECK: %[[A0:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[S0]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[B0:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[S1]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[A1:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A0]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[B1:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[B0]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[A2:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A1]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[B2:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[B1]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[A3:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A2]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[B3:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[B2]]) {mmaShape = [16, 8, 16]}
// CHECK: scf.yield %[[A3]], {{.*}}, %[[B3]],
func.func @decode_two_sets(%a: memref<16x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<16x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<16x4096xf16>)
      strategy(#gpupoor.split_k<splits = 32, tile = [16, 128, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90, sets = 2>)
      : memref<16x4096xf16>, memref<4096x4096xf16>
  return
}
