// RUN: gpupoor-opt %s -gpupoor-select-kernel-config -convert-gpupoor-to-wgmma | FileCheck %s

// The 192 x 96 x 64 tile (policy::kThreeWarpgroupTile) with B as K x N:
// three consumer warpgroups of 64 rows beside the producer (512 threads),
// each empty barrier expecting three arrivals, the consumers raised to 160
// registers a thread. B's 96 columns are three atoms of 32 (64-byte
// swizzled rows, KernelSpec::bAtomCols): its tensor map's box is 32 columns
// by BK rows; a stage expects A's 192 x 64 and B's 64 x 96 elements (36864
// bytes); each k16 step is an m64n96k16 wgmma whose B descriptor has the
// 64-byte swizzle (mode 2 << 62), 64-byte rows (stride byte offset 8 * 64 /
// 16 = 32 << 32) and its atoms BK * 64 bytes apart (leading byte offset
// 4096 / 16 = 256 << 16): -9223371899399045120 as a signed i64.
// CHECK-LABEL: func.func @kernel
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled
// CHECK: %[[INNER:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT: %[[BOX:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[INNER]], %[[BOX]], %{{.*}})
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in ({{.*}}) threads in (%c512,
// CHECK-SAME: tile = [192, 96, 64]
// CHECK-SAME: warps = [12, 1]
// CHECK-SAME: copies = tma
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.mbarrier.init %{{.*}}, %c3_i32
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c36864_i32
// CHECK: nvvm.setmaxregister increase 160
// CHECK: arith.constant -9223371899399045120 : i64
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 96, k = 16>, D[<f16>, <zero>]
func.func @kernel(%a: memref<1536x1536xf16>, %b: memref<1536x1536xf16>, %c: memref<1536x1536xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1536x1536xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [192, 96, 64], inner = f16, outer = f32, chip = sm_90a>)
      : memref<1536x1536xf16>, memref<1536x1536xf16>
  return
}
