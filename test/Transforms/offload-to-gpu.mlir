// RUN: gpupoor-opt %s -split-input-file -gpupoor-offload-to-gpu | FileCheck %s
// RUN: not gpupoor-opt %s -split-input-file -gpupoor-offload-to-gpu="block-size=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: gpupoor-offload-to-gpu: block-size must be in [1, 1024], got 0

// Allocations are the device's, in the async form gpu-to-llvm lowers; an
// elementwise op becomes one parallel loop over all its elements, tiled by
// the block size (blocks over tiles, threads within one).
// CHECK-LABEL: func.func @elementwise
// CHECK:         %[[T0:.*]] = gpu.wait async
// CHECK:         %[[BUF:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] (%{{.*}}) : memref<?x8xf16>
// CHECK:         gpu.wait [%[[T1]]]
// CHECK:         scf.parallel (%[[TILE:.*]]) = (%{{.*}}) to (%{{.*}}) step (%[[C256:.*]]) {
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:             arith.remsi
// CHECK:             arith.divsi
// CHECK:             memref.load
// CHECK:             math.exp
// CHECK:             memref.store
// CHECK:         gpu.dealloc async [%{{.*}}] %[[BUF]]
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
func.func @elementwise(%a: memref<?x8xf16>, %out: memref<?x8xf16>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x8xf16>
  %t = memref.alloc(%n) : memref<?x8xf16>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x8xf16>) outs(%t : memref<?x8xf16>) {
  ^bb0(%x: f16, %o: f16):
    %y = math.exp %x : f16
    linalg.yield %y : f16
  }
  memref.copy %t, %out : memref<?x8xf16> to memref<?x8xf16>
  memref.dealloc %t : memref<?x8xf16>
  return
}

// -----

// Without a parallel dimension (a 0-d fill): loops in a one-thread launch.
// CHECK-LABEL: func.func @zero_d
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]])
// CHECK:           memref.store
// CHECK:           gpu.terminator
func.func @zero_d(%out: memref<f16>) {
  %z = arith.constant 0.0 : f16
  linalg.fill ins(%z : f16) outs(%out : memref<f16>)
  return
}

// -----

// Device code is left alone.
// CHECK-LABEL: gpu.module @device
// CHECK:         memref.alloc
// CHECK:         linalg.fill
module attributes {gpu.container_module} {
  gpu.module @device {
    gpu.func @k(%out: memref<4xf16>) kernel {
      %z = arith.constant 0.0 : f16
      %t = memref.alloc() : memref<4xf16>
      linalg.fill ins(%z : f16) outs(%out : memref<4xf16>)
      gpu.return
    }
  }
}
