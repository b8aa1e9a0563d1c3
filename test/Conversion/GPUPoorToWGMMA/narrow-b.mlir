// RUN: gpupoor-opt %s -gpupoor-select-kernel-config -convert-gpupoor-to-wgmma | FileCheck %s

// A decode product of 8 rows whose activation is stored K x M: the swapped
// kernel's B as K x N of 8 columns (policy::kSwappedKM8Tile), one
// unswizzled atom of 16-byte rows. Its tensor map's box is 8 columns by a
// quarter of BK's rows (clusters of four, policy::clusterBlocks); a stage
// expects A's 64 x 128 and B's 128 x 8 elements (18432 bytes); each k16 step
// is an m64n8k16 wgmma whose B descriptor has no swizzle mode, its 8-row
// groups of K 128 bytes apart (leading byte offset 8 << 16) and its groups
// of 8 columns BK * 16 bytes (stride byte offset 128 << 32): 549756338176.
// CHECK-LABEL: func.func @kernel
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled
// CHECK: %[[INNER:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: %[[BOX:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[INNER]], %[[BOX]], %{{.*}})
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: tile = [64, 8, 128]
// CHECK-SAME: cluster_m = 4
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c18432_i32
// CHECK: %[[FIELDS:.*]] = arith.constant 549756338176 : i64
// CHECK-NEXT: arith.ori %{{.*}}, %[[FIELDS]] : i64
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 8, k = 16>, D[<f16>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>] : !llvm.struct<(i32, i32)>
func.func @kernel(%arg0: memref<5120x8xf16>, %arg1: memref<5120x5120xf16>, %arg2: memref<8x5120xf16>) {
  %transpose = memref.transpose %arg2 (d0, d1) -> (d1, d0) : memref<8x5120xf16> to memref<5120x8xf16, strided<[1, 5120]>>
  gpupoor.matmul %arg1, %arg0 outs(%transpose : memref<5120x8xf16, strided<[1, 5120]>>)
      strategy(#gpupoor.split_k<splits = 40, tile = [64, 8, 128], inner = f16, outer = f32, chip = sm_90a, sets = 4>) {gpupoor.swapped_operands}
      : memref<5120x5120xf16>, memref<5120x8xf16>
  return
}
