// RUN: not gpupoor-opt %s -gpupoor-select-kernel-config=stages=1 -convert-gpupoor-to-nvgpu 2>&1 | FileCheck %s

// CHECK: error: 'gpupoor.matmul' op the copy pipeline needs at least 2 stages, got 1
func.func @mm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
