//===- OpaqueValue.cpp - values LLVM cannot see through -------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/OpaqueValue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <cassert>

using namespace mlir;
using namespace mlir::gpupoor;

Value mlir::gpupoor::emitOpaqueWord(ImplicitLocOpBuilder &b, Value word,
                                    AsmPlacement placement) {
  unsigned bits = word.getType().getIntOrFloatBitWidth();
  assert((bits == 32 || bits == 64) && "an i32 or i64 word");
  auto asmOp = LLVM::InlineAsmOp::create(
      b, TypeRange{word.getType()}, ValueRange{word}, "",
      bits == 32 ? "=r,0" : "=l,0",
      /*has_side_effects=*/placement == AsmPlacement::Pinned,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  return asmOp.getResult(0);
}

Value mlir::gpupoor::emitOpaqueIndex(ImplicitLocOpBuilder &b, Value index,
                                     unsigned bits, AsmPlacement placement) {
  assert((bits == 32 || bits == 64) && "a 32- or 64-bit word");
  Type word = b.getIntegerType(bits);
  if (bits == 32) {
    Value narrow = arith::IndexCastUIOp::create(b, word, index);
    return arith::IndexCastUIOp::create(b, b.getIndexType(),
                                        emitOpaqueWord(b, narrow, placement));
  }
  Value wide = arith::IndexCastOp::create(b, word, index);
  return arith::IndexCastOp::create(b, b.getIndexType(),
                                    emitOpaqueWord(b, wide, placement));
}
