//===- loader.cpp - kernels loaded through the CUDA driver ----------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "loader.h"

#include <c10/util/Exception.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

namespace gpupoor::package {

void check(CUresult result, const std::string &what) {
  TORCH_CHECK(result == CUDA_SUCCESS, what,
              " failed: ", runtime::errorText(result));
}

const runtime::DriverApi &api() {
  const runtime::DriverApi *d = runtime::driver();
  TORCH_CHECK(d, "gpupoor: the CUDA driver (libcuda.so.1) did not load");
  return *d;
}

PrimaryContext::PrimaryContext(int device) {
  CUdevice dev;
  check(api().deviceGet(&dev, device), "cuDeviceGet");
  CUcontext ctx;
  // Each retain is kept: the primary context lives as long as the process.
  check(api().primaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(api().ctxPushCurrent(ctx), "cuCtxPushCurrent");
}

PrimaryContext::~PrimaryContext() {
  CUcontext ctx;
  api().ctxPopCurrent(&ctx);
}

CUfunction LoadedKernel::function(int device) {
  std::lock_guard<std::mutex> guard(lock);
  auto it = functions.find(device);
  if (it != functions.end())
    return it->second;
  CUdevice dev;
  check(api().deviceGet(&dev, device), "cuDeviceGet");
  check(
      api().kernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               sharedBytes, kernel, dev),
      "cuKernelSetAttribute(" + name + ", " + std::to_string(sharedBytes) +
          " bytes of shared memory)");
  CUfunction fn;
  {
    PrimaryContext context(device);
    check(api().kernelGetFunction(&fn, kernel), "cuKernelGetFunction");
  }
  return functions.emplace(device, fn).first->second;
}

namespace {
std::mutex loadMutex;
std::map<std::pair<std::string, std::string>, std::unique_ptr<LoadedKernel>>
    loadedKernels;
} // namespace

bool dependentLaunches() {
  const char *env = std::getenv("GPUPOOR_DEPENDENT_LAUNCH");
  return !env || std::string(env) != "0";
}

LoadedKernel &load(const KernelInfo &info) {
  std::lock_guard<std::mutex> guard(loadMutex);
  auto &slot = loadedKernels[{info.image, info.name}];
  if (slot)
    return *slot;
  std::ifstream file(info.image, std::ios::binary);
  TORCH_CHECK(file, "gpupoor: cannot read the kernel image ", info.image);
  std::vector<char> image((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  // PTX (a library built with --ptx) is text: it must end in a NUL.
  if (info.image.size() > 4 &&
      info.image.compare(info.image.size() - 4, 4, ".ptx") == 0)
    image.push_back('\0');
  auto kernel = std::make_unique<LoadedKernel>();
  CUlibrary library;
  check(api().libraryLoadData(&library, image.data(), nullptr, nullptr, 0,
                              nullptr, nullptr, 0),
        "cuLibraryLoadData(" + info.image + ")");
  check(api().libraryGetKernel(&kernel->kernel, library, info.name.c_str()),
        "cuLibraryGetKernel(" + info.name + ")");
  kernel->sharedBytes = info.sharedBytes;
  kernel->block = info.block;
  kernel->dependent =
      info.dependent && dependentLaunches() && api().launchKernelEx;
  kernel->name = info.name;
  slot = std::move(kernel);
  return *slot;
}

} // namespace gpupoor::package
