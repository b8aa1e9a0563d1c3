//===- TestPolicyIR.cpp - the host code's S and P' as a function ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// test-gpupoor-policy-ir fills the body of each function carrying a
// `gpupoor.test_strategy` (a #gpupoor.split_k) with the IR the host code and
// the loop form emit to choose S and P' at run time (emitTileCount,
// emitSplitGeometry, emitSliceCount), taking (M, N, K, batch) and returning
// (S, P'). test/Policy/test_host_code.py compiles it for the CPU and checks
// it against the policy library over a grid of sizes: the IR generators are
// a second spelling of the policy's rules, and this is where they are held
// to it.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/SplitKUtils.h"
#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

struct TestPolicyIRPass
    : PassWrapper<TestPolicyIRPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPolicyIRPass)

  StringRef getArgument() const final { return "test-gpupoor-policy-ir"; }
  StringRef getDescription() const final {
    return "Fills functions marked gpupoor.test_strategy with the host "
           "code's S and P' choice";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, GPUPoorDialect>();
  }

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](func::FuncOp fn) {
      auto strategy = fn->getAttrOfType<SplitKAttr>("gpupoor.test_strategy");
      if (!strategy)
        return WalkResult::advance();
      Builder types(fn.getContext());
      Type index = types.getIndexType();
      if (fn.getFunctionType() !=
          types.getFunctionType({index, index, index, index}, {index, index})) {
        fn.emitOpError("gpupoor.test_strategy: expected (index, index, "
                       "index, index) -> (index, index)");
        return WalkResult::interrupt();
      }
      // The attribute goes: what follows (mlir-translate) knows no gpupoor.
      fn->removeAttr("gpupoor.test_strategy");
      fn.getBody().getBlocks().clear();
      Block *entry = fn.addEntryBlock();
      auto b = ImplicitLocOpBuilder::atBlockBegin(fn.getLoc(), entry);
      Value m = entry->getArgument(0), n = entry->getArgument(1);
      Value k = entry->getArgument(2), batch = entry->getArgument(3);
      // As GPUPoorToLoops and HostLaunch.cpp's emitGrid emit them.
      SplitGeometry geometry = emitSplitGeometry(b, k, strategy);
      Value slices = arith::ConstantIndexOp::create(b, 1);
      if (strategy.getSlices() != 1)
        slices =
            emitSliceCount(b, strategy, emitTileCount(b, strategy, m, n, batch),
                           geometry.splits, k);
      func::ReturnOp::create(b, ValueRange{geometry.splits, slices});
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

namespace mlir::gpupoor::test {
void registerTestPolicyIRPass() { PassRegistration<TestPolicyIRPass>(); }
} // namespace mlir::gpupoor::test
