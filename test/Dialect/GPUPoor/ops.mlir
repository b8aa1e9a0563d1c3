// RUN: gpupoor-opt %s -split-input-file | FileCheck %s
// Round-trip through the generic form too: the printed custom form must parse
// back to the same IR.
// RUN: gpupoor-opt %s -split-input-file -mlir-print-op-generic | gpupoor-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @tensor_matmul
// CHECK: %[[R:.*]] = gpupoor.matmul %{{.*}}, %{{.*}} outs(%{{.*}} : tensor<128x256xf32>)
// CHECK-SAME: strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>
// CHECK-SAME: : tensor<128x512xf16>, tensor<512x256xf16> -> tensor<128x256xf32>
// CHECK: return %[[R]]
func.func @tensor_matmul(%a: tensor<128x512xf16>, %b: tensor<512x256xf16>,
                         %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<128x256xf32>)
       strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
       : tensor<128x512xf16>, tensor<512x256xf16> -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// Every strategy parameter spelled out, with a bias and a transposed B.
// CHECK-LABEL: func @full_strategy
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<256xf16>) outs(%{{.*}} : tensor<128x256xf16>)
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 4, max_splits = 16, tile = [64, 64, 64], inner = f16, outer = f16, epilogue = relu, b_layout = nk, chip = sm_89>
// CHECK-SAME: : tensor<128x512xf16>, tensor<256x512xf16> -> tensor<128x256xf16>
func.func @full_strategy(%a: tensor<128x512xf16>, %b: tensor<256x512xf16>,
                         %bias: tensor<256xf16>, %c: tensor<128x256xf16>)
    -> tensor<128x256xf16> {
  %r = gpupoor.matmul %a, %b bias(%bias : tensor<256xf16>)
       outs(%c : tensor<128x256xf16>)
       strategy(#gpupoor.split_k<splits = 4, max_splits = 16, tile = [64, 64, 64],
                        inner = f16, outer = f16, epilogue = relu,
                        b_layout = nk, chip = sm_89>)
       : tensor<128x512xf16>, tensor<256x512xf16> -> tensor<128x256xf16>
  return %r : tensor<128x256xf16>
}

// -----

// Default-valued parameters are elided when printed.
// CHECK-LABEL: func @defaults_elided
// CHECK: #gpupoor.split_k<tile = [16, 8, 16], inner = f16, outer = f32, epilogue = gelu>
func.func @defaults_elided(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>,
                           %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<16x8xf32>)
       strategy(#gpupoor.split_k<max_splits = 32, tile = [16, 8, 16], inner = f16,
                        outer = f32, epilogue = gelu, b_layout = kn,
                        chip = sm_80>)
       : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// Memref form: writes init in place, no result.
// CHECK-LABEL: func @memref_matmul
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} bias(%{{.*}} : memref<?xf32>) outs(%{{.*}} : memref<?x?xf32>)
// CHECK-SAME: : memref<?x?xf16>, memref<?x?xf16>{{$}}
func.func @memref_matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>,
                         %bias: memref<?xf32>, %c: memref<?x?xf32>) {
  gpupoor.matmul %a, %b bias(%bias : memref<?xf32>) outs(%c : memref<?x?xf32>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Batched, with a strided memref operand and the Hopper tile shape.
// CHECK-LABEL: func @batched_memref
// CHECK: gpupoor.matmul
// CHECK-SAME: chip = sm_90a
// CHECK-SAME: : memref<3x40x520xf16, strided<[20800, 520, 1]>>, memref<3x520x72xf16>
func.func @batched_memref(%a: memref<3x40x520xf16, strided<[20800, 520, 1]>>,
                          %b: memref<3x520x72xf16>, %c: memref<3x40x72xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<3x40x72xf16>)
      strategy(#gpupoor.split_k<tile = [128, 256, 64], inner = f16, outer = f32,
                       chip = sm_90a>)
      : memref<3x40x520xf16, strided<[20800, 520, 1]>>, memref<3x520x72xf16>
  return
}

// -----

// Dynamic batched tensors with a transposed B.
// CHECK-LABEL: func @batched_dynamic
// CHECK: gpupoor.matmul
// CHECK-SAME: b_layout = nk
// CHECK-SAME: : tensor<?x?x?xf16>, tensor<?x?x?xf16> -> tensor<?x?x?xf16>
func.func @batched_dynamic(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>,
                           %c: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<?x?x?xf16>)
       strategy(#gpupoor.split_k<splits = 1, tile = [32, 32, 32], inner = f16,
                        outer = f16, b_layout = nk>)
       : tensor<?x?x?xf16>, tensor<?x?x?xf16> -> tensor<?x?x?xf16>
  return %r : tensor<?x?x?xf16>
}

// -----

// The strategy attribute on its own, as a discardable attribute.
// CHECK-LABEL: func @attr_alone
// CHECK-SAME: gpupoor.strategy = #gpupoor.split_k<splits = 2, tile = [64, 128, 32], inner = f16, outer = f16>
func.func @attr_alone() attributes {
    gpupoor.strategy = #gpupoor.split_k<splits = 2, tile = [64, 128, 32],
                                        inner = f16, outer = f16>} {
  return
}

// -----

// A kernel configuration, as gpupoor-select-kernel-config sets it.
// CHECK-LABEL: func @with_config
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%{{.*}} : memref<?x?xf16>)
// CHECK-SAME: strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
// CHECK-SAME: config(#gpupoor.kernel_config<warps = [2, 4], stages = 3, group_m = 4, copies = elements, fragment_prefetch = 0, shared_outer_rows = 1, epilogue_passes = 2, handover = mma, index_bitwidth = 64>)
func.func @with_config(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 4], stages = 3, group_m = 4, copies = elements, fragment_prefetch = 0, shared_outer_rows = 1, epilogue_passes = 2, handover = mma, index_bitwidth = 64>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
