//===- MmaSync.cpp - ldmatrix fragments and mma.sync ----------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/MmaSync.h"

#include "gpupoor/Conversion/GPUKernel/SharedLayout.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gpupoor;

MmaFragments::MmaFragments(KernelContext &kc) : KernelPart(kc) {
  Value lane = kc.lane;
  Value laneMod16 = remU(lane, idx(16));
  Value laneDiv16 = divU(lane, idx(16));
  Value laneMod8 = remU(lane, idx(8));
  Value laneBit3 = remU(divU(lane, idx(8)), idx(2));
  int64_t kSteps = c.bk / 16;
  int64_t bBase = c.aElems();
  // A: lane l reads row l % 16 of the m16 tile at k-chunk l / 16.
  for (int64_t ks = 0; ks < kSteps; ++ks) {
    Value row = add(mul(kc.warpRow, idx(c.warpM())), laneMod16);
    Value chunk = add(laneDiv16, idx(ks * 2));
    aFragOff.push_back(add(mul(row, idx(c.bk)),
                           mul(swizzle(b, row, chunk, c.bk / 8), idx(8))));
  }
  if (c.bTransposed) {
    // Rows are n: lanes 0-7 / 8-15 take k-chunks 0 / 1 of n 0-7, lanes
    // 16-31 the same for n 8-15.
    for (int64_t ks = 0; ks < kSteps; ++ks) {
      Value row = add(add(mul(kc.warpCol, idx(c.warpN())), laneMod8),
                      mul(laneDiv16, idx(8)));
      Value chunk = add(laneBit3, idx(ks * 2));
      bFragOff.push_back(
          add(idx(bBase), add(mul(row, idx(c.bk)),
                              mul(swizzle(b, row, chunk, c.bk / 8), idx(8)))));
    }
    return;
  }
  // Rows are k: lanes 0-15 take k 0-15 of n-chunk 0, lanes 16-31 of
  // n-chunk 1; the transposed load yields the col-major fragment.
  for (int64_t np = 0; np < c.nTiles() / 2; ++np) {
    Value row = add(laneMod8, mul(laneBit3, idx(8)));
    Value chunk =
        add(divU(add(mul(kc.warpCol, idx(c.warpN())), idx(np * 16)), idx(8)),
            laneDiv16);
    bFragOff.push_back(
        add(idx(bBase), add(mul(row, idx(c.bn)),
                            mul(swizzle(b, row, chunk, c.bn / 8), idx(8)))));
  }
}

SmallVector<Value> MmaFragments::load(Value stage, int64_t ks) {
  auto frag4 = VectorType::get({4, 2}, b.getF16Type());
  SmallVector<Value> frags;
  // m16 tiles are 16 rows apart, two swizzle periods, so their offsets
  // differ by a constant.
  for (int64_t mt = 0; mt < c.mTiles(); ++mt)
    frags.push_back(nvgpu::LdMatrixOp::create(
        b, frag4, stage, ValueRange{add(aFragOff[ks], idx(mt * 16 * c.bk))},
        /*transpose=*/false, /*numTiles=*/4));
  for (int64_t np = 0; np < c.nTiles() / 2; ++np) {
    // B follows A in the stage (bFragOff includes aElems).
    Value off;
    if (c.bTransposed)
      off = add(bFragOff[ks], idx(np * 16 * c.bk));
    else
      off = add(bFragOff[np], idx(ks * 16 * c.bn));
    frags.push_back(nvgpu::LdMatrixOp::create(b, frag4, stage, ValueRange{off},
                                              /*transpose=*/!c.bTransposed,
                                              /*numTiles=*/4));
  }
  return frags;
}

SmallVector<Value> MmaFragments::emitMma(ArrayRef<Value> frags,
                                         ValueRange acc) {
  SmallVector<Value> next(acc.begin(), acc.end());
  SmallVector<Value> bFrag;
  for (int64_t np = 0; np < c.nTiles() / 2; ++np)
    for (int64_t half = 0; half < 2; ++half)
      bFrag.push_back(vector::ExtractStridedSliceOp::create(
          b, frags[c.mTiles() + np], ArrayRef<int64_t>{half * 2, 0},
          ArrayRef<int64_t>{2, 2}, ArrayRef<int64_t>{1, 1}));
  for (int64_t mt = 0; mt < c.mTiles(); ++mt)
    for (int64_t nt = 0; nt < c.nTiles(); ++nt) {
      Value &accVal = next[mt * c.nTiles() + nt];
      accVal = nvgpu::MmaSyncOp::create(b, frags[mt], bFrag[nt], accVal,
                                        ArrayRef<int64_t>{16, 8, 16});
    }
  return next;
}
