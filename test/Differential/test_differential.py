"""Differential testing of gpupoor-opt's CPU form against upstream MLIR.

Each generated program (programs.py) is compiled twice: with
`--gpupoor-cpu-pipeline` (split-k rewrite, fused epilogue, split-k loops)
and with upstream MLIR's own lowering of the same IR (One-Shot Bufferize,
convert-linalg-to-loops, the LLVM lowering), and both are run on the same
the same inputs, chosen so that the matmul is exact in any summation order
(programs.inputs). The epilogue computes exactly what the consumers it fuses
compute, so the two outputs must agree bit for bit (NaN with NaN). Outputs
are poisoned with NaN first.

  GPUPOOR_DIFF_COUNT=10000 GPUPOOR_DIFF_SEED=7 python3 -m pytest test/Differential -q

runs a long campaign (default: a short one, with a seed that changes per run
unless GPUPOOR_DIFF_SEED fixes it; a failure prints the seed and program).
"""

import ctypes
import os
import random
import re
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Numerics"))
from cpu_kernel import GPUPOOR_OPT, _run, compile_with, memref  # noqa: E402

import fixed_programs  # noqa: E402
import programs  # noqa: E402

REFERENCE = ("--pass-pipeline=builtin.module("
             "one-shot-bufferize{bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map}, "
             "buffer-deallocation-pipeline, convert-bufferization-to-memref, "
             "func.func(convert-linalg-to-loops), "
             "convert-scf-to-cf, expand-strided-metadata, lower-affine, arith-expand, "
             "func.func(llvm-request-c-wrappers), convert-math-to-llvm, convert-math-to-libm, "
             "convert-arith-to-llvm, finalize-memref-to-llvm, convert-func-to-llvm, "
             "convert-cf-to-llvm, reconcile-unrealized-casts)",)

COUNT = int(os.environ.get("GPUPOOR_DIFF_COUNT", "24"))
# Programs START .. COUNT - 1: a long campaign can go on where one stopped.
START = int(os.environ.get("GPUPOOR_DIFF_START", "0"))
SEED = int(os.environ.get("GPUPOOR_DIFF_SEED", str(random.SystemRandom().randrange(1 << 30))))


def run(lib, arrays, out_shape, out_dtype):
    out = np.full(out_shape, np.nan, dtype=out_dtype)
    # Copies: a function argument may be written in place (an init read by
    # C += A*B), and both compilations must see the same inputs.
    copies = [np.array(a, copy=True, order="C") for a in arrays]
    descs = [memref(a) for a in copies] + [memref(out)]
    fn = lib._mlir_ciface_kernel
    fn.restype = None
    fn(*[ctypes.byref(d) for d in descs])
    return out


def compile_fresh(source, passes):
    """compile_with without its cache: a campaign of thousands of programs
    would keep every library loaded (and run out of memory)."""
    return compile_with.__wrapped__(source, passes)


def unload(lib):
    ctypes.CDLL(None).dlclose(ctypes.c_void_p(lib._handle))


@pytest.mark.parametrize("index", range(START, COUNT))
def test_program(index):
    rng = random.Random(SEED * 1000003 + index)
    p = programs.generate(rng)
    arrays = programs.inputs(p, np.random.default_rng(SEED * 7 + index))
    # Not vacuous: every matmul is rewritten, and exactly the stages before
    # the first unfusable one move into its epilogue, so the comparison
    # below exercises gpupoor's code.
    split = _run([GPUPOOR_OPT, "-", f"--gpupoor-split-k={p.options}"], input=p.source)
    left = len(re.findall(r"linalg\.(generic|add|max|broadcast)\b", split))
    assert "gpupoor.matmul" in split and "linalg.matmul" not in split \
        and "linalg.batch_matmul" not in split and left == p.unfused_ops, \
        (f"seed {SEED} index {index}: {left} linalg ops left, expected {p.unfused_ops}\n"
         f"{p.source}\n{split}")
    libs = [compile_fresh(p.source, (f"--gpupoor-cpu-pipeline={p.options}",)),
            compile_fresh(p.source, REFERENCE)]
    got = run(libs[0], arrays, p.out_shape, p.out_dtype)
    want = run(libs[1], arrays, p.out_shape, p.out_dtype)
    for lib in libs:
        unload(lib)
    # Bit for bit, but any NaN equals any NaN (payloads may differ).
    bits = np.uint16 if p.out_dtype == np.float16 else np.uint32
    differ = (got.view(bits) != want.view(bits)) & ~(np.isnan(got) & np.isnan(want))
    assert not differ.any(), (f"seed {SEED} index {index}: {p.description}: "
                              f"{int(differ.sum())} of {got.size} outputs differ, e.g. "
                              f"{got[differ][:3]} instead of {want[differ][:3]}\n{p.source}")


def test_returned_copy():
    """A callee that returns a buffer it does not own (the GPU leg's fixed
    program, fixed_programs.returned_copy): bufferized, the callee returns
    a bufferization.clone of C_in; gpupoor's CPU pipeline copies it
    (gpupoor-lower-clones) where upstream's lowering of the reference does
    (convert-bufferization-to-memref): both C_in + A*B exactly, C_in
    unchanged (not accumulated into in place)."""
    p = fixed_programs.returned_copy()
    bufferized = _run([GPUPOOR_OPT, "-", "--pass-pipeline=builtin.module(one-shot-bufferize{"
                       "bufferize-function-boundaries}, buffer-deallocation-pipeline)"],
                      input=p.source)
    assert "bufferization.clone" in bufferized, bufferized
    arrays = fixed_programs.inputs(p, np.random.default_rng(11))
    a, b, cin = arrays
    exact = cin.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    outs = []
    for passes in (("--gpupoor-cpu-pipeline",), REFERENCE):
        lib = compile_fresh(p.source, passes)
        copies = [np.array(x, copy=True, order="C") for x in arrays]
        out = np.full(p.out_shape, np.nan, dtype=p.out_dtype)
        fn = lib._mlir_ciface_kernel
        fn.restype = None
        fn(*[ctypes.byref(memref(x)) for x in copies + [out]])
        unload(lib)
        assert np.array_equal(copies[2], cin), f"{passes}: C_in written"
        outs.append(out)
    assert np.array_equal(outs[1].astype(np.float64), exact)
    assert np.array_equal(outs[0].view(np.uint16), outs[1].view(np.uint16))
