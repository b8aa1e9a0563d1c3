//===- WarpgroupMma.cpp - wgmma on shared-memory tiles --------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/WarpgroupMma.h"

#include "gpupoor/Conversion/GPUKernel/OpaqueValue.h"
#include "gpupoor/Conversion/GPUKernel/SplitHandover.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// Threads of a warpgroup.
static constexpr int64_t kWarpgroupSize = 128;
/// Rows of A one wgmma takes.
static constexpr int64_t kWgmmaM = 64;
/// Bytes of a row of a swizzle atom (64 f16).
static constexpr int64_t kAtomRowBytes = KernelSpec::kSwizzleCols * 2;

/// The fixed fields of a shared-memory matrix descriptor (PTX ISA, "Matrix
/// Descriptor Format"), in 16-byte units: the leading byte offset in bits
/// 16-29, the stride byte offset (8 swizzled rows of `rowBytes` between
/// 8-row groups: 1024 bytes for the 128-byte swizzle) in bits 32-45, the
/// swizzle mode of such rows in bits 62-63 (1 for 128-byte rows, 2 for 64,
/// 3 for 32). The start address goes in bits 0-13. A K-major tile's
/// leading byte offset is unused (1); an M- or N-major one's (A as K x M,
/// B as K x N) is the distance between its atoms of columns, BK rows each
/// (PTX ISA, "canonical layouts": the MN-major swizzle repeats along MN at
/// the leading byte offset; A's m64 reads one atom).
///
/// Rows of 16 bytes (B as K x N of 8 columns, KernelSpec::bAtomCols) are
/// unswizzled (mode 0), whose MN-major canonical layout swaps the offsets'
/// roles: its 8-row groups of K, one 128-byte core matrix each, lie the
/// leading byte offset apart, its groups of 8 columns the stride byte
/// offset (none past the one group an n8 wgmma reads).
static uint64_t descriptorFields(int64_t leadingBytes, int64_t rowBytes) {
  assert((rowBytes == 128 || rowBytes == 64 || rowBytes == 32 ||
          rowBytes == 16) &&
         "swizzled rows of 32, 64 or 128 bytes, or unswizzled ones of 16");
  if (rowBytes == 16)
    return (uint64_t(8 * rowBytes / 16) << 16) |
           (uint64_t(leadingBytes / 16) << 32);
  uint64_t mode = rowBytes == 128 ? 1 : rowBytes == 64 ? 2 : 3;
  return (uint64_t(leadingBytes / 16) << 16) |
         (uint64_t(8 * rowBytes / 16) << 32) | (mode << 62);
}

WarpgroupMma::WarpgroupMma(KernelContext &kc) : KernelPart(kc) {
  Type i64 = b.getI64Type();
  // The shared-memory address of the stages (the window is 2^32 bytes;
  // shared addresses fit the descriptor's 18 bits). The kernel's dynamic
  // shared memory is 1024-byte aligned (convert-gpupoor-kernel-to-nvvm),
  // as the swizzle's phase needs: wgmma applies it to address bits.
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, kc.rawSmem);
  Value warpgroup = uniformWarpgroup();
  // A warpgroup's 64 rows within each atom of A's tile as M x K; A's tile
  // as K x M (M-major) has an atom of 64 rows of M a warpgroup.
  int64_t warpgroupBytes =
      c.aMMajor() ? c.bk * kAtomRowBytes : kWgmmaM * kAtomRowBytes;
  Value aBytes = add(base, mul(warpgroup, idx(warpgroupBytes)));
  Value bBytes = add(base, idx(c.aElems() * 2));
  auto descriptor = [&](Value bytes, int64_t leadingBytes,
                        int64_t rowBytes = kAtomRowBytes) {
    // The start address field takes the address's low 18 bits (14 bits of
    // 16-byte units); CUTLASS's 14-bit bitfield truncates the same way.
    // In a cluster a block's shared addresses carry its place in the
    // cluster's window above those bits, which, unmasked, ran into the
    // leading byte offset that only N-major operands spanning two atoms
    // read: B as K x N's cluster kernels went wrong in the second block's
    // last atom of columns, and are bit-identical to the tiles alone with
    // the mask (H200, docs/design/decisions.md, "Clusters of two where rows
    // start off sectors").
    Value units = arith::IndexCastUIOp::create(
        b, i64, divU(remU(bytes, idx(int64_t{1} << 18)), idx(16)));
    return arith::OrIOp::create(
        b, units,
        arith::ConstantOp::create(
            b, b.getI64IntegerAttr(descriptorFields(leadingBytes, rowBytes))));
  };
  descA = descriptor(aBytes, c.aMMajor() ? c.bk * kAtomRowBytes : 16);
  // N-major B in atoms of bAtomCols columns, BK rows each.
  descB = c.bTransposed
              ? descriptor(bBytes, 16)
              : descriptor(bBytes, c.bk * c.bAtomRowBytes(), c.bAtomRowBytes());
}

