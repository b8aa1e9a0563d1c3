//===- gpupoor-fuzz.cpp - libFuzzer harness for gpupoor's passes ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Parses each input as MLIR and, when it is valid IR, runs it through
// gpupoor's GPU flow (split-k rewrite, bufferization, kernel configuration,
// the mma.sync kernel and its NVVM lowering) and its CPU pipeline, with
// options (chip, outer type, tile, copies, index width, warps, stages,
// group-m, outer sums in shared memory) picked from the input's hash.
// Diagnostics are fine: a pass may refuse an input. Crashes (under ASan and
// UBSan) and IR that fails to verify after a pass that succeeded are bugs: the
// harness aborts on them. scripts/fuzz.sh builds it and runs it on a corpus of
// the lit tests and generated programs.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

namespace {

/// Aborts when a pass that succeeded leaves IR that does not verify.
struct VerifyAfterEachPass : PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    llvm::errs() << "gpupoor-fuzz: invalid IR after " << pass->getArgument()
                 << "\n";
    std::abort();
  }
};

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    registerAllPasses();
    gpupoor::registerAllPasses();
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    gpupoor::registerAllDialects(registry);
    auto *c = new MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

/// GPUPOOR_FUZZ_VERBOSE=1 says, per input, whether it parsed and how each
/// pipeline ended (for triage and for checking the corpus reaches passes).
bool verbose() {
  static bool v = std::getenv("GPUPOOR_FUZZ_VERBOSE") != nullptr;
  return v;
}

/// Runs `pipeline` on a clone of `module`; failure is an answer, not a bug.
void runPipeline(ModuleOp module, const std::string &pipeline) {
  OwningOpRef<ModuleOp> clone(module.clone());
  PassManager pm(&context());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    std::abort(); // The harness's own pipelines must parse.
  LogicalResult result = pm.run(*clone);
  if (verbose())
    llvm::errs() << "gpupoor-fuzz: " << pipeline.substr(0, 40) << "... "
                 << (succeeded(result) ? "succeeded" : "failed") << "\n";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = context();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // The MLIR lexer relies on a nul after the buffer, as files have; the
  // fuzzer's bytes have none: a std::string's copy does.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module || failed(verify(*module))) {
    if (verbose())
      llvm::errs() << "gpupoor-fuzz: not valid IR\n";
    return 0;
  }
  uint64_t h = llvm::hash_value(text);
  static constexpr const char *kChips[] = {"sm_80", "sm_86", "sm_89", "sm_90",
                                           "sm_90a"};
  static constexpr const char *kTiles[] = {
      "", " tile=64,64,32", " tile=256,128,64", " tile=128,256,32"};
  static constexpr const char *kWarps[] = {"", "warps-n=4 ", "warps-m=4 ",
                                           "warps-m=8 warps-n=8 "};
  std::string splitK = std::string("gpupoor-split-k{chip=") + kChips[h % 5] +
                       " outer-type=" + ((h >> 3) & 1 ? "f16" : "f32") +
                       kTiles[(h >> 6) & 3] + "}";
  std::string select = std::string("gpupoor-select-kernel-config{") +
                       ((h >> 4) & 1 ? "async-copies=false " : "") +
                       ((h >> 5) & 1 ? "index-bitwidth=64 " : "") +
                       kWarps[(h >> 8) & 3] +
                       ((h >> 10) & 1 ? "stages=2 group-m=1 " : "") +
                       ((h >> 11) & 1 ? "shared-outer-rows=1" : "") + "}";
  runPipeline(*module,
              "builtin.module(" + splitK +
                  ", one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map}, " +
                  select +
                  ", convert-gpupoor-to-nvgpu, canonicalize, "
                  "gpu.module(convert-scf-to-cf, expand-strided-metadata, "
                  "lower-affine, arith-expand, convert-gpupoor-kernel-to-nvvm, "
                  "convert-vector-to-llvm, convert-ub-to-llvm, "
                  "reconcile-unrealized-casts))");
  runPipeline(*module, "builtin.module(gpupoor-cpu-pipeline)");
  return 0;
}
