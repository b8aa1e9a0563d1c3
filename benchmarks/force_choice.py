"""The package's call under forced kernel choices, beside cuBLAS f32acc.

  # on the device (the package's library built for it)
  python benchmarks/force_choice.py [--rounds 6] [--reps 30] [--json OUT.json] \\
      nk:1x28672x8192=m16,s16w kn:16x4096x14336=s16,s16/2 km:32x5120x5120=s32,copy

A SPEC is LAYOUT:MxNxK=CHOICE,... with layouts as bench_sweep.py's (nk: B
stored N x K, kn: B as K x N, km: A stored K x M with B as K x N, and
kmnk: A stored K x M with B as N x K). A
CHOICE is FAMILY[/SLICES[/SPLITS]], which gpupoor._C._force_choice makes
the package's choice (SLICES and SPLITS 0: the policy's): that family
itself, its persistence, clusters, stream-K and handover (exact=True), or
with --as-tile the family the rules launch its tile as (as the tuner's
candidates and this tool's records whose `families` is not `exact` ran:
`pl`, `plc`, `plk` and `plh` alike the rules' twin of 128 x 256; a
persistent family takes no SLICES > 1 exactly), `splits=S`: S
chunks and the policy's choice for them (a given S may change the tile it
picks), or `copy`: A
copied M x K first (`x.contiguous()`) and the policy's choice for that, or
`nopad` / `pad`: the policy's choice with operands whose rows lie off 16
bytes launched as they lie (the element kernels) / copied into padded rows
first, whatever policy::copiesUnalignedOperands says (an A stored K x M in
rows off 16 bytes is padded either way: policy::Strategy::padsA).
Every shape also runs the package's default (`default`) and cuBLAS f32acc.
A choice whose kernel the library lacks is skipped; a shape whose default it
lacks is recorded without `candidates` (its `skipped` says why), and the run
goes on.

Timing as bench_sweep.py's: CUDA-graph replays of --reps calls, the weights
rotated beyond L2, products of 50 us and more settled first; --rounds
rounds that turn the contestants' order, medians. Prints each choice's
speed against cuBLAS f32acc and its error against an fp64 product (x 1e-4,
beside cuBLAS f16acc's);
--json writes them (benchmarks/data/wide_decode_sm_90a.json and
km_swapped32_sm_90a.json were taken this way; their default is named
`default_then`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python")]


# policy::kMaxSplits, which gpupoor._C._force_choice checks S against.
MAX_SPLITS = 65536


def parse_spec(spec: str) -> tuple[str, int, int, int, list[str]]:
    """(layout, M, N, K, choices) of LAYOUT:MxNxK=CHOICE,..."""
    try:
        shape, choices = spec.split("=", 1)
        layout, dims = shape.split(":")
        m, n, k = map(int, dims.split("x"))
    except ValueError:
        raise SystemExit(f"force_choice: a spec is LAYOUT:MxNxK=CHOICE,..., got {spec!r}")
    if layout not in ("nk", "kn", "km", "kmnk"):
        raise SystemExit(f"force_choice: layout must be nk, kn, km or kmnk, got {layout!r}")
    names = [c for c in choices.split(",") if c]
    for c in names:
        parse_choice(c)
    return layout, m, n, k, names


def parse_choice(choice: str) -> tuple[str | None, int, int]:
    """(family or None for the policy's, slices, splits) of a CHOICE."""
    if choice in ("default", "copy", "nopad", "pad"):
        return None, 0, 0
    if choice.startswith("splits="):
        try:
            splits = int(choice[len("splits="):])
        except ValueError:
            splits = 0
        if not 1 <= splits <= MAX_SPLITS:
            raise SystemExit(f"force_choice: splits=S takes an S in [1, {MAX_SPLITS}], "
                             f"got {choice!r}")
        return None, 0, splits
    parts = choice.split("/")
    if len(parts) > 3:
        raise SystemExit(f"force_choice: a choice is FAMILY[/SLICES[/SPLITS]], got {choice!r}")
    try:
        slices, splits = (int(p) for p in (parts[1:] + ["0", "0"])[:2])
    except ValueError:
        raise SystemExit(f"force_choice: slices and splits are integers, got {choice!r}")
    if slices < 0 or not 0 <= splits <= MAX_SPLITS:
        raise SystemExit(f"force_choice: slices >= 0 and splits in [0, {MAX_SPLITS}], "
                         f"got {choice!r}")
    return parts[0], slices, splits


def run_shape(layout: str, m: int, n: int, k: int, choices: list[str], rounds: int,
              reps: int, exact: bool = True) -> dict:
    """One shape's record: cuBLAS f32acc's time and each choice's speed
    against it and error."""
    import torch
    import bench_sweep
    from gpupoor import split_k_sequential
    from gpupoor._native import C
    from gpupoor.bench import cublas, time_graph

    x, bs, rotate = bench_sweep.operands(layout, m, n, k)
    ref = x.double() @ bs[0].double()
    names = ["default"] + [c for c in choices if c != "default"]

    def call(choice: str) -> Callable[[int], object]:
        # `copy` copies A inside the call, so that its time is timed with
        # the product's, as the package's own copy is.
        if choice == "copy":
            return lambda i: split_k_sequential(x.contiguous(), bs[i])
        return lambda i: split_k_sequential(x, bs[i])

    def force(choice: str) -> None:
        family, slices, splits = parse_choice(choice)
        C._force_choice(family, slices, True, splits, exact)
        C._copy_unaligned({"nopad": "never", "pad": "always"}.get(choice, "policy"))

    def unforce() -> None:
        C._force_choice(None)
        C._copy_unaligned("policy")

    def timed(choice: str) -> float:
        force(choice)
        try:
            return time_graph(call(choice), reps, rotate)
        finally:
            unforce()

    err, skipped = {}, {}
    for c in list(names):
        force(c)
        try:
            out = call(c)(0).double()
            err[c] = ((out - ref).norm() / ref.norm()).item()
        except RuntimeError as e:
            # A family (or the twin the policy takes for it) that the
            # library lacks: record it and time the others. Anything else
            # (a CUDA fault) ends the run.
            if not str(e).startswith("no kernel "):
                raise
            skipped[c] = str(e).splitlines()[0]
            if c == "default":
                # Nothing to time the others against: the shape is skipped,
                # the run goes on with the next.
                print(f"{layout}:{m}x{n}x{k}: skipped, its default: {skipped[c][:100]}",
                      flush=True)
                return {"layout": layout, "shape": [m, n, k], "skipped": skipped}
            print(f"{layout}:{m}x{n}x{k} {c}: skipped, {skipped[c][:100]}", flush=True)
            names.remove(c)
        finally:
            unforce()
    f16acc_err = None
    if hasattr(torch.backends.cuda.matmul, "allow_fp16_accumulation"):
        f16acc = cublas(True, torch.matmul)(x, bs[0]).double()
        f16acc_err = round(((f16acc - ref).norm() / ref.norm()).item() * 1e4, 2)
    bench_sweep.settle(call("default"), rotate)
    order = ["cublas"] + names
    us: dict[str, list[float]] = {c: [] for c in order}
    for r in range(rounds):
        for c in order[r % len(order):] + order[:r % len(order)]:
            if c == "cublas":
                us[c].append(time_graph(lambda i: cublas(False, torch.matmul)(x, bs[i]),
                                        reps, rotate))
            else:
                us[c].append(timed(c))
    med = {c: statistics.median(v) for c, v in us.items()}
    return {"layout": layout, "shape": [m, n, k], "cublas_f32acc_us": round(med["cublas"], 2),
            "cublas_f16acc_err_e4": f16acc_err,
            "candidates": {c: {"x_cublas": round(med["cublas"] / med[c], 3),
                               "err_e4": round(err[c] * 1e4, 2)} for c in names},
            **({"skipped": skipped} if skipped else {})}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("specs", nargs="+", metavar="LAYOUT:MxNxK=CHOICE,...")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--json", help="write the records here")
    p.add_argument("--as-tile", action="store_true",
                   help="a FAMILY names its tile, launched as the rules launch it")
    args = p.parse_args(argv)
    specs = [parse_spec(s) for s in args.specs]
    if args.rounds < 1 or args.reps < 1:
        raise SystemExit("force_choice: --rounds and --reps must be at least 1")

    import torch

    runs = []
    for layout, m, n, k, choices in specs:
        rec = run_shape(layout, m, n, k, choices, args.rounds, args.reps, not args.as_tile)
        runs.append(rec)
        # After each shape: a fault later in a long run keeps what it timed.
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"device": torch.cuda.get_device_name(0),
                           "date": datetime.date.today().isoformat(),
                           "command": "python3 benchmarks/force_choice.py " + " ".join(
                               (argv if argv is not None else sys.argv[1:])),
                           "families": "tile" if args.as_tile else "exact",
                           "runs": runs}, f, indent=1)
        if "candidates" in rec:
            print(f"{layout}:{m}x{n}x{k} cublas {rec['cublas_f32acc_us']:.1f}us "
                  f"f16acc({rec['cublas_f16acc_err_e4']}) "
                  + " ".join(f"{c}:{v['x_cublas']:.3f}({v['err_e4']:.1f})"
                             for c, v in rec["candidates"].items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
