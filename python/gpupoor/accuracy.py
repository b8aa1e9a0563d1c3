"""Error of split-k products against a float64 product, over the split count.

  python -m gpupoor.accuracy [--shape MxNxK] [--trials N] [--backend triton] [--plot out.png]
                            [--json out.json]

For S in {1, 2, 4, ..., 32} (max_k_splits = S; the S the kernel runs is
printed) and both outer types, relative error ||C - C64|| / ||C64|| of
gpupoor's product on fresh random normal inputs, next to cuBLAS with f32
and f16 accumulation. Default shape M=1, N=4096, K=14336 (gpu_poor's figure).
--json writes every error (device and date included), from which
docs/gen_results.py makes docs/results/host-and-accuracy.md.
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


def rel_err(c: torch.Tensor, ref: torch.Tensor) -> float:
    return ((c.double() - ref).norm() / ref.norm()).item()


def main(argv: list[str] | None = None) -> int:
    from ._triton_backend import chunking
    from .kernels import split_k_sequential
    p = argparse.ArgumentParser(prog="python -m gpupoor.accuracy", description=__doc__.split("\n\n")[0])
    p.add_argument("--shape", default="1x4096x14336", help="MxNxK")
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--backend", default="triton", choices=("mlir", "triton"),
                   help="triton takes any S; mlir needs a kernel per S (library or gpupoor-opt)")
    p.add_argument("--max-splits", type=int, default=32)
    p.add_argument("--plot", help="write a box plot PNG")
    p.add_argument("--json", help="write every error, with the device and date")
    args = p.parse_args(argv)
    rc, plt = preflight("gpupoor.accuracy", args.plot)
    if rc is not None:
        return rc
    try:
        m, n, k = (int(v) for v in args.shape.split("x"))
    except ValueError:
        print(f"gpupoor.accuracy: --shape: expected MxNxK, got {args.shape!r}", file=sys.stderr)
        return 2
    splits = [1 << i for i in range(args.max_splits.bit_length()) if 1 << i <= args.max_splits]
    errs: dict[str, list[float]] = {}
    for t in range(args.trials):
        print(f"[{t + 1}/{args.trials}]", file=sys.stderr, flush=True)
        g = torch.Generator(device="cuda").manual_seed(t)
        x = torch.randn(m, k, device="cuda", generator=g).half()
        w = torch.randn(n, k, device="cuda", generator=g).half()
        ref = x.double() @ w.double().T
        for acc16 in (False, True):
            torch.backends.cuda.matmul.allow_fp16_accumulation = acc16
            errs.setdefault(f"cuBLAS {'f16' if acc16 else 'f32'}acc", []).append(
                rel_err(F.linear(x, w), ref))
        torch.backends.cuda.matmul.allow_fp16_accumulation = False
        for outer in ("f16", "f32"):
            for s in splits:
                label = f"{outer} outer, S<={s}"
                try:
                    c = split_k_sequential(x, w.T, max_k_splits=s, outer=outer,
                                           backend=args.backend)
                except RuntimeError as e:
                    print(f"  {label}: {e}", file=sys.stderr)
                    continue
                errs.setdefault(label, []).append(rel_err(c, ref))
    print(f"{m}x{n}x{k}, {args.trials} trials, backend {args.backend}; relative error "
          f"||C - C64|| / ||C64||")
    print(f"{'':>22} {'S run':>6} {'median':>9} {'min':>9} {'max':>9}")
    runs = {}
    for label, v in errs.items():
        s_run = ""
        if "S<=" in label:
            s_run = str(chunking(k, int(label.split("<=")[1]))[0]) if args.backend == "triton" else "-"
            runs[label] = s_run
        print(f"{label:>22} {s_run:>6} {statistics.median(v):9.2e} {min(v):9.2e} {max(v):9.2e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": datetime.date.today().isoformat(), "shape": [m, n, k],
                       "trials": args.trials, "backend": args.backend, "splits_run": runs,
                       "errors": errs}, f)
    if plt is not None:
        fig, ax = plt.subplots(figsize=(10, 5))
        labels = list(errs)
        ax.boxplot([errs[l] for l in labels])
        ax.set_xticks(range(1, len(labels) + 1), labels, rotation=45, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("||C - C64|| / ||C64||")
        ax.set_title(f"split-k error, {m}x{n}x{k} ({args.backend})")
        save(fig, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
