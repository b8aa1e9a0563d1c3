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

// Every strategy parameter spelled out, with a transposed B and an epilogue:
// a per-column bias, a 0-d bound and a per-row scale.
// CHECK-LABEL: func @full_strategy
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<256xf16>, tensor<f16>, tensor<128xf32>)
// CHECK-SAME: maps([#[[COL:.*]], #[[SCALAR:.*]], #[[ROW:.*]]]) outs(%{{.*}} : tensor<128x256xf16>)
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 4, max_splits = 16, tile = [64, 64, 64], inner = f16, outer = f16, b_layout = nk, chip = sm_89>
// CHECK-SAME: : tensor<128x512xf16>, tensor<256x512xf16> -> tensor<128x256xf16> epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[BIAS:.*]]: f16, %[[LO:.*]]: f16, %[[S:.*]]: f32, %{{.*}}: f16):
// CHECK: gpupoor.yield %{{.*}} : f16
func.func @full_strategy(%a: tensor<128x512xf16>, %b: tensor<256x512xf16>,
                         %bias: tensor<256xf16>, %lo: tensor<f16>,
                         %scale: tensor<128xf32>, %c: tensor<128x256xf16>)
    -> tensor<128x256xf16> {
  %r = gpupoor.matmul %a, %b
       ins(%bias, %lo, %scale : tensor<256xf16>, tensor<f16>, tensor<128xf32>)
       maps([affine_map<(m, n) -> (n)>, affine_map<(m, n) -> ()>,
             affine_map<(m, n) -> (m)>])
       outs(%c : tensor<128x256xf16>)
       strategy(#gpupoor.split_k<splits = 4, max_splits = 16, tile = [64, 64, 64],
                        inner = f16, outer = f16, b_layout = nk, chip = sm_89>)
       : tensor<128x512xf16>, tensor<256x512xf16> -> tensor<128x256xf16>
       epilogue {
  ^bb0(%acc: f32, %bv: f16, %l: f16, %s: f32, %out: f16):
    %x = arith.mulf %acc, %s : f32
    %t = arith.truncf %x : f32 to f16
    %y = arith.addf %t, %bv : f16
    %p = arith.cmpf ugt, %y, %l : f16
    %z = arith.select %p, %y, %l : f16
    gpupoor.yield %z : f16
  }
  return %r : tensor<128x256xf16>
}

// -----

// Default-valued parameters are elided when printed.
// CHECK-LABEL: func @defaults_elided
// CHECK: #gpupoor.split_k<tile = [16, 8, 16], inner = f16, outer = f32>
func.func @defaults_elided(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>,
                           %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<16x8xf32>)
       strategy(#gpupoor.split_k<max_splits = 256, tile = [16, 8, 16], inner = f16,
                        outer = f32, b_layout = kn, chip = sm_80>)
       : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// Memref form: writes init in place, no result; C += A * B reads init.
// CHECK-LABEL: func @memref_matmul
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%{{.*}} : memref<?x?xf32>)
// CHECK-SAME: : memref<?x?xf16>, memref<?x?xf16> epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[C:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[ACC]] : f32
// CHECK-NEXT: gpupoor.yield %[[S]] : f32
func.func @memref_matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>,
                         %c: memref<?x?xf32>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf32>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16> epilogue {
  ^bb0(%acc: f32, %cin: f32):
    %s = arith.addf %cin, %acc : f32
    gpupoor.yield %s : f32
  }
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
