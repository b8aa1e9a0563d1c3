// RUN: gpupoor-opt %s -gpupoor-select-kernel-config -convert-gpupoor-to-wgmma | FileCheck %s

// A decode product's activation stored K x M, the swapped kernel's B (16
// columns read along N): clusters of four along M (policy::clusterBlocks).
// The grid takes whole clusters of row tiles (ceil(M / 256) * 4); the
// kernel is a 4 x 1 cluster; each block loads its own A tile (one box of
// 64 columns by BK rows: A as K x M) and a quarter
// of B's rows (a box of BK / 4 = 32 rows of 16 columns, the 32-byte
// swizzle) into all four blocks (multicast mask 15), its full barrier
// expecting the whole stage; a consumer releases a stage on its own
// block's empty barrier and on the other three blocks' (rank ^ 1, 2, 3).
// CHECK-LABEL: func.func @kernel
// CHECK: arith.ceildivsi %{{.*}}, %c256
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled
// CHECK: %[[INNER:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: %[[BOX:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[INNER]], %[[BOX]], %{{.*}})
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: cluster_m = 4
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 4, 1, 1>
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c20480_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg12, %[[FULL]], box[{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg13, %[[FULL]], box[{{.*}}] multicast_mask = %c15_i16 : !llvm.ptr<7>, !llvm.ptr
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive %[[EMPTY:.*]] : !llvm.ptr<3>
// CHECK: %[[R1:.*]] = arith.xori %[[RANK:.*]], %c1_i32
// CHECK: %[[M1:.*]] = nvvm.mapa %[[EMPTY]], %[[R1]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[M1]] : !llvm.ptr<7>
// CHECK: %[[R2:.*]] = arith.xori %[[RANK]], %c2_i32
// CHECK: %[[M2:.*]] = nvvm.mapa %[[EMPTY]], %[[R2]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[M2]] : !llvm.ptr<7>
// CHECK: %[[R3:.*]] = arith.xori %[[RANK]], %c3_i32
// CHECK: %[[M3:.*]] = nvvm.mapa %[[EMPTY]], %[[R3]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[M3]] : !llvm.ptr<7>
func.func @kernel(%arg0: memref<5120x16xf16>, %arg1: memref<5120x5120xf16>, %arg2: memref<16x5120xf16>) {
  %transpose = memref.transpose %arg2 (d0, d1) -> (d1, d0) : memref<16x5120xf16> to memref<5120x16xf16, strided<[1, 5120]>>
  gpupoor.matmul %arg1, %arg0 outs(%transpose : memref<5120x16xf16, strided<[1, 5120]>>)
      strategy(#gpupoor.split_k<splits = 40, tile = [64, 16, 128], inner = f16, outer = f32, a_layout = km, chip = sm_90a, sets = 4>) {gpupoor.swapped_operands}
      : memref<5120x5120xf16>, memref<5120x16xf16>
  return
}
