// RUN: gpupoor-opt %s -gpupoor-select-kernel-config -verify-diagnostics -split-input-file

// The mma.sync kernel's f16 sums are loop values beside its outer sums:
// four sums of a 64 x 32 warp tile's 16 fragments each are past the bound.
func.func @sets_mma_sync(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op sets = 4 on the mma.sync kernel takes at most 32 f16 fragments a warp in all (sets * a warp's m16 x n8 tiles), got 64 (a warp tile of 64x32)}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, chip = sm_80, sets = 4>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
