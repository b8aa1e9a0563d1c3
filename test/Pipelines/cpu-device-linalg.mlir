// RUN: gpupoor-opt %s --gpupoor-cpu-pipeline | FileCheck %s

// The CPU pipeline leaves device code to the GPU flow, but keeps it valid:
// linalg there becomes loops before the LLVM lowering rewrites arith (which
// used to leave a linalg.matmul whose body was LLVM ops; found by fuzzing).
// CHECK: gpu.func @device
// CHECK-NOT: linalg.
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @device(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) kernel {
      %zero = arith.constant 0.0 : f16
      linalg.fill ins(%zero : f16) outs(%c : memref<32x32xf16>)
      linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x32xf16>) outs(%c : memref<32x32xf16>)
      gpu.return
    }
  }
}
