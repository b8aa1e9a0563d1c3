// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true persistent=true stream-k=true" -convert-gpupoor-to-wgmma | FileCheck %s

// Stream-K (StreamK.h): the persistent blocks share the R = T mod G tiles
// past the whole waves among G' = min(G, 4 R) blocks, by chunks. The
// consumers check the workspace for G' slots before any tile (a trap), then
// run one loop over the block's units: a piece that ends before its tile's
// last chunk writes its f32 sums to the block's slot (16-byte vectors at
// slot * BM * BN) and raises the block's flag behind a fence and the
// consumers' barrier; the tile's last piece, for each earlier block of the
// tile (from the one holding the tile's first chunk up to this one), spins
// on the flag with atomic reads, fences, lowers it, and after the barrier
// adds the slot's sums to its own; then the epilogue.
// CHECK-LABEL: func.func @stream_k
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: !llvm.ptr<1>, %{{.*}} : i64, %{{.*}} : !llvm.ptr<1>, %{{.*}} : i64, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)
// CHECK-SAME: persistent = true, stream_k = true
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: %[[G:.*]] = gpu.grid_dim x
// CHECK: %[[R:.*]] = arith.remui %{{.*}}, %[[G]] : index
// CHECK: %[[R4:.*]] = arith.muli %[[R]], %c4 : index
// CHECK: arith.minsi %[[G]], %[[R4]] : index
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: nvvm.setmaxregister  increase 240
// CHECK: llvm.intr.trap
// CHECK: scf.for
// CHECK: nvvm.wgmma.mma_async
// A shared piece that ends before the tile's last chunk leaves its sums.
// CHECK: %[[ENDS:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[LEAVES:.*]] = arith.andi %{{.*}}, %[[ENDS]] : i1
// CHECK-NEXT: scf.if %[[LEAVES]] {
// CHECK: vector.store %{{.*}}, %[[SUMS:.*]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32, 1>, vector<4xf32>
// CHECK-COUNT-31: vector.store %{{.*}}, %[[SUMS]]
// CHECK-NEXT: %[[J:.*]] = gpu.block_id x
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: memref.atomic_rmw assign %{{.*}}, %[[FLAGS:.*]][%[[J]]] : (i32, memref<?xi32, 1>) -> i32
// CHECK: } else {
// CHECK-NOT: memref.atomic_rmw assign
// CHECK: %[[ME:.*]] = gpu.block_id x
// The tile's first block: ceil((tileStart + 1) G' / R C) - 1.
// CHECK: %[[CEIL:.*]] = arith.divui %{{.*}}, %{{.*}} : i64
// CHECK: %[[CEILX:.*]] = arith.index_cast %[[CEIL]] : i64 to index
// CHECK: %[[FIRST:.*]] = arith.subi %[[CEILX]], %c1{{.*}} : index
// CHECK: scf.for %[[PEER:.*]] = %[[FIRST]] to %[[ME]] step
// A peer with an empty run has no piece.
// CHECK: %[[SOME:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %{{.*}}:32 = scf.if %[[SOME]] -> (vector<2x2xf32>
// CHECK: scf.while : () -> () {
// CHECK-NEXT: %[[F:.*]] = memref.atomic_rmw ori %[[ZERO:c0_i32[_0-9]*]], %[[FLAGS]][%[[PEER]]]
// CHECK-NEXT: %[[DOWN:.*]] = arith.cmpi eq, %[[F]], %[[ZERO]] : i32
// CHECK-NEXT: scf.condition(%[[DOWN]])
// CHECK: nvvm.memory.barrier <gpu>
// CHECK-NEXT: memref.store %{{c0_i32[_0-9]*}}, %[[FLAGS]][%[[PEER]]]
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: vector.load %[[SUMS]]
// CHECK: arith.addf
// CHECK: gpu.return
func.func @stream_k(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// f16 outer sums stay whole tiles (the pieces meet in f32): neither the
// option nor the workspace.
// CHECK-LABEL: func.func @f16_outer
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-NOT: stream_k
// CHECK: gpu.module @gpupoor_matmul_0_module
// CHECK-NOT: stream_k
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.return
func.func @f16_outer(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f16, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
