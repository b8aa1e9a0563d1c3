// RUN: gpupoor-opt %s -split-input-file --gpupoor-to-cubin="chip=sm_90 cubin-format=isa" -verify-diagnostics -o /dev/null

// A function that returns a new tensor would allocate it on the host, and
// the kernel would write host memory: the pipeline refuses it.
func.func @returns_tensor(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f16
  %nb = tensor.dim %a, %c0 : tensor<?x?x?xf16>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf16>
  %n = tensor.dim %b, %c2 : tensor<?x?x?xf16>
  // expected-error @+1 {{host code would access GPU memory here}}
  %e = tensor.empty(%nb, %m, %n) : tensor<?x?x?xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf16>, tensor<?x?x?xf16>)
                           outs(%f : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  return %r : tensor<?x?x?xf16>
}

// -----

// An elementwise op the epilogue cannot take (it reads linalg.index) would
// run as host loops over the kernel's output: refused.
func.func @unfused(%a: tensor<16x64xf16>, %b: tensor<64x16xf16>, %out: memref<16x16xf16>) {
  %z = arith.constant 0.0 : f16
  // The matmul's result needs a buffer of its own (a host allocation, freed
  // at the end).
  // expected-error @+1 {{host code would access GPU memory here}}
  %e = tensor.empty() : tensor<16x16xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<16x16xf16>) -> tensor<16x16xf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x16xf16>)
                     outs(%f : tensor<16x16xf16>) -> tensor<16x16xf16>
  // expected-error @+1 {{host code would access GPU memory here}}
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<16x16xf16>) outs(%e : tensor<16x16xf16>) {
  ^bb0(%x: f16, %o: f16):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f16
    %y = arith.addf %x, %fi : f16
    linalg.yield %y : f16
  } -> tensor<16x16xf16>
  bufferization.materialize_in_destination %g in restrict writable %out
      : (tensor<16x16xf16>, memref<16x16xf16>) -> ()
  // expected-error @+1 {{host code would access GPU memory here}}
  return
}
