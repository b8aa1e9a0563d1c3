"""Loading and launching cubins through the CUDA driver API.

cuda-bindings (NVIDIA's cuda-python driver bindings, on PyPI, and a
dependency of PyTorch's CUDA 13 wheels) gives the driver calls; parameters
are packed with `struct` into one preallocated buffer per kernel and thread
and handed over as a `void **` to cuLaunchKernel, which alone is called
through ctypes (it runs on every call; see _bind_launch).
Cubins load once per process as context-independent libraries
(cuLibraryLoadData); each device gets its function handle and its
dynamic-shared-memory attribute the first time it launches the kernel.
Launches go to PyTorch's current stream of the operands' device.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from pathlib import Path

_SLOT = {"ptr": "Q", "i64": "q", "i32": "i4x"}
_CUDA_ERROR_INVALID_CONTEXT = 201
_cu_launch = None


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
                 block: int):
        drv = driver()
        self._drv = drv
        self.name = name
        self.shared_bytes = shared_bytes
        self.block = block
        # The driver copies the image: nothing here must outlive the call.
        image = Path(cubin).read_bytes()
        self._library = _check(drv, drv.cuLibraryLoadData(image, None, None, 0, None, None, 0),
                               f"cuLibraryLoadData({cubin})")
        self._kernel = _check(drv, drv.cuLibraryGetKernel(self._library, name.encode()),
                              f"cuLibraryGetKernel({name})")
        self._functions: dict[int, object] = {}
        self._format = "<" + "".join(_SLOT[t] for t in param_types)
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
        buf = getattr(self._local, "buf", None)
        if buf is None:
            slots = (ctypes.c_uint64 * self._count)()
            base = ctypes.addressof(slots)
            ptrs = (ctypes.c_void_p * self._count)(*[base + 8 * i for i in range(self._count)])
            buf = self._local.buf = (slots, ptrs, ctypes.addressof(ptrs))
        return buf

    def launch(self, device: int, stream: int, grid: tuple[int, int], args: tuple) -> None:
        """Launches on `stream` (a CUstream handle) of `device` (whose
        primary context is current) with `args` in parameter order."""
        fn = self._function(device)
        slots, _, address = self._params()
        struct.pack_into(self._format, slots, 0, *args)
        err = _cu_launch(fn, grid[0], grid[1], 1, self.block, 1, 1, self.shared_bytes, stream,
                         address, None)
        if err == _CUDA_ERROR_INVALID_CONTEXT:
            # A thread that has not touched the device through the runtime
            # yet has no context current.
            with primary_context(device):
                err = _cu_launch(fn, grid[0], grid[1], 1, self.block, 1, 1, self.shared_bytes,
                                 stream, address, None)
        if err:
            drv = self._drv
            _check(drv, (drv.CUresult(err),), f"cuLaunchKernel({self.name}, grid {grid})")


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
                                    manifest["dynamic_shared_memory"], manifest["block_size"])
                _loaded[key] = kern
    return kern
