// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k --mlir-print-local-scope | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="relax-f32-accumulation=false" --mlir-print-local-scope | FileCheck %s --check-prefix=STRICTACC
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k --remarks-filter=gpupoor-split-k --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// nn.Linear with a bias as torch-mlir's FX importer gives it (aten.addmm
// with PyTorch's opmath upcast): the f16 input and the transposed f16
// weight extended to f32, an f32 matmul, the f32 bias broadcast and added,
// the sum rounded to f16. The matmul reads the f16 values (exactly the
// same product), the transpose becomes B's layout, and the bias, its add
// and the rounding are the epilogue.
// CHECK-LABEL: func.func @linear_bias
// CHECK-NOT: arith.extf %{{.*}} : f16 to f32
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: b_layout = nk
// CHECK-NOT: linalg.matmul
// With f32 accumulation kept, the matmul stays, on the f16 values.
// STRICTACC-LABEL: func.func @linear_bias
// STRICTACC: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg0, %arg1 : tensor<16x64xf16>, tensor<32x64xf16>) outs(%{{.*}} : tensor<16x32xf32>)
// REMARK: remark: [Analysis] NarrowedOperands
// REMARK-SAME: operands narrowed: each was the extension of f16 values
// REMARK: remark: [Analysis] RelaxedAccumulation
func.func @linear_bias(%x: tensor<16x64xf16>, %w: tensor<32x64xf16>, %b: tensor<32xf16>) -> tensor<16x32xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x32xf16>
  %transposed = linalg.transpose ins(%w : tensor<32x64xf16>) outs(%0 : tensor<64x32xf16>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<32xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<32xf16>) outs(%1 : tensor<32xf32>) {
  ^bb0(%in: f16, %out: f32):
    %15 = arith.extf %in : f16 to f32
    linalg.yield %15 : f32
  } -> tensor<32xf32>
  %3 = tensor.empty() : tensor<16x64xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x64xf16>) outs(%3 : tensor<16x64xf32>) {
  ^bb0(%in: f16, %out: f32):
    %15 = arith.extf %in : f16 to f32
    linalg.yield %15 : f32
  } -> tensor<16x64xf32>
  %5 = tensor.empty() : tensor<64x32xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%transposed : tensor<64x32xf16>) outs(%5 : tensor<64x32xf32>) {
  ^bb0(%in: f16, %out: f32):
    %15 = arith.extf %in : f16 to f32
    linalg.yield %15 : f32
  } -> tensor<64x32xf32>
  %7 = tensor.empty() : tensor<16x32xf32>
  %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %9 = linalg.matmul ins(%4, %6 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%8 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<32xf32>) outs(%7 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x32xf32>
  %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%9, %10 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%7 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_6: f32, %out: f32):
    %15 = arith.addf %in, %in_6 : f32
    linalg.yield %15 : f32
  } -> tensor<16x32xf32>
  %12 = tensor.empty() : tensor<16x32xf16>
  %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<16x32xf32>) outs(%12 : tensor<16x32xf16>) {
  ^bb0(%in: f32, %out: f16):
    %15 = arith.truncf %in : f32 to f16
    linalg.yield %15 : f16
  } -> tensor<16x32xf16>
  return %13 : tensor<16x32xf16>
}

// -----

// The extension before the transpose (on f32), the operands as arith.extf
// on tensors, sizes dynamic: the transpose is rebuilt on f16 and folds.
// CHECK-LABEL: func.func @extend_then_transpose
// CHECK-NOT: arith.extf
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1
// CHECK-SAME: b_layout = nk
func.func @extend_then_transpose(%x: tensor<?x64xf16>, %w: tensor<?x64xf16>) -> tensor<?x?xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %xf = arith.extf %x : tensor<?x64xf16> to tensor<?x64xf32>
  %wf = arith.extf %w : tensor<?x64xf16> to tensor<?x64xf32>
  %n = tensor.dim %w, %c0 : tensor<?x64xf16>
  %m = tensor.dim %x, %c0 : tensor<?x64xf16>
  %e = tensor.empty(%n) : tensor<64x?xf32>
  %t = linalg.transpose ins(%wf : tensor<?x64xf32>) outs(%e : tensor<64x?xf32>) permutation = [1, 0]
  %c = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%xf, %t : tensor<?x64xf32>, tensor<64x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A 3-D input: the weight extended, then broadcast over the batch (a
// batch_matmul); the broadcast is rebuilt on f16 and the batch folds into M.
// CHECK-LABEL: func.func @broadcast_weight
// CHECK-NOT: arith.extf
// CHECK: %[[A:.*]] = tensor.collapse_shape %arg0
// CHECK: gpupoor.matmul %[[A]], %arg1
func.func @broadcast_weight(%x: tensor<4x16x64xf16>, %w: tensor<64x32xf16>) -> tensor<4x16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %xf = arith.extf %x : tensor<4x16x64xf16> to tensor<4x16x64xf32>
  %wf = arith.extf %w : tensor<64x32xf16> to tensor<64x32xf32>
  %e = tensor.empty() : tensor<4x64x32xf32>
  %bw = linalg.broadcast ins(%wf : tensor<64x32xf32>) outs(%e : tensor<4x64x32xf32>) dimensions = [0]
  %c = tensor.empty() : tensor<4x16x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%c : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  %r = linalg.batch_matmul ins(%xf, %bw : tensor<4x16x64xf32>, tensor<4x64x32xf32>) outs(%f : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %r : tensor<4x16x32xf32>
}

// -----

// Extensions of bf16 values, and an f32 operand that extends nothing: the
// matmul stays as written (bf16: mma has no bf16 accumulator; f32: no f16
// values to sum).
// CHECK-LABEL: func.func @not_f16
// CHECK-COUNT-2: linalg.matmul
// CHECK-NOT: gpupoor.matmul
func.func @not_f16(%x: tensor<16x64xbf16>, %w: tensor<64x32xbf16>, %y: tensor<16x64xf16>, %v: tensor<64x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %xf = arith.extf %x : tensor<16x64xbf16> to tensor<16x64xf32>
  %wf = arith.extf %w : tensor<64x32xbf16> to tensor<64x32xf32>
  %yf = arith.extf %y : tensor<16x64xf16> to tensor<16x64xf32>
  %c = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%xf, %wf : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  %s = linalg.matmul ins(%yf, %v : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r, %s : tensor<16x32xf32>, tensor<16x32xf32>
}
