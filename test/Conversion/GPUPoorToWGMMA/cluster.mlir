// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true persistent=false cluster-m=2" -convert-gpupoor-to-wgmma | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true persistent=true cluster-m=2" -convert-gpupoor-to-wgmma | FileCheck %s --check-prefix=PERSIST

// cluster_m = 2: blocks in clusters of two along M sharing B's tile. The
// grid takes whole pairs of row tiles (ceil(M / 256) * 2 row tiles); the
// kernel is a 2 x 1 cluster; after the barriers' init every thread of both
// blocks meets at the cluster barrier; each block loads its own A tile and
// half of B's (a box of BN / 2 rows) into both blocks (multicast mask 3),
// its full barrier expecting the whole stage; a consumer releases a stage
// on its own block's empty barrier and on the other block's (mapa).
// CHECK-LABEL: func.func @linear
// CHECK: arith.ceildivsi %{{.*}}, %c256
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: cluster_m = 2
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c32768_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg12, %[[FULL]], box[{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg13, %[[FULL]], box[{{.*}}] multicast_mask = %c3_i16 : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.arrive %[[EMPTY:.*]] : !llvm.ptr<3>
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %[[EMPTY]], %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
// Persistent pairs: the grid is the pairs' blocks, at most the SMs (132,
// even); a pair loops over pairs of work tiles; before it returns, the
// producer waits for both blocks' releases of its last stages.
// PERSIST-LABEL: func.func @linear
// PERSIST: %[[GRID:.*]] = arith.minsi %{{.*}}, %c132 : index
// PERSIST: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%[[GRID]],
// PERSIST: gpu.func @gpupoor_matmul_0(
// PERSIST-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// PERSIST: nvvm.cluster.arrive
// PERSIST: multicast_mask = %c3_i16
// The drain: ring positions [max(0, loads - stages), loads), loads the
// pair's work tiles (whole pairs of row tiles) over the grid, times the
// K tiles of one.
// PERSIST: %[[PAIRS:.*]] = arith.divui %{{.*}}, %c2{{.*}} : index
// PERSIST: %[[ROWS:.*]] = arith.muli %[[PAIRS]], %c2{{.*}} : index
// PERSIST: gpu.grid_dim  x
// PERSIST: %[[LOADS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// PERSIST: %[[BACK:.*]] = arith.subi %[[LOADS]], %c6 : index
// PERSIST: %[[FROM:.*]] = arith.maxsi %{{.*}}, %[[BACK]] : index
// PERSIST: scf.for %{{.*}} = %[[FROM]] to %[[LOADS]]
// PERSIST: nvvm.mbarrier.try_wait.parity
// PERSIST-NEXT: }
// PERSIST-NEXT: }
// PERSIST-NEXT: gpu.return
func.func @linear(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, slices = 1, chip = sm_90a, b_layout = nk>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A grid of 64-row tiles beyond the SMs would take two blocks an SM; asked
// for clusters, the selection keeps one (a cluster's blocks take an SM
// each).
// CHECK-LABEL: func.func @static_m64
// CHECK: gpu.func @gpupoor_matmul_{{[0-9]+}}(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
func.func @static_m64(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<4096x4096xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, slices = 1, chip = sm_90a, b_layout = nk>)
      : memref<4096x4096xf16>, memref<4096x4096xf16>
  return
}

// -----

// B as K x N: its tile is BN / 64 atoms of 64 columns, BK rows each; a
// block loads half the rows of each (two boxes of BK / 2 rows) into both
// blocks. wgmma reads B's two atoms through the descriptor's leading byte
// offset: the start address takes the shared address's low 18 bits.
// The host code encodes B's map in those boxes: 64 columns by BK / 2 = 32
// rows (KernelSpec::bBoxRows), as the manifest does.
// CHECK-LABEL: func.func @kn
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled
// CHECK: %[[INNER:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: %[[BOX:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT: %[[PROMOTE:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: llvm.call @gpupoorTensorMapEncodeTiled(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[INNER]], %[[BOX]], %[[PROMOTE]])
// CHECK: gpu.func @gpupoor_matmul_{{[0-9]+}}(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg12, %[[FULL:.*]], box[{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg13, %[[FULL]], box[{{.*}}] multicast_mask = %c3_i16
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: arith.remui %{{.*}}, %c262144 : index
// CHECK: nvvm.wgmma
func.func @kn(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, slices = 1, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
