//===- Passes.h - gpupoor conversion passes ---------------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_PASSES_H
#define GPUPOOR_CONVERSION_PASSES_H

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;

namespace gpupoor {

#define GEN_PASS_DECL
#include "gpupoor/Conversion/Passes.h.inc"

/// Patterns lowering memref gpupoor.matmul to split-k loops.
void populateGPUPoorToLoopsPatterns(RewritePatternSet &patterns);

/// Prepares `converter` (made with the kernel's index width) for gpupoor's
/// kernels: upstream's GPU-to-NVVM type conversions, cp.async tokens as i32.
void configureGPUPoorKernelToNVVMTypeConverter(LLVMTypeConverter &converter);

/// Patterns lowering a gpupoor kernel's body (nvgpu, gpu, arith, cf, func,
/// memref, math through libdevice first, vector loads and stores) to NVVM
/// and LLVM with `converter`: what convert-gpupoor-kernel-to-nvvm applies.
void populateGPUPoorKernelToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "gpupoor/Conversion/Passes.h.inc"

} // namespace gpupoor
} // namespace mlir

#endif // GPUPOOR_CONVERSION_PASSES_H
