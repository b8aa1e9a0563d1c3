// REQUIRES: ptxas
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa dump-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_0.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_1.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/gpupoor_matmul_2.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=SETS < %t/gpupoor_matmul_2.json

// The decode tiles' deferred handovers (KernelSpec::defersHandover) as
// ptxas takes them: no wgmma serialized (C7514: an accumulator read or
// copied while its group may be in flight) and no wait injected (C7517: a
// read of sums that LLVM moved ahead of their wait), no spills. The 32-row
// tile at 1 x 2048 x 5120 (20 chunks of one K tile: five groups of four),
// the 64-row one at 1 x 4096 x 4096 (32 chunks of one K tile of 128), each
// chunk in four f16 sums (sets); and the swapped 64 x 32 tile of A as K x M
// of 32 rows at 32 x 15360 x 5120, two blocks an SM, four sums a chunk of
// two K tiles.
// SETS: "blocks_per_sm": 2
// SETS: "sets": 4
// CHECK-NOT: C75
// CHECK: Compiling entry function 'gpupoor_matmul_{{[012]}}' for 'sm_90a'
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

func.func @km32(%x: tensor<5120x32xf16>, %w: tensor<5120x15360xf16>) -> tensor<32x15360xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x15360xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<32x15360xf16>) -> tensor<32x15360xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<5120x32xf16>, tensor<5120x15360xf16>)
                     outs(%f : tensor<32x15360xf16>) -> tensor<32x15360xf16>
  return %r : tensor<32x15360xf16>
}
