// RUN: gpupoor-opt %s -split-input-file -gpupoor-swap-operands | FileCheck %s

// C = A B^T with a per-column bias, run as C^T = B A^T: B and A exchange
// places, C becomes its transposed view, the bias is read per row of the
// swapped product, the strategy is no longer swapped, and the op says
// where it came from.
// The bias map, (n) of (m, n), is (m) of the swapped product's (m, n).
// CHECK: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @bias
// CHECK-SAME: (%[[A:.*]]: memref<1x4096xf16>, %[[B:.*]]: memref<4096x4096xf16>, %[[BIAS:.*]]: memref<4096xf16>, %[[C:.*]]: memref<1x4096xf16>)
// CHECK: %[[CT:.*]] = memref.transpose %[[C]] (d0, d1) -> (d1, d0) : memref<1x4096xf16> to memref<4096x1xf16, strided<[1, 4096]>>
// CHECK: gpupoor.matmul %[[B]], %[[A]] ins(%[[BIAS]] : memref<4096xf16>) maps([#[[ROW]]]) outs(%[[CT]] : memref<4096x1xf16, strided<[1, 4096]>>)
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
// CHECK-SAME: {gpupoor.swapped_operands}
// CHECK-SAME: : memref<4096x4096xf16>, memref<1x4096xf16> epilogue
// CHECK: arith.addf
// CHECK-NOT: swapped = true
#col = affine_map<(m, n) -> (n)>
func.func @bias(%a: memref<1x4096xf16>, %b: memref<4096x4096xf16>, %bias: memref<4096xf16>, %c: memref<1x4096xf16>) {
  gpupoor.matmul %a, %b ins(%bias : memref<4096xf16>) maps([#col]) outs(%c : memref<1x4096xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true>)
      : memref<1x4096xf16>, memref<4096x4096xf16> epilogue {
  ^bb0(%acc: f16, %x: f16, %out: f16):
    %s = arith.addf %acc, %x : f16
    gpupoor.yield %s : f16
  }
  return
}

// -----

// C += A B^T reads C through the same view; a full-size operand's map
// swaps its indices; an op that is not swapped, and one on tensors, stay.
// CHECK: #[[SWAP:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func @accumulate
// CHECK: %[[CT:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0)
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%{{.*}} : memref<16x4096xf16>) maps([#[[SWAP]]]) outs(%[[CT]]
// CHECK-SAME: gpupoor.swapped_operands
// CHECK: ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[OUT:.*]]: f16):
// CHECK: arith.addf %{{.*}}, %[[OUT]]
// CHECK-LABEL: func @plain
// CHECK-NOT: memref.transpose
// CHECK-NOT: gpupoor.swapped_operands
// CHECK-LABEL: func @tensors
// CHECK-NOT: gpupoor.swapped_operands
// CHECK: swapped = true
#id = affine_map<(m, n) -> (m, n)>
func.func @accumulate(%a: memref<16x4096xf16>, %b: memref<4096x4096xf16>, %r: memref<16x4096xf16>, %c: memref<16x4096xf16>) {
  gpupoor.matmul %a, %b ins(%r : memref<16x4096xf16>) maps([#id]) outs(%c : memref<16x4096xf16>)
      strategy(#gpupoor.split_k<tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true>)
      : memref<16x4096xf16>, memref<4096x4096xf16> epilogue {
  ^bb0(%acc: f16, %x: f16, %out: f16):
    %s = arith.addf %acc, %x : f16
    %t = arith.addf %s, %out : f16
    gpupoor.yield %t : f16
  }
  return
}
func.func @plain(%a: memref<1x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1x4096xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1x4096xf16>)
      strategy(#gpupoor.split_k<tile = [16, 128, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90>)
      : memref<1x4096xf16>, memref<4096x4096xf16>
  return
}
func.func @tensors(%a: tensor<1x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<1x4096xf16>) -> tensor<1x4096xf16> {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<1x4096xf16>)
      strategy(#gpupoor.split_k<tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true>)
      : tensor<1x4096xf16>, tensor<4096x4096xf16> -> tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}

// -----

// B as K x N: the swapped product's A is B, K x M (a_layout = km); its B is
// A, N x K.
// CHECK-LABEL: func @kn
// CHECK-SAME: (%[[A:.*]]: memref<2x4096xf16>, %[[B:.*]]: memref<4096x8192xf16>, %[[C:.*]]: memref<2x8192xf16>)
// CHECK: %[[CT:.*]] = memref.transpose %[[C]]
// CHECK: gpupoor.matmul %[[B]], %[[A]] outs(%[[CT]] : memref<8192x2xf16, strided<[1, 8192]>>)
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90a>)
// CHECK-SAME: : memref<4096x8192xf16>, memref<2x4096xf16>
func.func @kn(%a: memref<2x4096xf16>, %b: memref<4096x8192xf16>, %c: memref<2x8192xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<2x8192xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 64], inner = f16, outer = f32, chip = sm_90a, swapped = true>)
      : memref<2x4096xf16>, memref<4096x8192xf16>
  return
}

// -----

// A as K x M: the swapped product's B is A, K x N (b_layout = kn), its A
// is B (N x K, a_layout = mk).
// CHECK-LABEL: func @km
// CHECK-SAME: (%[[A:.*]]: memref<4096x8xf16>, %[[B:.*]]: memref<8192x4096xf16>, %[[C:.*]]: memref<8x8192xf16>)
// CHECK: %[[CT:.*]] = memref.transpose %[[C]]
// CHECK: gpupoor.matmul %[[B]], %[[A]] outs(%[[CT]] : memref<8192x8xf16, strided<[1, 8192]>>)
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 64], inner = f16, outer = f32, chip = sm_90a>)
// CHECK-SAME: : memref<8192x4096xf16>, memref<4096x8xf16>
func.func @km(%a: memref<4096x8xf16>, %b: memref<8192x4096xf16>, %c: memref<8x8192xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<8x8192xf16>)
      strategy(#gpupoor.split_k<splits = 16, tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90a, swapped = true>)
      : memref<4096x8xf16>, memref<8192x4096xf16>
  return
}
