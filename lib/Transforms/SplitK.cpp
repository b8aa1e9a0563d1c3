//===- SplitK.cpp - linalg matmuls to gpupoor split-k matmuls -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Rewrites eligible f16 linalg matmuls into gpupoor.matmul, moving the
// elementwise ops that consume the matmul alone into its epilogue region
// (EpilogueFusion.cpp).
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Transforms/Passes.h"

#include "EpilogueFusion.h"
#include "gpupoor/Dialect/GPUPoor/IR/StaticSizes.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/ChipInfo.h"
#include "gpupoor/Policy/Policy.h"
#include "gpupoor/Transforms/KernelConfig.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_GPUPOORSPLITK
#include "gpupoor/Transforms/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

// The policy reads the types' sizes as they are: its unknown size is MLIR's.
static_assert(policy::kDynamic == ShapedType::kDynamic,
              "policy::kDynamic must be ShapedType::kDynamic");

namespace {

//===----------------------------------------------------------------------===//
// Matmul analysis
//===----------------------------------------------------------------------===//

/// What the rewrite needs to know about one eligible matmul.
struct MatmulMatch {
  ALayout aLayout;
  BLayout bLayout;
  /// Where the product goes: the zero fill's destination, or the init.
  Value dest;
  /// The init when the matmul adds to it (C += A * B); null when it is
  /// zero-filled.
  Value cIn;
};

/// +0.0 (or integer 0): the value a sum that drops its fill starts from.
/// Not -0.0: -0.0 + x keeps the sign of a -0.0 sum, which +0.0 + x loses.
bool isZero(Value v) {
  return matchPattern(v, m_PosZeroFloat()) || matchPattern(v, m_Zero());
}

/// Whether `init` holds zeros when `op` runs: a zero linalg.fill on tensors,
/// or, on memrefs, a zero fill of the same buffer right before the matmul.
bool isZeroFilled(linalg::LinalgOp op, Value init) {
  if (isa<RankedTensorType>(init.getType())) {
    auto fill = init.getDefiningOp<linalg::FillOp>();
    return fill && isZero(fill.value());
  }
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  return fill && fill.output() == init && isZero(fill.value());
}

/// The value `v` is a view of, through view-like ops (memref.cast,
/// subview, reinterpret_cast, expand_shape, collapse_shape, tensor.cast,
/// extract_slice, tensor reshapes ...) and the bufferization casts
/// between tensors and buffers: values of one root may share memory.
Value viewRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    // Ops that re-type or re-shape one tensor or buffer: their first
    // operand is what they read.
    if (isa<tensor::CastOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
            tensor::ExtractSliceOp, tensor::ReshapeOp, memref::CastOp,
            bufferization::ToTensorOp, bufferization::ToBufferOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    break;
  }
  return v;
}

/// A type as diagnostics quote it: 'f16'.
std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '\'' << t << '\'';
  return s;
}

