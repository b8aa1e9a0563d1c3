"""Decode and small-M shapes (M, N, K) of benchmarks/bench_skinny.py, built
by build_kernels.py --skinny: B is a weight stored N x K (nn.Linear's
layout)."""

SKINNY_MS = (1, 16, 64, 128, 512)
SKINNY_NK = ((4096, 4096), (4096, 14336), (14336, 4096), (2048, 5120))
SKINNY_SHAPES = [(m, n, k) for m in SKINNY_MS for n, k in SKINNY_NK]

# Attention-like batched products (name, batch, M, N, K, B's layout) of
# bench_skinny.py --batched, built by build_kernels.py --attention: decode
# scores q K^T and context p V over a cache of 4096 positions, and the
# prefill pair at 512 positions, 32 heads of 128; keys and values stored
# positions x 128.
ATTENTION = [
    ("decode_qk", 32, 1, 4096, 128, "nk"),
    ("decode_pv", 32, 1, 128, 4096, "kn"),
    ("prefill_qk", 32, 512, 512, 128, "nk"),
    ("prefill_pv", 32, 512, 128, 512, "kn"),
]
