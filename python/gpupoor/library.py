"""The kernel library: manifests, their requirements, and variant lookup.

A library root holds `<chip>/index.json` and one directory per variant
(gpupoor/build_library.py writes them). Each kernel's manifest (written by
gpupoor-opt) names its parameters and their types, grid, block, shared
memory, split geometry and `checks`: what the kernel needs of its operands
and does not check itself. A variant's kernels are tried in the order the
compiler's own host code tries them (the manifests' `order`, in which
variant.json lists them: the configured kernel, a batched TMA kernel's
cp.async twin, then element copies, then 64-bit indices); the first whose
checks hold runs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
import warnings
from pathlib import Path

from ._native import C as _C
from .compile import (ROW_COPY_DIR, ROW_COPY_KERNEL, ROW_COPY_SOURCE, cache_key, compile_row_copy,
                      compile_variant, compiler_version, default_cache_dir, find_gpupoor_opt)
from .variants import VariantKey

PACKAGE_LIBRARY = Path(__file__).resolve().parent / "_kernels"
INDEX_FILE = "index.json"


class KernelRequirementError(ValueError):
    """No kernel of a variant accepts these operands."""


@dataclasses.dataclass
class Kernel:
    """One compiled kernel: its manifest and its image, a cubin or (from a
    library built with --ptx: the manifest's `ptx`) PTX, which the driver
    compiles for the device."""

    manifest: dict
    cubin: Path

    @property
    def name(self) -> str:
        return self.manifest["kernel"]

    @property
    def tile(self) -> tuple[int, int, int]:
        return tuple(self.manifest["tile"])

    @property
    def parallel(self) -> bool:
        return "ws_ptr" in self.manifest["params"]

    def violation(self, args: dict[str, int], slices: int = 1) -> str | None:
        """Why the kernel cannot take these parameter values (a dict by ABI
        name; pointers as addresses), or None when every check of its
        manifest holds, as the launcher reads them (gpupoor._C). M, N and K
        are nonzero here (empty products launch nothing)."""
        return _C.kernel_violation(self.manifest, args, slices)


@dataclasses.dataclass
class Variant:
    """A variant's kernels, in the order they are tried."""

    key: VariantKey
    chip: str
    kernels: list[Kernel]
    where: Path

    def select(self, args: dict[str, int], slices: int = 1) -> Kernel:
        """The first kernel whose checks hold, as the launcher chooses it
        (gpupoor._C.select_kernel); KernelRequirementError naming every
        kernel's reason otherwise."""
        try:
            return self.kernels[_C.select_kernel([k.manifest for k in self.kernels], args,
                                                 slices, f"{self.key.name} ({self.chip})")]
        except ValueError as e:
            raise KernelRequirementError(str(e)) from None


def load_variant(key: VariantKey, chip: str, directory: Path) -> Variant:
    """Reads a variant directory written by compile_variant."""
    info = json.loads((directory / "variant.json").read_text())
    kernels = []
    for name in info["kernels"]:
        manifest = json.loads((directory / name).read_text())
        image = manifest["cubin"] if "cubin" in manifest else manifest["ptx"]
        kernels.append(Kernel(manifest, directory / image))
    return Variant(key, chip, kernels, directory)


def _row_copy_kernel(directory: Path) -> Kernel:
    manifest = json.loads((directory / f"{ROW_COPY_KERNEL}.json").read_text())
    image = manifest["cubin"] if "cubin" in manifest else manifest["ptx"]
    return Kernel(manifest, directory / image)


class KernelLibrary:
    """Variants from library roots (GPUPOOR_KERNEL_DIR, then the package's
    own), else compiled on demand into the cache when gpupoor-opt is
    present."""

    def __init__(self, roots: list[Path] | None = None, cache_dir: Path | None = None,
                 allow_compile: bool | None = None):
        if roots is None:
            roots = [Path(p) for p in os.environ.get("GPUPOOR_KERNEL_DIR", "").split(os.pathsep) if p]
            roots.append(PACKAGE_LIBRARY)
        self.roots = roots
        self.cache_dir = cache_dir or default_cache_dir()
        if allow_compile is None:
            allow_compile = os.environ.get("GPUPOOR_COMPILE", "1") != "0"
        self.allow_compile = allow_compile
        self._variants: dict[tuple[str, VariantKey], Variant] = {}
        self._row_copies: dict[str, Kernel | None] = {}
        self._lock = threading.Lock()

    def prebuilt(self, chip: str) -> list[str]:
        """Names of the variants the roots hold for `chip`."""
        names = []
        for root in self.roots:
            index = root / chip / INDEX_FILE
            if index.is_file():
                names += list(json.loads(index.read_text())["variants"])
        return names

    def has_prebuilt(self, key: VariantKey, chip: str) -> bool:
        """Whether a root holds the variant for `chip`."""
        return any((root / chip / INDEX_FILE).is_file()
                   and (root / chip / key.name / "variant.json").is_file()
                   for root in self.roots)

    def find(self, key: VariantKey, chip: str) -> Variant | None:
        """The variant, from a root or the cache, compiling it into the cache
        if it is in neither and compiling is allowed; None when unavailable."""
        cached = self._variants.get((chip, key))
        if cached is not None:
            return cached
        with self._lock:
            if (chip, key) in self._variants:
                return self._variants[(chip, key)]
            variant = self._locate(key, chip)
            if variant is not None:
                self._variants[(chip, key)] = variant
            return variant

    def row_copy(self, chip: str) -> Kernel | None:
        """The row-copy kernel for `chip` (the package's copies into padded
        rows), from a root or the cache, compiled into the cache if it is in
        neither and compiling is allowed; None when unavailable (a warning
        where the compile failed; asked once per chip)."""
        with self._lock:
            if chip not in self._row_copies:
                self._row_copies[chip] = self._locate_row_copy(chip)
            return self._row_copies[chip]

    def _locate_row_copy(self, chip: str) -> Kernel | None:
        for root in self.roots:
            d = root / chip / ROW_COPY_DIR
            if (root / chip / INDEX_FILE).is_file() and (d / f"{ROW_COPY_KERNEL}.json").is_file():
                return _row_copy_kernel(d)
        gpupoor_opt = find_gpupoor_opt() if self.allow_compile else None
        if gpupoor_opt is None:
            return None
        version = compiler_version(gpupoor_opt)
        key = hashlib.sha256(json.dumps([chip, ROW_COPY_SOURCE, version]).encode()).hexdigest()
        d = self.cache_dir / chip / f"{ROW_COPY_DIR}-{key[:24]}"
        try:
            if not (d / f"{ROW_COPY_KERNEL}.json").is_file():
                compile_row_copy(chip, d, gpupoor_opt)
        except (RuntimeError, OSError, ValueError) as e:
            warnings.warn(f"gpupoor: no row-copy kernel for {chip} (padded copies by torch): {e}")
            return None
        return _row_copy_kernel(d)

    def _locate(self, key: VariantKey, chip: str) -> Variant | None:
        for root in self.roots:
            d = root / chip / key.name
            if (root / chip / INDEX_FILE).is_file() and (d / "variant.json").is_file():
                return load_variant(key, chip, d)
        gpupoor_opt = find_gpupoor_opt() if self.allow_compile else None
        if gpupoor_opt is None:
            return None
        version = compiler_version(gpupoor_opt)
        d = self.cache_dir / chip / cache_key(chip, key, version)
        if not (d / "variant.json").is_file():
            compile_variant(key, chip, d, gpupoor_opt, version)
        return load_variant(key, chip, d)


_default_library: KernelLibrary | None = None


def default_library() -> KernelLibrary:
    """The process's library (roots and cache from the environment)."""
    global _default_library
    if _default_library is None:
        _default_library = KernelLibrary()
    return _default_library
