//===- Driver.cpp - tensor maps and launches on the CUDA driver -----------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Runtime/Driver.h"

#include <cstdint>
#include <dlfcn.h>

namespace gpupoor::runtime {

namespace {

// cuda.h maps API names to versioned symbols (cuCtxPushCurrent is
// cuCtxPushCurrent_v2): look up the name the macro expands to.
#define GPUPOOR_SYMBOL_NAME(name) #name
#define GPUPOOR_SYMBOL(name) GPUPOOR_SYMBOL_NAME(name)

template <typename Fn> bool bind(void *library, Fn &fn, const char *name) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

DriverApi *open() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!library)
    return nullptr;
  static DriverApi api;
  bool ok = true;
#define GPUPOOR_BIND(field, name)                                              \
  ok &= bind(library, api.field, GPUPOOR_SYMBOL(name))
  GPUPOOR_BIND(init, cuInit);
  GPUPOOR_BIND(getErrorName, cuGetErrorName);
  GPUPOOR_BIND(getErrorString, cuGetErrorString);
  GPUPOOR_BIND(deviceGet, cuDeviceGet);
  GPUPOOR_BIND(primaryCtxRetain, cuDevicePrimaryCtxRetain);
  GPUPOOR_BIND(ctxPushCurrent, cuCtxPushCurrent);
  GPUPOOR_BIND(ctxPopCurrent, cuCtxPopCurrent);
  GPUPOOR_BIND(libraryLoadData, cuLibraryLoadData);
  GPUPOOR_BIND(libraryGetKernel, cuLibraryGetKernel);
  GPUPOOR_BIND(kernelSetAttribute, cuKernelSetAttribute);
  GPUPOOR_BIND(kernelGetFunction, cuKernelGetFunction);
  GPUPOOR_BIND(funcSetAttribute, cuFuncSetAttribute);
  GPUPOOR_BIND(launchKernel, cuLaunchKernel);
#undef GPUPOOR_BIND
  // Optional: older drivers lack them.
  bind(library, api.launchKernelEx, GPUPOOR_SYMBOL(cuLaunchKernelEx));
  bind(library, api.tensorMapEncodeTiled,
       GPUPOOR_SYMBOL(cuTensorMapEncodeTiled));
  if (!ok || api.init(0) != CUDA_SUCCESS)
    return nullptr;
  return &api;
}

} // namespace

const DriverApi *driver() {
  static const DriverApi *api = open();
  return api;
}

std::string errorText(CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (const DriverApi *api = driver()) {
    api->getErrorName(result, &name);
    api->getErrorString(result, &text);
  }
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(": ") + text;
  return out;
}

TensorMapSpec operandMap(int64_t k, int64_t rows, int64_t rowStride,
                         unsigned boxK, unsigned boxRows, int64_t batch,
                         int64_t batchStride) {
  auto dim = [](int64_t d) { return uint64_t(d > 0 ? d : 1); };
  auto strideBytes = [](int64_t s) { return uint64_t(s > 0 ? s : 8) * 2; };
  TensorMapSpec spec;
  spec.rank = batch >= 0 ? 3 : 2;
  spec.dims[0] = dim(k);
  spec.dims[1] = dim(rows);
  spec.dims[2] = dim(batch);
  // With K = 0 or one row, the rows are never stepped (the kernel loads
  // nothing, or one row): any stride describes them, and TMA takes
  // multiples of 16 bytes only (an empty (16, 0) tensor's row stride is 1).
  spec.strideBytes[0] = k > 0 && rows > 1 ? strideBytes(rowStride) : 16;
  spec.strideBytes[1] = strideBytes(batchStride);
  spec.box[0] = boxK;
  spec.box[1] = boxRows;
  spec.swizzle = swizzleOfBoxBytes(int64_t{boxK} * 2);
  return spec;
}

