"""One cuBLAS f32acc call and one package call per shape and choice, inside
a profiler range, for Nsight Compute to measure.

  # on the device (the package's library built for it)
  ncu --profile-from-start off --section SpeedOfLight --section LaunchStats \\
      --section Occupancy --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct \\
      --csv --page details python3 benchmarks/ncu_shapes.py \\
      nk:1040x1712x1512=default,w160c kn:288x2144x2408

A SPEC is force_choice.py's (LAYOUT:MxNxK[=CHOICE,...]; no choice: the
package's default), but for `copy`, each family forced as itself
(force_choice.py's default; ncu files before 2026-12-05 forced its tile).
A choice's range holds every kernel its call launches (the copies of
operands whose rows lie off 16 bytes among them). Operands as bench_sweep.operands (random normal, the
last of the rotated weights); each call runs three times untimed first, then
once between cudaProfilerStart and cudaProfilerStop. Prints, to stderr, the
order of the ranges (cuBLAS first, then each choice), which ncu's rows
follow.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python")]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("specs", nargs="+", metavar="LAYOUT:MxNxK[=CHOICE,...]")
    args = p.parse_args(argv)

    import force_choice
    specs = [force_choice.parse_spec(s if "=" in s else s + "=default") for s in args.specs]

    import torch
    import bench_sweep
    from gpupoor import split_k_sequential
    from gpupoor._native import C
    from gpupoor.bench import cublas

    cudart = torch.cuda.cudart()
    for layout, m, n, k, choices in specs:
        x, bs, _ = bench_sweep.operands(layout, m, n, k)
        w = bs[-1]
        calls = [("cublas_f32acc", lambda: cublas(False, torch.matmul)(x, w))]
        for choice in choices:
            if choice == "copy":
                raise SystemExit("ncu_shapes: the `copy` choice is force_choice.py's only")
            family, slices, splits = force_choice.parse_choice(choice)
            copies = {"nopad": "never", "pad": "always"}.get(choice, "policy")
            calls.append((choice, lambda f=family, s=slices, sp=splits, cp=copies: (
                C._force_choice(f, s, True, sp, True), C._copy_unaligned(cp),
                split_k_sequential(x, w))))
        for name, call in calls:
            for _ in range(3):
                call()
            torch.cuda.synchronize()
            cudart.cudaProfilerStart()
            call()
            torch.cuda.synchronize()
            cudart.cudaProfilerStop()
            C._force_choice(None)
            C._copy_unaligned("policy")
            print(f"range {layout}:{m}x{n}x{k} {name}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
