//===- EpilogueOps.cpp - the ops a gpupoor.matmul epilogue may hold -------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The one rule for what an epilogue region holds: the verifier of
// gpupoor.matmul and split-k's epilogue fusion both ask it, so that a
// hand-written epilogue is refused where a fused one would not be formed.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::gpupoor;

bool mlir::gpupoor::isValidEpilogueOp(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  if ((dialect != "arith" && dialect != "math") || op->getNumRegions() ||
      !isMemoryEffectFree(op))
    return false;
  // Integers up to 64 bits: wider ones (fptosi to i128) need libcalls the
  // NVPTX backend does not have, and abort it.
  auto scalar = [](Type t) {
    return t.isIntOrIndexOrFloat() &&
           (!isa<IntegerType>(t) ||
            t.getIntOrFloatBitWidth() <= kMaxDeviceIntegerWidth);
  };
  return llvm::all_of(op->getOperandTypes(), scalar) &&
         llvm::all_of(op->getResultTypes(), scalar);
}

// What the epilogue lowerings translate. An epilogue is cloned into a GPU
// kernel (convert-gpupoor-kernel-to-nvvm: arith-to-llvm, libdevice calls,
// math-to-llvm; then the NVPTX backend) or into host loops
// (gpupoor-cpu-pipeline: arith-to-llvm, math-to-llvm, math-to-libm), which
// is decided after the op is formed: its ops must translate both ways. Both
// lowerings leave what they do not know unconverted, so that the program
// would fail at LLVM translation or abort the backend. (Found by a sweep of
// every arith and math op over each element type through both pipelines to
// PTX and x86.)

// The element types both lowerings compute with. The 4-, 6- and 8-bit
// floats and tf32 have no LLVM type (arith-to-llvm leaves their extf,
// truncf and arithmetic unconverted), and the NVPTX backend has no f80 or
// f128 (it aborts on their arithmetic).
bool mlir::gpupoor::isEpilogueScalarType(Type t) {
  if (auto integer = dyn_cast<IntegerType>(t))
    return integer.getWidth() <= kMaxDeviceIntegerWidth;
  return isa<IndexType, Float16Type, BFloat16Type, Float32Type, Float64Type>(t);
}

StringRef mlir::gpupoor::whyUntranslatableEpilogueOp(Operation *op) {
  if (!llvm::all_of(op->getOperandTypes(), isEpilogueScalarType) ||
      !llvm::all_of(op->getResultTypes(), isEpilogueScalarType))
    return "its element types are not integers, f16, bf16, f32 or f64, the "
           "ones the lowerings compute with";
  // arith-to-llvm makes a rounding mode a constrained intrinsic, which
  // states the mode in effect rather than setting it: the CPU rounds to
  // nearest anyway, NVPTX drops it (to f16) or aborts (to bf16, f64 to
  // f32).
  if (auto rounding = dyn_cast<arith::ArithRoundingModeInterface>(op);
      rounding && rounding.getRoundingModeAttr())
    return "the lowerings do not honour an explicit rounding mode";
  // libdevice's powi and LLVM's take an i32 exponent: the NVVM lowering
  // narrows a constant that fits and refuses any other, the CPU's backend
  // aborts on a variable of another width.
  if (auto powi = dyn_cast<math::FPowIOp>(op)) {
    APInt exponent;
    if (powi.getRhs().getType().isInteger(32) ||
        (matchPattern(powi.getRhs(), m_ConstantInt(&exponent)) &&
         exponent.isSignedIntN(32)))
      return {};
    return "its exponent is neither an i32 nor a constant that fits in one";
  }
  // arith-to-llvm's struct of the sum and the carry keeps an index sum.
  if (auto add = dyn_cast<arith::AddUIExtendedOp>(op);
      add && isa<IndexType>(add.getSum().getType()))
    return "arith-to-llvm cannot lower it on index";
  // Every arith op but the scaling casts (no lowering), and the math ops
  // but clampf, ipowi and isnormal (no lowering) and isinf (none on the
  // CPU). An op that later versions add is left alone until checked.
  if (isa<arith::ConstantOp, arith::AddFOp, arith::SubFOp, arith::MulFOp,
          arith::DivFOp, arith::RemFOp, arith::NegFOp, arith::MaximumFOp,
          arith::MaxNumFOp, arith::MinimumFOp, arith::MinNumFOp, arith::CmpFOp,
          arith::SelectOp, arith::ExtFOp, arith::TruncFOp, arith::FPToSIOp,
          arith::FPToUIOp, arith::SIToFPOp, arith::UIToFPOp>(op))
    return {};
  if (isa<arith::BitcastOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
          arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
          arith::CeilDivUIOp, arith::FloorDivSIOp, arith::RemSIOp,
          arith::RemUIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
          arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp, arith::MaxSIOp,
          arith::MaxUIOp, arith::MinSIOp, arith::MinUIOp, arith::CmpIOp,
          arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
          arith::IndexCastUIOp, arith::AddUIExtendedOp, arith::MulSIExtendedOp,
          arith::MulUIExtendedOp>(op))
    return {};
  if (isa<math::AbsFOp, math::AbsIOp, math::AcosOp, math::AcoshOp, math::AsinOp,
          math::AsinhOp, math::AtanOp, math::Atan2Op, math::AtanhOp,
          math::CbrtOp, math::CeilOp, math::CopySignOp, math::CosOp,
          math::CoshOp, math::CountLeadingZerosOp, math::CountTrailingZerosOp,
          math::CtPopOp, math::ErfOp, math::ErfcOp, math::ExpOp, math::Exp2Op,
          math::ExpM1Op, math::FloorOp, math::FmaOp, math::IsFiniteOp,
          math::IsNaNOp, math::LogOp, math::Log10Op, math::Log1pOp,
          math::Log2Op, math::PowFOp, math::RoundOp, math::RoundEvenOp,
          math::RsqrtOp, math::SinOp, math::SincosOp, math::SinhOp,
          math::SqrtOp, math::TanOp, math::TanhOp, math::TruncOp>(op))
    return {};
  return "the kernels' NVVM lowering or the CPU loops' lowering has no "
         "pattern for it";
}
