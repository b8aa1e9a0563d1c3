"""Speed and error of the package's kernels at split counts above the
default's, on decode and skinny shapes in every layout.

  python benchmarks/bench_splits.py --json OUT.json
  python benchmarks/bench_splits.py --max-splits 32,256 --json OUT.json

Each shape (M of 1, 4, 16, 32, 64 against LLM projections) runs through the
package with S forced (gpupoor._C._force_choice(splits=S); the library's
kernels take S from the launch) at the policy's default, twice it,
ceil(K / 128) and ceil(K / 64), beside cuBLAS f32acc: CUDA-graph replay
with the weights rotated beyond L2, each contestant timed twice (the second
pass reversed), the faster kept; the error is ||C - C64|| / ||C64|| on one
random normal input. The JSON holds every row and, per family, the
geometric mean and the least of each candidate's speed over the default's
(benchmarks/data/splits_decode_sm_90a.json; policy::tileNumSplits).

--max-splits A,B instead runs every decode product of bench_sweep.py's
sweep (M <= 16, every layout) through the package's default call at
max_k_splits A and at B beside cuBLAS f32acc (timed as above, two rounds)
and cuBLAS f16acc (error only): per layout the geometric means of the
speed against cuBLAS f32acc and of the error, and how many shapes run
below cuBLAS f32acc's speed and above a third of cuBLAS f16acc's error
(benchmarks/data/max_splits_decode_sm_90a.json; policy::kDefaultMaxSplits).
"""

from __future__ import annotations

import argparse
import collections
import math
import json
import sys

import torch

from gpupoor import split_k_sequential
from gpupoor._native import C
from gpupoor.bench import cublas, time_graph

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import bench_sweep  # noqa: E402

PROJECTIONS = [(4096, 4096), (4096, 14336), (14336, 4096), (5120, 5120), (8192, 28672),
               (28672, 8192), (11008, 4096), (4096, 11008)]
ROWS = (1, 4, 16, 32, 64)


def measure(layout: str, m: int, n: int, k: int, sms: int) -> dict:
    """One shape's row: each candidate's S, µs and error, cuBLAS's µs."""
    a_layout, b_layout = ("km", "kn") if layout == "km" else ("mk", layout)
    launch = C.choose_launch("sm_90a", m, n, k, b_layout, 0, C.DEFAULT_MAX_SPLITS, sms,
                             a_layout)
    # gpu_poor's rule (policy::defaultNumSplits), which the policy raises
    # for the tiles with a longest chunk (policy::longestChunk).
    default = C.default_splits(k, C.DEFAULT_MAX_SPLITS)
    cands = {"rule": default, "2x": min(2 * default, 65536), "k128": -(-k // 128),
             "k64": -(-k // 64)}
    x, bs, rotate = bench_sweep.operands(layout, m, n, k, pad=True)
    ref = x.double() @ bs[0].double()
    us, err = {}, {}

    def run(name: str, fn):
        C._force_choice(None, splits=cands[name])
        try:
            return fn()
        finally:
            C._force_choice(None)

    def timed(name: str) -> float:
        return run(name, lambda: time_graph(lambda i: split_k_sequential(x, bs[i]), 40, rotate))

    for name in cands:
        y = run(name, lambda: split_k_sequential(x, bs[0]))
        err[name] = ((y.double() - ref).norm() / ref.norm()).item()
        us[name] = timed(name)
    base = lambda i: cublas(False, torch.matmul)(x, bs[i])
    us["cublas"] = time_graph(base, 40, rotate)
    for name in reversed(list(cands)):
        us[name] = min(us[name], timed(name))
    us["cublas"] = min(us["cublas"], time_graph(base, 40, rotate))
    return dict(layout=layout, shape=[m, n, k], family=launch["family"], splits=cands, us=us,
                err=err)


def geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs))


def summarize(rows: list[dict]) -> dict:
    """Per family: each candidate's speed over the default's, geomean and
    least."""
    speed = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        for c in ("2x", "k128", "k64"):
            speed[r["family"]][c].append(r["us"]["rule"] / r["us"][c])
    out = {}
    for fam, by in sorted(speed.items()):
        out[fam] = {"shapes": len(by["k64"])}
        for c, v in by.items():
            out[fam][c] = {"speed_vs_rule_geomean": round(geomean(v), 3),
                           "speed_vs_rule_min": round(min(v), 3)}
    return out


def compare_max_splits(values: list[int]) -> dict:
    """Each decode product of the sweep at each max_k_splits of `values`:
    µs, error, and per layout the summary (module docstring)."""
    rows = []
    for layout in ("nk", "kn", "km"):
        for _, m, n, k, _ in bench_sweep.shapes(["llm"]):
            if m > 16:
                continue
            x, bs, rotate = bench_sweep.operands(layout, m, n, k)
            ref = x.double() @ bs[0].double()
            calls = {f"max{v}": (lambda v: lambda i: split_k_sequential(x, bs[i], max_k_splits=v))(v)
                     for v in values}
            err = {name: ((fn(0).double() - ref).norm() / ref.norm()).item()
                   for name, fn in calls.items()}
            f16 = cublas(True, torch.matmul)(x, bs[0])
            err["cublas_f16acc"] = ((f16.double() - ref).norm() / ref.norm()).item()
            calls["cublas_f32acc"] = lambda i: cublas(False, torch.matmul)(x, bs[i])
            us: dict[str, float] = {}
            for names in (list(calls), list(calls)[::-1]):
                for name in names:
                    t = time_graph(calls[name], 40, rotate)
                    us[name] = min(us.get(name, t), t)
            rows.append(dict(layout=layout, shape=[m, n, k], us=us, err=err))
            print(layout, m, n, k, " ".join(
                f"{c}: {us['cublas_f32acc'] / us[c]:.3f} {err[c]:.2e}" for c in calls if c in err),
                flush=True)
    summary = {}
    for layout in ("nk", "kn", "km"):
        r = [x for x in rows if x["layout"] == layout]
        summary[layout] = {"shapes": len(r)}
        for v in values:
            c = f"max{v}"
            summary[layout][c] = {
                "speed_geomean": round(geomean([x["us"]["cublas_f32acc"] / x["us"][c] for x in r]), 3),
                "below_cublas": sum(x["us"][c] > x["us"]["cublas_f32acc"] for x in r),
                "err_geomean": float(f"{geomean([x['err'][c] for x in r]):.3g}"),
                "err_above_third_of_f16acc": sum(x["err"][c] > x["err"]["cublas_f16acc"] / 3
                                                 for x in r)}
    return dict(summary=summary, rows=rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", required=True)
    p.add_argument("--max-splits", help="A,B: compare the default call at these max_k_splits")
    args = p.parse_args(argv)
    if args.max_splits:
        out = compare_max_splits([int(v) for v in args.max_splits.split(",")])
        print(json.dumps(out["summary"], indent=1))
        with open(args.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), **out), f, indent=1)
        return 0
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = []
    for layout in ("nk", "kn", "km"):
        for n, k in PROJECTIONS:
            for m in ROWS:
                row = measure(layout, m, n, k, sms)
                rows.append(row)
                print(layout, m, n, k, row["family"], " ".join(
                    f"{c}:S={row['splits'][c]} {row['us']['cublas'] / row['us'][c]:.3f} "
                    f"{row['err'][c]:.2e}" for c in row["splits"]), flush=True)
    with open(args.json, "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), summary_by_family=summarize(rows),
                       rows=rows), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
