"""The package on a broad sweep of the shapes users run, against cuBLAS.

  python benchmarks/bench_sweep.py [--layouts nk,kn]
                                   [--classes llm,square,odd[,narrow][,attention]]
                                   [--reps 100] [--json out.json] [--plot out.png]
                                   [--rules] [--static KDIR] [--passes N]
  python benchmarks/bench_sweep.py --merge A.json B.json [--json out.json] [--plot out.png]

Shapes (C = x @ B, x (M, K) float16):
- llm: the projections of common LLMs (Llama-2 7B and 13B, Llama-3 8B and
  70B: fused qkv, o, gate/up, down) at M = 1, 2, 4, ..., 4096;
- square: M = N = K from 128 to 8192, non-powers of two among them;
- odd: products of no model, drawn once at random (M 192-4608, N and K
  512-8704; every fourth draw as drawn, the others rounded down to
  multiples of 8), and 2100 x 4360 x 1000 of the package's GPU tests: sizes
  the rules were not written for (the tuner leaves them out: TUNED_CLASSES);
- narrow (only when asked for): N = 16-256 columns over M = 1024-16384 rows,
  K = 4096 and 8192 (LoRA's down projection, an MoE router);
- attention (only when asked for): batches of products as attention's
  heads make them (batch = batch x heads, torch.bmm's), Q K^T (N = the
  sequence, K = the head dimension) and P V (N = the head dimension, K =
  the sequence) at prefill and decode, grouped-query decode (M = the query
  heads sharing a KV head).
B is the weight as nn.Linear holds it, N x K, passed as its K x N view
(layout nk), or a K x N tensor (kn: `x @ w`, the backward's products); km:
B as K x N and x stored K x M, passed as its M x K view (a weight
gradient's grad^T). A batch's operands are the same per element, B
(batch, N, K) as torch.bmm's `k.transpose(1, 2)` for nk, (batch, K, N) as
attention's V for kn, x (batch, K, M) as the P^T of dV = P^T dO for km.

Each shape is timed for cuBLAS with f32 accumulation (the baseline), cuBLAS
with f16 accumulation (where PyTorch has the switch) and gpupoor's default
call, in one process: kernels replayed from a CUDA graph (gpupoor.bench's
time_graph), weights rotated over enough copies to fill 4x the L2, fresh
random normal inputs, each timed twice (the second time in reverse order,
the faster kept) and, for products of 50 µs and more, after 0.2 s of
sustained load (settle); and each one's error ||C - C_fp64|| / ||C_fp64||
on one of them. Within a layout the shapes are timed from the fewest FLOPs to
the most (2 s idle before each layout): a few-block decode product timed right
after a 4096-row product reads up to 1.3x slow while the clocks recover. Prints
each shape's µs, ratios and errors as it is timed, then per layout and
class the geometric mean and the worst of gpupoor's ratio to cuBLAS f32acc,
how many shapes fall below 0.85 and 0.95, and gpupoor's largest error
relative to cuBLAS f16acc's.

--static KDIR also times the compiler's static path: the kernel gpupoor-opt
builds for each static shape with its defaults (`python3 test/GPU/
build_kernels.py KDIR --chip sm_90a --sweep-static nk,kn,km`, on a machine
with gpupoor-opt), launched from its manifest (test/GPU/gpupoor_kernel.py's
GpupoorKernel) in the same graphs; the summaries add its geomean and worst,
and the package's speed over it (the target: within 5% on every shape).

--merge A.json B.json ... times nothing: it joins the rows of sweeps run in
separate calls on one device (say nk,kn in one and km in the next) and
writes their summaries, --json and --plot as one sweep's.

--passes N times the whole sweep N times over (each pass with fresh
operands, the layouts in turn within each) and keeps each contestant's
median over the passes for each shape (a row's "passes" holds every
pass's µs): a single timing of an unchanged kernel moves by up to 15%
between runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import statistics
import sys
import time

import torch

from gpupoor import split_k_sequential
from gpupoor._native import C
from gpupoor._tools import preflight, pyplot, save
from gpupoor.bench import cublas, sustain, time_graph

# (model, projection, N, K) of nn.Linear weights (N x K).
PROJECTIONS = [
    ("llama2-7b", "qkv", 12288, 4096), ("llama2-7b", "o", 4096, 4096),
    ("llama2-7b", "gate_up", 11008, 4096), ("llama2-7b", "down", 4096, 11008),
    ("llama3-8b", "qkv", 6144, 4096), ("llama3-8b", "gate_up", 14336, 4096),
    ("llama3-8b", "down", 4096, 14336),
    ("llama2-13b", "qkv", 15360, 5120), ("llama2-13b", "o", 5120, 5120),
    ("llama2-13b", "gate_up", 13824, 5120), ("llama2-13b", "down", 5120, 13824),
    ("llama3-70b", "qkv", 10240, 8192), ("llama3-70b", "o", 8192, 8192),
    ("llama3-70b", "gate_up", 28672, 8192), ("llama3-70b", "down", 8192, 28672),
]
M_VALUES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
SQUARES = (128, 192, 256, 384, 512, 768, 1000, 1024, 1536, 2048, 3000, 4000, 4096, 6000,
           8192)
# odd: log-uniform draws of random.Random(20261202) (M in [192, 4608], N and
# K in [512, 8704], each truncated to an integer; all but every fourth
# product, from the first, rounded down to multiples of 8); not tuned for
# (the rules predate them); and a product of the package's GPU tests
# (test_gpu.py's SHAPES).
ODD = [(327, 1234, 4052), (288, 2144, 2408), (192, 1960, 560), (552, 784, 632),
       (237, 1318, 3367), (624, 1640, 1784), (1040, 1712, 1512), (1624, 2568, 744),
       (865, 1375, 1127), (848, 7432, 1720), (384, 632, 5776), (456, 1728, 1512),
       (2436, 1125, 1076), (304, 1920, 512), (352, 1224, 3560), (1048, 6352, 4064),
       (272, 618, 1277), (1064, 624, 7064), (1416, 2568, 1032), (1600, 1296, 5000),
       (3116, 1708, 1846), (1032, 5976, 1648), (232, 2904, 6280), (1616, 2160, 712),
       (2100, 4360, 1000)]
# narrow (not in the default classes): few output columns over many rows, as
# LoRA's down projection (N = its rank), an MoE router (N = the experts) or a
# small head meets them: N x M_ROWS x K.
NARROW_N = (16, 64, 128, 256)
NARROW_M = (1024, 4096, 16384)
NARROW_K = (4096, 8192)
# attention (not in the default classes): (batch, M, N, K) of batched
# products: Q K^T and P V of 32 heads of 128 and 64 heads of 64 at 512- to
# 4096-token prefill, and decode against a 4096-token cache, one query
# row a head or, grouped (8 KV heads of 4 query heads each), four.
ATTENTION = [
    (32, 512, 512, 128), (32, 512, 128, 512), (64, 1024, 1024, 64), (64, 1024, 64, 1024),
    (32, 2048, 2048, 128), (32, 2048, 128, 2048), (8, 4096, 4096, 128), (8, 4096, 128, 4096),
    (32, 1, 4096, 128), (32, 1, 128, 4096), (8, 4, 4096, 128), (8, 4, 128, 4096),
]


# The classes a sweep runs unless told (--classes; build_kernels.py
# --sweep-static builds the same), and those the tuner fills the policy's
# table from (benchmarks/tune_policy.py): odd stays out of it, held out.
DEFAULT_CLASSES = ("llm", "square", "odd")
TUNED_CLASSES = ("llm", "square")
CLASSES = DEFAULT_CLASSES + ("narrow", "attention")


def shapes(classes: list[str]) -> list[tuple[str, int, int, int, int]]:
    """(class, M, N, K, batch) of the sweep, each once; batch 0: a 2-D
    product."""
    out, seen = [], set()
    if "llm" in classes:
        for _, _, n, k in PROJECTIONS:
            for m in M_VALUES:
                if (m, n, k) not in seen:
                    seen.add((m, n, k))
                    out.append(("llm", m, n, k, 0))
    if "square" in classes:
        out += [("square", s, s, s, 0) for s in SQUARES]
    if "odd" in classes:
        out += [("odd", m, n, k, 0) for m, n, k in ODD]
    if "narrow" in classes:
        out += [("narrow", m, n, k, 0) for n in NARROW_N for m in NARROW_M for k in NARROW_K]
    if "attention" in classes:
        out += [("attention", m, n, k, b) for b, m, n, k in ATTENTION]
    return out


def shape_name(layout: str, m: int, n: int, k: int, batch: int = 0) -> str:
    """sweep_LAYOUT_MxNxK, or sweep_LAYOUT_BxMxNxK for a batch: the static
    kernel's directory (build_kernels.py --sweep-static)."""
    return f"sweep_{layout}_{f'{batch}x' if batch else ''}{m}x{n}x{k}"


