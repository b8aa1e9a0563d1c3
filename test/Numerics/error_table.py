#!/usr/bin/env python3
"""Prints the CPU split-k error table: shape x S x outer type.

Relative Frobenius error ||C - C_fp64|| / ||C_fp64|| of the CPU loop form
(f16 output) on random normal inputs, with the f32-outer bound the tests
enforce. Run from a build: GPUPOOR_OPT=build/bin/gpupoor-opt python3 test/Numerics/error_table.py
"""

import math
import sys

import numpy as np

import split_k_model as model
from test_cpu_numerics import BK, SHAPES, SPLITS, call, inputs, kernel, reference, shape_id


def main():
    rng = np.random.default_rng(0)
    print("| shape (BxMxNxK) | S | err f16 outer | err f32 outer | f32 bound |")
    print("|---|---|---|---|---|")
    for shape in SHAPES:
        batch, m, n, k = shape
        a, b = inputs(shape, "normal", rng)
        ref = reference(a, b)
        for splits in SPLITS:
            s = model.default_splits(k) if splits == "default" else splits
            errs = [model.rel_error(call(kernel(splits, o, batched=bool(batch)), a, b, n), ref)
                    for o in ("f16", "f32")]
            bound = 0.35 * 2.0**-11 * math.sqrt(k / (16 * s)) + 3e-4
            label = f"default={s}" if splits == "default" else str(s)
            print(f"| {shape_id(shape)} | {label} | {errs[0]:.3e} | {errs[1]:.3e} | {bound:.3e} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
