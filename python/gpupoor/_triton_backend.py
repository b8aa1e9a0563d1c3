"""The `triton` backend: gpupoor's split-k algorithm as a Triton kernel.

The chunk geometry is gpu_poor's: S = gpupoor._C.default_splits(K, max_k_splits)
chunks of ceil(ceil(K/32)/S)*32 elements, the last ones shorter (the
compiler's balanced chunks for a K step of 32 where S divides ceil(K/32),
and at K = 2048's 12 chunks 10 of 192 and one of 128 instead of the
compiler's 8 of 192 and 4 of 128: docs/design/Numerics.md); each chunk is summed in f16 by tl.dot (f16 accumulators), added
to the outer sum (f32 or f16), then bias and activation in f32 and one
rounding to C's type. Loads are masked at the chunk's end, so K tails are
exact. Sequential split-k only (a block's loop walks its tile's chunks).

Products of more than 128 rows whose operands TMA can read (unit inner
strides, 16-byte aligned rows and pointers) take a persistent kernel that
loads tiles through TMA descriptors built on the host. On Hopper that is the
Gluon kernel of _triton_hopper.py (wgmma, the chunk handover deferred behind
the next chunk's first wgmma; measured on an H100, 2026-11-23: 0.73-0.89x
cuBLAS on the large products of docs/guide/Python.md at the default split
count); on later chips, or a Triton without Gluon, the tl kernel below, which
hands each chunk's f16 sum to the outer sum at the chunk's last step
(0.52-0.59x on the H100). TMA fills out-of-bounds elements with zeros, so K
tails stay exact.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from ._device import properties
from ._native import C as _C

_SPLIT_BK = 32
_ACTIVATIONS = {"none": 0, "relu": 1, "gelu": 2}


def _configs():
    out = []
    for bm, bn, bk, stages, warps in ((128, 128, 32, 4, 4), (128, 128, 64, 3, 4),
                                      (128, 256, 32, 3, 8), (64, 128, 32, 4, 4),
                                      (16, 128, 64, 4, 4), (32, 64, 64, 4, 4)):
        out.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                                 num_stages=stages, num_warps=warps))
    return out


def _prune(configs, named_args, **kwargs):
    # A chunk is a multiple of 32: a BLOCK_K of 64 would straddle chunks
    # whose length is an odd multiple of 32 (masking keeps it exact, but
    # wastes half a step), so keep it only where chunks are multiples of 64.
    chunk = named_args["CHUNK"]
    m = named_args["M"]
    keep = [c for c in configs if chunk % c.kwargs["BLOCK_K"] == 0
            and (c.kwargs["BLOCK_M"] <= 32) == (m <= 32)]
    return keep or configs[:1]


@triton.autotune(configs=_configs(), key=["M", "N", "K", "CHUNK", "OUTER_F16", "ACT", "HAS_BIAS"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.jit
def _split_k_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K,
                    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                    stride_bias, CHUNK, SPLITS,
                    HAS_BIAS: tl.constexpr, ACT: tl.constexpr, OUTER_F16: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * tiles_n
    first_m = (pid // group) * GROUP_M
    rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % rows
    pid_n = (pid % group) // rows
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    if OUTER_F16:
        outer = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
    else:
        outer = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for s in range(0, SPLITS):
        lo = s * CHUNK
        hi = tl.minimum(lo + CHUNK, K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
        for k0 in range(lo, hi, BLOCK_K):
            ks = (k0 + offs_k).to(tl.int64)
            mask_k = ks < hi
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=mask_m[:, None] & mask_k[None, :], other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                        mask=mask_k[:, None] & mask_n[None, :], other=0.0)
            acc = tl.dot(a, b, acc, out_dtype=tl.float16)
        outer += acc.to(outer.dtype)
    val = outer.to(tl.float32)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + offs_n * stride_bias, mask=mask_n, other=0.0)
        val += bias.to(tl.float32)[None, :]
    if ACT == 1:
        val = tl.maximum(val, 0.0)
    elif ACT == 2:
        val = 0.5 * val * (1.0 + tl.erf(val * 0.7071067811865476))
    c = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c, val.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def _tma_configs():
    out = []
    for bm, bn, bk, stages, warps in ((128, 256, 64, 3, 8), (128, 128, 64, 4, 8),
                                      (256, 128, 64, 3, 8), (128, 256, 32, 4, 8)):
        out.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                                 num_stages=stages, num_warps=warps, pre_hook=_set_blocks))
    return out


def _set_blocks(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bn, bk] if nargs["B_NK"] else [bk, bn]
    nargs["c_desc"].block_shape = [bm, bn]


def _prune_tma(configs, named_args, **kwargs):
    chunk = named_args["STEPS_PER_CHUNK_K"]
    return [c for c in configs if chunk % c.kwargs["BLOCK_K"] == 0] or configs[-1:]


@triton.autotune(configs=_tma_configs(),
                 key=["M", "N", "K", "STEPS_PER_CHUNK_K", "OUTER_F16", "ACT", "HAS_BIAS", "B_NK"],
                 prune_configs_by={"early_config_prune": _prune_tma})
@triton.jit
def _split_k_tma_kernel(a_desc, b_desc, c_desc, bias_ptr, M, N, K, stride_bias,
                        STEPS_PER_CHUNK_K, NUM_SMS: tl.constexpr,
                        HAS_BIAS: tl.constexpr, ACT: tl.constexpr, OUTER_F16: tl.constexpr,
                        B_NK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    steps = tl.cdiv(K, BLOCK_K)
    # STEPS_PER_CHUNK_K is the chunk length in elements (a multiple of
    # BLOCK_K after pruning).
    per_chunk = STEPS_PER_CHUNK_K // BLOCK_K
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=False):
        group = GROUP_M * tiles_n
        first_m = (tile // group) * GROUP_M
        rows = tl.minimum(tiles_m - first_m, GROUP_M)
        pid_m = first_m + (tile % group) % rows
        pid_n = (tile % group) // rows
        if OUTER_F16:
            outer = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
        else:
            outer = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
        for kk in range(0, steps):
            a = a_desc.load([pid_m * BLOCK_M, kk * BLOCK_K])
            if B_NK:
                b = b_desc.load([pid_n * BLOCK_N, kk * BLOCK_K]).T
            else:
                b = b_desc.load([kk * BLOCK_K, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc, out_dtype=tl.float16)
            if (kk + 1) % per_chunk == 0:
                outer += acc.to(outer.dtype)
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
        if steps % per_chunk != 0:
            outer += acc.to(outer.dtype)
        val = outer.to(tl.float32)
        if HAS_BIAS:
            offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
            bias = tl.load(bias_ptr + offs_n * stride_bias, mask=offs_n < N, other=0.0)
            val += bias.to(tl.float32)[None, :]
        if ACT == 1:
            val = tl.maximum(val, 0.0)
        elif ACT == 2:
            val = 0.5 * val * (1.0 + tl.erf(val * 0.7071067811865476))
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], val.to(c_desc.dtype))


def _rows_ok(t: torch.Tensor) -> bool:
    """TMA can read t (2-D) row by row: unit inner stride, 16-byte aligned
    rows and base, and rows that step forward (a tensor map takes no zero
    stride: an expanded x, or the gradient of y.sum(0), takes the other
    kernel, as the mlir backend's checks send it to its own)."""
    return (t.stride(1) == 1 and (t.stride(0) * t.element_size()) % 16 == 0
            and (t.size(0) <= 1 or t.stride(0) > 0) and t.data_ptr() % 16 == 0)


def _tma_launch(a, b, bias, c, outer, activation, chunk, sms) -> None:
    from triton.tools.tensor_descriptor import TensorDescriptor
    m, k = a.shape
    n = b.shape[1]
    nk = b.stride(0) == 1
    bt = b.t() if nk else b
    dummy = [16, 16]
    a_desc = TensorDescriptor(a, list(a.shape), list(a.stride()), dummy)
    b_desc = TensorDescriptor(bt, list(bt.shape), list(bt.stride()), dummy)
    c_desc = TensorDescriptor(c, list(c.shape), list(c.stride()), dummy)

    def grid(meta):
        return (min(sms, triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)

    _split_k_tma_kernel[grid](
        a_desc, b_desc, c_desc, bias if bias is not None else c, m, n, k,
        bias.stride(0) if bias is not None else 0, chunk, NUM_SMS=sms,
        HAS_BIAS=bias is not None, ACT=_ACTIVATIONS[activation], OUTER_F16=outer == "f16",
        B_NK=nk)


_HOPPER = []


def _hopper():
    """The Gluon wgmma kernel's module (Hopper only: wgmma is sm_90's), or
    None where this Triton has no Gluon for Hopper."""
    if not _HOPPER:
        try:
            from . import _triton_hopper
        except ImportError:
            _triton_hopper = None
        _HOPPER.append(_triton_hopper)
    return _HOPPER[0]


def chunking(k: int, max_k_splits: int) -> tuple[int, int]:
    """(S, chunk length in elements) for K."""
    splits = _C.default_splits(k, max_k_splits)
    blocks = -(-k // _SPLIT_BK)
    return splits, -(-blocks // splits) * _SPLIT_BK


def launch(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None, c: torch.Tensor,
           outer: str, activation: str, max_k_splits: int, slices: int) -> None:
    """C = act(A @ B + bias); A (M, K) and B (K, N) f16 with any strides, C
    (M, N) f16 or f32, bias (N,) of C's type or None. `slices` other than 0
    or 1 is refused (this backend runs sequential split-k)."""
    if slices > 1:
        raise ValueError(f"slices={slices}: the triton backend runs sequential split-k only "
                         f"(slices 0 or 1); use backend='mlir' for parallel slices")
    m, k = a.shape
    n = b.shape[1]
    splits, chunk = chunking(k, max_k_splits)
    major, _, sms = properties(a.device.index)
    b_rows = b.t() if b.stride(0) == 1 else b
    tma_ok = m > 128 and _rows_ok(a) and _rows_ok(b_rows) and _rows_ok(c)
    if tma_ok and major == 9 and _hopper() is not None:
        _hopper().launch(a, b, bias, c, outer, activation, chunk, sms)
        return
    if tma_ok and major >= 9 and hasattr(tl, "make_tensor_descriptor"):
        _tma_launch(a, b, bias, c, outer, activation, chunk, sms)
        return

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    _split_k_kernel[grid](
        a, b, c, bias if bias is not None else c, m, n, k,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        bias.stride(0) if bias is not None else 0, chunk, splits,
        HAS_BIAS=bias is not None, ACT=_ACTIVATIONS[activation], OUTER_F16=outer == "f16")
