#!/usr/bin/env python3
"""A lower bound on the error of any chunk count, beside a sweep's measured errors.

For each product of a sweep (bench_sweep.py's JSON) whose error at the
package's default exceeds a third of cuBLAS f16acc's (issue #48's error
target), computes with the split-k model (test/Numerics/split_k_model.py,
which the GPU suite checks bit for bit against the kernels) the error of
chunks shorter than any kernel's: every k16 step its own f16 sum, the sums
added in f32, C rounded to f16 (a lower bound: the kernels reach it only
with four f16 sums in chunks of one 64-wide K tile, the decode tile's
`sets`). Where that floor is above a third of cuBLAS f16acc's measured
error, no chunk count meets the target. Beside it, the error of chunks of
one K tile of 64 with one f16 sum a chunk (the 64- and 128-row tiles at
their most chunks). The model runs on 64 x 64 outputs of random normal f16
operands of the product's K, drawn with seed 0 for each K: the relative
error of a product of that K, not of its M and N.

  python3 benchmarks/error_floor.py benchmarks/data/sweep_package_sm_90a.json \\
      --json benchmarks/data/error_floor_sm_90a.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Numerics"))
import split_k_model as model  # noqa: E402


def model_errors(k: int) -> tuple[float, float]:
    """The model's errors at K = k with chunks of one k16 step and of one K
    tile of 64 (one f16 sum a chunk)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, k)).astype(np.float16)
    b = rng.standard_normal((k, 64)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    errs = []
    for bk in (16, 64):
        c = model.split_k_matmul(a, b, -(-k // bk), "f32", bk)
        errs.append(model.rel_error(c.astype(np.float16), ref))
    return errs[0], errs[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="bench_sweep.py's JSON")
    parser.add_argument("--json", required=True, help="where to write the rows")
    args = parser.parse_args()
    with open(args.sweep) as f:
        sweep = json.load(f)
    over = [r for r in sweep["rows"] if r["err"]["gpupoor"] > r["err"]["cublas_f16acc"] / 3]
    errors: dict[int, tuple[float, float]] = {}
    rows = []
    beyond = within_tile = 0
    for r in over:
        k = r["shape"][-1]
        if k not in errors:
            errors[k] = model_errors(k)
        floor, tile = errors[k]
        f16acc = r["err"]["cublas_f16acc"]
        beyond += floor > f16acc / 3
        within_tile += tile <= f16acc / 3
        rows.append(dict(layout=r["layout"], shape=r["shape"], err_gpupoor=r["err"]["gpupoor"],
                         err_cublas_f16acc=f16acc, err_cublas_f32acc=r["err"]["cublas_f32acc"],
                         err_floor_model=round(floor, 7),
                         floor_over_f16acc=round(floor / f16acc, 3),
                         err_tile_chunks_model=round(tile, 7),
                         tile_chunks_over_f16acc=round(tile / f16acc, 3)))
    print(f"{len(rows)} of {len(sweep['rows'])} products above a third of cuBLAS f16acc's error; "
          f"for {beyond} no chunk count gets below it (K: "
          f"{', '.join(map(str, sorted({r['shape'][-1] for r in rows if r['floor_over_f16acc'] > 1 / 3})))}); "
          f"chunks of one K tile of 64 with one f16 sum get {within_tile} below it")
    with open(args.json, "w") as f:
        json.dump(dict(
            what="Products of the sweep whose error at the package's default exceeds a third of cuBLAS "
                 "f16acc's, against a lower bound on any chunk count's error (err_floor_model: every k16 "
                 "step its own f16 sum, added in f32) and the error of chunks of one K tile of 64 with "
                 "one f16 sum (err_tile_chunks_model); the split-k model on 64 x 64 outputs of random "
                 "normal operands of that K, seed 0 for each K. err_gpupoor and err_cublas_*: measured "
                 "in the sweep; relative Frobenius errors against an fp64 product.",
            sweep=args.sweep, device=sweep.get("device"), date=sweep.get("date"),
            command=f"python3 benchmarks/error_floor.py {args.sweep} --json OUT",
            products_over_target=len(rows), products_beyond_any_chunk_count=beyond,
            products_within_at_tile_chunks=within_tile, rows=rows),
            f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
