//===- plan.cpp - a launch worked out once --------------------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "plan.h"
#include "operands.h"

#include "gpupoor/Policy/Checks.h"
#include "gpupoor/Policy/KernelConfig.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace gpupoor::package {
namespace {

std::mutex forcedMutex;
std::optional<policy::TunedChoice> forcedChoice;
bool useTunedTable = true;
int64_t forcedSplits = 0;

/// The parameter values a kernel takes from the launcher, by ABI name:
/// A, B and C as the kernel sees them (exchanged and transposed for a
/// swapped family), the bias along the kernel's rows when swapped; of a
/// batch (rank-3 views), the batch strides and count too (a bias is shared
/// by the batch: stride 0).
std::map<std::string, int64_t>
kernelArgs(const at::Tensor &a, const at::Tensor &b, const at::Tensor &c,
           const std::optional<at::Tensor> &bias, bool swapped) {
  auto ptr = [](const at::Tensor &t) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.data_ptr()));
  };
  std::map<std::string, int64_t> args = {
      {"a_ptr", ptr(a)},           {"b_ptr", ptr(b)},
      {"c_ptr", ptr(c)},           {"M", a.size(-2)},
      {"N", b.size(-1)},           {"K", a.size(-1)},
      {"stride_am", a.stride(-2)}, {"stride_ak", a.stride(-1)},
      {"stride_bk", b.stride(-2)}, {"stride_bn", b.stride(-1)},
      {"stride_cm", c.stride(-2)}, {"stride_cn", c.stride(-1)}};
  if (bias) {
    args["in0_ptr"] = ptr(*bias);
    args["stride_in0m"] = swapped ? bias->stride(0) : 0;
    args["stride_in0n"] = swapped ? 0 : bias->stride(0);
  }
  if (a.dim() == 3) {
    args["stride_ab"] = a.stride(0);
    args["stride_bb"] = b.stride(0);
    args["stride_cb"] = c.stride(0);
    args["batch"] = a.size(0);
    if (bias)
      args["stride_in0b"] = 0;
  }
  return args;
}

const std::set<std::string> kWorkspaceParams = {"ws_ptr", "ws_bytes",
                                                "locks_ptr", "locks_count"};
const std::set<std::string> kMapParams = {"a_desc", "b_desc", "c_desc"};

/// The index of parameter `name` of `kern`, or -1.
int slotOf(const KernelInfo &kern, const std::string &name) {
  auto it = std::find(kern.params.begin(), kern.params.end(), name);
  return it == kern.params.end() ? -1 : int(it - kern.params.begin());
}

/// Whether every kernel of `variant` takes S as a parameter (splits-arg).
static bool takesSplits(const Variant &variant) {
  return std::all_of(variant.begin(), variant.end(), [](const KernelInfo &k) {
    return std::find(k.params.begin(), k.params.end(), "splits") !=
           k.params.end();
  });
}

