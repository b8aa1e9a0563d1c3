"""Compiles gpupoor's CPU loop form to a shared library and calls it.

The MLIR goes through `gpupoor-opt --gpupoor-cpu-pipeline` (split-k rewrite,
bufferization, split-k loops, LLVM dialect), `mlir-translate --mlir-to-llvmir`
and `llc`, then `cc -shared`; functions are called through their
`_mlir_ciface_` wrappers with memref descriptors built here.
"""

import atexit
import ctypes
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache

import numpy as np

_TOOLS_DIR = "/usr/lib/llvm-22/bin"


def _tool(env, name):
    path = os.environ.get(env) or shutil.which(name) or os.path.join(_TOOLS_DIR, name)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{name} not found (set {env})")
    return path


GPUPOOR_OPT = _tool("GPUPOOR_OPT", "gpupoor-opt")
MLIR_TRANSLATE = _tool("MLIR_TRANSLATE", os.path.join(_TOOLS_DIR, "mlir-translate"))
LLC = _tool("LLC", os.path.join(_TOOLS_DIR, "llc"))
CC = os.environ.get("CC", "cc")

_WORK = tempfile.mkdtemp(prefix="gpupoor-cpu-")
atexit.register(shutil.rmtree, _WORK, ignore_errors=True)


def _descriptor_type(rank):
    fields = [
        ("allocated", ctypes.c_void_p),
        ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64),
    ]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def memref(array):
    """A memref descriptor viewing `array` (kept alive by the caller)."""
    assert array.flags["C_CONTIGUOUS"]
    desc = _descriptor_type(array.ndim)()
    desc.allocated = desc.aligned = array.ctypes.data
    desc.offset = 0
    for i, (size, stride) in enumerate(zip(array.shape, array.strides)):
        desc.sizes[i] = size
        desc.strides[i] = stride // array.itemsize
    return desc


def _run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr}")
    return res.stdout


@lru_cache(maxsize=None)
def compile_mlir(source, pipeline_options=""):
    """Compiles MLIR source through the CPU pipeline; returns the ctypes library."""
    pipeline = "--gpupoor-cpu-pipeline" + (f"={pipeline_options}" if pipeline_options else "")
    return compile_with(source, (pipeline,))


@lru_cache(maxsize=None)
def compile_with(source, passes):
    """Compiles MLIR source with `gpupoor-opt *passes` (down to the LLVM
    dialect) and the LLVM tools; returns the ctypes library."""
    key = abs(hash((source, passes)))
    base = os.path.join(_WORK, f"k{key}")
    with open(base + ".mlir", "w") as f:
        f.write(source)
    _run([GPUPOOR_OPT, base + ".mlir", *passes, "-o", base + ".llvm.mlir"])
    _run([MLIR_TRANSLATE, "--mlir-to-llvmir", base + ".llvm.mlir", "-o", base + ".ll"])
    _run([LLC, "-O3", "-mcpu=native", "-filetype=obj", "-relocation-model=pic",
          base + ".ll", "-o", base + ".o"])
    _run([CC, "-shared", base + ".o", "-o", base + ".so", "-lm"])
    return ctypes.CDLL(base + ".so")


class Kernel:
    """A compiled `@kernel` taking numpy arrays."""

    def __init__(self, splits=0, outer="f32", max_splits=32, **source_kw):
        self.source = matmul_source(**source_kw)
        opts = f"splits={splits} outer-type={outer} max-splits={max_splits}"
        self.lib = compile_mlir(self.source, opts)
        self.fn = self.lib._mlir_ciface_kernel
        self.fn.restype = None

    def __call__(self, *arrays):
        descs = [memref(np.ascontiguousarray(a)) for a in arrays]
        self.fn(*[ctypes.byref(d) for d in descs])
