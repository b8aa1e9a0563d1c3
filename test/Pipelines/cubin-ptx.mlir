// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 slices=1 cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0_elements.ptx --check-prefix=FALLBACK
// The resource summary: a remark on the launch, and the counts in the
// manifest.
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 slices=1 cubin-format=isa dump-dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// 192 mma.sync: 3 copies of a K tile's 64 (main loop, tail loop, peeled
// chunk end).
// SUMMARY: remark: gpupoor_matmul_0: 98304 bytes of dynamic shared memory, 128 threads, 192 mma.sync, 56 ldmatrix, 56 cp.async.cg in the PTX

// linalg.matmul -> PTX, checked without ptxas (format isa).

// MLIR-LABEL: func.func @linear
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// MLIR-NOT: linalg.matmul
// MLIR-NOT: gpupoor.matmul
// MLIR: gpu.binary @gpupoor_matmul_0_module [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "

// The Triton ABI: three global pointers, nine i32, then the bias's pointer
// and its two strides.
// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK-COUNT-3: .param .u64 .ptr .global .align 1 gpupoor_matmul_0_param_{{[0-2]}},
// CHECK-COUNT-9: .param .u32 gpupoor_matmul_0_param_{{[0-9]+}},
// CHECK-NEXT: .param .u64 .ptr .global .align 1 gpupoor_matmul_0_param_12,
// CHECK-NEXT: .param .u32 gpupoor_matmul_0_param_13,
// CHECK-NEXT: .param .u32 gpupoor_matmul_0_param_14
// CHECK-NEXT: )
// CHECK: .maxntid 128, 1, 1
// Dependent launch (sm_90): every thread waits for the previous kernel of
// the stream before its first copy; no early signal to the next one.
// CHECK-NOT: {{(ld|st|atom|red)\.global|cp\.async}}
// CHECK: griddepcontrol.wait;
// CHECK-NOT: griddepcontrol.launch_dependents
// The element-copy fallback likewise.
// FALLBACK: .entry
// FALLBACK-NOT: {{(ld|st|atom|red)\.global|cp\.async}}
// FALLBACK: griddepcontrol.wait;
// FALLBACK-NOT: griddepcontrol.launch_dependents
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK-DAG: cp.async.commit_group;
// CHECK-DAG: cp.async.wait_group 2;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
// Half of the f32 outer sums live in shared memory after the four 16 KiB
// stages: 16-byte accesses at chunk ends.
// CHECK-DAG: ld.shared.v4.b32 {{.*}}+65536];

// JSON: "acc_type": "f16",
// JSON: "async_copies": true,
// JSON: "b_layout": "nk",
// JSON: "batched": false,
// JSON: "block_size": 128,
// JSON: "c_type": "f16",
// The 32-bit kernel's bounds (policy::kernelBounds), as data: M, N, K
// and the strides in [0, 2^31 - 1 - 8192], the operands' last element
// offsets and the block order's ceil(N / 128) * 8 at most 2^31 - 1; a
// sequential kernel has no slice sums to bound.
// JSON: "checks": {
// JSON-NEXT: "bounds": [
// JSON-NEXT: {
// JSON-NEXT: "at_least": 0,
// JSON-NEXT: "at_most": 2147475455,
// JSON-NEXT: "range": "M"
// JSON: "last_offset": "in0",
// JSON-NEXT: "view": [
// JSON-NEXT: "M",
// JSON-NEXT: "stride_in0m",
// JSON-NEXT: "N",
// JSON-NEXT: "stride_in0n"
// JSON: "at_most": 2147483647,
// JSON-NEXT: "by": 128,
// JSON-NEXT: "ceil_div": "N",
// JSON-NEXT: "times": 8
// JSON-NEXT: }
// JSON-NEXT: ],
// JSON-NEXT: "max_offset": 2147483647,
// JSON-NEXT: "max_size": 2147475455,
// JSON-NEXT: "pointer_aligned_16": [
// JSON-NEXT: "a_ptr",
// JSON-NEXT: "b_ptr"
// JSON-NEXT: ],
// JSON-NEXT: "stride_multiple_of_8": [
// JSON-NEXT: "stride_am",
// JSON-NEXT: "stride_bn"
// JSON-NEXT: ],
// JSON-NEXT: "unit_stride": [
// JSON-NEXT: "stride_ak",
// JSON-NEXT: "stride_bk"
// JSON-NEXT: ]
// JSON-NEXT: },
// JSON: "chip": "sm_90",
// JSON: "dependent_launch": true,
// JSON: "dynamic_shared_memory": 98304,
// JSON: "epilogue_inputs": [
// JSON-NEXT: "f16"
// JSON-NEXT: ],
// JSON: "epilogue_passes": 1,
// JSON: "fragment_prefetch": 1,
// JSON: "group_m": 8,
// JSON: "index_bitwidth": 32,
// JSON: "kernel": "gpupoor_matmul_0",
// JSON: "max_splits": 256,
// JSON: "mma_handover": false,
// JSON: "outer": "f32",
// JSON: "param_types": [
// JSON-NEXT: "ptr",
// JSON-NEXT: "ptr",
// JSON-NEXT: "ptr",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32",
// JSON-NEXT: "ptr",
// JSON-NEXT: "i32",
// JSON-NEXT: "i32"
// JSON-NEXT: ],
// JSON-NEXT: "params": [
// JSON-NEXT: "a_ptr",
// JSON: "stride_cn",
// JSON-NEXT: "in0_ptr",
// JSON-NEXT: "stride_in0m",
// JSON-NEXT: "stride_in0n"
// JSON-NEXT: ],
// JSON: "reads_c": false,
// JSON: "requires": "stride_ak == 1, stride_bk == 1, A/B rows and pointers 16-byte aligned, every element offset below 2^31",
// JSON: "shared_epilogue": true,
// JSON: "shared_outer_rows": 2,
// A fixed S: no split rule to carry.
// JSON-NOT: "split_rule"
// JSON: "splits": 16,
// JSON: "stages": 4,
// JSON: "tile": [

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @linear(%x: tensor<256x4096xf16>, %w: tensor<256x4096xf16>, %b: tensor<256xf16>,
                  %out: memref<256x256xf16>) {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x256xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<256x256xf16>) -> tensor<256x256xf16>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<256x4096xf16>, tensor<256x4096xf16>) outs(%c : tensor<256x256xf16>) -> tensor<256x256xf16>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<256x256xf16>, tensor<256xf16>) outs(%e : tensor<256x256xf16>) {
  ^bb0(%v: f16, %bv: f16, %o: f16):
    %s = arith.addf %v, %bv : f16
    linalg.yield %s : f16
  } -> tensor<256x256xf16>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<256x256xf16>) outs(%e : tensor<256x256xf16>) {
  ^bb0(%v: f16, %o: f16):
    %r = arith.maximumf %v, %zero : f16
    linalg.yield %r : f16
  } -> tensor<256x256xf16>
  bufferization.materialize_in_destination %relu in restrict writable %out
      : (tensor<256x256xf16>, memref<256x256xf16>) -> ()
  return
}