/// The variant to launch: the family (and the A layout of its variant) the
/// policy chooses for each chip, from the best chip whose library holds it;
/// else the best chip's, compiled on demand where the package may.
struct Choice {
  std::shared_ptr<const Variant> variant;
  policy::Family family;
  VariantKey key;
  /// The slices the family's kernel is asked for (the call's, else the
  /// tuned table's; 0: launchSlices' rule).
  int64_t askedSlices;
  /// S (the policy's launch) and whether the caller forced it
  /// (setForcedChoice).
  int64_t splits;
  bool forcedSplits;
  /// Whether the launch runs the swapped decode tile's element kernels
  /// (policy::elementReadsDecode), whose slices familyLaunchSlices gives.
  bool elementDecode = false;
};
Choice chooseVariant(const DeviceInfo &info, const VariantKey &key,
                     const policy::CShape &shape, int64_t k, int64_t slices,
                     bool elementReads, const Finder &find) {
  std::optional<Choice> first;
  std::optional<policy::TunedChoice> forced;
  bool useTable;
  int64_t splits;
  {
    std::lock_guard<std::mutex> guard(forcedMutex);
    forced = forcedChoice;
    useTable = useTunedTable;
    splits = forcedSplits;
  }
  for (const std::string &chipName : info.chips) {
    policy::Problem p;
    std::optional<policy::Chip> chip = policy::parseChip(chipName);
    TORCH_CHECK(chip, "gpupoor: unknown chip ", chipName);
    p.chip = *chip;
    p.shape = shape;
    p.k = k;
    p.bLayout = key.nk ? policy::BLayout::NK : policy::BLayout::KN;
    p.aLayout = key.km ? policy::ALayout::KM : policy::ALayout::MK;
    p.aCopiedFromKM = key.aCopiedFromKM;
    p.slices = slices;
    p.elementReads = elementReads;
    p.maxSplits = key.maxSplits;
    if (splits)
      p.splits = splits;
    p.smCount = info.smCount;
    p.forced = forced;
    p.useTable = useTable;
    policy::Launch l = policy::chooseLaunch(p);
    VariantKey chosen = key;
    chosen.km = l.aLayout == policy::ALayout::KM;
    // f16 outer sums where they give C bit for bit what f32 ones do (at
    // most two f16 sums, chunks times sets; f16 C, no epilogue), as
    // gpupoor-select-kernel-config takes them: half the registers and
    // handover work.
    policy::ConfigProblem cp;
    cp.chip = l.chip;
    cp.tile = l.tile;
    cp.splits = l.splits;
    cp.sets = l.sets;
    cp.k = k;
    chosen.f16Outer =
        key.f16Outer ||
        policy::f16OuterIsExact(cp, /*f32Outer=*/true, /*f16C=*/!key.f32Out,
                                key.epilogue != Epilogue::None);
    // The library's variants, built for kLibraryMaxSplits, take S from
    // the launch (splits-arg): any call's max_k_splits runs on them. A
    // variant whose kernels evaluate the rule themselves serves only its
    // own max_k_splits.
    VariantKey shared = chosen;
    shared.maxSplits = kLibraryMaxSplits;
    bool elementDecode = policy::elementReadsDecode(p, l);
    if (!first)
      first = Choice{nullptr,  l.family,   shared,       l.askedSlices,
                     l.splits, splits > 0, elementDecode};
    if (auto v = find(chipName, shared, l.family, /*prebuilt=*/true);
        v && (shared.maxSplits == chosen.maxSplits || takesSplits(*v)))
      return {v,        l.family,   shared,       l.askedSlices,
              l.splits, splits > 0, elementDecode};
    if (shared.maxSplits != chosen.maxSplits)
      if (auto v = find(chipName, chosen, l.family, /*prebuilt=*/true))
        return {v,        l.family,   chosen,       l.askedSlices,
                l.splits, splits > 0, elementDecode};
  }
  // Compiled on demand (the package's options take S from the launch),
  // or a library's variant of kLibraryMaxSplits built without that: then
  // the call's own max_k_splits.
  first->variant =
      find(info.chips.front(), first->key, first->family, /*prebuilt=*/false);
  if (first->variant && !takesSplits(*first->variant) &&
      first->key.maxSplits != key.maxSplits) {
    first->key.maxSplits = key.maxSplits;
    first->variant =
        find(info.chips.front(), first->key, first->family, /*prebuilt=*/false);
  }
  return *first;
}

/// The plan's parameter values and the slots of the per-call ones.
void planParameters(Plan &plan, const KernelInfo &kern,
                    std::map<std::string, int64_t> &args, bool hasBias) {
  // The launcher fills the workspace's four parameters and the tensor maps
  // per call; every other parameter must be one it has.
  std::set<std::string> want(kern.params.begin(), kern.params.end());
  for (const auto &p : kWorkspaceParams)
    want.erase(p);
  for (const auto &p : kMapParams)
    want.erase(p);
  std::set<std::string> have;
  for (const auto &[name, _] : args)
    have.insert(name);
  // S, which the launcher always has, goes to the kernels that take it
  // (splits-arg); the others evaluate the same rule.
  want.erase("splits");
  have.erase("splits");
  TORCH_CHECK(want == have, "kernel ", kern.name,
              " takes parameters the launcher does not have");
  for (const std::string &p : kern.params)
    plan.values.push_back(args.count(p) ? static_cast<uint64_t>(args[p]) : 0);
  // The call's A and B pointers go to the kernel's b_ptr and a_ptr when
  // swapped.
  plan.aSlot = slotOf(kern, plan.swapped ? "b_ptr" : "a_ptr");
  plan.bSlot = slotOf(kern, plan.swapped ? "a_ptr" : "b_ptr");
  plan.cSlot = slotOf(kern, "c_ptr");
  plan.biasSlot = hasBias ? slotOf(kern, "in0_ptr") : -1;
  plan.wsSlot = slotOf(kern, "ws_ptr");
}

