//===- PolicyUtils.h - arithmetic the policy's rules share ------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_LIB_POLICY_POLICYUTILS_H
#define GPUPOOR_LIB_POLICY_POLICYUTILS_H

#include <cstdint>

namespace mlir::gpupoor::policy {

/// ceil(a / b) for a >= 0, b > 0, without overflowing near INT64_MAX.
inline int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

} // namespace mlir::gpupoor::policy

#endif // GPUPOOR_LIB_POLICY_POLICYUTILS_H