/// Decides whether `op` can become a gpupoor.matmul. On failure, returns the
/// reason in words. `relaxF32` accepts f32 results (whose IR accumulates in
/// f32) for f16 inner sums.
FailureOr<MatmulMatch> analyzeMatmul(linalg::LinalgOp op, bool relaxF32,
                                     std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  Operation *operation = op.getOperation();
  bool batched = isa<linalg::BatchMatmulOp>(operation);
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(operation))
    return fail("'" + operation->getName().getStringRef() +
                "' is not linalg.matmul or linalg.batch_matmul");
  // gpupoor.matmul launches kernels: it is host code, not the body of a
  // kernel (a gpu.module's functions, a gpu.func, a gpu.launch).
  if (operation->getParentOfType<gpu::GPUModuleOp>() ||
      operation->getParentOfType<gpu::GPUFuncOp>() ||
      operation->getParentOfType<gpu::LaunchOp>())
    return fail("inside device code (a gpu.module, gpu.func or gpu.launch)");

  // A*B or A*B^T, nothing else (transposed A, broadcasts, ...).
  MLIRContext *ctx = op.getContext();
  unsigned numDims = batched ? 4 : 3;
  SmallVector<AffineExpr> d(numDims);
  bindDimsList(ctx, MutableArrayRef<AffineExpr>(d));
  SmallVector<AffineExpr> lead;
  if (batched)
    lead.push_back(d[0]);
  AffineExpr m = d[numDims - 3], n = d[numDims - 2], k = d[numDims - 1];
  auto map = [&](AffineExpr r, AffineExpr c) {
    SmallVector<AffineExpr> results(lead);
    results.append({r, c});
    return AffineMap::get(numDims, 0, results, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  BLayout bLayout;
  ALayout aLayout;
  if (maps[2] != map(m, n))
    return fail("indexing maps are neither A*B nor A*B^T");
  if (maps[0] == map(m, k))
    aLayout = ALayout::MK;
  else if (maps[0] == map(k, m))
    aLayout = ALayout::KM;
  else
    return fail("indexing maps are neither A*B nor A*B^T");
  if (maps[1] == map(k, n))
    bLayout = BLayout::KN;
  else if (maps[1] == map(n, k))
    bLayout = BLayout::NK;
  else
    return fail("indexing maps are neither A*B nor A*B^T");

  // An encoding (sparse_tensor's, or any other) says how the elements are
  // stored, which the kernels do not read; a memory space other than the
  // default is memory the host code cannot hand to a kernel.
  for (Value v : op->getOperands()) {
    if (auto tensor = dyn_cast<RankedTensorType>(v.getType());
        tensor && tensor.getEncoding())
      return fail("operand type " + typeStr(tensor) + " has an encoding");
    if (auto memref = dyn_cast<MemRefType>(v.getType());
        memref && memref.getMemorySpace())
      return fail("operand type " + typeStr(memref) +
                  " is not in the default memory space");
    if (!hasStridedLayout(v.getType()))
      return fail("operand type " + typeStr(v.getType()) +
                  " has a layout map that is not strided<...>");
  }

  Type aElt = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type bElt = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  Type cElt = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (aElt != bElt)
    return fail("mixed operand element types " + typeStr(aElt) + " and " +
                typeStr(bElt));
  if (aElt.isBF16())
    return fail("bf16 operands: mma has no bf16 accumulator");
  if (isa<IntegerType>(aElt))
    return fail("integer operands (" + typeStr(aElt) + ")");
  if (!aElt.isF16())
    return fail(typeStr(aElt) +
                " operands: only f16 operands are accumulated in f16");
  if (!cElt.isF16() && !cElt.isF32())
    return fail("result element type " + typeStr(cElt) + " is not f16 or f32");
  if (cElt.isF32() && !relaxF32)
    return fail("f32 result: the IR accumulates in f32, and "
                "relax-f32-accumulation is off");

  Value init = op.getDpsInits()[0];
  // The kernels read A and B while they write C: C must not be one of their
  // buffers or a view of one.
  Value initRoot = viewRoot(init);
  if (llvm::any_of(op.getDpsInputs(),
                   [&](Value in) { return viewRoot(in) == initRoot; }))
    return fail("init is also operand A or B, or a view of one");
  if (isZeroFilled(op, init)) {
    if (isa<RankedTensorType>(init.getType()))
      init = init.getDefiningOp<linalg::FillOp>().output();
    return MatmulMatch{aLayout, bLayout, init, Value()};
  }
  // A fill of another constant is read as that constant (EpilogueFusion):
  // the product goes into the fill's destination.
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && fill.hasPureTensorSemantics() &&
      matchPattern(fill.value(), m_Constant()) &&
      fill.value().getType() == getElementTypeOrSelf(init.getType()))
    return MatmulMatch{aLayout, bLayout, fill.output(), init};
  return MatmulMatch{aLayout, bLayout, init, init};
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// A per-op `name` attribute's value when it is an integer in [lowest,
/// highest]; failure for any other attribute of that name; none without.
FailureOr<std::optional<int64_t>> opOverride(Operation *op, StringRef name,
                                             int64_t lowest, int64_t highest) {
  Attribute attr = op->getAttr(name);
  if (!attr)
    return std::optional<int64_t>();
  auto value = dyn_cast<IntegerAttr>(attr);
  if (!value)
    return failure();
  // The integer the attribute's type says it is: `255 : ui8` is 255, not
  // the -1 of its bits read as signed (getInt() reads any width as signless,
  // which MLIR prints, and this reads, as signed).
  APInt bits = value.getValue();
  bool isUnsigned = value.getType().isUnsignedInteger();
  if ((isUnsigned ? bits.getActiveBits() : bits.getSignificantBits()) > 63)
    return failure();
  int64_t count =
      isUnsigned ? int64_t(bits.getZExtValue()) : bits.getSExtValue();
  if (count >= lowest && count <= highest)
    return std::optional<int64_t>(count);
  return failure();
}

/// The f16 elements of 16 bytes: the fast kernels read an operand in rows
/// of whole 16-byte chunks (asyncCopiesHold), a row stride of a multiple of
/// this many elements.
constexpr int64_t kRowAlignElems = policy::kRowAlignBytes / 2;

/// The bytes the rows of tensor `v` lie on as its own buffer would hold
/// them (its last dimension contiguous, from an aligned start), for
/// policy::copiesUnalignedOperands: its static last size's
/// (policy::rowAlignBytes); 16 for a dynamic one, which may lie on 16
/// bytes. (A tensor bufferized as a view of a wider one has that one's row
/// stride, which this does not see: its copy may then be needless, or one
/// missing, and the host code's checks choose the kernel that reads the
/// rows as they lie.)
int64_t rowBytes(Value v) {
  int64_t cols = cast<RankedTensorType>(v.getType()).getShape().back();
  return ShapedType::isDynamic(cols) ? policy::kRowAlignBytes
                                     : policy::rowAlignBytes(0, cols, 0);
}

/// Whether the rows of tensor `v` lie off 16 bytes (rowBytes).
bool rowsOff16Bytes(Value v) { return rowBytes(v) < policy::kRowAlignBytes; }

/// A destination tensor of `sizes` for a copy the fast kernels read: where
/// its rows would lie off 16 bytes, the slice of a tensor.empty whose rows
/// are padded (policy::paddedRowElems; bufferized, a view of that row
/// stride, whose padding no kernel reads); else a tensor.empty of `sizes`.
/// The package pads its copies the same way (paddedRows in operands.cpp).
Value paddedRowsDest(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                     Type elementType) {
  std::optional<int64_t> cols = getConstantIntValue(sizes.back());
  // An empty operand (a size of 0) has no rows to pad; a slice of it at
  // offset 0 would be out of bounds.
  bool noElements = llvm::any_of(
      sizes, [](OpFoldResult size) { return isConstantIntValue(size, 0); });
  if (!cols || *cols % kRowAlignElems == 0 || noElements)
    return tensor::EmptyOp::create(b, loc, sizes, elementType);
  SmallVector<OpFoldResult> padded(sizes);
  padded.back() = b.getIndexAttr(policy::paddedRowElems(*cols));
  Value empty = tensor::EmptyOp::create(b, loc, padded, elementType);
  SmallVector<OpFoldResult> zeros(sizes.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(sizes.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, empty, zeros, sizes, ones);
}

/// Gives `op` (a matmul on tensors) a copy of its input `index` (0: A, 1:
/// B) in padded rows (paddedRowsDest): the same elements, read
/// by the fast kernels instead of an element at a time.
void copyIntoPaddedRows(PatternRewriter &rewriter, linalg::LinalgOp op,
                        unsigned index) {
  Location loc = op.getLoc();
  OpOperand *operand = op.getDpsInputOperands()[index];
  Value v = operand->get();
  rewriter.setInsertionPoint(op);
  Value dest =
      paddedRowsDest(rewriter, loc, tensor::getMixedSizes(rewriter, loc, v),
                     getElementTypeOrSelf(v.getType()));
  Value copy = linalg::CopyOp::create(rewriter, loc, v, dest)->getResult(0);
  rewriter.modifyOpInPlace(op, [&] { operand->set(copy); });
}

/// `type` with its last two sizes swapped: A's type once copied M x K
/// (copyAContiguous).
RankedTensorType transposedType(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
  return RankedTensorType::get(shape, type.getElementType());
}

/// A (K x 1, or a batch of them) reshaped 1 x K: the same elements in the
/// same order, which bufferize to a view of A's buffer (a column of one
/// element is the row it transposes to). The package reads such an A as it
/// lies too.
Value reshapedSingleColumn(PatternRewriter &rewriter, Location loc, Value a) {
  auto type = cast<RankedTensorType>(a.getType());
  int64_t rank = type.getRank();
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank - 2; ++d)
    groups.push_back({d});
  groups.push_back({rank - 2, rank - 1});
  Value flat = tensor::CollapseShapeOp::create(rewriter, loc, a, groups);
  return tensor::ExpandShapeOp::create(rewriter, loc, transposedType(type),
                                       flat, groups);
}

/// Gives `op` (a matmul on tensors reading A as K x M) A transposed into
/// an M x K tensor, read as M x K: the same elements, a copy the kernels
/// read along K, in padded rows (paddedRowsDest); where M is 1 and K a
/// multiple of 8 (or dynamic), a reshape instead (reshapedSingleColumn),
/// whose row needs no padding either.
void copyAContiguous(PatternRewriter &rewriter, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  Value a = op.getDpsInputs()[0];
  auto type = cast<RankedTensorType>(a.getType());
  int64_t rank = type.getRank();
  rewriter.setInsertionPoint(op);
  // (A K of no multiple of 8 keeps its copy into padded rows: the fast
  // kernels' host checks want 16-byte rows, of one row too. A column
  // sliced from a wider tensor reshapes to a strided row, which the
  // element kernel reads.)
  int64_t k = type.getShape()[rank - 2];
  bool singleColumn = type.getShape().back() == 1 &&
                      (ShapedType::isDynamic(k) || k % kRowAlignElems == 0);
  Value copy;
  if (singleColumn) {
    copy = reshapedSingleColumn(rewriter, loc, a);
  } else {
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 2], perm[rank - 1]);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, a);
    std::swap(sizes[rank - 2], sizes[rank - 1]);
    Value init = paddedRowsDest(rewriter, loc, sizes, type.getElementType());
    copy =
        linalg::TransposeOp::create(rewriter, loc, a, init, perm)->getResult(0);
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineExpr> results(maps[0].getResults());
  std::swap(results[rank - 2], results[rank - 1]);
  maps[0] = AffineMap::get(maps[0].getNumDims(), 0, results, op.getContext());
  rewriter.modifyOpInPlace(op, [&] {
    op.getDpsInputOperands()[0]->set(copy);
    op->setAttr("indexing_maps", rewriter.getAffineMapArrayAttr(maps));
  });
}

