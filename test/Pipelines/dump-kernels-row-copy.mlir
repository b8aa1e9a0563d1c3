// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa dump-dir=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/gpupoor_row_copy.json
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/gpupoor_row_copy.ptx
// RUN: not ls %t/gpupoor_matmul_0.json

// A program that copies rows of f16 (the copy the package's library holds,
// python/gpupoor/compile.py's ROW_COPY_SOURCE) dumps the row-copy kernel
// with a manifest naming its block, chunk and parameters in the order the
// package passes them (ops.cpp copyRows; gpupoor/Runtime/RowCopyAbi.h).
// CHECK:      "block_size": 256,
// CHECK-NEXT: "chunk_elements": 8,
// CHECK-NEXT: "kernel": "gpupoor_row_copy",
// CHECK-NEXT: "params": [
// CHECK-NEXT:   "src",
// CHECK-NEXT:   "dst",
// CHECK-NEXT:   "batch",
// CHECK-NEXT:   "rows",
// CHECK-NEXT:   "cols",
// CHECK-NEXT:   "src_batch_stride",
// CHECK-NEXT:   "src_row_stride",
// CHECK-NEXT:   "dst_batch_stride",
// CHECK-NEXT:   "dst_row_stride",
// CHECK-NEXT:   "src_end"
// CHECK-NEXT: ],
// CHECK-NEXT: "ptx": "gpupoor_row_copy.ptx"

// The words around a chunk through the read-only cache, a 16-byte store,
// and the element path's 2-byte copies.
// PTX: .entry gpupoor_row_copy(
// PTX: ld.global.nc.v4.b32
// PTX: st.global.v4.b32
// PTX: ld.global.b16
// PTX: st.global.b16

!rows = memref<?x?x?xf16, strided<[?, ?, 1], offset: ?>>
func.func @row_copy(%src: !rows, %dst: !rows) {
  memref.copy %src, %dst : !rows to !rows
  return
}
