// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0_elements.ptx --check-prefix=ELEM

// A decode product whose swapped 64-row tiles would be under a quarter of
// the SMs (2048 / 64 = 32): 32-row tiles of BK = 256 instead, 64 blocks in
// one slice, a chunk each K tile (5120 / 256 = 20 splits).
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1)
// MLIR: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements blocks in (%c64, %c1, %c1) threads in (%c128, %c1, %c1)

// A stage: four boxes of 64 columns of the weight and four of x, one per
// atom of the swizzle; sixteen m64n16k16 wgmmas over the four atoms in one
// commit group (the m64 rows past the tile's 32 come from the next atom,
// or after the last from x's tile). The consumers' code holds a stage's
// group once for each place a K tile is taken (deferred handovers:
// test/Conversion/GPUPoorToWGMMA/deferred-handover.mlir).
// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK: griddepcontrol.wait;
// CHECK-COUNT-8: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor
// CHECK-NOT: griddepcontrol.launch_dependents
// CHECK: griddepcontrol.wait;
// CHECK-COUNT-16: wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;

// The fallback copies the same atoms in 8- or 4-byte pieces (or element by
// element) and runs the same wgmmas, in two loops: whole K tiles, whose
// refills take pieces without zero fill, then the guarded rest.
// ELEM: .visible .entry gpupoor_matmul_0_elements(
// ELEM-COUNT-16: wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16
// ELEM: cp.async.ca.shared.global {{\[[^]]+\], \[[^]]+\], [48];}}
// ELEM-COUNT-16: wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16
// ELEM: cp.async.ca.shared.global {{\[[^]]+\], \[[^]]+\], [48], %r[0-9]+;}}
// ELEM-NOT: wgmma.mma_async

// The maps' boxes: 64 columns (one atom) by the tile's 32 rows, and by x's
// 16.
// JSON: "splits": 20,
// JSON: "swapped_operands": true,
// JSON: "a_desc": {
// JSON: "box_dim": [
// JSON-NEXT: 64,
// JSON-NEXT: 32
// JSON: "b_desc": {
// JSON: "box_dim": [
// JSON-NEXT: 64,
// JSON-NEXT: 16
// JSON: "tile": [
// JSON-NEXT: 32,
// JSON-NEXT: 16,
// JSON-NEXT: 256
func.func @linear(%x: tensor<1x5120xf16>, %w: tensor<2048x5120xf16>) -> tensor<1x2048xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x2048xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x2048xf16>) -> tensor<1x2048xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<1x5120xf16>, tensor<2048x5120xf16>)
                     outs(%f : tensor<1x2048xf16>) -> tensor<1x2048xf16>
  return %r : tensor<1x2048xf16>
}
