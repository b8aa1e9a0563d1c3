//===- BufferizableOpInterfaceImpl.cpp - gpupoor bufferization ------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/Transforms/BufferizableOpInterfaceImpl.h"

#include "gpupoor/Dialect/GPUPoor/IR/GPUPoor.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace {

struct MatmulOpInterface
    : DstBufferizableOpInterfaceExternalModel<MatmulOpInterface,
                                              gpupoor::MatmulOp> {
  /// The op overwrites C without reading it, so One-Shot Bufferize need not
  /// keep (or copy) the init's contents.
  bool bufferizesToMemoryRead(Operation *op, OpOperand &opOperand,
                              const AnalysisState &state) const {
    return &opOperand != &cast<gpupoor::MatmulOp>(op).getInitMutable();
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto matmul = cast<gpupoor::MatmulOp>(op);
    if (!matmul.hasTensorSemantics())
      return success();
    auto buffer = [&](Value v) -> FailureOr<Value> {
      return v ? getBuffer(rewriter, v, options, state) : FailureOr<Value>();
    };
    FailureOr<Value> a = buffer(matmul.getA()), b = buffer(matmul.getB()),
                     init = buffer(matmul.getInit());
    if (failed(a) || failed(b) || failed(init))
      return failure();
    Value bias;
    if (matmul.getBias()) {
      FailureOr<Value> biasBuffer = buffer(matmul.getBias());
      if (failed(biasBuffer))
        return failure();
      bias = *biasBuffer;
    }
    rewriter.setInsertionPoint(op);
    gpupoor::MatmulOp::create(rewriter, op->getLoc(), Type(), *a, *b, bias,
                              *init, matmul.getStrategy(),
                              matmul.getConfigAttr());
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};

} // namespace

void mlir::gpupoor::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, GPUPoorDialect *) {
    MatmulOp::attachInterface<MatmulOpInterface>(*ctx);
  });
}
