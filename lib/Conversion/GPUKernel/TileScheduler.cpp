//===- TileScheduler.cpp - which C tile a block computes ------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/TileScheduler.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::gpupoor;

void GroupedTileOrder::emitTileOrigin() {
  Value pid = kc.pid;
  Value numPidM = kc.tilesM, numPidN = kc.tilesN;
  Value inGroup = mul(idx(c.groupM), numPidN);
  Value groupId = divU(pid, inGroup);
  Value firstM = mul(groupId, idx(c.groupM));
  Value groupSize = minI(sub(numPidM, firstM), idx(c.groupM));
  Value pidInGroup = remU(pid, inGroup);
  Value pidM = add(firstM, remU(pidInGroup, groupSize));
  Value pidN = divU(pidInGroup, groupSize);
  kc.m0 = mul(pidM, idx(c.bm));
  kc.n0 = mul(pidN, idx(c.bn));
}
