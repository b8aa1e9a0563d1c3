// read_floor.cu - how fast a kernel that only reads a decode product's weight
// can go, launched back to back as the decode kernels are.
//
//   nvcc -O3 -std=c++17 -arch=sm_90a -o read_floor benchmarks/read_floor.cu \
//     -L/usr/local/cuda/lib64/stubs -lcuda
//   ./read_floor
//
// For each weight (N x K f16, copies rotated past the L2) it times two kinds
// of read-only kernels (plain 16-byte loads), each launched with programmatic
// dependent launch (griddepcontrol.wait before the first load, the signal
// right after it), batches
// of 20 launches between CUDA events, the median of 40 batches:
//   - "stream": the grid reads the weight as one array, each thread 16-byte
//     loads a grid apart (the best of nine grids);
//   - "tiles": block b reads rows [R b, R b + R) over all of K, C bytes of
//     each row a step, about 96 KiB (64 KiB at R = 16) in flight a block:
//     the access pattern of a decode kernel whose tiles hold R weight rows
//     (gpupoor's swapped wgmma tile: R = 64, C = 128);
//   - "tma": the same rows read as gpupoor's TMA kernel reads them: one
//     thread of a block issues 2-D boxes of 64 columns by R rows (the
//     128-byte swizzle; C / 128 boxes a stage) into a ring of S stages
//     with an mbarrier each, and refills a stage once it has landed; with
//     "+ x" each stage also loads a box of 16 rows of a 1-row x (15 rows
//     zero-filled), as the decode kernel loads its activations; with
//     "3-D boxes" each operand's stage is one box of a 3-D view of it (64
//     columns, rows, K / 64 atoms), the same bytes in the same places with
//     one copy instruction instead of one a 64-column atom.
// Shares are of the copy bandwidth (a 1 GiB device-to-device copy, read and
// written bytes) measured first, as bench_skinny.py reports them.
//
//   ./read_floor kn
//
// reads weights stored K x N instead (x @ w's w, the swapped decode kernel's
// A read along its M): "K x N" kernels (tmaReadKN) read column tiles of W
// columns, BK rows a stage, beside the same bytes stored N x K in the
// swapped tile's row tiles, each at one or two blocks an SM.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t err = (x);                                                     \
    if (err != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(err));                                   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {

__device__ unsigned fold(uint4 v) { return v.x + v.y + v.z + v.w; }

// The weights are memset to 0x3c bytes, so a sum is 0 or 0xf0f0f0f0 and
// never this value; the compiler cannot know that, so the loads stay, and
// no store costs.
__device__ void keep(unsigned acc, unsigned *out) {
  if (acc == 0x12345678u)
    out[blockIdx.x] = acc;
}

__device__ void waitAndSignal() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
}

template <int U>
__global__ void streamRead(const uint4 *__restrict__ w, unsigned *out,
                           size_t n16) {
  waitAndSignal();
  size_t tid = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  size_t threads = size_t(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  for (size_t i = tid; i < n16; i += threads * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      size_t j = i + u * threads;
      v[u] = j < n16 ? __ldcs(w + j) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      acc ^= fold(v[u]);
  }
  keep(acc, out);
}

// 256 threads; C / 16 threads share a row's C bytes, so a pass covers
// 4096 / C rows and R rows take R * C / 4096 passes; `steps` steps of loads
// go out before their use, INFLIGHT loads of 16 bytes a thread. The host
// checks that R divides N and C divides a row's bytes: a dropped tail would
// be credited as read.
template <int C, int R, int INFLIGHT>
__global__ void __launch_bounds__(256)
    tileRead(const uint4 *__restrict__ w, unsigned *out, int k16) {
  constexpr int threadsPerRow = C / 16, rowsPerPass = 256 / threadsPerRow;
  constexpr int passes = R / rowsPerPass, steps = INFLIGHT / passes;
  static_assert(passes >= 1 && steps >= 1, "tile shape");
  waitAndSignal();
  int row = blockIdx.x * R + threadIdx.x / threadsPerRow;
  const uint4 *base =
      w + size_t(row) * k16 + threadIdx.x % threadsPerRow;
  int total = k16 / threadsPerRow;
  unsigned acc = 0;
  for (int s = 0; s < total; s += steps) {
    uint4 v[steps * passes];
#pragma unroll
    for (int g = 0; g < steps; ++g)
#pragma unroll
      for (int p = 0; p < passes; ++p)
        v[g * passes + p] =
            s + g < total ? __ldcs(base + size_t(p) * rowsPerPass * k16 +
                                   size_t(s + g) * threadsPerRow)
                          : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int i = 0; i < steps * passes; ++i)
      acc ^= fold(v[i]);
  }
  keep(acc, out);
}

