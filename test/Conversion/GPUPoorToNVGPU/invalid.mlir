// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="warps-n=4 shared-outer-rows=0" -convert-gpupoor-to-nvgpu -verify-diagnostics

func.func @tensor(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'gpupoor.matmul' op has tensor operands; bufferize before convert-gpupoor-to-nvgpu}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<16x8xf32>)
       strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
       : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// An op the wgmma kernel takes (K-major A and B, BK = 64) stays sm_90a.
func.func @wgmma(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op is for sm_90a, whose wgmma kernel convert-gpupoor-to-wgmma builds}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @warp_split(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op tile BM = 80 does not split into 2 warp rows of 16-row MMA tiles}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [80, 128, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @warp_cols(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op tile BN = 32 does not split into 4 warp columns of 16 columns}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 32, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @smem(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op shared memory of 393216 bytes exceeds the 163 KiB a block can have on sm_80}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [256, 256, 128], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
