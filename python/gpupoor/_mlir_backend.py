"""The `mlir` backend: gpupoor-opt's kernels launched from PyTorch."""

from __future__ import annotations

import dataclasses
import functools
import os
import threading

import torch

from . import _driver
from ._device import properties
from .library import KernelLibrary, KernelRequirementError, Variant, default_library
from ._native import C as _C
from .variants import CHIPS, SWAPPED_TILES, VariantKey

_TORCH_TYPE = {torch.float16: "f16", torch.float32: "f32"}


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


# The bias of a `bias_*` variant launched without one. The library has no
# activation-only variants (relu or gelu without a bias would be 48 more a
# chip, 88 on sm_90a): a call with an activation and no bias takes
# `bias_<act>`, whose kernel reads a bias vector (its in0_ptr), and the
# launcher hands it one of -0.0 of C's dtype. Adding -0.0 changes nothing:
# under round to nearest (the kernel's adds), x + (-0.0) == x exactly for
# every x: a finite nonzero x is exact, +0 + -0 = +0 and -0 + -0 = -0, +-inf
# stay, NaN stays NaN (its payload aside: the GPU's f32 adds give the
# canonical NaN). A +0.0 bias would not do: it turns a -0 pre-activation
# into +0, and GELU(-0) is -0. The f16 bias widens to the f32 -0.0 exactly,
# and the epilogue's pre-activation is never an f32 denormal (a sum of f16
# chunk sums: 0 or at least 2^-24 in magnitude), so a kernel flushing
# denormals could not tell the two apart either. The result is
# bit-identical to the activation without a bias add, for N elements read a
# launch.
#
# One tensor per (device, dtype, N), made by the first eager call that needs
# it and kept for the process (N elements each): the plans of the compiled
# launch path hold its address (teach), and graphs captured later reuse it.
# A launch captured into a CUDA graph before any eager call of its (device,
# dtype, N) gets a tensor of its own in the graph's private pool, filled by
# a kernel captured before the launch: each replay refills it, and nothing
# outside the graph points into that pool.
_implicit_bias: dict[tuple[str, int | None, torch.dtype, int], torch.Tensor] = {}
_implicit_lock = threading.Lock()


def implicit_bias(c: torch.Tensor, n: int) -> torch.Tensor:
    """-0.0 of C's dtype, N long, on C's device: the bias of a `bias_*`
    variant launched for a call without one (see above)."""
    key = (c.device.type, c.device.index, c.dtype, n)
    t = _implicit_bias.get(key)
    if t is not None:
        return t
    if c.is_cuda and torch.cuda.is_current_stream_capturing():
        # Graph-local, refilled by each replay; not cached.
        return torch.full((n,), -0.0, dtype=c.dtype, device=c.device)
    with _implicit_lock:
        t = _implicit_bias.get(key)
        if t is None:
            t = torch.full((n,), -0.0, dtype=c.dtype, device=c.device)
            if t.is_cuda:
                # Filled on this stream; later launches on other streams
                # read it with no ordering against the fill: wait for it
                # (once per device, dtype and N).
                torch.cuda.current_stream(t.device).synchronize()
            _implicit_bias[key] = t
    return t


def cached_implicit_bias(index: int, dtype: torch.dtype, n: int) -> torch.Tensor | None:
    """implicit_bias's process-lifetime tensor for CUDA device `index`, or
    None when none was made (a launch captured before any eager one)."""
    return _implicit_bias.get(("cuda", index, dtype, n))


def launch_bias(key: VariantKey, bias: torch.Tensor | None, c: torch.Tensor,
                n: int) -> torch.Tensor | None:
    """The bias `key`'s kernel takes: the call's, or implicit_bias where the
    variant has a bias parameter and the call has none."""
    if bias is None and key.epilogue != "none":
        return implicit_bias(c, n)
    return bias


