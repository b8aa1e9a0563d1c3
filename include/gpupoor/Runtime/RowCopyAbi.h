//===- RowCopyAbi.h - the row copy's launch ABI -----------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// What a launcher of the row-copy kernel (lib/Transforms/RowCopy.h;
// docs/reference/kernel-abi.md) and the compiler that builds it share: its
// name, block, chunk and parameters. Plain C++ (no MLIR): the package's
// launcher includes it too.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_RUNTIME_ROWCOPYABI_H
#define GPUPOOR_RUNTIME_ROWCOPYABI_H

#include <cstdint>

namespace mlir::gpupoor::rowcopy {

/// The kernel's symbol (and its gpu.module's).
inline constexpr const char *kRowCopyKernelName = "gpupoor_row_copy";

/// Threads a block (one dimension).
inline constexpr int64_t kRowCopyBlockSize = 256;

/// The elements a thread copies (a chunk: 16 bytes of 2-byte elements).
inline constexpr int64_t kRowCopyChunkElems = 8;

/// The kernel's parameters, all 64-bit integers, in order: addresses in
/// bytes, sizes and strides in elements, and one past the source's last
/// byte (0 where unknown).
inline constexpr const char *kRowCopyParams[] = {"src",
                                                 "dst",
                                                 "batch",
                                                 "rows",
                                                 "cols",
                                                 "src_batch_stride",
                                                 "src_row_stride",
                                                 "dst_batch_stride",
                                                 "dst_row_stride",
                                                 "src_end"};

} // namespace mlir::gpupoor::rowcopy

#endif // GPUPOOR_RUNTIME_ROWCOPYABI_H
