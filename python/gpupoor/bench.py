"""Speed of gpupoor's split-k products next to cuBLAS and Triton.

  python -m gpupoor.bench [--shapes MxNxK,...] [--reps N] [--plot out.png] [--overhead]
                         [--json out.json]

For each shape: x (M, K) and an nn.Linear weight (N, K) in float16, C = x @
weight.T through cuBLAS with f32 accumulation, cuBLAS with f16 accumulation
(torch.backends.cuda.matmul.allow_fp16_accumulation), gpupoor's `mlir` and
`triton` backends and gpu_poor when it is importable. Times are CUDA-event
medians after warm-up, fresh random normal inputs, of eager calls (host
overhead included where it exceeds the kernel) and of the same calls replayed
from a CUDA graph (the kernels alone; TFLOP/s, ratios and GB/s use these); where the weights of one
call fit in L2, calls rotate over enough weight copies to fill 4x the L2, so
weights come from memory. Prints microseconds, TFLOP/s, the ratio to cuBLAS
f32-acc and, for M <= 16, the operand traffic in GB/s against a
device-to-device copy measured in the same run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys

import torch
import torch.nn.functional as F

from ._tools import preflight, save
from .variants import DEFAULT_MAX_SPLITS

DEFAULT_SHAPES = ("1x4096x4096,1x14336x4096,1x4096x14336,16x4096x4096,16x14336x4096,"
                  "64x4096x4096,128x4096x14336,512x4096x4096,2048x2048x2048,4096x4096x4096,"
                  "4096x4096x14336,2048x4096x14336,8192x8192x8192")


def time_eager(fn, reps: int, rotate: int) -> float:
    """Median microseconds of fn(i) over `reps` calls, i cycling `rotate`."""
    for i in range(3):
        fn(i % rotate)
    torch.cuda.synchronize()
    times = []
    for r in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(r % rotate)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def time_graph(fn, reps: int, rotate: int) -> float:
    """Median microseconds of one fn(i) replayed from a CUDA graph of
    `rotate` calls: the kernels' own time, without host overhead."""
    for i in range(rotate):
        fn(i)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(rotate):
            fn(i)
    # Replays before the timed ones: with one, the first shape of a run read
    # slow (H100, 2026-11-25: 16x2048x5120 listed first 23.8 us a call,
    # listed second 13.5; with these ten, listed first, 13.2 and 12.7 in two
    # runs).
    for _ in range(10):
        graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(max(10, reps // rotate)):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / rotate)
    return statistics.median(times)


def sustain(fn, rotate: int, seconds: float) -> None:
    """Replays fn(i) for i in range(rotate) from a CUDA graph, untimed, for
    `seconds`: a large product's first tens of milliseconds run at a higher
    clock than the sustained load that follows (H200, 2026-11-29: 4096^3
    timed first 177-179 us, then 204-210 us whatever ran), so whichever
    contestant ran first read fast."""
    import time

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(rotate):
            fn(i)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(10):
            graph.replay()
        torch.cuda.synchronize()


def copy_bandwidth() -> float:
    """GB/s of a 1 GiB device-to-device copy, counting bytes read and written."""
    src = torch.empty(2**29, dtype=torch.float16, device="cuda").normal_()
    dst = torch.empty_like(src)
    us = time_eager(lambda i: dst.copy_(src), 20, 1)
    return 2 * src.numel() * 2 / us / 1e3


def cublas(acc16: bool, op=F.linear):
    """op(x, w) (F.linear by default) through cuBLAS with f16 accumulation
    (torch.backends.cuda.matmul.allow_fp16_accumulation) or f32."""
    def run(x, w):
        old = getattr(torch.backends.cuda.matmul, "allow_fp16_accumulation", False)
        torch.backends.cuda.matmul.allow_fp16_accumulation = acc16
        try:
            return op(x, w)
        finally:
            torch.backends.cuda.matmul.allow_fp16_accumulation = old
    return run


def implementations(outer: str, max_k_splits: int = DEFAULT_MAX_SPLITS):
    from .kernels import split_k_sequential
    impls = {}
    impls["cublas_f32acc"] = cublas(False)
    if hasattr(torch.backends.cuda.matmul, "allow_fp16_accumulation"):
        impls["cublas_f16acc"] = cublas(True)
    opts = {"max_k_splits": max_k_splits, "outer": outer}
    impls["gpupoor_mlir"] = lambda x, w: split_k_sequential(x, w.T, backend="mlir", **opts)
    impls["gpupoor_mlir_seq"] = lambda x, w: split_k_sequential(x, w.T, slices=1, backend="mlir",
                                                                **opts)
    try:
        import triton  # noqa: F401
        impls["gpupoor_triton"] = lambda x, w: split_k_sequential(x, w.T, backend="triton",
                                                                  **opts)
    except ImportError:
        pass
    try:
        from gpu_poor.kernels import split_k_sequential as gp
        impls["gpu_poor"] = lambda x, w: gp(x, w.T)
    except ImportError:
        pass
    return impls


def launch_overhead(batches: int = 15, n: int = 200) -> dict[str, float]:
    """Host microseconds per call: medians over batches of `n` calls queued
    behind a GPU kept busy (torch.cuda._sleep), so that neither the kernels'
    time nor a full launch queue enters the figure."""
    import time
    from .kernels import split_k_sequential
    x = torch.randn(16, 4096, device="cuda").half()
    w = torch.randn(4096, 4096, device="cuda").half().T
    op = torch.ops.gpupoor.split_k_matmul
    calls = {"torch.empty (allocation)": lambda: torch.empty((16, 4096), device="cuda",
                                                             dtype=torch.float16),
             "torch.mm (cuBLAS)": lambda: torch.mm(x, w),
             "F.linear (cuBLAS)": lambda: F.linear(x, w.T),
             "split_k_sequential mlir": lambda: split_k_sequential(x, w, backend="mlir"),
             "split_k_sequential auto (default)": lambda: split_k_sequential(x, w),
             "torch.ops.gpupoor.split_k_matmul (mlir)":
                 lambda: op(x, w, None, 32, "f32", "none", 0, "mlir"),
             "split_k_sequential triton": lambda: split_k_sequential(x, w, backend="triton")}
    res = {}
    for name, fn in calls.items():
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"  {name}: {e}", file=sys.stderr)
            continue
        torch.cuda.synchronize()
        times = []
        for _ in range(batches):
            torch.cuda._sleep(40_000_000)
            t = time.perf_counter()
            for _ in range(n):
                fn()
            times.append((time.perf_counter() - t) / n * 1e6)
            torch.cuda.synchronize()
        res[name] = statistics.median(times)
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gpupoor.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", default=DEFAULT_SHAPES, help="MxNxK,... (N = out_features)")
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--outer", default="f32", choices=("f32", "f16"))
    p.add_argument("--max-k-splits", type=int, default=DEFAULT_MAX_SPLITS,
                   help="gpupoor's max_k_splits (fewer splits: longer f16 chunks)")
    p.add_argument("--plot", help="write a PNG of TFLOP/s against size")
    p.add_argument("--overhead", action="store_true", help="also measure host time per call")
    p.add_argument("--json", help="write every row (and the host times), with the device and date")
    args = p.parse_args(argv)
    from ._native import C
    if not 1 <= args.max_k_splits <= C.MAX_SPLITS:
        print(f"gpupoor.bench: --max-k-splits: expected 1..{C.MAX_SPLITS}, "
              f"got {args.max_k_splits}", file=sys.stderr)
        return 2
    rc, plt = preflight("gpupoor.bench", args.plot)
    if rc is not None:
        return rc
    try:
        shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",") if s]
        assert all(len(s) == 3 and min(s) > 0 for s in shapes)
    except (ValueError, AssertionError):
        print(f"gpupoor.bench: --shapes: expected MxNxK,... of positive sizes, got {args.shapes!r}",
              file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    bw = copy_bandwidth()
    print(f"{props.name}, {props.multi_processor_count} SMs, L2 {props.L2_cache_size >> 20} MiB, "
          f"copy {bw:.0f} GB/s; outer={args.outer}, max_k_splits={args.max_k_splits}; "
          f"medians of {args.reps} CUDA-event timings")
    impls = implementations(args.outer, args.max_k_splits)
    rows = []
    head = (f"{'shape':>18} {'impl':>17} {'eager us':>9} {'graph us':>9} {'TFLOP/s':>8} "
            f"{'x f32acc':>8} {'GB/s':>7} {'of copy':>7}")
    print(head)
    for si, (m, n, k) in enumerate(shapes):
        print(f"[{si + 1}/{len(shapes)}] {m}x{n}x{k}", file=sys.stderr, flush=True)
        weight_bytes = n * k * 2
        rotate = max(1, min(64, -(-4 * props.L2_cache_size // weight_bytes)))
        ws = [torch.randn(n, k, device="cuda").half() for _ in range(rotate)]
        x = torch.randn(m, k, device="cuda").half()
        base = None
        for name, fn in impls.items():
            try:
                eager = time_eager(lambda i: fn(x, ws[i]), args.reps, rotate)
                us = time_graph(lambda i: fn(x, ws[i]), args.reps, rotate)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"  {name} {m}x{n}x{k}: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
                continue
            tflops = 2 * m * n * k / us / 1e6
            base = base or (us if name == "cublas_f32acc" else None)
            gbs = (weight_bytes + (m * k + m * n) * 2) / us / 1e3
            ratio = base / us if base else float("nan")
            extra = f" {gbs:7.0f} {gbs / bw:7.0%}" if m <= 16 else ""
            print(f"{f'{m}x{n}x{k}':>18} {name:>17} {eager:9.1f} {us:9.1f} {tflops:8.1f} "
                  f"{ratio:8.2f}{extra}", flush=True)
            rows.append((m, n, k, name, us, tflops, ratio))
        del ws
    host = launch_overhead() if args.overhead else {}
    if host:
        print("host time per call (queued behind a busy GPU):")
        for name, us in host.items():
            print(f"  {name:>28}: {us:5.1f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": props.name, "date": datetime.date.today().isoformat(),
                       "copy_gbs": bw, "outer": args.outer, "max_k_splits": args.max_k_splits,
                       "rows": [dict(zip(("m", "n", "k", "impl", "us", "tflops", "ratio"), r))
                                for r in rows],
                       "host_us": host}, f)
    if plt is not None:
        fig, ax = plt.subplots(figsize=(9, 5))
        labels = [f"{m}x{n}x{k}" for m, n, k in shapes]
        for name in impls:
            pts = [(labels.index(f"{m}x{n}x{k}"), t) for m, n, k, nm, _, t, _ in rows if nm == name]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=name)
        ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
        ax.set_ylabel("TFLOP/s")
        ax.set_yscale("log")
        ax.set_title(f"{props.name}: C = x @ W.T, float16 (outer {args.outer})")
        ax.legend()
        save(fig, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
