// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true" -convert-gpupoor-to-wgmma | FileCheck %s

// A tile of BN <= 16 with one consumer warpgroup (the decode tile:
// KernelSpec::defersHandover) hands each chunk's sums over behind the next
// chunk's first wgmma group. Chunks go in groups of four, unrolled (a
// chunk loop carrying the previous chunk's sums would make ptxas serialize
// every wgmma): in each chunk after the group's first, the wait for all
// but the newest group is followed by the previous chunk's last stage
// going back (after emitTile's guarded release, which a chunk's first K
// tile never takes) and by its handover, the registers first passed
// through empty volatile asm (which keeps their reads behind the wait),
// with no wgmma between; one drain a group, then the group's last stage
// back and its handover; the chunks past the last whole group one by one,
// a drain each.
// CHECK-LABEL: func.func @deferred_handover
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.setmaxregister  increase 240
// A slice past the last chunk (chunkBegin > chunkEnd) has no group: the
// count is clamped at zero before it is rounded down to whole groups.
// CHECK: %[[COUNT:.*]] = arith.maxsi %{{.*}}, %c0{{.*}} : index
// CHECK: %[[WHOLE:.*]] = arith.andi %[[COUNT]], %c-4 : index
// CHECK: %[[GEND:.*]] = arith.addi %{{.*}}, %[[WHOLE]] : index
// CHECK: %[[GROUPS:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %[[GEND]] step %c4 iter_args(
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: arith.extf
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: arith.extf
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: arith.extf
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %[[GEND]] to %{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %[[GROUPS]]#0, %{{.*}} = %[[GROUPS]]#1)
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: scf.yield
func.func @deferred_handover(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// The 64-row tiles of one consumer warpgroup up to 128 columns defer too
// (KernelSpec::kDeferredHandoverMaxBN): a chunk's 32 registers of sums (64
// x 128) pass through empty asm behind the next chunk's first wait, then
// convert and add, with no wgmma between.
// CHECK-LABEL: func.func @deferred_handover_64x128
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.setmaxregister  increase 240
// CHECK: arith.andi %{{.*}}, %c-4 : index
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-32: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: arith.extf
func.func @deferred_handover_64x128(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Wider, the sums would not fit twice beside the outer sums (64 x 160
// spilled): each chunk drains before its handover, and no groups of four.
// CHECK-LABEL: func.func @drained_handover_64x160
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK: nvvm.setmaxregister  increase 240
// CHECK-NOT: arith.andi %{{.*}}, %c-4 : index
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-40: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: arith.extf
// CHECK: gpu.func @gpupoor_matmul_0_elements(
func.func @drained_handover_64x160(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 160, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Four f16 sums a chunk (sets = 4): a fresh stage's k16 steps 0-3 start
// sums 0-3 (scale-d = 0), steps 4-7 add into them; the handover reads all
// four sums' 4 registers each behind the wait, and adds them into the f32
// sums sum after sum (two n8 tiles each).
// The first chunk of a group: its first stage, then its other K tiles'.
// CHECK-LABEL: func.func @four_sets
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} D[<f16>, <zero>]
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} D[<f16>, <one>]
// CHECK: scf.for
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} D[<f16>, <one>]
// CHECK: scf.yield
// The second: its first stage, then the first chunk's handover.
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} D[<f16>, <zero>]
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} D[<f16>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-COUNT-16: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-8: arith.addf {{.*}} : vector<2x2xf32>
// CHECK: scf.for
func.func @four_sets(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 4>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// The 32-row tile's two f16 sums a chunk (policy::kThinTileSets; m64n64
// wgmma, one consumer warpgroup): a fresh stage's k16 steps 0-1 start sums
// 0-1, steps 2-7 add into them; the handover reads both sums' 16 registers
// behind the wait and adds sum 0's eight n8 tiles into the f32 sums, then
// sum 1's onto them.
// CHECK-LABEL: func.func @two_sets_thin
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f16>, <zero>]
// CHECK-COUNT-6: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f16>, <one>]
// CHECK: scf.for
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} D[<f16>, <one>]
// CHECK: scf.yield
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} D[<f16>, <zero>]
// CHECK-COUNT-6: nvvm.wgmma.mma_async {{.*}} D[<f16>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-COUNT-32: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: %[[S0:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK-COUNT-7: arith.addf {{.*}} : vector<2x2xf32>
// CHECK: arith.addf %[[S0]], %{{.*}} : vector<2x2xf32>
// CHECK-COUNT-7: arith.addf {{.*}} : vector<2x2xf32>
// CHECK: scf.for
func.func @two_sets_thin(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [32, 64, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, sets = 2>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
