// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k --mlir-print-local-scope | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="fold-layouts=false" | FileCheck %s --check-prefix=NOFOLD
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k="relax-f32-accumulation=false" | FileCheck %s --check-prefix=STRICTACC
// RUN: gpupoor-opt %s -split-input-file --gpupoor-split-k --remarks-filter=gpupoor-split-k --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A transposing generic feeding B becomes B's layout, and goes.
// CHECK-LABEL: func.func @transposing_generic
// CHECK-NOT: linalg.generic
// CHECK: gpupoor.matmul %arg0, %arg1 outs
// CHECK-SAME: b_layout = nk
// NOFOLD-LABEL: func.func @transposing_generic
// NOFOLD: linalg.generic
// NOFOLD: gpupoor.matmul
// NOFOLD-NOT: b_layout = nk
// The IR accumulates in f32 (f32 result): relaxed, with a remark, or left.
// STRICTACC-LABEL: func.func @transposing_generic
// STRICTACC: linalg.matmul
// REMARK: remark: [Analysis] RelaxedAccumulation
// REMARK-SAME: f32 accumulation relaxed: the f32 result is summed in f16 within each of the K splits, and the splits in f32
func.func @transposing_generic(%a: tensor<64x32xf16>, %w: tensor<48x32xf16>) -> tensor<64x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<48x32xf16>) outs(%e : tensor<32x48xf16>) {
  ^bb0(%x: f16, %o: f16):
    linalg.yield %x : f16
  } -> tensor<32x48xf16>
  %c = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %t : tensor<64x32xf16>, tensor<32x48xf16>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

// A transpose that something else reads stays for it; the matmul reads the
// weight itself.
// CHECK-LABEL: func.func @shared_transpose
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1 outs
// CHECK-SAME: b_layout = nk
// CHECK: return %{{.*}}, %[[T]]
func.func @shared_transpose(%a: tensor<64x32xf16>, %w: tensor<48x32xf16>) -> (tensor<64x48xf16>, tensor<32x48xf16>) {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x48xf16>
  %t = linalg.transpose ins(%w : tensor<48x32xf16>) outs(%e : tensor<32x48xf16>) permutation = [1, 0]
  %c = tensor.empty() : tensor<64x48xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<64x48xf16>) -> tensor<64x48xf16>
  %r = linalg.matmul ins(%a, %t : tensor<64x32xf16>, tensor<32x48xf16>) outs(%f : tensor<64x48xf16>) -> tensor<64x48xf16>
  return %r, %t : tensor<64x48xf16>, tensor<32x48xf16>
}

// -----

// A batch of products with one B (linalg.broadcast over the batch) is one
// product of batch * M rows; the consumer that adds a per-column bias moves
// past the reshape into the epilogue.
// CHECK-LABEL: func.func @broadcast_b
// CHECK: %[[A:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<?x16x32xf16> into tensor<?x32xf16>
// CHECK: %[[R:.*]] = gpupoor.matmul %[[A]], %arg1 ins(%arg2 : tensor<48xf16>) maps([affine_map<(d0, d1) -> (d1)>])
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]]
// CHECK-NOT: linalg.
func.func @broadcast_b(%a: tensor<?x16x32xf16>, %w: tensor<32x48xf16>, %bias: tensor<48xf16>) -> tensor<?x16x48xf16> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f16
  %n = tensor.dim %a, %c0 : tensor<?x16x32xf16>
  %eb = tensor.empty(%n) : tensor<?x32x48xf16>
  %bw = linalg.broadcast ins(%w : tensor<32x48xf16>) outs(%eb : tensor<?x32x48xf16>) dimensions = [0]
  %c = tensor.empty(%n) : tensor<?x16x48xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<?x16x48xf16>) -> tensor<?x16x48xf16>
  %r = linalg.batch_matmul ins(%a, %bw : tensor<?x16x32xf16>, tensor<?x32x48xf16>) outs(%f : tensor<?x16x48xf16>) -> tensor<?x16x48xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<?x16x48xf16>, tensor<48xf16>) outs(%c : tensor<?x16x48xf16>) {
  ^bb0(%x: f16, %b: f16, %o: f16):
    %s = arith.addf %x, %b : f16
    linalg.yield %s : f16
  } -> tensor<?x16x48xf16>
  return %g : tensor<?x16x48xf16>
}

// -----

// With the batch and M both dynamic, the expand_shape back to the batch
// would have two dynamic sizes in one group, which LLVM 22's
// expand-strided-metadata cannot lower: the product stays batched.
// CHECK-LABEL: func.func @broadcast_b_dynamic_batch_and_m
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.broadcast
// CHECK: gpupoor.matmul %arg0, %{{.*}} outs(%{{.*}} : tensor<?x?x48xf16>)
// CHECK-NOT: tensor.expand_shape
func.func @broadcast_b_dynamic_batch_and_m(%a: tensor<?x?x32xf16>, %w: tensor<32x48xf16>) -> tensor<?x?x48xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f16
  %n = tensor.dim %a, %c0 : tensor<?x?x32xf16>
  %m = tensor.dim %a, %c1 : tensor<?x?x32xf16>
  %eb = tensor.empty(%n) : tensor<?x32x48xf16>
  %bw = linalg.broadcast ins(%w : tensor<32x48xf16>) outs(%eb : tensor<?x32x48xf16>) dimensions = [0]
  %c = tensor.empty(%n, %m) : tensor<?x?x48xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<?x?x48xf16>) -> tensor<?x?x48xf16>
  %r = linalg.batch_matmul ins(%a, %bw : tensor<?x?x32xf16>, tensor<?x32x48xf16>) outs(%f : tensor<?x?x48xf16>) -> tensor<?x?x48xf16>
  return %r : tensor<?x?x48xf16>
}

