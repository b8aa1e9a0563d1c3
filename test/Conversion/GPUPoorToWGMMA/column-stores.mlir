// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-wgmma | FileCheck %s

// A swapped product's kernel with column stores: where C takes 16-byte
// column vectors (stride_cm = 1), each warp writes its 16 x 96 fragments
// into its region by columns (4 warps x 96 columns x (16 + 8) rows =
// 9216 elements: 12 n8 tiles x 2 row halves x 2 elements a lane), and
// reads back 96 columns x 2 vectors in 6 rounds of its 32 lanes, each a
// 16-byte store into C's transposed view; else the row vectors of the
// shared-memory epilogue (4 x 16 x (96 + 8) = 6656 elements).
// CHECK-LABEL: gpu.func @gpupoor_matmul_0
// CHECK: gpu.barrier
// CHECK-COUNT-48: memref.store {{.*}} : memref<9216xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-6: vector.store {{.*}} {alignment = 16 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<8xf16>
// CHECK: gpu.barrier
// CHECK: vector.store {{.*}} : memref<6656xf16, #gpu.address_space<workgroup>>, vector<2xf16>
func.func @column_stores(%a: memref<2144x2408xf16>, %b: memref<288x2408xf16>, %c: memref<2144x288xf16, strided<[1, 2144]>>) {
  gpupoor.matmul %a, %b outs(%c : memref<2144x288xf16, strided<[1, 2144]>>)
      strategy(#gpupoor.split_k<splits = 12, tile = [64, 96, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a>)
      config(#gpupoor.kernel_config<warps = [4, 1], stages = 9, group_m = 8, copies = tma, fragment_prefetch = 0, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32, column_stores = true>)
      {gpupoor.swapped_operands}
      : memref<2144x2408xf16>, memref<288x2408xf16>
  return
}
