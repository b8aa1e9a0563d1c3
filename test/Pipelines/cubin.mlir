// REQUIRES: ptxas
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_80 outer-type=f16 dump-dir=%t toolkit=%cuda_home" | FileCheck %s
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// The resource summary, read from the cubin: registers and stack frame.
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_80 outer-type=f16 dump-dir=%t toolkit=%cuda_home" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON
// SUMMARY: remark: gpupoor_matmul_0: {{[0-9]+}} bytes of dynamic shared memory, 128 threads, {{[0-9]+}} registers, 0-byte stack frame (no spills)
// JSON-DAG: "registers": {{[1-9][0-9]*}}
// JSON-DAG: "stack_frame_bytes": 0
// Before sm_90 no dependent launch (griddepcontrol needs sm_90).
// JSON-DAG: "dependent_launch": false

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
