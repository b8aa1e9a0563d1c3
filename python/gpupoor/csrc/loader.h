//===- loader.h - kernels loaded through the CUDA driver --------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_PYTHON_LOADER_H
#define GPUPOOR_PYTHON_LOADER_H

#include "library.h"

#include "gpupoor/Runtime/Driver.h"

#include <map>
#include <mutex>
#include <string>

namespace gpupoor::package {

/// TORCH_CHECK that a driver call succeeded, naming it and the error.
void check(CUresult result, const std::string &what);

/// The driver; RuntimeError where it did not load.
const runtime::DriverApi &api();

/// Makes `device`'s primary context, the one PyTorch's runtime calls use,
/// current for a scope.
class PrimaryContext {
public:
  explicit PrimaryContext(int device);
  ~PrimaryContext();
};

/// A kernel of a cubin (or PTX, which the driver compiles for the device),
/// loaded once per process as a context-independent library; each device
/// gets its function and its shared-memory attribute at its first launch.
struct LoadedKernel {
  CUkernel kernel = nullptr;
  unsigned sharedBytes = 0, block = 0;
  /// Launched with programmatic stream serialization (the manifest's
  /// dependent_launch, unless GPUPOOR_DEPENDENT_LAUNCH=0 or the driver lacks
  /// cuLaunchKernelEx).
  bool dependent = false;
  std::string name;

  CUfunction function(int device);

private:
  std::mutex lock;
  std::map<int, CUfunction> functions;
};

/// Whether kernels that allow it launch with programmatic stream
/// serialization: GPUPOOR_DEPENDENT_LAUNCH, default on.
bool dependentLaunches();

/// The process's loaded kernel of `info`.
LoadedKernel &load(const KernelInfo &info);

} // namespace gpupoor::package

#endif // GPUPOOR_PYTHON_LOADER_H