__device__ unsigned sharedAddress(const void *p) {
  return unsigned(__cvta_generic_to_shared(p));
}

__device__ void loadBox(char *dst, const CUtensorMap *map, int col, int row,
                        uint64_t *full) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :
               : "r"(sharedAddress(dst)), "l"(map), "r"(col), "r"(row),
                 "r"(sharedAddress(full))
               : "memory");
}

__device__ void loadBox3(char *dst, const CUtensorMap *map, int atom, int row,
                         uint64_t *full) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
               :
               : "r"(sharedAddress(dst)), "l"(map), "r"(0), "r"(row),
                 "r"(atom), "r"(sharedAddress(full))
               : "memory");
}

// The ring a read-only TMA kernel streams through: S stages of `stageBytes`
// in dynamic shared memory (1024-byte aligned for the swizzle), an mbarrier
// each. One warp a block; its lane 0 issues `issue(step, stage, full)` for
// `steps` steps, refilling a stage once every lane has read it; returns the
// lanes' fold of what they read (keep).
template <int S, typename Issue>
__device__ unsigned streamRing(int stageBytes, int steps, Issue issue) {
  extern __shared__ char raw[];
  char *ring = reinterpret_cast<char *>(
      (reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  auto *full = reinterpret_cast<uint64_t *>(ring + S * stageBytes);
  bool issues = threadIdx.x == 0;
  if (issues) {
    for (int s = 0; s < S; ++s)
      asm volatile("mbarrier.init.shared.b64 [%0], 1;"
                   :
                   : "r"(sharedAddress(&full[s])));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncwarp();
  waitAndSignal();
  auto start = [&](int step) {
    int s = step % S;
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;"
                 :
                 : "r"(sharedAddress(&full[s])), "r"(stageBytes)
                 : "memory");
    issue(step, ring + s * stageBytes, &full[s]);
  };
  if (issues)
    for (int t = 0; t < S && t < steps; ++t)
      start(t);
  unsigned acc = 0;
  for (int t = 0; t < steps; ++t) {
    int s = t % S;
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared.b64 p, "
                 "[%0], %1; @!p bra W; }"
                 :
                 : "r"(sharedAddress(&full[s])), "r"((t / S) & 1)
                 : "memory");
    acc ^= *reinterpret_cast<volatile unsigned *>(ring + s * stageBytes +
                                                  threadIdx.x * 4);
    // Every lane has read the stage before it is refilled.
    __syncwarp();
    if (issues && t + S < steps)
      start(t + S);
  }
  return acc;
}

// A stage holds C / 128 boxes of R rows (and as many of XR rows of x).
template <int C, int R, int S, int XR, bool D3>
__global__ void __launch_bounds__(32)
    tmaRead(const __grid_constant__ CUtensorMap w,
            const __grid_constant__ CUtensorMap x, unsigned *out, int k) {
  constexpr int boxes = C / 128, stageBytes = (R + XR) * C;
  int row0 = blockIdx.x * R;
  auto issue = [&](int step, char *stage, uint64_t *full) {
    if constexpr (D3) {
      // One 3-D box a stage and operand: (64 columns, rows, atoms).
      loadBox3(stage, &w, step * boxes, row0, full);
      if (XR)
        loadBox3(stage + R * C, &x, step * boxes, 0, full);
    } else {
      for (int a = 0; a < boxes; ++a) {
        int col = step * (C / 2) + a * 64;
        loadBox(stage + a * R * 128, &w, col, row0, full);
        if (XR)
          loadBox(stage + R * C + a * XR * 128, &x, col, 0, full);
      }
    }
  };
  keep(streamRing<S>(stageBytes, k * 2 / C, issue), out);
}

// A weight stored K x N (`x @ w`'s w; the swapped decode kernel's A read
// along its M): block b reads columns [W c, W c + W) of rows [R p, R p + R),
// c = b % (N / W), p = b / (N / W), so adjacent blocks read adjacent columns;
// a stage is W / 64 boxes of 64 columns by BK rows.
template <int W, int BK, int S>
__global__ void __launch_bounds__(32)
    tmaReadKN(const __grid_constant__ CUtensorMap w, unsigned *out,
              int colTiles, int partRows) {
  int col0 = (blockIdx.x % colTiles) * W;
  int row0 = (blockIdx.x / colTiles) * partRows;
  auto issue = [&](int step, char *stage, uint64_t *full) {
    for (int a = 0; a < W / 64; ++a)
      loadBox(stage + a * BK * 128, &w, col0 + a * 64, row0 + step * BK,
              full);
  };
  keep(streamRing<S>(W * BK * 2, partRows / BK, issue), out);
}

template <int W, int BK, int S> struct KNShape {
  static constexpr int w = W, bk = BK, stages = S;
};

template <int C, int R, int S, int XR, bool D3 = false> struct TmaShape {
  static constexpr int c = C, r = R, stages = S, xRows = XR;
  static constexpr bool d3 = D3;
};

// A map of f16 at `p` with the 128-byte swizzle: `rank` dims (innermost
// first), rank - 1 byte strides, the box.
CUtensorMap encode(void *p, cuuint32_t rank, const cuuint64_t *dims,
                   const cuuint64_t *strides, const cuuint32_t *box) {
  CUtensorMap map;
  const cuuint32_t elementStrides[3] = {1, 1, 1};
  CUresult err = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rank, p, dims, strides, box,
      elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (err != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled (rank %u) failed: %d\n",
                 rank, int(err));
    std::exit(1);
  }
  return map;
}

