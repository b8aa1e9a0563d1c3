//===- GPUPoorToNVGPU.cpp - gpupoor.matmul to an mma.sync kernel ----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Replaces each memref gpupoor.matmul with a gpu.launch_func of a kernel that
// takes the Triton ABI (raw pointers, sizes, element strides) and computes
// the split-k product with nvgpu ops, as the op's #gpupoor.kernel_config
// says (gpupoor-select-kernel-config chooses it):
//
//   * a 1-D grid of ceil(M/BM) * ceil(N/BN) blocks in grouped (L2-friendly)
//     order;
//   * A and B tiles staged through dynamic shared memory by a `stages`-deep
//     cp.async (nvgpu.device_async_copy) pipeline with zero-filled tails, in
//     an XOR-swizzled layout that ldmatrix reads without bank conflicts;
//   * nvgpu.ldmatrix fragments and nvgpu.mma.sync m16n8k16 with f16
//     accumulators; at the end of each of the S chunks of K, the f16
//     accumulators are added into the outer (f32 or f16) accumulators;
//   * a guarded epilogue: the op's epilogue region cloned per element
//     (its operands read through their strides), conversion, store.
//
// Why not upstream tiling + vectorization + convert-vector-to-gpu: that path
// takes static shapes only, keeps shared memory static (no 4+ stages), drops
// the L1 bypass on predicated copies and cannot express the split-k
// accumulator handover (see the project's notes); this generator emits the
// same nvgpu ops directly, shaped for this one kernel.
//
// The kernel is built from the parts in gpupoor/Conversion/GPUKernel (ABI
// and host launch, tile order, shared layout, copy pipeline, fragments and
// mma.sync, split handover, epilogue); MmaKernelBuilder assembles them into
// the main loop. docs/Architecture.md says which file does what.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Conversion/Passes.h"

#include "MmaKernelBuilder.h"
#include "gpupoor/Conversion/GPUKernel/HostLaunch.h"
#include "gpupoor/Conversion/GPUKernel/KernelABI.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelRequirements.h"

namespace mlir::gpupoor {
#define GEN_PASS_DEF_CONVERTGPUPOORTONVGPU
#include "gpupoor/Conversion/Passes.h.inc"
} // namespace mlir::gpupoor

using namespace mlir;
using namespace mlir::gpupoor;

namespace {

struct ConvertGPUPoorToNVGPUPass
    : gpupoor::impl::ConvertGPUPoorToNVGPUBase<ConvertGPUPoorToNVGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<MatmulOp> ops;
    module.walk([&](MatmulOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SymbolTable symbols(module);
    int counter = 0;
    for (MatmulOp op : ops)
      if (failed(lower(op, symbols, counter++)))
        return signalPassFailure();
  }

  LogicalResult lower(MatmulOp op, SymbolTable &symbols, int id) {
    if (op.hasTensorSemantics())
      return op.emitOpError("has tensor operands; bufferize before "
                            "convert-gpupoor-to-nvgpu");
    SplitKAttr strategy = op.getStrategy();
    if (strategy.getChip() == Chip::SM90a)
      return op.emitOpError("the sm_90a (wgmma) kernel is not implemented "
                            "yet; use chip sm_90 for mma.sync");
    KernelConfigAttr config = op.getConfigAttr();
    if (!config)
      return op.emitOpError("has no kernel configuration; run "
                            "gpupoor-select-kernel-config first");
    KernelSpec spec(op);
    if (failed(spec.verify([&] { return op.emitOpError(); })))
      return failure();
    FailureOr<SmallVector<std::pair<std::string, KernelSpec>>> variants =
        kernelVariants(op, spec);
    if (failed(variants))
      return failure();

    SmallVector<KernelVariant> kernels;
    std::string name = "gpupoor_matmul_" + std::to_string(id);
    for (auto &[suffix, variant] : *variants) {
      gpu::GPUFuncOp func = createKernelFunc(
          getOperation(), symbols, op.getLoc(), name + suffix, variant);
      kernels.push_back({func, variant});
      ImplicitLocOpBuilder b(func.getLoc(), func.getContext());
      KernelContext kc(b, kernels.back().spec);
      MmaKernelBuilder(kc, func).build();
    }
    emitHostLaunch(op, kernels);
    op.erase();
    return success();
  }

  /// The configured kernel, then kernels that need less of the operands,
  /// for what the types leave to run time (HostLaunch.cpp checks which one
  /// a launch takes): element copies for a cp.async kernel, whose pointer
  /// alignment no type proves; element copies with 64-bit indices for a
  /// 32-bit kernel unless the static shape proves its offsets fit. A
  /// configuration that the static types rule out is an error.
  FailureOr<SmallVector<std::pair<std::string, KernelSpec>>>
  kernelVariants(MatmulOp op, const KernelSpec &spec) {
    if (spec.asyncCopies && asyncCopiesHold(op) == std::optional<bool>(false))
      return op.emitOpError(
          "copies = async needs unit inner strides and rows of a multiple "
          "of 8 elements in A and B, which their types rule out");
    std::optional<bool> fits = offsetsFit32Bits(op);
    if (spec.indexBitwidth == 32 && fits == std::optional<bool>(false))
      return op.emitOpError("index_bitwidth = 32 needs every size, stride and "
                            "element offset below 2^31, which the operand "
                            "types rule out");
    int64_t n = op.getInitType().getShape().back();
    if (spec.indexBitwidth == 32 && !ShapedType::isDynamic(n) &&
        llvm::divideCeil(n, spec.bn) * spec.groupM > kMax32BitOffset)
      return op.emitOpError("index_bitwidth = 32 needs group_m * ceil(N / BN) "
                            "below 2^31");
    SmallVector<std::pair<std::string, KernelSpec>> variants = {{"", spec}};
    if (spec.asyncCopies) {
      KernelSpec elements = spec;
      elements.asyncCopies = false;
      variants.push_back({"_elements", elements});
    }
    bool sumsFit = !spec.parallel() ||
                   sliceSumsFit32Bits(op) == std::optional<bool>(true);
    if (spec.indexBitwidth == 32 &&
        (fits != std::optional<bool>(true) || !sumsFit)) {
      KernelSpec wide = spec;
      wide.asyncCopies = false;
      wide.indexBitwidth = 64;
      variants.push_back({"_i64", wide});
    }
    return variants;
  }
};

} // namespace
