//===- KernelManifest.cpp - what a launcher needs of a kernel -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelManifest.h"

#include "gpupoor/Dialect/GPUPoor/TargetUtils/ChipInfo.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelRequirements.h"
#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"

using namespace mlir;
using namespace mlir::gpupoor;

SmallVector<KernelParam>
mlir::gpupoor::getKernelParams(const KernelSpec &spec) {
  using K = KernelParamKind;
  SmallVector<KernelParam> params = {
      {"a_ptr", K::Pointer},  {"b_ptr", K::Pointer},  {"c_ptr", K::Pointer},
      {"M", K::Size},         {"N", K::Size},         {"K", K::Size},
      {"stride_am", K::Size}, {"stride_ak", K::Size}, {"stride_bk", K::Size},
      {"stride_bn", K::Size}, {"stride_cm", K::Size}, {"stride_cn", K::Size}};
  // Batch strides are i64 in every kernel: b times them reaches past 2^31
  // where one batch element's offsets do not. The batch count is what a
  // persistent kernel's blocks loop to (and the TMA kernel's maps bound).
  if (spec.batched)
    params.append({{"stride_ab", K::I64},
                   {"stride_bb", K::I64},
                   {"stride_cb", K::I64},
                   {"batch", K::Size}});
  for (int64_t i = 0; i < spec.numEpilogueInputs(); ++i) {
    std::string in = "in" + std::to_string(i);
    params.append({{in + "_ptr", K::Pointer},
                   {"stride_" + in + "m", K::Size},
                   {"stride_" + in + "n", K::Size}});
    if (spec.batched)
      params.push_back({"stride_" + in + "b", K::I64});
  }
  // The workspace's size may pass 2^31 where the sizes do not.
  if (spec.takesWorkspace())
    params.append({{"ws_ptr", K::Pointer},
                   {"ws_bytes", K::I64},
                   {"locks_ptr", K::Pointer},
                   {"locks_count", K::I64}});
  if (spec.tmaCopies)
    params.append({{"a_desc", K::TensorMap}, {"b_desc", K::TensorMap}});
  // The persistent kernel's C stores by TMA (KernelSpec::tmaStores).
  if (spec.tmaStores())
    params.push_back({"c_desc", K::TensorMap});
  // Last, so that the other parameters keep their places.
  if (spec.takesSplits())
    params.push_back({"splits", K::Size});
  return params;
}

static std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// `checks` as the manifest holds them, by ABI parameter name, in a form
/// launchers evaluate without parsing prose (policy::violation evaluates
/// them; gpupoor._C.violation from Python).
static llvm::json::Object checksJson(const policy::OperandChecks &checks) {
  auto names = [](const std::vector<std::string> &list) {
    llvm::json::Array a;
    for (const std::string &name : list)
      a.push_back(name);
    return a;
  };
  llvm::json::Object c;
  if (!checks.unitStride.empty())
    c["unit_stride"] = names(checks.unitStride);
  if (!checks.strideMultipleOf8.empty())
    c["stride_multiple_of_8"] = names(checks.strideMultipleOf8);
  if (!checks.pointerAligned16.empty())
    c["pointer_aligned_16"] = names(checks.pointerAligned16);
  if (!checks.positiveRowStride.empty()) {
    llvm::json::Array pairs;
    for (const auto &[stride, rows] : checks.positiveRowStride)
      pairs.push_back(llvm::json::Array{stride, rows});
    c["positive_row_stride"] = std::move(pairs);
  }
  if (checks.maxWorkTiles)
    c["max_work_tiles"] = *checks.maxWorkTiles;
  if (checks.maxSize)
    c["max_size"] = *checks.maxSize;
  if (checks.maxOffset)
    c["max_offset"] = *checks.maxOffset;
  return c;
}