/// The copies the strategy makes before the product, as the package makes
/// them: A, stored K x M, copied M x K (`copyA`: the policy's copiesA) or
/// into padded rows as it lies (`padA`: its padsA, whatever the product's
/// size), and, with `padRows` (policy::copiesUnalignedOperands), operands
/// whose rows lie off 16 bytes (K, or B's N as K x N, of no multiple of 8)
/// copied into padded rows. A's copies (or reshape of one row) have such
/// rows already.
void copyOperands(PatternRewriter &rewriter, linalg::LinalgOp op, bool copyA,
                  bool padA, bool padRows) {
  if (copyA)
    copyAContiguous(rewriter, op);
  if (padA)
    copyIntoPaddedRows(rewriter, op, 0);
  if (!padRows)
    return;
  for (unsigned index : {0u, 1u}) {
    if ((index != 0 || (!copyA && !padA)) &&
        rowsOff16Bytes(op.getDpsInputs()[index]))
      copyIntoPaddedRows(rewriter, op, index);
  }
}

struct MatmulToSplitK : OpInterfaceRewritePattern<linalg::LinalgOp> {
  MatmulToSplitK(MLIRContext *ctx, const SplitKPatternOptions &options)
      : OpInterfaceRewritePattern(ctx), options(options) {
    if (!this->options.outerType)
      this->options.outerType = Float32Type::get(ctx);
  }

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!linalg::isaContractionOpInterface(op))
      return failure();
    std::string why;
    FailureOr<MatmulMatch> match =
        analyzeMatmul(op, options.relaxF32Accumulation, why);
    if (failed(match))
      return rewriter.notifyMatchFailure(op, why);

    // An explicit per-op attribute beats the option (gpupoor-split-k has
    // already rejected malformed ones with an error).
    FailureOr<std::optional<int64_t>> splitsAttr =
        opOverride(op, "gpupoor.splits", 1, kMaxSplits);
    FailureOr<std::optional<int64_t>> slicesAttr =
        opOverride(op, "gpupoor.slices", 0, kMaxSlices);
    if (failed(splitsAttr) || failed(slicesAttr))
      return rewriter.notifyMatchFailure(
          op, "gpupoor.splits or gpupoor.slices is not a valid count");

    // The policy decides the tile, whether the product runs swapped, S and
    // P' where the types settle them (gpupoor/Policy/Policy.h).
    ArrayRef<int64_t> aShape =
        cast<ShapedType>(op.getDpsInputs()[0].getType()).getShape();
    auto init = cast<ShapedType>(op.getDpsInits()[0].getType());
    ArrayRef<int64_t> cShape = init.getShape();
    policy::Problem problem;
    problem.chip = toPolicy(options.chip);
    problem.shape.batched = cShape.size() == 3;
    problem.shape.batch = problem.shape.batched ? cShape.front() : 1;
    problem.shape.m = cShape[cShape.size() - 2];
    problem.shape.n = cShape.back();
    problem.k = match->aLayout == ALayout::KM ? aShape[aShape.size() - 2]
                                              : aShape.back();
    problem.aLayout = toPolicy(match->aLayout);
    problem.bLayout = toPolicy(match->bLayout);
    problem.splits = *splitsAttr ? *splitsAttr : options.splits;
    problem.maxSplits = options.maxSplits;
    problem.slices = slicesAttr->value_or(options.slices);
    problem.useTable = options.tunedTable;
    bool tensors = op.hasPureTensorSemantics();
    problem.canCopyA = tensors;
    // An A stored K x M in rows of M off 16 bytes (on memrefs, copied by no
    // one: the element kernels read it).
    problem.aRowsAligned = !tensors || match->aLayout != ALayout::KM ||
                           !rowsOff16Bytes(op.getDpsInputs()[0]);
    if (!options.tile.empty())
      problem.tile = toPolicyTile(options.tile);
    if (options.swap == true && problem.shape.batched)
      return op->emitOpError()
             << "is batched: swap=true takes 2-D products (C's transposed "
                "view)";
    problem.swap = options.swap;
    // Static sizes past any device's memory, whose counts the policy would
    // overflow: an error (as verifyStaticSizes' below), before the policy.
    auto diag = [&]() { return op->emitOpError(); };
    if (failed(verifyOperandBytes(diag, op->getOperandTypes())))
      return failure();
    if (!policy::withinSizeLimits(problem.shape, problem.k))
      return op->emitOpError()
             << "has an operand of more than 2^48 elements (batch * M * N, "
                "M * K or K * N): more than any device holds";
    policy::Strategy chosen = policy::chooseStrategy(problem);
    // A transposed product asked for runs on the wgmma kernel, whose column
    // stores write C's transposed view; a tile it does not take there
    // would be sm_90's mma.sync kernel writing C two bytes at a time.
    if (options.swap == true && fromPolicy(chosen.chip) != Chip::SM90a) {
      auto [bm, bn, bk] = chosen.tile;
      return op->emitOpError()
             << "swap=true: sm_90a's wgmma kernel does not take the "
                "transposed product in "
             << bm << "x" << bn << "x" << bk
             << " tiles (its A as K x M in atoms of 64 rows, its B as K x N "
                "in whole atoms); name a tile it takes";
    }
    // Sums asked for replace the rules'; the attribute's verifier checks
    // them against the tile.
    if (options.sets)
      chosen.sets = options.sets;
    // An A stored K x M that the policy copies M x K first is read as M x K.
    if (chosen.copiesA)
      match->aLayout = ALayout::MK;

    MLIRContext *ctx = getContext();
    SplitKAttr strategy = SplitKAttr::getChecked(
        diag, ctx, chosen.splits, options.maxSplits,
        ArrayRef<int64_t>(chosen.tile), Type(Float16Type::get(ctx)),
        options.outerType, match->bLayout, match->aLayout, chosen.slices,
        fromPolicy(chosen.chip), chosen.swapped, chosen.sets);
    if (!strategy)
      return failure();
    // Static sizes no kernel can address or launch: an error here (which
    // fails the pass), not a gpupoor.matmul that fails to verify. Checked on
    // the types the operands will have, before any IR changes: a pattern
    // that fails must leave the op as it was (else the driver retries it).
    SmallVector<Type> operandTypes(op->getOperandTypes());
    if (chosen.copiesA)
      operandTypes[0] = transposedType(cast<RankedTensorType>(operandTypes[0]));
    if (failed(verifyStaticSizes(
            diag, operandTypes,
            cast<ShapedType>(op.getDpsInits()[0].getType()).getShape(),
            strategy)))
      return failure();
    // Copies on tensors only; A's own copies have rows on 16 bytes.
    bool padRows = tensors && policy::copiesUnalignedOperands(
                                  problem,
                                  chosen.copiesA || chosen.padsA
                                      ? policy::kRowAlignBytes
                                      : rowBytes(op.getDpsInputs()[0]),
                                  rowBytes(op.getDpsInputs()[1]));
    copyOperands(rewriter, op, chosen.copiesA, chosen.padsA, padRows);
    // On memrefs, the zero fill right before the matmul only fed the sum
    // the op now starts from zero itself; the op overwrites every element
    // of C, so the fill goes (in a GPU program it would be a host loop over
    // device memory).
    Operation *memrefFill = nullptr;
    if (!match->cIn && !isa<RankedTensorType>(match->dest.getType()))
      memrefFill = op->getPrevNode();
    // Opt-in (--remarks-filter=gpupoor-split-k): says where the IR's f32
    // accumulation became f16 inner sums.
    if (getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32())
      remark::analysis(op.getLoc(),
                       remark::RemarkOpts::name("RelaxedAccumulation")
                           .category("gpupoor-split-k"))
          << ("f32 accumulation relaxed: the f32 result is summed in f16 "
              "within each of the K splits, and the splits in " +
              std::string(strategy.getOuter().isF16() ? "f16" : "f32"));
    EpilogueFusion fusion = analyzeEpilogueFusion(op, match->cIn, match->dest);
    // C += A * B written into a function's tensor argument (the matmul's
    // init, no consumer writing elsewhere): the product goes to a copy of it
    // (bufferized to a new buffer and a copy), not in place into the
    // caller's buffer, which the tensor program leaves unchanged.
    if (auto arg = dyn_cast<BlockArgument>(fusion.init);
        arg && fusion.init == match->cIn &&
        isa<RankedTensorType>(arg.getType()) &&
        isa<FunctionOpInterface>(arg.getOwner()->getParentOp())) {
      rewriter.setInsertionPoint(op);
      Value copy = bufferization::AllocTensorOp::create(
          rewriter, op.getLoc(), cast<RankedTensorType>(arg.getType()),
          ValueRange(), arg);
      rewriter.modifyOpInPlace(op,
                               [&] { op.getDpsInitsMutable()[0].set(copy); });
      match->dest = match->cIn = copy;
      fusion = analyzeEpilogueFusion(op, match->cIn, match->dest);
    }
    buildFusedMatmul(rewriter, op, fusion, strategy);
    if (memrefFill)
      rewriter.eraseOp(memrefFill);
    return success();
  }

  SplitKPatternOptions options;
};

