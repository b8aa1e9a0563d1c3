// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-nvgpu | FileCheck %s

// Parallel split-k: the host computes P' = max(min(P, S, 65535), 1), takes the
// slice sums and the per-tile zeroed counters from the runtime's kept
// buffers (neither for one slice: sizes 0), with no allocation, fill or
// free a call, and launches P' blocks along grid y; the kernel takes both
// after the ABI's other arguments.
// CHECK: llvm.func @gpupoorSliceCounters(i64) -> !llvm.ptr
// CHECK: llvm.func @gpupoorSliceSums(i64) -> !llvm.ptr
// CHECK-LABEL: func.func @parallel
// CHECK-NOT: memref.alloc
// S counts at most 65535 slices (grid y's limit).
// CHECK: %[[S:.*]] = arith.minsi %{{.*}}, %c65535 : index
// CHECK: %[[P3:.*]] = arith.minsi %c3{{.*}}, %[[S]] : index
// CHECK: %[[P:.*]] = arith.maxsi %[[P3]], %c1{{.*}} : index
// The 32-bit kernel's bound on its slice sums (policy::kernelBounds):
// sum_slots, T P' (T taken as at most 2^31) where P' > 1, at most
// (2^31 - 1) / (BM BN + 4).
// CHECK: %[[TMOST:.*]] = arith.minsi %{{.*}}, %c2147483648 : index
// CHECK: %[[SLOTS:.*]] = arith.muli %[[TMOST]], %[[P]] : index
// CHECK: %[[SLICED:.*]] = arith.cmpi sgt, %[[P]], %c1
// CHECK: %[[SUMSLOTS:.*]] = arith.select %[[SLICED]], %[[SLOTS]], %c0
// CHECK: arith.cmpi sle, %[[SUMSLOTS]], %c1046531 : index
// CHECK: %[[MULTI:.*]] = arith.cmpi sgt, %[[P]], %c1
// CHECK: %[[BYTES:.*]] = arith.select %[[MULTI]], %{{.*}}, %c0
// CHECK: %[[BYTES64:.*]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK: %[[LOCKS:.*]] = arith.select %[[MULTI]], %{{.*}}, %c0
// CHECK: %[[LOCKS64:.*]] = arith.index_cast %[[LOCKS]] : index to i64
// CHECK: %[[WS0:.*]] = llvm.call @gpupoorSliceSums(%[[BYTES64]])
// CHECK: %[[WS:.*]] = llvm.addrspacecast %[[WS0]] : !llvm.ptr to !llvm.ptr<1>
// CHECK: %[[CNT0:.*]] = llvm.call @gpupoorSliceCounters(%[[LOCKS64]])
// CHECK: %[[CNT:.*]] = llvm.addrspacecast %[[CNT0]] : !llvm.ptr to !llvm.ptr<1>
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%{{[a-z0-9_]+}}, %[[P]], %{{[a-z0-9_]+}})
// CHECK-SAME: %[[WS]] : !llvm.ptr<1>, %[[BYTES64]] : i64, %[[CNT]] : !llvm.ptr<1>, %[[LOCKS64]] : i64)
// CHECK-NOT: memref.dealloc

