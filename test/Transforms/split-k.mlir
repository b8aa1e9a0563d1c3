// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k=slices=1 | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="slices=1 splits=3 outer-type=f16 tile=64,64,64 chip=sm_89" | FileCheck %s --check-prefix=OPTS

// M = 16 takes the 16 x 128 x 128 tile; S counts K = 4096 in blocks of 32
// whatever BK: 128 blocks, floor(sqrt(128)) = 11, next_pow2 = 16.
// CHECK-LABEL: func @matmul_f32
// CHECK-SAME: (%[[A:.*]]: tensor<16x4096xf16>, %[[B:.*]]: tensor<4096x256xf16>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16x256xf32>
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.matmul
// CHECK: %[[R:.*]] = gpupoor.matmul %[[A]], %[[B]] outs(%[[E]] : tensor<16x256xf32>)
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 16, tile = [16, 128, 128], inner = f16, outer = f32>)
// CHECK: return %[[R]]
// OPTS-LABEL: func @matmul_f32
// OPTS: strategy(#gpupoor.split_k<splits = 3, tile = [64, 64, 64], inner = f16, outer = f16, chip = sm_89>)
func.func @matmul_f32(%a: tensor<16x4096xf16>, %b: tensor<4096x256xf16>) -> tensor<16x256xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x256xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<16x256xf32>) -> tensor<16x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x4096xf16>, tensor<4096x256xf16>)
                     outs(%c : tensor<16x256xf32>) -> tensor<16x256xf32>
  return %r : tensor<16x256xf32>
}

// -----

// The nn.Linear layout, B[N, K], through indexing_maps; f16 result; the
// per-op attribute overrides the rule and the pass option.
// CHECK-LABEL: func @matmul_transpose_b
// CHECK: gpupoor.matmul
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 5, tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk>)
// CHECK-SAME: : tensor<33x1031xf16>, tensor<65x1031xf16> -> tensor<33x65xf16>
// OPTS-LABEL: func @matmul_transpose_b
// OPTS: splits = 5
func.func @matmul_transpose_b(%a: tensor<33x1031xf16>, %b: tensor<65x1031xf16>) -> tensor<33x65xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<33x65xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<33x65xf16>) -> tensor<33x65xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                          affine_map<(m, n, k) -> (n, k)>,
                          affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<33x1031xf16>, tensor<65x1031xf16>)
         outs(%c : tensor<33x65xf16>) {gpupoor.splits = 5 : i64} -> tensor<33x65xf16>
  return %r : tensor<33x65xf16>
}

// -----

// Batched; K = 520 is 17 blocks of 32 -> floor(sqrt(17)) = 4 -> 4 splits.
// CHECK-LABEL: func @batch_matmul
// CHECK: gpupoor.matmul
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 4, tile = [64, 128, 64], inner = f16, outer = f32>)
// CHECK-SAME: : tensor<3x40x520xf16>, tensor<3x520x72xf16> -> tensor<3x40x72xf32>
func.func @batch_matmul(%a: tensor<3x40x520xf16>, %b: tensor<3x520x72xf16>) -> tensor<3x40x72xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x40x72xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<3x40x72xf32>) -> tensor<3x40x72xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x40x520xf16>, tensor<3x520x72xf16>)
                           outs(%c : tensor<3x40x72xf32>) -> tensor<3x40x72xf32>
  return %r : tensor<3x40x72xf32>
}

// -----

// Dynamic K: the split count is left to run time.
// CHECK-LABEL: func @dynamic
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%[[E]] : tensor<?x?xf32>)
// CHECK-SAME: strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
func.func @dynamic(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %m: index, %n: index) -> tensor<?x?xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Memrefs: the zero fill right before the matmul makes it eligible.
// CHECK-LABEL: func @memref
// CHECK-NOT: linalg.fill
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%{{.*}} : memref<64x64xf32>)
// CHECK-SAME: strategy(#gpupoor.split_k<splits = 16, tile = [64, 128, 64], inner = f16, outer = f32>)
// CHECK-SAME: : memref<64x3104xf16>, memref<3104x64xf16>{{$}}
// CHECK-NOT: linalg.matmul
func.func @memref(%a: memref<64x3104xf16>, %b: memref<3104x64xf16>, %c: memref<64x64xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x3104xf16>, memref<3104x64xf16>)
                outs(%c : memref<64x64xf32>)
  return
}

