// RUN: gpupoor-opt %s -split-input-file --gpupoor-to-cubin="chip=sm_90 cubin-format=isa" -verify-diagnostics -o /dev/null

// Host code the user wrote that reads a buffer: refused.
func.func @host_load(%a: memref<16x64xf16>, %b: memref<64x16xf16>, %c: memref<16x16xf16>) -> f16 {
  %c0 = arith.constant 0 : index
  linalg.matmul ins(%a, %b : memref<16x64xf16>, memref<64x16xf16>)
                outs(%c : memref<16x16xf16>)
  // expected-error @+1 {{host code would access GPU memory here ('memref.load')}}
  %v = memref.load %c[%c0, %c0] : memref<16x16xf16>
  return %v : f16
}

