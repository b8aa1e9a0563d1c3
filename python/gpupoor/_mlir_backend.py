"""The `mlir` backend's resolver: which library chips a device runs, and
where a variant's kernels are (the package's library, GPUPOOR_KERNEL_DIR,
the compile cache, compiled on demand). The launcher (gpupoor._C,
csrc/launcher.cpp) asks it once per device and variant; choosing, checking
and launching are the launcher's."""

from __future__ import annotations

import functools
import os

from ._device import properties
from ._native import C as _C
from .library import KernelLibrary, default_library
from .variants import CHIPS, VariantKey


def chips_for(capability: tuple[int, int]) -> tuple[str, ...]:
    """The library chips whose cubins run on a device of this compute
    capability, best first: the arch-specific target of exactly this
    capability (sm_90a on 9.0: the wgmma kernels), then the chip of the same
    major with the highest minor not above the device's (cubins run on
    later minors of their major); empty when none does."""
    major, minor = capability
    best = None
    for chip in CHIPS:
        if chip.endswith("a"):
            continue
        cmaj, cmin = int(chip[3]), int(chip[4:])
        if cmaj == major and cmin <= minor:
            best = chip
    exact = f"sm_{major}{minor}a"
    return ((exact,) if exact in CHIPS else ()) + ((best,) if best else ())


def chip_for(capability: tuple[int, int]) -> str | None:
    """The best of chips_for, or None."""
    chips = chips_for(capability)
    return chips[0] if chips else None


CHIP_ENV = "GPUPOOR_CHIP"


def chip_override(capability: tuple[int, int], value: str | None = None) -> tuple[str, ...]:
    """The library chip $GPUPOOR_CHIP (or `value`) names for a device of this
    compute capability, as a one-chip chips_for; () when it is unset or
    empty. A chip's kernels run on its own devices and, where the library
    holds PTX (build_library --ptx), on every later one: GPUPOOR_CHIP=sm_80
    runs an A100's kernels on an H100. ValueError naming the variable for a
    chip the library does not know, one newer than the device, or an
    arch-specific target (sm_90a) on another capability."""
    if value is None:
        value = os.environ.get(CHIP_ENV, "")
    value = value.strip()
    if not value:
        return ()
    if value not in CHIPS:
        raise ValueError(f"{CHIP_ENV}={value!r} is not a chip of the kernel library "
                         f"(known: {', '.join(CHIPS)})")
    chip = (int(value[3]), int(value[4:].rstrip("a")))
    have = f"{capability[0]}.{capability[1]}"
    if chip > tuple(capability):
        raise ValueError(f"{CHIP_ENV}={value} is newer than the device (compute capability "
                         f"{have}): a chip's kernels run only on it and later chips")
    if value.endswith("a") and chip != tuple(capability):
        raise ValueError(f"{CHIP_ENV}={value} is an arch-specific target, which runs only on "
                         f"compute capability {chip[0]}.{chip[1]}, not {have}")
    return (value,)


@functools.lru_cache(maxsize=None)
def device_info(device: int) -> tuple[tuple[str, ...], int]:
    """(library chips, best first; SM count) of a CUDA device: chips_for its
    capability, or the chip $GPUPOOR_CHIP names (chip_override; read once
    per device)."""
    major, minor, sm_count = properties(device)
    return chip_override((major, minor)) or chips_for((major, minor)), sm_count


def find_variant(chip: str, b_layout: str, outer: str, epilogue: str, out: str, family: str,
                 max_splits: int, prebuilt: bool, a_layout: str = "mk",
                 batched: bool = False,
                 library: KernelLibrary | None = None) -> list[tuple[dict, str]] | None:
    """The kernels of a variant for `chip` in `library` (the default one), in
    the order they are tried, as (manifest, image path) pairs; None where
    the library lacks it (with `prebuilt`: where no library root holds it;
    else where it also cannot be compiled)."""
    key = VariantKey(b_layout, outer, epilogue, out, family, max_splits, a_layout, batched)
    lib = library or default_library()
    if prebuilt and not lib.has_prebuilt(key, chip):
        return None
    variant = lib.find(key, chip)
    if variant is None:
        return None
    return [(kern.manifest, str(kern.cubin)) for kern in variant.kernels]


def find_row_copy(chip: str, library: KernelLibrary | None = None) -> tuple[dict, str] | None:
    """The row-copy kernel for `chip` as (manifest, image path), or None
    where the library lacks it and cannot compile it."""
    kern = (library or default_library()).row_copy(chip)
    return None if kern is None else (kern.manifest, str(kern.cubin))


_C.set_resolver(device_info, find_variant, find_row_copy)
