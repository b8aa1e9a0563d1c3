// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a tuned-table=false cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON

// A decode product with a per-column bias (nn.Linear at M = 1) on sm_90a:
// gpupoor-split-k swaps it (4096 / 64 = 64 tiles), gpupoor-swap-operands
// makes it C^T = W x^T: the weight is the kernel's A, x its B, C^T a view
// whose row stride is 1 and column stride 4096, and the bias is read per
// row (strides 1 and 0); one block a 64-row tile, one slice.
// MLIR-LABEL: func.func @linear
// MLIR-SAME: (%[[X:.*]]: memref<1x14336xf16>, %[[W:.*]]: memref<4096x14336xf16>
// MLIR: memref.transpose
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1)
// MLIR-SAME: !llvm.ptr<1>, %c4096_i32 : i32, %c1_i32 : i32, %c14336_i32 : i32, %c14336_i32 : i32, %c1_i32 : i32, %c1_i32 : i32, %c14336_i32 : i32, %c1_i32 : i32, %c4096_i32 : i32, %{{.*}} : !llvm.ptr<1>, %c1_i32 : i32, %c0_i32 : i32,
// MLIR-SAME: gpupoor.swapped_operands

// The 64 x 16 x 128 tile: one consumer warpgroup of m64n16k16 wgmmas. The
// producer's loading thread waits for the previous kernel of the stream
// before its first load, the consumers before anything else; no early
// signal to the next kernel (it launches as the blocks exit).
// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK: .maxntid 256, 1, 1
// CHECK-NOT: griddepcontrol
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: griddepcontrol.wait;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: griddepcontrol.launch_dependents
// CHECK: griddepcontrol.wait;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK: wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16

// JSON: "dependent_launch": true,
// JSON: "swapped_operands": true,
// JSON: "tile": [
// JSON-NEXT: 64,
// JSON-NEXT: 16,
// JSON-NEXT: 128
func.func @linear(%x: tensor<1x14336xf16>, %w: tensor<4096x14336xf16>, %bias: tensor<4096xf16>) -> tensor<1x4096xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4096xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<1x14336xf16>, tensor<4096x14336xf16>)
                     outs(%f : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %e2 = tensor.empty() : tensor<1x4096xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<1x4096xf16>, tensor<4096xf16>) outs(%e2 : tensor<1x4096xf16>) {
  ^bb0(%v: f16, %b: f16, %o: f16):
    %s = arith.addf %v, %b : f16
    linalg.yield %s : f16
  } -> tensor<1x4096xf16>
  return %g : tensor<1x4096xf16>
}
