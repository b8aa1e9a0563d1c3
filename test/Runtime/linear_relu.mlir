// relu(x * W^T + b) on dynamic shapes, as test/Runtime/main.cpp calls it:
// compiled by gpupoor-opt --gpupoor-to-cubin --gpupoor-host-to-llvm,
// mlir-translate and llc, linked with libgpupoor_cuda_runtime.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @linear_relu(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %b: tensor<?xf16>,
                       %out: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c0 : tensor<?x?xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>)
      outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %e16 = tensor.empty(%m, %n) : tensor<?x?xf16>
  %r = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x?xf32>, tensor<?xf16>) outs(%e16 : tensor<?x?xf16>) {
  ^bb0(%v: f32, %bias: f16, %o: f16):
    %bf = arith.extf %bias : f16 to f32
    %s = arith.addf %v, %bf : f32
    %y = arith.maximumf %s, %zero : f32
    %t = arith.truncf %y : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x?xf16>
  bufferization.materialize_in_destination %r in restrict writable %out
      : (tensor<?x?xf16>, memref<?x?xf16>) -> ()
  return
}
