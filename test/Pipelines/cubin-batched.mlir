// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 slices=1 cubin-format=isa dump-dir=%t" | FileCheck %s
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON

// linalg.batch_matmul becomes one launch of every batch element's blocks,
// the Triton ABI plus A's, B's and C's batch strides and the batch count.
// CHECK-LABEL: func.func @bmm
// CHECK-NOT: scf.for
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: launch = batched
// The cp.async kernel, and for operands its requirements do not fit (the
// same for every batch element), element copies, with 64-bit indices for
// 2^31 elements and more:
// CHECK: gpu.binary @gpupoor_matmul_0_module
// CHECK: gpu.binary @gpupoor_matmul_0_elements_module
// CHECK: gpu.binary @gpupoor_matmul_0_i64_module
// CHECK-NOT: gpu.binary

// JSON: "async_copies": true,
// JSON: "batched": true,
// JSON: "params": [
// JSON: "stride_cn",
// JSON-NEXT: "stride_ab",
// JSON-NEXT: "stride_bb",
// JSON-NEXT: "stride_cb",
// JSON-NEXT: "batch"
// JSON-NEXT: ],
func.func @bmm(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>, %out: memref<?x?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f16
  %nb = tensor.dim %a, %c0 : tensor<?x?x?xf16>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf16>
  %n = tensor.dim %b, %c2 : tensor<?x?x?xf16>
  %e = tensor.empty(%nb, %m, %n) : tensor<?x?x?xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf16>, tensor<?x?x?xf16>)
                           outs(%f : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  bufferization.materialize_in_destination %r in restrict writable %out
      : (tensor<?x?x?xf16>, memref<?x?x?xf16>) -> ()
  return
}

