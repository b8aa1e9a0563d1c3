// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a slices=0 cubin-format=llvm dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json
// RUN: test -s %t/gpupoor_matmul_0.bc
// RUN: not test -e %t/gpupoor_matmul_0.cubin
// RUN: not test -e %t/gpupoor_matmul_0.ptx

// cubin-format=llvm: the kernels as unoptimized LLVM bitcode (O = 0),
// without LLVM's optimizations, NVPTX code generation or ptxas, and the same
// manifests (what tools that read only the manifests, such as the package's
// launch tests, need).

// MLIR-LABEL: func.func @linear
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// MLIR: gpu.binary @gpupoor_matmul_0_module [#gpu.object<#nvvm.target<O = 0, chip = "sm_90a"{{.*}}>, offload = "

// CHECK: "kernel": "gpupoor_matmul_0",
// CHECK: "llvm_bitcode": "gpupoor_matmul_0.bc",
// CHECK: "params": [
// CHECK-NEXT: "a_ptr",
// CHECK-NOT: "cubin":
// CHECK-NOT: "ptx":
func.func @linear(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %out: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f16
  %m = tensor.dim %a, %c0 : tensor<?x?xf16>
  %n = tensor.dim %b, %c1 : tensor<?x?xf16>
  %e = tensor.empty(%m, %n) : tensor<?x?xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%f : tensor<?x?xf16>) -> tensor<?x?xf16>
  bufferization.materialize_in_destination %r in restrict writable %out
      : (tensor<?x?xf16>, memref<?x?xf16>) -> ()
  return
}
