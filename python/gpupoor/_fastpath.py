"""The compiled launch path: csrc/fastpath.cpp, built against the installed
PyTorch, once, into the cache.

split_k_sequential hands each eager call to it first; it launches calls whose
plan the Python launcher worked out before (same shape, strides, alignment
and options) in one C++ call, and returns None for everything else, which the
Python path then takes and teaches it (`remember`). Why: the Python path
costs 30-40 us of host time a call, the kernel of a decode shape less.

The extension needs a C++ compiler and the CUDA runtime headers (the CUDA
toolkit's, or the nvidia-* wheels PyTorch depends on). It is built on first
use in a background thread, so the first calls never wait for the compiler:
they take the Python path until the module is ready. GPUPOOR_FASTPATH=0
turns it off; GPUPOOR_FASTPATH=wait builds it in the first call instead
(benchmarks, tests). `python -m gpupoor.build_library --fastpath` builds it
ahead. When it cannot be built, one RuntimeWarning says why and every call
takes the Python path.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import warnings
from pathlib import Path

import torch

from .compile import default_cache_dir

SOURCE = Path(__file__).resolve().parent / "csrc" / "fastpath.cpp"
MODULE_NAME = "_gpupoor_fastpath"

_module = None
_state = "unknown"  # unknown, building, ready, failed, off
_why = ""
_lock = threading.Lock()


def get():
    """The loaded module, or None while it is not (yet) available. Cheap
    once the module is loaded: this is on every call's path."""
    if _module is not None or _state in ("building", "failed", "off"):
        return _module
    return _start()


class suspended:
    """Calls in this block take the Python path (benchmarks compare the two)."""

    def __enter__(self):
        global _module
        self._saved, _module = _module, None
        return self

    def __exit__(self, *exc):
        global _module
        _module = self._saved
        return False


def status() -> str:
    """'ready', 'building', 'off', 'failed: <why>' or 'unknown' (not asked for yet)."""
    return f"failed: {_why}" if _state == "failed" else _state


def _start():
    global _state
    mode = os.environ.get("GPUPOOR_FASTPATH", "1")
    with _lock:
        if _state != "unknown":
            return _module
        if mode == "0":
            _state = "off"
            return None
        if artifact().is_file():
            _load_or_fail()
            return _module
        _state = "building"
    if mode == "wait":
        _build_and_load()
    else:
        threading.Thread(target=_build_and_load, name="gpupoor-fastpath-build",
                         daemon=True).start()
    return _module


def load(wait: bool = True):
    """Builds the module if needed and loads it; returns it, or None with
    status() saying why. wait=False returns at once while a build runs."""
    get()
    if wait:
        while _state == "building":
            _done.wait(1.0)
    return _module


_done = threading.Event()


def _build_and_load() -> None:
    global _state, _why
    try:
        build()
    except Exception as e:  # noqa: BLE001 - reported, and the Python path goes on
        with _lock:
            _state, _why = "failed", str(e)
        warnings.warn(f"gpupoor: the compiled launch path could not be built ({e}); calls "
                      f"take the Python launcher (more host time a call)", RuntimeWarning,
                      stacklevel=2)
    else:
        with _lock:
            _load_or_fail()
    _done.set()


def _load_or_fail() -> None:
    """Loads the built module (under _lock)."""
    global _module, _state, _why
    try:
        from . import _driver
        _driver.driver()
        mod = import_built()
        libcuda = ctypes.CDLL("libcuda.so.1")
        mod.set_launch(ctypes.cast(_driver._cu_launch, ctypes.c_void_p).value,
                       ctypes.cast(libcuda.cuStreamIsCapturing, ctypes.c_void_p).value,
                       _driver.encoder_address(),
                       ctypes.cast(_driver._cu_launch_ex, ctypes.c_void_p).value
                       if _driver._cu_launch_ex is not None else 0)
    except Exception as e:  # noqa: BLE001 - reported below
        _state, _why = "failed", f"loading {artifact()}: {e}"
        warnings.warn(f"gpupoor: the compiled launch path did not load ({_why})",
                      RuntimeWarning, stacklevel=3)
        return
    _module, _state = mod, "ready"


def import_built(path: Path | None = None):
    """The built module (or a copy of it at `path`), imported but not
    connected to the driver: run() declines every call until set_launch.
    A copy loads as a library of its own, with its own plans and launch
    entry (tests use one, leaving the process's module alone)."""
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path or artifact())
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _torch_dir() -> Path:
    return Path(torch.__file__).resolve().parent


def cuda_include() -> Path | None:
    """A directory with cuda_runtime_api.h: the toolkit's, else the nvidia-*
    wheels' (PyTorch's CUDA wheels depend on them)."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(str(Path(nvcc).resolve().parent.parent))
    candidates = [Path(r) / "include" for r in roots if r]
    try:
        import nvidia
        for base in nvidia.__path__:
            candidates += sorted(Path(base).glob("*/include"))
    except ImportError:
        pass
    for d in candidates:
        if (d / "cuda_runtime_api.h").is_file():
            return d
    return None


def compile_command(out: Path) -> list[str]:
    """The compiler command that builds the module into `out`."""
    cxx = os.environ.get("CXX") or "c++"
    if shutil.which(cxx) is None:
        raise RuntimeError(f"no C++ compiler {cxx!r} (set CXX or install g++)")
    cuda = cuda_include()
    if cuda is None:
        raise RuntimeError("no CUDA runtime headers (cuda_runtime_api.h): install the CUDA "
                           "toolkit or set CUDA_HOME")
    tdir = _torch_dir()
    lib = tdir / "lib"
    abi = int(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True))
    return [cxx, "-O2", "-std=c++20", "-shared", "-fPIC", "-fvisibility=hidden",
            f"-D_GLIBCXX_USE_CXX11_ABI={abi}", f"-I{sysconfig.get_paths()['include']}",
            f"-I{tdir / 'include'}", f"-I{cuda}", str(SOURCE), "-o", str(out),
            f"-L{lib}", f"-Wl,-rpath,{lib}", "-lc10", "-lc10_cuda", "-ltorch_cpu",
            "-ltorch_cuda", "-ltorch_python"]


def artifact() -> Path:
    """Where the module for this PyTorch, Python and source lives."""
    text = "\n".join([SOURCE.read_text(), torch.__version__, str(torch.version.cuda),
                      sys.version, sysconfig.get_config_var("EXT_SUFFIX") or ""])
    key = hashlib.sha256(text.encode()).hexdigest()[:24]
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return default_cache_dir() / "fastpath" / key / f"{MODULE_NAME}{suffix}"


def build() -> Path:
    """Compiles the module unless it is built; returns its path. Raises
    RuntimeError with the compiler's output when that fails."""
    out = artifact()
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".build-") as tmp:
        part = Path(tmp) / out.name
        cmd = compile_command(part)
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            tail = (res.stderr or res.stdout).strip().splitlines()[-20:]
            raise RuntimeError(f"{cmd[0]} exited with {res.returncode}:\n" + "\n".join(tail))
        # Atomic: a concurrent build or load never sees half a file.
        os.replace(part, out)
    return out
