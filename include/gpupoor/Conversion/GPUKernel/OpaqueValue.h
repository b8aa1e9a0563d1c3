//===- OpaqueValue.h - values LLVM cannot see through -----------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// An empty inline asm that returns its operand: the same value at run time,
// which LLVM can neither prove equal to the operand nor (volatile) move.
// The kernels use it to keep a computation where it is emitted, e.g. ahead
// of a loop rather than sunk past it, or behind a wait.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_OPAQUEVALUE_H
#define GPUPOOR_CONVERSION_GPUKERNEL_OPAQUEVALUE_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::gpupoor {

/// Whether the asm may move with its operand or stays where it is emitted.
enum class AsmPlacement { Movable, Pinned };

/// `word` (i32 or i64) through an empty inline asm: the value it returns.
/// `Pinned` makes the asm volatile, so that LLVM computes the value where
/// it is emitted (neither sinking, hoisting nor dropping it).
Value emitOpaqueWord(ImplicitLocOpBuilder &b, Value word,
                     AsmPlacement placement);

/// An index through the asm as a `bits`-wide word, cast back to index: 64
/// for any index; 32 (one register) for a non-negative one below 2^32,
/// whose casts are unsigned.
Value emitOpaqueIndex(ImplicitLocOpBuilder &b, Value index, unsigned bits,
                      AsmPlacement placement);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_OPAQUEVALUE_H
