// RUN: gpupoor-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(convert-gpupoor-kernel-to-nvvm))" -verify-diagnostics

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

// -----

// libdevice's powi takes an i32 exponent: an i64 one that is not a
// constant cannot be narrowed.
gpu.module @powi {
  gpu.func @k(%c: memref<4xf16>, %n: i64) kernel {
    %i = arith.constant 0 : index
    %x = memref.load %c[%i] : memref<4xf16>
    // expected-error @+1 {{'math.fpowi' op exponent of type 'i64' is not a constant that fits in i32 (libdevice's powi takes an i32)}}
    %y = math.fpowi %x, %n : f16, i64
    memref.store %y, %c[%i] : memref<4xf16>
    gpu.return
  }
}
