"""Decode and small-M shapes (M, N, K) of benchmarks/bench_skinny.py, built
by build_kernels.py --skinny: B is a weight stored N x K (nn.Linear's
layout)."""

SKINNY_MS = (1, 16, 64, 128, 512)
SKINNY_NK = ((4096, 4096), (4096, 14336), (14336, 4096), (2048, 5120))
SKINNY_SHAPES = [(m, n, k) for m in SKINNY_MS for n, k in SKINNY_NK]