/// How a launcher encodes the TMA kernel's a_desc and b_desc (and c_desc)
/// (cuTensorMapEncodeTiled). A batched kernel's maps have a third
/// dimension, the batch, in boxes of one element.
static llvm::json::Object tensorMaps(const KernelSpec &spec) {
  auto map = [&](StringRef address, StringRef inner, StringRef rows,
                 StringRef stride, StringRef batchStride, int64_t boxInner,
                 int64_t boxRows, int64_t l2PromotionBytes) {
    llvm::json::Array dims{inner, rows}, strides{std::string(stride) + " * 2"};
    llvm::json::Array box{boxInner, boxRows}, elementStrides{1, 1};
    if (spec.batched) {
      dims.push_back("batch");
      strides.push_back(std::string(batchStride) + " * 2");
      box.push_back(1);
      elementStrides.push_back(1);
    }
    return llvm::json::Object{
        {"data_type", "float16"},
        {"rank", spec.batched ? 3 : 2},
        {"global_address", address},
        {"global_dim", std::move(dims)},
        {"global_strides_bytes", std::move(strides)},
        {"box_dim", std::move(box)},
        {"element_strides", std::move(elementStrides)},
        {"interleave", "none"},
        // Rows of a box are the shared tiles' swizzled rows (16-byte rows
        // unswizzled: KernelSpec::bAtomCols).
        {"swizzle",
         boxInner * 2 == 16 ? "none" : std::to_string(boxInner * 2) + "B"},
        {"l2_promotion", std::to_string(l2PromotionBytes) + "B"},
        {"oob_fill", "zero"}};
  };
  // A as M x K in boxes of BM rows of 64 K columns; as K x M (read along M)
  // in boxes of BK rows of 64 M columns.
  bool aM = spec.aMMajor();
  // B as N x K in boxes of BN rows of 64 K columns; as K x N in boxes of BK
  // rows of 64 N columns (its tile's N-major atoms; a narrow tile's 8, 16
  // or 32, KernelSpec::bAtomCols).
  bool bK = spec.bTransposed;
  llvm::json::Object maps{
      {"a_desc", map("a_ptr", aM ? "M" : "K", aM ? "K" : "M",
                     aM ? "stride_ak" : "stride_am", "stride_ab",
                     KernelSpec::kSwizzleCols, spec.aBoxRows(),
                     spec.aL2PromotionBytes())},
      {"b_desc",
       map("b_ptr", bK ? "K" : "N", bK ? "N" : "K",
           bK ? "stride_bn" : "stride_bk", "stride_bb", spec.bAtomCols(),
           spec.bBoxRows(), spec.bL2PromotionBytes())},
      {"note", "dims of 0 are encoded as 1 (the kernel loads nothing "
               "then), strides of 0 or less (their dimension has one "
               "element) and a batch stride where batch <= 1 as 16 bytes; "
               "passed by value, 128 bytes, 64-byte aligned"}};
  // C's rows as the epilogue stores them: boxes of 64 columns by a warp's
  // rows (TMA writes nothing outside C where C's rows end on 16 bytes).
  if (spec.tmaStores()) {
    llvm::json::Object cMap =
        map("c_ptr", "N", "M", "stride_cm", "stride_cb", spec.storeBoxCols(),
            spec.warpM(), KernelSpec::cL2PromotionBytes());
    // The kernel reads the map only where it describes C, and stores from
    // its lanes otherwise (no requirement on C).
    cMap["encode_if"] = checksJson(policy::cTensorMapChecks(spec.batched));
    cMap["else"] = "128 zero bytes";
    maps["c_desc"] = std::move(cMap);
  }
  return maps;
}

/// The operand requirements the kernel does not check itself.
static std::string requirements(const KernelSpec &spec) {
  std::string req =
      spec.asyncCopies
          ? std::string(spec.aMMajor() ? "stride_am" : "stride_ak") +
                " == 1, " +
                std::string(spec.bTransposed ? "stride_bk" : "stride_bn") +
                " == 1, A/B rows and pointers 16-byte aligned" +
                (spec.batched ? " (batch strides multiples of 8 elements)" : "")
          : "";
  if (spec.indexBitwidth == 32)
    req += std::string(req.empty() ? "" : ", ") +
           "every element offset below 2^31";
  if (spec.tmaCopies && spec.batched)
    req += std::string(req.empty() ? "" : ", ") +
           "A/B batch strides positive where batch > 1";
  if (spec.readsC)
    req += std::string(req.empty() ? "" : ", ") + "C holds C_in (it is read)";

  if (spec.parallel())
    req += std::string(req.empty() ? "" : ", ") +
           "grid y = P' (slice_rule), where P' > 1 a workspace of T*P'*"
           "workspace_bytes_per_tile_slice bytes and T zeroed counters (the "
           "kernel traps on short or misaligned ones)";
  if (spec.streamK())
    req += std::string(req.empty() ? "" : ", ") +
           "where the blocks share tiles a workspace of G*"
           "workspace_bytes_per_block bytes and G zeroed flags (the kernel "
           "traps on short or misaligned ones)";
  return req.empty() ? "none" : req;
}

