#!/usr/bin/env python3
"""Decode products with and without programmatic dependent launch (PDL).

  python benchmarks/bench_dependent_launch.py --json OUT.json

The package launches its sm_90 kernels with programmatic stream
serialization: back to back, a launch's blocks start while the previous
kernel's drain (docs/design/Hopper.md). This times the sweep's decode
shapes (M in 1, 2, 4, 8, 16 times the LLM projections of bench_sweep.py, B
as N x K, K x N, and A as K x M) through the package by CUDA-graph replay,
once in a process with PDL (GPUPOOR_DEPENDENT_LAUNCH=1) and once without
(=0; the launcher reads it when it loads a kernel), with cuBLAS f32acc
timed in each process, and writes every row with the policy's launch
(family, tiles, slices) to --json.

--kernel-dirs DIR,DIR2,... times the PDL launches once through each of these
kernel libraries (GPUPOOR_KERNEL_DIR; the plain launches through the first),
e.g. libraries built before and after a change to what the kernels do
around the launch; the rows then hold each one's µs ("us_pdl" the first's,
"us_pdl_<name of DIR2>" the others'), and the summary per grid (blocks)
and overall each one's geometric mean of cuBLAS f32acc's time over its
own, how many shapes run slower than cuBLAS, and the slowest ratio
(benchmarks/data/dependent_launch_decode_sm_90a.json).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
M_VALUES = (1, 2, 4, 8, 16)


def child() -> None:
    """One process's rows, a JSON line each, on stdout."""
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    sys.path.insert(0, HERE)
    import torch

    import bench_sweep
    import gpupoor._C as C
    from gpupoor import split_k_sequential
    from gpupoor.bench import cublas, time_graph

    f32 = cublas(False, torch.matmul)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for layout in ("nk", "kn", "km"):
        a, b = ("km", "kn") if layout == "km" else ("mk", layout)
        for _, n, k in sorted({(0, n, k) for _, _, n, k in bench_sweep.PROJECTIONS}):
            for m in M_VALUES:
                x, bs, rotate = bench_sweep.operands(layout, m, n, k, pad=True)
                launch = C.choose_launch("sm_90a", m, n, k, b, 0, C.DEFAULT_MAX_SPLITS, sms, a)
                us = time_graph(lambda i: split_k_sequential(x, bs[i]), 300, rotate)
                cb = time_graph(lambda i: f32(x, bs[i]), 300, rotate)
                print(json.dumps({"layout": layout, "shape": [m, n, k], "us": us, "cublas": cb,
                                  "family": launch["family"], "tiles": launch["tiles"],
                                  "slices": launch["slices"]}), flush=True)


def run(pdl: bool, kernel_dir: str | None = None) -> list[dict]:
    env = dict(os.environ, GPUPOOR_DEPENDENT_LAUNCH="1" if pdl else "0")
    if kernel_dir:
        env["GPUPOOR_KERNEL_DIR"] = kernel_dir
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], env=env,
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def summarize(rows: list[dict], names: list[str]) -> dict:
    """Per grid (blocks: tiles x slices) and overall, each contestant's
    speed against cuBLAS f32acc timed in its own process."""
    runs = {"pdl": ("us_pdl", "cublas_f32acc_pdl_run"),
            "plain": ("us_plain", "cublas_f32acc_plain_run")}
    runs.update({f"pdl_{n}": (f"us_pdl_{n}", f"cublas_f32acc_pdl_{n}_run") for n in names})
    groups = collections.defaultdict(list)
    for r in rows:
        groups[str(r["tiles"] * r["slices"])].append(r)
    groups["all"] = rows

    def stats(rs: list[dict], us: str, cb: str) -> dict:
        v = [r[cb] / r[us] for r in rs]
        return {"speed_geomean": round(math.exp(sum(map(math.log, v)) / len(v)), 3),
                "below_cublas": sum(x < 1 for x in v), "slowest": round(min(v), 3)}
    return {g: {"shapes": len(rs), **{k: stats(rs, *c) for k, c in runs.items()}}
            for g, rs in groups.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json")
    p.add_argument("--kernel-dirs", help="DIR,DIR2,...: PDL through each library")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child()
        return 0
    if not args.json:
        p.error("--json is required")
    import torch
    dirs = args.kernel_dirs.split(",") if args.kernel_dirs else [None]
    names = [os.path.basename(os.path.normpath(d)) for d in dirs[1:]]
    if len(set(names)) != len(names):
        p.error(f"--kernel-dirs: the libraries are named by their folders, which repeat: {names}")
    on, off = run(True, dirs[0]), run(False, dirs[0])
    others = {name: run(True, d) for name, d in zip(names, dirs[1:])}
    rows = []
    for i, (a, b) in enumerate(zip(on, off)):
        assert (a["layout"], a["shape"]) == (b["layout"], b["shape"])
        row = {"layout": a["layout"], "shape": a["shape"], "family": a["family"],
               "tiles": a["tiles"], "slices": a["slices"], "us_pdl": a["us"],
               "us_plain": b["us"], "cublas_f32acc_pdl_run": a["cublas"],
               "cublas_f32acc_plain_run": b["cublas"]}
        for name, rs in others.items():
            assert (rs[i]["layout"], rs[i]["shape"]) == (a["layout"], a["shape"])
            row[f"us_pdl_{name}"] = rs[i]["us"]
            row[f"cublas_f32acc_pdl_{name}_run"] = rs[i]["cublas"]
        rows.append(row)
    out = {"device": torch.cuda.get_device_name(), "date": datetime.date.today().isoformat(),
           "kernel_dirs": dirs, "rows": rows}
    if others:
        out["summary"] = summarize(rows, list(others))
        print(json.dumps(out["summary"], indent=1))
    with open(args.json, "w") as f:
        json.dump(out, f)
    slower = [r for r in rows if r["us_pdl"] > 1.05 * r["us_plain"]]
    print(f"{len(rows)} shapes; PDL more than 5% slower than a plain launch at {len(slower)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
