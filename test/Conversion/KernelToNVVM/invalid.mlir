// RUN: gpupoor-opt %s --pass-pipeline="builtin.module(gpu.module(convert-gpupoor-kernel-to-nvvm))" -verify-diagnostics

// linalg in device code is lowered to loops first; left as it is, the
// conversion would rewrite its body and leave invalid IR (found by fuzzing).
gpu.module @device_linalg {
  gpu.func @k(%c: memref<4x4xf16>) kernel {
    %zero = arith.constant 0.0 : f16
    // expected-error @+1 {{'linalg.fill' op in device code must be lowered (convert-linalg-to-loops) before convert-gpupoor-kernel-to-nvvm}}
    linalg.fill ins(%zero : f16) outs(%c : memref<4x4xf16>)
    gpu.return
  }
}
