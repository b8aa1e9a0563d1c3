// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-nvgpu -verify-diagnostics

// The conversion builds the op's configuration as it is: one that does not
// fit the tile, the types or the chip is an error, one case per check that
// selection cannot already fail.

func.func @epilogue_passes(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the shared-memory epilogue cannot run in 3 passes over a warp's 4 m16 rows}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f16, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 3, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @mma_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op the mma handover adds into f32 outer sums, got 'f16'}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f16, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = mma, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @sm86_smem(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op shared memory of 131072 bytes exceeds the 99 KiB a block can have on sm_86}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 64], inner = f16, outer = f16, chip = sm_86>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @no_config(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op has no kernel configuration; run gpupoor-select-kernel-config first}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @async_strided(%a: memref<128x64xf16, strided<[128, 2]>>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op copies = async needs unit inner strides and rows (and batch strides) of a multiple of 8 elements in A and B, which their types rule out}}
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<128x64xf16, strided<[128, 2]>>, memref<64x128xf16>
  return
}

// -----

// A batch stride of 4100 elements: element 1 starts 8 bytes off 16.
func.func @async_batch_stride(%a: memref<2x64x64xf16, strided<[4100, 64, 1]>>, %b: memref<2x64x64xf16>, %c: memref<2x64x64xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op copies = async needs unit inner strides and rows (and batch strides) of a multiple of 8 elements in A and B, which their types rule out}}
  gpupoor.matmul %a, %b outs(%c : memref<2x64x64xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<2x64x64xf16, strided<[4100, 64, 1]>>, memref<2x64x64xf16>
  return
}

// -----

func.func @narrow_huge(%a: memref<65536x65536xf16>, %b: memref<65536x128xf16>, %c: memref<65536x128xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op index_bitwidth = 32 needs every size, stride and element offset below 2^31, which the operand types rule out}}
  gpupoor.matmul %a, %b outs(%c : memref<65536x128xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<65536x65536xf16>, memref<65536x128xf16>
  return
}

// -----

// An epilogue operand whose static stride puts its last element past 2^31.
func.func @huge_ins(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %bias: memref<64xf16, strided<[67108864]>>, %c: memref<?x64xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op index_bitwidth = 32 needs every size, stride and element offset below 2^31, which the operand types rule out}}
  gpupoor.matmul %a, %b ins(%bias : memref<64xf16, strided<[67108864]>>) maps([affine_map<(m, n) -> (n)>]) outs(%c : memref<?x64xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16> epilogue {
  ^bb0(%acc: f16, %bv: f16, %o: f16):
    %s = arith.addf %acc, %bv : f16
    gpupoor.yield %s : f16
  }
  return
}

// -----

func.func @group_product(%a: memref<16x64xf16>, %b: memref<64x16777216xf16>, %c: memref<16x16777216xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op index_bitwidth = 32 needs group_m * ceil(N / BN) below 2^31}}
  gpupoor.matmul %a, %b outs(%c : memref<16x16777216xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 65536, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<16x64xf16>, memref<64x16777216xf16>
  return
}

// -----

func.func @tma_on_sm90(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  // expected-error @+1 {{'gpupoor.matmul' op TMA copies need the sm_90a kernel, got chip sm_90}}
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f16, chip = sm_90>)
      config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = tma, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
