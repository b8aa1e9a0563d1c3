"""A/B of the compiler's static kernels of one shape built with different
pipeline options (a tile, stream-K, persistent blocks), before a policy rule
takes one of them.

  # here (gpupoor-opt): OUT/TAG/sweep_LAYOUT_MxNxK for each TAG=OPTIONS
  python benchmarks/static_ab.py build --out OUT \\
      --config old="slices=0 tile=128,128,64" --config new="slices=0" \\
      nk:256x5120x5120 kn:256x6144x4096
  # on the device: medians of alternating rounds, x cuBLAS f32acc
  python benchmarks/static_ab.py time --config old=OUT/old --config new=OUT/new \\
      [--rounds 6] [--no-package] nk:256x5120x5120 kn:256x6144x4096

Layouts as bench_sweep.py's: nk (B as N x K), kn (B as K x N), km (A as K x
M, B as K x N); LAYOUT:BxMxNxK a batch of B products. Kernels are built as build_kernels.py --sweep-static builds
them (outer-type=f32, the OPTIONS after it) and launched through
bench_sweep.static_path (test/GPU/gpupoor_kernel.py's launcher); timing:
CUDA-graph replays of 30 launches with the weights rotated beyond L2, the
contestants in an order that turns each round, the median of the rounds;
cuBLAS f32acc and (unless --no-package) the package's call run beside them.
Each contestant's error against an fp64 product is printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python"), os.path.join(HERE, "..", "test", "GPU")]


def parse_shape(spec: str) -> tuple[str, int, int, int, int]:
    """LAYOUT:MxNxK, or LAYOUT:BxMxNxK for a batch of B products: (layout,
    M, N, K, batch), batch 0 for a 2-D product."""
    layout, dims = spec.split(":")
    if layout not in ("nk", "kn", "km"):
        raise SystemExit(f"static_ab: layout must be nk, kn or km, got {layout!r}")
    sizes = list(map(int, dims.split("x")))
    if len(sizes) not in (3, 4):
        raise SystemExit(f"static_ab: sizes must be MxNxK or BxMxNxK, got {dims!r}")
    batch = sizes.pop(0) if len(sizes) == 4 else 0
    m, n, k = sizes
    return layout, m, n, k, batch


def build(args: argparse.Namespace) -> int:
    import bench_sweep
    from build_kernels import matmul_source

    opt = os.environ.get("GPUPOOR_OPT", "gpupoor-opt")

    def one(job: tuple[str, str, str]) -> str:
        tag, options, spec = job
        layout, m, n, k, batch = parse_shape(spec)
        src = dict(shape=(batch, m, n, k) if batch else (m, n, k), batched=bool(batch),
                   b_layout="kn" if layout == "km" else layout,
                   a_layout="km" if layout == "km" else "mk")
        name = bench_sweep.shape_name(layout, m, n, k, batch)
        out = os.path.join(args.out, tag)
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, name + ".mlir")
        with open(path, "w") as f:
            f.write(matmul_source(**src).replace("@kernel", "@" + name))
        kdir = os.path.join(out, name)
        res = subprocess.run([opt, path, f"--gpupoor-to-cubin=chip={args.chip} outer-type=f32 "
                              f"{options} cubin-format=bin dump-dir={kdir}", "-o", os.devnull],
                             capture_output=True, text=True)
        os.remove(path)
        if res.returncode:
            return f"{tag} {spec}: rejected: {(res.stderr.splitlines() or [''])[0]}"
        with open(os.path.join(kdir, "gpupoor_matmul_0.json")) as f:
            meta = json.load(f)
        return (f"{tag} {spec}: tile {meta.get('tile')} persistent {meta.get('persistent')} "
                f"stream_k {meta.get('stream_k')} stages {meta.get('stages')}")

    configs = [c.split("=", 1) for c in args.config]
    jobs = [(tag, options, spec) for tag, options in configs for spec in args.shapes]
    with ThreadPoolExecutor(args.jobs) as pool:
        for line in pool.map(one, jobs):
            print(line, flush=True)
    return 0


def time_shapes(args: argparse.Namespace) -> int:
    import torch

    import bench_sweep
    from gpupoor import split_k_sequential
    from gpupoor.bench import cublas, time_graph

    dirs = [c.split("=", 1) for c in args.config]
    for spec in args.shapes:
        layout, m, n, k, batch = parse_shape(spec)
        x, bs, rotate = bench_sweep.operands(layout, m, n, k, batch=batch)
        fns = {"cublas": lambda i: cublas(False, torch.matmul)(x, bs[i])}
        if not args.no_package:
            fns["package"] = lambda i: split_k_sequential(x, bs[i])
        for tag, kdir in dirs:
            call = bench_sweep.static_path(kdir, layout, m, n, k, batch)
            if call is not None:
                fns[tag] = (lambda call: lambda i: call(x, bs[i]))(call)
        ref = x.double() @ bs[0].double()
        err = {name: ((f(0).double() - ref).norm() / ref.norm()).item()
               for name, f in fns.items() if name != "cublas"}
        bench_sweep.settle(fns[list(fns)[1]], rotate)
        names = list(fns)
        us = {name: [] for name in names}
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                us[name].append(time_graph(fns[name], 30, rotate))
        med = {name: statistics.median(v) for name, v in us.items()}
        print(f"{spec:22s} cublas {med['cublas']:6.1f}us " +
              " ".join(f"{name}:{med['cublas'] / med[name]:.3f}" for name in names[1:]) +
              " | err " + " ".join(f"{name}:{e:.1e}" for name, e in err.items()), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the static kernels (needs gpupoor-opt)")
    b.add_argument("--out", required=True)
    b.add_argument("--chip", default="sm_90a")
    b.add_argument("--jobs", type=int, default=2)
    b.add_argument("--config", action="append", required=True, metavar="TAG=OPTIONS")
    b.add_argument("shapes", nargs="+", metavar="LAYOUT:[Bx]MxNxK")
    t = sub.add_parser("time", help="time them (needs a GPU)")
    t.add_argument("--config", action="append", required=True, metavar="TAG=DIR")
    t.add_argument("--rounds", type=int, default=6)
    t.add_argument("--no-package", action="store_true",
                   help="leave out the package's call (a library without its families)")
    t.add_argument("shapes", nargs="+", metavar="LAYOUT:[Bx]MxNxK")
    args = p.parse_args(argv)
    return build(args) if args.cmd == "build" else time_shapes(args)


if __name__ == "__main__":
    sys.exit(main())