/// A 32-bit kernel's bounds (policy::kernelBounds) as data: `range` (a
/// parameter in [at_least, at_most]), `last_offset` (an operand's view:
/// rows, row stride, columns, column stride) and `ceil_div` (ceil(name /
/// by) * times), each at most `at_most`.
static llvm::json::Array boundsJson(ArrayRef<policy::Bound> bounds) {
  llvm::json::Array list;
  for (const policy::Bound &bound : bounds) {
    llvm::json::Object o;
    switch (bound.kind) {
    case policy::Bound::Kind::Range:
      o["range"] = bound.name;
      o["at_least"] = 0;
      break;
    case policy::Bound::Kind::LastOffset: {
      const policy::OffsetView &v = bound.view;
      o["last_offset"] = bound.name;
      o["view"] = llvm::json::Array{v.rows, v.rowStride, v.cols, v.colStride};
      break;
    }
    case policy::Bound::Kind::Scaled:
      o["ceil_div"] = bound.name;
      o["by"] = bound.divisor;
      o["times"] = bound.factor;
      break;
    }
    o["at_most"] = bound.limit;
    list.push_back(std::move(o));
  }
  return list;
}

/// The kernel's requirements (policy::requiredChecks, a 32-bit kernel's
/// bounds listed), the same conditions the emitted host code checks
/// (HostLaunch.cpp).
static llvm::json::Object checks(const KernelSpec &spec) {
  policy::OperandChecks required = policy::requiredChecks(spec.traits());
  llvm::json::Object c = checksJson(required);
  if (required.maxSize && required.maxOffset)
    c["bounds"] = boundsJson(policy::kernelBounds(
        required, spec.checkedKernel(), spec.numEpilogueInputs()));
  return c;
}

/// How the kernel (or, with splits_arg, the host code) derives S where the
/// strategy leaves it to K: the policy's rule (policy::tileNumSplits) as
/// its parameters, which a launcher passes to gpupoor._C.default_splits or
/// re-derives: gpu_poor's rule, and where the tile has a longest chunk
/// (policy::longestChunk) at least ceil(K / longest_chunk) chunks.
static llvm::json::Object splitRule(SplitKAttr strategy) {
  llvm::json::Object rule;
  for (const policy::SplitRuleParam &param : policy::splitRuleParams(
           toPolicy(strategy.getChip()), toPolicyTile(strategy.getTile()),
           strategy.getMaxSplits()))
    rule[param.name] = param.value;
  return rule;
}

