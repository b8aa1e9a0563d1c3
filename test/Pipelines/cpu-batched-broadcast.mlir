// RUN: gpupoor-opt %s --gpupoor-cpu-pipeline | FileCheck %s
// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_80 cubin-format=isa" --gpupoor-host-to-llvm | FileCheck %s --check-prefix=GPU

// A batch of products with one broadcast B, the batch and M both dynamic:
// the product stays batched (collapsing batch * M would leave an
// expand_shape of two dynamic sizes in one group, on which LLVM 22's
// expand-strided-metadata crashed), and both pipelines lower it whole.
// CHECK: llvm.func @broadcast_b
// CHECK-NOT: memref.expand_shape
// GPU: llvm.func @broadcast_b
// GPU: gpu.binary
func.func @broadcast_b(%a: tensor<?x?x32xf16>, %w: tensor<32x48xf16>) -> tensor<?x?x48xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f16
  %n = tensor.dim %a, %c0 : tensor<?x?x32xf16>
  %m = tensor.dim %a, %c1 : tensor<?x?x32xf16>
  %eb = tensor.empty(%n) : tensor<?x32x48xf16>
  %bw = linalg.broadcast ins(%w : tensor<32x48xf16>) outs(%eb : tensor<?x32x48xf16>) dimensions = [0]
  %c = tensor.empty(%n, %m) : tensor<?x?x48xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<?x?x48xf16>) -> tensor<?x?x48xf16>
  %r = linalg.batch_matmul ins(%a, %bw : tensor<?x?x32xf16>, tensor<?x32x48xf16>) outs(%f : tensor<?x?x48xf16>) -> tensor<?x?x48xf16>
  return %r : tensor<?x?x48xf16>
}
