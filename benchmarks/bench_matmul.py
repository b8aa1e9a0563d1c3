#!/usr/bin/env python3
"""TFLOP/s and error of gpupoor's kernels next to cuBLAS and gpu_poor, in one run.

  python3 benchmarks/bench_matmul.py KERNEL_DIR [--gpu-poor PATH] [--shapes ...]

Columns: torch.matmul (cuBLAS, fp32 accumulation), cuBLAS with fp16
accumulation (torch.backends.cuda.matmul.allow_fp16_accumulation), gpu_poor's
Triton split_k_sequential (when PATH to its package is given), and gpupoor's
kernels (f32 and f16 outer sums, default S). Timing: CUDA events around
batches of back-to-back launches after warm-up, median over many batches,
rotating over several random input sets so that caches do not hold the
operands. Error: relative
Frobenius error against an fp64 product.
"""

import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "GPU"))
from run_gpu_suite import GpupoorKernel  # noqa: E402

SHAPES = [  # M, N, K
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (512, 10240, 2048),
    (512, 6144, 2048),
    (512, 2048, 5120),
    (16, 4096, 14336),
    (4096, 14336, 4096),
]


def time_ms(fn, sets, warmup=10, reps=60, batch=10):
    """Median over `reps` of the mean time of `batch` back-to-back launches.

    Events around a single launch after a synchronize also time the host's
    launch latency (tens of microseconds from Python, 5-15% of a 4096^3
    product); a batch keeps the GPU busy between the events.
    """
    for i in range(warmup):
        fn(*sets[i % len(sets)])
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for j in range(batch):
            fn(*sets[(i * batch + j) % len(sets)])
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / batch)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kernel_dir")
    p.add_argument("--gpu-poor", help="directory holding gpu_poor's package")
    p.add_argument("--gpu-poor-shapes", type=int, default=2, help="gpu_poor on the first N shapes only (autotuning is slow)")
    p.add_argument("--reps", type=int, default=60)
    p.add_argument("--sweep", action="store_true",
                   help="time every sweep_* and gen_* kernel of KERNEL_DIR on three shapes instead")
    p.add_argument("--sweep-shapes", default="4096x4096x4096,8192x8192x8192,512x10240x2048",
                   help="comma-separated MxNxK shapes of --sweep")
    args = p.parse_args()
    if args.sweep:
        return sweep(args)
    kern = {name: GpupoorKernel(os.path.join(args.kernel_dir, name)) for name in ("kn_f32", "kn_f16")
            if os.path.isdir(os.path.join(args.kernel_dir, name))}
    split_k_sequential = None
    if args.gpu_poor:
        sys.path.insert(0, args.gpu_poor)
        from gpu_poor.kernels import split_k_sequential  # noqa: F811
    print(f"device: {torch.cuda.get_device_name()}")
    header = ["shape MxNxK", "cuBLAS f32acc", "cuBLAS f16acc", "gpu_poor", "gpupoor f32outer",
              "gpupoor f16outer", "ratio f32outer/cuBLAS f32acc"]
    print(" | ".join(header))
    for si, (m, n, k) in enumerate(SHAPES):
        sets = [(torch.randn(m, k, device="cuda").half(), torch.randn(k, n, device="cuda").half())
                for _ in range(3)]
        flops = 2.0 * m * n * k
        a0, b0 = sets[0]
        ref = a0.double() @ b0.double()
        err = lambda c: ((c.double() - ref).norm() / ref.norm()).item()
        row = {}
        torch.backends.cuda.matmul.allow_fp16_accumulation = False
        row["cuBLAS f32acc"] = (time_ms(torch.matmul, sets, reps=args.reps), err(a0 @ b0))
        torch.backends.cuda.matmul.allow_fp16_accumulation = True
        row["cuBLAS f16acc"] = (time_ms(torch.matmul, sets, reps=args.reps), err(a0 @ b0))
        torch.backends.cuda.matmul.allow_fp16_accumulation = False
        if split_k_sequential and si < args.gpu_poor_shapes:
            row["gpu_poor"] = (time_ms(lambda a, b: split_k_sequential(a, b), sets, reps=args.reps),
                               err(split_k_sequential(a0, b0)))
        for name, label in (("kn_f32", "gpupoor f32outer"), ("kn_f16", "gpupoor f16outer")):
            if name in kern:
                outs = [torch.empty(m, n, device="cuda", dtype=torch.float16) for _ in sets]
                fn = lambda a, b, kk=kern[name], o=outs: kk(a, b, o[0])
                row[label] = (time_ms(fn, sets, reps=args.reps), None)
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
                kern[name](a0, b0, c)
                torch.cuda.synchronize()
                row[label] = (row[label][0], err(c))
        cells = [f"{m}x{n}x{k}"]
        for col in header[1:-1]:
            if col in row:
                ms, e = row[col]
                cells.append(f"{flops / ms / 1e9:.1f} TF/s (err {e:.2e})")
            else:
                cells.append("-")
        ratio = (row["cuBLAS f32acc"][0] / row["gpupoor f32outer"][0]) if "gpupoor f32outer" in row else float("nan")
        cells.append(f"{ratio:.2f}")
        print(" | ".join(cells), flush=True)


def sweep(args):
    names = sorted(d for d in os.listdir(args.kernel_dir)
                   if d.startswith(("sweep_", "gen_")) and os.path.isdir(os.path.join(args.kernel_dir, d)))
    kernels = {n: GpupoorKernel(os.path.join(args.kernel_dir, n)) for n in names}
    # Plain C = A*B kernels only: the timing loop passes no bias.
    kernels = {n: kk for n, kk in kernels.items() if kk.meta["bias"] == "none" and not kk.nk}
    print(f"device: {torch.cuda.get_device_name()}")
    for m, n, k in [tuple(map(int, s.split("x"))) for s in args.sweep_shapes.split(",")]:
        sets = [(torch.randn(m, k, device="cuda").half(), torch.randn(k, n, device="cuda").half())
                for _ in range(3)]
        flops = 2.0 * m * n * k
        cublas = flops / time_ms(torch.matmul, sets, reps=args.reps) / 1e9
        print(f"{m}x{n}x{k}: cuBLAS f32acc {cublas:.1f} TF/s")
        out = torch.empty(m, n, device="cuda", dtype=torch.float16)
        for name, kern in kernels.items():
            tf = flops / time_ms(lambda a, b, kk=kern: kk(a, b, out), sets, reps=args.reps) / 1e9
            print(f"  {name}: {tf:.1f} TF/s ({tf / cublas:.2f} of cuBLAS)", flush=True)


if __name__ == "__main__":
    main()
