"""The compiled launch path: csrc/fastpath.cpp, built with the package
(setup.py: gpupoor._gpupoor_fastpath, against the installed PyTorch and the
CUDA runtime's headers).

split_k_sequential hands each eager call to it first; it launches calls whose
plan the Python launcher worked out before (same shape, strides, alignment
and options) in one C++ call, and returns None for everything else, which the
Python path then takes and teaches it (`remember`). Why: the Python path
costs 30-40 us of host time a call, the kernel of a decode shape less.

GPUPOOR_FASTPATH=0 turns it off. A package built without the CUDA runtime's
headers has no compiled launch path: one RuntimeWarning says so and every
call takes the Python path.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import threading
import warnings
from pathlib import Path

MODULE = "gpupoor._gpupoor_fastpath"

_module = None
_state = "unknown"  # unknown, ready, failed, off
_why = ""
_lock = threading.Lock()


def get():
    """The loaded module, or None where it is off or not built. Cheap once
    the module is loaded: this is on every call's path."""
    if _module is not None or _state != "unknown":
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
    """'ready', 'off', 'failed: <why>' or 'unknown' (not asked for yet)."""
    return f"failed: {_why}" if _state == "failed" else _state


def _start():
    global _state
    with _lock:
        if _state != "unknown":
            return _module
        if os.environ.get("GPUPOOR_FASTPATH", "1") == "0":
            _state = "off"
            return None
        _load_or_fail()
    return _module


def load():
    """Loads the module; returns it, or None with status() saying why."""
    return get()


def path() -> Path:
    """The built module's file. RuntimeError where the package was built
    without it."""
    spec = importlib.util.find_spec(MODULE)
    if spec is None or spec.origin is None:
        raise RuntimeError(
            f"{MODULE} is not built: the package was built without the CUDA runtime's "
            "headers (set CUDA_HOME and reinstall with pip install --no-build-isolation "
            "./python, or rebuild the CMake target gpupoor-python-ext)")
    return Path(spec.origin)


def _load_or_fail() -> None:
    """Loads the module (under _lock) and connects it to the driver."""
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
        _state, _why = "failed", str(e)
        warnings.warn(f"gpupoor: the compiled launch path did not load ({_why}); calls take "
                      "the Python launcher (more host time a call)", RuntimeWarning,
                      stacklevel=3)
        return
    _module, _state = mod, "ready"


def import_built(at: Path | None = None):
    """The built module (or a copy of it at `at`), imported but not
    connected to the driver: run() declines every call until set_launch.
    A copy loads as a library of its own, with its own plans and launch
    entry (tests use one, leaving the process's module alone)."""
    spec = importlib.util.spec_from_file_location("_gpupoor_fastpath", at or path())
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
