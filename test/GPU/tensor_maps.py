"""Launching gpupoor's TMA kernels (copies = tma) from Python: their
manifest lists two parameters of type "tensormap" (a_desc, b_desc; c_desc
too where the persistent kernel stores C by TMA), each a
CUtensorMap of 128 bytes passed by value, encoded as the manifest's
"tensor_maps" says (cuTensorMapEncodeTiled, through ctypes on libcuda).
CuPy's kernel call cannot pass a 128-byte struct, so these kernels go
through cuLaunchKernel directly, and so does any kernel launched with
programmatic stream serialization (cuLaunchKernelEx)."""

import ctypes

import numpy as np

_cuda = None


def _lib():
    global _cuda
    if _cuda is None:
        _cuda = ctypes.CDLL("libcuda.so.1")
    return _cuda


CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
CU_TENSOR_MAP_INTERLEAVE_NONE = 0
CU_TENSOR_MAP_SWIZZLE_128B = 3
CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3
CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0


def encode(ptr, k, rows, row_stride, box_rows, box_k=64, batch=None, batch_stride=0):
    """The tensor map of a rows x k f16 operand at `ptr`, rows `row_stride`
    elements apart (dims of 0 encoded as 1, strides of 0 or less as 16
    bytes, as the runtime does); C's as N columns of M rows. A batched
    kernel's (batch not None): `batch` such operands `batch_stride`
    elements apart, the batch a third dimension in boxes of one."""
    buf = (ctypes.c_uint8 * (128 + 64))()
    addr = (ctypes.addressof(buf) + 63) // 64 * 64
    rank = 2 if batch is None else 3
    # One batch element's stride is never stepped (any value passes then).
    batch_stride = batch_stride if (batch or 0) > 1 else 0
    dims = (ctypes.c_uint64 * 3)(max(k, 1), max(rows, 1), max(batch or 1, 1))
    strides = (ctypes.c_uint64 * 2)(*((s if s > 0 else 8) * 2 for s in (row_stride, batch_stride)))
    box = (ctypes.c_uint32 * 3)(box_k, box_rows, 1)
    elem = (ctypes.c_uint32 * 3)(1, 1, 1)
    err = _lib().cuTensorMapEncodeTiled(
        ctypes.c_void_p(addr), CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rank, ctypes.c_void_p(ptr), dims,
        strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed with CUDA error {err}")
    return bytes((ctypes.c_uint8 * 128).from_address(addr))


class _LaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute (cuda.h): the id, padding to 8 bytes, a 64-byte value."""
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_uint8 * 4), ("value", ctypes.c_uint8 * 64)]


class _LaunchConfig(ctypes.Structure):
    """CUlaunchConfig (cuda.h)."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared_bytes", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_LaunchAttribute)), ("num_attrs", ctypes.c_uint)]


CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6


def launch(function_ptr, grid, block, smem, stream_ptr, args, types, dependent=False):
    """cuLaunchKernel with `args` typed by the manifest's param_types
    ("ptr", "i32", "i64", "tensormap" as 128 bytes); with `dependent`,
    cuLaunchKernelEx with programmatic stream serialization (a kernel whose
    manifest says dependent_launch may start before the previous kernel of
    the stream ends)."""
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
    if dependent:
        attr = _LaunchAttribute(id=CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
        attr.value[0] = 1
        config = _LaunchConfig((ctypes.c_uint * 3)(grid[0], grid[1], 1),
                               (ctypes.c_uint * 3)(block, 1, 1), smem,
                               ctypes.c_void_p(stream_ptr), ctypes.pointer(attr), 1)
        err = _lib().cuLaunchKernelEx(ctypes.byref(config), ctypes.c_void_p(function_ptr),
                                      params, None)
        if err:
            raise RuntimeError(f"cuLaunchKernelEx failed with CUDA error {err}")
        return
    err = _lib().cuLaunchKernel(
        ctypes.c_void_p(function_ptr), ctypes.c_uint(grid[0]), ctypes.c_uint(grid[1]),
        ctypes.c_uint(1), ctypes.c_uint(block), ctypes.c_uint(1), ctypes.c_uint(1),
        ctypes.c_uint(smem), ctypes.c_void_p(stream_ptr), params, None)
    if err:
        raise RuntimeError(f"cuLaunchKernel failed with CUDA error {err}")
