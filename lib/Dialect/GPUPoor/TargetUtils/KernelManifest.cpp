//===- KernelManifest.cpp - what a launcher needs of a kernel -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelManifest.h"

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/ChipInfo.h"

using namespace mlir;
using namespace mlir::gpupoor;

SmallVector<std::string>
mlir::gpupoor::getKernelParamNames(const KernelSpec &spec) {
  int64_t numEpilogueInputs = spec.numEpilogueInputs();
  SmallVector<std::string> names = {"a_ptr",     "b_ptr",     "c_ptr",
                                    "M",         "N",         "K",
                                    "stride_am", "stride_ak", "stride_bk",
                                    "stride_bn", "stride_cm", "stride_cn"};
  if (spec.batched)
    names.append({"stride_ab", "stride_bb", "stride_cb"});
  for (int64_t i = 0; i < numEpilogueInputs; ++i) {
    std::string in = "in" + std::to_string(i);
    names.append({in + "_ptr", "stride_" + in + "m", "stride_" + in + "n"});
    if (spec.batched)
      names.push_back("stride_" + in + "b");
  }
  if (spec.parallel())
    names.append({"ws_ptr", "ws_bytes", "locks_ptr", "locks_count"});
  return names;
}

static std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// The operand requirements the kernel does not check itself.
static std::string requirements(const KernelSpec &spec) {
  std::string req =
      spec.asyncCopies
          ? "stride_ak == 1, " +
                std::string(spec.bTransposed ? "stride_bk" : "stride_bn") +
                " == 1, A/B rows and pointers 16-byte aligned"
          : "";
  if (spec.indexBitwidth == 32)
    req += std::string(req.empty() ? "" : ", ") +
           "every element offset below 2^31";
  if (spec.readsC)
    req += std::string(req.empty() ? "" : ", ") + "C holds C_in (it is read)";
  if (spec.parallel())
    req += std::string(req.empty() ? "" : ", ") +
           "grid y = P', a workspace and counters as workspace_formula "
           "says (the kernel traps on short or misaligned ones)";
  return req.empty() ? "none" : req;
}

llvm::json::Object mlir::gpupoor::getKernelManifest(KernelAttr kernel) {
  SplitKAttr strategy = kernel.getStrategy();
  KernelSpec spec(kernel);
  llvm::json::Array params;
  for (std::string &name : getKernelParamNames(spec))
    params.push_back(std::move(name));
  llvm::json::Object m;
  m["params"] = std::move(params);
  m["block_size"] = spec.threads();
  std::string gridX =
      spec.batched ? "ceil(M/BM)*ceil(N/BN)*batch" : "ceil(M/BM)*ceil(N/BN)";
  m["grid"] = spec.parallel() ? "[" + gridX + ", P']" : gridX;
  // Parallel split-k: P' blocks along grid y each take one K slice; the
  // last of a tile's blocks to finish adds the slice sums in order and runs
  // the epilogue.
  m["slices"] = strategy.getSlices();
  if (spec.parallel()) {
    int64_t smCount = getChipInfo(spec.chip).smCount;
    m["slices_formula"] =
        strategy.getSlices() > 0
            ? "P' = min(" + std::to_string(strategy.getSlices()) + ", S)"
            : "P' = P2 if P2 > 2*P1 else P1, P1 = clamp(floor(" +
                  std::to_string(smCount) + "/T), 1, S), P2 = clamp(floor(" +
                  std::to_string(2 * smCount) +
                  "/T), 1, S), T = ceil(M/BM)*ceil(N/BN)" +
                  (spec.batched ? "*batch" : "");
    m["workspace_formula"] =
        "P' > 1: ws_bytes >= T*P'*" + std::to_string(spec.sliceSumBytes()) +
        " (ws_ptr 16-byte aligned) and locks_count >= T i32 counters at "
        "locks_ptr, zero before the first launch (each launch leaves them "
        "zero), T = ceil(M/BM)*ceil(N/BN)" +
        std::string(spec.batched ? "*batch" : "") +
        "; P' = 1: neither is touched (null, 0)";
    m["sm_count"] = smCount;
    m["workspace_bytes_per_tile_slice"] = spec.sliceSumBytes();
  }
  // A batched matmul: one launch, batch element b in blocks
  // [b * T, (b + 1) * T) of grid x (T = ceil(M/BM)*ceil(N/BN)).
  m["batched"] = spec.batched;
  m["dynamic_shared_memory"] = spec.sharedBytes();
  m["chip"] = stringifyChip(spec.chip).str();
  m["tile"] = llvm::json::Array{spec.bm, spec.bn, spec.bk};
  m["stages"] = spec.stages;
  if (std::optional<int64_t> splits = strategy.getSplits())
    m["splits"] = *splits;
  else
    m["splits"] = "default";
  m["max_splits"] = strategy.getMaxSplits();
  m["outer"] = str(spec.outerType);
  m["c_type"] = str(spec.cType);
  // The epilogue: the type it receives the product in, its operands'
  // element types (in parameter order) and whether it reads C.
  m["acc_type"] = str(spec.accType);
  llvm::json::Array inputs;
  for (Type t : spec.epilogueInputTypes)
    inputs.push_back(str(t));
  m["epilogue_inputs"] = std::move(inputs);
  m["reads_c"] = spec.readsC;
  // What the kernel computes from acc, the inputs' elements and C's.
  m["epilogue"] = kernel.getEpilogue().str();
  m["b_layout"] = stringifyBLayout(strategy.getBLayout()).str();
  m["a_layout"] = stringifyALayout(strategy.getALayout()).str();
  m["requires"] = requirements(spec);
  m["async_copies"] = spec.asyncCopies;
  m["warps"] = llvm::json::Array{spec.warpsM, spec.warpsN};
  m["shared_outer_rows"] = spec.sharedOuterRows;
  m["shared_epilogue"] = spec.epiloguePasses > 0;
  m["epilogue_passes"] = spec.epiloguePasses;
  m["fragment_prefetch"] = spec.fragmentPrefetch;
  m["group_m"] = spec.groupM;
  m["mma_handover"] = spec.mmaHandover;
  m["index_bitwidth"] = int64_t(spec.indexBitwidth);
  // The type of M, N, K and the strides among the parameters.
  m["size_type"] = spec.indexBitwidth == 64 ? "i64" : "i32";
  return m;
}