/// The tensor maps of a TMA kernel: its A as M rows of K or K rows of M, its
/// B as N rows of K or K rows of N (as its manifest's maps say: the
/// kernel's layouts), and
/// C's (dims [N, M]) where it describes C (else 128 zero bytes: the kernel
/// stores from its lanes). A batched kernel's maps take the batch third, a
/// step of the operand's batch stride.
void planMaps(Plan &plan, const KernelInfo &kern, const at::Tensor &a,
              const at::Tensor &b, const at::Tensor &c) {
  int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  int64_t batch = kern.batched ? a.size(0) : -1;
  auto batchStride = [&](const at::Tensor &t) {
    return kern.batched ? t.stride(0) : 0;
  };
  struct Operand {
    const char *name;
    int operand;
    int64_t inner, rows, stride, batchStride;
  };
  auto rowsK = [&](const char *name, const char *inner) {
    auto map = kern.maps.find(name);
    return map != kern.maps.end() && map->second.inner == inner;
  };
  bool aRowsK = rowsK("a_desc", "M"), bRowsK = rowsK("b_desc", "N");
  std::vector<Operand> operands = {
      aRowsK ? Operand{"a_desc", 0, m, k, a.stride(-1), batchStride(a)}
             : Operand{"a_desc", 0, k, m, a.stride(-2), batchStride(a)},
      bRowsK ? Operand{"b_desc", 1, n, k, b.stride(-2), batchStride(b)}
             : Operand{"b_desc", 1, k, n, b.stride(-1), batchStride(b)}};
  if (slotOf(kern, "c_desc") >= 0) {
    // The policy's conditions, which the kernel checks too.
    std::map<std::string, int64_t> cArgs = {
        {"M", m},
        {"N", n},
        {"c_ptr", int64_t(reinterpret_cast<uintptr_t>(c.data_ptr()))},
        {"stride_cm", c.stride(-2)},
        {"stride_cn", c.stride(-1)}};
    if (kern.batched)
      cArgs.insert({{"batch", batch}, {"stride_cb", c.stride(0)}});
    bool describes = !policy::violation(policy::cTensorMapChecks(kern.batched),
                                        policy::CheckedKernel{}, cArgs,
                                        /*slices=*/1);
    if (describes)
      operands.push_back({"c_desc", 2, n, m, c.stride(-2), batchStride(c)});
    else
      plan.zeroMapSlot = slotOf(kern, "c_desc");
  }
  for (const Operand &o : operands) {
    int s = slotOf(kern, o.name);
    if (s < 0)
      continue;
    auto it = kern.maps.find(o.name);
    TORCH_CHECK(it != kern.maps.end(), "kernel ", kern.name,
                " lacks its tensor map ", o.name);
    const KernelInfo::MapInfo &mi = it->second;
    runtime::TensorMapSpec spec = runtime::operandMap(
        o.inner, o.rows, o.stride, mi.box[0], mi.box[1], batch, o.batchStride);
    spec.dataType = mi.dataType;
    spec.elementStrides[0] = mi.elementStrides[0];
    spec.elementStrides[1] = mi.elementStrides[1];
    spec.swizzle = mi.swizzle;
    spec.l2Promotion = mi.l2;
    spec.oobFill = mi.oob;
    // The kernel's A and B are the call's B and A when swapped.
    int operand = o.operand == 2 ? 2 : o.operand ^ int(plan.swapped);
    plan.maps.push_back({s, operand, spec});
  }
  plan.encoded.resize(plan.maps.size());
}

} // namespace

void setForcedChoice(std::optional<policy::TunedChoice> choice, bool useTable,
                     int64_t splits) {
  std::lock_guard<std::mutex> guard(forcedMutex);
  forcedChoice = choice;
  useTunedTable = useTable;
  forcedSplits = splits;
}

const KernelInfo &chooseKernel(const Variant &variant,
                               const std::map<std::string, int64_t> &args,
                               int64_t slices, const std::string &what) {
  std::string reasons;
  for (const KernelInfo &kern : variant) {
    auto why = policy::violation(kern.checks, checkedKernel(kern), args,
                                 std::max<int64_t>(slices, 1));
    if (!why)
      return kern;
    reasons += (reasons.empty() ? "" : "; ") + kern.name + ": " + *why;
  }
  TORCH_CHECK_VALUE(false, "no kernel of variant ", what,
                    " accepts these operands: ", reasons);
}