// -----

// Attention's K^T: a 4-D transpose under a collapse_shape becomes the
// collapsed K with an nk layout.
// CHECK-LABEL: func.func @collapsed_transpose
// CHECK: %[[K:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<2x4x32x16xf16> into tensor<8x32x16xf16>
// CHECK: gpupoor.matmul %{{.*}}, %[[K]] outs
// CHECK-SAME: b_layout = nk
// CHECK-NOT: linalg.transpose
func.func @collapsed_transpose(%q: tensor<8x32x16xf16>, %k: tensor<2x4x32x16xf16>) -> tensor<8x32x32xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x4x16x32xf16>
  %t = linalg.transpose ins(%k : tensor<2x4x32x16xf16>) outs(%e : tensor<2x4x16x32xf16>) permutation = [0, 1, 3, 2]
  %kt = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<2x4x16x32xf16> into tensor<8x16x32xf16>
  %c = tensor.empty() : tensor<8x32x32xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<8x32x32xf16>) -> tensor<8x32x32xf16>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<8x32x16xf16>, tensor<8x16x32xf16>) outs(%f : tensor<8x32x32xf16>) -> tensor<8x32x32xf16>
  return %r : tensor<8x32x32xf16>
}

// -----

// Elementwise graphs fuse, not only chains: x * sigmoid(x) reads the
// product twice; a splat tensor constant is read as its scalar (the kernel
// cannot read a host constant).
// CHECK-LABEL: func.func @silu_graph
// CHECK: gpupoor.matmul %arg0, %arg1 outs
// CHECK: ^bb0(%[[ACC:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f16
// CHECK: %[[N:.*]] = arith.negf %[[ACC]]
// CHECK: %[[E:.*]] = math.exp %[[N]]
// CHECK: %[[D:.*]] = arith.addf %[[E]], %[[ONE]]
// CHECK: %[[S:.*]] = arith.divf %[[ONE]], %[[D]]
// CHECK: %[[Y:.*]] = arith.mulf %[[ACC]], %[[S]]
// CHECK: gpupoor.yield %[[Y]]
// CHECK-NOT: linalg.
func.func @silu_graph(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf16> {
  %z = arith.constant 0.0 : f16
  %one = arith.constant dense<1.0> : tensor<f16>
  %c = tensor.empty() : tensor<64x48xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<64x48xf16>) -> tensor<64x48xf16>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%f : tensor<64x48xf16>) -> tensor<64x48xf16>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %one : tensor<64x48xf16>, tensor<f16>) outs(%c : tensor<64x48xf16>) {
  ^bb0(%x: f16, %o1: f16, %o: f16):
    %n = arith.negf %x : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %o1 : f16
    %y = arith.divf %o1, %d : f16
    linalg.yield %y : f16
  } -> tensor<64x48xf16>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %s : tensor<64x48xf16>, tensor<64x48xf16>) outs(%c : tensor<64x48xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %p = arith.mulf %x, %y : f16
    linalg.yield %p : f16
  } -> tensor<64x48xf16>
  return %m : tensor<64x48xf16>
}

// -----

// A value of the graph that something else reads ends what fuses: the
// product is returned too, so only the product is computed by the op.
// CHECK-LABEL: func.func @graph_value_read_outside
// CHECK: %[[R:.*]] = gpupoor.matmul %arg0, %arg1 outs
// CHECK-NOT: epilogue
// CHECK: linalg.generic
// CHECK: return %{{.*}}, %[[R]]
func.func @graph_value_read_outside(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> (tensor<64x48xf16>, tensor<64x48xf16>) {
  %z = arith.constant 0.0 : f16
  %c = tensor.empty() : tensor<64x48xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<64x48xf16>) -> tensor<64x48xf16>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%f : tensor<64x48xf16>) -> tensor<64x48xf16>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<64x48xf16>) outs(%c : tensor<64x48xf16>) {
  ^bb0(%x: f16, %o: f16):
    %p = arith.mulf %x, %x : f16
    linalg.yield %p : f16
  } -> tensor<64x48xf16>
  return %m, %r : tensor<64x48xf16>, tensor<64x48xf16>
}

// -----

