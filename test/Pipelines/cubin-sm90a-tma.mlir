// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a slices=1 cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON

// The TMA kernel (sm_90a's default), checked in PTX without ptxas (format isa). The host
// passes each tensor map's 128 bytes by value once the kernel is a binary
// (gpupoor-tensor-maps-by-value).
// MLIR-LABEL: func.func @linear
// MLIR: %[[A:.*]] = llvm.load %{{.*}} {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// MLIR: %[[B:.*]] = llvm.load %{{.*}} {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// MLIR-SAME: %[[A]] : !llvm.array<16 x i64>, %[[B]] : !llvm.array<16 x i64>)

// The maps are 64-byte aligned 128-byte parameters that TMA reads in the
// parameter space (cvta.param, no local copy); the register budget at
// entry lets setmaxnreg take effect.
// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK: .param .align 64 .b8 gpupoor_matmul_0_param_12[128],
// CHECK-NEXT: .param .align 64 .b8 gpupoor_matmul_0_param_13[128]
// CHECK: .maxntid 384, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK-NOT: .local
// CHECK: cvta.param.u64
// CHECK: cvta.param.u64
// CHECK: mbarrier.init.shared.b64
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16
// CHECK: bar.sync 1, 256;

// JSON: "block_size": 384,
// A tensor map steps forward a row at a time: A's and B's row strides must
// be positive where they have more than one row (launchers outside MLIR
// check it as the host code does).
// JSON: "positive_row_stride": [
// JSON-NEXT: [
// JSON-NEXT: "stride_am",
// JSON-NEXT: "M"
// JSON-NEXT: ],
// JSON-NEXT: [
// JSON-NEXT: "stride_bn",
// JSON-NEXT: "N"
// JSON: "param_types": [
// JSON: "tensormap",
// JSON-NEXT: "tensormap"
// JSON-NEXT: ],
// JSON: "tensor_maps": {
// JSON-NEXT: "a_desc": {
// JSON-NEXT: "box_dim": [
// JSON-NEXT: 64,
// JSON-NEXT: 128
// JSON-NEXT: ],
// JSON: "global_dim": [
// JSON-NEXT: "K",
// JSON-NEXT: "M"
// JSON: "l2_promotion": "256B"
// JSON: "swizzle": "128B"
// JSON: "b_desc": {
// JSON-NEXT: "box_dim": [
// JSON-NEXT: 64,
// JSON-NEXT: 256
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
