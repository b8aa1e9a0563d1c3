//===- main.cpp - a C++ program calling gpupoor-compiled code -------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Calls linear_relu (linear_relu.mlir, compiled by gpupoor-opt,
// mlir-translate and llc) through its C interface on device buffers
// allocated with libgpupoor_cuda_runtime, and checks relu(x * W^T + b)
// exactly against integer arithmetic: the inputs are small integers, which
// every f16 partial sum holds exactly, for two operand sets in turn (a
// runtime that kept a launch's tensor maps for the wrong operands would
// read the other set). Prints the mismatches; exits 1 on any. Needs a CUDA
// GPU of the chip it was compiled for.
//
// `linear_relu M N K` checks one operand set of those sizes exactly (C's
// rows of N elements: an N that is not a multiple of 8 takes the host
// code's fallback where the kernel stores C by TMA).
//
// `linear_relu DIR M N K` instead reads x (M x K), W (N x K) and b (N), f16
// little-endian, from DIR/x.f16, DIR/w.f16 and DIR/b.f16, and writes the
// result to DIR/out.f16: check_torch.py compares it with PyTorch.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

template <int Rank> struct MemRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

extern "C" {
void _mlir_ciface_linear_relu(MemRef<2> *x, MemRef<2> *w, MemRef<1> *b,
                              MemRef<2> *out);
// libgpupoor_cuda_runtime (streams as opaque pointers; null: the default).
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuStreamSynchronize(void *stream);
}

namespace {

/// f16 bits of a small integer (|v| <= 2048: exact).
uint16_t halfOf(int v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned m = v < 0 ? -v : v;
  int e = 31 - __builtin_clz(m);
  return sign | uint16_t((e + 15) << 10) | uint16_t(((m << 10) >> e) & 0x3ff);
}

/// The value of f16 bits (normal numbers and zero: all this test makes).
double valueOf(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double m = h & 0x3ff;
  double v = e == 0 ? m / 1024.0 / 16384.0 : (1.0 + m / 1024.0) * double(1 << e) / 32768.0;
  return h & 0x8000 ? -v : v;
}

template <int Rank> MemRef<Rank> onDevice(const std::vector<uint16_t> &host,
                                          const int64_t (&sizes)[Rank]) {
  MemRef<Rank> m;
  size_t bytes = host.size() * 2;
  m.allocated = m.aligned = mgpuMemAlloc(bytes, nullptr, false);
  mgpuMemcpy(m.aligned, const_cast<uint16_t *>(host.data()), bytes, nullptr);
  m.offset = 0;
  int64_t stride = 1;
  for (int d = Rank - 1; d >= 0; --d) {
    m.sizes[d] = sizes[d];
    m.strides[d] = stride;
    stride *= sizes[d];
  }
  return m;
}

bool readFile(const std::string &path, std::vector<uint16_t> &data) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return false;
  size_t got = std::fread(data.data(), 2, data.size(), f);
  // The file must hold exactly the elements asked for.
  bool exact = got == data.size() && std::fgetc(f) == EOF;
  std::fclose(f);
  return exact;
}

/// The file mode: DIR's inputs through linear_relu into DIR/out.f16.
int runFiles(const std::string &dir, int64_t m, int64_t n, int64_t k) {
  std::vector<uint16_t> xh(m * k), wh(n * k), bh(n), outh(m * n, 0x7e00);
  for (auto [name, data] : {std::pair<const char *, std::vector<uint16_t> *>{
                                "x.f16", &xh},
                            {"w.f16", &wh},
                            {"b.f16", &bh}})
    if (!readFile(dir + "/" + name, *data)) {
      std::fprintf(stderr, "%s/%s: cannot read %zu f16 values (exactly)\n",
                   dir.c_str(), name, data->size());
      return 2;
    }
  MemRef<2> xd = onDevice<2>(xh, {m, k});
  MemRef<2> wd = onDevice<2>(wh, {n, k});
  MemRef<1> bd = onDevice<1>(bh, {n});
  MemRef<2> od = onDevice<2>(outh, {m, n});
  mgpuStreamSynchronize(nullptr);
  _mlir_ciface_linear_relu(&xd, &wd, &bd, &od);
  mgpuMemcpy(outh.data(), od.aligned, outh.size() * 2, nullptr);
  mgpuStreamSynchronize(nullptr);
  for (void *p : {xd.allocated, wd.allocated, bd.allocated, od.allocated})
    mgpuMemFree(p, nullptr);
  std::string out = dir + "/out.f16";
  FILE *f = std::fopen(out.c_str(), "wb");
  if (!f || std::fwrite(outh.data(), 2, outh.size(), f) != outh.size()) {
    std::fprintf(stderr, "%s: cannot write\n", out.c_str());
    return 2;
  }
  std::fclose(f);
  return 0;
}

