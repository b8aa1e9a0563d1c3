// REQUIRES: ptxas
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_80 outer-type=f16 dump-dir=%t toolkit=%cuda_home" | FileCheck %s
// RUN: ls %t | FileCheck %s --check-prefix=FILES

// With ptxas, the pipeline embeds a cubin and writes it out with its
// manifest.
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK: gpu.binary @gpupoor_matmul_0_module [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {{.*}}, bin = "
// FILES: gpupoor_matmul_0.cubin
// FILES: gpupoor_matmul_0.json
func.func @mm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  %cst = arith.constant 0.0 : f16
  linalg.fill ins(%cst : f16) outs(%c : memref<?x?xf16>)
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf16>)
  return
}