llvm::json::Object mlir::gpupoor::getKernelManifest(KernelAttr kernel) {
  SplitKAttr strategy = kernel.getStrategy();
  KernelSpec spec(kernel);
  llvm::json::Array params, paramTypes;
  for (KernelParam &param : getKernelParams(spec)) {
    params.push_back(std::move(param.name));
    switch (param.kind) {
    case KernelParamKind::Pointer:
      paramTypes.push_back("ptr");
      break;
    case KernelParamKind::Size:
      paramTypes.push_back(spec.indexBitwidth == 64 ? "i64" : "i32");
      break;
    case KernelParamKind::I64:
      paramTypes.push_back("i64");
      break;
    case KernelParamKind::TensorMap:
      paramTypes.push_back("tensormap");
      break;
    }
  }
  llvm::json::Object m;
  m["params"] = std::move(params);
  // How each parameter is passed: a 64-bit global pointer or an integer.
  m["param_types"] = std::move(paramTypes);
  m["block_size"] = spec.blockThreads();
  // The grid is the policy's (policy::launchGrid) from this data: x the C
  // tiles (times the batch), y the slices (slice_rule), and a persistent
  // kernel's blocks loop over tiles blockIdx.x + i * gridDim.x (any grid of
  // at least one block computes C; one block an SM runs them in one wave).
  m["persistent"] = spec.persistent();
  // Stream-K: past the grid's whole waves the blocks share the last tiles
  // by chunks; each block leaves at most one tile's partial sums in its
  // slot of the workspace.
  m["stream_k"] = spec.streamK();
  // Where T > G and T mod G > 0 (G = grid x) the blocks share tiles: then
  // ws_bytes >= G * workspace_bytes_per_block (ws_ptr 16-byte aligned) and
  // locks_count >= G i32 flags, zero before the first launch (each launch
  // leaves them zero); otherwise neither is touched (null, 0).
  if (spec.streamK())
    m["workspace_bytes_per_block"] = spec.sliceSumBytes();
  // Launchers may set programmatic stream serialization (the kernel waits
  // for the previous one before touching memory); plain launches work too.
  m["dependent_launch"] = spec.dependentLaunch();
  if (spec.tmaCopies) {
    // The blocks an SM the kernel is built for and its register split
    // (setmaxnreg): the fewest registers a thread needs at launch for the
    // block to hold the split, the producer's and each consumer thread's.
    m["blocks_per_sm"] = spec.blocksPerSM;
    int64_t split =
        KernelSpec::kProducerRegisters * KernelSpec::kWarpgroupThreads +
        spec.consumerRegisters() * spec.threads();
    m["register_split"] = llvm::json::Object{
        {"least_at_launch", llvm::divideCeil(split, spec.blockThreads())},
        {"producer", KernelSpec::kProducerRegisters},
        {"consumer", spec.consumerRegisters()}};
  }
  // Parallel split-k: P' blocks along grid y each take one K slice; the
  // last of a tile's blocks to finish adds the slice sums in order and runs
  // the epilogue.
  m["slices"] = strategy.getSlices();
  // The f16 sums a chunk keeps (numerics only: no parameter).
  m["sets"] = strategy.getSets();
  if (spec.parallel()) {
    // P' as the policy computes it (policy::launchSlices over T =
    // ceil(M/BM)*ceil(N/BN)[*batch] tiles): its per-kernel parameters.
    int64_t smCount = getChipInfo(spec.chip).smCount;
    m["slice_rule"] = llvm::json::Object{
        {"slices", strategy.getSlices()},
        {"sm_count", smCount},
        {"blocks_per_sm", sliceBlocksPerSM(spec.chip, strategy.getTile())},
        {"one_slice_share", sliceOneSliceShare(spec.chip, strategy.getTile())},
        {"swapped", strategy.getSwapped()}};
    // Where P' > 1: ws_bytes >= T * P' * workspace_bytes_per_tile_slice
    // (ws_ptr 16-byte aligned) and locks_count >= T i32 counters, zero
    // before the first launch (each launch leaves them zero); P' = 1:
    // neither is touched (null, 0).
    m["workspace_bytes_per_tile_slice"] = spec.sliceSumBytes();
  }
  // A batched matmul: one launch, batch element b in blocks
  // [b * T, (b + 1) * T) of grid x (T = ceil(M/BM)*ceil(N/BN)); a
  // persistent kernel's work tiles [b * T, (b + 1) * T) likewise.
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
  if (!strategy.getSplits())
    m["split_rule"] = splitRule(strategy);
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
  m["checks"] = checks(spec);
  m["async_copies"] = spec.asyncCopies;
  if (spec.tmaCopies)
    m["tensor_maps"] = tensorMaps(spec);
  m["warps"] = llvm::json::Array{spec.warpsM, spec.warpsN};
  m["shared_outer_rows"] = spec.sharedOuterRows;
  m["shared_epilogue"] = spec.epiloguePasses > 0;
  m["epilogue_passes"] = spec.epiloguePasses;
  m["fragment_prefetch"] = spec.fragmentPrefetch;
  m["group_m"] = spec.groupM;
  m["mma_handover"] = spec.mmaHandover;
  m["split_handover"] = spec.splitHandover;
  m["cluster_m"] = spec.clusterM;
  m["index_bitwidth"] = int64_t(spec.indexBitwidth);
  // The type of M, N, K and the strides among the parameters.
  m["size_type"] = spec.indexBitwidth == 64 ? "i64" : "i32";
  return m;
}
