// RUN: gpupoor-opt %s -gpupoor-cpu-pipeline="splits=2 outer-type=f16" | FileCheck %s
// RUN: gpupoor-opt %s -gpupoor-cpu-pipeline | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// The whole CPU path ends in the LLVM dialect, with a C-interface wrapper,
// f16 rounding steps and no gpupoor or linalg op left.
// CHECK-NOT: gpupoor.
// CHECK-NOT: linalg.
// CHECK-LABEL: llvm.func @linear
// CHECK: llvm.fptrunc %{{.*}} : f64 to f16
// CHECK: llvm.call @erff
// CHECK-LABEL: llvm.func @_mlir_ciface_linear
// LLVMIR: define void @_mlir_ciface_linear(
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @linear(%x: tensor<8x64xf16>, %w: tensor<32x64xf16>, %b: tensor<32xf32>,
                  %out: memref<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118654752 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x64xf16>, tensor<32x64xf16>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %bv, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %rsqrt2 : f32
    %erf = math.erf %s : f32
    %p = arith.addf %one, %erf : f32
    %h = arith.mulf %half, %v : f32
    %y = arith.mulf %h, %p : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  bufferization.materialize_in_destination %g in restrict writable %out
      : (tensor<8x32xf32>, memref<8x32xf32>) -> ()
  return
}
