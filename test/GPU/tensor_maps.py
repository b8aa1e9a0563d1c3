"""Launching gpupoor's TMA kernels (copies = tma) from Python: their
manifest lists two parameters of type "tensormap" (a_desc, b_desc; c_desc
too where the persistent kernel stores C by TMA), each a
CUtensorMap of 128 bytes passed by value, encoded as the manifest's
"tensor_maps" says, by lib/Runtime/Driver.cpp's encoder (through ctypes).
CuPy's kernel call cannot pass a 128-byte struct, so these kernels go
through cuLaunchKernel directly, and so does any kernel launched with
programmatic stream serialization (cuLaunchKernelEx)."""

import ctypes
import os
import subprocess
import tempfile

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.join(_HERE, "..", "..")
_CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
_lib_handle = None


def _lib():
    """lib/Runtime/Driver.cpp (the project's one tensor-map encoder and
    launch, which the runtime and the package's extension compile too) as a
    shared library, built once per process on the GPU machine."""
    global _lib_handle
    if _lib_handle is None:
        out = os.path.join(tempfile.mkdtemp(prefix="gpupoor-driver-"), "libgpupoor_driver.so")
        subprocess.run(["g++", "-O2", "-shared", "-fPIC", os.path.join(_REPO, "lib", "Runtime", "Driver.cpp"),
                        f"-I{os.path.join(_REPO, 'include')}", f"-I{_CUDA}/include", "-ldl", "-o", out],
                       check=True)
        lib = ctypes.CDLL(out)
        lib.gpupoorEncodeOperandMap.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * 3 \
            + [ctypes.c_uint] * 2 + [ctypes.c_int64] * 3
        lib.gpupoorLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 4 \
            + [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        _lib_handle = lib
    return _lib_handle


def encode(ptr, k, rows, row_stride, box_rows, *, l2_promotion, box_k, batch=None,
           batch_stride=0):
    """The tensor map of a rows x k f16 operand at `ptr`, rows `row_stride`
    elements apart (dims of 0 encoded as 1, strides of 0 or less as 16
    bytes, as the runtime does); C's as N columns of M rows. A batched
    kernel's (batch not None): `batch` such operands `batch_stride`
    elements apart, the batch a third dimension in boxes of one.
    `l2_promotion`: the manifest's ("none", "64B", "128B" or "256B");
    `box_k`: the box's columns (the runtime swizzles across its row)."""
    buf = (ctypes.c_uint8 * (128 + 64))()
    addr = (ctypes.addressof(buf) + 63) // 64 * 64
    if batch is None:
        batch, batch_stride = -1, 0
    else:
        # One batch element's stride is never stepped (any value passes then).
        batch, batch_stride = max(batch, 1), batch_stride if batch > 1 else 0
    promotion = 0 if l2_promotion == "none" else int(l2_promotion.rstrip("B"))
    err = _lib().gpupoorEncodeOperandMap(addr, ptr, k, rows, row_stride, box_k, box_rows, batch,
                                         batch_stride, promotion)
    if err:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed with CUDA error {err}")
    return bytes((ctypes.c_uint8 * 128).from_address(addr))


def launch(function_ptr, grid, block, smem, stream_ptr, args, types, dependent=False):
    """Launches with `args` typed by the manifest's param_types ("ptr",
    "i32", "i64", "tensormap" as 128 bytes); with `dependent`, with
    programmatic stream serialization (a kernel whose manifest says
    dependent_launch may start before the previous kernel of the stream
    ends)."""
    holders = []
    for v, t in zip(args, types):
        if t == "tensormap":
            raw = (ctypes.c_uint8 * (128 + 64))()
            addr = (ctypes.addressof(raw) + 63) // 64 * 64
            ctypes.memmove(addr, v, 128)
            holders.append((raw, addr))
        elif t == "i32":
            holders.append(ctypes.c_int32(int(v)))
        else:
            holders.append(ctypes.c_uint64(int(np.uint64(v)) if t == "ptr" else int(v) & (2**64 - 1)))
    params = (ctypes.c_void_p * len(holders))()
    for i, h in enumerate(holders):
        params[i] = h[1] if isinstance(h, tuple) else ctypes.addressof(h)
    err = _lib().gpupoorLaunchKernel(function_ptr, grid[0], grid[1], block, smem, stream_ptr,
                                     params, int(dependent))
    if err:
        raise RuntimeError(f"cuLaunchKernel{'Ex' if dependent else ''} failed with CUDA error {err}")
