//===- consumer.cpp - gpupoor as a component of another compiler ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// consumer IN.mlir CHIP [FORMAT]: registers gpupoor with its one call,
// builds gpupoor-to-cubin from CubinPipelineOptions and gpupoor-host-to-llvm,
// runs them, translates the module to LLVM IR and prints what it got; first
// applies the split-k rewrite as a pattern set to a copy of the input, as a
// compiler's own pass would. Uses only the installed package.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/InitAll.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  if (argc < 3) {
    llvm::errs() << "usage: consumer IN.mlir CHIP [FORMAT]\n";
    return 2;
  }
  DialectRegistry registry;
  gpupoor::registerAllDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  // The rewrites as pattern sets, for a compiler's own passes.
  RewritePatternSet layouts(&context), loops(&context), nvvm(&context);
  gpupoor::populateMatmulLayoutPatterns(layouts);
  gpupoor::populateGPUPoorToLoopsPatterns(loops);
  LLVMTypeConverter converter(&context);
  gpupoor::configureGPUPoorKernelToNVVMTypeConverter(converter);
  gpupoor::populateGPUPoorKernelToNVVMConversionPatterns(converter, nvvm);
  llvm::outs() << "patterns: " << layouts.getNativePatterns().size()
               << " layout, " << loops.getNativePatterns().size()
               << " loop form, " << nvvm.getNativePatterns().size()
               << " kernel to NVVM\n";
  if (layouts.getNativePatterns().empty() || loops.getNativePatterns().empty() ||
      nvvm.getNativePatterns().empty())
    return 1;

  // The split-k rewrite alone, from its options struct. What the patterns
  // create: a pass of the consumer's would name these dependent dialects.
  context.loadDialect<gpupoor::GPUPoorDialect, linalg::LinalgDialect,
                      tensor::TensorDialect>();
  gpupoor::SplitKPatternOptions splitK;
  splitK.outerType = Float32Type::get(&context);
  if (failed(gpupoor::verifySplitKPatternOptions(splitK, &context,
                                                 UnknownLoc::get(&context))))
    return 1;
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>((*module)->clone());
  RewritePatternSet splitKPatterns(&context);
  gpupoor::populateSplitKPatterns(splitKPatterns, splitK);
  if (failed(applyPatternsGreedily(*copy, std::move(splitKPatterns))))
    return 1;
  int rewritten = 0;
  copy->walk([&](Operation *op) {
    rewritten += op->getName().getStringRef() == "gpupoor.matmul";
  });
  llvm::outs() << "split-k patterns: " << rewritten << " gpupoor.matmul\n";
  if (rewritten == 0)
    return 1;

  gpupoor::CubinPipelineOptions options;
  options.chip = argv[2];
  if (argc > 3)
    options.cubinFormat = argv[3];
  if (failed(gpupoor::checkCubinPipelineOptions(
          options, [](const Twine &msg) {
            llvm::errs() << "consumer: " << msg << "\n";
            return failure();
          })))
    return 1;
  PassManager pm(&context);
  gpupoor::buildCubinPipeline(pm, options);
  gpupoor::buildHostToLLVMPipeline(pm);
  if (failed(pm.run(*module)))
    return 1;

  int binaries = 0;
  module->walk([&](gpu::BinaryOp op) {
    ++binaries;
    for (Attribute object : op.getObjects())
      llvm::outs() << "gpu.binary @" << op.getSymName() << ": " << object
                                                                 .getAbstractAttribute()
                                                                 .getName()
                   << "\n";
  });
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule) {
    llvm::errs() << "consumer: translation to LLVM IR failed\n";
    return 1;
  }
  int functions = 0;
  for (llvm::Function &f : *llvmModule)
    functions += !f.isDeclaration();
  llvm::outs() << "binaries: " << binaries << ", LLVM IR functions: " << functions
               << ", globals: " << llvmModule->global_size() << "\n";
  return binaries > 0 ? 0 : 1;
}
