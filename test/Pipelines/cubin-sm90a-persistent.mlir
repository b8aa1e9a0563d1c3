// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a tma=true persistent=true cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON
// RUN: rm -rf %t.frag && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a persistent=true shared-epilogue=false cubin-format=isa dump-dir=%t.frag" -o /dev/null
// RUN: FileCheck %s --input-file=%t.frag/gpupoor_matmul_0.ptx --check-prefix=FRAG

// The persistent TMA kernel: the host launches one block an SM of the
// reference part (132) at most; producer and consumers step over the C
// tiles by the grid's size; the epilogue goes through a shared buffer of
// its own after the stages and barriers (the producer refills the stages
// meanwhile): each warp writes its fragments into its region, 2 passes of
// 128 columns (231520 bytes in all), and reads back 16-byte row vectors,
// with warp syncs and no block barrier. The manifest states the grid and
// that any grid computes C. (It is opt-in: docs/Hopper.md.)
// MLIR-LABEL: func.func @linear
// MLIR: %[[GRID:.*]] = arith.minsi %{{.*}}, %c132 : index
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%[[GRID]],
// MLIR-SAME: persistent = true

// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK: %nctaid.x
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK: %nctaid.x
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16
// CHECK-NOT: bar.sync
// CHECK: bar.warp.sync
// CHECK: st.shared.b32 [%{{.*}}+196704]
// CHECK: ld.shared.v4
// CHECK: st.global.v4.b32
// CHECK-NOT: bar.sync

// JSON: "dynamic_shared_memory": 231520,
// JSON: "epilogue_passes": 2,
// JSON: "grid": "min(ceil(M/BM)*ceil(N/BN), SMs)",
// JSON: "persistent": true,

// shared-epilogue=false: stores from the fragments, 2 elements at a time.
// FRAG: wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16
// FRAG-NOT: st.shared
// FRAG: st.global.v2.b16
func.func @linear(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %c: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c0 : tensor<?x?xf16>
  %z = arith.constant 0.0 : f16
  %e = tensor.empty(%m, %n) : tensor<?x?xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>) outs(%f : tensor<?x?xf16>) -> tensor<?x?xf16>
  bufferization.materialize_in_destination %r in restrict writable %c : (tensor<?x?xf16>, memref<?x?xf16>) -> ()
  return
}
