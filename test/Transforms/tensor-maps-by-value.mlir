// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true" -convert-gpupoor-to-wgmma -gpupoor-tensor-maps-by-value -verify-diagnostics

// The launch still names a gpu.func, whose parameters are the maps'
// pointers: passing the 128 bytes would not match it.
func.func @too_early(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpu.launch_func' op gpupoor-tensor-maps-by-value runs once the kernel is a gpu.binary (after gpu-module-to-binary)}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
