"""Facts about CUDA devices that every call needs, read once per device."""

from __future__ import annotations

import functools

import torch


@functools.lru_cache(maxsize=None)
def properties(index: int) -> tuple[int, int, int]:
    """(compute capability major, minor, SM count) of CUDA device `index`."""
    props = torch.cuda.get_device_properties(index)
    return props.major, props.minor, props.multi_processor_count
