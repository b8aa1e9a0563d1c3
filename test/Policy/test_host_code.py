"""The host code's run-time choice is the policy's: the IR that the emitted
host code and the loop form compute S and P' with (emitSplitGeometry,
emitTileCount, emitSliceCount; test-gpupoor-policy-ir puts it in a function
of M, N, K and batch), compiled for the CPU and run over a grid of sizes,
gives what the policy library (gpupoor-policy) decides for the same
strategy on those static sizes."""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Numerics"))

if not os.environ.get("GPUPOOR_POLICY"):
    pytest.skip("GPUPOOR_POLICY is not set", allow_module_level=True)

import cpu_kernel  # noqa: E402

# (chip, tile, slices, splits, max_splits, a_layout, b_layout): the tiles the
# compiler gives dynamic shapes on each chip, the sm_90a families and
# one-warpgroup tiles (whose slice share differs), fixed counts, a short
# max_splits.
STRATEGIES = [
    ("sm_80", (128, 128, 32), 0, None, 32, "mk", "kn"),
    ("sm_86", (16, 128, 64), 0, None, 32, "mk", "nk"),
    ("sm_89", (64, 128, 64), 0, None, 8, "mk", "kn"),
    ("sm_90", (128, 128, 32), 0, None, 32, "km", "kn"),
    ("sm_90", (256, 128, 64), 0, None, 32, "mk", "nk"),
    ("sm_90", (16, 128, 128), 3, None, 32, "mk", "nk"),
    ("sm_90a", (128, 256, 64), 0, None, 32, "mk", "nk"),
    ("sm_90a", (64, 64, 64), 0, None, 32, "mk", "nk"),
    ("sm_90a", (64, 128, 64), 0, None, 64, "mk", "nk"),
    ("sm_90a", (128, 128, 64), 0, None, 32, "mk", "nk"),
    ("sm_90a", (32, 16, 256), 0, None, 32, "mk", "nk"),
    ("sm_90a", (64, 16, 64), 0, 4, 32, "mk", "nk"),
    ("sm_90a", (64, 16, 128), 0, None, 256, "mk", "nk"),
    ("sm_90a", (64, 32, 128), 0, None, 32, "km", "kn"),
    ("sm_90a", (128, 256, 64), 1, None, 32, "mk", "nk"),
    ("sm_90a", (64, 64, 64), 7, 16, 32, "mk", "nk"),
]
MS = (0, 1, 7, 16, 64, 100, 128, 129, 512, 4096, 33000)
NS = (1, 16, 64, 130, 1024, 4096, 14336, 100000)
KS = (0, 1, 32, 100, 2016, 2017, 2048, 2560, 4096, 14336, 16383, 16384, 10**6)
BATCHES = (1, 3)


def _attr(chip, tile, slices, splits, max_splits, a, b) -> str:
    fields = ([f"splits = {splits}"] if splits else []) + [
        f"max_splits = {max_splits}", f"tile = [{', '.join(map(str, tile))}]", "inner = f16",
        "outer = f32", f"b_layout = {b}", f"a_layout = {a}", f"slices = {slices}",
        f"chip = {chip}"]
    return f"#gpupoor.split_k<{', '.join(fields)}>"


def _source() -> str:
    fns = []
    for i, s in enumerate(STRATEGIES):
        fns.append(f"func.func @s{i}(%m: index, %n: index, %k: index, %b: index) -> (index, index)"
                   f" attributes {{gpupoor.test_strategy = {_attr(*s)}}} {{\n"
                   "  return %m, %n : index, index\n}\n")
    return "".join(fns)


class _Pair(ctypes.Structure):
    _fields_ = [("splits", ctypes.c_int64), ("slices", ctypes.c_int64)]


def test_host_code_decides_as_the_policy():
    lib = cpu_kernel.compile_with(_source(), ("--test-gpupoor-policy-ir", "--convert-to-llvm",
                                              "--reconcile-unrealized-casts"))
    lines, got = [], []
    for i, (chip, tile, slices, splits, max_splits, a, b) in enumerate(STRATEGIES):
        fn = getattr(lib, f"s{i}")
        fn.restype = _Pair
        fn.argtypes = [ctypes.c_int64] * 4
        for m, n, k, batch in itertools.product(MS, NS, KS, BATCHES):
            r = fn(m, n, k, batch)
            got.append((r.splits, r.slices))
            words = [f"chip={chip}", f"m={m}", f"n={n}", f"k={k}", f"a={a}", f"b={b}",
                     f"tile={','.join(map(str, tile))}", f"slices={slices}",
                     f"max-splits={max_splits}"]
            if splits:
                words.append(f"splits={splits}")
            if batch > 1:
                words.append(f"batch={batch}")
            lines.append(" ".join(words))
    res = subprocess.run([os.environ["GPUPOOR_POLICY"], "-"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    want = [json.loads(line)["strategy"] for line in res.stdout.splitlines()]
    assert len(want) == len(got) >= 10**4
    bad = [(line, g, (w["splits"], w["slices"])) for line, g, w in zip(lines, got, want)
           if g != (w["splits"], w["slices"])]
    assert not bad, f"{len(bad)} differ, e.g. {bad[:3]}"
    assert len({g for g in got if g[1] > 1}) > 10     # automatic slices beyond one