struct GPUPoorSplitKPass : gpupoor::impl::GPUPoorSplitKBase<GPUPoorSplitKPass> {
  using Base::Base;

  LogicalResult resolveOptions(SplitKPatternOptions &resolved) {
    MLIRContext *ctx = &getContext();
    Location loc = UnknownLoc::get(ctx);
    if (splits < 0)
      return emitError(loc) << "gpupoor-split-k: splits must be >= 0, got "
                            << static_cast<int64_t>(splits);
    if (slices < 0 || slices > kMaxSlices)
      return emitError(loc)
             << "gpupoor-split-k: slices must be 0 (chosen) "
                "or in [1, "
             << kMaxSlices << "], got " << static_cast<int64_t>(slices);
    if (splits > 0)
      resolved.splits = splits;
    resolved.maxSplits = maxSplits;
    resolved.relaxF32Accumulation = relaxF32Accumulation;
    resolved.slices = slices;
    resolved.sets = sets;
    if (swap != SwapChoice::Auto)
      resolved.swap = swap == SwapChoice::Always;
    resolved.tunedTable = tunedTable;
    // Empty: chosen per matmul (policy::chooseStrategy).
    resolved.tile.assign(tile.begin(), tile.end());
    if (outerType == "f16")
      resolved.outerType = Float16Type::get(ctx);
    else if (outerType == "f32")
      resolved.outerType = Float32Type::get(ctx);
    else
      return emitError(loc) << "gpupoor-split-k: outer-type must be f16 or "
                               "f32, got '"
                            << outerType << "'";
    std::optional<Chip> parsedChip = symbolizeChip(chip);
    if (!parsedChip)
      return emitError(loc) << "gpupoor-split-k: unknown chip '" << chip
                            << "' (expected sm_80, sm_86, sm_89, sm_90 or "
                               "sm_90a)";
    resolved.chip = *parsedChip;
    return verifySplitKPatternOptions(resolved, ctx, loc);
  }

