// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config -convert-gpupoor-to-nvgpu | FileCheck %s

// Four f16 sums a chunk on the mma.sync kernel (sets = 4): the 16 x 128
// decode tile's four warps of 16 x 32 carry four sums of four m16 x n8
// fragments each through the K tile loop; k16 step j of a tile (BK = 64,
// four steps) adds into sum j, and at the chunk's end the sums enter the
// f32 outer sums in turn, sum 0 first (the numerics model's order).
// CHECK-LABEL: gpu.func @gpupoor_matmul_0
// CHECK: scf.for {{.*}} iter_args(%[[O0:[a-z0-9]+]] = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<4x2xf16>, vector<4x2xf16>, vector<4x2xf16>) {
// CHECK: scf.for {{.*}} iter_args(%[[S0:[a-z0-9]+]] = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %[[S1:[a-z0-9]+]] = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %[[S2:[a-z0-9]+]] = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %[[S3:[a-z0-9]+]] = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{.*}}) -> ({{(vector<2x2xf16>, ){16}[v]}}ector<4x2xf16>, vector<4x2xf16>, vector<4x2xf16>) {
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[S0]]) {mmaShape = [16, 8, 16]}
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[S1]]) {mmaShape = [16, 8, 16]}
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[S2]]) {mmaShape = [16, 8, 16]}
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[S3]]) {mmaShape = [16, 8, 16]}
// CHECK: scf.yield {{(%[0-9]+, ){16}[%]}}
// The chunk's last tile, then the handover: the first outer sum takes its
// fragment of sum 0, then of sums 1, 2 and 3.
// CHECK: %[[L:[0-9]+]]:19 = scf.for
// CHECK: %[[F0:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[L]]#0)
// CHECK: %[[F1:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[L]]#4)
// CHECK: %[[F2:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[L]]#8)
// CHECK: %[[F3:[0-9]+]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[L]]#12)
// CHECK: %[[E0:[0-9]+]] = arith.extf %[[F0]] : vector<2x2xf16> to vector<2x2xf32>
// CHECK-NEXT: %[[H0:[0-9]+]] = arith.addf %[[O0]], %[[E0]]
// CHECK: %[[E1:[0-9]+]] = arith.extf %[[F1]]
// CHECK-NEXT: %[[H1:[0-9]+]] = arith.addf %[[H0]], %[[E1]]
// CHECK: %[[E2:[0-9]+]] = arith.extf %[[F2]]
// CHECK-NEXT: %[[H2:[0-9]+]] = arith.addf %[[H1]], %[[E2]]
// CHECK: %[[E3:[0-9]+]] = arith.extf %[[F3]]
// CHECK-NEXT: arith.addf %[[H2]], %[[E3]]
func.func @decode_sets(%a: memref<16x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<16x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<16x4096xf16>)
      strategy(#gpupoor.split_k<splits = 32, tile = [16, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90, sets = 4>)
      : memref<16x4096xf16>, memref<4096x4096xf16>
  return
}
