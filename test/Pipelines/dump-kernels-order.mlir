// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a slices=1 cubin-format=llvm dump-dir=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=TMA
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0_async.json --check-prefix=ASYNC
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0_elements.json --check-prefix=ELEMENTS
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0_i64.json --check-prefix=I64

// Each manifest's `order` is its kernel's place in the host code's chain of
// launches, the order a launcher tries them in: the configured TMA kernel,
// its cp.async twin (a batch stride a tensor map cannot step), element
// copies, 64-bit indices.
// TMA: "kernel": "gpupoor_matmul_0",
// TMA: "order": 0,
// ASYNC: "kernel": "gpupoor_matmul_0_async",
// ASYNC: "order": 1,
// ELEMENTS: "kernel": "gpupoor_matmul_0_elements",
// ELEMENTS: "order": 2,
// I64: "kernel": "gpupoor_matmul_0_i64",
// I64: "order": 3,
func.func @bmm(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>, %out: memref<?x?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f16
  %bb = tensor.dim %a, %c0 : tensor<?x?x?xf16>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf16>
  %n = tensor.dim %b, %c2 : tensor<?x?x?xf16>
  %e = tensor.empty(%bb, %m, %n) : tensor<?x?x?xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf16>, tensor<?x?x?xf16>)
                           outs(%f : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  bufferization.materialize_in_destination %r in restrict writable %out
      : (tensor<?x?x?xf16>, memref<?x?x?xf16>) -> ()
  return
}
