// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a sets=2" | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a" | FileCheck %s --check-prefix=RULES
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90a sets=16" -verify-diagnostics

// `sets` replaces the rules' f16 sums a chunk: here the mma.sync kernel's
// 16 x 128 decode tile of B as K x N (8 rows, from K = 2048), which the
// rules give four (policy::kMmaDecodeSets); its BK = 128 has 8 k16 steps,
// which 16 sums do not divide.
// CHECK: strategy(#gpupoor.split_k<splits = 40, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 2>)
// RULES: strategy(#gpupoor.split_k<splits = 40, tile = [16, 128, 128], inner = f16, outer = f32, chip = sm_90, sets = 4>)
func.func @decode_kn(%x: tensor<8x5120xf16>, %w: tensor<5120x13824xf16>) -> tensor<8x13824xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x13824xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<8x13824xf16>) -> tensor<8x13824xf16>
  // expected-error @+1 {{'linalg.matmul' op sets = 16 must be a power of two dividing BK / 16 = 8}}
  %r = linalg.matmul ins(%x, %w : tensor<8x5120xf16>, tensor<5120x13824xf16>)
                     outs(%f : tensor<8x13824xf16>) -> tensor<8x13824xf16>
  return %r : tensor<8x13824xf16>
}