// A transposed A (dY^T * X, a weight gradient) becomes A's layout too; the
// kernel reads A through its strides.
// CHECK-LABEL: func.func @transposed_a
// CHECK-NOT: linalg.transpose
// CHECK: gpupoor.matmul %arg0, %arg1 outs
// CHECK-SAME: a_layout = km
// CHECK-SAME: tensor<64x96xf16>, tensor<64x48xf16> -> tensor<96x48xf16>
func.func @transposed_a(%x: tensor<64x96xf16>, %b: tensor<64x48xf16>) -> tensor<96x48xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<96x64xf16>
  %t = linalg.transpose ins(%x : tensor<64x96xf16>) outs(%e : tensor<96x64xf16>) permutation = [1, 0]
  %c = tensor.empty() : tensor<96x48xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<96x48xf16>) -> tensor<96x48xf16>
  %r = linalg.matmul ins(%t, %b : tensor<96x64xf16>, tensor<64x48xf16>) outs(%f : tensor<96x48xf16>) -> tensor<96x48xf16>
  return %r : tensor<96x48xf16>
}

// -----

// With at most 64 rows (sm_80) an A stored K x M is copied M x K first
// (policy::copiesKMajorA, as the package does): M x K elements, which the
// kernels read along K.
// CHECK-LABEL: func.func @transposed_a_few_rows
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<64x32xf16>) outs(%{{.*}} : tensor<32x64xf16>) permutation = [1, 0]
// CHECK: gpupoor.matmul %[[T]], %arg1 outs
// CHECK-NOT: a_layout = km
// CHECK-SAME: tensor<32x64xf16>, tensor<64x48xf16> -> tensor<32x48xf16>
func.func @transposed_a_few_rows(%x: tensor<64x32xf16>, %b: tensor<64x48xf16>) -> tensor<32x48xf16> {
  %z = arith.constant 0.0 : f16
  %c = tensor.empty() : tensor<32x48xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<32x48xf16>) -> tensor<32x48xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %b : tensor<64x32xf16>, tensor<64x48xf16>) outs(%f : tensor<32x48xf16>) -> tensor<32x48xf16>
  return %r : tensor<32x48xf16>
}

// -----

// The layout folding touches the matmuls and the reshapes it makes, not the
// user's code: a linalg.index over a unit dimension is not folded to 0 (the
// op reads it, so it stays out of the epilogue).
// CHECK-LABEL: func.func @user_code_untouched
// CHECK: gpupoor.matmul
// CHECK: linalg.generic
// CHECK: linalg.index 1
func.func @user_code_untouched(%a: tensor<14x64xf16>, %b: tensor<64x1xf16>) -> tensor<14x1xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<14x1xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<14x1xf16>) -> tensor<14x1xf16>
  %r = linalg.matmul ins(%a, %b : tensor<14x64xf16>, tensor<64x1xf16>) outs(%f : tensor<14x1xf16>) -> tensor<14x1xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<14x1xf16>) outs(%e : tensor<14x1xf16>) {
  ^bb0(%x: f16, %o: f16):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f16
    %y = arith.addf %x, %fi : f16
    linalg.yield %y : f16
  } -> tensor<14x1xf16>
  return %g : tensor<14x1xf16>
}

// -----

// The same with dynamic sizes (the transpose's destination is sized from
// the collapsed K, and a size read of K^T becomes one of K).
// CHECK-LABEL: func.func @collapsed_transpose_dynamic
// CHECK: %[[K:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<?x4x?x16xf16> into tensor<?x?x16xf16>
// CHECK: gpupoor.matmul %{{.*}}, %[[K]] outs
// CHECK-SAME: b_layout = nk
// CHECK-NOT: linalg.transpose
func.func @collapsed_transpose_dynamic(%q: tensor<?x?x16xf16>, %k: tensor<?x4x?x16xf16>) -> tensor<?x?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f16
  %d0 = tensor.dim %k, %c0 : tensor<?x4x?x16xf16>
  %d2 = tensor.dim %k, %c2 : tensor<?x4x?x16xf16>
  %e = tensor.empty(%d0, %d2) : tensor<?x4x16x?xf16>
  %t = linalg.transpose ins(%k : tensor<?x4x?x16xf16>) outs(%e : tensor<?x4x16x?xf16>) permutation = [0, 1, 3, 2]
  %kt = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<?x4x16x?xf16> into tensor<?x16x?xf16>
  %b = tensor.dim %q, %c0 : tensor<?x?x16xf16>
  %m = tensor.dim %q, %c1 : tensor<?x?x16xf16>
  %n = tensor.dim %kt, %c2 : tensor<?x16x?xf16>
  %c = tensor.empty(%b, %m, %n) : tensor<?x?x?xf16>
  %f = linalg.fill ins(%z : f16) outs(%c : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<?x?x16xf16>, tensor<?x16x?xf16>) outs(%f : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  return %r : tensor<?x?x?xf16>
}

// -----

// A matmul gpupoor-split-k does not take (f32 operands) keeps its layout ops
// as written.
// CHECK-LABEL: func.func @f32_left_alone
// CHECK: linalg.transpose
// CHECK: linalg.matmul ins(%arg0, %transposed
func.func @f32_left_alone(%a: tensor<8x16xf32>, %w: tensor<4x16xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<16x4xf32>
  %t = linalg.transpose ins(%w : tensor<4x16xf32>) outs(%e : tensor<16x4xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%a, %t : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
