// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true splits-arg=true" -convert-gpupoor-to-wgmma | FileCheck %s

// The TMA kernel and its fallbacks take S after the tensor maps; each
// launch passes the host's S (the rule's, cast to the kernel's index).
// CHECK-LABEL: func.func @tma
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i32)
// CHECK: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements
// CHECK-SAME: : i64, %{{.*}} : i32)
// CHECK: gpu.launch_func @gpupoor_matmul_0_i64_module::@gpupoor_matmul_0_i64
// CHECK-SAME: : i64)
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: {gpupoor.name = "a_desc"}, %{{.*}}: !llvm.ptr {gpupoor.name = "b_desc"}, %{{.*}}: i32 {gpupoor.name = "splits"})
// CHECK-NOT: %c12_i64
// CHECK: gpu.func @gpupoor_matmul_0_elements(
// CHECK-SAME: %{{.*}}: i32 {gpupoor.name = "splits"})
// CHECK: gpu.func @gpupoor_matmul_0_i64(
// CHECK-SAME: %{{.*}}: i64 {gpupoor.name = "splits"})
func.func @tma(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, slices = 0, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// The host's S for the 128 x 256 tile on sm_90a: gpu_poor's rule raised to
// ceil(K / 256) chunks (policy::longestChunk, kWideTileChunk), so a chunk
// never sums more than 256 f16 products whatever K is; then clamped to
// max_splits.
// CHECK-LABEL: func.func @wide_tile_chunks
// CHECK: %[[RULE:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[CHUNKS:.*]] = arith.ceildivsi %{{.*}}, %[[C256]] : index
// CHECK-NEXT: %[[CHUNKS64:.*]] = arith.index_cast %[[CHUNKS]] : index to i64
// CHECK-NEXT: %[[RAISED:.*]] = arith.maxsi %[[RULE]], %[[CHUNKS64]] : i64
// CHECK-NEXT: %[[MAXS:.*]] = arith.constant 256 : i64
// CHECK-NEXT: arith.minsi %[[RAISED]], %[[MAXS]] : i64
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
func.func @wide_tile_chunks(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, slices = 0, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// The 128 x 128 tile has no longest chunk: the host's S is gpu_poor's rule,
// clamped, with no ceil(K / chunk) raise.
// CHECK-LABEL: func.func @rule_tile_chunks
// CHECK: %[[RULE:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[MAXS:.*]] = arith.constant 256 : i64
// CHECK-NEXT: arith.minsi %[[RULE]], %[[MAXS]] : i64
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
func.func @rule_tile_chunks(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, slices = 0, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
