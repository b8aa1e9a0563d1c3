// RUN: gpupoor-opt %s -split-input-file -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// The op bufferizes in place into its init's buffer; since it does not read
// the init, a tensor.empty init needs an allocation but no copy.
// CHECK-LABEL: func @empty_init
// CHECK-SAME: (%[[A:.*]]: memref<32x64xf16>, %[[B:.*]]: memref<64x16xf16>, %[[BIAS:.*]]: memref<16xf32>)
// CHECK: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<32x16xf32>
// CHECK-NOT: memref.copy
// CHECK: gpupoor.matmul %[[A]], %[[B]] ins(%[[BIAS]] : memref<16xf32>) maps([#{{.*}}]) outs(%[[ALLOC]] : memref<32x16xf32>)
// CHECK-SAME: : memref<32x64xf16>, memref<64x16xf16> epilogue {
// CHECK: return %[[ALLOC]]
func.func @empty_init(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %bias: tensor<16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x16xf32>
  %r = gpupoor.matmul %a, %b ins(%bias : tensor<16xf32>) maps([affine_map<(m, n) -> (n)>])
       outs(%e : tensor<32x16xf32>)
       strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>)
       : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %bv: f32, %o: f32):
    %s = arith.addf %acc, %bv : f32
    gpupoor.yield %s : f32
  }
  return %r : tensor<32x16xf32>
}

// -----

// C += A * B reads its init: where the original is still used, it is copied
// into a new buffer first (a zero-filled matmul would need no copy).
// CHECK-LABEL: func @accumulate_copy
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<32x16xf32>
// CHECK: %[[ALLOC:.*]] = memref.alloc
// CHECK: memref.copy %[[C]], %[[ALLOC]]
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%[[ALLOC]] : memref<32x16xf32>)
// CHECK: return %[[ALLOC]], %[[C]]
func.func @accumulate_copy(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>,
                           %c: tensor<32x16xf32>) -> (tensor<32x16xf32>, tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>)
       strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>)
       : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    %s = arith.addf %o, %acc : f32
    gpupoor.yield %s : f32
  }
  return %r, %c : tensor<32x16xf32>, tensor<32x16xf32>
}

// -----

// A residual read at C's own element may share C's buffer (each element is
// read before it is written); one read through another map may not.
// CHECK-LABEL: func @residual_elementwise
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<16x16xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%[[X]] : memref<16x16xf32>) maps([#{{.*}}]) outs(%[[X]] : memref<16x16xf32>)
func.func @residual_elementwise(%a: tensor<16x64xf16>, %b: tensor<64x16xf16>,
                                %x: tensor<16x16xf32> {bufferization.writable = true}) -> tensor<16x16xf32> {
  %r = gpupoor.matmul %a, %b ins(%x : tensor<16x16xf32>) maps([affine_map<(m, n) -> (m, n)>])
       outs(%x : tensor<16x16xf32>)
       strategy(#gpupoor.split_k<tile = [16, 16, 32], inner = f16, outer = f32>)
       : tensor<16x64xf16>, tensor<64x16xf16> -> tensor<16x16xf32> epilogue {
  ^bb0(%acc: f32, %xv: f32, %o: f32):
    %s = arith.addf %acc, %xv : f32
    gpupoor.yield %s : f32
  }
  return %r : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func @residual_transposed
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<16x16xf32>
// CHECK: %[[ALLOC:.*]] = memref.alloc
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%[[X]] : memref<16x16xf32>) maps([#{{.*}}]) outs(%[[ALLOC]] : memref<16x16xf32>)
func.func @residual_transposed(%a: tensor<16x64xf16>, %b: tensor<64x16xf16>,
                               %x: tensor<16x16xf32> {bufferization.writable = true}) -> tensor<16x16xf32> {
  %r = gpupoor.matmul %a, %b ins(%x : tensor<16x16xf32>) maps([affine_map<(m, n) -> (n, m)>])
       outs(%x : tensor<16x16xf32>)
       strategy(#gpupoor.split_k<tile = [16, 16, 32], inner = f16, outer = f32>)
       : tensor<16x64xf16>, tensor<64x16xf16> -> tensor<16x16xf32> epilogue {
  ^bb0(%acc: f32, %xv: f32, %o: f32):
    %s = arith.addf %acc, %xv : f32
    gpupoor.yield %s : f32
  }
  return %r : tensor<16x16xf32>
}

// -----

// A writable function argument as init is written in place.
// CHECK-LABEL: func @inplace
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<32x16xf16>
// CHECK-NOT: memref.alloc
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%[[C]] : memref<32x16xf16>)
func.func @inplace(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>,
                   %c: tensor<32x16xf16> {bufferization.writable = true}) -> tensor<32x16xf16> {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf16>)
       strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f16>)
       : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf16>
  return %r : tensor<32x16xf16>
}

// -----

// The kernel configuration survives bufferization.
// CHECK-LABEL: func @config
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%{{.*}} : memref<128x128xf16>)
// CHECK-SAME: config(#gpupoor.kernel_config<warps = [2, 2], stages = 3, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
func.func @config(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>,
                  %c: tensor<128x128xf16> {bufferization.writable = true}) -> tensor<128x128xf16> {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<128x128xf16>)
       strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f16>)
       config(#gpupoor.kernel_config<warps = [2, 2], stages = 3, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
       : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
  return %r : tensor<128x128xf16>
}
