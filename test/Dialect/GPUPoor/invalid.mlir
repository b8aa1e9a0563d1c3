// RUN: gpupoor-opt %s -split-input-file -verify-diagnostics

// One case per verifier diagnostic of #gpupoor.split_k, #gpupoor.kernel_config
// and gpupoor.matmul.

func.func @splits_zero(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{splits must be in [1, 65536], got 0}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<splits = 0, tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @max_splits_zero(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{max_splits must be in [1, 65536], got 0}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<max_splits = 0, tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @tile_rank(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{tile must have 3 entries [BM, BN, BK], got 2}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @tile_nonpositive(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{tile size BN must be in [1, 4096], got 0}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 0, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @tile_bm_mma(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{tile BM = 24 is not a multiple of 16 (mma.sync m16n8k16)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [24, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @tile_bn_mma(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{tile BN = 12 is not a multiple of 8 (mma.sync m16n8k16)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 12, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @tile_bk(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{tile BK = 24 is not a multiple of 16 (the MMA k step)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 24], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @tile_bm_wgmma(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{tile BM = 48 is neither 32 nor a multiple of 64 (wgmma m64nNk16)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [48, 16, 32], inner = f16, outer = f32, chip = sm_90a>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @tile_bn_wgmma(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{tile BN = 264 must be a multiple of 8 no larger than 256 (wgmma m64nNk16)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [64, 264, 32], inner = f16, outer = f32, chip = sm_90a>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @inner_type(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{inner accumulator type must be f16, got 'f32'}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f32, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @outer_type(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{outer accumulator type must be f16 or f32, got 'bf16'}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = bf16>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @mixed_kinds(%a: tensor<32x64xf16>, %b: memref<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op operands must be all ranked tensors or all memrefs}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, memref<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @tensor_no_result(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op with tensor operands must return a tensor}}
  gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16>
  return
}

// -----

func.func @memref_result(%a: memref<32x64xf16>, %b: memref<64x16xf16>, %c: memref<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op with memref operands must not return a value}}
  %r = gpupoor.matmul %a, %b outs(%c : memref<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : memref<32x64xf16>, memref<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @result_type(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op result type 'tensor<32x16xf16>' does not match init type 'tensor<32x16xf32>'}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf16>
  return
}

// -----

func.func @rank_a(%a: tensor<64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op operand A must have rank 2 or 3 (batched), got rank 1}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @rank_b(%a: tensor<32x64xf16>, %b: tensor<2x64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op operand B must have the rank of A (2), got rank 3}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<2x64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @rank_init(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<2x32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op init must have the rank of A (2), got rank 3}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<2x32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<2x32x16xf32>
  return
}

// -----

func.func @elt_a(%a: tensor<32x64xbf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op operand A must have f16 elements, got 'bf16'}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xbf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @elt_b(%a: tensor<32x64xf16>, %b: tensor<64x16xi8>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op operand B must have f16 elements, got 'i8'}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xi8> -> tensor<32x16xf32>
  return
}

// -----

func.func @elt_init(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf64>) {
  // expected-error @+1 {{'gpupoor.matmul' op init must have f16 or f32 elements, got 'f64'}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf64>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf64>
  return
}

// -----

func.func @k_mismatch(%a: tensor<32x64xf16>, %b: tensor<48x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op reduction size K of operand B (48) does not match K of operand A (64)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<48x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @k_mismatch_nk(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op reduction size K of operand B (16) does not match K of operand A (64)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32, b_layout = nk>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @init_rows(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<31x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op init has 31 rows, expected M = 32 from operand A}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<31x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<31x16xf32>
  return
}

// -----

func.func @init_cols(%a: tensor<?x64xf16>, %b: tensor<64x16xf16>, %c: tensor<?x8xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op init has 8 columns, expected N = 16 from operand B}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<?x8xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<?x64xf16>, tensor<64x16xf16> -> tensor<?x8xf32>
  return
}

// -----

func.func @batch_b(%a: tensor<2x32x64xf16>, %b: tensor<3x64x16xf16>, %c: tensor<2x32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op batch size of operand B (3) does not match operand A (2)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<2x32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<2x32x64xf16>, tensor<3x64x16xf16> -> tensor<2x32x16xf32>
  return
}

// -----

func.func @batch_init(%a: tensor<2x32x64xf16>, %b: tensor<?x64x16xf16>, %c: tensor<4x32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op batch size of init (4) does not match operand A (2)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<4x32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<2x32x64xf16>, tensor<?x64x16xf16> -> tensor<4x32x16xf32>
  return
}

// -----

func.func @ins_without_maps(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>, %x: tensor<16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op has 1 ins operands but 0 maps}}
  %r = gpupoor.matmul %a, %b ins(%x : tensor<16xf32>) maps([]) outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %v: f32, %o: f32):
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @map_not_permutation(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>, %x: tensor<16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op map 0 must be a projected permutation of the 2 dimensions of C, got affine_map<(d0, d1) -> (d0 + d1)>}}
  %r = gpupoor.matmul %a, %b ins(%x : tensor<16xf32>) maps([affine_map<(m, n) -> (m + n)>]) outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %v: f32, %o: f32):
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @map_rank(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>, %x: tensor<16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op map 0 has 2 results for ins operand of rank 1}}
  %r = gpupoor.matmul %a, %b ins(%x : tensor<16xf32>) maps([affine_map<(m, n) -> (m, n)>]) outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %v: f32, %o: f32):
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @ins_size(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>, %x: tensor<32xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op ins operand 0 has size 32 in dimension 0, expected 16 (C's dimension 1)}}
  %r = gpupoor.matmul %a, %b ins(%x : tensor<32xf32>) maps([affine_map<(m, n) -> (n)>]) outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %v: f32, %o: f32):
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @ins_elt(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>, %x: tensor<16xi1>) {
  // expected-error @+1 {{'gpupoor.matmul' op ins operand 0 must have integer or float elements of whole bytes, got 'i1'}}
  %r = gpupoor.matmul %a, %b ins(%x : tensor<16xi1>) maps([affine_map<(m, n) -> (n)>]) outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %v: i1, %o: f32):
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @epilogue_args(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op epilogue must have 2 arguments (acc, one per ins operand, init), got 1}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32):
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @epilogue_acc(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op epilogue's acc argument must be f16 or f32, got 'f64'}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f64, %o: f32):
    gpupoor.yield %o : f32
  }
  return
}

// -----

func.func @epilogue_in_type(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>, %x: tensor<16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op epilogue argument 1 has type 'f16', expected 'f32' (the element type of ins operand 0)}}
  %r = gpupoor.matmul %a, %b ins(%x : tensor<16xf32>) maps([affine_map<(m, n) -> (n)>]) outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %v: f16, %o: f32):
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @epilogue_out_type(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op epilogue's last argument has type 'f16', expected 'f32' (init's element type)}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f16):
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @epilogue_captures(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>, %s: f32) {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    // expected-error @+1 {{'arith.mulf' op using value defined outside the region}}
    %y = arith.mulf %acc, %s : f32
    gpupoor.yield %y : f32
  }
  return
}

