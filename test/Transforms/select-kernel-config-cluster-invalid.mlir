// Clusters (cluster-m) where a kernel cannot take them, one diagnostic
// each; and a cluster size out of range.
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true cluster-m=4" -verify-diagnostics
// RUN: not gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="tma=true cluster-m=3" 2>&1 | FileCheck %s --check-prefix=SIZE

// SIZE: error: 'gpupoor.matmul' op cluster_m must be 1, 2 or 4, got 3

// B as N x K of 16 rows: a block's quarter of them, 4 rows, is no whole
// 8-row period of the swizzle.
func.func @quarter_rows(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op cluster_m = 4 takes sm_90a's TMA kernel, not stream-K, and B's box rows (BN as N x K, BK as K x N) over cluster_m a multiple of 8}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [64, 16, 64], inner = f16, outer = f32, slices = 1, chip = sm_90a, b_layout = nk>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
