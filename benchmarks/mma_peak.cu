// Ceilings of the mma.sync path on the GPU at hand: the rate of
// mma.sync.m16n8k16 with f16 and with f32 accumulators from registers alone,
// and the rate of ldmatrix.x4 from shared memory. These bound what any
// mma.sync GEMM kernel (ours included) can reach; wgmma is not used here.
//
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 benchmarks/mma_peak.cu -o mma_peak
//   ./mma_peak
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(e));                                     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kChains = 8; // independent accumulators per warp
constexpr int kIters = 4096;

// One m16n8k16 accumulator of a lane, f16 or f32.
struct F16Acc {
  unsigned r[2] = {};
  __device__ void mma(unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                      unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                 "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                 : "+r"(r[0]), "+r"(r[1])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  __device__ unsigned bits() const { return r[0] ^ r[1]; }
};
struct F32Acc {
  float r[4] = {};
  __device__ void mma(unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                      unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(r[0]), "+f"(r[1]), "+f"(r[2]), "+f"(r[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  __device__ unsigned bits() const {
    return __float_as_uint(r[0] + r[1] + r[2] + r[3]);
  }
};

// `Chains` independent accumulators per lane, fed from registers alone.
template <typename Acc, int Chains = kChains>
__global__ void mmaPeak(unsigned *out, unsigned seed) {
  unsigned a0 = seed ^ threadIdx.x, a1 = a0 * 3, a2 = a0 * 5, a3 = a0 * 7;
  unsigned b0 = a0 * 11, b1 = a0 * 13;
  Acc c[Chains];
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int j = 0; j < Chains; ++j)
      c[j].mma(a0, a1, a2, a3, b0, b1);
  }
  unsigned s = 0;
  for (int j = 0; j < Chains; ++j)
    s ^= c[j].bits();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// ldmatrix.x4 from a 16 KiB shared buffer, conflict-free addresses.
__global__ void ldsm(unsigned *out) {
  __shared__ __align__(16) unsigned char buf[16384];
  for (int i = threadIdx.x; i < 16384 / 4; i += blockDim.x)
    reinterpret_cast<unsigned *>(buf)[i] = i;
  __syncthreads();
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(buf)) +
                  ((warp * 32 + lane) % 64) * 128 + (lane % 8) * 16;
  unsigned s = 0;
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      unsigned r0, r1, r2, r3;
      unsigned addr = base ^ ((j * 16) & 127);
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, "
                   "[%4];"
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                   : "r"(addr));
      s ^= r0 ^ r1 ^ r2 ^ r3;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <typename F>
float timeIt(F launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  launch(); // warm-up
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = ms < best ? ms : best;
  }
  CHECK(cudaGetLastError());
  return best;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  std::printf("device: %s, %d SMs\n", prop.name, sms);
  unsigned *out;
  CHECK(cudaMalloc(&out, sizeof(unsigned) * sms * 64 * 1024));
  for (int warps : {4, 8, 16}) {
    int blocks = sms * 4, threads = warps * 32;
    double mmas = double(blocks) * warps * kIters * kChains;
    float f16 = timeIt([&] { mmaPeak<F16Acc><<<blocks, threads>>>(out, 1); });
    float f32 = timeIt([&] { mmaPeak<F32Acc><<<blocks, threads>>>(out, 1); });
    std::printf("mma.sync m16n8k16, %2d warps/block, 4 blocks/SM: f16 acc "
                "%.1f TFLOP/s, f32 acc %.1f TFLOP/s\n",
                warps, mmas * 4096 / f16 / 1e9, mmas * 4096 / f32 / 1e9);
  }
  // One block per SM (the grid is one wave): the rate against warps per
  // scheduler and independent accumulator chains per warp, as a GEMM main
  // loop with 1 or 2 warps per scheduler sees it.
  for (int warps : {4, 8, 16}) {
    int threads = warps * 32;
    auto rate = [&](auto kernel, int chains) {
      float ms = timeIt([&] { kernel<<<sms, threads>>>(out, 1); });
      return double(sms) * warps * kIters * chains * 4096 / ms / 1e9;
    };
    std::printf("one block/SM, %d warps/scheduler, f16 acc: 4 chains %.1f, 8 "
                "chains %.1f, 16 chains %.1f, 32 chains %.1f TFLOP/s\n",
                warps / 4, rate(mmaPeak<F16Acc, 4>, 4),
                rate(mmaPeak<F16Acc, 8>, 8), rate(mmaPeak<F16Acc, 16>, 16),
                rate(mmaPeak<F16Acc, 32>, 32));
  }
  {
    int blocks = sms * 4, threads = 256;
    double bytes = double(blocks) * 8 * kIters * 8 * 512;
    float ms = timeIt([&] { ldsm<<<blocks, threads>>>(out); });
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    std::printf("ldmatrix.x4: %.1f TB/s shared (%.1f B/clk/SM at %d MHz)\n",
                bytes / ms / 1e9, bytes / ms / sms / khz, khz / 1000);
  }
  CHECK(cudaFree(out));
  return 0;
}
