// The host side of gpupoor-to-cubin's output lowered by gpupoor-host-to-llvm,
// then translated to LLVM IR: the launches become upstream's mgpu* runtime
// calls, the kernels stay embedded as gpu.binary until the translation.
// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_80 cubin-format=isa" --gpupoor-host-to-llvm | FileCheck %s
// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_80 cubin-format=isa" --gpupoor-host-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

// CHECK-NOT: func.func
// CHECK-DAG: gpu.binary @gpupoor_matmul_0_module
// CHECK-DAG: llvm.func @mm(
// CHECK-DAG: llvm.func @_mlir_ciface_mm(
// CHECK-DAG: gpu.launch_func
// CHECK-NOT: func.func

// LLVM-DAG: define void @_mlir_ciface_mm(
// LLVM-DAG: call ptr @mgpuModuleLoadJIT(
// LLVM-DAG: call ptr @mgpuModuleGetFunction(
// LLVM-DAG: call void @mgpuLaunchKernel(
func.func @mm(%a: tensor<64x256xf16>, %b: tensor<256x128xf16>) -> tensor<64x128xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x128xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<64x128xf16>) -> tensor<64x128xf16>
  %r = linalg.matmul ins(%a, %b : tensor<64x256xf16>, tensor<256x128xf16>)
                     outs(%f : tensor<64x128xf16>) -> tensor<64x128xf16>
  return %r : tensor<64x128xf16>
}