/// Small-integer operands of the exact check, on the host and the device.
struct Operands {
  std::vector<int> x, w, b;
  MemRef<2> xd, wd, od;
  MemRef<1> bd;
};

Operands makeOperands(int64_t m, int64_t n, int64_t k, uint32_t state) {
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return int(state >> 30) % 3 - 1; // -1, 0 or 1
  };
  Operands o;
  o.x.resize(m * k);
  o.w.resize(n * k);
  o.b.resize(n);
  for (int &v : o.x)
    v = next();
  for (int &v : o.w)
    v = next();
  for (int &v : o.b)
    v = 8 * next();
  auto halves = [](const std::vector<int> &v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      h[i] = halfOf(v[i]);
    return h;
  };
  o.xd = onDevice<2>(halves(o.x), {m, k});
  o.wd = onDevice<2>(halves(o.w), {n, k});
  o.bd = onDevice<1>(halves(o.b), {n});
  o.od = onDevice<2>(std::vector<uint16_t>(m * n), {m, n});
  return o;
}

/// linear_relu on `o` into its NaN-poisoned output; the elements that differ
/// from the exact result (the first five printed).
int64_t runExact(Operands &o, int64_t m, int64_t n, int64_t k) {
  std::vector<uint16_t> outh(m * n, 0x7e00);
  mgpuMemcpy(o.od.aligned, outh.data(), outh.size() * 2, nullptr);
  mgpuStreamSynchronize(nullptr);
  _mlir_ciface_linear_relu(&o.xd, &o.wd, &o.bd, &o.od);
  mgpuMemcpy(outh.data(), o.od.aligned, outh.size() * 2, nullptr);
  mgpuStreamSynchronize(nullptr);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = o.b[j];
      for (int64_t l = 0; l < k; ++l)
        sum += o.x[i * k + l] * o.w[j * k + l];
      double want = sum > 0 ? double(sum) : 0.0;
      double got = valueOf(outh[i * n + j]);
      if (got != want && mismatches++ < 5)
        std::printf("C[%lld][%lld] = %g, want %g\n", (long long)i, (long long)j, got, want);
    }
  std::printf("linear_relu %lldx%lldx%lld through libgpupoor_cuda_runtime: %lld of %lld "
              "elements differ from the exact result\n",
              (long long)m, (long long)n, (long long)k, (long long)mismatches,
              (long long)(m * n));
  return mismatches;
}

/// A size argument: a positive integer, all of it.
int64_t sizeArg(const char *text) {
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  return end && *end == 0 && v > 0 ? v : -1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5) {
    int64_t m = sizeArg(argv[2]), n = sizeArg(argv[3]), k = sizeArg(argv[4]);
    if (m < 0 || n < 0 || k < 0) {
      std::fprintf(stderr, "sizes must be positive integers\n");
      return 2;
    }
    return runFiles(argv[1], m, n, k);
  }
  if (argc == 4) {
    int64_t m = sizeArg(argv[1]), n = sizeArg(argv[2]), k = sizeArg(argv[3]);
    if (m < 0 || n < 0 || k < 0) {
      std::fprintf(stderr, "sizes must be positive integers\n");
      return 2;
    }
    Operands o = makeOperands(m, n, k, 4242u);
    int64_t mismatches = runExact(o, m, n, k);
    for (void *p : {o.xd.allocated, o.wd.allocated, o.bd.allocated, o.od.allocated})
      mgpuMemFree(p, nullptr);
    return mismatches ? 1 : 0;
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s [M N K | DIR M N K]\n", argv[0]);
    return 2;
  }
  // Two sets of operands in turn (0, 1, 0): on sm_90a each launch takes
  // tensor maps of its operands, which the runtime keeps per address; each
  // result must still be its own operands'.
  const int64_t m = 33, n = 1000, k = 4104;
  std::vector<Operands> sets;
  for (uint32_t seed : {12345u, 777u})
    sets.push_back(makeOperands(m, n, k, seed));
  int64_t mismatches = 0;
  for (int set : {0, 1, 0})
    mismatches += runExact(sets[set], m, n, k);
  for (Operands &o : sets)
    for (void *p : {o.xd.allocated, o.wd.allocated, o.bd.allocated, o.od.allocated})
      mgpuMemFree(p, nullptr);
  return mismatches ? 1 : 0;
}