  /// A `gpupoor.splits` attribute names S for its matmul: it must be an
  /// integer S can be, or the pass fails (rather than skip the op).
  LogicalResult checkSplitsAttributes() {
    WalkResult result = getOperation()->walk([&](linalg::LinalgOp op) {
      // gpupoor.splits: S in [1, max]; gpupoor.slices: P in [0, max].
      for (auto [name, lowest, highest] :
           {std::tuple<StringRef, int64_t, int64_t>{"gpupoor.splits", 1,
                                                    kMaxSplits},
            {"gpupoor.slices", 0, kMaxSlices}}) {
        if (succeeded(opOverride(op, name, lowest, highest)))
          continue;
        op->emitOpError() << name << " must be an integer in [" << lowest
                          << ", " << highest << "], got " << op->getAttr(name);
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Applies the layout patterns to the matmuls and the ops around them
  /// (only those, and what the patterns create: the folding the reshapes
  /// need must not reach the user's other ops).
  LogicalResult foldMatmulLayouts() {
    // A pattern's new reshape can enable a pattern on an op the driver has
    // already visited; the set is collected afresh until nothing changes.
    for (int round = 0; round < 8; ++round) {
      SetVector<Operation *> ops = layoutCandidates();
      if (ops.empty())
        return success();
      RewritePatternSet layouts(&getContext());
      populateNarrowOperandPatterns(layouts);
      populateMatmulLayoutPatterns(layouts);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      bool changed = false;
      if (failed(applyOpPatternsGreedily(ops.takeVector(), std::move(layouts),
                                         config, &changed)))
        return failure();
      if (!changed)
        return success();
    }
    return success();
  }

  /// The matmuls on tensors, the ops that produce their operands, the ops
  /// that use their results and what those users' operands come from.
  SetVector<Operation *> layoutCandidates() {
    SetVector<Operation *> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
          !op.hasPureTensorSemantics())
        return;
      ops.insert(op);
      // `v`'s producer and theirs, first operands first, up to `depth`
      // ops, in the matmul's block.
      auto insertProducers = [&](Value v, int depth) {
        Operation *def = v.getDefiningOp();
        for (; def && def->getBlock() == op->getBlock() && depth > 0;
             --depth) {
          ops.insert(def);
          def = def->getNumOperands() ? def->getOperand(0).getDefiningOp()
                                      : nullptr;
        }
      };
      // A transpose or broadcast, possibly under a collapse_shape.
      for (Value in : op.getDpsInputs())
        insertProducers(in, 3);
      // (getForwardSlice drops its root from the set it fills, and goes
      // into the users' regions: their bodies are the user's code.)
      SetVector<Operation *> users;
      getForwardSlice(op.getOperation(), &users);
      for (Operation *user : users) {
        if (user->getBlock() != op->getBlock())
          continue;
        ops.insert(user);
        // What the users' other operands are computed from (a bias
        // extended and broadcast: the layout patterns fuse it into the
        // user, and the driver erases what is left unused).
        for (Value operand : user->getOperands())
          insertProducers(operand, 2);
      }
    });
    return ops;
  }

  void runOnOperation() override {
    SplitKPatternOptions resolved;
    if (failed(resolveOptions(resolved)) || failed(checkSplitsAttributes()))
      return signalPassFailure();

    if (foldLayouts && failed(foldMatmulLayouts()))
      return signalPassFailure();

    // An error a pattern emits (static sizes no kernel can launch) fails
    // the pass; the handler passes every diagnostic on.
    bool patternError = false;
    ScopedDiagnosticHandler errors(&getContext(), [&](Diagnostic &d) {
      patternError |= d.getSeverity() == DiagnosticSeverity::Error;
      return failure();
    });
    RewritePatternSet patterns(&getContext());
    populateSplitKPatterns(patterns, resolved);
    // Only the matched ops change: keep the driver from folding or erasing
    // anything else in the user's IR.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)) ||
        patternError)
      return signalPassFailure();

    if (!reportIneligible && !strict)
      return;
    bool failedStrict = false;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!linalg::isaContractionOpInterface(op))
        return;
      std::string why;
      if (succeeded(analyzeMatmul(op, resolved.relaxF32Accumulation, why)))
        why = "rewrite failed";
      if (strict) {
        op->emitError() << "not rewritten to gpupoor.matmul: " << why;
        failedStrict = true;
      } else {
        op->emitRemark() << "not rewritten to gpupoor.matmul: " << why;
      }
    });
    if (failedStrict)
      signalPassFailure();
  }
};

} // namespace

