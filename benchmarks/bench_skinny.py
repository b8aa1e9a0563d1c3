#!/usr/bin/env python3
"""Small-M (decode) products: gpupoor's parallel split-k next to its
sequential kernel and cuBLAS, as time, TFLOP/s and memory bandwidth.

  python3 test/GPU/build_kernels.py KDIR --skinny --only   # on the MLIR machine
  python3 benchmarks/bench_skinny.py KDIR [--reps 40]      # on the GPU

Shapes: M in {1, 16, 64, 128, 512} x (N, K) in {(4096, 4096), (4096, 14336),
(14336, 4096), (2048, 5120)}, A (M x K) times a weight W stored N x K
(nn.Linear's layout), C = A W^T in f16. Columns: cuBLAS with f32 and with
f16 accumulation (torch.matmul on W.t()), gpupoor sequential
(skinny_seq_*: the static shape's defaults with one slice) and parallel
(skinny_par_*: the slice count the pipeline chooses, P'), each as
microseconds, TFLOP/s, GB/s of operand traffic ((M K + N K + M N) * 2 bytes)
and that bandwidth's share of the device's copy bandwidth, measured in the
same run (a 1 GiB device-to-device copy, read plus write bytes). Ratios to
cuBLAS f32acc come last, then par's time against a copy that moves the
weight's bytes (half the weight read, half written, sources rotated like
the weights, timed after the turns): how close a kernel of that size
comes to the memory at all, launch and ramp included.

gpupoor's kernels for sm_90 and later launch with programmatic stream
serialization (their manifests say dependent_launch): back to back, one
launch's start overlaps the previous one's end, as in a model's chain of
layers. The column "par, plain launch" is par's kernel launched plainly;
cuBLAS launches as PyTorch launches it.

Weights come from HBM: every contestant rotates over enough weight copies
that they span more than 4x the L2 (50 MiB on an H100, 60 MiB on an H200),
so a launch never finds its weights in L2 from the launch before. Timing:
bench_matmul.time_many (CUDA events around batches, contestants in turns,
median), or with --sustained bench_matmul.time_sustained (a stretch of
back-to-back launches a contestant, replayed from a CUDA graph so that the
launcher's host time does not pace short kernels, its first quarter not
timed, in turns that start one contestant further along each round, median; each
contestant's SM clock and board power close the row). Error: relative Frobenius error
against an fp64 product.

With --batched: the attention-like batched products of skinny_shapes.py in
one launch each, against torch.bmm: the static kernels attn_{seq,par}_* of
build_kernels.py --attention where built, else the dynamic-shape
kn_f32_batched[_p0] and nk_f32_batched[_p0]; and attn_TAG_* of
build_kernels.py --attention-config as extra columns. Operands rotate as
above.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "GPU"))
from bench_matmul import time_many, time_sustained  # noqa: E402
from skinny_shapes import ATTENTION, SKINNY_SHAPES  # noqa: E402
from gpupoor_kernel import GpupoorKernel  # noqa: E402


# The GPU spins this many cycles (about 4 ms) before each timed batch while
# the host queues it: a launch through the Python launcher (argument checks,
# views, workspace) can cost more host time than these 13-60 us kernels
# take, and bench_matmul's shorter head let the host fall behind (the same
# kernel measured 16.6 and 25.5 us in two runs).
HEAD_CYCLES = 8_000_000

# par's kernel launched without programmatic stream serialization: what the
# overlap of back-to-back launches gives (GpupoorKernel launches kernels
# whose manifest says dependent_launch with it, as the package does).
PLAIN = "gpupoor par, plain launch"


def copy_bandwidth():
    """GB/s of a 1 GiB device-to-device copy (bytes read plus written)."""
    src = torch.empty(1 << 29, dtype=torch.float16, device="cuda").normal_()
    dst = torch.empty_like(src)
    t = time_many({"copy": lambda: dst.copy_(src)}, [()], warmup=3, reps=20, batch=5)["copy"]
    return 2 * src.numel() * 2 / (t * 1e-3) / 1e9


def row_cells(cells, cols, timed, errs, slices, shape, copy_gbs):
    """A table row: `cells`, then per column of `cols` time, TFLOP/s, GB/s
    of operand traffic and its share of the copy bandwidth, error; then par
    against the first column and against seq, and par's P'. (The columns
    whose names end in "seq" and "par" are gpupoor's.)"""
    bt, m, n, k = shape
    traffic = bt * (m * k + n * k + m * n) * 2
    for col in cols:
        if col not in timed:
            cells.append("-")
            continue
        t = timed[col]
        gbs = traffic / (t * 1e-3) / 1e9
        cells.append(f"{t * 1e3:.1f} us, {2.0 * bt * m * n * k / t / 1e9:.1f} TF/s, "
                     f"{gbs:.0f} GB/s ({gbs / copy_gbs:.0%} of copy), err {errs[col]:.2e}")
    par = next((timed[c] for c in cols if c.endswith("par") and c in timed), None)
    seq = next((timed[c] for c in cols if c.endswith("seq") and c in timed), None)
    cells.append(f"{timed[cols[0]] / par:.2f}" if par else "-")
    cells.append(f"{seq / par:.2f}" if par and seq else "-")
    cells.append(str(next((slices[c] for c in cols if c.endswith("par") and c in slices), "-")))
    return cells


def batched(args, copy_gbs):
    """The attention-like batched products (--batched)."""
    # seq and par, then the tags of build_kernels.py --attention-config.
    tags = sorted({d.split("_")[1] for d in os.listdir(args.kernel_dir) if d.startswith("attn_")}
                  | {"seq", "par"}, key=lambda t: ({"seq": 0, "par": 1}.get(t, 2), t))
    labels = ("cuBLAS",) + tuple(tags)
    print("batched product | B x M x N x K | cuBLAS bmm f32acc | " +
          " | ".join(f"gpupoor {t}" for t in tags) + " | par/cuBLAS | par/seq | par P'")
    for name, bt, m, n, k, layout in ATTENTION:
        nk = layout == "nk"
        bbytes = bt * n * k * 2
        copies = max(2, int(4 * args.l2_mib * 2**20 // bbytes) + 1)
        sets = [(torch.randn(bt, m, k, device="cuda").half(),
                 torch.randn((bt, n, k) if nk else (bt, k, n), device="cuda").half())
                for _ in range(copies)]
        a0, b0 = sets[0]
        ref = a0.double() @ (b0.double().transpose(1, 2) if nk else b0.double())
        err = lambda c: ((c.double() - ref).norm() / ref.norm()).item()
        out = torch.empty(bt, m, n, device="cuda", dtype=torch.float16)
        fns = {"cuBLAS": lambda a, b: torch.bmm(a, b.transpose(1, 2) if nk else b)}
        errs = {"cuBLAS": err(fns["cuBLAS"](a0, b0))}
        slices = {}
        for label in tags:
            # The static kernel of the shape (build_kernels.py --attention),
            # else the dynamic one.
            kdir = os.path.join(args.kernel_dir, f"attn_{label}_{name}")
            if not os.path.isdir(kdir) and label in ("seq", "par"):
                suffix = "_p0" if label == "par" else ""
                kdir = os.path.join(args.kernel_dir, f"{layout}_f32_batched{suffix}")
            if not os.path.isdir(kdir):
                continue
            kern = GpupoorKernel(kdir)
            fns[label] = lambda a, b, kk=kern: kk(a, b, out)
            c = torch.full((bt, m, n), float("nan"), device="cuda", dtype=torch.float16)
            kern(a0, b0, c)
            torch.cuda.synchronize()
            errs[label] = err(c)
            slices[label] = kern.num_slices(m, n, k, bt)
        timed = time_many(fns, sets, reps=args.reps, head_cycles=HEAD_CYCLES)
        print(" | ".join(row_cells([name, f"{bt}x{m}x{n}x{k}"], labels, timed,
                                   errs, slices, (bt, m, n, k), copy_gbs)), flush=True)
        del sets
        torch.cuda.empty_cache()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kernel_dir")
    p.add_argument("--reps", type=int, default=40)
    p.add_argument("--l2-mib", type=float, default=60.0,
                   help="L2 size the weight rotation must exceed 4x")
    p.add_argument("--shapes", help="MxNxK,... (default: the --skinny list)")
    p.add_argument("--batched", action="store_true",
                   help="the attention-like batched products instead")
    p.add_argument("--sustained", action="store_true",
                   help="time under sustained load instead (bench_matmul.time_sustained: "
                        "stretches of --seconds a contestant, --rounds turns); rows end "
                        "with each contestant's median SM clock and board power")
    p.add_argument("--seconds", type=float, default=1.0, help="--sustained: seconds a stretch")
    p.add_argument("--rounds", type=int, default=5, help="--sustained: rounds")
    args = p.parse_args()
    shapes = SKINNY_SHAPES
    if args.shapes:
        shapes = [tuple(map(int, s.split("x"))) for s in args.shapes.split(",")]
    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    copy_gbs = copy_bandwidth()
    print(f"device: {props.name}, {props.multi_processor_count} SMs; "
          f"copy bandwidth {copy_gbs:.0f} GB/s")
    if args.batched:
        return batched(args, copy_gbs)
    # Every skinny_TAG_* kernel built: seq and par, then any other tags
    # (build_kernels.py --skinny-config) as extra columns.
    tags = sorted({d.split("_")[1] for d in os.listdir(args.kernel_dir) if d.startswith("skinny_")},
                  key=lambda t: ({"seq": 0, "par": 1}.get(t, 2), t))
    cols = ["cuBLAS f32acc", "cuBLAS f16acc"] + [f"gpupoor {t}" for t in tags]
    if "par" in tags:
        cols.append(PLAIN)
    print("shape MxNxK | weight copies | " + " | ".join(cols) +
          " | par/cuBLAS f32acc | par/seq | par P' | copy of the weight's bytes | "
          "copy/par")
    for m, n, k in shapes:
        wbytes = n * k * 2
        copies = max(2, int(4 * args.l2_mib * 2**20 // wbytes) + 1)
        weights = [torch.randn(n, k, device="cuda").half() for _ in range(copies)]
        acts = [torch.randn(m, k, device="cuda").half() for _ in range(copies)]
        sets = list(zip(acts, weights))
        a0, w0 = sets[0]
        ref = a0.double() @ w0.double().t()
        err = lambda c: ((c.double() - ref).norm() / ref.norm()).item()
        out = torch.empty(m, n, device="cuda", dtype=torch.float16)

        def cublas(f16acc):
            def fn(a, w):
                torch.backends.cuda.matmul.allow_fp16_accumulation = f16acc
                return torch.matmul(a, w.t())
            return fn

        fns = {"cuBLAS f32acc": cublas(False), "cuBLAS f16acc": cublas(True)}
        errs = {name: err(fn(a0, w0)) for name, fn in fns.items()}
        half = wbytes // 4
        copy_dst = torch.empty(half, device="cuda", dtype=torch.float16)
        copy_fn = lambda a, w: copy_dst.copy_(w.view(-1)[:half])
        slices = {}
        for tag in tags:
            label = f"gpupoor {tag}"
            kdir = os.path.join(args.kernel_dir, f"skinny_{tag}_{m}x{n}x{k}")
            if not os.path.isdir(kdir):
                continue
            kern = GpupoorKernel(kdir)
            fns[label] = lambda a, w, kk=kern: kk(a, w, out)
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
            kern(a0, w0, c)
            torch.cuda.synchronize()
            errs[label] = err(c)
            slices[label] = kern.num_slices(m, n, k)
            if tag == "par" and kern.dependent:
                plain = GpupoorKernel(kdir)
                plain.dependent = False
                fns[PLAIN] = lambda a, w, kk=plain: kk(a, w, out)
                errs[PLAIN] = errs[label]
        timed, clocks = {}, {}
        if args.sustained:
            for name, (t, mhz, watts) in time_sustained(fns, sets, args.seconds, args.rounds,
                                                        graphs=True).items():
                timed[name] = t
                clocks[name] = f"{name} {mhz:.0f} MHz {watts:.0f} W"
        else:
            timed = time_many(fns, sets, reps=args.reps, head_cycles=HEAD_CYCLES)
        # Timed on its own: in the turns, the L2 lines its writes leave dirty
        # went back to memory during the next contestant's launches (an
        # identical kernel measured 2% slower right after it).
        timed.update(time_many({"copy": copy_fn}, sets, reps=args.reps,
                               head_cycles=HEAD_CYCLES))
        torch.backends.cuda.matmul.allow_fp16_accumulation = False
        cells = row_cells([f"{m}x{n}x{k}", str(copies)], cols, timed, errs, slices,
                          (1, m, n, k), copy_gbs)
        par = timed.get("gpupoor par")
        cells.append(f"{timed['copy'] * 1e3:.1f} us")
        cells.append(f"{timed['copy'] / par:.2f}" if par else "-")
        if clocks:
            cells.append("; ".join(clocks.values()))
        print(" | ".join(cells), flush=True)
        del weights, acts, sets
        torch.cuda.empty_cache()


if __name__ == "__main__":
    sys.exit(main())
