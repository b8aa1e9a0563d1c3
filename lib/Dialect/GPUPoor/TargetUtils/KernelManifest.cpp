//===- KernelManifest.cpp - what a launcher needs of a kernel -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelManifest.h"

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"

using namespace mlir;
using namespace mlir::gpupoor;

SmallVector<std::string>
mlir::gpupoor::getKernelParamNames(int64_t numEpilogueInputs) {
  SmallVector<std::string> names = {"a_ptr",     "b_ptr",     "c_ptr",
                                    "M",         "N",         "K",
                                    "stride_am", "stride_ak", "stride_bk",
                                    "stride_bn", "stride_cm", "stride_cn"};
  for (int64_t i = 0; i < numEpilogueInputs; ++i) {
    std::string in = "in" + std::to_string(i);
    names.append({in + "_ptr", "stride_" + in + "m", "stride_" + in + "n"});
  }
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
  return req.empty() ? "none" : req;
}

llvm::json::Object mlir::gpupoor::getKernelManifest(KernelAttr kernel) {
  SplitKAttr strategy = kernel.getStrategy();
  KernelSpec spec(kernel);
  llvm::json::Array params;
  for (std::string &name : getKernelParamNames(spec.numEpilogueInputs()))
    params.push_back(std::move(name));
  llvm::json::Object m;
  m["params"] = std::move(params);
  m["block_size"] = spec.threads();
  m["grid"] = "ceil(M/BM)*ceil(N/BN)";
  // A batched matmul: one launch per batch element.
  m["batched"] = kernel.getLaunch() == Launch::PerBatchElement;
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