LogicalResult
mlir::gpupoor::verifySplitKPatternOptions(const SplitKPatternOptions &options,
                                          MLIRContext *context, Location loc) {
  // The attribute's storage lives in its dialect (already loaded inside
  // gpupoor-split-k, which names it a dependent dialect).
  context->getOrLoadDialect<GPUPoorDialect>();
  // The combination is checked with the attribute's own verifier, on the
  // tile every matmul gets when none is named.
  auto diag = [&]() {
    return emitError(loc) << "gpupoor-split-k: invalid strategy options: ";
  };
  // Transposed products asked for are sm_90a's wgmma kernel's (checked
  // again on each matmul's tile) and 2-D (gpupoor-swap-operands transposes
  // C's view).
  if (options.swap == true && options.chip != Chip::SM90a)
    return emitError(loc) << "gpupoor-split-k: swap=true needs chip=sm_90a, "
                             "got "
                          << stringifyChip(options.chip);
  // Sums asked for are checked against each matmul's tile when it has one.
  if (options.sets < 0 || (options.sets && !llvm::isPowerOf2_64(options.sets)))
    return emitError(loc) << "gpupoor-split-k: sets must be 0 (the chip's "
                             "rules) or a power of two, got "
                          << options.sets;
  SmallVector<int64_t, 3> tile = options.tile;
  if (tile.empty())
    tile = defaultTile();
  Type outer =
      options.outerType ? options.outerType : Float32Type::get(context);
  int64_t slices = options.splits ? std::min(options.slices, *options.splits)
                                  : options.slices;
  // On sm_90a, a tile the wgmma kernel cannot take is sm_90's.
  Chip chip = options.chip;
  if (chip == Chip::SM90a && !wgmmaTakes(ALayout::MK, BLayout::NK, tile))
    chip = Chip::SM90;
  if (!SplitKAttr::getChecked(diag, context, options.splits, options.maxSplits,
                              ArrayRef<int64_t>(tile),
                              Type(Float16Type::get(context)), outer,
                              BLayout::KN, ALayout::MK, slices, chip,
                              /*swapped=*/false, /*sets=*/int64_t{1}))
    return failure();
  return success();
}

void mlir::gpupoor::populateSplitKPatterns(
    RewritePatternSet &patterns, const SplitKPatternOptions &options) {
  patterns.add<MatmulToSplitK>(patterns.getContext(), options);
}
