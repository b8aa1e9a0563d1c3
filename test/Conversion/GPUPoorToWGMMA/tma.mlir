// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true persistent=true" -convert-gpupoor-to-wgmma | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true persistent=true" -convert-gpupoor-to-wgmma | FileCheck %s --check-prefix=NOSIG

// copies = tma: the warp-specialized kernel. The host code encodes A's and
// B's tensor maps (and C's: the persistent kernel stores C by TMA) into
// 128-byte buffers allocated at the function's entry and passes their
// pointers (by value once the kernel is a binary:
// gpupoor-tensor-maps-by-value); 384 threads (a producer warpgroup and two
// consumers), 4 stages of 48 KiB, 12 mbarriers of 8 bytes (full, empty
// and order a stage) and, 1024-byte aligned, the persistent kernel's
// epilogue buffer (8 warps' two store boxes of 16 rows x 64 columns: 32768
// bytes).
// The host code encodes C's tensor map where it describes C: C's unit
// inner stride, rows of a multiple of 8 elements, a 16-byte aligned pointer
// and rows stepping forward; else the map is 128 zero bytes, and the
// kernel, checking the same, stores C from its lanes.
// CHECK-LABEL: func.func @linear
// CHECK: %[[AMAP:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// CHECK: %[[BMAP:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// CHECK: %[[CMAP:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// CHECK: %{{[a-z_0-9]+}}:2, %[[CST:[a-z_0-9]+]]:2 = memref.extract_strided_metadata %arg2
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: %[[CPTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled(%[[AMAP]], %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}})
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled(%[[BMAP]], %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}})
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : !llvm.array<16 x i64>
// CHECK: llvm.store %[[ZERO]], %[[CMAP]]
// CHECK: arith.cmpi eq, %[[CST]]#1, %c1{{.*}} : index
// CHECK: arith.andi %[[CST]]#0, %c7{{.*}} : index
// CHECK: llvm.ptrtoint %[[CPTR]] : !llvm.ptr<1> to i64
// CHECK: arith.cmpi sgt, %[[CST]]#0, %c0{{.*}} : index
// CHECK: scf.if
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled(%[[CMAP]], %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}}, %{{[^,)]+}})
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: threads in (%c384, {{.*}} dynamic_shared_memory_size %c230400_i32
// CHECK-SAME: %[[AMAP]] : !llvm.ptr, %[[BMAP]] : !llvm.ptr, %[[CMAP]] : !llvm.ptr)
// CHECK-SAME: copies = tma
// Operands TMA cannot take get the element-copy kernel, 256 threads, not
// persistent: its epilogue runs over its rows through the stages (one
// pass), not over the columns through a buffer of its own.
// CHECK: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements
// CHECK-SAME: threads in (%c256{{[_0-9]*}}, {{.*}} dynamic_shared_memory_size %c196608_i32
// CHECK-SAME: copies = elements, {{.*}} epilogue_passes = 1,
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: %[[ADESC:[^:]*]]: !llvm.ptr {gpupoor.name = "a_desc"}, %[[BDESC:[^:]*]]: !llvm.ptr {gpupoor.name = "b_desc"}, %[[CDESC:[^:]*]]: !llvm.ptr {gpupoor.name = "c_desc"})
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// Dependent launch (DependentLaunch.h): the producer's loading thread and
// the consumers wait for the previous kernel of the stream (inline assembly
// with a memory clobber, which no access moves across); no kernel signals
// its dependents early (docs/design/decisions.md#dependent-launch).
// NOSIG-NOT: griddepcontrol  launch_dependents
// Thread 0 initializes the ring: full barriers count the producer's one
// arrive, empty ones one arrive of each of the two consumer warpgroups,
// order ones the first consumer warpgroup's.
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier{{$}}
// CHECK: cf.cond_br %{{.*}}, ^[[PRODUCER:.*]], ^[[CONSUMERS:.*]]{{$}}
// The producer: its thread 0 steps over the C tiles by the grid's size
// (the kernel is persistent) and for each waits for a stage to be empty,
// expects its 49152 bytes and loads A's and B's boxes at (k0, m0) and
// (k0, n0).
// CHECK: ^[[PRODUCER]]:
// CHECK-NEXT: nvvm.setmaxregister  decrease 24
// CHECK: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// Fewer than twice group_m (8) row tiles run as one group of all of them
// (GroupedTileOrder: a persistent kernel's).
// CHECK: %[[STEP:.*]] = gpu.grid_dim x
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]]
// CHECK: %[[FEW:.*]] = arith.cmpi slt, %[[TM:[0-9]+]], %c16{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[G:.*]] = arith.select %[[FEW]], %[[TM]], %c8{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[IN:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK-NEXT: %[[GROUP:.*]] = arith.divui %{{.*}}, %[[IN]]
// CHECK-NEXT: arith.muli %[[GROUP]], %[[G]]
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c49152_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[ADESC]], %[[FULL]], box[%[[K0:.*]], %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[BDESC]], %[[FULL]], box[%[[K0]], %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: gpu.return
// The consumers: per tile, the second warpgroup waits until the first has
// passed the tile on; wait for it, its wgmma group, wait for the group
// before it and hand that tile's stage back (the first warpgroup also
// passes it on); at the chunk's end the last one. The consumers step over
// the same C tiles.
// CHECK: ^[[CONSUMERS]]:
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// CHECK-NEXT: nvvm.setmaxregister  increase 240
// CHECK: %[[LEADS:.*]] = arith.cmpi slt, %{{.*}}, %c128
// CHECK: %[[STEP2:.*]] = gpu.grid_dim x
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP2]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[FOLLOWS:.*]] = arith.xori %[[LEADS]], %true
// CHECK: scf.if %[[FOLLOWS]] {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: }
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.if %[[LEADS]] {
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.if %[[LEADS]] {
// CHECK: nvvm.mbarrier.arrive
// The epilogue, without block barriers: each warp waits until its box
// slot has been read, writes a box, fences the async proxy and stores it
// through C's tensor map (or, where the map does not describe C, the lanes
// store their fragments); the stores are waited for before the return.
// CHECK-NOT: barrier
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK: vector.store
// CHECK: scf.if
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[CDESC]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: } else {
// CHECK-NOT: nvvm.cp.async.bulk
// CHECK: vector.store %{{.*}} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<2xf16>
// CHECK-NOT: barrier
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NEXT: gpu.return
// CHECK: gpu.func @gpupoor_matmul_0_elements(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
func.func @linear(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A batched product: tensor maps of rank 3 (the batch third), encoded with
// the batch count and stride; then the cp.async kernel, for batch strides
// a map cannot step (a broadcast operand's 0). The persistent blocks loop
// over batch * tiles work tiles, element b's after b - 1's; the TMA loads
// and C's stores take the work tile's element as the third coordinate,
// and the epilogue's C pointer moves to it.
// CHECK-LABEL: func.func @batched
// The persistent loop's last step stays below 2^31 (2^31 - 1 - 132 tiles
// at most; past that the _async kernel runs).
// CHECK: %[[MOST:.*]] = arith.constant 2147483515 : index
// CHECK: arith.cmpi sle, %{{.*}}, %[[MOST]] : index
// CHECK-COUNT-3: llvm.call @gpupoorTensorMapEncodeTiledBatched(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK: gpu.launch_func @gpupoor_matmul_0_async_module::@gpupoor_matmul_0_async
// CHECK: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: %[[CPTR:[^:]*]]: !llvm.ptr<1> {gpupoor.name = "c_ptr"}
// CHECK-SAME: %[[CB:[^:]*]]: i64 {gpupoor.name = "stride_cb"}, %[[NB:[^:]*]]: i32 {gpupoor.name = "batch"}
// CHECK: %[[BATCHES:.*]] = arith.index_cast %[[NB]] : i32 to index
// CHECK: ^bb1:
// CHECK: %[[TILES:.*]] = arith.muli
// CHECK: %[[WORK:.*]] = arith.muli %[[TILES]], %[[BATCHES]] : index
// CHECK: scf.for %[[W:.*]] = %block_id_x to %[[WORK]] step %grid_dim_x
// CHECK: %[[EL:.*]] = arith.divui %[[W]], %[[TILES]] : index
// CHECK: %[[EL32:.*]] = arith.index_cast %[[EL]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[EL32]]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[EL32]]]
// CHECK: ^bb2:
// CHECK: scf.for %[[WC:.*]] = %block_id_x to %{{.*}} step %grid_dim_x
// CHECK: %[[ELC:.*]] = arith.divui %[[WC]], %{{.*}} : index
// CHECK: arith.index_cast %[[ELC]] : index to i64
// CHECK: arith.index_cast %[[ELC]] : index to i64
// CHECK: %[[ELC64:.*]] = arith.index_cast %[[ELC]] : index to i64
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[ELC64]], %[[CB]] : i64
// CHECK-NEXT: llvm.getelementptr %[[CPTR]][%[[OFF]]]
// It stores by TMA where C's map describes C (policy::cTensorMapChecks,
// which the host code checks too): among the rest, a batch stride of whole
// 16-byte units stepping forward.
// CHECK: arith.andi %[[CB]], %{{.*}} : i64
// CHECK: arith.cmpi sgt, %[[CB]], %{{.*}} : i64
// CHECK: %[[ELC32:.*]] = arith.index_cast %[[ELC]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[ELC32]]]
// CHECK: gpu.func @gpupoor_matmul_0_async(
func.func @batched(%a: memref<?x?x?xf16>, %b: memref<?x?x?xf16>, %c: memref<?x?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?x?xf16>, memref<?x?x?xf16>
  return
}

// -----

// One consumer warpgroup (64-row tiles): nothing to order, two mbarriers a
// stage (8 stages of 24 KiB, one block an SM: the shape is dynamic; the
// epilogue buffer from 197632, 4 warps' two store boxes: 16384 bytes), and
// no warpgroup waits on another.
// CHECK-LABEL: func.func @one_consumer
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: threads in (%c256, {{.*}} dynamic_shared_memory_size %c214016_i32
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-COUNT-16: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.setmaxregister  increase 240
// CHECK-NOT: arith.xori {{.*}}, %true
// A chunk's sums, drained, pass through empty asm before the handover
// reads them (32 registers: 64 x 128 f16 over 128 threads).
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-32: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: arith.extf
// CHECK: gpu.return
func.func @one_consumer(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Parallel slices: one work tile a block (the last slice's block meets the
// sums); the shared-memory epilogue's and the slice meeting's barriers are
// the consumers' named barrier.
// CHECK-LABEL: func.func @slices
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-NOT: gpu.grid_dim x
// CHECK: nvvm.setmaxregister  increase 240
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @slices(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 2, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// The consumers' tile origin (row and column tile of the grouped order) goes
// through a volatile empty asm before their chunk loop: used only in the
// epilogue, its divisions would otherwise sink past the last MMA. A
// persistent kernel's (@linear above) is not pinned. Its groups are of
// group_m (8) row tiles: one wave of blocks a tile keeps them.
// CHECK-LABEL: func.func @tile_origin_pinned
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.setmaxregister  increase 240
// CHECK-NOT: arith.select
// CHECK: %[[IN:.*]] = arith.muli %c8{{(_[0-9]+)?}}, %{{.*}} : index
// CHECK-NEXT: %[[GROUP:.*]] = arith.divui %block_id_x, %[[IN]]
// CHECK: %[[ROW:.*]] = llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NEXT: %[[ROWI:.*]] = arith.index_castui %[[ROW]] : i32 to index
// CHECK: %[[COL:.*]] = llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NEXT: %[[COLI:.*]] = arith.index_castui %[[COL]] : i32 to index
// CHECK: arith.muli %[[ROWI]], %c128
// CHECK: arith.muli %[[COLI]], %c256
// CHECK: scf.for
// CHECK: nvvm.wgmma.mma_async
func.func @tile_origin_pinned(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 2, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Balanced chunks in the consumers' chunk loop: B = ceil(K / 64) tiles in
// C = min(12, B) chunks, B = q * C + r, chunk c taking tiles [c * q +
// min(c, r), (c + 1) * q + min(c + 1, r)). K is a run-time value: q and r
// are divided out once, and the loop holds no division (a division a chunk
// bound measured slower on an H100,
// docs/design/decisions.md#twelve-balanced-chunks-for-k-near-2048).
// CHECK-LABEL: func.func @balanced_chunks
// CHECK: gpu.func @gpupoor_matmul_0
// CHECK: %[[B:.*]] = arith.ceildivsi %{{.*}}, %c64{{.*}} : index
// CHECK: %[[C:.*]] = arith.minsi %c12{{.*}}, %[[B]] : index
// CHECK: %[[D:.*]] = arith.maxsi %[[C]], %{{.*}} : index
// CHECK: %[[Q:.*]] = arith.divui %[[B]], %[[D]] : index
// CHECK: %[[R:.*]] = arith.remui %[[B]], %[[D]] : index
// A's descriptors start from lane 0's warpgroup, which ptxas knows to be
// every lane's (they stay in uniform registers).
// CHECK: nvvm.shfl.sync  idx %{{.*}}, %{{.*}}, %c0_i32{{.*}}, %c31_i32{{.*}} : i32 -> i32
// CHECK: scf.for %[[CH:.*]] = %{{.*}} to %[[C]] step %{{.*}} iter_args(
// CHECK-NEXT: %[[SQ:.*]] = arith.muli %[[CH]], %[[Q]] : index
// CHECK-NEXT: %[[LONG:.*]] = arith.minsi %[[CH]], %[[R]] : index
// CHECK-NEXT: %[[START:.*]] = arith.addi %[[SQ]], %[[LONG]] : index
// CHECK-NOT: arith.divui
// CHECK: %[[NEXT:.*]] = arith.addi %[[CH]], %{{.*}} : index
// CHECK-NEXT: %[[NQ:.*]] = arith.muli %[[NEXT]], %[[Q]] : index
// CHECK-NEXT: %[[LONG2:.*]] = arith.minsi %[[NEXT]], %[[R]] : index
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[NQ]], %[[LONG2]] : index
// CHECK-NOT: arith.divui
// The chunk's first K tile starts its sums: its first wgmma ignores the
// registers it is given (scale-d = 0), so nothing zeroes them; the tile's
// other three add. The loop takes the chunk's other tiles.
// CHECK: %[[UNSET:.*]] = llvm.mlir.undef : !llvm.struct<(i32
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[UNSET]], <m = 64, n = 256, k = 16>, D[<f16>, <zero>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f16>, <one>]
// CHECK: %[[SECOND:.*]] = arith.addi %[[START]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[SECOND]] to %[[END]] step
// CHECK-NOT: D[<f16>, <zero>]
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} D[<f16>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: scf.yield
func.func @balanced_chunks(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 12, tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}


// -----

// B as K x N: its tensor map is K rows of N (innermost C's N, rows A's K,
// B's row stride) in boxes of 64 columns by BK = 64 rows; the producer
// loads A's box at (k0, m0) and B's tile as four such boxes, one an atom
// of 64 columns, at (n0 + 64 a, k0), 8192 bytes apart (A's K coordinate is its atom's, k0 + 0); wgmma reads B
// N-major (layout "row").
// CHECK-LABEL: func.func @kn
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[BST:.*]]:2 = memref.extract_strided_metadata %arg1
// A's map: K (innermost), M.
// CHECK: scf.if
// CHECK: llvm.addrspacecast
// CHECK-NEXT: arith.index_cast %[[K:.*]] : index to i64
// CHECK-NEXT: arith.index_cast %{{.*}} : index to i64
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled
// CHECK: %[[BN:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT: %[[BK:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT: %[[BS:.*]] = arith.index_cast %[[BST]]#0 : index to i64
// CHECK-NEXT: %[[INNER:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: %[[BOX:.*]] = llvm.mlir.constant(64 : i64) : i64
// B's rows run along N: L2 promotion of one box row's 128 bytes
// (KernelSpec::l2PromotionBytes).
// CHECK-NEXT: %[[PROMOTE:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: llvm.call @gpupoorTensorMapEncodeTiled(%{{.*}}, %{{.*}}, %[[BN]], %[[BK]], %[[BS]], %[[INNER]], %[[BOX]], %[[PROMOTE]])
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c49152_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: %[[N0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%[[N0]], %[[K0:[0-9a-z_]+]]]
// CHECK: arith.constant 8192 : index
// CHECK: arith.constant 64 : index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%{{.*}}, %[[K0]]]
// CHECK: arith.constant 16384 : index
// CHECK: arith.constant 128 : index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%{{.*}}, %[[K0]]]
// CHECK: arith.constant 24576 : index
// CHECK: arith.constant 192 : index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%{{.*}}, %[[K0]]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.wgmma.mma_async {{.*}} B[<f16>, <one>, <row>]
func.func @kn(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = kn, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// B as K x N in a tile of 16 columns (the swapped decode product's A as K
// x M): B's tile is one atom of 16 columns by BK rows of 32 bytes
// (KernelSpec::bAtomCols), loaded as one box 16 wide (the runtime swizzles
// its 32-byte rows) at (n0, k0); a stage is 8192 bytes of A and 2048 of B,
// 12 of them; wgmma reads it N-major (layout "row") through a descriptor
// of 32-byte swizzled rows: leading byte offset BK x 32 = 2048 (128 units,
// bits 16-29), 8-row groups 256 bytes apart (16 units, bits 32-45), mode 3
// (32-byte swizzle, bits 62-63), and k16 step ks 512 bytes (32 units)
// further.
// CHECK-LABEL: func.func @kn_narrow
// CHECK: llvm.call @gpupoorTensorMapEncodeTiled
// CHECK: %[[INNER:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: %[[BOX:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: %[[PROMOTE:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: llvm.call @gpupoorTensorMapEncodeTiled(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[INNER]], %[[BOX]], %[[PROMOTE]])
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c10240_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: arith.constant 8192 : index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%{{.*}}, %{{.*}}]
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: arith.constant -4611685949699522560 : i64
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 16, k = 16>, D[<f16>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: arith.constant 32 : i64
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 16, k = 16>, D[<f16>, <one>]
func.func @kn_narrow(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 16, 64], inner = f16, outer = f32, b_layout = kn, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A as K x M: its tensor map is K rows of M (innermost A's M, rows K, A's
// row stride) in boxes of 64 columns by BK = 64 rows; the producer loads
// A's tile as two such boxes, one an atom of 64 rows of C, at (m0 + 64 a,
// k0), 8192 bytes apart, then B's (N x K) box at (k0, n0); wgmma reads A
// M-major (layout "col").
// CHECK-LABEL: func.func @km
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[AST:.*]]:2 = memref.extract_strided_metadata %arg0
// CHECK: scf.if
// CHECK: llvm.addrspacecast
// CHECK-NEXT: %[[M:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[AK:.*]] : index to i64
// CHECK-NEXT: %[[S:.*]] = arith.index_cast %[[AST]]#0 : index to i64
// CHECK-NEXT: %[[INNER:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: %[[BOX:.*]] = llvm.mlir.constant(64 : i64) : i64
// A's rows run along M: L2 promotion of 128 bytes.
// CHECK-NEXT: %[[PROMOTE:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: llvm.call @gpupoorTensorMapEncodeTiled(%{{.*}}, %{{.*}}, %[[M]], %[[K]], %[[S]], %[[INNER]], %[[BOX]], %[[PROMOTE]])
// B's map: K (innermost, A's rows), N, in boxes of BN = 256 rows; its rows
// run along K: 256 bytes.
// CHECK: llvm.addrspacecast
// CHECK-NEXT: arith.index_cast %[[AK]] : index to i64
// CHECK: llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT: %[[PROMOTE256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT: llvm.call @gpupoorTensorMapEncodeTiled(%{{.*}}, %[[PROMOTE256]])
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c49152_i32
// CHECK: %[[K0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[KA:.*]] = arith.addi %[[K0]], %c0_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[ADESC:.*]], %[[FULL]], box[%{{.*}}, %[[K0]]]
// CHECK: arith.constant 8192 : index
// CHECK: arith.constant 64 : index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[ADESC]], %[[FULL]], box[%{{.*}}, %[[K0]]]
// CHECK: arith.constant 16384 : index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%[[KA]], %{{.*}}]
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <col>], B[<f16>, <one>, <col>]
func.func @km(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
