// RUN: gpupoor-opt %s -gpupoor-select-kernel-config="tma=true cluster-m=2" -convert-gpupoor-to-wgmma | FileCheck %s

// Clusters of two along M: the grid takes whole clusters of row tiles
// (ceil(M / 256) * 256 rows), while the automatic slice count counts the
// product's tiles, ceil(M / 128) * ceil(N / 128), as policy::launchSlices
// does for the package, so that both launch the same P'.
// CHECK-LABEL: func @clustered
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[B:.*]]: memref<?x?xf16>, %[[C:.*]]: memref<?x?xf16>)
// CHECK: %[[PAIRS:.*]] = arith.ceildivsi %[[M:.*]], %c256{{.*}} : index
// CHECK: %[[ROWS:.*]] = arith.muli %[[PAIRS]], %c256{{.*}} : index
// CHECK: %[[GRIDM:.*]] = arith.ceildivsi %[[ROWS]], %c128{{.*}} : index
// CHECK: %[[GRIDN:.*]] = arith.ceildivsi %[[N:.*]], %c128{{.*}} : index
// CHECK: %[[GRID:.*]] = arith.muli %[[GRIDM]], %[[GRIDN]] : index
// CHECK: %[[TM:.*]] = arith.ceildivsi %[[M]], %c128{{.*}} : index
// CHECK: %[[TN:.*]] = arith.ceildivsi %[[N]], %c128{{.*}} : index
// CHECK: %[[T:.*]] = arith.muli %[[TM]], %[[TN]] : index
// CHECK: %[[T1:.*]] = arith.maxsi %[[T]], %c1{{.*}} : index
// CHECK: arith.divsi %c132{{.*}}, %[[T1]] : index
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%[[GRID]],
func.func @clustered(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 0, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
