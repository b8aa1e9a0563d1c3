#!/usr/bin/env python3
"""Runs the linear_relu program (test/Runtime/build.sh builds it) on random
normal f16 inputs and compares its result with PyTorch: the relative error
||C - ref|| / ||ref|| against a float64 reference, beside PyTorch's own f16
F.linear + ReLU (cuBLAS) on the same inputs. Fails when gpupoor's error
exceeds the bound split-k with f16 inner sums and an f32 outer sum keeps
(4x cuBLAS's f32-accumulated error, and 2e-3) or when a value is not finite.

  python3 test/Runtime/check_torch.py BUILD/runtime-test/linear_relu
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

SHAPES = ((1, 4096, 4096), (33, 1000, 4104), (128, 4096, 14336), (512, 2048, 1024))


def check(program: str, m: int, n: int, k: int, gen: torch.Generator) -> bool:
    x = torch.randn(m, k, generator=gen).half()
    w = (torch.randn(n, k, generator=gen) / k ** 0.5).half()
    b = torch.randn(n, generator=gen).half()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for name, t in (("x", x), ("w", w), ("b", b)):
            t.numpy().tofile(d / f"{name}.f16")
        subprocess.run([program, tmp, str(m), str(n), str(k)], check=True)
        out = torch.from_numpy(
            __import__("numpy").fromfile(d / "out.f16", dtype="float16")).reshape(m, n)
    ref = torch.relu(x.double() @ w.double().T + b.double())
    err = ((out.double() - ref).norm() / ref.norm()).item()
    xc, wc, bc = x.cuda(), w.cuda(), b.cuda()
    torch_out = torch.relu(torch.nn.functional.linear(xc, wc, bc)).cpu()
    torch_err = ((torch_out.double() - ref).norm() / ref.norm()).item()
    ok = bool(torch.isfinite(out).all()) and err <= max(4 * torch_err, 2e-3)
    print(f"{m}x{n}x{k}: gpupoor {err:.2e}, torch f16 (cuBLAS) {torch_err:.2e} "
          f"-> {'ok' if ok else 'FAIL'}")
    return ok


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("program")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    gen = torch.Generator().manual_seed(args.seed)
    results = [check(args.program, m, n, k, gen) for m, n, k in SHAPES]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
