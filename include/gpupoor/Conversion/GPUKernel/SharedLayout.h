//===- SharedLayout.h - shared-memory layout of gpupoor kernels -*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The kernel's dynamic shared memory holds `stages` stages, each A's tile
// then B's, in an XOR-swizzled layout of 16-byte chunks; after them, the
// outer sums a configuration keeps in shared memory. The epilogue reuses
// the idle stages for C.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_SHAREDLAYOUT_H
#define GPUPOOR_CONVERSION_GPUKERNEL_SHAREDLAYOUT_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::gpupoor {

/// Rows after which the swizzle of a tile with `chunksPerRow` 16-byte
/// chunks a row repeats.
int64_t swizzlePeriod(int64_t chunksPerRow);

/// The physical 16-byte chunk of logical chunk `chunk` in row `row` of a
/// shared tile with `chunksPerRow` chunks a row: XOR-ing with a few row bits
/// puts the 8 rows one ldmatrix phase reads in 8 different bank groups.
Value swizzle(ImplicitLocOpBuilder &b, Value row, Value chunk,
              int64_t chunksPerRow);

/// A shared-space pointer `bytes` (index) past `base`, the dynamic shared
/// memory's address (memref.extract_aligned_pointer_as_index): what TMA
/// copies and mbarriers take.
Value sharedPointer(ImplicitLocOpBuilder &b, Value base, Value bytes);

/// The kernel's dynamic shared memory, as raw bytes.
Value createDynamicSharedMemory(ImplicitLocOpBuilder &b);

/// A 1-D view of `elems` elements of `elementType` that starts `byteShift`
/// bytes into the dynamic shared memory `rawSmem`.
Value sharedView(ImplicitLocOpBuilder &b, Value rawSmem, Type elementType,
                 int64_t elems, Value byteShift);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_SHAREDLAYOUT_H
