// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 cubin-format=isa" | FileCheck %s
// RUN: gpupoor-opt %s --gpupoor-split-k --eliminate-empty-tensors | FileCheck %s --check-prefix=TENSOR

// A result materialized into a destination is computed there: the kernel
// writes the output buffer itself, and the host code neither allocates nor
// copies (its buffers are device memory).
// TENSOR-LABEL: func.func @linear
// TENSOR-SAME: %[[OUT:[a-z0-9]+]]: memref<64x256xf16>
// TENSOR: %[[DEST:.*]] = bufferization.to_tensor %[[OUT]]
// TENSOR: gpupoor.matmul {{.*}} outs(%[[DEST]] : tensor<64x256xf16>)
// CHECK-LABEL: func.func @linear
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<64x256xf16>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: memref.extract_strided_metadata %[[OUT]]
// CHECK: gpu.launch_func
// CHECK-NOT: memref.copy
// CHECK: return
func.func @linear(%x: tensor<64x4096xf16>, %w: tensor<256x4096xf16>, %b: tensor<256xf16>,
                  %out: memref<64x256xf16>) {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<64x256xf16>) -> tensor<64x256xf16>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x4096xf16>, tensor<256x4096xf16>) outs(%c : tensor<64x256xf16>) -> tensor<64x256xf16>
  %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<64x256xf16>, tensor<256xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%v: f16, %bv: f16, %o: f16):
    %s = arith.addf %v, %bv : f16
    linalg.yield %s : f16
  } -> tensor<64x256xf16>
  bufferization.materialize_in_destination %biased in restrict writable %out
      : (tensor<64x256xf16>, memref<64x256xf16>) -> ()
  return
}
