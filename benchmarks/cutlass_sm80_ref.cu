// Reference point for the mma.sync path: CUTLASS's own Ampere (sm_80,
// mma.sync + cp.async + ldmatrix) GEMM kernels, timed beside cuBLAS in one
// process on the GPU at hand. CUTLASS is not part of gpupoor: fetch it and
// point -I at its include/ folder. One configuration per build:
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 \
//     -I CUTLASS/include -DBM=128 -DBN=256 -DBK=32 -DWM=64 -DWN=64 \
//     -DSTAGES=3 -DACC=cutlass::half_t benchmarks/cutlass_sm80_ref.cu \
//     -lcublas -o ref && ./ref 4096 4096 4096
//
// Prints TFLOP/s (CUDA events around batches of 10 launches, median of 30
// batches, three rotating sets of random inputs) for the CUTLASS kernel,
// cuBLAS with f32 accumulation and cuBLAS with f16 accumulation, and the
// CUTLASS kernel's relative Frobenius error against cuBLAS f32.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include "cutlass/gemm/device/gemm.h"

#define CHECK(x)                                                               \
  do {                                                                         \
    auto err_ = (x);                                                           \
    if (err_ != 0) {                                                           \
      std::fprintf(stderr, "%s:%d: error %d\n", __FILE__, __LINE__,            \
                   int(err_));                                                 \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

using Acc = ACC;
using Gemm = cutlass::gemm::device::Gemm<
    cutlass::half_t, cutlass::layout::RowMajor, cutlass::half_t,
    cutlass::layout::RowMajor, cutlass::half_t, cutlass::layout::RowMajor, Acc,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<BM, BN, BK>, cutlass::gemm::GemmShape<WM, WN, BK>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<cutlass::half_t, 8, Acc, Acc>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, STAGES>;

__global__ void fillRandom(__half *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    // Sum of four uniforms: roughly normal, never zero-heavy.
    float u = ((h & 255) + ((h >> 8) & 255) + ((h >> 16) & 255) + (h >> 24)) /
                  255.0f -
              2.0f;
    p[i] = __float2half(u);
  }
}

template <typename F> double medianMs(F launch) {
  cudaEvent_t s, e;
  CHECK(cudaEventCreate(&s));
  CHECK(cudaEventCreate(&e));
  for (int i = 0; i < 20; ++i)
    launch(i);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < 30; ++r) {
    CHECK(cudaEventRecord(s));
    for (int i = 0; i < 10; ++i)
      launch(r * 10 + i);
    CHECK(cudaEventRecord(e));
    CHECK(cudaEventSynchronize(e));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, s, e));
    t.push_back(ms / 10);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  int m = argc > 1 ? std::atoi(argv[1]) : 4096;
  int n = argc > 2 ? std::atoi(argv[2]) : m;
  int k = argc > 3 ? std::atoi(argv[3]) : m;
  constexpr int kSets = 3;
  __half *a[kSets], *b[kSets], *c, *ref;
  for (int i = 0; i < kSets; ++i) {
    CHECK(cudaMalloc(&a[i], sizeof(__half) * m * k));
    CHECK(cudaMalloc(&b[i], sizeof(__half) * k * n));
    fillRandom<<<1024, 256>>>(a[i], size_t(m) * k, 2 * i + 1);
    fillRandom<<<1024, 256>>>(b[i], size_t(k) * n, 2 * i + 2);
  }
  CHECK(cudaMalloc(&c, sizeof(__half) * m * n));
  CHECK(cudaMalloc(&ref, sizeof(__half) * m * n));
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));

  Gemm gemm;
  auto runCutlass = [&](int i) {
    int s = i % kSets;
    typename Gemm::Arguments args(
        {m, n, k}, {reinterpret_cast<cutlass::half_t *>(a[s]), k},
        {reinterpret_cast<cutlass::half_t *>(b[s]), n},
        {reinterpret_cast<cutlass::half_t *>(c), n},
        {reinterpret_cast<cutlass::half_t *>(c), n}, {Acc(1), Acc(0)});
    CHECK(int(gemm(args)));
  };
  // Row-major C = A B is column-major C^T = B^T A^T.
  auto runCublas = [&](int i, cublasComputeType_t compute, __half *out) {
    int s = i % kSets;
    float one = 1, zero = 0;
    __half hone = 1, hzero = 0;
    bool f16 = compute == CUBLAS_COMPUTE_16F;
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                       f16 ? (void *)&hone : (void *)&one, b[s], CUDA_R_16F,
                       n, a[s], CUDA_R_16F, k,
                       f16 ? (void *)&hzero : (void *)&zero, out, CUDA_R_16F,
                       n, compute, CUBLAS_GEMM_DEFAULT));
  };
  double flops = 2.0 * m * n * k;
  double tc = medianMs(runCutlass);
  double t32 = medianMs([&](int i) { runCublas(i, CUBLAS_COMPUTE_32F, c); });
  double t16 = medianMs([&](int i) { runCublas(i, CUBLAS_COMPUTE_16F, c); });
  runCutlass(0);
  runCublas(0, CUBLAS_COMPUTE_32F, ref);
  CHECK(cudaDeviceSynchronize());
  std::vector<__half> hc(size_t(m) * n), hr(size_t(m) * n);
  CHECK(cudaMemcpy(hc.data(), c, hc.size() * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hr.data(), ref, hr.size() * 2, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (size_t i = 0; i < hc.size(); ++i) {
    double d = double(__half2float(hc[i])) - __half2float(hr[i]);
    num += d * d;
    den += double(__half2float(hr[i])) * __half2float(hr[i]);
  }
  std::printf("cutlass sm80 %dx%dx%d warp %dx%d stages %d acc %s  %dx%dx%d: "
              "cutlass %.1f  cublas32 %.1f  cublas16 %.1f TFLOP/s  ratio "
              "%.3f  err %.2e\n",
              BM, BN, BK, WM, WN, STAGES, sizeof(Acc) == 2 ? "f16" : "f32", m,
              n, k, flops / tc / 1e9, flops / t32 / 1e9, flops / t16 / 1e9,
              t32 / tc, std::sqrt(num / den));
  return 0;
}
