// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=stages=5 | FileCheck %s --check-prefix=FIVE
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="cluster-m=4 column-stores=true" | FileCheck %s --check-prefix=FAMILY
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=cluster-m=4 | FileCheck %s --check-prefix=UNSWAPPED
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="cluster-m=4 blocks-per-sm=2" | FileCheck %s --check-prefix=TWO

// The swapped decode tile of A stored K x M in clusters of four takes 8
// stages, where wgmmaStages gives 6 (policy::clusterStages); stages asked
// for stand.
// CHECK-LABEL: func @swapped_decode_km_stages
// CHECK: stages = 8,
// CHECK-SAME: cluster_m = 4, column_stores = true>) {gpupoor.swapped_operands}
// FIVE-LABEL: func @swapped_decode_km_stages
// FIVE: stages = 5,
// FIVE-SAME: cluster_m = 4, column_stores = true>) {gpupoor.swapped_operands}
// Two blocks an SM (asked for) keep the 4 stages of wgmmaStages: two blocks
// would not fit 8 each.
// TWO-LABEL: func @swapped_decode_km_stages
// TWO: stages = 4,
// TWO-SAME: blocks_per_sm = 2, cluster_m = 4, column_stores = true>) {gpupoor.swapped_operands}
func.func @swapped_decode_km_stages(%a: memref<4096x4096xf16>, %b: memref<4096x32xf16>, %c: memref<4096x32xf16, strided<[1, 4096]>>) {
  gpupoor.matmul %a, %b outs(%c : memref<4096x32xf16, strided<[1, 4096]>>)
      strategy(#gpupoor.split_k<splits = 32, tile = [64, 32, 128], inner = f16, outer = f32, a_layout = km, chip = sm_90a, sets = 4>) {gpupoor.swapped_operands}
      : memref<4096x4096xf16>, memref<4096x32xf16>
  return
}

// -----

// The 8-column tile (the package's s8q) too (whose C^T rows of 8 take no
// column stores).
// CHECK-LABEL: func @swapped_decode_km8_stages
// CHECK: stages = 8,
// CHECK-SAME: cluster_m = 4>) {gpupoor.swapped_operands}
func.func @swapped_decode_km8_stages(%a: memref<4096x4096xf16>, %b: memref<4096x8xf16>, %c: memref<4096x8xf16, strided<[1, 4096]>>) {
  gpupoor.matmul %a, %b outs(%c : memref<4096x8xf16, strided<[1, 4096]>>)
      strategy(#gpupoor.split_k<splits = 32, tile = [64, 8, 128], inner = f16, outer = f32, a_layout = km, chip = sm_90a, sets = 4>) {gpupoor.swapped_operands}
      : memref<4096x4096xf16>, memref<4096x8xf16>
  return
}

// -----

// The same tile unswapped, its narrow B stored K x N, on dynamic shapes: in
// clusters of four it keeps the 6 stages of one block alone, unless column
// stores mark it the transposed product (the package's s16q family, which
// is written unswapped and launched on C^T).
// FAMILY-LABEL: func @narrow_b_dynamic
// FAMILY: stages = 8,
// FAMILY-SAME: cluster_m = 4, column_stores = true>)
// UNSWAPPED-LABEL: func @narrow_b_dynamic
// UNSWAPPED: stages = 6,
// UNSWAPPED-SAME: cluster_m = 4>)
func.func @narrow_b_dynamic(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 32, tile = [64, 16, 128], inner = f16, outer = f32, chip = sm_90a, sets = 4>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