// -----

func.func @ins_without_epilogue(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>, %x: tensor<16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op has ins operands but no epilogue to read them}}
  %r = gpupoor.matmul %a, %b ins(%x : tensor<16xf32>) maps([affine_map<(m, n) -> (n)>]) outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @yield_type(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f16, %o: f32):
    // expected-error @+1 {{'gpupoor.yield' op yields 'f16', expected 'f32' (init's element type)}}
    gpupoor.yield %acc : f16
  }
  return
}

// -----

func.func @epilogue_terminator(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'gpupoor.matmul' op epilogue must end with gpupoor.yield}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    llvm.unreachable
  }
  return
}

// -----

func.func @epilogue_op(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    // expected-error @+1 {{'memref.alloca' op cannot be in a gpupoor.matmul epilogue: only side-effect free arith and math ops on scalars}}
    %m = memref.alloca() : memref<f32>
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @epilogue_vector_op(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    // expected-error @+1 {{'arith.constant' op cannot be in a gpupoor.matmul epilogue: only side-effect free arith and math ops on scalars}}
    %v = arith.constant dense<1.0> : vector<2xf32>
    gpupoor.yield %acc : f32
  }
  return
}

// -----

func.func @epilogue_wide_integer(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    // expected-error @+1 {{'arith.fptosi' op cannot be in a gpupoor.matmul epilogue: only side-effect free arith and math ops on scalars (integers of at most 64 bits)}}
    %i = arith.fptosi %acc : f32 to i128
    %f = arith.sitofp %i : i128 to f32
    gpupoor.yield %f : f32
  }
  return
}

