//===- KernelVariants.cpp - a matmul's kernels and their launch -----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/GPUKernel/KernelVariants.h"

#include "gpupoor/Conversion/GPUKernel/HostLaunch.h"
#include "gpupoor/Conversion/GPUKernel/KernelABI.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelRequirements.h"

using namespace mlir;
using namespace mlir::gpupoor;

/// `spec` loading its tiles element by element (the fallbacks): neither TMA
/// nor cp.async, so not persistent either, and a block an SM. The persistent
/// kernel's epilogue passes split a warp's columns through a buffer of their
/// own; the fallback's run over its m16 rows through the stages, as many as
/// fit. It keeps the clusters (the launch's tile order and cluster
/// dimensions); its configuration says neither persistent nor stream-K,
/// which the printed attribute's verifier refuses without TMA copies.
static KernelSpec withElementCopies(const KernelSpec &spec) {
  KernelSpec fallback = spec;
  fallback.asyncCopies = false;
  fallback.tmaCopies = false;
  fallback.persistentTiles = false;
  fallback.streamKTiles = false;
  fallback.blocksPerSM = 1;
  if (spec.ownEpilogueBuffer())
    fallback.epiloguePasses = fallback.fewestEpiloguePasses();
  return fallback;
}

/// The TMA kernel `spec` as the cp.async kernel: a batched operand whose
/// batch stride a tensor map cannot step (0 or negative where the batch
/// has more than one element, e.g. an operand the batch shares) still
/// takes 16-byte copies. Not persistent, a block an SM, its epilogue
/// passes over m16 rows through the stages.
static KernelSpec withAsyncCopies(const KernelSpec &spec) {
  KernelSpec async = withElementCopies(spec);
  async.asyncCopies = true;
  return async;
}

FailureOr<KernelVariantList>
mlir::gpupoor::kernelVariants(MatmulOp op, const KernelSpec &spec) {
  if (spec.asyncCopies && asyncCopiesHold(op) == std::optional<bool>(false))
    return op.emitOpError(
        "copies = async needs unit inner strides and rows (and batch "
        "strides) of a multiple of 8 elements in A and B, which their "
        "types rule out");
  // A 32-bit kernel's bounds the types break are an error; those they
  // leave open, the host code checks before it launches it, and launches
  // a 64-bit kernel where they fail.
  bool boundsProven = true;
  if (spec.indexBitwidth == 32) {
    for (const policy::Bound &bound : policy::kernelBounds(
             checks32Bit(), spec.checkedKernel(), spec.numEpilogueInputs())) {
      std::optional<bool> holds = boundHoldsStatically(op, bound);
      // (Of the scaled bounds only the block order's: the types never
      // break the slice sums', whose sum_slots may be 0.)
      if (holds == false)
        return op.emitOpError(
            bound.kind == policy::Bound::Kind::Scaled
                ? "index_bitwidth = 32 needs group_m * ceil(N / BN) below 2^31"
                : "index_bitwidth = 32 needs every size, stride and element "
                  "offset below 2^31, which the operand types rule out");
      boundsProven &= holds == true;
    }
  }
  KernelVariantList variants = {{"", spec}};
  if (spec.tmaCopies && spec.batched)
    variants.push_back({"_async", withAsyncCopies(spec)});
  if (spec.asyncCopies)
    variants.push_back({"_elements", withElementCopies(spec)});
  if (!boundsProven) {
    KernelSpec wide = withElementCopies(spec);
    wide.indexBitwidth = 64;
    variants.push_back({"_i64", wide});
  }
  return variants;
}

LogicalResult mlir::gpupoor::lowerToKernels(MatmulOp op, ModuleOp module,
                                            SymbolTable &symbols,
                                            StringRef pass,
                                            KernelBodyBuilder buildBody) {
  if (op.hasTensorSemantics())
    return op.emitOpError("has tensor operands; bufferize before ") << pass;
  if (!op.getConfigAttr())
    return op.emitOpError("has no kernel configuration; run "
                          "gpupoor-select-kernel-config first");
  KernelSpec spec(op);
  if (failed(spec.verify([&] { return op.emitOpError(); })))
    return failure();
  FailureOr<KernelVariantList> variants = kernelVariants(op, spec);
  if (failed(variants))
    return failure();

  // Kernels of earlier matmuls (of this lowering or another) keep their
  // names.
  int id = 0;
  while (symbols.lookup("gpupoor_matmul_" + std::to_string(id) + "_module"))
    ++id;
  std::string name = "gpupoor_matmul_" + std::to_string(id);
  SmallVector<KernelVariant> kernels;
  for (auto &[suffix, variant] : *variants) {
    gpu::GPUFuncOp func =
        createKernelFunc(module, symbols, op.getLoc(), name + suffix, variant);
    kernels.push_back({func, variant});
    ImplicitLocOpBuilder b(func.getLoc(), func.getContext());
    KernelContext kc(b, kernels.back().spec);
    buildBody(kc, func);
  }
  emitHostLaunch(op, kernels);
  op.erase();
  return success();
}
