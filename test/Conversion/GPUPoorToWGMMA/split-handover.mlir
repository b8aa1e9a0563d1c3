// RUN: gpupoor-opt %s -gpupoor-select-kernel-config="tma=true split-handover=true" -convert-gpupoor-to-wgmma | FileCheck %s

// handover = split (KernelSpec::splitHandover): the tile's 256 columns in
// two halves, each an m64n128k16 chain of its own in a commit group of its
// own, and no order barrier between the consumer warpgroups: 4 stages of
// two mbarriers (full, empty).
// CHECK-LABEL: func.func @split_handover
// CHECK: gpu.module @gpupoor_matmul_0_module attributes {gpupoor.kernel_config = #gpupoor.kernel_config<{{.*}}handover = split
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister  increase 240
// Chunks of at least two K tiles (blocks >= 2 x chunks) take the split
// handover; else the chunks drain and hand over whole (the m64n256 chain
// in the else branch).
// CHECK: %[[TWO:.*]] = arith.muli %{{.*}}, %c2{{(_[0-9]+)?}} : index
// CHECK: %[[SPLIT:.*]] = arith.cmpi sge, %{{.*}}, %[[TWO]] : index
// CHECK: scf.if %[[SPLIT]] -> (
// A unit's first K tile starts both halves' sums (scale-d = 0), a wait
// between the halves' groups.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f16>, <zero>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// The second half reads B's rows 128..255: 128 rows of 128 bytes further,
// 1024 in the descriptor's 16-byte units, added to B's stage descriptor,
// which (as A's before it) passes an opaque asm: LLVM would hoist each
// step's descriptor out of the K loop, registers live across it.
// CHECK: %[[STAGEA:.*]] = llvm.inline_asm "", "=l,0" %{{.*}} : (i64) -> i64
// CHECK: %[[STAGEB:.*]] = llvm.inline_asm "", "=l,0" %{{.*}} : (i64) -> i64
// CHECK: %[[DA:.*]] = arith.addi %[[STAGEA]], %{{.*}} : i64
// CHECK: %[[ROWS:.*]] = arith.constant 1024 : i64
// CHECK: %[[DB:.*]] = arith.addi %[[STAGEB]], %[[ROWS]] : i64
// CHECK: nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}} <m = 64, n = 128, k = 16>, D[<f16>, <zero>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// The chunks but the last: their K tiles between the first and the last
// (the second half's group, then the wait that retires the tile before,
// whose stage goes back), ...
// CHECK: scf.for
// CHECK: scf.for
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f16>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f16>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: scf.yield
// ... the last outside that loop (ptxas serializes every wgmma when the
// wait before the handover follows a loop), ...
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f16>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f16>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// ... then, with the second half's group in flight, the first half's sums
// read behind empty asm, widened and added, the sums passed through empty
// asm too (LLVM would sink the adds past the next wgmma), and the next
// chunk's first K tile starts the first half anew; its wait retires the
// second half, whose stage goes back and whose sums go over before its new
// group.
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue
// CHECK-NEXT: llvm.inline_asm has_side_effects "", "=r,0" %[[R0]]
// CHECK-NOT: nvvm.wgmma
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f16>, <zero>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK-NOT: nvvm.wgmma
// CHECK: arith.addf
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f16>, <zero>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: scf.yield
// The last chunk: its K tiles, a drain, the last stage back, both halves
// over (32 fragments of n8).
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK-COUNT-32: arith.addf
// CHECK-NOT: arith.addf
// CHECK: scf.yield
// Chunks of one K tile: the whole tile's chain, drained at each chunk's end.
// CHECK: } else {
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f16>, <zero>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
func.func @split_handover(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
