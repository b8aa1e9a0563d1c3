"""Loading and launching cubins (or PTX) through the CUDA driver API.

cuda-bindings (NVIDIA's cuda-python driver bindings, on PyPI, and a
dependency of PyTorch's CUDA 13 wheels) gives the driver calls; parameters
are packed with `struct` into one preallocated buffer per kernel and thread
and handed over as a `void **` to cuLaunchKernel or cuLaunchKernelEx, which
alone are called through ctypes (they run on every call; see _bind_launch).
Cubins load once per process as context-independent libraries
(cuLibraryLoadData; PTX too, which the driver compiles for the device); each
device gets its function handle and its dynamic-shared-memory attribute the
first time it launches the kernel.
Launches go to PyTorch's current stream of the operands' device.

Kernels whose manifest says `dependent_launch` (sm_90 and later) go through
cuLaunchKernelEx with programmatic stream serialization: such a kernel may
start while the kernel before it in the stream ends, and waits for it before
touching memory, so that back-to-back launches (a model's layers) overlap
one's start with the other's end. GPUPOOR_DEPENDENT_LAUNCH=0 (read when a
kernel is first loaded) launches them plainly, and so does a driver without
cuLaunchKernelEx.
"""

from __future__ import annotations

import ctypes
import os
import struct
import threading
from pathlib import Path

_SLOT = {"ptr": "Q", "i64": "q", "i32": "i4x"}
_CUDA_ERROR_INVALID_CONTEXT = 201
_cu_launch = None
_cu_launch_ex = None
# CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (cuda.h).
_PROGRAMMATIC_STREAM_SERIALIZATION = 6
_cu_encode = None
# cuTensorMapEncodeTiled's enums (cuda.h) for the manifest's spellings.
_TENSOR_MAP_DTYPE = {"float16": 6}
_TENSOR_MAP_SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
_TENSOR_MAP_L2 = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
_TENSOR_MAP_OOB = {"zero": 0}


def _param_layout(param_types: list[str]) -> tuple[str, list[int], int]:
    """(struct format, byte offsets, bytes) of a kernel's parameters packed
    from a 64-byte aligned base: 8-byte slots, and each "tensormap" (a
    CUtensorMap by value) as 128 bytes at a 64-byte boundary, the alignment
    its __grid_constant__ parameter has."""
    fmt, offsets, off = "<", [], 0
    for t in param_types:
        if t == "tensormap":
            pad = -off % 64
            fmt += f"{pad}x" if pad else ""
            off += pad
            offsets.append(off)
            fmt += "128s"
            off += 128
        elif t in _SLOT:
            offsets.append(off)
            fmt += _SLOT[t]
            off += 8
        else:
            raise RuntimeError(f"unknown kernel parameter type {t!r}")
    return fmt, offsets, off


def tensor_map_fields(spec: dict, k: int, rows: int, row_stride: int) -> tuple[int, ...]:
    """cuTensorMapEncodeTiled's arguments but the address for the manifest's
    tensor_maps entry `spec` of a rows x k f16 operand, rows `row_stride`
    elements apart: (K, rows, row stride in bytes, box K, box rows, element
    strides K and rows, data type, swizzle, L2 promotion, OOB fill), sizes of
    0 encoded as 1 (the kernel then loads nothing) as the MLIR runtime does."""
    box_k, box_rows = spec["box_dim"]
    return (max(k, 1), max(rows, 1), (row_stride if row_stride > 0 else 8) * 2, box_k,
            box_rows, *spec["element_strides"], _TENSOR_MAP_DTYPE[spec["data_type"]],
            _TENSOR_MAP_SWIZZLE[spec["swizzle"]], _TENSOR_MAP_L2[spec["l2_promotion"]],
            _TENSOR_MAP_OOB[spec["oob_fill"]])


def encoder_address() -> int:
    """cuTensorMapEncodeTiled's address in the libcuda this launcher uses."""
    global _cu_encode
    if _cu_encode is None:
        driver()
        fn = ctypes.CDLL("libcuda.so.1").cuTensorMapEncodeTiled
        fn.restype = ctypes.c_int
        _cu_encode = fn
    return ctypes.cast(_cu_encode, ctypes.c_void_p).value


