//===- launcher.h - the mlir backend's launcher --------------------*- C++
//-*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Launches the kernel library's kernels for gpupoor::split_k_matmul: the
// policy (lib/Policy) chooses the kernel family, splits, slices and grid, the
// manifest's checks choose the kernel of the variant, and the launch goes
// through the CUDA driver (lib/Runtime/Driver.cpp). Where the library's
// variants are (the package's directory, GPUPOOR_KERNEL_DIR, the compile
// cache) is the Python package's business: a resolver it registers
// (set_resolver) is asked once per device and variant.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_PYTHON_LAUNCHER_H
#define GPUPOOR_PYTHON_LAUNCHER_H

#include "library.h"

#include <ATen/core/Tensor.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

namespace gpupoor::package {

/// The variant key of a call: A's and B's layouts from their strides (of
/// their last two dimensions; rank 3: a batch), the epilogue from the bias
/// and the activation ("none", "relu", "gelu").
VariantKey variantKey(const at::Tensor &a, const at::Tensor &b, bool hasBias,
                      const std::string &activation, bool f16Outer, bool f32Out,
                      int64_t maxSplits);

/// The backend a call on CUDA device `device` gets without one: the one
/// $GPUPOOR_BACKEND names ("mlir" or "triton"; ValueError for another), else
/// "mlir" where the kernel library has kernels for the device (the
/// resolver's chips for it), else "triton".
std::string defaultBackend(int device);

/// C = epilogue(A @ B [+ bias]) on the current stream of A's device: A
/// M x K and B K x N f16 views of any strides, C M x N of key.f32Out's type
/// (key.batched: batch x M x K, batch x K x N and batch x M x N, batch > 0),
/// bias (N) of C's type or none (an activation without a bias runs its
/// bias_* variant with a bias of -0.0). M, N, K > 0.
void launch(const at::Tensor &a, const at::Tensor &b,
            const std::optional<at::Tensor> &bias, const at::Tensor &c,
            const VariantKey &key, int64_t slices);

/// The launcher's Python bindings: set_resolver, and describe_plan (the
/// plan of a launch without launching, for tests).
void bindLauncher(pybind11::module_ &m);

/// The operator's Python bindings (ops.cpp): split_k_sequential's eager
/// entry.
void bindOps(pybind11::module_ &m);

} // namespace gpupoor::package

#endif // GPUPOOR_PYTHON_LAUNCHER_H
