#!/usr/bin/env python3
"""Writes README.md's results block (between `<!-- results:begin -->` and
`<!-- results:end -->`) from the committed measurements, so that the
figures on the README's first screen are the data's, device and date
included:

- benchmarks/data/sweep_package_sm_90a.json (benchmarks/bench_sweep.py):
  the package's speed over the sweep, per operand layout;
- benchmarks/data/training_x8_sm_90a.json (benchmarks/bench_training.py):
  a training step against stock autocast.

  python3 docs/gen_results.py          # rewrite the block
  python3 docs/gen_results.py --check  # exit 1 if the block is not the data's

ctest runs --check (docs-results), and --check on a README whose block is
stale (test/Docs/stale_results.md, docs-results-catches).
"""

import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
SWEEP = "benchmarks/data/sweep_package_sm_90a.json"
TRAINING = "benchmarks/data/training_x8_sm_90a.json"
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
LAYOUTS = (("nk", "`x @ W.T` (B as N x K, nn.Linear's weight)"),
           ("kn", "`x @ W` (B as K x N)"),
           ("km", "`x.T @ W` (A as K x M, B as K x N)"))


def load(path: str) -> dict:
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


def shape(s) -> str:
    m, n, k = s
    return f"{m}³" if m == n == k else f"{m}x{n}x{k}"


def block() -> str:
    """The results block's markdown."""
    sweep, training = load(SWEEP), load(TRAINING)
    rows = [f"Measured on an {sweep['device']}, {sweep['date']}: kernel time by CUDA-graph "
            "replay, as a ratio to cuBLAS with f32 accumulation in the same run "
            f"([{os.path.basename(SWEEP)}]({SWEEP}), LLM projections at M = 1..4096 and "
            "squares 128..8192).",
            "",
            "| product | shapes | geomean | worst | below 0.95 |",
            "|---|---|---|---|---|"]
    for layout, what in LAYOUTS:
        s = sweep["summaries"][f"{layout}/all"]
        rows.append(f"| {what} | {s['shapes']} | {s['geomean']:.2f}x | {s['worst']:.2f}x "
                    f"({shape(s['worst_shape'])}) | {s['below_0.95']} |")
    runs = training["models"]
    speed = [runs[m]["stock"]["step_us"] / runs[m]["gpupoor"]["step_us"] for m in ("mlp", "block")]
    loss = [runs[m]["gpupoor"]["loss"][-1] / runs[m]["stock"]["loss"][-1] for m in ("mlp", "block")]
    rows.append(f"| training step against stock autocast, MLP / transformer block "
                f"([{os.path.basename(TRAINING)}]({TRAINING}), {training['device']}, "
                f"{training['date']}) | 2 | {math.sqrt(speed[0] * speed[1]):.2f}x | "
                f"{min(speed):.2f}x | final loss {max(loss):.3f}x stock's |")
    rows += ["", f"![sweep](benchmarks/data/{os.path.basename(SWEEP).replace('.json', '.png')})"]
    return "\n".join(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 if README.md's block differs")
    p.add_argument("--readme", default=README, help="the file to check or rewrite")
    args = p.parse_args(argv)
    with open(args.readme) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        print(f"gen_results.py: {os.path.basename(args.readme)} has no {BEGIN} ... {END} "
              "block", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    new = f"\n{block()}\n"
    if args.check:
        if old != new:
            print(f"gen_results.py: {os.path.basename(args.readme)}'s results block is not "
                  "the data's; run python3 docs/gen_results.py", file=sys.stderr)
            return 1
        print(f"gen_results.py: {os.path.basename(args.readme)}'s results block is the data's")
        return 0
    with open(args.readme, "w") as f:
        f.write(head + BEGIN + new + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
