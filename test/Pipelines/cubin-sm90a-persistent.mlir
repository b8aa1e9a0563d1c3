// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a slices=1 tma=true persistent=true cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx --check-prefix=NOSIG
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0_elements.ptx --check-prefixes=NOSIG,FALLBACK
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0_i64.ptx --check-prefixes=NOSIG,FALLBACK
// RUN: rm -rf %t.frag && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a slices=1 persistent=true shared-epilogue=false cubin-format=isa dump-dir=%t.frag" -o /dev/null
// RUN: FileCheck %s --input-file=%t.frag/gpupoor_matmul_0.ptx --check-prefix=FRAG
// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a slices=1 tma=true persistent=true stream-k=true cubin-format=isa" | gpupoor-opt | FileCheck %s --check-prefixes=ROUND,ROUNDK
// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a slices=1 tma=true persistent=true stream-k=false cluster-m=4 cubin-format=isa" | gpupoor-opt | FileCheck %s --check-prefixes=ROUND,ROUND4

// The persistent TMA kernel: the host launches one block an SM of the
// reference part (132) at most; producer and consumers step over the C
// tiles by the grid's size; the epilogue stores C by TMA through a shared
// buffer of its own after the stages and barriers (the producer refills the
// stages meanwhile; 1024-byte aligned for the 128-byte swizzle, 230400
// bytes in all): each warp writes a box of 16 rows x 64 columns into one of
// its two slots (after waiting until the box before the last has been
// read), fences the async proxy and its lane 0 stores the box through C's
// tensor map, the third by-value parameter (where the map describes C: the
// host code encodes it where C's rows take 16-byte vectors, else the lanes
// store their fragments); with warp syncs and no block barrier. Before the consumers return, the stores are waited for. The
// manifest states the grid, that any grid computes C, C's tensor map and
// its checks. (docs/design/Hopper.md.)
// MLIR-LABEL: func.func @linear
// MLIR: %[[AMAP:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// MLIR: %[[BMAP:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// MLIR: %[[CMAP:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// MLIR: %[[GRID:.*]] = arith.minsi %{{.*}}, %c132 : index
// MLIR: llvm.call @gpupoorTensorMapEncodeTiled(%[[AMAP]], %{{.*}}, %[[K:[0-9a-z_]+]], %[[M:[0-9a-z_]+]], %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}})
// MLIR: llvm.call @gpupoorTensorMapEncodeTiled(%[[BMAP]], %{{.*}}, %[[K]], %[[N:[0-9a-z_]+]], %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}})
// MLIR: llvm.call @gpupoorTensorMapEncodeTiled(%[[CMAP]], %{{.*}}, %[[N]], %[[M]], %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}})
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%[[GRID]],
// MLIR-SAME: dynamic_shared_memory_size %c230400_i32
// MLIR-SAME: %{{.*}} : i32, %{{.*}} : !llvm.array<16 x i64>, %{{.*}} : !llvm.array<16 x i64>, %{{.*}} : !llvm.array<16 x i64>)
// MLIR-SAME: persistent = true

// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK: .param .align 64 .b8 gpupoor_matmul_0_param_12[128],
// CHECK-NEXT: .param .align 64 .b8 gpupoor_matmul_0_param_13[128],
// CHECK-NEXT: .param .align 64 .b8 gpupoor_matmul_0_param_14[128]
// Dependent launch: the producer's loading thread waits for the previous
// kernel of the stream before its first load, the consumers before
// anything else; no early signal to the next kernel (no kernel signals:
// docs/design/decisions.md#dependent-launch).
// NOSIG-NOT: griddepcontrol.launch_dependents
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: griddepcontrol.wait;
// CHECK: %nctaid.x
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: griddepcontrol.wait;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK: %nctaid.x
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16
// CHECK-NOT: bar.sync
// CHECK: cp.async.bulk.wait_group.read 1;
// CHECK: bar.warp.sync -1;
// CHECK-COUNT-16: st.shared.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.warp.sync -1;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%{{.*}}, {%{{.*}}, %{{.*}}}], [%{{.*}}];
// CHECK-NEXT: cp.async.bulk.commit_group;
// Where C's map cannot describe C, the lanes store their fragments' column
// pairs (elements where C is not 4-byte aligned).
// CHECK: st.global.v2.b16
// CHECK: st.global.b16
// CHECK-NOT: bar.sync
// CHECK: cp.async.bulk.wait_group 0;
// CHECK-NOT: st.global
// CHECK: ret;

