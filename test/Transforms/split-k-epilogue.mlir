// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k | FileCheck %s

// The split-k pass moves the elementwise ops after a matmul into the
// gpupoor.matmul's epilogue region, body by body and as written
// (lib/Transforms/EpilogueFusion.cpp): whatever they compute is what the
// region computes. The chain stops at the first op that is not elementwise
// at the result's own element.

// ReLU6: the body is cloned as written (it used to be left alone, or, by
// sampling, fused as ReLU).
// CHECK-LABEL: func @relu6
// CHECK-NOT: linalg.generic
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%{{.*}} : tensor<32x32xf32>)
// CHECK-SAME: -> tensor<32x32xf32> epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[ACC]], %[[Z]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.minimumf %[[M]], %[[SIX]] : f32
// CHECK-NEXT: gpupoor.yield %[[Y]] : f32
// CHECK-NOT: linalg.generic
func.func @relu6(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %c6 = arith.constant 6.0 : f32
    %m = arith.maximumf %x, %c0 : f32
    %y = arith.minimumf %m, %c6 : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// Leaky ReLU with a tiny slope, and maxnumf (not maximumf): each op as
// written, constants from outside the body cloned in.
// CHECK-LABEL: func @leaky_maxnum
// CHECK-NOT: linalg.generic
// CHECK: gpupoor.matmul
// CHECK: arith.constant 9.99999971E-10 : f32
// CHECK: arith.cmpf ogt
// CHECK: arith.mulf
// CHECK: arith.select
// CHECK: arith.maxnumf
// CHECK: gpupoor.yield
// CHECK-NOT: linalg.generic
func.func @leaky_maxnum(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %slope = arith.constant 1.0e-9 : f32
  %l = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %x, %c0 : f32
    %neg = arith.mulf %x, %slope : f32
    %y = arith.select %pos, %x, %neg : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maxnumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A consumer that reads its init (%t): %t becomes the op's init and the
// region reads it through its last argument.
// CHECK-LABEL: func @reads_init
// CHECK-SAME: %[[T:[a-z0-9]+]]: tensor<32x32xf32>
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%[[T]] : tensor<32x32xf32>)
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT: %[[Y:.*]] = arith.maximumf %[[ACC]], %[[O]] : f32
// CHECK-NEXT: gpupoor.yield %[[Y]] : f32
func.func @reads_init(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %t: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%t : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// nn.Linear as IREE's input pipeline emits it: an f32 matmul, a truncf
// generic, a per-column bias and ReLU as cmpf ugt + select; one op.
// CHECK-LABEL: func @front_end_linear
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<32xf16>
// CHECK-NOT: linalg.generic
// CHECK: %[[R:.*]] = gpupoor.matmul %{{.*}}, %{{.*}} ins(%[[BIAS]] : tensor<32xf16>) maps([#[[COL:.*]]]) outs(%{{.*}} : tensor<32x32xf16>)
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[B:.*]]: f16, %{{.*}}: f16):
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[T:.*]] = arith.truncf %[[ACC]] : f32 to f16
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[T]], %[[B]] : f16
// CHECK-NEXT: %[[P:.*]] = arith.cmpf ugt, %[[S]], %[[Z]] : f16
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[P]], %[[S]], %[[Z]] : f16
// CHECK-NEXT: gpupoor.yield %[[Y]] : f16
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @front_end_linear(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %bias: tensor<32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e16 = tensor.empty() : tensor<32x32xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e16 : tensor<32x32xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<32x32xf16>
  %bb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : tensor<32x32xf16>, tensor<32xf16>) outs(%e16 : tensor<32x32xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    linalg.yield %s : f16
  } -> tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%bb : tensor<32x32xf16>) outs(%e16 : tensor<32x32xf16>) {
  ^bb0(%x: f16, %o: f16):
    %z = arith.constant 0.0 : f16
    %p = arith.cmpf ugt, %x, %z : f16
    %y = arith.select %p, %x, %z : f16
    linalg.yield %y : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}

