//===- Checks.cpp - what a kernel needs of its operands -------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/Checks.h"

#include "PolicyUtils.h"

using namespace mlir::gpupoor::policy;

OperandChecks mlir::gpupoor::policy::requiredChecks(const KernelTraits &t) {
  OperandChecks c;
  if (t.asyncCopies) {
    // 16-byte cp.async copies of A and B rows.
    c.unitStride = {t.aMMajor ? "stride_am" : "stride_ak",
                    t.bTransposed ? "stride_bk" : "stride_bn"};
    c.strideMultipleOf8 = {t.aMMajor ? "stride_ak" : "stride_am",
                           t.bTransposed ? "stride_bn" : "stride_bk"};
    // Every batch element's rows start 16-byte aligned.
    if (t.batched) {
      c.strideMultipleOf8.push_back("stride_ab");
      c.strideMultipleOf8.push_back("stride_bb");
    }
    c.pointerAligned16 = {"a_ptr", "b_ptr"};
  }
  if (t.tmaCopies) {
    // A tensor map steps forward over A's and B's rows: M (N) of them as
    // M x K (N x K), K as K x M (K x N).
    if (t.aMMajor)
      c.positiveRowStride.push_back({"stride_ak", "K"});
    else
      c.positiveRowStride.push_back({"stride_am", "M"});
    if (t.bTransposed)
      c.positiveRowStride.push_back({"stride_bn", "N"});
    else
      c.positiveRowStride.push_back({"stride_bk", "K"});
    // A batched kernel's maps step forward a batch element at a time.
    if (t.batched) {
      c.positiveRowStride.push_back({"stride_ab", "batch"});
      c.positiveRowStride.push_back({"stride_bb", "batch"});
    }
  }
  if (t.persistent)
    c.maxWorkTiles = kMax32BitOffset - t.smCount;
  if (t.indexBitwidth == 32) {
    c.maxSize = kMax32BitSize;
    c.maxOffset = kMax32BitOffset;
  }
  return c;
}

OperandChecks mlir::gpupoor::policy::cTensorMapChecks(bool batched) {
  OperandChecks c;
  c.unitStride = {"stride_cn"};
  c.strideMultipleOf8 = {"stride_cm", "N"};
  c.pointerAligned16 = {"c_ptr"};
  c.positiveRowStride = {{"stride_cm", "M"}};
  // A batched C's map steps a batch element at a time.
  if (batched) {
    c.strideMultipleOf8.push_back("stride_cb");
    c.positiveRowStride.push_back({"stride_cb", "batch"});
  }
  return c;
}

namespace {
/// The parameter values, each read by name (a missing one is the
/// launcher's bug, reported as a violation rather than read as 0).
struct Args {
  const std::map<std::string, int64_t> &values;
  std::optional<std::string> missing;

  int64_t operator()(const std::string &name) {
    auto it = values.find(name);
    if (it != values.end())
      return it->second;
    if (!missing)
      missing = name;
    return 0;
  }
  bool has(const std::string &name) const { return values.count(name); }
};
} // namespace

OffsetBounds mlir::gpupoor::policy::offsetBounds(int64_t epilogueInputs) {
  OffsetBounds bounds;
  bounds.ranged = {"M",         "N",         "K",
                   "stride_am", "stride_ak", "stride_bk",
                   "stride_bn", "stride_cm", "stride_cn"};
  bounds.views = {{"A", "M", "stride_am", "K", "stride_ak"},
                  {"B", "K", "stride_bk", "N", "stride_bn"},
                  {"C", "M", "stride_cm", "N", "stride_cn"}};
  // The kernel reads epilogue operands as M x N views.
  for (int64_t i = 0; i < epilogueInputs; ++i) {
    std::string in = "in" + std::to_string(i);
    bounds.ranged.push_back("stride_" + in + "m");
    bounds.ranged.push_back("stride_" + in + "n");
    bounds.views.push_back(
        {in, "M", "stride_" + in + "m", "N", "stride_" + in + "n"});
  }
  return bounds;
}

/// The bounds of a 32-bit kernel (OperandChecks::maxSize, maxOffset).
static std::optional<std::string> check32Bit(const OperandChecks &c,
                                             const CheckedKernel &kernel,
                                             Args &arg, int64_t slices) {
  int64_t top = *c.maxSize, most = *c.maxOffset;
  int64_t inputs = 0;
  while (arg.has("in" + std::to_string(inputs) + "_ptr"))
    ++inputs;
  OffsetBounds bounds = offsetBounds(inputs);
  for (const std::string &name : bounds.ranged)
    if (int64_t value = arg(name); value < 0 || value > top)
      return name + " = " + std::to_string(value) + " is outside [0, " +
             std::to_string(top) + "] (32-bit kernel)";
  // (Below 2^62 each, the sizes and strides checked.)
  for (const OffsetView &v : bounds.views)
    if ((arg(v.rows) - 1) * arg(v.rowStride) +
            (arg(v.cols) - 1) * arg(v.colStride) >
        most)
      return v.what + "'s last element offset passes " + std::to_string(most) +
             " (32-bit kernel)";
  int64_t n = arg("N"), m = arg("M");
  if (ceilDiv(n, kernel.tile[1]) * kernel.groupM > most)
    return std::string("N is too large for the 32-bit kernel's block order");
  if (slices > 1) {
    // Every batch element's tiles (saturating: tileCount).
    int64_t tiles = tileCount(arg.has("batch") ? arg("batch") : 1, m, n,
                              kernel.tile[0], kernel.tile[1]);
    if (tiles > most / slices / (kernel.sliceSumElems + 4))
      return std::string("the slice sums pass 2^31 elements (32-bit kernel)");
  }
  return std::nullopt;
}

std::optional<std::string> mlir::gpupoor::policy::violation(
    const OperandChecks &c, const CheckedKernel &kernel,
    const std::map<std::string, int64_t> &values, int64_t slices) {
  Args arg{values, std::nullopt};
  std::optional<std::string> why = [&]() -> std::optional<std::string> {
    for (const std::string &name : c.unitStride)
      if (int64_t v = arg(name); v != 1)
        return name + " = " + std::to_string(v) + ", not 1";
    for (const std::string &name : c.strideMultipleOf8)
      if (int64_t v = arg(name); v % 8)
        return name + " = " + std::to_string(v) + " is not a multiple of 8";
    for (const std::string &name : c.pointerAligned16)
      if (arg(name) % 16)
        return name + " is not 16-byte aligned";
    for (const auto &[stride, rows] : c.positiveRowStride)
      if (arg(stride) <= 0 && arg(rows) > 1)
        return stride + " = " + std::to_string(arg(stride)) + " with " + rows +
               " = " + std::to_string(arg(rows)) +
               " rows (a tensor map needs a positive row stride)";
    if (c.maxWorkTiles) {
      // Saturating (tileCount): the sizes are any the launcher passes.
      int64_t tiles = tileCount(arg.has("batch") ? arg("batch") : 1, arg("M"),
                                arg("N"), kernel.tile[0], kernel.tile[1]);
      if (tiles > *c.maxWorkTiles)
        return std::to_string(tiles) +
               " work tiles pass the persistent "
               "kernel's " +
               std::to_string(*c.maxWorkTiles);
    }
    if (c.maxSize && c.maxOffset)
      return check32Bit(c, kernel, arg, slices);
    return std::nullopt;
  }();
  if (arg.missing)
    return "the launcher passes no " + *arg.missing;
  return why;
}