Value WarpgroupMma::uniformWarpgroup() {
  // The warpgroup of lane 0 is every lane's, but ptxas cannot tell from
  // tid / 128: A's descriptors would live in vector registers and be moved
  // to uniform ones (R2UR) before each wgmma, about eight instructions a
  // wgmma. A shuffle from lane 0 is uniform to ptxas (CUTLASS's
  // canonical_warp_group_idx does the same).
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) { return arith::ConstantIntOp::create(b, i32, v); };
  Value mine =
      arith::IndexCastUIOp::create(b, i32, divU(kc.tid, idx(kWarpgroupSize)));
  Value lane0 = NVVM::ShflOp::create(b, i32, cst(-1), mine, cst(0), cst(31),
                                     NVVM::ShflKind::idx, UnitAttr());
  return arith::IndexCastUIOp::create(b, b.getIndexType(), lane0);
}

Type WarpgroupMma::accType(int64_t cols) const {
  SmallVector<Type> regs(2 * (cols ? cols : c.bn) / 8, b.getI32Type());
  return LLVM::LLVMStructType::getLiteral(b.getContext(), regs);
}

Type WarpgroupMma::sumsType() const {
  SmallVector<Type> regs(c.sets() * 2 * c.bn / 8, b.getI32Type());
  return LLVM::LLVMStructType::getLiteral(b.getContext(), regs);
}

Value WarpgroupMma::zero() { return LLVM::ZeroOp::create(b, sumsType()); }

Value WarpgroupMma::unset(int64_t cols) {
  return LLVM::UndefOp::create(b, cols ? accType(cols) : sumsType());
}

