#!/usr/bin/env python3
"""Launches one gpupoor kernel a few times on random inputs, for profilers.

  ncu --clock-control none -k regex:gpupoor python3 benchmarks/run_once.py KDIR/NAME M N K
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "GPU"))
from gpupoor_kernel import GpupoorKernel  # noqa: E402


def main():
    kdir, m, n, k = sys.argv[1], *map(int, sys.argv[2:5])
    reps = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    kern = GpupoorKernel(kdir)
    a = torch.randn(m, k, device="cuda").half()
    b = torch.randn(n, k, device="cuda").half() if kern.nk else torch.randn(k, n, device="cuda").half()
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    for _ in range(reps):
        kern(a, b, c)
    torch.cuda.synchronize()
    ref = a.float() @ (b.float().T if kern.nk else b.float())
    print(f"{os.path.basename(kdir)} {m}x{n}x{k}: rel err vs f32 {((c.float() - ref).norm() / ref.norm()).item():.2e}")


if __name__ == "__main__":
    main()
