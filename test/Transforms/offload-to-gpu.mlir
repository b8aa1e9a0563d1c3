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

// -----

// A copy of rows of 2-byte elements (here a batch of them, as gpupoor-split-k
// copies an operand into padded rows) launches the row-copy kernel: the
// views' addresses in bytes, sizes and strides in elements, and the end of
// the source's span (0 where a stride is negative), over one thread a chunk
// of 8 elements. The kernel loads the aligned 16-byte words around a chunk
// and stores it whole where the destination's rows start on 16 bytes.
// CHECK-LABEL: func.func @row_copy
// CHECK-SAME:    (%[[SRC:.*]]: memref<3x5x1031xf16{{.*}}>, %[[DST:.*]]: memref<3x5x1031xf16{{.*}}>)
// CHECK:         memref.extract_strided_metadata %[[SRC]]
// CHECK:         memref.extract_aligned_pointer_as_index
// CHECK:         memref.extract_strided_metadata %[[DST]]
// CHECK:         arith.cmpi sge
// CHECK:         %[[END:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK:         %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:         %[[CHUNKS:.*]] = arith.muli %[[ROWS]], %{{.*}} : i64
// CHECK:         scf.if
// CHECK:           %[[BLOCKS:.*]] = arith.ceildivui %[[CHUNKS]], %{{.*}} : i64
// CHECK:           gpu.launch_func @gpupoor_row_copy::@gpupoor_row_copy blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%[[C256:.*]], %{{.*}}, %{{.*}}) args({{.*}}, %[[END]] : i64)
// CHECK-NOT:     scf.parallel
// CHECK:       gpu.module @gpupoor_row_copy
// CHECK:         gpu.func @gpupoor_row_copy(%{{.*}}: i64 {gpupoor.name = "src"}, %{{.*}}: i64 {gpupoor.name = "dst"}, {{.*}} {gpupoor.name = "src_end"}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:           llvm.intr.fshr
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
func.func @row_copy(%src: memref<3x5x1031xf16, strided<[5160, 1032, 1], offset: 1>>,
                    %dst: memref<3x5x1031xf16, strided<[5160, 1032, 1]>>) {
  memref.copy %src, %dst : memref<3x5x1031xf16, strided<[5160, 1032, 1], offset: 1>> to memref<3x5x1031xf16, strided<[5160, 1032, 1]>>
  return
}

// -----

// Copies the row-copy kernel does not make stay elementwise loops: 4-byte
// elements, a source read across its rows (a transposing copy), index
// elements (no bit width), 1-D and 4-D copies, and memory other than global.
// CHECK-LABEL: func.func @not_row_copies
// CHECK-NOT:     gpu.launch_func
// CHECK-COUNT-6: scf.parallel ({{.*}}) = ({{.*}}) to ({{.*}}) step (%c256{{.*}})
// CHECK-NOT:   gpu.module
func.func @not_row_copies(%a: memref<4x9xf32>, %b: memref<4x9xf32>,
                          %c: memref<4x9xf16, strided<[1, 4]>>, %d: memref<4x9xf16>,
                          %e: memref<4x9xindex>, %f: memref<4x9xindex>,
                          %g: memref<36xf16>, %h: memref<36xf16>,
                          %i: memref<1x2x2x9xf16>, %j: memref<1x2x2x9xf16>,
                          %k: memref<4x9xf16, 3>, %l: memref<4x9xf16, 3>) {
  memref.copy %a, %b : memref<4x9xf32> to memref<4x9xf32>
  memref.copy %c, %d : memref<4x9xf16, strided<[1, 4]>> to memref<4x9xf16>
  memref.copy %e, %f : memref<4x9xindex> to memref<4x9xindex>
  memref.copy %g, %h : memref<36xf16> to memref<36xf16>
  memref.copy %i, %j : memref<1x2x2x9xf16> to memref<1x2x2x9xf16>
  memref.copy %k, %l : memref<4x9xf16, 3> to memref<4x9xf16, 3>
  return
}
