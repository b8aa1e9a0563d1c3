"""Row alignment of the operands against speed: M x N x K with A and B (B as
N x K, an nn.Linear weight) stored in rows of lda and ldb elements (views of
wider buffers), through the package, against cuBLAS f32acc in the same
process, and what copying both into rows of a multiple of 64 elements would
cost.

  python benchmarks/bench_row_alignment.py [M,N,K,LDA,LDB ...]
"""

from __future__ import annotations

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from gpupoor import split_k_sequential  # noqa: E402
from gpupoor.bench import cublas, time_graph  # noqa: E402

CASES = [(3000, 3000, 3000, 3000, 3000), (3000, 3000, 3000, 3008, 3000),
         (3000, 3000, 3000, 3000, 3008), (3000, 3000, 3000, 3008, 3008),
         (1000, 1000, 1000, 1000, 1000), (1000, 1000, 1000, 1024, 1000),
         (1000, 1000, 1000, 1000, 1024), (1000, 1000, 1000, 1024, 1024),
         (2000, 2000, 2000, 2000, 2000), (2000, 2000, 2000, 2048, 2048)]


def main(argv: list[str]) -> int:
    cases = [tuple(map(int, a.split(","))) for a in argv] or CASES
    f32 = cublas(False, torch.matmul)
    for m, n, k, lda, ldb in cases:
        rot = 8
        bs = [torch.randn(n, ldb, device="cuda").half()[:, :k].T for _ in range(rot)]
        x = torch.randn(m, lda, device="cuda").half()[:, :k]
        base = time_graph(lambda i: f32(x, bs[i]), 60, rot)
        ours = time_graph(lambda i: split_k_sequential(x, bs[i]), 60, rot)
        xp = torch.empty(m, -(-k // 64) * 64, device="cuda").half()
        bp = torch.empty(n, -(-k // 64) * 64, device="cuda").half()
        cp = time_graph(lambda i: (xp[:, :k].copy_(x), bp[:, :k].copy_(bs[i].T)), 60, rot)
        print(f"{m}x{n}x{k} lda {lda} ldb {ldb}: cublas {base:.1f} gpupoor {ours:.1f} us "
              f"x{base / ours:.2f}; copies of both {cp:.1f} us", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