// A 2-D map of `rows` x `k` f16 at `p` in boxes of 64 columns by `boxRows`.
CUtensorMap tensorMap(void *p, int rows, int k, int boxRows) {
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(k) * 2};
  const cuuint32_t box[2] = {64, cuuint32_t(boxRows)};
  return encode(p, 2, dims, strides, box);
}

// The same rows as a 3-D map (64 columns, rows, K / 64 atoms of 128 bytes),
// so that one box of (64, boxRows, atoms) lands as `atoms` consecutive 2-D
// boxes: the layout of the 2-D loads with one instruction. Needs K % 64 == 0.
CUtensorMap tensorMap3(void *p, int rows, int k, int boxRows, int atoms) {
  const cuuint64_t dims[3] = {64, cuuint64_t(rows), cuuint64_t(k / 64)};
  const cuuint64_t strides[2] = {cuuint64_t(k) * 2, 128};
  const cuuint32_t box[3] = {64, cuuint32_t(boxRows), cuuint32_t(atoms)};
  return encode(p, 3, dims, strides, box);
}

template <int C, int R, int INFLIGHT> struct TileShape {
  static constexpr int c = C, r = R, inflight = INFLIGHT;
};

template <typename... Args>
void launch(void (*kernel)(Args...), int grid, int threads, size_t smem,
            cudaStream_t s, Args... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = threads;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Bench {
  cudaStream_t stream;
  cudaEvent_t start, stop;

  Bench() {
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
  }

  // Microseconds a launch: `run(i)` launches on copy i of the operands.
  template <typename F> float time(F run) {
    int i = 0;
    for (; i < 5; ++i)
      run(i);
    std::vector<float> us;
    for (int batch = 0; batch < 40; ++batch) {
      CHECK(cudaEventRecord(start, stream));
      for (int j = 0; j < 20; ++j)
        run(i++);
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      us.push_back(ms * 1e3f / 20);
    }
    CHECK(cudaGetLastError());
    return median(us);
  }

  double copyBandwidth() {
    size_t bytes = size_t(1) << 30;
    void *src, *dst;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaMemset(src, 1, bytes));
    float us = time([&](int) {
      CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
    });
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    return 2.0 * bytes / (us * 1e3);
  }
};

// Copies of a weight of `bytes`, more than 400 MB of them, so that each
// launch (rotating through them) finds its weight in HBM.
std::vector<uint4 *> weightCopies(size_t bytes) {
  std::vector<uint4 *> w(std::max<int>(4, int(400e6 / bytes) + 1));
  for (uint4 *&p : w) {
    CHECK(cudaMalloc(&p, bytes));
    CHECK(cudaMemset(p, 0x3c, bytes));
  }
  return w;
}

} // namespace

