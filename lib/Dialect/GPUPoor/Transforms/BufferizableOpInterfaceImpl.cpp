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
  /// C is read only by an epilogue that uses its argument (C += A * B);
  /// otherwise the op overwrites C, and One-Shot Bufferize need not keep
  /// (or copy) the init's contents.
  bool bufferizesToMemoryRead(Operation *op, OpOperand &opOperand,
                              const AnalysisState &state) const {
    auto matmul = cast<gpupoor::MatmulOp>(op);
    return &opOperand != &matmul.getInitMutable() || matmul.readsInit();
  }

  /// An ins operand read at C's own element (an identity map) may share
  /// C's buffer: each element is read before the same thread writes it.
  bool bufferizesToElementwiseAccess(Operation *op, const AnalysisState &state,
                                     ArrayRef<OpOperand *> opOperands) const {
    auto matmul = cast<gpupoor::MatmulOp>(op);
    unsigned firstIn = matmul.getEpilogueIns().getBeginOperandIndex();
    for (OpOperand *operand : opOperands) {
      if (operand == &matmul.getInitMutable())
        continue;
      unsigned i = operand->getOperandNumber();
      if (i < firstIn || i >= firstIn + matmul.getEpilogueIns().size())
        return false;
      auto map = cast<AffineMapAttr>(matmul.getEpilogueMaps()[i - firstIn]);
      if (!map.getValue().isIdentity())
        return false;
    }
    return true;
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto matmul = cast<gpupoor::MatmulOp>(op);
    if (!matmul.hasTensorSemantics())
      return success();
    SmallVector<Value> buffers;
    for (Value v : matmul->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, v, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    rewriter.setInsertionPoint(op);
    unsigned numIns = matmul.getEpilogueIns().size();
    auto bufferized = gpupoor::MatmulOp::create(
        rewriter, op->getLoc(), Type(), buffers[0], buffers[1],
        ArrayRef<Value>(buffers).slice(2, numIns), buffers.back(),
        matmul.getStrategy(), matmul.getConfigAttr(), matmul.getEpilogueMaps(),
        matmul.getSumsFromNegativeZeroAttr());
    rewriter.inlineRegionBefore(matmul.getEpilogue(), bufferized.getEpilogue(),
                                bufferized.getEpilogue().end());
    replaceOpWithBufferizedValues(rewriter, op, buffers.back());
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
