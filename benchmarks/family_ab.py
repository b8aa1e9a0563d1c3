"""A/B of one configuration option of the package's kernel families.

  # here (gpupoor-opt): the families' variants with the option changed
  python benchmarks/family_ab.py build --out DIR --families mid,large \\
      --options "split-handover=true" [--persistent]
  # on the device: the package's default choice on every sweep shape that
  # takes one of the families, with the library as it is (base) and with
  # DIR searched first (alt, GPUPOOR_KERNEL_DIR); processes alternate
  python benchmarks/family_ab.py time --alt DIR --families mid,large \\
      [--tiles-above 0] [--tiles-at-most 264] [--max-mnk 1.2e11] [--rounds 2] \\
      [--alt-options "split-handover=true"] --json OUT.json

What a family's kernels are compiled with is the policy's (gpupoor._C
.family_config, lib/Policy/Policy.cpp): this measures a change to it before
it is made there. Timing as bench_sweep.py's: CUDA-graph replays, weights
rotated beyond L2, cuBLAS f32acc in the same process.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))


def build(args: argparse.Namespace) -> int:
    from gpupoor import variants
    from gpupoor.build_library import main as build_main

    families = args.families.split(",")
    base = variants.family_options

    def family_options(family: str, chip: str) -> str:
        opts = base(family, chip)
        if family in families:
            # large names its sm_90a tile: the option may not apply to the
            # dynamic default's other chips.
            tile = "tile=128,256,64 " if family == "large" else ""
            opts = f"{tile}{opts} {args.options}".strip()
        return opts

    variants.family_options = family_options
    if args.persistent:
        variants.PERSISTENT_TILES = variants.PERSISTENT_TILES + tuple(families)
    names = [f"{b}_f32_none_f16_{f}_s32" for f in families for b in ("nk", "kn")
             if variants.VariantKey(b_layout=b, tile=f).builds_for("sm_90a")]
    return build_main(["--out", args.out, "--chips", "sm_90a", "--jobs", str(args.jobs),
                       "--only", *names])


def measure(args: argparse.Namespace) -> int:
    """One side (GPUPOOR_KERNEL_DIR as the caller set it): JSON lines."""
    import torch

    import bench_sweep
    from gpupoor import split_k_sequential
    from gpupoor._native import C
    from gpupoor.bench import cublas, time_graph

    families = set(args.families.split(","))
    f32 = cublas(False, torch.matmul)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for layout in ("nk", "kn"):
        for _, m, n, k, _ in bench_sweep.shapes(list(bench_sweep.DEFAULT_CLASSES)):
            launch = C.choose_launch("sm_90a", m, n, k, layout, 0, C.DEFAULT_MAX_SPLITS, sms,
                                     "mk")
            grid = launch["tiles"] * launch["slices"]
            if launch["family"] not in families or not \
                    args.tiles_above < grid <= args.tiles_at_most or m * n * k > args.max_mnk:
                continue
            x, bs, rotate = bench_sweep.operands(layout, m, n, k)
            ours = lambda i: split_k_sequential(x, bs[i])  # noqa: E731
            bench_sweep.settle(ours, rotate)
            # Each timed twice, cuBLAS around the package's, the faster kept.
            t = [time_graph(lambda i: f32(x, bs[i]), args.reps, rotate),
                 time_graph(ours, args.reps, rotate), time_graph(ours, args.reps, rotate),
                 time_graph(lambda i: f32(x, bs[i]), args.reps, rotate)]
            print(json.dumps({"layout": layout, "shape": [m, n, k], "family": launch["family"],
                              "grid": grid, "cublas_f32acc_us": min(t[0], t[3]),
                              "us": min(t[1], t[2])}), flush=True)
    return 0


def time(args: argparse.Namespace) -> int:
    """Processes of each side alternate (base, alt, alt, base, ...); a
    shape's speed on a side is its best against that process's cuBLAS
    (the processes' clocks may differ)."""
    sides: dict[tuple, dict] = {}
    alt = os.pathsep.join(p for p in (os.path.abspath(args.alt),
                                      os.environ.get("GPUPOOR_KERNEL_DIR")) if p)
    order = [("base", "alt") if r % 2 == 0 else ("alt", "base") for r in range(args.rounds)]
    for side in [s for pair in order for s in pair]:
        env = {**os.environ, **({"GPUPOOR_KERNEL_DIR": alt} if side == "alt" else {})}
        cmd = [sys.executable, __file__, "_measure", "--families", args.families,
               "--tiles-above", str(args.tiles_above), "--tiles-at-most",
               str(args.tiles_at_most), "--reps", str(args.reps), "--max-mnk",
               str(args.max_mnk)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        for r in map(json.loads, out.splitlines()):
            row = sides.setdefault((r["layout"], tuple(r["shape"])), {
                "layout": r["layout"], "shape": r["shape"], "family": r["family"],
                "grid": r["grid"], "base": [], "alt": []})
            row[side].append(r["cublas_f32acc_us"] / r["us"])
    rows = [r for r in sides.values() if r["base"] and r["alt"]]
    for r in rows:
        r["gain"] = max(r["alt"]) / max(r["base"])
    rows.sort(key=lambda r: r["gain"])
    for r in rows:
        print(f"{r['layout']} {'x'.join(map(str, r['shape']))} {r['family']} {r['grid']}: "
              f"base {max(r['base']):.3f} alt {max(r['alt']):.3f} x{r['gain']:.3f}", flush=True)
    gains = [r["gain"] for r in rows]
    if gains:
        geo = math.exp(sum(map(math.log, gains)) / len(gains))
        print(f"{len(gains)} shapes: geomean x{geo:.3f}, worst x{min(gains):.3f}, "
              f"best x{max(gains):.3f}")
    import torch
    with open(args.json, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": str(datetime.date.today()),
                   "families": args.families, "alt": args.alt_options,
                   "speed": "cuBLAS f32acc us / us, each process", "rows": rows}, f, indent=1)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    b.add_argument("--families", required=True)
    b.add_argument("--options", default="")
    b.add_argument("--persistent", action="store_true",
                   help="compile them as persistent families (one K slice)")
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    for name in ("time", "_measure"):
        t = sub.add_parser(name)
        t.add_argument("--families", required=True)
        t.add_argument("--tiles-above", type=int, default=0)
        t.add_argument("--tiles-at-most", type=int, default=1 << 62)
        t.add_argument("--reps", type=int, default=40)
        t.add_argument("--max-mnk", type=float, default=float("inf"),
                       help="only products of M x N x K up to this")
        if name == "time":
            t.add_argument("--alt", required=True)
            t.add_argument("--alt-options", default="",
                           help="what the alternative library changes (for the JSON)")
            t.add_argument("--rounds", type=int, default=2)
            t.add_argument("--json", required=True)
    args = p.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    return {"build": build, "time": time, "_measure": measure}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
