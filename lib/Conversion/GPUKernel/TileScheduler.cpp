//===- TileScheduler.cpp - which C tile a block computes ------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/TileScheduler.h"

#include "gpupoor/Conversion/GPUKernel/OpaqueValue.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gpupoor;

/// Tile index `v` computed where it is emitted (a pinned opaque value).
/// The consumers of a warp-specialized kernel use the tile origin only in
/// the epilogue, and LLVM sank its divisions there, after the last MMA (a
/// kernel built for run-time slices: two dependent divisions between the
/// chunk loop and the stores of a one-slice launch, 128^3 2.27 against
/// 2.13 us; H200, CUDA-graph replay). Pinned, they run while the first
/// loads are in flight. A tile index fits 32 bits (grid x is below 2^31):
/// one register a value through the loop.
static Value pinned(ImplicitLocOpBuilder &b, Value v) {
  return emitOpaqueIndex(b, v, 32, AsmPlacement::Pinned);
}

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
  Value group = idx(groupM);
  // A persistent TMA kernel without stream-K runs fewer than twice group_m
  // row tiles as one group: groups of group_m left a short last group whose
  // blocks read B's columns again after the first group's had (9 row tiles:
  // 8 and 1; ncu at 1048 x 6352 x 4064 read 98-104 MB from DRAM, one group
  // 69, cuBLAS 69). On an H200 (static kernels, x cuBLAS f32acc, groups of
  // group_m / one group; benchmarks/data/group_rows_sm_90a.txt, call 5) 23
  // such products, every layout, ran 1.028x geomean, none lost more than
  // 0.2%: 1032 x 5976 x 1648 (B as N x K) 0.822 / 0.928, (K x N) 0.778 /
  // 0.835, 1056 x 5824 x 1840 0.824 / 0.891. Kept as they were, as
  // measured: a grid of one wave (four products, 0.974x to 1.014x), two
  // whole groups (16 row tiles: 1024^3 in 64 x 64 tiles 1.012 / 0.882 in
  // call 7), stream-K (one product, 0.990x) and the mma.sync kernels (not
  // measured). The group's tiles are then all the tiles: its product fits
  // the index type wherever the tile indices do.
  if (c.persistent() && !c.streamK())
    group = select(lt(numPidM, idx(2 * groupM)), numPidM, group);
  Value inGroup = mul(group, numPidN);
  Value groupId = divU(pid, inGroup);
  Value firstM = mul(groupId, group);
  Value groupSize = minI(sub(numPidM, firstM), group);
  Value pidInGroup = remU(pid, inGroup);
  Value pidM = add(firstM, remU(pidInGroup, groupSize));
  Value pidN = divU(pidInGroup, groupSize);
  if (rank)
    pidM = add(mul(pidM, idx(q)), rank);
  // A persistent block takes each work tile's origin in its tile loop:
  // left to LLVM there (pinned as 64-bit values, 2048 x 4096 x 4096 and
  // 4096 x 12288 x 4096 of B as K x N spilled registers).
  if (!c.persistent()) {
    pidM = pinned(b, pidM);
    pidN = pinned(b, pidN);
  }
  kc.m0 = mul(pidM, idx(c.bm));
  kc.n0 = mul(pidN, idx(c.bn));
}
