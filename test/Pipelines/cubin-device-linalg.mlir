// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 cubin-format=isa" | FileCheck %s

// A matmul in device code is not rewritten (gpupoor.matmul launches kernels)
// but still compiles: it runs as loops in its thread.
// CHECK: gpu.binary @kernels
// CHECK-NOT: gpupoor
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
