// REQUIRES: ptxas
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa dump-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_0.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_1.ptx -o /dev/null 2>&1 | FileCheck %s

// The decode tiles' deferred handovers (KernelSpec::defersHandover) as
// ptxas takes them: no wgmma serialized (C7514: an accumulator read or
// copied while its group may be in flight) and no wait injected (C7517: a
// read of sums that LLVM moved ahead of their wait), no spills. The 32-row
// tile at 1 x 2048 x 5120 (20 chunks of one K tile: five groups of four),
// the 64-row one at 1 x 4096 x 4096 (32 chunks of one K tile of 128).
// CHECK-NOT: C75
// CHECK: Compiling entry function 'gpupoor_matmul_{{[01]}}' for 'sm_90a'
// CHECK-NOT: C75
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C75
func.func @thin(%x: tensor<1x5120xf16>, %w: tensor<2048x5120xf16>) -> tensor<1x2048xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x2048xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x2048xf16>) -> tensor<1x2048xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<1x5120xf16>, tensor<2048x5120xf16>)
                     outs(%f : tensor<1x2048xf16>) -> tensor<1x2048xf16>
  return %r : tensor<1x2048xf16>
}

func.func @wide(%x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<1x4096xf16>, tensor<4096x4096xf16>)
                     outs(%f : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}
