"""Speed and error of the package's kernels at split counts above the
default's, on decode and skinny shapes in every layout.

  python benchmarks/bench_splits.py --json OUT.json

Each shape (M of 1, 4, 16, 32, 64 against LLM projections) runs through the
package with S forced (gpupoor._C._force_choice(splits=S); the library's
kernels take S from the launch) at the policy's default, twice it,
ceil(K / 128) and ceil(K / 64), beside cuBLAS f32acc: CUDA-graph replay
with the weights rotated beyond L2, each contestant timed twice (the second
pass reversed), the faster kept; the error is ||C - C64|| / ||C64|| on one
random normal input. The JSON holds every row and, per family, the
geometric mean and the least of each candidate's speed over the default's
(benchmarks/data/splits_decode_sm_90a.json; policy::decodeNumSplits).
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
    launch = C.choose_launch("sm_90a", m, n, k, b_layout, 0, 32, sms, a_layout)
    default = launch["splits"]
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
            out[fam][c] = {"speed_vs_rule_geomean": round(math.exp(sum(map(math.log, v)) / len(v)), 3),
                           "speed_vs_rule_min": round(min(v), 3)}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", required=True)
    args = p.parse_args(argv)
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
