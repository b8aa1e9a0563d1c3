// Clusters of two (cluster-m=2) where a kernel cannot take them, one
// diagnostic each; and a cluster size out of range.
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true cluster-m=2 blocks-per-sm=2" -verify-diagnostics
// RUN: not gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true cluster-m=3" 2>&1 | FileCheck %s --check-prefix=SIZE

// SIZE: error: 'gpupoor.matmul' op cluster_m must be 1 or 2, got 3

// Two blocks an SM: a cluster's pair takes one SM each.
func.func @two_blocks(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op cluster_m = 2 takes sm_90a's TMA kernel, not stream-K, one block an SM, and half of B's box rows (BN as N x K, BK as K x N) a multiple of 8}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 128, 64], inner = f16, outer = f32, slices = 1, chip = sm_90a, b_layout = nk>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