// `read_floor kn`: weights stored K x N read in column tiles (tmaReadKN)
// beside the same bytes stored N x K read in row tiles (tmaRead), over K in
// `parts` runs a tile; blocks an SM held to `perSM` by shared memory.
static int knMain(Bench &bench, double copyGBs, unsigned *out) {
  const int shapes[][2] = {
      {13824, 5120}, {28672, 8192}, {10240, 8192}, {14336, 4096}};
  for (const auto &shape : shapes) {
    int n = shape[0], k = shape[1];
    size_t bytes = size_t(n) * k * 2;
    std::vector<uint4 *> w = weightCopies(bytes);
    int copies = int(w.size());
    auto report = [&](const char *what, int grid, float us) {
      std::printf("  %-52s %4d blocks: %7.2f us %6.0f GB/s (%.1f%%)\n", what,
                  grid, us, bytes / (us * 1e3),
                  100.0 * bytes / (us * 1e3) / copyGBs);
    };
    std::printf("\nweight %d x %d (%.1f MB, %d copies)\n", n, k, bytes / 1e6,
                copies);
    auto kn = [&](auto shape, int parts, int perSM) {
      using Shape = decltype(shape);
      constexpr int wc = Shape::w, bk = Shape::bk, st = Shape::stages;
      if (n % wc || k % (parts * bk))
        return;
      auto kernel = tmaReadKN<wc, bk, st>;
      size_t smem = std::max<size_t>(size_t(st) * wc * bk * 2 + 8 * st + 1024,
                                     size_t(220 * 1024 / perSM));
      CHECK(cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      std::vector<CUtensorMap> maps;
      for (uint4 *p : w) {
        const cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(k)};
        const cuuint64_t strides[1] = {cuuint64_t(n) * 2};
        const cuuint32_t box[2] = {64, cuuint32_t(bk)};
        maps.push_back(encode(p, 2, dims, strides, box));
      }
      int grid = n / wc * parts;
      float us = bench.time([&](int i) {
        launch(kernel, grid, 32, smem, bench.stream, maps[i % copies], out,
               n / wc, k / parts);
      });
      char what[96];
      std::snprintf(what, sizeof what,
                    "K x N: %3d columns, %3d rows a stage, %2d stages, "
                    "%d part%s, %d/SM",
                    wc, bk, st, parts, parts > 1 ? "s" : "", perSM);
      report(what, grid, us);
    };
    kn(KNShape<64, 128, 4>(), 1, 2);
    kn(KNShape<64, 128, 8>(), 1, 1);
    kn(KNShape<64, 64, 12>(), 1, 1);
    kn(KNShape<128, 64, 6>(), 1, 2);
    kn(KNShape<128, 64, 12>(), 1, 1);
    kn(KNShape<256, 64, 6>(), 1, 1);
    kn(KNShape<256, 64, 6>(), 2, 1);
    kn(KNShape<256, 64, 6>(), 4, 1);
    kn(KNShape<256, 32, 12>(), 2, 1);
    kn(KNShape<512, 32, 6>(), 4, 1);
    // The same bytes as N x K: the swapped tile of 64 weight rows, 256 bytes
    // a row a stage, as the decode kernels read a weight stored N x K.
    auto nk = [&](auto shape, int perSM) {
      using Shape = decltype(shape);
      constexpr int c = Shape::c, r = Shape::r;
      auto kernel = tmaRead<c, r, Shape::stages, 0, false>;
      size_t smem = std::max<size_t>(size_t(Shape::stages) * r * c +
                                         8 * Shape::stages + 1024,
                                     size_t(220 * 1024 / perSM));
      CHECK(cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      std::vector<CUtensorMap> maps;
      for (uint4 *p : w)
        maps.push_back(tensorMap(p, n, k, r));
      float us = bench.time([&](int i) {
        launch(kernel, n / r, 32, smem, bench.stream, maps[i % copies],
               maps[0], out, k);
      });
      char what[96];
      std::snprintf(what, sizeof what, "N x K: %2d rows, %3d B a row a stage, "
                    "%2d stages, %d/SM", r, c, Shape::stages, perSM);
      report(what, n / r, us);
    };
    nk(TmaShape<256, 64, 4, 0>(), 2);
    nk(TmaShape<256, 64, 8, 0>(), 1);
    for (uint4 *p : w)
      CHECK(cudaFree(p));
  }
  CHECK(cudaFree(out));
  return 0;
}

int main(int argc, char **argv) {
  Bench bench;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  double copyGBs = bench.copyBandwidth();
  std::printf("device: %s, %d SMs; copy bandwidth %.0f GB/s\n", prop.name, sms,
              copyGBs);
  unsigned *out;
  CHECK(cudaMalloc(&out, 1 << 20));
  if (argc > 1 && std::string(argv[1]) == "kn")
    return knMain(bench, copyGBs, out);
  const int shapes[][2] = {{2048, 5120}, {4096, 4096}, {4096, 14336},
                           {14336, 4096}};
  for (const auto &shape : shapes) {
    int n = shape[0], k = shape[1];
    size_t bytes = size_t(n) * k * 2;
    std::vector<uint4 *> w = weightCopies(bytes);
    int copies = int(w.size());
    auto share = [&](float us) { return 100.0 * bytes / (us * 1e3) / copyGBs; };
    std::printf("\nN x K = %d x %d (%.1f MB, %d copies): 90%% of the copy "
                "bandwidth is %.2f us\n",
                n, k, bytes / 1e6, copies, bytes / (0.9 * copyGBs * 1e3));
    float best = 1e30f;
    for (int perSM : {1, 2, 4, 8})
      for (int threads : {256, 512, 1024}) {
        if (perSM * threads > 2048)
          continue;
        int grid = sms * perSM;
        float us = bench.time([&](int i) {
          launch(streamRead<4>, grid, threads, 0, bench.stream,
                 (const uint4 *)w[i % copies], out, bytes / 16);
        });
        best = std::min(best, us);
      }
    std::printf("  stream, best of 9 grids: %.2f us (%.1f%%)\n", best,
                share(best));
    auto tiles = [&](auto shape) {
      constexpr int c = decltype(shape)::c, r = decltype(shape)::r;
      if (n % r || (size_t(k) * 2) % c) {
        std::fprintf(stderr, "tiles of %d rows, %d B: %d x %d does not divide\n",
                     r, c, n, k);
        std::exit(1);
      }
      float us = bench.time([&](int i) {
        launch(tileRead<c, r, decltype(shape)::inflight>, n / r, 256, 0,
               bench.stream, (const uint4 *)w[i % copies], out, k / 8);
      });
      std::printf("  tiles, %2d rows a block (%4d blocks), %3d B a row a "
                  "step: %.2f us (%.1f%%)\n",
                  r, n / r, c, us, share(us));
    };
    tiles(TileShape<128, 64, 24>());
    tiles(TileShape<512, 64, 24>());
    tiles(TileShape<128, 32, 24>());
    tiles(TileShape<256, 32, 24>());
    tiles(TileShape<256, 16, 16>());
    uint16_t *x;
    CHECK(cudaMalloc(&x, size_t(k) * 2));
    CHECK(cudaMemset(x, 0x3c, size_t(k) * 2));
    CUtensorMap xMap = tensorMap(x, 1, k, 16);
    auto tma = [&](auto shape) {
      using Shape = decltype(shape);
      constexpr int c = Shape::c, r = Shape::r;
      if (n % r || (size_t(k) * 2) % c) {
        std::fprintf(stderr, "TMA tiles of %d rows, %d B: %d x %d does not "
                             "divide\n",
                     r, c, n, k);
        std::exit(1);
      }
      auto kernel = tmaRead<c, r, Shape::stages, Shape::xRows, Shape::d3>;
      size_t smem = size_t(Shape::stages) * (r + Shape::xRows) * c +
                    8 * Shape::stages + 1024;
      CHECK(cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      std::vector<CUtensorMap> maps;
      for (uint4 *p : w)
        maps.push_back(Shape::d3 ? tensorMap3(p, n, k, r, c / 128)
                                 : tensorMap(p, n, k, r));
      CUtensorMap xm = Shape::d3 ? tensorMap3(x, 1, k, 16, c / 128) : xMap;
      float us = bench.time([&](int i) {
        launch(kernel, n / r, 32, smem, bench.stream, maps[i % copies], xm,
               out, k);
      });
      std::printf("  tma, %2d rows a block (%4d blocks), %3d B a row a "
                  "stage, %2d stages%s%s: %.2f us (%.1f%%)\n",
                  r, n / r, c, Shape::stages, Shape::xRows ? " + x" : "",
                  Shape::d3 ? ", 3-D boxes" : "",
                  us, share(us));
    };
    tma(TmaShape<128, 64, 12, 0>());
    tma(TmaShape<128, 64, 12, 16>());
    tma(TmaShape<256, 64, 6, 0>());
    tma(TmaShape<256, 64, 6, 16>());
    tma(TmaShape<512, 32, 6, 0>());
    tma(TmaShape<512, 32, 6, 16>());
    tma(TmaShape<512, 32, 6, 0, true>());
    tma(TmaShape<512, 32, 6, 16, true>());
    tma(TmaShape<128, 64, 12, 16, true>());
    tma(TmaShape<256, 64, 6, 16, true>());
    CHECK(cudaFree(x));
    for (uint4 *p : w)
      CHECK(cudaFree(p));
  }
  CHECK(cudaFree(out));
  return 0;
}