// -----

func.func @epilogue_untranslatable_type(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    // expected-error @+1 {{'arith.truncf' op cannot be in a gpupoor.matmul epilogue: its element types are not integers, f16, bf16, f32 or f64, the ones the lowerings compute with}}
    %t = arith.truncf %acc : f32 to f8E4M3FN
    %e = arith.extf %t : f8E4M3FN to f32
    gpupoor.yield %e : f32
  }
  return
}

// -----

func.func @epilogue_rounding_mode(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    // expected-error @+1 {{'arith.truncf' op cannot be in a gpupoor.matmul epilogue: the lowerings do not honour an explicit rounding mode}}
    %t = arith.truncf %acc to_nearest_away : f32 to f16
    %e = arith.extf %t : f16 to f32
    gpupoor.yield %e : f32
  }
  return
}

// -----

func.func @epilogue_powi_exponent(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    %n = arith.fptosi %acc : f32 to i64
    // expected-error @+1 {{'math.fpowi' op cannot be in a gpupoor.matmul epilogue: its exponent is neither an i32 nor a constant that fits in one}}
    %p = math.fpowi %acc, %n : f32, i64
    gpupoor.yield %p : f32
  }
  return
}

// -----

func.func @epilogue_index_addui_extended(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    %i = arith.fptoui %acc : f32 to i64
    %x = arith.index_cast %i : i64 to index
    // expected-error @+1 {{'arith.addui_extended' op cannot be in a gpupoor.matmul epilogue: arith-to-llvm cannot lower it on index}}
    %s, %carry = arith.addui_extended %x, %x : index, i1
    %j = arith.index_cast %s : index to i64
    %f = arith.uitofp %j : i64 to f32
    gpupoor.yield %f : f32
  }
  return
}

// -----

func.func @epilogue_no_lowering(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) {
  %r = gpupoor.matmul %a, %b outs(%c : tensor<32x16xf32>) strategy(#gpupoor.split_k<tile = [32, 16, 32], inner = f16, outer = f32>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf32> epilogue {
  ^bb0(%acc: f32, %o: f32):
    %lo = arith.constant 0.0 : f32
    %hi = arith.constant 6.0 : f32
    // expected-error @+1 {{'math.clampf' op cannot be in a gpupoor.matmul epilogue: the kernels' NVVM lowering or the CPU loops' lowering has no pattern for it}}
    %y = math.clampf %acc to [%lo, %hi] : f32
    gpupoor.yield %y : f32
  }
  return
}

// -----

// Static sizes whose bytes overflow an int64, or whose tiles exceed grid x
// (2^31 - 1 blocks): the host code's index arithmetic would overflow.
func.func @size_overflow(%a: memref<1099511627776x64xf16>, %b: memref<64x1099511627776xf16>, %c: memref<1099511627776x1099511627776xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op operand of type 'memref<1099511627776x1099511627776xf16>' has more bytes than an int64 counts}}
  gpupoor.matmul %a, %b outs(%c : memref<1099511627776x1099511627776xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) : memref<1099511627776x64xf16>, memref<64x1099511627776xf16>
  return
}

// -----

