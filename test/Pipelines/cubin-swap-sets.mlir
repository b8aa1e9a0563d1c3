// gpupoor-split-k's swap and sets reach the kernels through the pipeline,
// flag and textual forms. A decode product of B as K x N (8 rows): run
// transposed in 128 x 208 tiles (the weight as the kernel's A stored K x M,
// x as its B stored N x K), or on the rules' mma.sync 16 x 128 tile with
// four f16 sums a chunk.
// RUN: rm -rf %t.swap %t.sets
// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a swap=true tile=128,208,64 cubin-format=llvm dump-dir=%t.swap" -o /dev/null
// RUN: FileCheck %s --check-prefix=SWAP --input-file=%t.swap/gpupoor_matmul_0.json
// RUN: gpupoor-opt %s --pass-pipeline='builtin.module(gpupoor-to-cubin{chip=sm_90a sets=4 cubin-format=llvm dump-dir=%t.sets})' -o /dev/null
// RUN: FileCheck %s --check-prefix=SETS --input-file=%t.sets/gpupoor_matmul_0.json
// SWAP-DAG: "a_layout": "km"
// SWAP-DAG: "b_layout": "nk"
// SWAP-DAG: "swapped_operands": true
// SWAP-LABEL: "tile": [
// SWAP-NEXT: 128,
// SWAP-NEXT: 208,
// SETS-DAG: "chip": "sm_90"
// SETS-DAG: "sets": 4
// SETS-LABEL: "tile": [
// SETS-NEXT: 16,
// SETS-NEXT: 128,
// SETS-NEXT: 128
func.func @decode(%x: tensor<8x5120xf16>, %w: tensor<5120x13824xf16>) -> tensor<8x13824xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x13824xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<8x13824xf16>) -> tensor<8x13824xf16>
  %r = linalg.matmul ins(%x, %w : tensor<8x5120xf16>, tensor<5120x13824xf16>)
                     outs(%f : tensor<8x13824xf16>) -> tensor<8x13824xf16>
  return %r : tensor<8x13824xf16>
}
