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


def matmul_source(*, batched=False, b_layout="kn", bias=None, epilogue="none",
                  out_type="f16", shape=None, accumulate=False, row_scale=False,
                  residual=False, a_layout="mk"):
    """A linalg function `@kernel(A, B[, bias][, scale][, res], C_out)`
    on dynamic shapes, or on the static (M, N, K) or (batch, M, N, K) `shape`
    (the extras' sizes stay dynamic). A is M x K, or K x M (`a_layout="km"`);
    B is K x N, or N x K (`b_layout="nk"`).

    A and B (and the extras) are tensors; the result is materialized into
    the memref C_out. The matmul's init is a zero fill, or, with
    `accumulate`, C_out's contents (C += A*B in place); then come, as linalg.generic ops the rewrite
    fuses, a per-column bias, the activation, a per-row f32 scale and a
    full-size residual of C's type.
    """
    r = 3 if batched else 2
    dyn = "x".join("?" * r)
    ta, tb, tc = f"tensor<{dyn}xf16>", f"tensor<{dyn}xf16>", f"tensor<{dyn}x{out_type}>"
    mc = f"memref<{dyn}x{out_type}>"
    if shape:
        # (M, N, K), or (batch, M, N, K) for a batched product.
        assert len(shape) == (4 if batched else 3)
        lead = f"{shape[0]}x" if batched else ""
        m, n, k = shape[-3:]
        ta = f"tensor<{lead}{k}x{m}xf16>" if a_layout == "km" else f"tensor<{lead}{m}x{k}xf16>"
        tb = f"tensor<{lead}{n}x{k}xf16>" if b_layout == "nk" else f"tensor<{lead}{k}x{n}xf16>"
        tc, mc = f"tensor<{lead}{m}x{n}x{out_type}>", f"memref<{lead}{m}x{n}x{out_type}>"
    b0 = r - 2
    params = [f"%a: {ta}", f"%b: {tb}"]
    if bias:
        params.append(f"%bias: tensor<?x{bias}>")
    if row_scale:
        params.append("%scale: tensor<?xf32>")
    if residual:
        params.append(f"%res: {tc}")
    params.append(f"%out: {mc}")
    lines = [f"func.func @kernel({', '.join(params)}) {{"]
    for i in range(r):
        lines.append(f"  %c{i} = arith.constant {i} : index")
    dims = []
    if batched:
        lines.append("  %bt = tensor.dim %a, %c0 : " + ta)
        dims.append("%bt")
    lines.append(f"  %m = tensor.dim %a, %c{b0 + 1 if a_layout == 'km' else b0} : {ta}")
    n_dim = b0 if b_layout == "nk" else b0 + 1
    lines.append(f"  %n = tensor.dim %b, %c{n_dim} : {tb}")
    dims += ["%m", "%n"]
    lines.append(f"  %zero = arith.constant 0.0 : {out_type}")
    lines.append(f"  %e = tensor.empty({'' if shape else ', '.join(dims)}) : {tc}")
    lines.append(f"  %f = linalg.fill ins(%zero : {out_type}) outs(%e : {tc}) -> {tc}")
    op = "linalg.batch_matmul" if batched else "linalg.matmul"
    maps = ""
    if b_layout == "nk" or a_layout == "km":
        lead = "b, " if batched else ""
        dl = "(b, m, n, k)" if batched else "(m, n, k)"
        amap = "k, m" if a_layout == "km" else "m, k"
        bmap = "n, k" if b_layout == "nk" else "k, n"
        maps = (f" indexing_maps = [affine_map<{dl} -> ({lead}{amap})>, "
                f"affine_map<{dl} -> ({lead}{bmap})>, affine_map<{dl} -> ({lead}m, n)>]")
    if accumulate:
        # C += A*B in place: C_in is what C_out holds.
        lines.append(f"  %cin = bufferization.to_tensor %out restrict writable : {mc} to {tc}")
    init = "%cin" if accumulate else "%f"
    lines.append(f"  %r0 = {op}{maps} ins(%a, %b : {ta}, {tb}) outs({init} : {tc}) -> {tc}")
    cur = "%r0"
    ids = ", ".join(f"d{i}" for i in range(r))
    idmap = f"affine_map<({ids}) -> ({ids})>"
    par = ", ".join(['"parallel"'] * r)
    if bias:
        rowmap = f"affine_map<({ids}) -> (d{r - 1})>"
        ext = (f"    %bx = arith.extf %y : {bias} to {out_type}\n" if bias != out_type
               else "")
        addend = "%bx" if bias != out_type else "%y"
        lines.append(
            f"  %r1 = linalg.generic {{indexing_maps = [{idmap}, {rowmap}, {idmap}], "
            f"iterator_types = [{par}]}} ins({cur}, %bias : {tc}, tensor<?x{bias}>) outs(%e : {tc}) {{\n"
            f"  ^bb0(%x: {out_type}, %y: {bias}, %o: {out_type}):\n{ext}"
            f"    %s = arith.addf %x, {addend} : {out_type}\n"
            f"    linalg.yield %s : {out_type}\n  }} -> {tc}")
        cur = "%r1"
    if epilogue != "none":
        if epilogue == "relu":
            body = f"    %v = arith.maximumf %x, %zero : {out_type}\n"
        else:
            # Exact GELU computed in f32 (an f16 result is widened, then
            # rounded once), the form the epilogue fuses.
            x, tail = "%x", ""
            if out_type != "f32":
                x = "%xf"
                body = f"    %xf = arith.extf %x : {out_type} to f32\n"
                tail = f"    %v = arith.truncf %g : f32 to {out_type}\n"
            else:
                body = ""
            body += ("    %k = arith.constant 0.70710678118654752 : f32\n"
                     "    %h = arith.constant 0.5 : f32\n"
                     "    %one = arith.constant 1.0 : f32\n"
                     f"    %s = arith.mulf {x}, %k : f32\n"
                     "    %er = math.erf %s : f32\n"
                     "    %p = arith.addf %er, %one : f32\n"
                     f"    %hx = arith.mulf {x}, %h : f32\n"
                     f"    %{'g' if tail else 'v'} = arith.mulf %hx, %p : f32\n" + tail)
        lines.append(
            f"  %r2 = linalg.generic {{indexing_maps = [{idmap}, {idmap}], iterator_types = [{par}]}} "
            f"ins({cur} : {tc}) outs(%e : {tc}) {{\n  ^bb0(%x: {out_type}, %o: {out_type}):\n{body}"
            f"    linalg.yield %v : {out_type}\n  }} -> {tc}")
        cur = "%r2"
    if row_scale:
        mmap = f"affine_map<({ids}) -> (d{r - 2})>"
        cast = (f"    %yt = arith.truncf %sm : f32 to {out_type}\n" if out_type != "f32"
                else "")
        lines.append(
            f"  %r3 = linalg.generic {{indexing_maps = [{idmap}, {mmap}, {idmap}], "
            f"iterator_types = [{par}]}} ins({cur}, %scale : {tc}, tensor<?xf32>) outs(%e : {tc}) {{\n"
            f"  ^bb0(%x: {out_type}, %y: f32, %o: {out_type}):\n"
            + (f"    %xw = arith.extf %x : {out_type} to f32\n" if out_type != "f32" else "")
            + f"    %sm = arith.mulf {'%xw' if out_type != 'f32' else '%x'}, %y : f32\n{cast}"
            f"    linalg.yield {'%yt' if out_type != 'f32' else '%sm'} : {out_type}\n  }} -> {tc}")
        cur = "%r3"
    if residual:
        lines.append(
            f"  %r4 = linalg.generic {{indexing_maps = [{idmap}, {idmap}, {idmap}], "
            f"iterator_types = [{par}]}} ins({cur}, %res : {tc}, {tc}) outs(%e : {tc}) {{\n"
            f"  ^bb0(%x: {out_type}, %y: {out_type}, %o: {out_type}):\n"
            f"    %s = arith.addf %x, %y : {out_type}\n"
            f"    linalg.yield %s : {out_type}\n  }} -> {tc}")
        cur = "%r4"
    lines.append(f"  bufferization.materialize_in_destination {cur} in restrict writable %out "
                 f": ({tc}, {mc}) -> ()")
    lines.append("  return\n}")
    return "\n".join(lines) + "\n"


class Kernel:
    """A compiled `@kernel` taking numpy arrays."""

    def __init__(self, splits=0, outer="f32", max_splits=None, slices=1, split_k="",
                 **source_kw):
        self.source = matmul_source(**source_kw)
        # max_splits None: the compiler's default (the model's).
        opts = f"splits={splits} outer-type={outer} slices={slices}"
        if max_splits is not None:
            opts += f" max-splits={max_splits}"
        if split_k:
            # gpupoor-split-k options the CPU pipeline does not take (chip,
            # tile): the rewrite runs first, the pipeline's finds it done.
            self.lib = compile_with(self.source, (f"--gpupoor-split-k={opts} {split_k}",
                                                  f"--gpupoor-cpu-pipeline={opts}"))
        else:
            self.lib = compile_mlir(self.source, opts)
        self.fn = self.lib._mlir_ciface_kernel
        self.fn.restype = None

    def __call__(self, *arrays):
        descs = [memref(np.ascontiguousarray(a)) for a in arrays]
        self.fn(*[ctypes.byref(d) for d in descs])
