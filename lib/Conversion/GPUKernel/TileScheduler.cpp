//===- TileScheduler.cpp - which C tile a block computes ------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/TileScheduler.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gpupoor;

void GroupedTileOrder::emitTileOrigin() {
  Value pid = kc.pid;
  Value numPidM = kc.tilesM, numPidN = kc.tilesN;
  // A cluster of two along M: its blocks (x = 2p, 2p + 1) take row tiles
  // 2i and 2i + 1 of one column, pair p in the grouped order of the pairs
  // (groups of group_m / 2 pairs).
  Value rank;
  if (c.clusterM == 2) {
    rank = remU(pid, idx(2));
    pid = divU(pid, idx(2));
    numPidM = divU(add(numPidM, idx(1)), idx(2));
  }
  int64_t groupM =
      c.clusterM == 2 ? std::max<int64_t>(c.groupM / 2, 1) : c.groupM;
  Value inGroup = mul(idx(groupM), numPidN);
  Value groupId = divU(pid, inGroup);
  Value firstM = mul(groupId, idx(groupM));
  Value groupSize = minI(sub(numPidM, firstM), idx(groupM));
  Value pidInGroup = remU(pid, inGroup);
  Value pidM = add(firstM, remU(pidInGroup, groupSize));
  Value pidN = divU(pidInGroup, groupSize);
  if (rank)
    pidM = add(mul(pidM, idx(2)), rank);
  kc.m0 = mul(pidM, idx(c.bm));
  kc.n0 = mul(pidN, idx(c.bn));
}