func.func @grid_limit(%a: memref<8388608x64xf16>, %b: memref<64x65536xf16>, %c: memref<8388608x65536xf16>) {
  // expected-error @+1 {{static sizes give 2147483648 tiles of 16 x 16, more blocks than a grid launches (2147483647)}}
  gpupoor.matmul %a, %b outs(%c : memref<8388608x65536xf16>) strategy(#gpupoor.split_k<tile = [16, 16, 32], inner = f16, outer = f32>) : memref<8388608x64xf16>, memref<64x65536xf16>
  return
}

// -----

func.func @bytes_overflow_a(%a: memref<4611686018427387904x2xf16>, %b: memref<2x1xf16>, %c: memref<4611686018427387904x1xf16>) {
  // expected-error @+1 {{operand of type 'memref<4611686018427387904x2xf16>' has more bytes than an int64 counts}}
  gpupoor.matmul %a, %b outs(%c : memref<4611686018427387904x1xf16>) strategy(#gpupoor.split_k<tile = [16, 16, 32], inner = f16, outer = f32>) : memref<4611686018427387904x2xf16>, memref<2x1xf16>
  return
}

// -----

// #gpupoor.kernel_config checks each field on its own (how they fit the tile
// and the chip is checked where the kernel is built).
func.func @config_0(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{warps must have 2 entries [WM, WN], got 1}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_1(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{needs at least one warp along M and N, got 0 x 2}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [0, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_2(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{the copy pipeline needs 2 to 32 stages, got 1}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 1, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_3(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{group_m must be in [1, 65536], got 0}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 0, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_4(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{fragment_prefetch must be >= 0, got -1}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = -1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_5(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{shared_outer_rows must be >= 0, got -1}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = -1, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_6(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{epilogue_passes must be >= 0, got -1}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = -1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_7(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{index_bitwidth must be 32 or 64, got 16}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 16>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_bound_0(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{64 x 1 warps exceed the 32 warps (1024 threads) a block can have}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [64, 1], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_bound_1(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{8 x 8 warps exceed the 32 warps (1024 threads) a block can have}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [8, 8], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_bound_2(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{the copy pipeline needs 2 to 32 stages, got 33}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 33, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_bound_3(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{group_m must be in [1, 65536], got 65537}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 65537, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @strategy_bound_0(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{splits must be in [1, 65536], got 65537}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<splits = 65537, tile = [128, 128, 32], inner = f16, outer = f32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @strategy_bound_1(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{tile size BN must be in [1, 4096], got 8192}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 8192, 32], inner = f16, outer = f32>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

// With a_layout = km, A is K x M: its first dimension is K.
func.func @a_layout_km_mismatch(%a: memref<16x32xf16>, %b: memref<32x8xf16>, %c: memref<32x8xf16>) {
  // expected-error @+1 {{reduction size K of operand B (32) does not match K of operand A (16)}}
  gpupoor.matmul %a, %b outs(%c : memref<32x8xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, a_layout = km>)
      : memref<16x32xf16>, memref<32x8xf16>
  return
}

// -----

func.func @slices_negative(%a: memref<16x32xf16>, %b: memref<32x8xf16>, %c: memref<16x8xf16>) {
  // expected-error @+2 {{slices must be 0 (chosen at run time) or in [1, 65535], got -1}}
  gpupoor.matmul %a, %b outs(%c : memref<16x8xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, slices = -1>)
      : memref<16x32xf16>, memref<32x8xf16>
  return
}

// -----

func.func @slices_over_splits(%a: memref<16x32xf16>, %b: memref<32x8xf16>, %c: memref<16x8xf16>) {
  // expected-error @+2 {{slices (4) must not exceed splits (2): each slice takes at least one chunk}}
  gpupoor.matmul %a, %b outs(%c : memref<16x8xf16>)
      strategy(#gpupoor.split_k<splits = 2, tile = [128, 128, 32], inner = f16, outer = f32, slices = 4>)
      : memref<16x32xf16>, memref<32x8xf16>
  return
}

// -----

func.func @config_persistent(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{persistent blocks need copies = tma}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>) config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32, persistent = true>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_blocks_per_sm(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{blocks_per_sm must be 1 or 2, got 3}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, blocks_per_sm = 3>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @config_two_blocks_async(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{blocks_per_sm = 2 needs copies = tma and persistent = false (a persistent grid has a block an SM)}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 8, copies = async, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, blocks_per_sm = 2>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @swapped_km(%a: tensor<64x1xf16>, %b: tensor<4096x64xf16>, %c: tensor<1x4096xf16>) {
  // expected-error @+1 {{swapped with a_layout = km needs chip sm_90a (the swapped product's B is A as K x N), got sm_90}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<1x4096xf16>) strategy(#gpupoor.split_k<tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, a_layout = km, chip = sm_90, swapped = true>) : tensor<64x1xf16>, tensor<4096x64xf16> -> tensor<1x4096xf16>
  return
}

// -----

func.func @swapped_batched(%a: tensor<2x1x64xf16>, %b: tensor<2x4096x64xf16>, %c: tensor<2x1x4096xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op a swapped strategy takes 2-D operands only, got a batched op}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<2x1x4096xf16>) strategy(#gpupoor.split_k<tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true>) : tensor<2x1x64xf16>, tensor<2x4096x64xf16> -> tensor<2x1x4096xf16>
  return
}

// -----

func.func @config_stream_k(%a: memref<128x64xf16>, %b: memref<128x64xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{stream_k needs persistent = true (the blocks share the last wave's tiles)}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32, stream_k = true>) : memref<128x64xf16>, memref<128x64xf16>
  return
}

// -----

func.func @config_column_stores(%a: memref<128x64xf16>, %b: memref<128x64xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{column_stores needs the shared-memory epilogue (epilogue_passes > 0) of a kernel that is not persistent}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) config(#gpupoor.kernel_config<warps = [8, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 0, handover = convert, index_bitwidth = 32, column_stores = true>) : memref<128x64xf16>, memref<128x64xf16>
  return
}

// -----

func.func @config_cluster_m(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{cluster_m must be 1, 2 or 4, got 3}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [64, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) config(#gpupoor.kernel_config<warps = [4, 1], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, cluster_m = 3>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

// Stream-K's shared tiles would split a pair of a cluster.
func.func @config_cluster_stream_k(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{cluster_m = 2 needs stream_k = false}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>) strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>) config(#gpupoor.kernel_config<warps = [4, 2], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, persistent = true, stream_k = true, cluster_m = 2>) : memref<128x64xf16>, memref<64x128xf16>
  return
}

// -----

func.func @sets_not_dividing_steps(%a: tensor<1x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<1x4096xf16>) {
  // expected-error @+1 {{sets = 3 must be a power of two dividing BK / 16 = 8}}
  %r = gpupoor.matmul %a, %b outs(%c : tensor<1x4096xf16>) strategy(#gpupoor.split_k<tile = [64, 16, 128], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true, sets = 3>) : tensor<1x4096xf16>, tensor<4096x4096xf16> -> tensor<1x4096xf16>
  return
}


// -----

// The host code reads strides from a memref's descriptor: strided layouts
// only (a permutation as an affine map would fail extract_strided_metadata).
func.func @affine_map_layout(%a: memref<64x32xf16, affine_map<(d0, d1) -> (d1, d0)>>, %b: memref<32x48xf16>, %c: memref<64x48xf16>) {
  // expected-error @+1 {{operand type 'memref<64x32xf16, affine_map<(d0, d1) -> (d1, d0)>>' has a layout map that is not strided<...>}}
  gpupoor.matmul %a, %b outs(%c : memref<64x48xf16>) strategy(#gpupoor.split_k<tile = [64, 64, 32], inner = f16, outer = f32, chip = sm_80>) : memref<64x32xf16, affine_map<(d0, d1) -> (d1, d0)>>, memref<32x48xf16>
  return
}
