//===- BufferizableOpInterfaceImpl.h - gpupoor bufferization ----*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define GPUPOOR_DIALECT_GPUPOOR_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;

namespace gpupoor {
/// Lets One-Shot Bufferize turn tensor gpupoor.matmul ops into memref ones.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace gpupoor
} // namespace mlir

#endif // GPUPOOR_DIALECT_GPUPOOR_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