def implementations(rules: bool = False) -> dict:
    impls = {"cublas_f32acc": cublas(False, torch.matmul)}
    if hasattr(torch.backends.cuda.matmul, "allow_fp16_accumulation"):
        impls["cublas_f16acc"] = cublas(True, torch.matmul)
    impls["gpupoor"] = lambda x, b: split_k_sequential(x, b)
    if rules:
        # The same call with the hand-written rules alone (the tuned table
        # off while its plans are made and captured).
        impls["gpupoor_rules"] = lambda x, b: split_k_sequential(x, b)
    return impls


def operands(layout: str, m: int, n: int, k: int, pad: bool = False, batch: int = 0):
    """x (M x K; stored K x M for km and kmnk, in rows of a multiple of 8
    elements with `pad`), the weights B (K x N; stored N x K for nk and
    kmnk) rotated over enough copies to fill 4x the L2, and their count;
    random normal. With a batch, each is that many of them, (batch, M, K)
    and (batch, K, N)."""
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    lead = (batch,) if batch else ()
    rotate = max(1, min(32, -(-4 * l2 // (max(batch, 1) * n * k * 2))))
    if layout in ("nk", "kmnk"):
        bs = [torch.randn(*lead, n, k, device="cuda").half().transpose(-2, -1)
              for _ in range(rotate)]
    else:
        bs = [torch.randn(*lead, k, n, device="cuda").half() for _ in range(rotate)]
    if layout in ("km", "kmnk"):
        x = torch.randn(*lead, k, -(-m // 8) * 8 if pad else m,
                        device="cuda").half()[..., :m].transpose(-2, -1)
    else:
        x = torch.randn(*lead, m, k, device="cuda").half()
    return x, bs, rotate


def static_path(kdir: str, layout: str, m: int, n: int, k: int, batch: int = 0):
    """The static kernel of the shape in `kdir` (build_kernels.py
    --sweep-static) as a call fn(x, b) -> C, or None where it has none."""
    path = os.path.join(kdir, shape_name(layout, m, n, k, batch))
    if not os.path.isfile(os.path.join(path, "gpupoor_matmul_0.json")):
        return None
    gpu_tests = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "GPU")
    if gpu_tests not in sys.path:
        sys.path.insert(0, gpu_tests)
    from gpupoor_kernel import GpupoorKernel

    kern = GpupoorKernel(path)
    c = torch.empty(*((batch,) if batch else ()), m, n, dtype=torch.float16, device="cuda")

    # An A stored K x M that the compiled program copies M x K first
    # (policy::copiesKMajorA: its kernel reads A as M x K) is copied here by
    # torch, in the same graph, standing in for the program's own copy.
    # (A swapped kernel reads A as its B: N x K there.) One row of K a
    # multiple of 8 is reshaped, not copied (copyAContiguous in SplitK.cpp).
    meta = kern.meta
    reshaped = layout == "km" and m == 1 and k % 8 == 0
    copies = layout == "km" and not reshaped and (
        meta["b_layout"] == "nk" if meta.get("swapped_operands")
        else meta.get("a_layout", "mk") == "mk")

    def call(x, b):
        if reshaped:
            # The program's reshape of its contiguous K x 1 column: a row
            # K elements apart (operands() without padding).
            assert x.stride(-1) == 1 and x.transpose(-2, -1).is_contiguous()
            x = x.as_strided(x.shape, (*x.stride()[:-2], k, 1))
        if copies:
            # A fresh M x K tensor, in padded rows as the
            # program's copy writes them.
            x = padded_rows(x, force=True)
        # Operands whose rows lie off 16 bytes, which the program copies
        # into padded rows first where its kernel reads 16-byte rows
        # (policy::copiesUnalignedOperands; an A stored K x M, read so,
        # whatever the size: policy::Strategy::padsA): copied so here too.
        if kern.aligned:
            x, b = padded_rows(x), padded_rows(b)
        # The launcher takes B as stored: N x K for nk.
        kern(x, b.transpose(-2, -1) if layout == "nk" else b, c)
        return c
    return call


def padded_rows(t, force: bool = False):
    """`t` (rows along its last dimension, or along the one before for a
    transposed view) as it lies where its rows are whole 16 bytes, else (and
    with `force`, then along the last dimension, by torch) a copy in padded
    rows (policy::paddedRowElems), viewed at its own size."""
    along_last = force or t.stride(-1) == 1
    s = t if along_last else t.transpose(-2, -1)
    if not force and (s.size(-2) == 1 or s.stride(-2) % 8 == 0):
        return t
    if not force:
        # The row-copy kernel the compiled program launches for these
        # copies (gpupoor-offload-to-gpu), as the package's library holds it.
        return C._padded_rows(t)
    cols = s.size(-1)
    out = s.new_empty(*s.shape[:-1], C.padded_row_elems(cols))[..., :cols]
    out.copy_(s)
    return out if along_last else out.transpose(-2, -1)


def settle(call, rotate: int) -> None:
    """Products of 50 us and more: `call` (fn(i), i < rotate) run untimed for
    0.2 s first, so that every contestant after it is timed at the sustained
    clock (gpupoor.bench.sustain)."""
    if time_graph(call, 10, rotate) >= 50:
        sustain(call, rotate, 0.2)


def measure(layout: str, m: int, n: int, k: int, reps: int,
            impls: dict, shift: int = 0,
            batch: int = 0) -> tuple[dict[str, float], dict[str, float]]:
    """µs and relative error against fp64 of each implementation for one
    shape (a batch of them); missing where it failed. `shift`: the
    contestant timed first (rotating the order; a pass's index)."""
    x, bs, rotate = operands(layout, m, n, k, batch=batch)
    us, err = {}, {}
    ref = x.double() @ bs[0].double()
    # Two rounds, the second in reverse order, keeping each one's faster
    # median: the contestant timed first after a shape's operands are made
    # read up to 25% slow (H200, 2026-11-28: 1 x 4096 x 14336 44.8 us
    # timed first, 34.3 in another run's order).
    # Passes rotate the timing order: the one timed first sees the coolest GPU (H200,
    # 2026-11-30: at 128 x 10240 x 8192, B K x N, cuBLAS f32acc timed first
    # held 47.2-49.0 us over three passes while cuBLAS f16acc and the package
    # after it drifted 51-70 and 50-67; timed in alternating rounds the
    # package ran 0.96-0.97x cuBLAS f32acc,
    # benchmarks/data/retime_worst_sm_90a.json).
    # (The settling call stays the first contestant, cuBLAS f32acc's, which
    # runs every shape.)
    names = list(impls)
    lead = impls[names[0]]
    names = names[shift % len(names):] + names[:shift % len(names)]
    settle(lambda i: lead(x, bs[i]), rotate)
    for name in names + names[::-1]:
        fn = impls[name]
        if name == "gpupoor_rules":
            C._force_choice(None, table=False)
        try:
            t = time_graph(lambda i: fn(x, bs[i]), reps, rotate)
            first = name not in us
            us[name] = min(us.get(name, t), t)
            # ||C - C_fp64|| / ||C_fp64|| on the same random normal inputs
            # (once: every kernel here is deterministic).
            if first:
                err[name] = ((fn(x, bs[0]).double() - ref).norm() / ref.norm()).item()
        except Exception as e:  # noqa: BLE001 - report and go on
            if name not in us:
                print(f"  {name} {layout} {m}x{n}x{k}: {type(e).__name__}: {str(e)[:160]}",
                      file=sys.stderr)
        finally:
            if name == "gpupoor_rules":
                C._force_choice(None)
    return us, err


def summary(rows: list[dict]) -> dict:
    """Geomean and worst of gpupoor's ratio to cuBLAS f32acc, and the counts
    below 0.85 and 0.95."""
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    if not ratios:
        return {"shapes": 0}
    worst = min(rows, key=lambda r: r.get("ratio") or math.inf)
    # gpupoor's error over cuBLAS f16acc's (the target: at most 1/3).
    errs = [r["err"]["gpupoor"] / r["err"]["cublas_f16acc"] for r in rows
            if "gpupoor" in r["err"] and r["err"].get("cublas_f16acc")]
    rules = [r["rules_ratio"] for r in rows if r.get("rules_ratio")]
    static = [r["static_ratio"] for r in rows if r.get("static_ratio")]
    # The package's speed over the static path's, shape by shape.
    over = [r["ratio"] / r["static_ratio"] for r in rows
            if r.get("static_ratio") and r.get("ratio")]
    geo = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else None  # noqa: E731
    return {"shapes": len(ratios),
            "static_geomean": geo(static), "static_worst": min(static, default=None),
            "package_over_static_geomean": geo(over),
            "package_over_static_worst": min(over, default=None),
            "package_below_0.95_of_static": sum(o < 0.95 for o in over),
            "geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
            "rules_geomean": (math.exp(sum(map(math.log, rules)) / len(rules))
                              if rules else None),
            "rules_worst": min(rules, default=None),
            "worst": worst["ratio"],
            "worst_shape": ([worst["batch"]] if worst.get("batch") else []) + worst["shape"],
            "below_0.85": sum(r < 0.85 for r in ratios),
            "below_0.95": sum(r < 0.95 for r in ratios),
            "max_err_vs_f16acc": max(errs, default=None),
            "err_above_third_of_f16acc": sum(e > 1 / 3 for e in errs)}


def report(rows: list[dict], layouts: list[str], classes: list[str], device: str, date: str,
           json_path: str | None, plot_path: str | None, plt) -> None:
    """Sorts the rows in the sweep's own order, prints each layout's and
    class's summary, and writes the JSON and the plot where asked."""
    order = shapes(classes)
    # The rows in the sweep's own order: by layout, class, projection, M.
    rows.sort(key=lambda r: (layouts.index(r["layout"]),
                             order.index((r["class"], *r["shape"], r.get("batch", 0)))))
    summaries = {}
    for layout in layouts:
        for cls in classes + ["all"]:
            part = [r for r in rows if r["layout"] == layout and cls in (r["class"], "all")]
            summaries[f"{layout}/{cls}"] = s = summary(part)
            if s["shapes"]:
                print(f"{layout}/{cls}: {s['shapes']} shapes, geomean {s['geomean']:.3f}, worst "
                      f"{s['worst']:.3f} at {s['worst_shape']}, below 0.85: {s['below_0.85']}, "
                      f"below 0.95: {s['below_0.95']}; error over cuBLAS f16acc's: max "
                      f"{s['max_err_vs_f16acc'] or float('nan'):.2f}, above 1/3 at "
                      f"{s['err_above_third_of_f16acc']} shapes" +
                      (f"; the rules alone: geomean {s['rules_geomean']:.3f}, worst "
                       f"{s['rules_worst']:.3f}" if s["rules_geomean"] else "") +
                      (f"; static path: geomean {s['static_geomean']:.3f}, worst "
                       f"{s['static_worst']:.3f}; package over static: geomean "
                       f"{s['package_over_static_geomean']:.3f}, worst "
                       f"{s['package_over_static_worst']:.3f}, below 0.95 at "
                       f"{s['package_below_0.95_of_static']} shapes"
                       if s["static_geomean"] else ""))
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"device": device, "date": date,
                       "rows": rows, "summaries": summaries}, f, indent=1)
    if plt is not None:
        fig, ax = plt.subplots(figsize=(10, 5))
        for layout in layouts:
            pts = [(2 * max(r.get("batch", 0), 1) * r["shape"][0] * r["shape"][1] * r["shape"][2],
                    r["ratio"])
                   for r in rows if r["layout"] == layout and r["ratio"]]
            if pts:
                ax.scatter(*zip(*pts), s=10,
                           label="A K x M, B K x N" if layout == "km" else f"B {layout}")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("FLOPs of the product")
        ax.set_ylabel("gpupoor / cuBLAS f32acc (speed)")
        ax.set_title(f"{device}: the package's default call over the sweep")
        ax.legend()
        save(fig, plot_path)


def merge(paths: list[str], json_path: str | None, plot_path: str | None) -> int:
    """--merge: one sweep of the rows of several --json files of one device
    (a sweep of every layout runs longer than one call of the device tool
    lets a command run); a layout and shape in two of them is refused."""
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    devices = {r["device"] for r in runs}
    if len(devices) != 1:
        print(f"bench_sweep: --merge: the sweeps ran on different devices {sorted(devices)}",
              file=sys.stderr)
        return 2
    rows, seen = [], set()
    for run in runs:
        for row in run["rows"]:
            key = (row["layout"], row["class"], *row["shape"], row.get("batch", 0))
            if key in seen:
                print(f"bench_sweep: --merge: {key} is in two of the sweeps", file=sys.stderr)
                return 2
            seen.add(key)
            rows.append(row)
    layouts = [lay for lay in ("nk", "kn", "km") if any(r["layout"] == lay for r in rows)]
    classes = [c for c in CLASSES if any(r["class"] == c for r in rows)]
    plt = pyplot("bench_sweep") if plot_path else None
    if plot_path and plt is None:
        return 1
    report(rows, layouts, classes, devices.pop(), " and ".join(sorted({r["date"] for r in runs})),
           json_path, plot_path, plt)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--layouts", default="nk,kn", help="of nk, kn, km")
    p.add_argument("--classes", default=",".join(DEFAULT_CLASSES))
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--json", help="write every row and the summaries")
    p.add_argument("--plot", help="write a PNG of the ratios")
    p.add_argument("--rules", action="store_true",
                   help="also time the call with the tuned table off (the rules alone)")
    p.add_argument("--static", metavar="KDIR",
                   help="also time the static kernels of build_kernels.py --sweep-static")
    p.add_argument("--passes", type=int, default=1,
                   help="time every shape in this many passes over the whole sweep (fresh "
                        "operands each) and keep each contestant's median")
    p.add_argument("--shapes", metavar="MxNxK,...",
                   help="time only these products of the classes, at every batch (to "
                        "re-measure the rows a change moves: drop them from the old JSON "
                        "before --merge, which refuses a row in two files)")
    p.add_argument("--merge", nargs="+", metavar="JSON",
                   help="time nothing: join the rows of sweeps run in separate calls of one "
                        "device (each its own layouts) and write the summaries and plot")
    args = p.parse_args(argv)
    if args.merge:
        return merge(args.merge, args.json, args.plot)
    layouts = [s for s in args.layouts.split(",") if s]
    classes = [s for s in args.classes.split(",") if s]
    if set(layouts) - {"nk", "kn", "km"} or set(classes) - set(CLASSES) or not layouts:
        print("bench_sweep: --layouts takes nk,kn,km and --classes " + ",".join(CLASSES),
              file=sys.stderr)
        return 2
    rc, plt = preflight("bench_sweep", args.plot)
    if rc is not None:
        return rc
    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    print(f"{props.name}, {props.multi_processor_count} SMs; CUDA-graph replays, "
          f"ratios to cuBLAS f32acc")
    if args.passes < 1:
        print("bench_sweep: --passes must be at least 1", file=sys.stderr)
        return 2
    impls = implementations(args.rules)
    rows = []
    order = shapes(classes)
    if args.shapes:
        specs = args.shapes.split(",")
        if not all(re.fullmatch(r"\d+x\d+x\d+", spec) for spec in specs):
            print("bench_sweep: --shapes takes MxNxK,...", file=sys.stderr)
            return 2
        only = {tuple(map(int, spec.split("x"))) for spec in specs}
        missing = only - {s[1:4] for s in order}
        if missing:
            print("bench_sweep: --shapes names products of none of the classes: " +
                  ",".join("x".join(map(str, s)) for s in sorted(missing)), file=sys.stderr)
            return 2
        order = [s for s in order if s[1:4] in only]
    # A shape's timings move by up to 15% from one run to the next with its
    # kernels unchanged (H200, 2026-11-29, two sweeps of one session): with
    # passes, each contestant's median over whole passes of the sweep, so
    # that one pass's slow spell does not decide a shape.
    for layout, pass_ in [(lay, i) for i in range(args.passes) for lay in layouts]:
        # Ascending work, and idle between layouts: a decode product timed
        # right after a 4096-row one (the end of a projection's M values, or
        # of the previous layout) inherits a clock the GPU is still leaving
        # (H200, 2026-11-29: 1 x 4096 x 11008 (B K x N) 30.5-34.9 us after
        # 0.5 s of 4096 x 4096 x 11008, 26.3-27.1 after 2 s idle; cuBLAS
        # 27.6-28.7 and 26.8-27.4).
        time.sleep(2)
        for cls, m, n, k, bt in sorted(order, key=lambda s: max(s[4], 1) * s[1] * s[2] * s[3]):
            impls.pop("static", None)
            static = args.static and static_path(args.static, layout, m, n, k, bt)
            if static:
                impls["static"] = static
            us, err = measure(layout, m, n, k, args.reps, impls, shift=pass_, batch=bt)
            dims = f"{bt}x" if bt else ""
            if pass_ > 0:
                row = next(r for r in rows if (r["layout"], r["class"], r["shape"],
                                               r.get("batch", 0)) == (layout, cls, [m, n, k], bt))
                for name, t in us.items():
                    row["passes"].setdefault(name, []).append(t)
                print(f"{layout} {dims}{m:>5}x{n:>5}x{k:>5} (pass {pass_ + 1}): " +
                      " ".join(f"{name} {t:8.1f}" for name, t in us.items()), flush=True)
                continue
            base, ours = us.get("cublas_f32acc"), us.get("gpupoor")
            row = {"layout": layout, "class": cls, "shape": [m, n, k], "us": us, "err": err,
                   "ratio": base / ours if base and ours else None}
            if bt:
                row["batch"] = bt
            if args.passes > 1:
                row["passes"] = {name: [t] for name, t in us.items()}
            if us.get("gpupoor_rules") and base:
                row["rules_ratio"] = base / us["gpupoor_rules"]
            if us.get("static") and base:
                row["static_ratio"] = base / us["static"]
            rows.append(row)
            f16 = us.get("cublas_f16acc")
            print(f"{layout} {dims}{m:>5}x{n:>5}x{k:>5}: " +
                  " ".join(f"{name} {t:8.1f}" for name, t in us.items()) +
                  (f"  x{row['ratio']:.2f}" if row["ratio"] else "") +
                  (f" (f16acc x{f16 / ours:.2f})" if f16 and ours else "") +
                  "  err " + " ".join(f"{e:.1e}" for e in err.values()), flush=True)
    for row in rows if args.passes > 1 else []:
        row["us"] = us = {name: statistics.median(ts) for name, ts in row["passes"].items()}
        base, ours = us.get("cublas_f32acc"), us.get("gpupoor")
        row["ratio"] = base / ours if base and ours else None
        for key, name in (("rules_ratio", "gpupoor_rules"), ("static_ratio", "static")):
            row.pop(key, None)
            if us.get(name) and base:
                row[key] = base / us[name]
    report(rows, layouts, classes, props.name, datetime.date.today().isoformat(),
           args.json, args.plot, plt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
