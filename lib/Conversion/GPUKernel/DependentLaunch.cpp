//===- DependentLaunch.cpp - programmatic dependent launch ----------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/DependentLaunch.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::gpupoor;

void mlir::gpupoor::emitGridDependencyWait(KernelContext &kc) {
  if (!kc.spec.dependentLaunch())
    return;
  // Not nvvm.griddepcontrol wait: LLVM's intrinsic is IntrNoMem, so loads
  // and stores may move across it. Inline assembly with a memory clobber
  // keeps every access of the thread after the wait, as CUDA C++ code does
  // with asm volatile("griddepcontrol.wait;" ::: "memory").
  LLVM::InlineAsmOp::create(
      kc.b, TypeRange(), ValueRange(), "griddepcontrol.wait;", "~{memory}",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
}
