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
"""

from __future__ import annotations

import argparse
import datetime
import json
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
                launch = C.choose_launch("sm_90a", m, n, k, b, 0, 32, sms, a)
                us = time_graph(lambda i: split_k_sequential(x, bs[i]), 300, rotate)
                cb = time_graph(lambda i: f32(x, bs[i]), 300, rotate)
                print(json.dumps({"layout": layout, "shape": [m, n, k], "us": us, "cublas": cb,
                                  "family": launch["family"], "tiles": launch["tiles"],
                                  "slices": launch["slices"]}), flush=True)


def run(pdl: bool) -> list[dict]:
    env = dict(os.environ, GPUPOOR_DEPENDENT_LAUNCH="1" if pdl else "0")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], env=env,
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child()
        return 0
    if not args.json:
        p.error("--json is required")
    import torch
    on, off = run(True), run(False)
    rows = []
    for a, b in zip(on, off):
        assert (a["layout"], a["shape"]) == (b["layout"], b["shape"])
        rows.append({"layout": a["layout"], "shape": a["shape"], "family": a["family"],
                     "tiles": a["tiles"], "slices": a["slices"], "us_pdl": a["us"],
                     "us_plain": b["us"], "cublas_f32acc_pdl_run": a["cublas"],
                     "cublas_f32acc_plain_run": b["cublas"]})
    with open(args.json, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": datetime.date.today().isoformat(),
                   "rows": rows}, f)
    slower = [r for r in rows if r["us_pdl"] > 1.05 * r["us_plain"]]
    print(f"{len(rows)} shapes; PDL more than 5% slower than a plain launch at {len(slower)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