std::unique_ptr<Plan> makePlan(at::Tensor a, at::Tensor b,
                               const std::optional<at::Tensor> &bias,
                               at::Tensor c, const VariantKey &key,
                               int64_t slices, const DeviceInfo &info,
                               const Finder &find) {
  TORCH_CHECK(!info.chips.empty(),
              "gpupoor's kernels need compute capability 8.x or 9.0; this "
              "device is not supported (use backend='triton')");
  int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  int64_t batch = key.batched ? a.size(0) : 1;
  TORCH_CHECK(a.dim() == (key.batched ? 3 : 2),
              "gpupoor: the launcher's A does not match its variant key");
  policy::CShape shape{key.batched, batch, m, n};
  // Operands whose rows lie off 16 bytes: the element kernels read them.
  bool elementReads = !rowsAligned(a) || !rowsAligned(b);
  auto [variant, family, chosen, askedSlices, splits, splitsForced,
        elementDecode] =
      chooseVariant(info, key, shape, k, slices, elementReads, find);
  if (!variant) {
    std::string chips;
    for (const auto &chip : info.chips)
      chips += (chips.empty() ? "" : " or ") + chip;
    TORCH_CHECK(false, "no kernel ", variantName(chosen, family), " for ",
                chips,
                ": the package's kernel library lacks it and gpupoor-opt is "
                "not available to compile it (python -m gpupoor.build_library, "
                "GPUPOOR_KERNEL_DIR, GPUPOOR_OPT), or use backend='triton'");
  }
  auto plan = std::make_unique<Plan>();
  plan->variant = variant;
  plan->family = std::string(policy::familyName(family));
  // A swapped family's kernel computes C^T = B^T A^T: its A is B^T (N x K),
  // its B A^T (K x M), its C C^T; a bias runs along its rows.
  plan->swapped = policy::familySwapped(family);
  if (plan->swapped) {
    std::tie(a, b, c) = std::make_tuple(
        b.transpose(-2, -1), a.transpose(-2, -1), c.transpose(-2, -1));
    std::swap(m, n);
    shape = shape.transposed();
  }
  const KernelInfo &first = variant->front();
  std::optional<policy::Chip> chip = policy::parseChip(first.chip);
  TORCH_CHECK(chip, "kernel manifest: unknown chip ", first.chip);
  for (const KernelInfo &kern : *variant)
    checkSets(kern, family);
  // S is the policy's launch's, which the variant's kernels take as a
  // parameter (splits-arg); kernels that evaluate S themselves run their
  // own default, of their chip, tile and variant's max_k_splits (the
  // call's: chooseVariant), which the slices must be counted with.
  if (!takesSplits(*variant)) {
    TORCH_CHECK(!splitsForced, "kernel ", first.name,
                " evaluates S itself: it cannot run the forced S = ", splits);
    for (const KernelInfo &kern : *variant)
      checkSplitRule(kern, chosen.maxSplits);
    splits = policy::tileNumSplits(*chip, first.tile, k, chosen.maxSplits);
  }
  slices = policy::familyLaunchSlices(askedSlices, *chip, first.tile, k,
                                      shape.tiles(first.tile[0], first.tile[1]),
                                      splits, info.smCount, first.persistent,
                                      elementDecode);
  auto args = kernelArgs(a, b, c, bias, plan->swapped);
  args["splits"] = splits;
  const KernelInfo &kern = chooseKernel(*variant, args, slices,
                                        variantName(chosen) + " (" + first.chip +
                                            ", " + plan->family + ")");
  plan->info = &kern;
  plan->slices = slices;
  TORCH_CHECK(kern.batched == key.batched, "kernel ", kern.name,
              key.batched ? " is not batched" : " is batched",
              ", its variant's key says otherwise");
  plan->tiles = policy::launchTiles(shape, kern.tile, kern.clusterM);
  TORCH_CHECK_VALUE(plan->tiles < (int64_t(1) << 31),
                    std::to_string(plan->tiles),
                    " blocks exceed the grid (2^31 - 1)");
  plan->sumBytes =
      slices > 1 ? plan->tiles * slices * kern.workspacePerTileSlice : 0;
  planParameters(*plan, kern, args, bias.has_value());
  planMaps(*plan, kern, a, b, c);
  auto [gx, gy] = policy::launchGrid(plan->tiles, slices, kern.persistent,
                                     info.smCount, kern.clusterM);
  plan->gridX = unsigned(gx);
  plan->gridY = unsigned(gy);
  // A stream-K kernel's blocks share the tiles past the whole waves: a slot
  // of partial sums a block (and its flag), where there are such tiles.
  if (kern.streamK && gx > 0 && plan->tiles > gx && plan->tiles % gx)
    plan->sumBytes = gx * kern.workspacePerBlock;
  return plan;
}

} // namespace gpupoor::package