// -----

// Bias broadcast over rows, then ReLU, both as linalg.generic: one op.
// CHECK-LABEL: func @bias_relu_generic
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<256xf16>
// CHECK-NOT: linalg.generic
// CHECK: %[[R:.*]] = gpupoor.matmul %{{.*}}, %{{.*}} ins(%[[BIAS]] : tensor<256xf16>) maps([#{{.*}}])
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: gpupoor.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu_generic(%a: tensor<128x512xf16>, %b: tensor<512x256xf16>, %bias: tensor<256xf16>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<128x512xf16>, tensor<512x256xf16>)
                      outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<128x256xf32>, tensor<256xf16>) outs(%e : tensor<128x256xf32>) {
  ^bb0(%x: f32, %y: f16, %o: f32):
    %yf = arith.extf %y : f16 to f32
    %s = arith.addf %x, %yf : f32
    linalg.yield %s : f32
  } -> tensor<128x256xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<128x256xf32>
  return %relu : tensor<128x256xf32>
}

// -----

// Exact (erf) GELU written out in a generic, no bias.
// CHECK-LABEL: func @gelu
// CHECK: gpupoor.matmul
// CHECK: math.erf
// CHECK: arith.truncf
// CHECK: gpupoor.yield
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118654752 : f32
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%x: f16, %o: f16):
    %xf = arith.extf %x : f16 to f32
    %s = arith.mulf %xf, %rsqrt2 : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %xf, %half : f32
    %y = arith.mulf %h, %p : f32
    %yt = arith.truncf %y : f32 to f16
    linalg.yield %yt : f16
  } -> tensor<32x32xf16>
  return %g : tensor<32x32xf16>
}

// -----

// Named ops: linalg.add with a broadcast bias, linalg.max against zeros.
// CHECK-LABEL: func @named_bias_relu
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<64xf32>
// CHECK-NOT: linalg.add
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%[[BIAS]] : tensor<64xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.max
func.func @named_bias_relu(%a: tensor<16x64xf16>, %b: tensor<64x64xf16>, %bias: tensor<64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x64xf16>)
                      outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  %bb = linalg.broadcast ins(%bias : tensor<64xf32>) outs(%e : tensor<16x64xf32>) dimensions = [0]
  %s = linalg.add ins(%mm, %bb : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.max ins(%s, %z : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// The tanh approximation of GELU is fused as written; a matmul result with
// a second user keeps its activation separate.
// CHECK-LABEL: func @tanh_gelu
// CHECK: gpupoor.matmul
// CHECK: math.tanh
// CHECK: gpupoor.yield
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func @two_users
// CHECK: %[[MM:.*]] = gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK: linalg.generic
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @tanh_gelu(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k = arith.constant 0.7978845608 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %k : f32
    %t = math.tanh %s : f32
    %p = arith.addf %t, %one : f32
    %h = arith.mulf %x, %half : f32
    %y = arith.mulf %h, %p : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %g : tensor<32x32xf32>
}
func.func @two_users(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  return %r, %mm : tensor<32x32xf32>, tensor<32x32xf32>
}

// -----

// C += A * B on memrefs, the form front ends emit for an accumulator: the
// epilogue reads C (its last argument) and adds the product to it.
// CHECK-LABEL: func @accumulate_memref
// CHECK-SAME: %{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf16>, %[[C:[a-z0-9]+]]: memref<?x?xf16>
// CHECK-NOT: linalg.matmul
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%[[C]] : memref<?x?xf16>)
// CHECK-SAME: : memref<?x?xf16>, memref<?x?xf16> epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f16, %[[CIN:.*]]: f16):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[CIN]], %[[ACC]] : f16
// CHECK-NEXT: gpupoor.yield %[[S]] : f16
func.func @accumulate_memref(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf16>)
  return
}

// -----

// C += A * B on a tensor function argument, no consumers: the op's init is
// a copy of that tensor (the caller's buffer stays as it was), read through
// the last argument.
// CHECK-LABEL: func @accumulate_tensor
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<16x16xf32>
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[C]]) : tensor<16x16xf32>
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%[[COPY]] : tensor<16x16xf32>)
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[CIN:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[CIN]], %[[ACC]] : f32
func.func @accumulate_tensor(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
