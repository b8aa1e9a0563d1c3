"""The `mlir` backend: gpupoor-opt's kernels launched from PyTorch."""

from __future__ import annotations

import threading

import torch

from . import _driver
from .library import KernelLibrary, KernelRequirementError, Variant, default_library
from .variants import CHIPS, VariantKey, auto_slices, default_splits

_TORCH_TYPE = {torch.float16: "f16", torch.float32: "f32"}


def chip_for(capability: tuple[int, int]) -> str | None:
    """The library chip whose cubins run on a device of this compute
    capability: the same major, the highest minor not above the device's
    (cubins run on later minors of their major); None when none does."""
    major, minor = capability
    best = None
    for chip in CHIPS:
        cmaj, cmin = int(chip[3]), int(chip[4:])
        if cmaj == major and cmin <= minor:
            best = chip
    return best


_device_info: dict[int, tuple[str | None, int]] = {}


def device_info(device: int) -> tuple[str | None, int]:
    """(library chip, SM count) of a CUDA device."""
    info = _device_info.get(device)
    if info is None:
        props = torch.cuda.get_device_properties(device)
        info = _device_info[device] = (chip_for((props.major, props.minor)),
                                       props.multi_processor_count)
    return info


class _Workspace:
    """Slice sums and zeroed counters per (device, stream), grown as needed;
    each launch leaves the counters zero, so they are zeroed only when
    allocated. A buffer is reused only on its own stream: kernels on one
    stream never overlap."""

    def __init__(self):
        self._buffers: dict[tuple[int, int], tuple[torch.Tensor, torch.Tensor]] = {}
        self._lock = threading.Lock()

    def get(self, device: torch.device, stream: int, sum_bytes: int, tiles: int):
        key = (device.index, stream)
        with self._lock:
            ws, locks = self._buffers.get(key, (None, None))
            if ws is None or ws.numel() * 4 < sum_bytes:
                # PyTorch's allocations are aligned far beyond the 16 bytes
                # the kernel needs.
                ws = torch.empty(-(-sum_bytes // 4), dtype=torch.float32, device=device)
            if locks is None or locks.numel() < tiles:
                locks = torch.zeros(max(tiles, 1024), dtype=torch.int32, device=device)
            self._buffers[key] = (ws, locks)
        return ws, locks


_workspace = _Workspace()


def plan(variant: Variant, m: int, n: int, k: int, slices: int, sm_count: int) -> tuple[int, int]:
    """(S, P'): the split count the kernel derives from K, and the slices to
    launch: min(slices, S), or for slices = 0 the manifest's formula with
    this device's SM count (1 slice: sequential split-k)."""
    bm, bn, bk = variant.kernels[0].tile
    splits = default_splits(k, bk, variant.key.max_splits)
    if slices > 0:
        return splits, max(1, min(slices, splits, 65535))
    tiles = -(-m // bm) * -(-n // bn)
    return splits, auto_slices(tiles, splits, sm_count)


def launch(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None, c: torch.Tensor,
           key: VariantKey, slices: int = 0, library: KernelLibrary | None = None) -> None:
    """C = epilogue(A @ B [+ bias]) with `key`'s kernel. A is M x K and B
    K x N, f16 views with any strides; C an M x N view of key.out's type;
    bias (N) of C's type or None. M, N, K > 0. `slices` as plan() takes it."""
    device = a.device
    chip, sm_count = device_info(device.index)
    if chip is None:
        raise RuntimeError(f"gpupoor's kernels need compute capability 8.x or 9.0; "
                           f"{torch.cuda.get_device_name(device)} is not supported "
                           f"(use backend='triton')")
    lib = library or default_library()
    variant = lib.find(key, chip)
    if variant is None:
        raise RuntimeError(
            f"no kernel {key.name} for {chip}: the package's kernel library lacks it and "
            f"gpupoor-opt is not available to compile it (python -m gpupoor.build_library, "
            f"GPUPOOR_KERNEL_DIR, GPUPOOR_OPT), or use backend='triton'")
    m, k = a.shape
    n = b.shape[1]
    # The ABI's B strides are along K and along N whatever the layout
    # (b_layout says which of them the fast kernel needs to be 1).
    stride_bk, stride_bn = b.stride(0), b.stride(1)
    args = {"a_ptr": a.data_ptr(), "b_ptr": b.data_ptr(), "c_ptr": c.data_ptr(),
            "M": m, "N": n, "K": k, "stride_am": a.stride(0), "stride_ak": a.stride(1),
            "stride_bk": stride_bk, "stride_bn": stride_bn,
            "stride_cm": c.stride(0), "stride_cn": c.stride(1)}
    if bias is not None:
        args.update({"in0_ptr": bias.data_ptr(), "stride_in0m": 0, "stride_in0n": bias.stride(0)})
    splits, slices = plan(variant, m, n, k, slices, sm_count)
    kern = variant.select(args, slices)
    bm, bn, _ = kern.tile
    tiles = -(-m // bm) * -(-n // bn)
    if tiles >= 2**31:
        raise KernelRequirementError(f"{tiles} blocks exceed the grid (2^31 - 1)")
    stream = torch.cuda.current_stream(device).cuda_stream
    values = [args[p] for p in kern.manifest["params"] if p in args]
    if kern.parallel:
        if slices > 1:
            ws, locks = _workspace.get(device, stream,
                                       tiles * slices * kern.manifest["workspace_bytes_per_tile_slice"],
                                       tiles)
            values += [ws.data_ptr(), ws.numel() * 4, locks.data_ptr(), locks.numel()]
        else:
            values += [0, 0, 0, 0]
    if len(values) != len(kern.manifest["params"]):
        raise RuntimeError(f"kernel {kern.name} takes parameters {kern.manifest['params']}; "
                           f"the launcher has {sorted(args)}")
    _driver.load(kern.cubin, kern.manifest).launch(device.index, stream, (tiles, slices), values)
