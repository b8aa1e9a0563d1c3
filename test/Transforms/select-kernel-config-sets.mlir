// RUN: gpupoor-opt %s -gpupoor-select-kernel-config -verify-diagnostics -split-input-file | FileCheck %s

// The mma.sync kernel's f16 sums are loop values beside its outer sums:
// four sums of a 64 x 32 warp tile's 16 fragments each are past the bound.
func.func @sets_mma_sync(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op sets = 4 on the mma.sync kernel takes at most 32 f16 fragments a warp in all (sets * a warp's m16 x n8 tiles), got 64 (a warp tile of 64x32)}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, chip = sm_80, sets = 4>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// At the bound: four sums of the 16 x 256 decode tile's four warps of 16 x
// 64 (eight fragments each) take 32 fragments, and the kernel builds.
// CHECK-LABEL: func @sets_mma_sync_at_bound
// CHECK: chip = sm_90, sets = 4>) config(#gpupoor.kernel_config<warps = [1, 4],
func.func @sets_mma_sync_at_bound(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [16, 256, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
