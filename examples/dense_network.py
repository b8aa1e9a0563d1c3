#!/usr/bin/env python3
"""The dense-network study of "GPU Overheads and Fused Strassen": a stack of
Linear + ReLU layers with gpupoor's LowPrecisionLinear (bias and ReLU fused
into the kernel) against nn.Linear + ReLU, float16.

  python3 examples/dense_network.py [--hidden 1024,2048,4096] [--batch 64,256,512]
                                    [--layers 1,8] [--reps 50] [--no-compile]

For each configuration: latency per forward (CUDA-event median) eagerly,
replayed from a CUDA graph and under torch.compile; the GPU time of the
forward's kernels from torch.profiler beside the eager wall time; the
output's relative error against the same network in float64. Prints a
markdown table (docs/guide/Python.md holds one run's).
"""

import argparse
import statistics
import sys

import torch
from torch import nn

import gpupoor


def make(hidden: int, layers: int, lowp: bool, seed: int) -> nn.Sequential:
    torch.manual_seed(seed)
    mods = []
    for _ in range(layers):
        if lowp:
            mods.append(gpupoor.LowPrecisionLinear(hidden, hidden, activation="relu",
                                                   device="cuda", dtype=torch.float16))
        else:
            mods += [nn.Linear(hidden, hidden, device="cuda", dtype=torch.float16), nn.ReLU()]
    return nn.Sequential(*mods).eval()


def reference(net: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    y = x.double()
    for mod in net:
        if isinstance(mod, nn.Linear):
            y = torch.nn.functional.linear(y, mod.weight.double(), mod.bias.double())
            if isinstance(mod, gpupoor.LowPrecisionLinear):
                y = torch.relu(y)
        else:
            y = torch.relu(y)
    return y


def timed(fn, reps: int) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3)
    return statistics.median(times)


def graphed(fn):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def kernel_time(fn, reps: int) -> float:
    """Microseconds of GPU kernel time per call, from torch.profiler."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    total = sum(e.self_device_time_total for e in prof.key_averages()
                if e.device_type == torch.autograd.DeviceType.CUDA)
    return total / reps


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hidden", default="1024,2048,4096")
    p.add_argument("--batch", default="64,256,512")
    p.add_argument("--layers", default="1,8")
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--no-compile", action="store_true")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("dense_network: needs a CUDA GPU", file=sys.stderr)
        return 2
    ints = lambda s: [int(v) for v in s.split(",") if v]
    configs = [(h, b, n) for n in ints(args.layers) for h in ints(args.hidden)
               for b in ints(args.batch)]
    print(f"{torch.cuda.get_device_name()}; float16; microseconds per forward (CUDA-event medians "
          f"of {args.reps}); kernels: torch.profiler GPU time per forward")
    print("| layers | hidden | batch | impl | eager | kernels | CUDA graph | compile | rel. error |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for i, (hidden, batch, layers) in enumerate(configs):
        print(f"[{i + 1}/{len(configs)}] {layers} x {hidden}, batch {batch}", file=sys.stderr,
              flush=True)
        x = torch.randn(batch, hidden, device="cuda", dtype=torch.float16)
        for name, lowp in (("nn.Linear+ReLU", False), ("LowPrecisionLinear", True)):
            net = make(hidden, layers, lowp, seed=i)
            with torch.no_grad():
                ref = reference(net, x)
                y = net(x)
                err = ((y.double() - ref).norm() / ref.norm()).item()
                eager = timed(lambda: net(x), args.reps)
                kern = kernel_time(lambda: net(x), args.reps)
                graph = timed(graphed(lambda: net(x)), args.reps)
                comp = float("nan")
                if not args.no_compile:
                    torch._dynamo.reset()
                    cnet = torch.compile(net, fullgraph=True)
                    comp = timed(lambda: cnet(x), args.reps)
            print(f"| {layers} | {hidden} | {batch} | {name} | {eager:.1f} | {kern:.1f} | "
                  f"{graph:.1f} | {comp:.1f} | {err:.1e} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
