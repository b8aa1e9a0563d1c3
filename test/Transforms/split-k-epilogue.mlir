// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k | FileCheck %s

// The epilogue fuses a consumer only where it computes exactly what the
// consumer does (lib/Transforms/EpilogueMatch.cpp); everything else stays a
// separate op after a plain gpupoor.matmul. Each case below used to be fused
// as ReLU, GELU or a bias add because it agreed with them at sample points.

// ReLU6.
// CHECK-LABEL: func @relu6
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @relu6(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
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

// A clamp at 1000, which no sample reached: it agreed with ReLU there.
// CHECK-LABEL: func @clamp_1000
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @clamp_1000(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %hi = arith.constant 1000.0 : f32
    %m = arith.maximumf %x, %c0 : f32
    %y = arith.minimumf %m, %hi : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// max(x, -100) is not ReLU.
// CHECK-LABEL: func @clamp_low
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @clamp_low(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %lo = arith.constant -100.0 : f32
    %y = arith.maximumf %x, %lo : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// Leaky ReLU with a slope too small to show at the samples.
// CHECK-LABEL: func @leaky
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @leaky(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %slope = arith.constant 1.0e-9 : f32
    %pos = arith.cmpf ogt, %x, %c0 : f32
    %neg = arith.mulf %x, %slope : f32
    %y = arith.select %pos, %x, %neg : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A body that reads the generic's init (here %t) is not ReLU.
// CHECK-LABEL: func @reads_init
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @reads_init(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %t: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%t : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// maxnumf(NaN, 0) is 0; the epilogue computes maximumf (NaN).
// CHECK-LABEL: func @maxnum
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @maxnum(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %y = arith.maxnumf %x, %c0 : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// max(x, -0.0) keeps -0.0 where ReLU gives +0.0.
// CHECK-LABEL: func @negative_zero
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @negative_zero(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c0 = arith.constant -0.0 : f32
    %y = arith.maximumf %x, %c0 : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// GELU in f16 arithmetic rounds after every op; the epilogue computes in f32.
// CHECK-LABEL: func @gelu_f16_math
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @gelu_f16_math(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%x: f16, %o: f16):
    %k = arith.constant 0.70710678118654752 : f16
    %h = arith.constant 0.5 : f16
    %one = arith.constant 1.0 : f16
    %s = arith.mulf %x, %k : f16
    %er = math.erf %s : f16
    %p = arith.addf %er, %one : f16
    %hx = arith.mulf %x, %h : f16
    %y = arith.mulf %hx, %p : f16
    linalg.yield %y : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}

// -----

// x / sqrt(2) rounds differently from x * 0.70710677.
// CHECK-LABEL: func @gelu_div
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK-NEXT: linalg.generic
func.func @gelu_div(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %sqrt2 = arith.constant 1.41421356237309504 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.divf %x, %sqrt2 : f32
    %er = math.erf %s : f32
    %p = arith.addf %er, %one : f32
    %hx = arith.mulf %x, %h : f32
    %y = arith.mulf %hx, %p : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// Fused: maximumf(+0.0, x) in f16 (the maximum commutes with rounding).
// CHECK-LABEL: func @relu_commuted
// CHECK: gpupoor.matmul
// CHECK-SAME: epilogue = relu
// CHECK-NOT: linalg.generic
func.func @relu_commuted(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%x: f16, %o: f16):
    %c0 = arith.constant 0.0 : f16
    %y = arith.maximumf %c0, %x : f16
    linalg.yield %y : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}

// -----

// Fused: ReLU computed in f32 on the widened f16 result.
// CHECK-LABEL: func @relu_widened
// CHECK: gpupoor.matmul
// CHECK-SAME: epilogue = relu
// CHECK-NOT: linalg.generic
func.func @relu_widened(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%x: f16, %o: f16):
    %c0 = arith.constant 0.0 : f32
    %xf = arith.extf %x : f16 to f32
    %m = arith.maximumf %xf, %c0 : f32
    %y = arith.truncf %m : f32 to f16
    linalg.yield %y : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}

// -----

// Fused: an f16 bias added in f16 (the epilogue rounds the matmul to f16
// first, then adds in f32 and rounds once: exact).
// CHECK-LABEL: func @bias_f16_in_f16
// CHECK: gpupoor.matmul {{.*}} bias(
// CHECK-NOT: linalg.generic
func.func @bias_f16_in_f16(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %bias: tensor<32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x32xf16>, tensor<32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %y, %x : f16
    linalg.yield %s : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}

// -----

// An f32 bias rounded to f16 before the add: not what the epilogue does.
// CHECK-LABEL: func @bias_f32_truncated
// CHECK: gpupoor.matmul
// CHECK-NOT: bias(
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK: linalg.generic
func.func @bias_f32_truncated(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %bias: tensor<32xf32>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x32xf16>, tensor<32xf32>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%x: f16, %y: f32, %o: f16):
    %yt = arith.truncf %y : f32 to f16
    %s = arith.addf %x, %yt : f16
    linalg.yield %s : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}

// -----

// An f64 bias: gpupoor.matmul takes f16 and f32 biases only (this used to
// end in an internal verifier error).
// CHECK-LABEL: func @bias_f64
// CHECK: gpupoor.matmul
// CHECK-NOT: bias(
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK: linalg.generic
func.func @bias_f64(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %bias: tensor<32xf64>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x32xf32>, tensor<32xf64>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f64, %o: f32):
    %yt = arith.truncf %y : f64 to f32
    %s = arith.addf %x, %yt : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// x + init is a residual add, not x + bias.
// CHECK-LABEL: func @bias_reads_init
// CHECK: gpupoor.matmul
// CHECK-NOT: bias(
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK: linalg.generic
func.func @bias_reads_init(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %bias: tensor<32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x32xf32>, tensor<32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// The 'bias' is a row of the matmul's own result: it cannot be an operand
// of the op that computes it (this used to be a dominance error).
// CHECK-LABEL: func @bias_from_result
// CHECK: gpupoor.matmul
// CHECK-NOT: bias(
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK: linalg.generic
func.func @bias_from_result(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %bias = tensor.extract_slice %mm[0, 0] [1, 32] [1, 1] : tensor<32x32xf32> to tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x32xf32>, tensor<32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A matmul in device code is not rewritten: gpupoor.matmul launches kernels.
// CHECK-LABEL: gpu.func @device
// CHECK: linalg.matmul
// CHECK-NOT: gpupoor.matmul
gpu.module @kernels {
  gpu.func @device(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
    %zero = arith.constant 0.0 : f16
    linalg.fill ins(%zero : f16) outs(%c : memref<32x32xf16>)
    linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x32xf16>) outs(%c : memref<32x32xf16>)
    gpu.return
  }
}

// -----

// The matmul result as the consumer's init, not an input: the consumer never
// reads it (it used to be fused as if it did).
// CHECK-LABEL: func @result_as_init
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK: linalg.generic
func.func @result_as_init(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %y: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<32x32xf32>) outs(%mm : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %x, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A truncation toward zero is not the epilogue's rounding to nearest.
// CHECK-LABEL: func @gelu_trunc_mode
// CHECK: gpupoor.matmul
// CHECK-SAME: inner = f16, outer = f32>)
// CHECK: linalg.generic
func.func @gelu_trunc_mode(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<32x32xf16>) -> tensor<32x32xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>)
                      outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%x: f16, %o: f16):
    %xf = arith.extf %x : f16 to f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %xf, %z : f32
    %t = arith.truncf %m toward_zero : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}
