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
  // A cluster of Q = cluster_m blocks along M: its blocks (x = Q p + r,
  // r < Q) take row tiles Q i + r of one column, cluster p in the grouped
  // order of the clusters (groups of group_m / Q clusters).
  int64_t q = c.clusterM;
  Value rank;
  if (q > 1) {
    rank = remU(pid, idx(q));
    pid = divU(pid, idx(q));
    numPidM = divU(add(numPidM, idx(q - 1)), idx(q));
  }
  int64_t groupM = std::max<int64_t>(c.groupM / q, 1);
  Value inGroup = mul(idx(groupM), numPidN);
  Value groupId = divU(pid, inGroup);
  Value firstM = mul(groupId, idx(groupM));
  Value groupSize = minI(sub(numPidM, firstM), idx(groupM));
  Value pidInGroup = remU(pid, inGroup);
  Value pidM = add(firstM, remU(pidInGroup, groupSize));
  Value pidN = divU(pidInGroup, groupSize);
  if (rank)
    pidM = add(mul(pidM, idx(q)), rank);
  kc.m0 = mul(pidM, idx(c.bm));
  kc.n0 = mul(pidN, idx(c.bn));
}
