// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-nvgpu | FileCheck %s

// splits_arg: S is the kernel's last parameter. The emitted host code passes
// the strategy's rule (at most max_splits, 256), the S its grid's slices were
// counted with; the kernel evaluates no rule, and takes at least one chunk
// whatever the launch passes. The rule of a decode tile (16 rows) on sm_90
// takes at least ceil(K / 128) chunks (policy::tileNumSplits).
// CHECK-LABEL: func.func @from_launch
// CHECK: %[[RULE:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[CHUNKS:.*]] = arith.ceildivsi %{{.*}}, %[[C128]] : index
// CHECK-NEXT: %[[CHUNKS64:.*]] = arith.index_cast %[[CHUNKS]] : index to i64
// CHECK-NEXT: %[[RAISED:.*]] = arith.maxsi %[[RULE]], %[[CHUNKS64]] : i64
// CHECK-NEXT: %c256_i64 = arith.constant 256 : i64
// CHECK-NEXT: %[[MAX:.*]] = arith.minsi %[[RAISED]], %c256_i64 : i64
// CHECK: %[[S:.*]] = arith.index_cast %[[MAX]] : i64 to index
// CHECK-NOT: %c256_i64
// CHECK: %[[S32:.*]] = arith.index_cast %[[S]] : index to i32
// CHECK-NEXT: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: %{{.*}} : i64, %[[S32]] : i32)
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: {gpupoor.name = "locks_count"}, %[[ARG:.*]]: i32 {gpupoor.name = "splits"})
// CHECK-NOT: %c12_i64
// CHECK: %[[SPLITS:.*]] = arith.index_cast %[[ARG]] : i32 to index
// CHECK: %[[KT:.*]] = arith.ceildivsi %{{.*}}, %c64 : index
// CHECK: %[[ATLEAST1:.*]] = arith.maxsi %[[SPLITS]], %c1{{.*}} : index
// CHECK: arith.minsi %[[ATLEAST1]], %[[KT]] : index
// CHECK-NOT: %c12_i64
// CHECK: gpu.return
func.func @from_launch(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [16, 128, 64], inner = f16, outer = f32, slices = 0, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [1, 4], stages = 3, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, splits_arg = true>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A strategy that names S keeps it: no parameter.
// CHECK-LABEL: func.func @fixed
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-NOT: "splits"
// CHECK-SAME: {gpupoor.name = "stride_cn"})
func.func @fixed(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [16, 128, 64], inner = f16, outer = f32, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [1, 4], stages = 3, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, splits_arg = true>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
