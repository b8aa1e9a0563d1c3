// REQUIRES: ptxas
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa dump-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_0.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_1.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_2.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_3.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_5.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t.dyn && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa tile=64,128,64 slices=0 dump-dir=%t.dyn" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.dyn/gpupoor_matmul_4.ptx -o /dev/null 2>&1 | FileCheck %s

// The deferred handovers of the one-warpgroup tiles wider than the decode
// tiles (KernelSpec::kDeferredHandoverMaxBN) as ptxas takes them: two sets
// of sums and the outer sums in registers, no spills, no wgmma serialized
// (C7514) and no wait injected (C7517). The rules' tiles: 64 x 128 at
// 1000^3 (eight chunks: two groups of four), the 32-row tile at 32 x 4096 x
// 11008 (32 chunks), 64 x 64 at 64 x 4096 x 11008, 64 x 128 reading A as K
// x M; and 64 x 128 on dynamic sizes, with slices; the 32-row tile two
// blocks an SM (256 tiles at 32 x 16384 x 4096: 128 registers a thread),
// both with their two f16 sums a chunk (policy::kThinTileSets).
// CHECK-NOT: C75
// CHECK: Compiling entry function 'gpupoor_matmul_{{[0-5]}}' for 'sm_90a'
// CHECK-NOT: C75
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C75
func.func @square(%x: tensor<1000x1000xf16>, %w: tensor<1000x1000xf16>) -> tensor<1000x1000xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1000x1000xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1000x1000xf16>) -> tensor<1000x1000xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<1000x1000xf16>, tensor<1000x1000xf16>)
                     outs(%f : tensor<1000x1000xf16>) -> tensor<1000x1000xf16>
  return %r : tensor<1000x1000xf16>
}

func.func @thin(%x: tensor<32x11008xf16>, %w: tensor<4096x11008xf16>) -> tensor<32x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<32x4096xf16>) -> tensor<32x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<32x11008xf16>, tensor<4096x11008xf16>)
                     outs(%f : tensor<32x4096xf16>) -> tensor<32x4096xf16>
  return %r : tensor<32x4096xf16>
}

func.func @narrow(%x: tensor<64x11008xf16>, %w: tensor<4096x11008xf16>) -> tensor<64x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<64x11008xf16>, tensor<4096x11008xf16>)
                     outs(%f : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  return %r : tensor<64x4096xf16>
}

func.func @a_km(%xt: tensor<1000x1000xf16>, %w: tensor<1000x1000xf16>) -> tensor<1000x1000xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1000x1000xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1000x1000xf16>) -> tensor<1000x1000xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%xt, %w : tensor<1000x1000xf16>, tensor<1000x1000xf16>)
                     outs(%f : tensor<1000x1000xf16>) -> tensor<1000x1000xf16>
  return %r : tensor<1000x1000xf16>
}

func.func @dynamic(%x: memref<?x?xf16>, %w: memref<?x?xf16>, %y: memref<?x?xf16>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                ins(%x, %w : memref<?x?xf16>, memref<?x?xf16>)
                outs(%y : memref<?x?xf16>)
  return
}

func.func @thin_two_blocks(%x: tensor<32x4096xf16>, %w: tensor<16384x4096xf16>) -> tensor<32x16384xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x16384xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<32x16384xf16>) -> tensor<32x16384xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<32x4096xf16>, tensor<16384x4096xf16>)
                     outs(%f : tensor<32x16384xf16>) -> tensor<32x16384xf16>
  return %r : tensor<32x16384xf16>
}
