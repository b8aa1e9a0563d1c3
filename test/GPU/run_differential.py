#!/usr/bin/env python3
"""Runs the programs build_differential.py built, on a CUDA GPU.

Links each program's object (its host code and embedded cubin) with
lib/Runtime/CudaRuntime.cpp into a shared library, calls `kernel` on device buffers
holding the saved inputs, and compares the output with the one upstream
MLIR's CPU lowering computed: bit for bit (any NaN equals any NaN) where
the program has no transcendental functions, else within a few ulps (libm
and libdevice round exp, tanh and erf differently). Outputs are poisoned
with NaN first. Run it under compute-sanitizer to check memory accesses:

  compute-sanitizer --tool memcheck --error-exitcode 1 \\
      python3 test/GPU/run_differential.py DIR

Prints 'N passed, N failed'. Needs torch and a C++ compiler.
"""

import argparse
import ctypes
import json
import os
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")


def descriptor(t):
    """A memref descriptor of the device tensor `t` (kept alive by the caller)."""
    rank = t.dim()
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    desc = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})()
    desc.allocated = desc.aligned = t.data_ptr()
    desc.offset = 0
    for i in range(rank):
        desc.sizes[i] = t.shape[i]
        desc.strides[i] = t.stride(i)
    return desc


def link(obj, runtime, out):
    subprocess.run(["g++", "-shared", "-Wl,-Bsymbolic", obj, runtime, "-o", out,
                    f"-L{CUDA}/lib64", f"-L{CUDA}/lib64/stubs", "-lcuda", "-ldl"], check=True)


def build_runtime(out_dir):
    """Compiles lib/Runtime (CudaRuntime.cpp and Driver.cpp) into one object in
    OUT_DIR/lib; returns the lib folder and the object."""
    work = os.path.join(out_dir, "lib")
    os.makedirs(work, exist_ok=True)
    repo = os.path.join(HERE, "..", "..")
    objects = []
    for name in ("CudaRuntime", "Driver"):
        objects.append(os.path.join(work, name + ".o"))
        subprocess.run(["g++", "-O2", "-fPIC", "-c", os.path.join(repo, "lib", "Runtime", name + ".cpp"),
                        f"-I{CUDA}/include", f"-I{os.path.join(repo, 'include')}", "-o", objects[-1]],
                       check=True)
    runtime = os.path.join(work, "mgpu_runtime.o")
    subprocess.run(["ld", "-r", *objects, "-o", runtime], check=True)
    return work, runtime


def compare(got, want, exact):
    nan = np.isnan(got) & np.isnan(want)
    if exact:
        bits = np.uint16 if got.dtype == np.float16 else np.uint32
        bad = (got.view(bits) != want.view(bits)) & ~nan
    else:
        # libdevice's and libm's exp, tanh and erf differ by an ulp or two of
        # their result, which the ops after them carry: 1 + erf(x) near
        # x = -3 cancels to a tiny value whose relative error is large, but
        # whose absolute error stays a few ulps of the magnitudes involved.
        eps = float(np.finfo(got.dtype).eps)
        g, w = got.astype(np.float64), want.astype(np.float64)
        finite = np.isfinite(w)
        scale = np.abs(w[finite]).max() if finite.any() else 1.0
        close = np.abs(g - w) <= 4 * eps * np.abs(w) + 16 * eps * max(scale, 1.0)
        close |= (g == w)  # equal infinities
        bad = ~(close | nan)
    return bad


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--verbose", action="store_true", help="name each program before it runs")
    args = parser.parse_args()
    with open(os.path.join(args.dir, "index.json")) as f:
        index = json.load(f)
    work, runtime = build_runtime(args.dir)
    torch.cuda.init()
    passed = failed = 0
    for prog in index["programs"]:
        name = prog["name"]
        if args.verbose:
            print(f"{name}: {prog['description']}", flush=True)
        lib_path = os.path.join(work, name + ".so")
        link(os.path.join(args.dir, name + ".o"), runtime, lib_path)
        lib = ctypes.CDLL(lib_path)
        data = np.load(os.path.join(args.dir, name + ".npz"))
        # (np.ascontiguousarray would make 0-d arrays 1-d.)
        inputs = [torch.from_numpy(np.array(data[f"arr_{i}"], order="C")).cuda()
                  for i in range(len(prog["args"]))]
        want = data["want"]
        out = torch.full(prog["out_shape"], float("nan"),
                         dtype=getattr(torch, prog["out_dtype"]), device="cuda")
        descs = [descriptor(t) for t in inputs + [out]]
        before = [t.clone() for t in inputs]
        torch.cuda.synchronize()
        fn = lib._mlir_ciface_kernel
        fn.restype = None
        fn(*[ctypes.byref(d) for d in descs])
        torch.cuda.synchronize()
        got = out.cpu().numpy()
        bad = compare(got, want, prog["exact"])
        # Again where the first call left the inputs as they were (not an
        # accumulation into an argument): the runtime's kept slice counters
        # must be zero again, the output the same.
        if all(torch.equal(t, u) or (t.is_floating_point() and
                                     torch.equal(t.nan_to_num(), u.nan_to_num()))
               for t, u in zip(inputs, before)):
            out.fill_(float("nan"))
            fn(*[ctypes.byref(d) for d in descs])
            torch.cuda.synchronize()
            bad |= compare(out.cpu().numpy(), want, prog["exact"])
        if bad.any():
            failed += 1
            print(f"FAIL {name}: {prog['description']}: {int(bad.sum())} of {got.size} differ, "
                  f"e.g. {got[bad][:3]} instead of {want[bad][:3]}\n{prog['source']}", flush=True)
        else:
            passed += 1
    print(f"differential on {torch.cuda.get_device_name()}: {passed} passed, {failed} failed "
          f"(seed {index['seed']}; skipped at build: {index['skipped']})")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
