"""The front-end layers of test/Frontend/ on the CPU, against upstream MLIR.

Each layer (IR as IREE's input pipeline made it of an ONNX graph) is
compiled with `--gpupoor-cpu-pipeline` (layouts folded, split-k loops, fused
epilogue, every leftover op as loops) and with upstream MLIR's own lowering
of the same file (test_differential.REFERENCE), and both run on the same
inputs. The matmul operands are integers in [-1, 1], so that every partial
sum is exact in f16 and any summation order gives the same product: a
layer with one matmul must then agree bit for bit (any NaN equals any NaN).
In a layer whose second matmul reads the first's activations (MLP,
attention) the sums are no longer exact, and the two must agree within
the f16 inner sums' error.
"""

import ctypes
import glob
import os
import re
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Numerics"))
from cpu_kernel import _descriptor_type, compile_with, memref  # noqa: E402
from test_differential import REFERENCE  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Frontend"))
from layers import signature  # noqa: E402

FRONTEND = os.path.join(os.path.dirname(__file__), "..", "Frontend")
LAYERS = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(FRONTEND, "*.mlir")))
# Layers with a matmul of another matmul's (inexact) activations, and
# layers whose weights are constants in the file (random floats, not the
# integers the test gives): their sums are inexact.
CHAINED = {"mlp", "attention", "fx_mlp"} | {n for n in LAYERS if n.endswith("_const")}
# Which arguments are matmul operands (integers), by layer.
MATMUL_ARGS = {"mlp": {0, 1, 3}, "attention_scores": {0, 1}, "attention": {0, 1, 2},
               "fx_mlp": {0, 1, 2, 3}}
BATCH = {2: 37, 3: 3}


def call(lib, arrays, out_rank, dtype=np.float16):
    result = _descriptor_type(out_rank)()
    # Copies, kept alive through the call: the layer may write an argument.
    copies = [np.array(a, copy=True, order="C") for a in arrays]
    descs = [memref(c) for c in copies]
    fn = lib._mlir_ciface_layer
    fn.restype = None
    fn(ctypes.byref(result), *[ctypes.byref(d) for d in descs])
    shape = tuple(result.sizes[i] for i in range(out_rank))
    size = np.dtype(dtype).itemsize
    strides = tuple(result.strides[i] * size for i in range(out_rank))
    base = result.aligned + result.offset * size
    buf = (ctypes.c_char * (max(1, int(np.prod(shape))) * size)).from_address(base)
    out = np.ndarray(shape, dtype=dtype, buffer=buf, strides=strides).copy()
    ctypes.CDLL(None).free(ctypes.c_void_p(result.allocated))
    return out


@pytest.mark.parametrize("layer", LAYERS)
def test_layer(layer):
    source = open(os.path.join(FRONTEND, layer + ".mlir")).read()
    shapes, out_shape = signature(source, BATCH)
    out_rank = len(out_shape)
    rng = np.random.default_rng(11)
    ints = MATMUL_ARGS.get(layer, {0, 1})
    arrays = [(rng.integers(-1, 2, size=s) if i in ints else rng.standard_normal(size=s))
              .astype(np.float16) for i, s in enumerate(shapes)]
    # The result's element type (f16, or f32 for a layer that ends in
    # .float()).
    f32 = re.search(r"func\.func @layer\(.*?\) -> tensor<[^>]*xf32>", source)
    dtype = np.float32 if f32 else np.float16
    got = call(compile_with(source, ("--gpupoor-cpu-pipeline",)), arrays, out_rank, dtype)
    want = call(compile_with(source, REFERENCE), arrays, out_rank, dtype)
    assert got.shape == want.shape
    nan = np.isnan(got) & np.isnan(want)
    if layer in CHAINED:
        g, w = got.astype(np.float64), want.astype(np.float64)
        assert not (np.isnan(g) ^ np.isnan(w)).any()
        rel = np.linalg.norm(np.nan_to_num(g - w)) / np.linalg.norm(np.nan_to_num(w))
        assert rel < 5e-3, f"{layer}: ||got - want|| / ||want|| = {rel:.2e}"
    else:
        bits = np.uint32 if dtype == np.float32 else np.uint16
        differ = (got.view(bits) != want.view(bits)) & ~nan
        assert not differ.any(), (f"{layer}: {int(differ.sum())} of {got.size} differ, e.g. "
                                  f"{got[differ][:4]} instead of {want[differ][:4]}")
