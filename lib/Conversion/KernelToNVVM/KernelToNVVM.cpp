//===- KernelToNVVM.cpp - gpupoor kernels to NVVM, one index width --------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/Passes.h"

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_CONVERTGPUPOORKERNELTONVVM
#include "gpupoor/Conversion/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;

namespace {

struct ConvertGPUPoorKernelToNVVMPass
    : gpupoor::impl::ConvertGPUPoorKernelToNVVMBase<
          ConvertGPUPoorKernelToNVVMPass> {
  using Base::Base;

  /// The kernel configuration's width (the descriptors that
  /// convert-gpupoor-to-nvgpu built have it), else the option's, else 64.
  /// An option that contradicts the configuration is an error.
  FailureOr<unsigned> resolveIndexBitwidth(gpu::GPUModuleOp module) {
    auto config = module->getAttrOfType<gpupoor::KernelConfigAttr>(
        gpupoor::getKernelConfigAttrName());
    if (!config)
      return indexBitwidth ? unsigned(indexBitwidth) : 64u;
    unsigned width = config.getIndexBitwidth();
    if (indexBitwidth && indexBitwidth != width)
      return module.emitError()
             << "convert-gpupoor-kernel-to-nvvm: index-bitwidth="
             << unsigned(indexBitwidth)
             << " contradicts the kernel configuration's index_bitwidth = "
             << width;
    return width;
  }

  /// libdevice's powi takes an i32 exponent, and upstream's pattern passes
  /// math.fpowi's exponent as it is: an i64 one (the ONNX importer's
  /// tanh-GELU has x^3 so) would be read as garbage (found by the front-end
  /// tests on an H100). A constant exponent that fits is narrowed; any other
  /// is an error.
  LogicalResult narrowPowIExponents(gpu::GPUModuleOp module) {
    WalkResult result = module.walk([](math::FPowIOp op) {
      auto type = dyn_cast<IntegerType>(op.getRhs().getType());
      if (!type || type.getWidth() == 32)
        return WalkResult::advance();
      APInt exponent;
      if (!matchPattern(op.getRhs(), m_ConstantInt(&exponent)) ||
          !exponent.isSignedIntN(32)) {
        op.emitOpError("exponent of type ")
            << type << " is not a constant that fits in i32 (libdevice's "
            << "powi takes an i32)";
        return WalkResult::interrupt();
      }
      OpBuilder b(op);
      Value narrow = arith::ConstantOp::create(
          b, op.getLoc(), b.getI32IntegerAttr(exponent.getSExtValue()));
      op.getRhsMutable().assign(narrow);
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Integers wider than 64 bits (an offloaded fptosi to i128, say) need
  /// libcalls the NVPTX backend does not have: it would abort (LLVM ERROR)
  /// where a diagnostic can name the op.
  static LogicalResult checkIntegerWidths(gpu::GPUModuleOp module) {
    auto wide = [](Type t) {
      auto integer = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
      return integer && integer.getWidth() > gpupoor::kMaxDeviceIntegerWidth;
    };
    WalkResult result = module.walk([&](Operation *op) {
      if (llvm::none_of(op->getOperandTypes(), wide) &&
          llvm::none_of(op->getResultTypes(), wide))
        return WalkResult::advance();
      op->emitOpError("computes with integers wider than 64 bits, which "
                      "device code cannot (the NVPTX backend has no "
                      "libcalls for them)");
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  /// The TMA kernel's tensor maps are 128-byte byval parameters that stay
  /// grid constants: TMA reads them where they lie, in the parameter space
  /// (without nvvm.grid_constant, NVPTX would copy them to local memory,
  /// which TMA cannot read). gpu.func keeps neither attribute
  /// (createKernelFunc), so they are set here on the kernel parameters that
  /// TMA loads and stores name. (The register budget at entry that setmaxnreg
  /// needs, nvvm.minctasm, comes with the gpu.func: createKernelFunc.)
  static void markTensorMapParams(gpu::GPUModuleOp module) {
    module.walk([](LLVM::LLVMFuncOp func) {
      if (func.isExternal())
        return;
      MLIRContext *ctx = func.getContext();
      Block *entry = &func.getBody().front();
      auto mark = [&](Value desc) {
        auto arg = dyn_cast<BlockArgument>(desc);
        if (!arg || arg.getOwner() != entry)
          return;
        unsigned i = arg.getArgNumber();
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(gpupoor::tensorMapType(ctx)));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(IntegerType::get(ctx, 64),
                                         gpupoor::kTensorMapAlign));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(ctx));
      };
      func.walk([&](NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp load) {
        mark(load.getTmaDescriptor());
      });
      func.walk([&](NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp store) {
        mark(store.getTmaDescriptor());
      });
    });
  }

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // The conversion would rewrite the arith ops inside a linalg op's body
    // and leave the linalg op itself: invalid IR. Such device code must be
    // loops first (the gpupoor-to-cubin pipeline does that).
    WalkResult linalg = module.walk<WalkOrder::PreOrder>([](Operation *op) {
      if (op->getName().getDialectNamespace() != "linalg")
        return WalkResult::advance();
      op->emitOpError("in device code must be lowered (convert-linalg-to-"
                      "loops) before convert-gpupoor-kernel-to-nvvm");
      return WalkResult::interrupt();
    });
    if (linalg.wasInterrupted())
      return signalPassFailure();
    if (failed(checkIntegerWidths(module)))
      return signalPassFailure();
    if (failed(narrowPowIExponents(module)))
      return signalPassFailure();
    FailureOr<unsigned> width = resolveIndexBitwidth(module);
    if (failed(width))
      return signalPassFailure();
    LowerToLLVMOptions options(ctx, DataLayout(module));
    options.overrideIndexBitwidth(*width);
    LLVMTypeConverter converter(ctx, options);
    gpupoor::configureGPUPoorKernelToNVVMTypeConverter(converter);
    RewritePatternSet patterns(ctx);
    gpupoor::populateGPUPoorKernelToNVVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    configureGpuToNVVMConversionLegality(target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    markTensorMapParams(module);
    // wgmma applies its 128-byte swizzle to shared-memory address bits, so
    // the stages written in that layout must start at a multiple of 1024
    // bytes (upstream aligns dynamic shared memory to 16). For the other
    // kernels the alignment changes nothing.
    module.walk([](LLVM::GlobalOp global) {
      if (global.getAddrSpace() == NVVM::NVVMMemorySpace::Shared &&
          global.getSymName().starts_with("__dynamic_shmem"))
        global.setAlignment(1024);
    });
  }
};

} // namespace

void mlir::gpupoor::configureGPUPoorKernelToNVVMTypeConverter(
    LLVMTypeConverter &converter) {
  configureGpuToNVVMTypeConverter(converter);
  // cp.async group tokens only order the IR; NVVM has no value for them.
  MLIRContext *ctx = &converter.getContext();
  converter.addConversion([ctx](nvgpu::DeviceAsyncTokenType) -> Type {
    return IntegerType::get(ctx, 32);
  });
}

void mlir::gpupoor::populateGPUPoorKernelToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  populateNVGPUToNVVMConversionPatterns(converter, patterns);
  populateGpuToNVVMConversionPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  // Math functions with no NVVM instruction (erf, exp, tanh, ...) call
  // libdevice. Its patterns come first: MathToLLVM would turn some of the
  // same ops into LLVM intrinsics the NVPTX backend cannot select (it
  // aborts on llvm.tanh.f32), as upstream's GPU-to-NVVM lowering orders
  // them too.
  populateLibDeviceConversionPatterns(converter, patterns, /*benefit=*/10);
  populateMathToLLVMConversionPatterns(converter, patterns);
  // Vector loads and stores need this converter's memory spaces and index
  // width; n-D vector ops this leaves are for convert-vector-to-llvm.
  populateVectorToLLVMConversionPatterns(converter, patterns);
}
