// REQUIRES: ptxas
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa tile=64,16,64 slices=3 dump-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_0.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t.k128 && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa tile=64,16,128 slices=3 splits-arg=true dump-dir=%t.k128" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.k128/gpupoor_matmul_0.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t.k128b2 && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa tile=64,16,128 blocks-per-sm=2 splits-arg=true dump-dir=%t.k128b2" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.k128b2/gpupoor_matmul_0.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t.thin && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa tile=32,16,256 outer-type=f16 dump-dir=%t.thin" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.thin/gpupoor_matmul_0.ptx -o /dev/null 2>&1 | FileCheck %s

// cubin-sm90a-deferred-ptxas.mlir's check on kernels whose chunk counts are
// run-time values: the deferred handovers' groups, the chunks past them and
// slices whose bounds depend on K, as ptxas takes them. No C75xx message
// (C7514: wgmma serialized, C7517: a wait injected, and the like), no
// spills.
// CHECK-NOT: C75
// CHECK: Compiling entry function 'gpupoor_matmul_0' for 'sm_90a'
// CHECK-NOT: C75
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C75
func.func @dynamic(%x: memref<?x?xf16>, %w: memref<?x?xf16>, %y: memref<?x?xf16>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                ins(%x, %w : memref<?x?xf16>, memref<?x?xf16>)
                outs(%y : memref<?x?xf16>)
  return
}
