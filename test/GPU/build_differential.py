#!/usr/bin/env python3
"""Builds the GPU leg of the differential tests (test/Differential).

Generates programs with test/Differential/programs.py, compiles each with
`gpupoor-opt --gpupoor-to-cubin` and lowers its host code with upstream's
passes (gpu-to-llvm among them) to an object file that launches the
embedded cubin through the mgpu* calls of lib/Runtime/CudaRuntime.cpp. Each program's
inputs and its expected output, computed here by upstream MLIR's own CPU
lowering of the same program (an independent reference), are saved next to
it; run_differential.py runs the programs on the GPU and compares.

Ops the epilogue does not take (and copies bufferization makes) run as
kernels of their own (gpupoor-offload-to-gpu); a program the pipeline still
refuses, because its host code would touch device memory, is skipped and
counted.

  GPUPOOR_OPT=build/bin/gpupoor-opt python3 test/GPU/build_differential.py OUT \\
      [--count 200] [--seed 1] [--chip sm_90] [--fixed]
"""

import argparse
import json
import os
import random
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Numerics"))
sys.path.insert(0, os.path.join(HERE, "..", "Differential"))
from cpu_kernel import GPUPOOR_OPT, LLC, MLIR_TRANSLATE, compile_with  # noqa: E402
import fixed_programs  # noqa: E402
import programs  # noqa: E402
from test_differential import REFERENCE, run  # noqa: E402

# The host side to the LLVM dialect: gpupoor's own pipeline (the upstream
# passes gpu-to-llvm needs before it; lib/Pipelines).
HOST = "--gpupoor-host-to-llvm"

# Stages whose math functions differ between libm and libdevice by an ulp.
TRANSCENDENTAL = {"gelu", "gelu_div", "silu", "sigmoid", "tanh_gelu", "silu_graph", "math"}


def sh(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode:
        raise RuntimeError(f"{' '.join(cmd[:2])} failed:\n{res.stderr[-3000:]}")
    return res.stdout


def build(p, base, chip, gpu_options=""):
    """Compiles program `p` to `base`.o; returns why it was skipped, or None."""
    res = subprocess.run([GPUPOOR_OPT, "-",
                          f"--gpupoor-to-cubin=chip={chip} cubin-format=bin {gpu_options}"],
                         input=p.source, capture_output=True, text=True)
    if res.returncode and "host code would access GPU memory" in res.stderr:
        # gpupoor-check-host-memory refuses host code that would read,
        # write, allocate or copy GPU memory: fine, and what it must do.
        return "refused: host code would access GPU memory"
    if res.returncode:
        raise RuntimeError(f"gpupoor-opt failed:\n{res.stderr[-3000:]}")
    dev = res.stdout
    host = sh([GPUPOOR_OPT, "-", HOST], input=dev)
    ll = sh([MLIR_TRANSLATE, "--mlir-to-llvmir"], input=host)
    with open(base + ".ll", "w") as f:
        f.write(ll)
    sh([LLC, "-O2", "-filetype=obj", "-relocation-model=pic", base + ".ll", "-o", base + ".o"])
    os.remove(base + ".ll")
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--fixed", action="store_true",
                        help="the hand-written programs of test/Differential/fixed_programs.py "
                             "(math ops in offloaded kernels, C += A*B into a memref) instead")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    index, skipped = [], {}
    fixed = fixed_programs.programs() if args.fixed else []
    for i in range(len(fixed) if args.fixed else args.count):
        rng = random.Random(args.seed * 1000003 + i)
        p = fixed[i] if args.fixed else programs.generate(rng)
        name = f"p{i:05d}"
        base = os.path.join(args.out_dir, name)
        # Parallel split-k in a third of the programs: P in {0 (chosen),
        # 2, 3, 7}; the host code sizes the workspace and the grid.
        gpu_options = ""
        if rng.random() < 0.33:
            gpu_options = f"slices={rng.choice([0, 2, 3, 7])}"
        why = build(p, base, args.chip, gpu_options)
        if why:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        make_inputs = fixed_programs.inputs if args.fixed else programs.inputs
        arrays = make_inputs(p, np.random.default_rng(args.seed * 7 + i))
        want = run(compile_with(p.source, REFERENCE), arrays, p.out_shape, p.out_dtype)
        np.savez(base + ".npz", *arrays, want=want)
        index.append({"name": name, "description": f"{p.description} {gpu_options}".strip(),
                      "source": p.source,
                      "args": [[a[0], list(a[2]), np.dtype(a[3]).name] for a in p.args],
                      "out_shape": list(p.out_shape), "out_dtype": np.dtype(p.out_dtype).name,
                      "exact": not (set(p.stages) & TRANSCENDENTAL)})
    with open(os.path.join(args.out_dir, "index.json"), "w") as f:
        json.dump({"seed": args.seed, "chip": args.chip, "programs": index,
                   "skipped": skipped}, f, indent=1)
    print(f"{len(index)} programs built, skipped: {skipped}")


if __name__ == "__main__":
    main()