Value WarpgroupMma::emitStage(Value stageShift, Value acc, bool fresh,
                              int64_t firstCol, int64_t cols) {
  if (!cols)
    cols = c.bn;
  int64_t sets = c.sets();
  assert((sets == 1 || cols == c.bn) && "several sums of the whole tile");
  // The sums, one struct each (wgmma's operand), taken out of `acc` and
  // put back after the stage: LLVM folds the moves away.
  int64_t regsPerSum = 2 * cols / 8;
  SmallVector<Value> sums;
  if (sets == 1) {
    sums.push_back(acc);
  } else {
    for (int64_t s = 0; s < sets; ++s) {
      Value sum = LLVM::UndefOp::create(b, accType(cols));
      for (int64_t r = 0; r < regsPerSum; ++r)
        sum = LLVM::InsertValueOp::create(
            b, sum, LLVM::ExtractValueOp::create(b, acc, s * regsPerSum + r),
            r);
      sums.push_back(sum);
    }
  }
  assert(firstCol % 8 == 0 && cols % 8 == 0 && firstCol + cols <= c.bn &&
         "wgmma columns in whole n8 tiles of the tile");
  assert((c.bTransposed || (firstCol % c.bAtomCols() == 0 &&
                            cols % c.bAtomCols() == 0)) &&
         "N-major B's wgmma columns in whole atoms");
  Type i64 = b.getI64Type();
  // The accumulator's registers were last written by other instructions
  // (zeroing, the handover's reads): wgmma must see them.
  NVVM::WgmmaFenceAlignedOp::create(b);
  Value stageUnits = arith::IndexCastUIOp::create(b, i64, divU(stageShift, idx(16)));
  // The stage's descriptors, through an opaque asm: LLVM would otherwise
  // reassociate desc + (stage + step) into (desc + step) + stage and hoist
  // each k16 step's desc + step out of the K loop, a 64-bit value live
  // across it for each step and operand, which spilled B as K x N's
  // dynamic-shape 128 x 256 kernels (docs/design/decisions.md, "Each
  // stage's descriptors behind an opaque asm"). The steps' adds stay in
  // the loop instead.
  Value stageA = emitOpaqueWord(b, arith::AddIOp::create(b, descA, stageUnits),
                                AsmPlacement::Movable);
  Value stageB = emitOpaqueWord(b, arith::AddIOp::create(b, descB, stageUnits),
                                AsmPlacement::Movable);
  auto shape = NVVM::MMAShapeAttr::get(b.getContext(), kWgmmaM, cols, 16);
  int64_t stepsPerAtom = KernelSpec::kSwizzleCols / 16;
  for (int64_t ks = 0; ks < c.bk / 16; ++ks) {
    // k16 step ks lies in atom ks / 4 (all of the tile's rows of 64
    // columns, KernelSpec::swizzleAtoms), 32 bytes a step further along its
    // swizzled rows: the hardware swizzles the resulting addresses, so the
    // start address moves as in an unswizzled tile. (16-byte units.)
    int64_t atom = ks / stepsPerAtom, within = (ks % stepsPerAtom) * 2;
    // M-major A (K x M): k16 step ks is rows 16 ks.. of the warpgroup's
    // atom, 128 bytes each.
    int64_t aUnits =
        c.aMMajor() ? ks * 16 * kAtomRowBytes / 16 : atom * c.bm * 8 + within;
    Value da = arith::AddIOp::create(
        b, stageA, arith::ConstantOp::create(b, b.getI64IntegerAttr(aUnits)));
    int64_t bUnits;
    if (c.bTransposed) {
      // B's rows firstCol.. of 128 bytes, in whole 8-row swizzle periods.
      bUnits = atom * c.bn * 8 + within + firstCol * 8;
    } else {
      // N-major B: k16 step ks is rows 16 ks.. of every atom (two 8-row
      // groups); columns firstCol.. start atom firstCol / bAtomCols.
      bUnits = ks * 16 * c.bAtomRowBytes() / 16 +
               firstCol / c.bAtomCols() * c.bk * c.bAtomRowBytes() / 16;
    }
    Value db = arith::AddIOp::create(
        b, stageB, arith::ConstantOp::create(b, b.getI64IntegerAttr(bUnits)));
    // A as M x K and B as N x K are wgmma's own (K-major, "row" and
    // "col"); A as K x M and B as K x N are read transposed (imm-trans-a,
    // imm-trans-b = 1: "col" and "row").
    Value &sum = sums[ks % sets];
    sum = NVVM::WgmmaMmaAsyncOp::create(
        b, accType(cols), sum, da, db, shape, NVVM::WGMMATypes::f16,
        NVVM::WGMMATypes::f16, NVVM::WGMMATypes::f16,
        fresh && ks < sets ? NVVM::WGMMAScaleOut::zero
                           : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        c.aMMajor() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        c.bTransposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b);
  if (sets == 1)
    return sums.front();
  Value out = LLVM::UndefOp::create(b, sumsType());
  for (int64_t s = 0; s < sets; ++s)
    for (int64_t r = 0; r < regsPerSum; ++r)
      out = LLVM::InsertValueOp::create(
          b, out, LLVM::ExtractValueOp::create(b, sums[s], r),
          s * regsPerSum + r);
  return out;
}

void WarpgroupMma::emitWait(int64_t pending) {
  NVVM::WgmmaWaitGroupSyncOp::create(b, pending);
}

Value WarpgroupMma::keep(Value word) {
  return emitOpaqueWord(b, word, AsmPlacement::Pinned);
}

Value WarpgroupMma::fenced(Value acc) {
  auto type = cast<LLVM::LLVMStructType>(acc.getType());
  Value out = LLVM::UndefOp::create(b, type);
  for (int64_t r = 0, e = type.getBody().size(); r < e; ++r) {
    Value reg = LLVM::ExtractValueOp::create(b, acc, r);
    out = LLVM::InsertValueOp::create(b, out, keep(reg), r);
  }
  return out;
}

void WarpgroupMma::fence(MutableArrayRef<Value> values) {
  for (Value &value : values) {
    auto type = cast<VectorType>(value.getType());
    int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
    auto flat = VectorType::get({type.getNumElements()}, type.getElementType());
    auto words = VectorType::get({bits / 32}, b.getI32Type());
    Value w = vector::BitCastOp::create(
        b, words, vector::ShapeCastOp::create(b, flat, value));
    for (int64_t i = 0; i < bits / 32; ++i) {
      Value e = vector::ExtractOp::create(b, w, ArrayRef<int64_t>{i});
      w = vector::InsertOp::create(b, keep(e), w, ArrayRef<int64_t>{i});
    }
    value = vector::ShapeCastOp::create(b, type,
                                        vector::BitCastOp::create(b, flat, w));
  }
}

SmallVector<Value> WarpgroupMma::fragments(Value acc) {
  auto half2 = VectorType::get({2}, b.getF16Type());
  auto fragType = VectorType::get({2, 2}, b.getF16Type());
  SmallVector<Value> frags;
  int64_t tiles =
      cast<LLVM::LLVMStructType>(acc.getType()).getBody().size() / 2;
  for (int64_t nt = 0; nt < tiles; ++nt) {
    // Registers 2 nt and 2 nt + 1: rows lane/4 and lane/4 + 8 of the warp's
    // 16, columns 8 nt + 2 (lane % 4) + {0, 1}: mma.sync's m16n8 layout.
    Value frag = arith::ConstantOp::create(b, fragType, b.getZeroAttr(fragType));
    for (int64_t h = 0; h < 2; ++h) {
      Value reg = LLVM::ExtractValueOp::create(b, acc, 2 * nt + h);
      Value pair = LLVM::BitcastOp::create(b, half2, reg);
      frag = vector::InsertOp::create(b, pair, frag, h);
    }
    frags.push_back(frag);
  }
  return frags;
}

SmallVector<Value> WarpgroupMma::handOver(Value acc, ArrayRef<Value> regs,
                                          OuterSums &outer) {
  SmallVector<Value> frags = fragments(acc);
  SmallVector<Value> out(regs);
  int64_t perSum = frags.size() / c.sets();
  for (int64_t s = 0; s < c.sets(); ++s)
    out = outer.emitHandover(ArrayRef<Value>(frags).slice(s * perSum, perSum),
                             out);
  return out;
}
