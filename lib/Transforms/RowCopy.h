//===- RowCopy.h - rows of 2-byte elements in 16-byte words -----*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_TRANSFORMS_ROWCOPY_H
#define GPUPOOR_LIB_TRANSFORMS_ROWCOPY_H

#include "gpupoor/Runtime/RowCopyAbi.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::gpupoor {

using rowcopy::kRowCopyBlockSize;
using rowcopy::kRowCopyChunkElems;
using rowcopy::kRowCopyKernelName;
using rowcopy::kRowCopyParams;

/// Whether `copy` is a copy of rows that the row-copy kernel makes: memrefs
/// of rank 2 or 3 (a batch of rows) of one 2-byte integer or float type in
/// global memory (the default space or 1), unit stride along their last
/// dimension. Source and destination must not overlap (memref.copy's
/// contract): the kernel reads the source through the read-only cache.
bool isRowCopy(linalg::CopyOp copy);

/// The row-copy kernel of `module` (gpu.module and gpu.func
/// `gpupoor_row_copy`), created the first time; `module` becomes a
/// gpu.container_module. Its parameters, all i64 (addresses in bytes,
/// sizes and strides in elements):
///   src, dst, batch, rows, cols, src_batch_stride, src_row_stride,
///   dst_batch_stride, dst_row_stride, src_end
/// Thread t of the grid copies the 8 elements of chunk t: the chunks tile
/// each destination row from its first column, batch * rows *
/// ceil(cols / 8) of them. src_end is one past the last byte of the
/// source's elements (the end of its span), or 0 where that span is not
/// known (a negative stride).
gpu::GPUFuncOp getOrCreateRowCopyKernel(OpBuilder &builder, ModuleOp module);

/// Replaces `copy` (isRowCopy) by a launch of the row-copy kernel (none
/// where the copy is empty).
void launchRowCopy(RewriterBase &rewriter, linalg::CopyOp copy,
                   gpu::GPUFuncOp kernel);

} // namespace mlir::gpupoor

#endif // GPUPOOR_LIB_TRANSFORMS_ROWCOPY_H
