// gpupoor-dump-kernels' errors, one each; every one fails the process.
// RUN: not gpupoor-opt %s -gpupoor-dump-kernels 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not gpupoor-opt %s -gpupoor-dump-kernels=dir=/dev/null/x 2>&1 | FileCheck %s --check-prefix=CREATE
// RUN: rm -rf %t && not gpupoor-opt %s -gpupoor-split-k -gpupoor-select-kernel-config -convert-gpupoor-to-nvgpu -gpupoor-dump-kernels=dir=%t 2>&1 | FileCheck %s --check-prefix=BINARY
// RUN: rm -rf %t && mkdir -p %t/gpupoor_matmul_0.ptx && not gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 cubin-format=isa dump-dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WRITE

// NODIR: error: gpupoor-dump-kernels: no dir given
// CREATE: error: gpupoor-dump-kernels: cannot create '/dev/null/x'
// BINARY: error: gpupoor-dump-kernels: no gpu.binary for this kernel; run gpu-module-to-binary first
// WRITE: error: cannot write '{{.*}}gpupoor_matmul_0.ptx'
func.func @mm(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%c : memref<64x64xf16>)
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf16>)
  return
}
