#!/usr/bin/env python3
"""The least error any chunk count can give, beside a sweep's measured errors.

For each product of a sweep (bench_sweep.py's JSON) whose error at the
package's default exceeds a third of cuBLAS f16acc's (issue #48's error
target), computes with the split-k model (test/Numerics/split_k_model.py,
which the GPU suite checks bit for bit against the kernels) the error of
the shortest chunks there are: every k16 step its own f16 sum, the sums
added in f32, C rounded to f16. Where that floor is above a third of
cuBLAS f16acc's measured error, no chunk count meets the target. The model
runs on 64 x 64 outputs of random normal f16 operands of the product's K
(seed 0): the relative error of a product of that K, not of its M and N.

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


def floor_error(k: int, rng: np.random.Generator) -> float:
    """The model's error at K = k with one k16 step a chunk."""
    a = rng.standard_normal((64, k)).astype(np.float16)
    b = rng.standard_normal((k, 64)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    c = model.split_k_matmul(a, b, -(-k // 16), "f32", 16)
    return model.rel_error(c.astype(np.float16), ref)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="bench_sweep.py's JSON")
    parser.add_argument("--json", required=True, help="where to write the rows")
    args = parser.parse_args()
    with open(args.sweep) as f:
        sweep = json.load(f)
    over = [r for r in sweep["rows"] if r["err"]["gpupoor"] > r["err"]["cublas_f16acc"] / 3]
    rng = np.random.default_rng(0)
    floors: dict[int, float] = {}
    rows = []
    for r in over:
        k = r["shape"][-1]
        if k not in floors:
            floors[k] = floor_error(k, rng)
        rows.append(dict(layout=r["layout"], shape=r["shape"], err_gpupoor=r["err"]["gpupoor"],
                         err_cublas_f16acc=r["err"]["cublas_f16acc"],
                         err_cublas_f32acc=r["err"]["cublas_f32acc"],
                         err_floor_model=round(floors[k], 7),
                         floor_over_f16acc=round(floors[k] / r["err"]["cublas_f16acc"], 3)))
    beyond = [r for r in rows if r["floor_over_f16acc"] > 1 / 3]
    print(f"{len(rows)} of {len(sweep['rows'])} products above a third of cuBLAS f16acc's error; "
          f"for {len(beyond)} no chunk count gets below it (K: "
          f"{', '.join(map(str, sorted({r['shape'][-1] for r in beyond})))})")
    with open(args.json, "w") as f:
        json.dump(dict(
            what="Products of the sweep whose error at the package's default exceeds a third of cuBLAS "
                 "f16acc's, against the least error any chunk count gives (every k16 step its own f16 "
                 "sum, added in f32; the split-k model on 64 x 64 outputs of random normal operands of "
                 "that K, seed 0). err_gpupoor and err_cublas_*: measured in the sweep; err_floor_model: "
                 "computed; relative Frobenius errors against an fp64 product.",
            sweep=os.path.basename(args.sweep), device=sweep.get("device"), date=sweep.get("date"),
            command="python3 benchmarks/error_floor.py " + os.path.basename(args.sweep) + " --json OUT",
            products_over_target=len(rows), products_beyond_any_chunk_count=len(beyond), rows=rows),
            f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
