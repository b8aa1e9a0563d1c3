// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="warps-n=4 shared-outer-rows=0 stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s

// A's 32 x 16 tile is 64 chunks of 16 bytes over 128 threads: a round the
// first 64 threads make alone, every copy of it (prologue, refills, K's
// tail) under their condition; B's 64 x 16 tile is one whole round.
// CHECK-LABEL: gpu.func @gpupoor_matmul_0
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[MAKES:.*]] = arith.cmpi slt, %[[TID]], %c64{{.*}} : index
// CHECK: scf.if %[[MAKES]] {
// CHECK: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1}
// CHECK-NEXT: }
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_create_group
// CHECK: scf.for
// CHECK: scf.if %[[MAKES]] {
// CHECK-NEXT: arith.addi
// CHECK-NEXT: nvgpu.device_async_copy %{{.*}}, 8 {bypassL1}
// CHECK-NEXT: }
func.func @copies(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [32, 64, 16], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
