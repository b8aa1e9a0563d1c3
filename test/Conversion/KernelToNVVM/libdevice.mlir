// RUN: gpupoor-opt %s --pass-pipeline="builtin.module(gpupoor-select-kernel-config, convert-gpupoor-to-nvgpu, gpu.module(convert-scf-to-cf, expand-strided-metadata, lower-affine, arith-expand, convert-gpupoor-kernel-to-nvvm))" | FileCheck %s
// The whole pipeline, down to PTX, succeeds.
// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 cubin-format=isa" -o /dev/null

// Math functions in an epilogue call libdevice in the kernel. (MathToLLVM
// would make llvm.tanh.f32 of math.tanh, which the NVPTX backend cannot
// select: gpupoor-opt aborted on tanh-GELU, found by the GPU differential
// test.) f16 math computes in f32 and rounds, as libdevice has no f16 tanh.
// CHECK: gpu.module @gpupoor_matmul_0_module
// CHECK-DAG: llvm.func @__nv_tanhf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_expf(f32) -> f32
// CHECK: llvm.call @__nv_tanhf
// CHECK: %[[E:.*]] = llvm.call @__nv_expf
// CHECK: llvm.fptrunc %[[E]] : f32 to f16
// CHECK-NOT: llvm.intr.tanh
func.func @tanh_gelu(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16> epilogue {
  ^bb0(%acc: f32, %o: f16):
    %k = arith.constant 0.7978845608 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x = arith.mulf %acc, %k : f32
    %t = math.tanh %x : f32
    %p = arith.addf %t, %one : f32
    %hx = arith.mulf %acc, %h : f32
    %g = arith.mulf %hx, %p : f32
    %g16 = arith.truncf %g : f32 to f16
    %e = math.exp %g16 : f16
    gpupoor.yield %e : f16
  }
  return
}