def tensor_map(fields: tuple[int, ...], ptr: int) -> bytes:
    """The 128 bytes of the tensor map of `fields` (tensor_map_fields) at
    `ptr`."""
    encoder_address()
    buf = (ctypes.c_uint8 * (128 + 64))()
    addr = (ctypes.addressof(buf) + 63) // 64 * 64
    k, rows, stride, box_k, box_rows, es_k, es_rows, dtype, swizzle, l2, oob = fields
    dims = (ctypes.c_uint64 * 2)(k, rows)
    strides = (ctypes.c_uint64 * 1)(stride)
    box = (ctypes.c_uint32 * 2)(box_k, box_rows)
    elem = (ctypes.c_uint32 * 2)(es_k, es_rows)
    err = _cu_encode(ctypes.c_void_p(addr), ctypes.c_int(dtype), ctypes.c_uint(2),
                     ctypes.c_void_p(ptr), dims, strides, box, elem, ctypes.c_int(0),
                     ctypes.c_int(swizzle), ctypes.c_int(l2), ctypes.c_int(oob))
    if err:
        drv = driver()
        _check(drv, (drv.CUresult(err),),
               f"cuTensorMapEncodeTiled({rows} x {k} f16 at {ptr:#x}, row stride {stride} bytes)")
    return bytes((ctypes.c_uint8 * 128).from_address(addr))


def _bind_launch():
    """cuLaunchKernel of the libcuda that cuda-bindings loaded, called
    through ctypes: a launch is on every call's path, and the bindings'
    argument conversion costs several microseconds more."""
    global _cu_launch
    lib = ctypes.CDLL("libcuda.so.1")
    fn = lib.cuLaunchKernel
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    _cu_launch = fn
    global _cu_launch_ex
    # CUDA 11.8 and later; without it every kernel launches plainly.
    ex = getattr(lib, "cuLaunchKernelEx", None)
    if ex is not None:
        ex.restype = ctypes.c_int
        ex.argtypes = [ctypes.c_void_p] * 4
    _cu_launch_ex = ex


class LaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute (cuda.h): an id, padding to 8 bytes, a 64-byte value."""
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_uint8 * 4), ("value", ctypes.c_uint8 * 64)]


class LaunchConfig(ctypes.Structure):
    """CUlaunchConfig (cuda.h)."""
    _fields_ = [("grid_x", ctypes.c_uint), ("grid_y", ctypes.c_uint), ("grid_z", ctypes.c_uint),
                ("block_x", ctypes.c_uint), ("block_y", ctypes.c_uint), ("block_z", ctypes.c_uint),
                ("shared_bytes", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttribute)), ("num_attrs", ctypes.c_uint)]


def dependent_launches() -> bool:
    """Whether kernels that allow it launch with programmatic stream
    serialization (GPUPOOR_DEPENDENT_LAUNCH, default on; LoadedKernel also
    needs the driver's cuLaunchKernelEx)."""
    return os.environ.get("GPUPOOR_DEPENDENT_LAUNCH", "1") != "0"
_driver = None
_init_lock = threading.Lock()


def driver():
    """cuda.bindings.driver, initialized."""
    global _driver
    if _driver is None:
        with _init_lock:
            if _driver is None:
                try:
                    from cuda.bindings import driver as drv
                except ImportError as e:  # pragma: no cover - depends on the install
                    raise RuntimeError(
                        "gpupoor's launcher needs the cuda-bindings package "
                        "(pip install cuda-bindings)") from e
                _check(drv, drv.cuInit(0), "cuInit")
                _bind_launch()
                _driver = drv
    return _driver


def _check(drv, result, what: str):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != drv.CUresult.CUDA_SUCCESS:
        _, msg = drv.cuGetErrorString(err)
        text = msg.decode() if isinstance(msg, bytes) else str(msg)
        raise RuntimeError(f"{what} failed: {err.name} ({text})")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


class LoadedKernel:
    """A kernel of a cubin, launchable on any device of its architecture."""

    def __init__(self, cubin: Path, name: str, param_types: list[str], shared_bytes: int,
                 block: int, dependent: bool = False):
        drv = driver()
        self._drv = drv
        self.name = name
        # Launched with programmatic stream serialization (the kernel waits
        # for the previous one of the stream itself), where the driver can.
        self.dependent = dependent and _cu_launch_ex is not None
        self.shared_bytes = shared_bytes
        self.block = block
        # The driver copies the image: nothing here must outlive the call.
        # PTX (a library built with --ptx) is text the driver compiles for
        # the device when the kernel first loads there (its JIT, whose cache
        # keeps the result across processes); it must end in a NUL.
        image = Path(cubin).read_bytes()
        if Path(cubin).suffix == ".ptx":
            image += b"\0"
        self._library = _check(drv, drv.cuLibraryLoadData(image, None, None, 0, None, None, 0),
                               f"cuLibraryLoadData({cubin})")
        self._kernel = _check(drv, drv.cuLibraryGetKernel(self._library, name.encode()),
                              f"cuLibraryGetKernel({name})")
        self._functions: dict[int, object] = {}
        self._format, self._offsets, self._bytes = _param_layout(param_types)
        self._count = len(param_types)
        self._local = threading.local()
        self._lock = threading.Lock()

    def _function(self, device: int):
        fn = self._functions.get(device)
        if fn is None:
            with self._lock:
                fn = self._functions.get(device)
                if fn is None:
                    drv = self._drv
                    dev = _check(drv, drv.cuDeviceGet(device), "cuDeviceGet")
                    _check(drv, drv.cuKernelSetAttribute(
                        drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        self.shared_bytes, self._kernel, dev),
                        f"cuKernelSetAttribute({self.name}, {self.shared_bytes} bytes of shared memory)")
                    # The function in the device's primary context, the one
                    # PyTorch's runtime calls use.
                    with primary_context(device):
                        fn = _check(drv, drv.cuKernelGetFunction(self._kernel),
                                    "cuKernelGetFunction")
                    # The handle as an address, for _cu_launch.
                    fn = int(fn)
                    self._functions[device] = fn
        return fn

    def _params(self):
        """This thread's parameter buffer (64-byte aligned), the offset of
        its base in it, and the address of the `void **` array pointing at
        each parameter."""
        buf = getattr(self._local, "buf", None)
        if buf is None:
            slots = (ctypes.c_uint8 * (self._bytes + 64))()
            base = (ctypes.addressof(slots) + 63) // 64 * 64
            ptrs = (ctypes.c_void_p * self._count)(*[base + o for o in self._offsets])
            buf = self._local.buf = (slots, base - ctypes.addressof(slots), ptrs,
                                     ctypes.addressof(ptrs))
        return buf

    def _config(self, grid: tuple[int, int], stream: int):
        """This thread's cuLaunchKernelEx configuration for `grid` on
        `stream`, with programmatic stream serialization."""
        cfg = getattr(self._local, "config", None)
        if cfg is None:
            attr = LaunchAttribute(id=_PROGRAMMATIC_STREAM_SERIALIZATION)
            attr.value[0] = 1
            cfg = LaunchConfig(grid_z=1, block_x=self.block, block_y=1, block_z=1,
                               shared_bytes=self.shared_bytes, attrs=ctypes.pointer(attr),
                               num_attrs=1)
            self._local.config = cfg = (cfg, attr, ctypes.addressof(cfg))
        cfg[0].grid_x, cfg[0].grid_y, cfg[0].stream = grid[0], grid[1], stream
        return cfg[2]

    def _launch(self, fn: int, grid: tuple[int, int], stream: int, address: int) -> int:
        if self.dependent:
            return _cu_launch_ex(self._config(grid, stream), fn, address, None)
        return _cu_launch(fn, grid[0], grid[1], 1, self.block, 1, 1, self.shared_bytes, stream,
                          address, None)

    def launch(self, device: int, stream: int, grid: tuple[int, int], args: tuple) -> None:
        """Launches on `stream` (a CUstream handle) of `device` (whose
        primary context is current) with `args` in parameter order (a
        tensor map as its 128 bytes)."""
        fn = self._function(device)
        slots, offset, _, address = self._params()
        struct.pack_into(self._format, slots, offset, *args)
        err = self._launch(fn, grid, stream, address)
        if err == _CUDA_ERROR_INVALID_CONTEXT:
            # A thread that has not touched the device through the runtime
            # yet has no context current.
            with primary_context(device):
                err = self._launch(fn, grid, stream, address)
        if err:
            drv = self._drv
            what = "cuLaunchKernelEx" if self.dependent else "cuLaunchKernel"
            _check(drv, (drv.CUresult(err),), f"{what}({self.name}, grid {grid})")


class primary_context:
    """Makes `device`'s primary context current for a block."""

    def __init__(self, device: int):
        self.device = device

    def __enter__(self):
        drv = driver()
        dev = _check(drv, drv.cuDeviceGet(self.device), "cuDeviceGet")
        # Each retain is kept: the primary context lives as long as the
        # process, as PyTorch keeps it (this runs once per kernel and device).
        ctx = _check(drv, drv.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
        _check(drv, drv.cuCtxPushCurrent(ctx), "cuCtxPushCurrent")
        return self

    def __exit__(self, *exc):
        drv = driver()
        _check(drv, drv.cuCtxPopCurrent(), "cuCtxPopCurrent")
        return False


_loaded: dict[tuple[str, str], LoadedKernel] = {}
_loaded_lock = threading.Lock()


def load(cubin: Path, manifest: dict) -> LoadedKernel:
    """The process's LoadedKernel of `manifest`'s kernel in `cubin`."""
    key = (str(cubin), manifest["kernel"])
    kern = _loaded.get(key)
    if kern is None:
        with _loaded_lock:
            kern = _loaded.get(key)
            if kern is None:
                kern = LoadedKernel(cubin, manifest["kernel"], manifest["param_types"],
                                    manifest["dynamic_shared_memory"], manifest["block_size"],
                                    bool(manifest.get("dependent_launch"))
                                    and dependent_launches())
                _loaded[key] = kern
    return kern
