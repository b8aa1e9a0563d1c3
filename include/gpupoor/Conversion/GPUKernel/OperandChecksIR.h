//===- OperandChecksIR.h - policy checks as IR ------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The policy's checks on a launch's parameters (policy::OperandChecks: what
// a kernel requires, where C's tensor map describes C) computed as IR, so
// that the emitted host code and the kernels test the very list the
// manifest holds and the package evaluates (policy::violation).
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_OPERANDCHECKSIR_H
#define GPUPOOR_CONVERSION_GPUKERNEL_OPERANDCHECKSIR_H

#include "gpupoor/Policy/Checks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::gpupoor {

/// i1: `x` (an integer or index) `pred` the constant `y`.
Value compareConst(ImplicitLocOpBuilder &b, arith::CmpIPredicate pred, Value x,
                   int64_t y);
/// i1: every one of `conds` (true where there are none).
Value allOf(ImplicitLocOpBuilder &b, ArrayRef<Value> conds);

/// i1: every check of `checks` holds for the values `valueOf` gives by ABI
/// parameter name (integers or index; pointers as LLVM pointers). The
/// bounds (maxWorkTiles, maxSize, maxOffset) are not among them: their
/// callers prove or check those themselves. True where there is nothing
/// to check.
Value emitChecksHold(ImplicitLocOpBuilder &b,
                     const policy::OperandChecks &checks,
                     function_ref<Value(StringRef)> valueOf);

/// i1: every one of `bounds` (a 32-bit kernel's, policy::kernelBounds')
/// holds for the index values `valueOf` gives by ABI parameter name (and
/// sum_slots). A LastOffset's terms are below 2^62 where the sizes and
/// strides it reads are in their Range bounds, which a caller leaves out
/// only where they are proven.
Value emitBoundsHold(ImplicitLocOpBuilder &b, ArrayRef<policy::Bound> bounds,
                     function_ref<Value(StringRef)> valueOf);

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_OPERANDCHECKSIR_H