def _tiles(m: int, n: int, bm: int, bn: int) -> int:
    """ceil(M/BM) ceil(N/BN): the C tiles of a launch."""
    return -(-m // bm) * -(-n // bn)


def plan(variant: Variant, m: int, n: int, k: int, slices: int, sm_count: int) -> tuple[int, int]:
    """(S, P'): the split count the kernel derives from K, and the slices to
    launch, as the policy gives them for the variant's kernel (its chip and
    tile, from the manifest) on a device of `sm_count` SMs: min(slices, S),
    or for slices = 0 the automatic count (1 slice: sequential split-k); one
    for a persistent kernel."""
    manifest = variant.kernels[0].manifest
    splits = _C.default_splits(k, variant.key.max_splits)
    if manifest.get("persistent"):
        return splits, 1
    swapped = variant.key.tile in SWAPPED_TILES
    if swapped:
        m, n = n, m
    bm, bn, _ = variant.kernels[0].tile
    return splits, _C.launch_slices(slices, manifest["chip"], list(variant.kernels[0].tile),
                                    swapped, k, _tiles(m, n, bm, bn), splits, sm_count)


class _Plan:
    """What one (variant, device, sizes, strides, alignment, slices) launch
    needs, worked out once: the kernel, its grid, the parameter values with
    the pointer slots to fill per call, and the workspace it takes."""

    __slots__ = ("loaded", "grid", "values", "a_slot", "b_slot", "c_slot", "bias_slot",
                 "ws_slot", "sum_bytes", "tiles", "tensor_maps", "_encoded")

    def __init__(self, kern, grid, values, slots, sum_bytes, tiles, tensor_maps=()):
        self.loaded = _driver.load(kern.cubin, kern.manifest)
        self.grid = grid
        self.values = values
        self.a_slot, self.b_slot, self.c_slot, self.bias_slot, self.ws_slot = slots
        self.sum_bytes = sum_bytes
        self.tiles = tiles
        # The TMA kernel's maps: (slot, operand 0 = A / 1 = B / 2 = C,
        # _driver.tensor_map_fields); all but the pointer are the plan's.
        self.tensor_maps = tensor_maps
        # One cache a map: C's address changes every call, A's and B's
        # (weights above all) far less often.
        self._encoded: list[dict[int, bytes]] = [{} for _ in tensor_maps]

    def tensor_map(self, index: int, ptr: int) -> bytes:
        """Map `index` of tensor_maps for an operand at `ptr`: encoded once
        per operand address (a map holds only the address, sizes and
        strides, all else fixed by the plan), kept for the 256 addresses
        most recently new."""
        cache = self._encoded[index]
        raw = cache.get(ptr)
        if raw is None:
            raw = _driver.tensor_map(self.tensor_maps[index][2], ptr)
            if len(cache) >= 256:
                # Threads may evict at once: whichever pops a key first.
                try:
                    cache.pop(next(iter(cache)), None)
                except (StopIteration, RuntimeError):
                    pass
            cache[ptr] = raw
        return raw


def choose_variant(lib: KernelLibrary, key: VariantKey, chips: tuple[str, ...], m: int, n: int,
                   k: int, slices: int, sm_count: int) -> Variant | None:
    """The variant of `key` (its tile aside) to launch for an M x K by K x N
    product: the kernel family the policy chooses for each chip
    (gpupoor._C.choose_launch: the tile gpupoor-split-k gives the same
    static shape, or the nearest family the library holds), for the best
    chip that has it prebuilt; else the best chip's, compiled on demand when
    the library may."""
    keys = []
    for chip in chips:
        launch = _C.choose_launch(chip, m, n, k, key.b_layout, slices, key.max_splits, sm_count)
        keys.append(dataclasses.replace(key, tile=launch["family"]))
        if lib.has_prebuilt(keys[-1], chip):
            return lib.find(keys[-1], chip)
    return lib.find(keys[0], chips[0])


_plans: dict[tuple, _Plan] = {}
_WORKSPACE_PARAMS = {"ws_ptr", "ws_bytes", "locks_ptr", "locks_count"}
# The TMA kernel's tensor maps of A and B, encoded per call's pointers, and
# the persistent kernel's of C (encoded where it describes C, else zeros).
_TENSOR_MAP_PARAMS = {"a_desc", "b_desc", "c_desc"}


def _c_map_describes(c: torch.Tensor, m: int) -> bool:
    """The manifest's encode_if of c_desc: unit column stride, a row stride
    that is a multiple of 8 elements (positive unless C has one row), the
    pointer 16-byte aligned."""
    return (c.stride(1) == 1 and c.data_ptr() % 16 == 0 and c.stride(0) % 8 == 0
            and (c.stride(0) > 0 or m <= 1))


def kernel_args(a, b, c, bias, swapped: bool) -> dict[str, int]:
    """The parameter values the launcher has for a kernel, by ABI name (all
    but the workspace's and the tensor maps, which it fills per call): A, B
    and C (M x K, K x N, M x N, as the kernel sees them: already exchanged
    and transposed for a swapped family) and the bias (of the call's N: along
    the kernel's rows when swapped), or None for a kernel without one."""
    m, k = a.shape
    n = b.shape[1]
    # The ABI's B strides are along K and along N whatever the layout
    # (b_layout says which of them the fast kernel needs to be 1).
    args = {"a_ptr": a.data_ptr(), "b_ptr": b.data_ptr(), "c_ptr": c.data_ptr(),
            "M": m, "N": n, "K": k, "stride_am": a.stride(0), "stride_ak": a.stride(1),
            "stride_bk": b.stride(0), "stride_bn": b.stride(1),
            "stride_cm": c.stride(0), "stride_cn": c.stride(1)}
    if bias is not None:
        args.update({"in0_ptr": bias.data_ptr(), "stride_in0m": bias.stride(0) if swapped else 0,
                     "stride_in0n": 0 if swapped else bias.stride(0)})
    return args


def _make_plan(a, b, bias, c, key: VariantKey, slices: int, library, device) -> _Plan:
    chips, sm_count = device_info(device.index)
    if not chips:
        raise RuntimeError(f"gpupoor's kernels need compute capability 8.x or 9.0; "
                           f"{torch.cuda.get_device_name(device)} is not supported "
                           f"(use backend='triton')")
    lib = library or default_library()
    m, k = a.shape
    n = b.shape[1]
    variant = choose_variant(lib, key, chips, m, n, k, slices, sm_count)
    if variant is None:
        raise RuntimeError(
            f"no kernel {key.name} for {' or '.join(chips)}: the package's kernel library "
            f"lacks it and gpupoor-opt is not available to compile it (python -m "
            f"gpupoor.build_library, GPUPOOR_KERNEL_DIR, GPUPOOR_OPT), or use backend='triton'")
    # A swapped family's kernel computes C^T = B^T A^T: its A is B^T (N x
    # K), its B A^T (K x M), its C C^T, a bias runs along its rows, and the
    # call's A and B pointers go to its b_ptr and a_ptr.
    swapped = variant.key.tile in SWAPPED_TILES
    _, slices = plan(variant, m, n, k, slices, sm_count)
    if swapped:
        a, b, c, m, n = b.t(), a.t(), c.t(), n, m
    args = kernel_args(a, b, c, bias, swapped)
    kern = variant.select(args, slices)
    bm, bn, _ = kern.tile
    tiles = _tiles(m, n, bm, bn)
    if tiles >= 2**31:
        raise KernelRequirementError(f"{tiles} blocks exceed the grid (2^31 - 1)")
    params = kern.manifest["params"]
    # The launcher fills the workspace's four and the tensor maps itself,
    # per call.
    if set(params) - _WORKSPACE_PARAMS - _TENSOR_MAP_PARAMS != set(args):
        raise RuntimeError(f"kernel {kern.name} takes parameters {params}; the launcher has "
                           f"{sorted(args)}")
    values = [args.get(p, 0) for p in params]
    slot = params.index
    # Slots of the call's A and B pointers (exchanged when swapped).
    a_slot, b_slot = slot("a_ptr"), slot("b_ptr")
    slots = (b_slot if swapped else a_slot, a_slot if swapped else b_slot, slot("c_ptr"),
             slot("in0_ptr") if bias is not None else None,
             slot("ws_ptr") if kern.parallel else None)
    sum_bytes = tiles * slices * kern.manifest.get("workspace_bytes_per_tile_slice", 0)
    # The kernel's A as M rows of K, its B (N x K, the only layout the TMA
    # kernel takes) as N rows: the manifest's global_dim and
    # global_strides_bytes; operand: the call's A (0), B (1) or C (2) it
    # reads or writes.
    # C's map (operand 2), dims [N, M], where it describes C; else the
    # kernel takes 128 zero bytes and stores from its lanes.
    operands = [("a_desc", 0, k, m, a.stride(0)), ("b_desc", 1, k, n, b.stride(1))]
    if "c_desc" in params:
        if _c_map_describes(c, m):
            operands.append(("c_desc", 2, n, m, c.stride(0)))
        else:
            values[slot("c_desc")] = bytes(128)
    if any(name in params for name, *_ in operands) and "tensor_maps" not in kern.manifest:
        raise RuntimeError(f"kernel {kern.name} lacks its tensor_maps")
    maps = tuple((slot(name), operand if operand == 2 else operand ^ swapped,
                  _driver.tensor_map_fields(kern.manifest["tensor_maps"][name], inner, rows,
                                            stride))
                 for name, operand, inner, rows, stride in operands if name in params)
    grid = _C.launch_grid(tiles, slices, bool(kern.manifest.get("persistent")), sm_count)
    return _Plan(kern, grid, values, slots, sum_bytes if slices > 1 else 0, tiles, maps)


def launch(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None, c: torch.Tensor,
           key: VariantKey, slices: int = 0, library: KernelLibrary | None = None, *,
           index: int | None = None) -> _Plan:
    """C = epilogue(A @ B [+ bias]) with `key`'s kernel. A is M x K and B
    K x N, f16 views with any strides; C an M x N view of key.out's type;
    bias (N) of C's type or None (where `key` has a bias_* epilogue: a bias
    of -0.0, implicit_bias). M, N, K > 0. `slices` as plan() takes it.

    Everything but the pointers is worked out once per (variant, device,
    sizes, strides, pointer alignment, slices) and cached: a call fills the
    pointers and launches. `index`: the operands' device index, when the
    caller has it. Returns the plan it launched."""
    if index is None:
        index = a.get_device()
    # An activation without a bias runs on its bias_* variant with -0.0.
    bias = launch_bias(key, bias, c, b.shape[1])
    a_ptr, b_ptr, c_ptr = a.data_ptr(), b.data_ptr(), c.data_ptr()
    sa, sb, sc = a.stride(), b.stride(), c.stride()
    bias_ptr = bias.data_ptr() if bias is not None else 0
    pkey = (key.name, index, a.shape, b.shape[1], sa, sb, sc,
            bias.stride(0) if bias is not None else None, a_ptr & 15, b_ptr & 15, c_ptr & 15,
            slices, id(library))
    p = _plans.get(pkey)
    if p is None:
        p = _make_plan(a, b, bias, c, key, slices, library, a.device)
        if len(_plans) >= 4096:
            _plans.clear()
        _plans[pkey] = p
    values = p.values.copy()
    values[p.a_slot], values[p.b_slot], values[p.c_slot] = a_ptr, b_ptr, c_ptr
    if p.bias_slot is not None:
        values[p.bias_slot] = bias_ptr
    for i, (slot, operand, *_) in enumerate(p.tensor_maps):
        values[slot] = p.tensor_map(i, (a_ptr, b_ptr, c_ptr)[operand])
    stream = torch._C._cuda_getCurrentRawStream(index)
    if p.sum_bytes:
        if torch.cuda.is_current_stream_capturing():
            # A graph's own workspace, in its private pool: a replay (on any
            # stream) must not share the cached one with eager launches.
            ws = torch.empty(-(-p.sum_bytes // 4), dtype=torch.float32, device=a.device)
            locks = torch.zeros(max(p.tiles, 1024), dtype=torch.int32, device=a.device)
        else:
            ws, locks = _workspace.get(a.device, stream, p.sum_bytes, p.tiles)
        w = p.ws_slot
        values[w:w + 4] = [ws.data_ptr(), ws.numel() * 4, locks.data_ptr(), locks.numel()]
    p.loaded.launch(index, stream, p.grid, values)
    return p


def teach(fast, index: int, p: _Plan, call: tuple) -> None:
    """Hands `p`, launched for split_k_sequential's arguments `call`, to the
    compiled launch path `fast` (gpupoor._fastpath), which launches later
    calls like it itself (encoding a TMA kernel's tensor maps as _Plan
    does). A plan whose C map is zeros (C not describable, which the
    compiled path's fresh C always is) stays with the Python launcher.

    A call without a bias whose plan has a bias slot (an activation on its
    bias_* variant) is taught with implicit_bias's tensor in that slot as a
    constant (the compiled path fills no bias for such a call): that tensor
    lives as long as the process. Where there is none (the plan was made
    while a CUDA graph was captured), the call stays with the Python
    launcher."""
    if any(isinstance(v, bytes) for v in p.values):
        return
    values, bias_slot = p.values, p.bias_slot
    if bias_slot is not None and call[2] is None:
        t = cached_implicit_bias(index, call[0].dtype, call[1].shape[1])
        if t is None:
            return
        values = values.copy()
        values[bias_slot], bias_slot = t.data_ptr(), None
    fast.remember(*call, p.loaded._function(index), p.grid[0], p.grid[1], p.loaded.block,
                  p.loaded.shared_bytes, values,
                  (p.a_slot, p.b_slot, p.c_slot,
                   -1 if bias_slot is None else bias_slot,
                   -1 if p.ws_slot is None else p.ws_slot),
                  p.sum_bytes, p.tiles,
                  tuple((slot, operand, *fields) for slot, operand, fields in p.tensor_maps),
                  p.loaded.dependent)
