//===- operands.h - the operands a call launches on -------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The copies gpupoor::split_k_matmul makes of its operands before it
// launches: one function (launchOperands) that the call and describe_plan
// both run.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_PYTHON_OPERANDS_H
#define GPUPOOR_PYTHON_OPERANDS_H

#include "library.h"

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace gpupoor::package {

/// launchOperands' operands, and whether it copied A stored K x M into
/// M x K (then VariantKey::aCopiedFromKM).
struct LaunchOperands {
  at::Tensor a, b;
  bool aCopiedFromKM = false;
};

/// The operands a call of A (M x K) times B (K x N) launches on, on a
/// device of `info`'s chips: A stored K x M copied M x K where the policy's
/// launch does not read it as it lies (policy::copiesKMajorA; off sm_90a,
/// its rows off 16 bytes), else, its rows off 16 bytes, copied as it lies
/// into padded rows (policy::Strategy::padsA); operands whose rows lie off
/// 16 bytes copied into padded rows where policy::copiesUnalignedOperands
/// says the copy pays, and a single row's stride made dense.
/// gpupoor::split_k_matmul launches on them and describe_plan plans on them.
/// Host tensors are copied by torch.
/// `info` null: A's device's (deviceInfo), looked up only for A as K x M.
LaunchOperands launchOperands(at::Tensor a, at::Tensor b, int64_t slices,
                              int64_t maxSplits,
                              const DeviceInfo *info = nullptr);

/// Which calls copy unaligned operands into padded rows: those
/// policy::copiesUnalignedOperands names (Policy), or, for
/// benchmarks/force_choice.py's `nopad` and `pad`, none or every one.
enum class UnalignedCopies { Policy, Never, Always };
void setUnalignedCopies(UnalignedCopies copies);

/// Whether the fast kernels read `t`'s rows as they lie (start, row and
/// batch strides on 16 bytes: policy::rowAlignBytes); else a launch on it
/// reads it by the element kernels.
bool rowsAligned(const at::Tensor &t);

/// A copy of `t` with unit stride along its last dimension (`alongLast`)
/// or the one before, in a fresh allocation whose rows are padded as
/// policy::paddedRowElems says: the view the fast kernels read.
at::Tensor paddedRows(const at::Tensor &t, bool alongLast);

} // namespace gpupoor::package

#endif // GPUPOOR_PYTHON_OPERANDS_H
