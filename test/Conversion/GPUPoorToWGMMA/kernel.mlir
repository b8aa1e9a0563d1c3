// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config=tma=false -convert-gpupoor-to-wgmma | FileCheck %s

// The cp.async wgmma kernel (tma=false; tma.mlir: the default TMA kernel).

// nn.Linear's product for sm_90a: A as M x K, B as N x K, 128 x 256 x 64
// tiles. Two warpgroups (8 warps, 256 threads) and 4 stages of (128 + 256)
// x 64 halves: 196608 bytes of dynamic shared memory.
// CHECK-LABEL: func.func @linear
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c196608_i32
// CHECK-SAME: config = <warps = [8, 1], stages = 4, group_m = 8, copies = async, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert
// The descriptors read the stages' shared-memory address.
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: memref.extract_aligned_pointer_as_index %[[SMEM]]
// The prologue: stages - 2 = 2 tiles in flight (lag 1).
// CHECK-COUNT-2: nvgpu.device_async_create_group
// One loop over chunks carrying the f32 outer sums (32 m16n8 fragments a
// warp); in it, the loops over the chunk's tiles carry wgmma's accumulator.
// CHECK: scf.for {{.*}} -> (vector<2x2xf32>,
// CHECK: scf.for {{.*}} -> (!llvm.struct<(i32,
// A tile's wait leaves one group pending, makes the copies visible to the
// async proxy, then the barrier; the refill follows.
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.wgmma.fence.aligned
// Four k16 steps of m64n256k16 with f16 accumulators, one commit group;
// then all but the newest group waited for.
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>, D[<f16>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// At the chunk's end every group is waited for, and each pair of registers
// becomes an m16n8 f16 fragment for the handover.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK: arith.extf {{.*}} : vector<2x2xf16> to vector<2x2xf32>
// CHECK: gpu.return
func.func @linear(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// B as K x N: wgmma reads it N-major (transposed, B's layout "row"). Its
// descriptor's leading byte offset is the distance between B's atoms of 64
// columns (BK = 64 rows of 128 bytes: 8192 bytes, 512 in 16-byte units,
// bits 16-29), A's keeps 1; both take 1024-byte 8-row groups (64 units,
// bits 32-45) and the 128-byte swizzle (bit 62).
// CHECK-LABEL: func.func @kn
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-DAG: arith.constant 4611686293305360384 : i64
// CHECK-DAG: arith.constant 4611686293338849280 : i64
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f16>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: gpu.func @gpupoor_matmul_0_elements(
func.func @kn(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Parallel slices: the kernel takes the workspace and meets the slices as
// the mma.sync kernel does.
// CHECK-LABEL: func.func @slices
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: gpupoor.name = "ws_ptr"
// CHECK: gpu.block_id  y
// CHECK: nvvm.wgmma.mma_async
// CHECK: memref.atomic_rmw addi
func.func @slices(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, slices = 4, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Automatic slices at run time: the host code plans one block an SM for
// the two-warpgroup tile, so both bounds of the rule divide 132 SMs (sm_90
// kernels of two blocks an SM divide 264 for P2).
// CHECK-LABEL: func.func @auto_slices
// CHECK: %[[SMS1:.*]] = arith.constant 132 : index
// CHECK: arith.divsi %[[SMS1]]
// CHECK: %[[SMS2:.*]] = arith.constant 132 : index
// CHECK: arith.divsi %[[SMS2]]
// CHECK: gpu.launch_func
func.func @auto_slices(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, slices = 0, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// One warpgroup's tiles: two blocks an SM for P2 (264), and where 3 T >=
// 132 (a third of the SMs have a tile) one slice, or P1 from K = 16384
// on (kLongKShareK).
// CHECK-LABEL: func.func @auto_slices_one_warpgroup
// CHECK: %[[SMS:.*]] = arith.constant 132 : index
// CHECK-NEXT: arith.divsi %[[SMS]]
// CHECK-NEXT: arith.minsi
// CHECK-NEXT: %[[P1:.*]] = arith.maxsi %{{.*}}, %[[ONE:[^ ]*]] : index
// CHECK: arith.constant 264 : index
// CHECK: %[[P:.*]] = arith.select
// CHECK: %[[Q:.*]] = arith.constant 3 : index
// CHECK: %[[QT:.*]] = arith.muli %{{.*}}, %[[Q]] : index
// CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %[[QT]], %{{.*}} : index
// CHECK: %[[LONG:.*]] = arith.cmpi sge, %{{.*}}, %c16384 : index
// CHECK: %[[SHARED:.*]] = arith.select %[[LONG]], %[[P1]], %[[ONE]] : index
// CHECK: arith.select %[[ENOUGH]], %[[SHARED]], %[[P]] : index
// CHECK: gpu.launch_func
func.func @auto_slices_one_warpgroup(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 64, 64], inner = f16, outer = f32, b_layout = nk, slices = 0, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A as K x M (a transposed activation): wgmma reads it M-major (A's layout
// "col"). Its descriptor's leading byte offset is the distance between A's
// atoms of 64 rows (BK = 64 rows of K of 128 bytes: 8192 bytes, 512 units),
// B's (N x K) keeps 1.
// CHECK-LABEL: func.func @km
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-DAG: arith.constant 4611686293338849280 : i64
// CHECK-DAG: arith.constant 4611686293305360384 : i64
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f16>, <one>], A[<f16>, <one>, <col>], B[<f16>, <one>, <col>]
// CHECK: gpu.func @gpupoor_matmul_0_elements(
func.func @km(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
