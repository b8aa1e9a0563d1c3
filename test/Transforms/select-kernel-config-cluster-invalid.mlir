// Clusters of two (cluster-m=2) where a kernel cannot take them, one
// diagnostic each; and a cluster size out of range.
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true cluster-m=2" -verify-diagnostics
// RUN: not gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true cluster-m=3" 2>&1 | FileCheck %s --check-prefix=SIZE

// SIZE: error: 'gpupoor.matmul' op cluster_m must be 1 or 2, got 3

// B as K x N: its cluster kernels are refused (KernelSpec::verify says why).
func.func @kn(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op cluster_m = 2 takes sm_90a's TMA kernel with B as N x K, not stream-K, one block an SM, and BN a multiple of 16}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 128, 64], inner = f16, outer = f32, slices = 1, chip = sm_90a>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

