// RUN: gpupoor-opt %s -gpupoor-select-kernel-config | FileCheck %s
// RUN: gpupoor-opt %s -gpupoor-select-kernel-config=stages=12 | FileCheck %s --check-prefix=ASKED

// The transposed product's 64 x 64 tile in clusters of four keeps 8 stages
// where 12 fit 192 KiB (policy::clusterStages); stages asked for stand.
// CHECK-LABEL: func @swapped_fill_km_stages
// CHECK: stages = 8,
// CHECK-SAME: cluster_m = 4, column_stores = true>) {gpupoor.swapped_operands}
// ASKED-LABEL: func @swapped_fill_km_stages
// ASKED: stages = 12,
// ASKED-SAME: cluster_m = 4, column_stores = true>) {gpupoor.swapped_operands}
func.func @swapped_fill_km_stages(%a: memref<3560x1224xf16>, %b: memref<3560x352xf16>, %c: memref<1224x352xf16, strided<[1, 1224]>>) {
  gpupoor.matmul %a, %b outs(%c : memref<1224x352xf16, strided<[1, 1224]>>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 64, 64], inner = f16, outer = f32, a_layout = km, chip = sm_90a>) {gpupoor.swapped_operands}
      : memref<3560x1224xf16>, memref<3560x352xf16>
  return
}