CUtensorMapSwizzle swizzleOfBoxBytes(int64_t bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

bool boxRowSwizzleFits(CUtensorMapSwizzle swizzle, int64_t bytes) {
  if (bytes == 16)
    return swizzle == CU_TENSOR_MAP_SWIZZLE_NONE;
  return swizzle != CU_TENSOR_MAP_SWIZZLE_NONE &&
         swizzle == swizzleOfBoxBytes(bytes);
}

CUtensorMapL2promotion l2PromotionOfBytes(int64_t bytes) {
  switch (bytes) {
  case 64:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case 128:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  case 256:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  default:
    return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  }
}

CUtensorMapL2promotion l2PromotionFor(const TensorMapSpec &spec,
                                      const void *global) {
  // Rows that start off a 32-byte sector (16-byte aligned, as TMA needs, but
  // not 32): a box row's bytes then straddle sectors, and promoting each
  // fetch to 128 or 256 bytes cost more than it saved (measured:
  // benchmarks/data/row_alignment_sm_90a.txt).
  auto address = reinterpret_cast<uintptr_t>(global);
  bool offSector = address % 32 != 0 || (spec.rank > 1 && spec.dims[1] > 1 &&
                                         spec.strideBytes[0] % 32 != 0);
  if (offSector && (spec.l2Promotion == CU_TENSOR_MAP_L2_PROMOTION_L2_128B ||
                    spec.l2Promotion == CU_TENSOR_MAP_L2_PROMOTION_L2_256B))
    return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  return spec.l2Promotion;
}

std::optional<TensorMapSpec> groupedRows(const TensorMapSpec &spec) {
  // A box of whole rows of 16 bytes, rows 16 bytes apart, is one run of
  // bytes, and so is each eighth row's 128 bytes on: TMA then fetches a
  // box's 2048 bytes in 16 requests rather than 128. Eight rows at a time
  // are in bounds or out of bounds together (rows % 8 == 0, and the kernels
  // step rows by whole boxes of a multiple of 8: their K offsets), so the
  // zero fill past the last row is the same too. The tensor's rows overlap
  // (a row of 64 elements, rows 16 bytes apart); only the first rows - 7
  // are in bounds, the last of them ending at the tensor's last byte.
  bool plainRows = spec.swizzle == CU_TENSOR_MAP_SWIZZLE_NONE &&
                   spec.box[0] == 8 && spec.dims[0] == 8 &&
                   spec.strideBytes[0] == 16 && spec.elementStrides[0] == 1 &&
                   spec.elementStrides[1] == 1;
  if (!plainRows || spec.dims[1] < 8 || spec.dims[1] % 8 != 0 ||
      spec.box[1] % 8 != 0 || (spec.rank == 3 && spec.elementStrides[2] != 1))
    return std::nullopt;
  TensorMapSpec grouped = spec;
  grouped.dims[0] = 64;
  grouped.dims[1] = spec.dims[1] - 7;
  grouped.box[0] = 64;
  grouped.elementStrides[1] = 8;
  return grouped;
}

TensorMapSpec encodedSpec(const TensorMapSpec &spec, const void *global) {
  std::optional<TensorMapSpec> grouped = groupedRows(spec);
  TensorMapSpec encoded = grouped ? *grouped : spec;
  // Grouped, the map's fetches are runs of 128 bytes, 128 bytes apart.
  TensorMapSpec fetched = spec;
  if (grouped)
    fetched.strideBytes[0] = 128;
  encoded.l2Promotion = l2PromotionFor(fetched, global);
  return encoded;
}

CUresult encodeTensorMap(CUtensorMap *map, const TensorMapSpec &spec,
                         void *global) {
  // The kernels' shared tiles are rows of one swizzle span each (or
  // unswizzled rows of 16 bytes): a map whose box row is not (a manifest's
  // or caller's mismatch) would load another layout than the kernel reads.
  if (spec.dataType != CU_TENSOR_MAP_DATA_TYPE_FLOAT16 ||
      !boxRowSwizzleFits(spec.swizzle, int64_t{spec.box[0]} * 2))
    return CUDA_ERROR_INVALID_VALUE;
  const DriverApi *api = driver();
  if (!api)
    return CUDA_ERROR_NO_DEVICE;
  if (!api->tensorMapEncodeTiled)
    return CUDA_ERROR_NOT_SUPPORTED;
  TensorMapSpec encoded = encodedSpec(spec, global);
  return api->tensorMapEncodeTiled(
      map, encoded.dataType, encoded.rank, global, encoded.dims,
      encoded.strideBytes, encoded.box, encoded.elementStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, encoded.swizzle, encoded.l2Promotion,
      encoded.oobFill);
}

CUresult launchKernel(CUfunction function, const Launch &launch,
                      void **params) {
  const DriverApi *api = driver();
  if (!api)
    return CUDA_ERROR_NO_DEVICE;
  if (!launch.dependent || !api->launchKernelEx)
    return api->launchKernel(function, launch.grid[0], launch.grid[1],
                             launch.grid[2], launch.block[0], launch.block[1],
                             launch.block[2], launch.sharedBytes, launch.stream,
                             params, nullptr);
  CUlaunchAttribute attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config = {};
  config.gridDimX = launch.grid[0];
  config.gridDimY = launch.grid[1];
  config.gridDimZ = launch.grid[2];
  config.blockDimX = launch.block[0];
  config.blockDimY = launch.block[1];
  config.blockDimZ = launch.block[2];
  config.sharedMemBytes = launch.sharedBytes;
  config.hStream = launch.stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return api->launchKernelEx(&config, function, params, nullptr);
}

} // namespace gpupoor::runtime

// The C entry points of the runtime library for callers outside C++ (the GPU
// tests, through ctypes): the same encoder and launch.
extern "C" int gpupoorEncodeOperandMap(void *map, void *global, int64_t k,
                                       int64_t rows, int64_t rowStride,
                                       unsigned boxK, unsigned boxRows,
                                       int64_t batch, int64_t batchStride,
                                       int64_t l2PromotionBytes) {
  using namespace gpupoor::runtime;
  TensorMapSpec spec =
      operandMap(k, rows, rowStride, boxK, boxRows, batch, batchStride);
  spec.l2Promotion = l2PromotionOfBytes(l2PromotionBytes);
  return encodeTensorMap(static_cast<CUtensorMap *>(map), spec, global);
}

extern "C" int gpupoorLaunchKernel(void *function, unsigned gridX,
                                   unsigned gridY, unsigned block,
                                   unsigned sharedBytes, void *stream,
                                   void **params, int dependent) {
  using namespace gpupoor::runtime;
  Launch launch;
  launch.grid[0] = gridX;
  launch.grid[1] = gridY;
  launch.block[0] = block;
  launch.sharedBytes = sharedBytes;
  launch.stream = static_cast<CUstream>(stream);
  launch.dependent = dependent != 0;
  return launchKernel(static_cast<CUfunction>(function), launch, params);
}
