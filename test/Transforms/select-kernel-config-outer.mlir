// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config | FileCheck %s

// f32 outer sums of at most two f16 chunk sums, rounded to an f16 C with
// nothing after the sum, are what f16 outer sums give bit for bit: the
// selection takes f16 ones (half the registers and handover work).

// A static K of two 64-wide K tiles: at most two chunks, whatever S.
// CHECK-LABEL: func @two_k_tiles
// CHECK: strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f16, b_layout = nk, chip = sm_90a>)
func.func @two_k_tiles(%a: memref<32x512x128xf16>, %b: memref<32x512x128xf16>, %c: memref<32x512x512xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<32x512x512xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      : memref<32x512x128xf16>, memref<32x512x128xf16>
  return
}

// -----

// S = 2 fixed: any K.
// CHECK-LABEL: func @two_splits
// CHECK: strategy(#gpupoor.split_k<splits = 2, tile = [128, 128, 32], inner = f16, outer = f16, chip = sm_90>)
func.func @two_splits(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<splits = 2, tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Three K tiles, S left to run time: three chunks may meet; f32 stays.
// CHECK-LABEL: func @three_k_tiles
// CHECK: outer = f32
func.func @three_k_tiles(%a: memref<64x96xf16>, %b: memref<96x64xf16>, %c: memref<64x64xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x64xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<64x96xf16>, memref<96x64xf16>
  return
}

// -----

// A dynamic K and S: f32 stays.
// CHECK-LABEL: func @dynamic_k
// CHECK: outer = f32
func.func @dynamic_k(%a: memref<64x?xf16>, %b: memref<?x64xf16>, %c: memref<64x64xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x64xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<64x?xf16>, memref<?x64xf16>
  return
}

// -----

// An f32 C takes the f32 sum itself; f32 stays.
// CHECK-LABEL: func @f32_c
// CHECK: outer = f32
func.func @f32_c(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x64xf32>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<64x64xf16>, memref<64x64xf16>
  return
}

// -----

// An epilogue receives the f32 sum before C's rounding (here it adds C):
// f32 stays.
// CHECK-LABEL: func @epilogue
// CHECK: outer = f32
func.func @epilogue(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x64xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<64x64xf16>, memref<64x64xf16> epilogue {
  ^bb0(%acc: f32, %cin: f16):
    %e = arith.extf %cin : f16 to f32
    %s = arith.addf %acc, %e : f32
    %t = arith.truncf %s : f32 to f16
    gpupoor.yield %t : f16
  }
  return
}
