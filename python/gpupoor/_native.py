"""gpupoor._C, the package's native extension (csrc/, built with the
package by setup.py): the compiler's policy library (lib/Policy), which
decides what to launch. Imported here so that a missing build says how to
make it."""

from __future__ import annotations

try:
    from . import _C  # noqa: F401
except ImportError as e:  # pragma: no cover - a broken install
    raise ImportError(
        "gpupoor._C, gpupoor's native extension, is not built: install the package with "
        "`pip install --no-build-isolation ./python`, or build it in the source tree with "
        "`python setup.py build_ext --inplace` in python/ (the CMake build does: "
        "`cmake --build build --target gpupoor-python-ext`)") from e

C = _C
