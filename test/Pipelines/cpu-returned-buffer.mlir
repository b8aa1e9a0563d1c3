// RUN: gpupoor-opt %s -gpupoor-cpu-pipeline | FileCheck %s
// RUN: gpupoor-opt %s -gpupoor-cpu-pipeline | mlir-translate --mlir-to-llvmir -o /dev/null

// A function that returns a buffer it does not own (C as passed in, next
// to the product, or from one branch of an scf.if) returns a copy of it:
// the buffer deallocation pipeline's bufferization.clone becomes an
// allocation and a memcpy, so that the program translates to LLVM IR.
// CHECK-LABEL: llvm.func @returns_c
// CHECK-NOT: bufferization
// CHECK: llvm.call @malloc
// CHECK: "llvm.intr.memcpy"
// CHECK: llvm.return
func.func @returns_c(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %c: tensor<32x32xf16>) -> (tensor<32x32xf16>, tensor<32x32xf16>) {
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  return %mm, %c : tensor<32x32xf16>, tensor<32x32xf16>
}

// CHECK-LABEL: llvm.func @either
// CHECK-NOT: bufferization
// CHECK: "llvm.intr.memcpy"
func.func @either(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %c: tensor<32x32xf16>, %p: i1) -> tensor<32x32xf16> {
  %r = scf.if %p -> tensor<32x32xf16> {
    %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
    scf.yield %mm : tensor<32x32xf16>
  } else {
    scf.yield %c : tensor<32x32xf16>
  }
  return %r : tensor<32x32xf16>
}
