"""Runs the front-end layers build_frontend.py built against PyTorch.

Each layer is called on random f16 inputs (weights scaled as nn.Linear
initializes them) on the GPU, through its host code and embedded cubins;
its output is compared with PyTorch's float64 computation of the same layer
on the same f16 inputs, as ||C - C_ref|| / ||C_ref||, next to the error of
PyTorch's own f16 layer (cuBLAS, f32 accumulation). A layer fails when its
error exceeds 1e-2 (a wrong layout, operand or epilogue gives errors of
order 1) or has non-finite values.

  python3 test/GPU/run_frontend.py DIR [--time]

A DIR built with --format isa for an older chip (sm_80) runs its PTX
through the driver's JIT.

With --time, also the wall time of one call (median of 50, after warm-up,
synchronized), next to PyTorch's f16 layer: the host code's launches, its
allocations and the leftover kernels included.

Needs torch and a C++ compiler.
"""

import argparse
import ctypes
import json
import math
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_differential import build_runtime, descriptor, link  # noqa: E402

ACT = {
    "": lambda h: h,
    "_static": lambda h: h,
    "_3d": lambda h: h,
    "_relu": F.relu,
    "_gelu": F.gelu,
    "_gelu_tanh": lambda h: F.gelu(h, approximate="tanh"),
    "_sigmoid": torch.sigmoid,
    "_leaky_relu": lambda h: F.leaky_relu(h, 0.01),
    "_relu6": F.relu6,
    "_silu": F.silu,
    "_tanh": torch.tanh,
    "_hardswish": F.hardswish,
    "_mish": F.mish,
}


def fx_reference(name, a):
    """The fx_* layers (test/Frontend/generate_fx.py): functional forms
    whose arguments are the activations and the weights (a *_const layer's
    weights follow its arguments, as build_frontend.py saved them)."""
    name = name[len("fx_"):].removesuffix("_const")
    if name == "linear":
        return F.linear(a[0], a[1])
    if name == "mlp":
        return F.linear(F.silu(F.linear(a[0], a[1])) * F.linear(a[0], a[2]), a[3])
    if name == "bmm":
        return torch.bmm(a[0], a[1])
    if name == "attention_scores":
        return a[0] @ a[1].transpose(-1, -2) * 0.125
    h = F.linear(a[0], a[1], a[2])
    if name == "linear_bias_residual":
        return h + a[3]
    if name == "linear_bias_float":
        return h.float() if h.dtype == torch.float16 else h
    act = name[len("linear_bias"):]
    return ACT["" if act in ("_dyn", "_3d") else act](h)


def reference(name, a):
    """Layer `name` of the inputs `a`, in the inputs' dtype (float64 or f16)."""
    if name.startswith("fx_"):
        return fx_reference(name, a)
    if name.startswith("linear"):
        return ACT[name[len("linear"):]](F.linear(a[0], a[1], a[2]))
    if name == "weight_grad":
        return a[0].transpose(0, 1) @ a[1]
    if name == "mlp":
        return a[0] + F.linear(F.gelu(F.linear(a[0], a[1], a[2])), a[3], a[4])
    scores = a[0] @ a[1].transpose(-1, -2) * 0.125
    if name == "attention_scores":
        return scores
    return torch.softmax(scores, dim=-1) @ a[2]


def inputs(shapes, gen, name_is_grad=False):
    """Random f16 inputs: unit activations, weights and biases of the scale
    nn.Linear gives them (1 / sqrt(fan_in))."""
    out = []
    for i, s in enumerate(shapes):
        t = torch.randn(s, generator=gen, device="cuda")
        if i and len(s) <= 2 and not name_is_grad:
            t = t / math.sqrt(s[-1])
        out.append(t.half())
    return out


def wall_us(fn, runs=50):
    """Median wall time of fn() in microseconds, synchronized, after warm-up."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def rel(x, ref):
    return (torch.linalg.vector_norm(x.double() - ref) / torch.linalg.vector_norm(ref)).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--time", action="store_true")
    args = parser.parse_args()
    with open(os.path.join(args.dir, "index.json")) as f:
        index = json.load(f)
    work, runtime = build_runtime(args.dir)
    torch.cuda.init()
    libcuda = ctypes.CDLL("libcuda.so.1")
    gen = torch.Generator(device="cuda").manual_seed(0)
    failed = 0
    print(f"{'layer':20} {'kernels':>7} {'gpupoor':>10} {'torch f16':>10}"
          + (f" {'gpupoor us':>11} {'torch us':>9}" if args.time else ""))
    for layer in index["layers"]:
        name = layer["name"]
        lib_path = os.path.join(work, name + ".so")
        link(os.path.join(args.dir, name + ".o"), runtime, lib_path)
        lib = ctypes.CDLL(lib_path)
        a = inputs(layer["args"], gen, name == "weight_grad")
        consts = []
        if name.endswith("_const"):
            with np.load(os.path.join(args.dir, name + ".npz")) as saved:
                consts = [torch.from_numpy(saved[f"arr_{i}"]).cuda() for i in range(len(saved))]
        dtype = torch.float32 if layer.get("out_type") == "f32" else torch.float16
        result = descriptor(torch.empty(layer["out"], dtype=dtype, device="cuda"))
        descs = [descriptor(t) for t in a]
        torch.cuda.synchronize()
        fn = lib._mlir_ciface_layer
        fn.restype = None
        fn(ctypes.byref(result), *[ctypes.byref(d) for d in descs])
        torch.cuda.synchronize()
        got = torch.empty(layer["out"], dtype=dtype, device="cuda")
        assert list(result.sizes) == layer["out"], (name, list(result.sizes))
        assert libcuda.cuMemcpyDtoD_v2(ctypes.c_uint64(got.data_ptr()),
                                       ctypes.c_uint64(result.aligned),
                                       ctypes.c_size_t(got.numel() * got.element_size())) == 0
        lib.mgpuMemFree(ctypes.c_void_p(result.allocated), None)
        ref = reference(name, [t.double() for t in a + consts])
        ours, theirs = rel(got, ref), rel(reference(name, a + consts), ref)
        ok = math.isfinite(ours) and ours <= 1e-2 and bool(torch.isfinite(got).all())
        failed += not ok
        timing = ""
        if args.time:
            def call():
                fn(ctypes.byref(result), *[ctypes.byref(d) for d in descs])
                lib.mgpuMemFree(ctypes.c_void_p(result.allocated), None)
            timing = f" {wall_us(call):11.1f} {wall_us(lambda: reference(name, a)):9.1f}"
        print(f"{name:20} {layer['kernels']:7} {ours:10.2e} {theirs:10.2e}{timing}"
              f"{'' if ok else '  FAIL'}", flush=True)
    print(f"front-end layers on {torch.cuda.get_device_name()}: "
          f"{len(index['layers']) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
