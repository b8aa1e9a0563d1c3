// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a tma=false cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON
// RUN: rm -rf %t.p && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a tma=false slices=0 cubin-format=isa dump-dir=%t.p" -o /dev/null
// RUN: FileCheck %s --input-file=%t.p/gpupoor_matmul_0.json --check-prefix=SLICES
// RUN: rm -rf %t.d && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a tile=64,16,64 cubin-format=isa dump-dir=%t.d" -o /dev/null
// RUN: FileCheck %s --input-file=%t.d/gpupoor_matmul_0.json --check-prefix=DECODE

// nn.Linear's product for sm_90a -> PTX, checked without ptxas (format
// isa): the cp.async wgmma kernel (tma=false; cubin-sm90a-tma.mlir: the
// default, warp-specialized TMA kernel), for the sm_90a target.

// MLIR-LABEL: func.func @linear
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// MLIR: gpu.binary @gpupoor_matmul_0_module [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">

// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK: .maxntid 256, 1, 1
// The stages start 1024-byte aligned, as wgmma's 128-byte swizzle needs.
// CHECK: .shared .align 1024 .b8 __dynamic_shmem__0;
// CHECK: cp.async.cg.shared.global
// The chunk's end (the loop's exit block comes first in the PTX), then a
// tile of the loop: the copies made visible to the async proxy, 4 k16 steps
// of m64n256k16 with f16 accumulators, all but the newest group waited for.
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync 0;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;

// JSON: "chip": "sm_90a"

// Parallel split-k: the policy's slice rule for this kernel, as data (B = 1
// for two warpgroups; no one-slice share for 128-row tiles), and the
// workspace a slice of a tile takes.
// SLICES: "slice_rule": {
// SLICES-NEXT: "blocks_per_sm": 1,
// SLICES-NEXT: "one_slice_share": 0,
// SLICES-NEXT: "slices": 0,
// SLICES-NEXT: "sm_count": 132,
// SLICES-NEXT: "swapped": false
// SLICES-NEXT: },
// SLICES: "workspace_bytes_per_tile_slice": 131072
// SLICES-NOT: formula
// Dynamic K: S by the policy's rule in blocks of 32 (its parameters, as
// data), chunks of whole 64-wide tiles, at most 256 of K in the 128 x 256
// tile (policy::kWideTileChunk).
// JSON: "split_rule": {
// JSON-NEXT: "long_k_rule_blocks": 64,
// JSON-NEXT: "longest_chunk": 256,
// JSON-NEXT: "max_splits": 256,
// JSON-NEXT: "min_long_k_splits": 12,
// JSON-NEXT: "rule_block": 32
// JSON-NEXT: },
// JSON-NEXT: "splits": "default",
// A decode tile's rule takes chunks of at most 128 (policy::tileNumSplits).
// DECODE: "split_rule": {
// DECODE-NEXT: "long_k_rule_blocks": 64,
// DECODE-NEXT: "longest_chunk": 128,
// JSON: "tile": [
// JSON-NEXT: 128,
// JSON-NEXT: 256,
// JSON-NEXT: 64
// JSON: "warps": [
// JSON-NEXT: 8,
// JSON-NEXT: 1
func.func @linear(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %c: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c0 : tensor<?x?xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m, %n) : tensor<?x?xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
  %p = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>) outs(%f : tensor<?x?xf16>) -> tensor<?x?xf16>
  bufferization.materialize_in_destination %p in restrict writable %c : (tensor<?x?xf16>, memref<?x?xf16>) -> ()
  return
}