// The fallbacks (element copies, 64-bit indices): every thread waits for
// the previous kernel before any global access.
// FALLBACK: .entry
// FALLBACK-NOT: {{(ld|st|atom|red)\.global|cp\.async}}
// FALLBACK: griddepcontrol.wait;

// C takes no requirement beyond the 32-bit bounds: the kernel checks
// whether C's map describes C.
// JSON: "checks": {
// JSON-NOT: "c_ptr"
// JSON: "max_work_tiles":
// JSON-NOT: "stride_cm"
// JSON-NOT: "stride_cn"
// JSON: "dependent_launch": true,
// JSON: "dynamic_shared_memory": 230400,
// JSON: "epilogue_passes": 2,
// JSON: "params": [
// JSON: "b_desc",
// JSON-NEXT: "c_desc"
// JSON: "persistent": true,
// JSON: "requires": "stride_ak == 1, stride_bk == 1, A/B rows and pointers 16-byte aligned, every element offset below 2^31",
// JSON: "tensor_maps": {
// JSON: "c_desc": {
// JSON-NEXT: "box_dim": [
// JSON-NEXT: 64,
// JSON-NEXT: 16
// JSON: "else": "128 zero bytes",
// JSON-NEXT: "encode_if": {
// JSON-NEXT: "pointer_aligned_16": [
// JSON-NEXT: "c_ptr"
// JSON-NEXT: ],
// JSON-NEXT: "positive_row_stride": [
// JSON-NEXT: [
// JSON-NEXT: "stride_cm",
// JSON-NEXT: "M"
// JSON-NEXT: ]
// JSON-NEXT: ],
// JSON-NEXT: "stride_multiple_of_8": [
// JSON-NEXT: "stride_cm",
// JSON-NEXT: "N"
// JSON-NEXT: ],
// JSON-NEXT: "unit_stride": [
// JSON-NEXT: "stride_cn"
// JSON-NEXT: ]
// JSON-NEXT: },
// JSON: "global_address": "c_ptr",
// JSON-NEXT: "global_dim": [
// JSON-NEXT: "N",
// JSON-NEXT: "M"
// JSON: "global_strides_bytes": [
// JSON-NEXT: "stride_cm * 2"
// JSON: "swizzle": "128B"

// The fallbacks of element copies (and 64-bit indices) are neither
// persistent nor stream-K: their launches' configurations say so, which
// the attribute's verifier needs when the output is parsed again. They
// keep the clusters (cluster dimensions and tile order).
// ROUND: gpu.launch_func @gpupoor_matmul_0_module
// ROUND-SAME: copies = tma
// ROUNDK-SAME: persistent = true, stream_k = true>
// ROUND4-SAME: persistent = true, cluster_m = 4>
// ROUND: gpu.launch_func @gpupoor_matmul_0_elements_module
// ROUND-SAME: copies = elements,
// ROUNDK-SAME: index_bitwidth = 32>
// ROUND4-SAME: index_bitwidth = 32, cluster_m = 4>
// ROUND: gpu.launch_func @gpupoor_matmul_0_i64_module
// ROUND-SAME: copies = elements,
// ROUNDK-SAME: index_bitwidth = 64>
// ROUND4-SAME: index_bitwidth = 64, cluster_m = 4>

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
