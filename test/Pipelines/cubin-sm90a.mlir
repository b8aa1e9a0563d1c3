// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a tma=false cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON

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
// Dynamic K: S by the rule in blocks of 32, chunks of whole 64-wide tiles.
// JSON: "splits": "default",
// JSON-NEXT: "splits_formula": "S = clamp(max(R <= 1 ? 1 : next_pow2(R), n >= 64 ? 12 : 1), 1, 32), R = floor(sqrt(n)), n = ceil(K/32); chunk s < C = min(S, B) = K tiles [s*q + min(s, r), (s+1)*q + min(s+1, r)), B = q*C + r = ceil(K/64); chunks s >= C empty",
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