// -----

// A clamp with 0-d tensor bounds, a per-row scale and a transposed
// residual: each operand read through its own map.
// CHECK-LABEL: func @operands
// CHECK-SAME: %[[LO:[a-z0-9]+]]: tensor<f32>, %[[HI:[a-z0-9]+]]: tensor<f32>, %[[S:[a-z0-9]+]]: tensor<32xf32>, %[[RES:[a-z0-9]+]]: tensor<32x32xf32>
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%[[LO]], %[[HI]], %[[S]], %[[RES]] : tensor<f32>, tensor<f32>, tensor<32xf32>, tensor<32x32xf32>) maps([#[[SC:.*]], #[[SC]], #[[ROW:.*]], #[[TR:.*]]])
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NOT: linalg.generic
func.func @operands(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %lo: tensor<f32>, %hi: tensor<f32>, %s: tensor<32xf32>, %res: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %cl = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %lo, %hi : tensor<32x32xf32>, tensor<f32>, tensor<f32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %l: f32, %h: f32, %o: f32):
    %p = arith.cmpf ult, %x, %l : f32
    %y = arith.select %p, %l, %x : f32
    %q = arith.cmpf ugt, %y, %h : f32
    %z = arith.select %q, %h, %y : f32
    linalg.yield %z : f32
  } -> tensor<32x32xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cl, %s : tensor<32x32xf32>, tensor<32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%sc, %res : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.addf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// Named ops: linalg.add of a linalg.broadcast bias reads the bias itself
// (the broadcast is erased); linalg.max against a zero fill reads the
// constant.
// CHECK-LABEL: func @named_bias_relu
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<32xf32>
// CHECK-NOT: linalg.broadcast
// CHECK-NOT: linalg.add
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%[[BIAS]] : tensor<32xf32>) maps([#[[COL:.*]]])
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[B]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.maximumf %[[S]], %[[Z]] : f32
// CHECK-NEXT: gpupoor.yield %[[Y]] : f32
// CHECK-NOT: linalg.max
// CHECK-NOT: linalg.fill
func.func @named_bias_relu(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %bias: tensor<32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %bb = linalg.broadcast ins(%bias : tensor<32xf32>) outs(%e : tensor<32x32xf32>) dimensions = [0]
  %s = linalg.add ins(%mm, %bb : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.max ins(%s, %z : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// C += A * B on tensors, then a consumer: the init is read as an operand
// at the same element and added first.
// CHECK-LABEL: func @accumulate_chain
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<32x32xf16>
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%[[C]] : tensor<32x32xf16>) maps([#[[ID:.*]]])
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f16, %[[CIN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[CIN]], %[[ACC]] : f16
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[S]], %[[S]] : f16
// CHECK-NEXT: gpupoor.yield %[[Y]] : f16
// CHECK-NOT: linalg
func.func @accumulate_chain(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %c: tensor<32x32xf16>) -> tensor<32x32xf16> {
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %e = tensor.empty() : tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%x: f16, %o: f16):
    %y = arith.mulf %x, %x : f16
    linalg.yield %y : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}

// -----

// An init filled with a non-zero constant: C_in is that constant.
// CHECK-LABEL: func @init_constant
// CHECK-NOT: linalg.fill
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%{{.*}} : tensor<32x32xf32>)
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[S:.*]] = arith.addf %[[ONE]], %[[ACC]] : f32
// CHECK-NEXT: gpupoor.yield %[[S]] : f32
func.func @init_constant(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%one : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A consumer that updates the matmul's result in place (its init): the
// destination stays the matmul's; SiLU with math.exp follows.
// CHECK-LABEL: func @in_place_silu
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x32xf32>
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%{{.*}} : tensor<32xf32>) maps([#{{.*}}]) outs(%[[E]] : tensor<32x32xf32>)
// CHECK: arith.addf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: gpupoor.yield
// CHECK-NOT: linalg.generic
func.func @in_place_silu(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %bias: tensor<32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %bb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<32xf32>) outs(%mm : tensor<32x32xf32>) {
  ^bb0(%y: f32, %o: f32):
    %s = arith.addf %o, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%bb : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %ex : f32
    %y = arith.divf %x, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// The chain stops where an op does not qualify: a second user of the
// value, linalg.index, a reduction, a result that is not f16 or f32, a
// read of the value at another element, a non-constant scalar from
// outside the body. The ops before it are fused.
// CHECK-LABEL: func @stops
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK: arith.mulf
// CHECK: gpupoor.yield
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: linalg.index
func.func @stops(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %y = arith.addf %x, %f : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// Two users of the matmul's result. Not fused.
// CHECK-LABEL: func @two_users
// CHECK: gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
func.func @two_users(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  %r2 = arith.addf %r, %mm : tensor<32x32xf32>
  return %r2 : tensor<32x32xf32>
}

// -----

// The result read at the transposed element. Not fused.
// CHECK-LABEL: func @transposed_read
// CHECK: gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
func.func @transposed_read(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A non-constant scalar from outside the body. Not fused.
// CHECK-LABEL: func @captured_scalar
// CHECK: gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
func.func @captured_scalar(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %s: f32) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A consumer with f64 results (the kernels store f16 or f32). Not fused.
// CHECK-LABEL: func @f64_result
// CHECK: gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
func.func @f64_result(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf64> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e64 = tensor.empty() : tensor<32x32xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e64 : tensor<32x32xf64>) {
  ^bb0(%x: f32, %o: f64):
    %y = arith.extf %x : f32 to f64
    linalg.yield %y : f64
  } -> tensor<32x32xf64>
  return %r : tensor<32x32xf64>
}

// -----

// A reduction over the result is not elementwise. Not fused.
// CHECK-LABEL: func @reduction
// CHECK: gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.reduce
func.func @reduction(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %er = tensor.empty() : tensor<32xf32>
  %r = linalg.reduce ins(%mm : tensor<32x32xf32>) outs(%er : tensor<32xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<32xf32>
}

// -----

// A consumer in another block (an scf.if). Not fused.
// CHECK-LABEL: func @other_block
// CHECK: gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: scf.if
// CHECK: linalg.generic
func.func @other_block(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %p: i1) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = scf.if %p -> tensor<32x32xf32> {
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
    scf.yield %g : tensor<32x32xf32>
  } else {
    scf.yield %e : tensor<32x32xf32>
  }
  return %r : tensor<32x32xf32>
}

// -----

// Batched: a bias shared by the batch and a per-batch-element scale.
// CHECK-LABEL: func @batched
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} ins(%{{.*}}, %{{.*}} : tensor<32xf32>, tensor<3x32xf32>) maps([#[[B:.*]], #[[S:.*]]])
// CHECK-NOT: linalg.generic
func.func @batched(%a: tensor<3x32x64xf16>, %b: tensor<3x64x32xf16>, %bias: tensor<32xf32>, %s: tensor<3x32xf32>) -> tensor<3x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x32x32xf32>) -> tensor<3x32x32xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<3x32x64xf16>, tensor<3x64x32xf16>) outs(%c : tensor<3x32x32xf32>) -> tensor<3x32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias, %s : tensor<3x32x32xf32>, tensor<32xf32>, tensor<3x32xf32>) outs(%e : tensor<3x32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %p = arith.addf %x, %y : f32
    %q = arith.mulf %p, %z : f32
    linalg.yield %q : f32
  } -> tensor<3x32x32xf32>
  return %r : tensor<3x32x32xf32>
}

// -----

// Only arith constants enter the region: a body that reads an
// llvm.mlir.constant from outside stays a separate op.
// CHECK-LABEL: func @llvm_constant
// CHECK: gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
func.func @llvm_constant(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %two = llvm.mlir.constant(2.0 : f32) : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A consumer whose destination is a constant fill (here the matmul's own
// zero fill): the region reads the constant, and the op writes into what
// the fill filled, so the fill goes.
// CHECK-LABEL: func @fill_destination
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x32xf32>
// CHECK-NOT: linalg.fill
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%[[E]] : tensor<32x32xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg
func.func @fill_destination(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A fill of -0.0 is not a zero fill: the sums start from it (-0.0 + x keeps
// the sign of a -0.0 sum, +0.0 + x does not), so C_in is the constant -0.0.
// CHECK-LABEL: func @init_negative_zero
// CHECK-NOT: linalg.fill
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%{{.*}} : tensor<32x32xf32>)
// CHECK-SAME: {sums_from_negative_zero}
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[NZ:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[S:.*]] = arith.addf %[[NZ]], %[[ACC]] : f32
// CHECK-NEXT: gpupoor.yield %[[S]] : f32
func.func @init_negative_zero(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %nz = arith.constant -0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%nz : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// On memrefs, a -0.0 fill right before the matmul stays, and the op adds
// to C (C += A * B).
// CHECK-LABEL: func @memref_negative_zero
// CHECK: linalg.fill ins(%{{.*}} : f16) outs(%[[C:.*]] : memref<32x32xf16>)
// CHECK: gpupoor.matmul %{{.*}}, %{{.*}} outs(%[[C]] : memref<32x32xf16>)
// CHECK-SAME: {sums_from_negative_zero}
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f16, %[[CIN:.*]]: f16):
// CHECK: arith.addf %[[CIN]], %[[ACC]] : f16
func.func @memref_negative_zero(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
  %nz = arith.constant -0.0 : f16
  linalg.fill ins(%nz : f16) outs(%c : memref<32x32xf16>)
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x32xf16>) outs(%c : memref<32x32xf16>)
  return
}

// -----

// A second consumer that writes in place into a value of the chain (a ReLU
// into the bias add's result): the op writes where the chain's first
// destination is. (The analysis once read the map entry of that value after
// an insert into the same map had moved it.)
// CHECK-LABEL: func @in_place_chain
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x32xf16>
// CHECK: %[[R:.*]] = gpupoor.matmul %{{.*}}, %{{.*}} ins(%{{.*}} : tensor<32xf16>) maps([#{{.*}}]) outs(%[[E]] : tensor<32x32xf16>)
// CHECK-NOT: sums_from_negative_zero
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: gpupoor.yield
// CHECK-NOT: linalg
// CHECK: return %[[R]]
func.func @in_place_chain(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %bias: tensor<32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %e2 = tensor.empty() : tensor<32x32xf16>
  %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x32xf16>, tensor<32xf16>) outs(%e2 : tensor<32x32xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    linalg.yield %s : f16
  } -> tensor<32x32xf16>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%biased : tensor<32x32xf16>) {
  ^bb0(%o: f16):
    %r = arith.maximumf %o, %zero : f16
    linalg.yield %r : f16
  } -> tensor<32x32xf16>
  %relu2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%relu : tensor<32x32xf16>) {
  ^bb0(%o: f16):
    %r = arith.mulf %o, %o : f16
    linalg.yield %r : f16
  } -> tensor<32x32xf16>
  return %relu2 : tensor<32x32xf16>
}

// -----

// Integers wider than 64 bits cannot be in an epilogue (the NVPTX backend
// has no libcalls for them): the consumer stays a linalg op.
// CHECK-LABEL: func @wide_integer_consumer
// CHECK: gpupoor.matmul
// CHECK-NOT: i128
// CHECK: linalg.generic
// CHECK: arith.fptosi %{{.*}} : f16 to i128
func.func @wide_integer_consumer(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %e2 = tensor.empty() : tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf16>) outs(%e2 : tensor<32x32xf16>) {
  ^bb0(%x: f16, %o: f16):
    %i = arith.fptosi %x : f16 to i128
    %f = arith.sitofp %i : i128 to f16
    linalg.yield %f : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}
