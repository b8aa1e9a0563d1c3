// RUN: gpupoor-opt %s --pass-pipeline="builtin.module(gpu.module(convert-gpupoor-kernel-to-nvvm))" | FileCheck %s

// The ONNX importer's tanh-GELU has x^3 as math.fpowi with an i64 exponent;
// libdevice's __nv_powif takes an i32, so the constant is narrowed (passed
// as i64, the H100 read garbage: found by the front-end tests).
// CHECK-LABEL: llvm.func @k
// CHECK: %[[THREE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: llvm.call @__nv_powif(%{{.*}}, %[[THREE]]) : (f32, i32) -> f32
gpu.module @powi {
  gpu.func @k(%c: memref<4xf16>) kernel {
    %i = arith.constant 0 : index
    %three = arith.constant 3 : i64
    %x = memref.load %c[%i] : memref<4xf16>
    %y = math.fpowi %x, %three : f16, i64
    memref.store %y, %c[%i] : memref<4xf16>
    gpu.return
  }
}
