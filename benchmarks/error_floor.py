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

With --launches (the package's extension built), every product of the sweep
also gets the model's error of the launch the rules choose now
(gpupoor._C.choose_launch: tile, S, P', f16 sums a chunk), which shows where
a rule changed since the sweep ran; and where that error exceeds the third,
the model's errors of sets 1, 2, 4, 8 (up to BK / 16) at S, 2S and 4S chunks
(capped at K's tiles and the default max splits), with the fewest chunks that meet it. Kernels
do not take every candidate (sm_90a's wgmma kernel: sets * BN <= 128), which
the scan does not judge. These run on at least 32 x 256 outputs of the
product (its rows and columns where fewer), seeded by its shape.

  python3 benchmarks/error_floor.py benchmarks/data/sweep_package_sm_90a.json \\
      --json benchmarks/data/error_floor_sm_90a.json [--launches]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "test", "Numerics"), os.path.join(HERE, "..", "python")]
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


def launch_errors(row: dict, chip: str, sm_count: int) -> dict:
    """The model's error of the rules' launch for `row`'s product and, where
    it exceeds a third of the sweep's cuBLAS f16acc error, of candidates."""
    from gpupoor import _C

    m, n, k = row["shape"]
    a_layout, b_layout = ("km", "kn") if row["layout"] == "km" else ("mk", row["layout"])
    launch = _C.choose_launch(chip, m, n, k, b_layout, 0, _C.DEFAULT_MAX_SPLITS, sm_count, a_layout=a_layout)
    bk, splits, sets = launch["tile"][2], launch["splits"], launch["sets"]
    slices = max(launch["slices"], 1)
    rng = np.random.default_rng([m, n, k])
    rows = min(m, 32)  # at least 32 x 256 outputs where A has fewer rows
    a = rng.standard_normal((rows, k)).astype(np.float16)
    b = rng.standard_normal((k, min(n, 32 * 256 // rows))).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)

    def error(s: int, sums: int) -> float:
        c = model.split_k_matmul(a, b, s, "f32", bk, sets=sums, slices=slices)
        return round(model.rel_error(c.astype(np.float16), ref), 7)

    third = row["err"]["cublas_f16acc"] / 3
    out = dict(layout=row["layout"], shape=row["shape"], tile=list(launch["tile"]),
               swapped=launch["swapped"], splits=splits, sets=sets, slices=slices,
               err_gpupoor=row["err"]["gpupoor"], err_rules_model=error(splits, sets),
               third_of_f16acc=round(third, 7), candidates=[])
    if out["err_rules_model"] > third:
        for s in sorted({min(splits * mult, -(-k // bk), _C.DEFAULT_MAX_SPLITS) for mult in (1, 2, 4)}):
            for sums in (1, 2, 4, 8):
                if (s, sums) != (splits, sets) and bk >= 16 * sums:
                    e = error(s, sums)
                    out["candidates"].append(dict(splits=s, sets=sums, err_model=e, meets=e <= third))
    return out


def cheapest(result: dict, same_sets: bool) -> tuple | None:
    """The candidate of fewest chunks (then sums) that meets the target:
    (S, sets, error)."""
    met = [c for c in result["candidates"]
           if c["meets"] and (not same_sets or c["sets"] == result["sets"])]
    best = min(met, key=lambda c: (c["splits"], c["sets"]), default=None)
    return best and (best["splits"], best["sets"], best["err_model"])


def scan_launches(sweep: dict, chip: str, sm_count: int) -> dict:
    results = [launch_errors(r, chip, sm_count) for r in sweep["rows"] if len(r["shape"]) == 3]
    above = [r for r in results if r["err_rules_model"] > r["third_of_f16acc"]]
    for r in above:
        r["fewest_chunks_same_sets"] = cheapest(r, True)
        r["fewest_chunks_any_sets"] = cheapest(r, False)
        print(f"{r['layout']} {'x'.join(map(str, r['shape']))} tile {r['tile']} S {r['splits']} sets {r['sets']}: "
              f"model {r['err_rules_model']:.2e} (sweep {r['err_gpupoor']:.2e}), third {r['third_of_f16acc']:.2e}; "
              f"fewest chunks that meet it (S, sets, error): same sets {r['fewest_chunks_same_sets']}, "
              f"any sets {r['fewest_chunks_any_sets']}")
    ratios = sorted(r["err_rules_model"] / r["err_gpupoor"] for r in results)
    changed = [r for r in results if abs(r["err_rules_model"] / r["err_gpupoor"] - 1) > 0.05]
    summary = dict(products=len(results), model_over_sweep_median=round(ratios[len(ratios) // 2], 4),
                   model_off_sweep_by_5pct=len(changed), above_third=len(above),
                   met_by_more_chunks=sum(r["fewest_chunks_same_sets"] is not None for r in above),
                   met_by_a_candidate=sum(r["fewest_chunks_any_sets"] is not None for r in above))
    print(json.dumps(summary))
    return dict(what="The split-k model's error of the launch the rules choose now for each product "
                     "(err_rules_model, on at least 32 x 256 outputs seeded by the shape; err_gpupoor: the "
                     "sweep's measured error, under the rules of its run) and, for those above a third of "
                     "the sweep's cuBLAS f16acc error, of candidate chunk counts and f16 sums a chunk; a "
                     "computation, not a measurement.",
                chip=chip, sm_count=sm_count, summary=summary, above_third=above,
                off_sweep_by_5pct=[{k: r[k] for k in ("layout", "shape", "tile", "splits", "sets",
                                                      "err_gpupoor", "err_rules_model")} for r in changed])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="bench_sweep.py's JSON")
    parser.add_argument("--json", required=True, help="where to write the rows")
    parser.add_argument("--launches", action="store_true",
                        help="also model the rules' launches and candidates (needs gpupoor._C)")
    parser.add_argument("--chip", default="sm_90a", help="the chip whose rules --launches asks")
    parser.add_argument("--sm-count", type=int, default=132, help="the SMs --launches plans for")
    args = parser.parse_args()
    if args.sm_count < 1:
        parser.error("--sm-count must be positive")
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
    launches = scan_launches(sweep, args.chip, args.sm_count) if args.launches else None
    with open(args.json, "w") as f:
        json.dump(dict(
            what="Products of the sweep whose error at the package's default exceeds a third of cuBLAS "
                 "f16acc's, against a lower bound on any chunk count's error (err_floor_model: every k16 "
                 "step its own f16 sum, added in f32) and the error of chunks of one K tile of 64 with "
                 "one f16 sum (err_tile_chunks_model); the split-k model on 64 x 64 outputs of random "
                 "normal operands of that K, seed 0 for each K. err_gpupoor and err_cublas_*: measured "
                 "in the sweep; relative Frobenius errors against an fp64 product.",
            sweep=args.sweep, device=sweep.get("device"), date=sweep.get("date"),
            command=f"python3 benchmarks/error_floor.py {args.sweep} --json OUT" + (" --launches" if launches else ""),
            products_over_target=len(rows), products_beyond_any_chunk_count=beyond,
            products_within_at_tile_chunks=within_tile, rows=rows,
            **({"launches": launches} if launches else {})),
            f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