// The kernel: block row p of P' takes chunks [p * S / P', (p + 1) * S / P'),
// computed (from a K LLVM cannot see through, so that the consumers' S is
// not hoisted before the branch) only where P' > 1, which is expected
// false; one slice takes every tile, and its chunk limit needs no S.
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1> {gpupoor.name = "ws_ptr"}, %{{.*}}: i64 {gpupoor.name = "ws_bytes"}, %{{.*}}: !llvm.ptr<1> {gpupoor.name = "locks_ptr"}, %{{.*}}: i64 {gpupoor.name = "locks_count"})
// CHECK: %[[BY:.*]] = gpu.block_id  y
// CHECK: %[[GY:.*]] = gpu.grid_dim  y
// CHECK: %[[SEVERAL:.*]] = arith.cmpi ugt, %[[GY]], %c1{{.*}} : index
// CHECK: %[[EXPECT:.*]] = llvm.intr.expect %[[SEVERAL]], %false : i1
// CHECK: scf.if %[[EXPECT]] -> (index, index, index, index) {
// CHECK:   llvm.inline_asm "", "=l,0"
// CHECK:   arith.divui %{{.*}}, %[[GY]] : index
// CHECK:   arith.divui %{{.*}}, %[[GY]] : index
// CHECK: } else {
// CHECK-NOT: arith.divui
// CHECK:   %[[LIMIT:.*]] = llvm.inline_asm "", "=l,0"
// CHECK-NOT: arith.divui
// CHECK:   scf.yield %c0{{.*}}, %{{.*}}, %c0{{.*}}, %{{.*}} : index, index, index, index
// After the K loop, with more than one slice (expected false: a one-slice
// launch falls through to its epilogue): a workspace or counters too
// short, or a misaligned workspace, traps; the block's sums go out as 16-byte vectors; a device
// fence, a barrier, and thread 0 counts the block in.
// CHECK: %[[TILE:.*]] = gpu.block_id  x
// CHECK: %[[MEET:.*]] = arith.cmpi slt, %c1{{.*}}, %grid_dim_y{{.*}} : index
// CHECK: %[[MEETX:.*]] = llvm.intr.expect %[[MEET]], %false{{.*}} : i1
// CHECK: scf.if %[[MEETX]] -> (i1, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>) {
// CHECK:   llvm.intr.trap
// CHECK-COUNT-4: vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf32, 1>, vector<4xf32>
// CHECK:   nvvm.memory.barrier <gpu>
// CHECK:   gpu.barrier
// CHECK:   memref.atomic_rmw addi %c1_i32, %[[COUNTERS:.*]][%[[TILE]]] : (i32, memref<?xi32, 1>) -> i32
// CHECK:   nvvm.memory.barrier <gpu>
// CHECK:   gpu.barrier
// The last block of the tile (P' - 1 blocks before it) resets the counter
// and adds the P' sums in slice order, from zero: eight slices a trip (4
// fragments of 4 f32 a slice, 128 registers), every load of the eight
// (slice min(p + u, P' - 1), in bounds) before the adds, each add kept
// only for p + u < P'.
// CHECK:   %[[LAST:.*]] = arith.cmpi eq
// CHECK:   scf.if %[[LAST]] -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>) {
// CHECK:     memref.store %c0_i32{{.*}}, %[[COUNTERS]][%[[TILE]]]
// CHECK:     scf.for %[[P:.*]] = %c0{{.*}} to %[[GY2:.*]] step %c8{{.*}} iter_args(%{{.*}} = %[[ZERO:cst[_0-9]*]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]])
// CHECK:       %[[LASTP:.*]] = arith.subi %[[GY2]], %c1
// CHECK:       arith.minui %{{.*}}, %[[LASTP]] : index
// CHECK-COUNT-4: vector.load
// CHECK:       arith.addi %[[P]], %c7
// CHECK:       arith.minui %{{.*}}, %[[LASTP]] : index
// CHECK-COUNT-4: vector.load
// CHECK-NOT:   vector.load
// CHECK:       %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %[[GY2]] : index
// CHECK:       %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK:       arith.select %[[VALID]], %[[SUM]], %{{.*}} : vector<2x2xf32>
// CHECK:       scf.yield
// Only that block runs the epilogue.
// CHECK: scf.if %{{.*}} {
// CHECK: vector.store %{{.*}} : memref<2560xf16, #gpu.address_space<workgroup>>, vector<2xf16>
func.func @parallel(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [16, 128, 64], inner = f16, outer = f32, slices = 3, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [1, 4], stages = 3, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// slices = 0: P1 = clamp(132 / T, 1, S), P2 = clamp(264 / T, 1, S) on
// sm_90's 132 SMs (T the C tiles); P2 where it exceeds 2 P1, else P1.
// CHECK-LABEL: func.func @automatic
// CHECK: %[[D1:.*]] = arith.divsi %c132, %{{.*}} : index
// CHECK: %[[D2:.*]] = arith.divsi %c264, %{{.*}} : index
// CHECK: %[[TWICE:.*]] = arith.muli %[[P1:.*]], %c2{{[_0-9]*}} : index
// CHECK: %[[BETTER:.*]] = arith.cmpi sgt, %[[P2:.*]], %[[TWICE]] : index
// CHECK: arith.select %[[BETTER]], %[[P2]], %[[P1]] : index
// Where P' > 1 such slices keep T P' within 264 blocks: the slice sums'
// bound holds whatever the shape, and the host code does not check it.
// CHECK-NOT: arith.minsi %{{.*}}, %c2147483648
// CHECK: gpu.launch_func
func.func @automatic(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, slices = 0, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
