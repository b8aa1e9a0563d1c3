#!/usr/bin/env python3
"""TFLOP/s and error of gpupoor's kernels next to cuBLAS and gpu_poor, in one run.

  python3 benchmarks/bench_matmul.py KERNEL_DIR [--gpu-poor PATH] [--sustained] [--sweep [--sweep-shapes MxNxK,...]]
  python3 benchmarks/bench_matmul.py KERNEL_DIR --frontier [--sustained] [--json F] [--png F]

Columns: torch.matmul (cuBLAS, fp32 accumulation), cuBLAS with fp16
accumulation (torch.backends.cuda.matmul.allow_fp16_accumulation), gpu_poor's
Triton split_k_sequential (when PATH to its package is given), and gpupoor's
kernels (f32 and f16 outer sums, default S): kn_f32 and kn_f16 of
KERNEL_DIR, compiled for dynamic shapes, and, where KERNEL_DIR holds them
(build_kernels.py --static), static_f32_MxNxK and static_f16_MxNxK, compiled
for the row's static shape with the pipeline's defaults (its tile choice).
Each gpupoor cell also gives its ratio to cuBLAS f32acc. Timing (time_many): CUDA
events around batches of back-to-back launches after warm-up, the
contestants taking turns batch by batch, median over many batches, the GPU
kept busy while the host queues a batch, rotating over several random input
sets so that caches do not hold the operands. Error: relative Frobenius
error against an fp64 product.

--frontier: the speed/error trade-off. For each static shape of KERNEL_DIR's
frontier_{f32,f16}_s{S}_MxNxK kernels (build_kernels.py --frontier): one
(TFLOP/s, error) point per outer type and split count S (chunk length
K/S), beside cuBLAS f32acc and f16acc, timed together and measured on the
same inputs; --json writes the points, --png plots them (matplotlib).
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "GPU"))
from gpupoor_kernel import GpupoorKernel  # noqa: E402

SHAPES = [  # M, N, K
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (512, 10240, 2048),
    (512, 6144, 2048),
    (512, 2048, 5120),
    (16, 4096, 14336),
    (4096, 14336, 4096),
]


def time_many(fns, sets, warmup=10, reps=60, batch=10, head_cycles=1_500_000):
    """Median milliseconds per launch of each of `fns` (name -> callable).

    The contestants take turns, one batch of `batch` back-to-back launches
    each per round, so that clock and thermal drift over the run hit them
    alike. CUDA events around a batch; before each batch the GPU spins for
    `head_cycles` (torch.cuda._sleep) while the host queues the batch, so
    that no launch waits on the host (Python launches cost 20-50 us, up to
    a sixth of a 4096^3 product). The launches rotate over `sets`.
    """
    for fn in fns.values():
        for i in range(warmup):
            fn(*sets[i % len(sets)])
    torch.cuda.synchronize()
    times = {name: [] for name in fns}
    for i in range(reps):
        for name, fn in fns.items():
            torch.cuda._sleep(head_cycles)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for j in range(batch):
                fn(*sets[(i * batch + j) % len(sets)])
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) / batch)
    return {name: statistics.median(t) for name, t in times.items()}


class ClockSampler:
    """SM clock and board power, sampled by nvidia-smi every 50 ms."""

    def __init__(self):
        self.path = os.path.join(tempfile.mkdtemp(), "smi.csv")
        self.log = open(self.path, "w")
        self.proc = subprocess.Popen(
            ["nvidia-smi", "-i", str(torch.cuda.current_device()),
             "--query-gpu=timestamp,clocks.sm,power.draw", "--format=csv,noheader,nounits",
             "-lms", "50"], stdout=self.log, stderr=subprocess.DEVNULL)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()
        rows = []
        for line in open(self.path):
            parts = [x.strip() for x in line.split(",")]
            try:
                t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                rows.append((t, float(parts[1]), float(parts[2])))
            except (ValueError, IndexError):
                pass
        return rows


def time_sustained(fns, sets, seconds=1.0, rounds=5, graphs=False):
    """Per-launch milliseconds of each of `fns` under sustained load, with
    the median SM clock (MHz) and board power (W) while it ran.

    Each contestant runs back to back for about `seconds` (the host queuing
    ahead), in turns over `rounds` rounds; median over the rounds. On an
    H100 a second of any of these kernels at 4096^3 or above runs into the
    board's power cap, so this is the clock a long training or inference
    run gets, unlike the short batches of time_many, which start each batch
    from an idle GPU. The first quarter of each stretch is not timed (CUDA
    events around the other three quarters) and its clock is not counted:
    there the clock still answers the contestant before. Each round starts
    one contestant further along, so that each follows a different one in
    each round (in a fixed order one contestant always followed the same
    other, and sustained ratios moved by 2-3% from call to call, H100,
    docs/design/decisions.md#sustained-timing-untimed-ramp-rotating-order).

    With `graphs`, each contestant's launches over all of `sets` are
    captured once into a CUDA graph (repeated to at least a millisecond)
    and the stretch replays it: for kernels shorter than their launcher's
    host time (gpupoor's Python launcher encodes tensor maps each call) a
    stretch of plain launches measures the host instead, and the GPU idles
    between launches at full clock.
    """
    per_launch = time_many(fns, sets, warmup=5, reps=3)
    if graphs:
        fns = {name: _graph_of(fn, sets, per_launch[name]) for name, fn in fns.items()}
        sets = [()]
    sampler = ClockSampler()
    time.sleep(0.5)
    times = {name: [] for name in fns}
    marks = {name: [] for name in fns}
    names = list(fns)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn = fns[name]
            launches = getattr(fn, "launches", 1)
            count = max(20 // launches + 1, int(seconds / (per_launch[name] * launches / 1e3)))
            ramp = count // 4
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.time()
            for j in range(count):
                if j == ramp:
                    start.record()
                fn(*sets[j % len(sets)])
            end.record()
            end.synchronize()
            t1 = time.time()
            times[name].append(start.elapsed_time(end) / ((count - ramp) * launches))
            marks[name].append((t0 + (t1 - t0) / 4, t1))
    rows = sampler.stop()
    out = {}
    for name in fns:
        inside = [r for r in rows if any(a <= r[0] <= b for a, b in marks[name])]
        clock = statistics.median(r[1] for r in inside) if inside else float("nan")
        power = statistics.median(r[2] for r in inside) if inside else float("nan")
        out[name] = (statistics.median(times[name]), clock, power)
    return out


def _graph_of(fn, sets, ms_per_launch):
    """A callable replaying a CUDA graph of `fn` over `sets`, repeated to at
    least a millisecond of launches; its `launches` attribute counts them."""
    repeats = max(1, int(1.0 / (ms_per_launch * len(sets))) + 1)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture, as torch asks
        for args in sets:
            fn(*args)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(repeats):
            for args in sets:
                fn(*args)
    torch.cuda.synchronize()

    def replay():
        graph.replay()
    replay.launches = repeats * len(sets)
    replay.graph = graph
    return replay


def static_kernels(kernel_dir, m, n, k):
    """outer type -> the static_<outer>_MxNxK kernel of KERNEL_DIR, where built."""
    dirs = {outer: os.path.join(kernel_dir, f"static_{outer}_{m}x{n}x{k}") for outer in ("f32", "f16")}
    return {outer: GpupoorKernel(d) for outer, d in dirs.items() if os.path.isdir(d)}


def cublas(f16acc):
    """torch.matmul with cuBLAS accumulating in f16 or f32."""
    def fn(a, b):
        torch.backends.cuda.matmul.allow_fp16_accumulation = f16acc
        return torch.matmul(a, b)
    return fn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kernel_dir")
    p.add_argument("--gpu-poor", help="directory holding gpu_poor's package")
    p.add_argument("--gpu-poor-shapes", type=int, default=2, help="gpu_poor on the first N shapes only (autotuning is slow)")
    p.add_argument("--reps", type=int, default=60)
    p.add_argument("--sweep", action="store_true",
                   help="time kn_f32, kn_f16 and every sweep_* and gen_* kernel of KERNEL_DIR instead")
    p.add_argument("--sweep-shapes", default="4096x4096x4096,8192x8192x8192,512x10240x2048",
                   help="comma-separated MxNxK shapes of --sweep")
    p.add_argument("--sustained", action="store_true",
                   help="time under sustained load instead (time_sustained), with SM clock and power")
    p.add_argument("--sustained-shapes", default="4096x4096x4096,8192x8192x8192,4096x14336x4096",
                   help="comma-separated MxNxK shapes of --sustained")
    p.add_argument("--seconds", type=float, default=1.0, help="--sustained: seconds a stretch")
    p.add_argument("--rounds", type=int, default=5, help="--sustained: rounds")
    p.add_argument("--frontier", action="store_true",
                   help="time the frontier_* kernels of KERNEL_DIR instead (see above)")
    p.add_argument("--json", help="--frontier: write the points to this JSON file")
    p.add_argument("--png", help="--frontier: plot the points into this PNG (needs matplotlib)")
    args = p.parse_args()
    if args.sweep:
        return sweep(args)
    if args.frontier:
        return frontier(args)
    kern = {name: GpupoorKernel(os.path.join(args.kernel_dir, name)) for name in ("kn_f32", "kn_f16")
            if os.path.isdir(os.path.join(args.kernel_dir, name))}
    split_k_sequential = None
    if args.gpu_poor:
        sys.path.insert(0, args.gpu_poor)
        from gpu_poor.kernels import split_k_sequential  # noqa: F811
    print(f"device: {torch.cuda.get_device_name()}")
    shapes = SHAPES
    if args.sustained:
        shapes = [tuple(map(int, s.split("x"))) for s in args.sustained_shapes.split(",")]
        print(f"sustained load: {args.rounds} rounds of {args.seconds} s a contestant; "
              "cells add the median SM clock (MHz) and board power (W)")
    header = ["shape MxNxK", "cuBLAS f32acc", "cuBLAS f16acc", "gpu_poor", "gpupoor f32outer",
              "gpupoor f16outer", "gpupoor f32outer static", "gpupoor f16outer static"]
    print(" | ".join(header))
    for si, (m, n, k) in enumerate(shapes):
        sets = [(torch.randn(m, k, device="cuda").half(), torch.randn(k, n, device="cuda").half())
                for _ in range(3)]
        flops = 2.0 * m * n * k
        a0, b0 = sets[0]
        ref = a0.double() @ b0.double()
        err = lambda c: ((c.double() - ref).norm() / ref.norm()).item()
        fns = {"cuBLAS f32acc": cublas(False), "cuBLAS f16acc": cublas(True)}
        errs = {"cuBLAS f32acc": err(cublas(False)(a0, b0)), "cuBLAS f16acc": err(cublas(True)(a0, b0))}
        torch.backends.cuda.matmul.allow_fp16_accumulation = False
        if split_k_sequential and si < args.gpu_poor_shapes:
            fns["gpu_poor"] = lambda a, b: split_k_sequential(a, b)
            errs["gpu_poor"] = err(split_k_sequential(a0, b0))
        for outer in ("f32", "f16"):
            kern.pop(f"static_{outer}", None)
        for outer, kk in static_kernels(args.kernel_dir, m, n, k).items():
            kern[f"static_{outer}"] = kk
        for name, label in (("kn_f32", "gpupoor f32outer"), ("kn_f16", "gpupoor f16outer"),
                            ("static_f32", "gpupoor f32outer static"),
                            ("static_f16", "gpupoor f16outer static")):
            if name in kern:
                out = torch.empty(m, n, device="cuda", dtype=torch.float16)
                fns[label] = lambda a, b, kk=kern[name], o=out: kk(a, b, o)
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
                kern[name](a0, b0, c)
                torch.cuda.synchronize()
                errs[label] = err(c)
        if args.sustained:
            timed = time_sustained(fns, sets, args.seconds, args.rounds)
        else:
            timed = {name: (t,) for name, t in time_many(fns, sets, reps=args.reps).items()}
        torch.backends.cuda.matmul.allow_fp16_accumulation = False
        row = {name: (timed[name], errs[name]) for name in fns}
        cells = [f"{m}x{n}x{k}"]
        for col in header[1:]:
            if col in row:
                (t, *clock), e = row[col]
                ratio = (f"{row['cuBLAS f32acc'][0][0] / t:.2f}, " if col.startswith("gpupoor")
                         else "")
                extra = f", {clock[0]:.0f} MHz, {clock[1]:.0f} W" if clock else ""
                cells.append(f"{flops / t / 1e9:.1f} TF/s ({ratio}err {e:.2e}{extra})")
            else:
                cells.append("-")
        print(" | ".join(cells), flush=True)


def sweep(args):
    names = sorted(d for d in os.listdir(args.kernel_dir)
                   if (d.startswith(("sweep_", "gen_")) or d in ("kn_f32", "kn_f16"))
                   and os.path.isdir(os.path.join(args.kernel_dir, d)))
    kernels = {n: GpupoorKernel(os.path.join(args.kernel_dir, n)) for n in names}
    # Plain C = A*B kernels only: the timing loop passes no epilogue operands.
    kernels = {n: kk for n, kk in kernels.items() if kk.plain and not kk.nk}
    print(f"device: {torch.cuda.get_device_name()}")
    for m, n, k in [tuple(map(int, s.split("x"))) for s in args.sweep_shapes.split(",")]:
        sets = [(torch.randn(m, k, device="cuda").half(), torch.randn(k, n, device="cuda").half())
                for _ in range(3)]
        flops = 2.0 * m * n * k
        out = torch.empty(m, n, device="cuda", dtype=torch.float16)
        fns = {"cuBLAS": cublas(False)}
        for name, kern in kernels.items():
            fns[name] = lambda a, b, kk=kern: kk(a, b, out)
        for outer, kk in static_kernels(args.kernel_dir, m, n, k).items():
            fns[f"static_{outer}_{m}x{n}x{k}"] = lambda a, b, kk=kk: kk(a, b, out)
        ms = time_many(fns, sets, reps=args.reps)
        tf = {name: flops / t / 1e9 for name, t in ms.items()}
        cublas_tf = tf.pop("cuBLAS")
        print(f"{m}x{n}x{k}: cuBLAS f32acc {cublas_tf:.1f} TF/s")
        for name, t in tf.items():
            print(f"  {name}: {t:.1f} TF/s ({t / cublas_tf:.2f} of cuBLAS)", flush=True)

def frontier_kernels(kernel_dir):
    """{(M, N, K): {(outer, S): kernel}} of KERNEL_DIR's frontier_* kernels."""
    out = {}
    for name in sorted(os.listdir(kernel_dir)):
        parts = name.split("_")
        if (len(parts) != 4 or parts[0] != "frontier" or not parts[2].startswith("s")
                or not os.path.isdir(os.path.join(kernel_dir, name))):
            continue
        shape = tuple(map(int, parts[3].split("x")))
        out.setdefault(shape, {})[(parts[1], int(parts[2][1:]))] = GpupoorKernel(
            os.path.join(kernel_dir, name))
    return out


def frontier(args):
    """Prints (and saves) the speed/error points of the frontier kernels."""
    shapes = frontier_kernels(args.kernel_dir)
    if not shapes:
        sys.exit(f"{args.kernel_dir}: no frontier_* kernels (build_kernels.py --frontier)")
    print(f"device: {torch.cuda.get_device_name()}; timing: "
          + ("sustained (time_sustained)" if args.sustained else "short batches (time_many)"))
    points = []
    for (m, n, k), kernels in sorted(shapes.items()):
        # B as N x K, the layout the frontier kernels (nk) take.
        sets = [(torch.randn(m, k, device="cuda").half(), torch.randn(n, k, device="cuda").half())
                for _ in range(3)]
        flops = 2.0 * m * n * k
        a0, b0 = sets[0]
        ref = a0.double() @ b0.double().t()
        err = lambda c: ((c.double() - ref).norm() / ref.norm()).item()
        fns, errs = {}, {}
        for label, f16acc in (("cuBLAS f32acc", False), ("cuBLAS f16acc", True)):
            mm = cublas(f16acc)
            fns[label] = lambda a, b, mm=mm: mm(a, b.t())
            errs[label] = err(fns[label](a0, b0))
        torch.backends.cuda.matmul.allow_fp16_accumulation = False
        for (outer, splits), kern in sorted(kernels.items()):
            out = torch.empty(m, n, device="cuda", dtype=torch.float16)
            label = f"gpupoor {outer} S={splits}"
            fns[label] = lambda a, b, kk=kern, o=out: kk(a, b, o)
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
            kern(a0, b0, c)
            torch.cuda.synchronize()
            errs[label] = err(c)
        if args.sustained:
            timed = {name: t[0] for name, t in time_sustained(fns, sets, args.seconds,
                                                               args.rounds).items()}
        else:
            timed = time_many(fns, sets, reps=args.reps)
        torch.backends.cuda.matmul.allow_fp16_accumulation = False
        base = timed["cuBLAS f32acc"]
        print(f"{m}x{n}x{k}: contestant | S | chunk | TFLOP/s | / cuBLAS f32acc | error vs fp64")
        for label in fns:
            outer, splits = None, None
            if label.startswith("gpupoor"):
                outer, splits = label.split()[1], int(label.split("S=")[1])
            point = dict(shape=[m, n, k], contestant=label, outer=outer, splits=splits,
                         chunk=k // splits if splits else None, ms=timed[label],
                         tflops=flops / timed[label] / 1e9, ratio=base / timed[label],
                         error=errs[label])
            points.append(point)
            print(f"  {label} | {splits or '-'} | {point['chunk'] or '-'} | "
                  f"{point['tflops']:.1f} | {point['ratio']:.2f} | {point['error']:.2e}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), sustained=args.sustained,
                           points=points), f, indent=1)
    if args.png:
        plot_frontier(points, args.png, torch.cuda.get_device_name())


def plot_frontier(points, path, device):
    """Error (log) against TFLOP/s, a panel per shape: a line per outer type
    over S (labelled by chunk length), cuBLAS as single points."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shapes = sorted({tuple(p["shape"]) for p in points})
    fig, axes = plt.subplots(1, len(shapes), figsize=(6.5 * len(shapes), 5), squeeze=False)
    for ax, shape in zip(axes[0], shapes):
        here = [p for p in points if tuple(p["shape"]) == shape]
        for outer, marker in (("f32", "o"), ("f16", "s")):
            line = sorted((p for p in here if p["outer"] == outer), key=lambda p: p["splits"])
            ax.plot([p["tflops"] for p in line], [p["error"] for p in line], marker=marker,
                    label=f"gpupoor, {outer} outer sums")
            for p in line:
                ax.annotate(str(p["chunk"]), (p["tflops"], p["error"]), fontsize=7,
                            textcoords="offset points", xytext=(4, 3))
        for p in here:
            if p["outer"] is None:
                ax.scatter([p["tflops"]], [p["error"]], marker="*", s=120, zorder=3,
                           label=p["contestant"])
        ax.set_yscale("log")
        ax.set_xlabel("TFLOP/s")
        ax.set_ylabel("relative Frobenius error vs fp64")
        ax.set_title("x".join(map(str, shape)) + " (labels: chunk length K/S)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"gpupoor speed/error frontier, {device}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
