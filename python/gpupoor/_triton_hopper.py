"""The triton backend's Hopper kernel, written in Gluon (Triton's explicit
dialect: TMA, mbarriers and warpgroup MMA under the program's control).

Why Gluon rather than tl.dot: split-k hands each chunk's f16 sum to the outer
sum, and Triton's own pipeliner waits for every wgmma in flight at each
handover (and, with the handover inside the loop, at every step), so the
tensor cores idle; measured on an H100 (2026-11-23) that kernel ran at
0.52-0.59x cuBLAS at 4096^3 and 8192^3. Here the handover is deferred: a
chunk starts its first wgmma into a fresh accumulator, waits until only that
one is in flight, and only then converts the previous chunk's finished f16
sum and adds it to the outer sum, while the tensor cores work on the new
chunk. Two f16 accumulators and the f32 outer sum take 128x256 tiles to the
register limit (255, measured: 2 spilled registers).

The rest: persistent programs over grouped tiles; a ring of STAGES shared
memory buffers filled by TMA (zero fill past the edges, so K tails are exact)
and consumed in order, with loads running ahead across tile boundaries;
bias, ReLU/GELU in f32 and one rounding in the epilogue, stored by TMA.
"""

from __future__ import annotations

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared, mbarrier, tma, warpgroup_mma, warpgroup_mma_wait)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

_ACTIVATIONS = {"none": 0, "relu": 1, "gelu": 2}


@gluon.jit
def _tile_offsets(tile, tiles_m, tiles_n, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                  GROUP_M: gl.constexpr):
    group = GROUP_M * tiles_n
    first_m = (tile // group) * GROUP_M
    rows = gl.minimum(tiles_m - first_m, GROUP_M)
    return (first_m + (tile % group) % rows) * BLOCK_M, ((tile % group) // rows) * BLOCK_N


@gluon.jit
def _issue(a_desc, b_desc, a_bufs, b_bufs, bars, item, cursor, my_tiles, steps, tiles_m, tiles_n,
           NUM_SMS: gl.constexpr, STAGES: gl.constexpr, B_NK: gl.constexpr,
           BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, GROUP_M: gl.constexpr):
    """Loads this program's load number `item` at `cursor` (tile number, k
    step, offsets) and returns the next cursor. Past the program's last tile
    nothing is loaded."""
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    t, kk, off_m, off_n = cursor
    pred = t < my_tiles
    s = item % STAGES
    bar = bars.index(s)
    mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes, pred=pred)
    tma.async_copy_global_to_shared(a_desc, [off_m, kk * BLOCK_K], bar, a_bufs.index(s), pred=pred)
    if B_NK:
        tma.async_copy_global_to_shared(b_desc, [off_n, kk * BLOCK_K], bar, b_bufs.index(s),
                                        pred=pred)
    else:
        tma.async_copy_global_to_shared(b_desc, [kk * BLOCK_K, off_n], bar, b_bufs.index(s),
                                        pred=pred)
    kk += 1
    if kk == steps:
        kk = 0
        t += 1
        off_m, off_n = _tile_offsets(gl.program_id(0) + t * NUM_SMS, tiles_m, tiles_n,
                                     BLOCK_M, BLOCK_N, GROUP_M)
    return t, kk, off_m, off_n


@gluon.jit
def _operand_b(b_bufs, s, B_NK: gl.constexpr):
    if B_NK:
        return b_bufs.index(s).permute((1, 0))
    else:
        return b_bufs.index(s)


@gluon.jit
def _split_k_wgmma_kernel(a_desc, b_desc, c_desc, bias_ptr, M, N, K, stride_bias, CHUNK_STEPS,
                          NUM_SMS: gl.constexpr, STAGES: gl.constexpr, B_NK: gl.constexpr,
                          HAS_BIAS: gl.constexpr, ACT: gl.constexpr, OUTER_F16: gl.constexpr,
                          GROUP_M: gl.constexpr, WARPS_M: gl.constexpr, WARPS_N: gl.constexpr,
                          INSTR_N: gl.constexpr, num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES] + a_desc.block_type.shape,
                                       a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES] + b_desc.block_type.shape,
                                       b_desc.layout)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)
    layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[WARPS_M, WARPS_N], instr_shape=[16, INSTR_N, 16])
    if OUTER_F16:
        outer_ty: gl.constexpr = gl.float16
    else:
        outer_ty: gl.constexpr = gl.float32
    tiles_m = gl.cdiv(M, BLOCK_M)
    tiles_n = gl.cdiv(N, BLOCK_N)
    steps = gl.cdiv(K, BLOCK_K)
    chunks = gl.cdiv(steps, CHUNK_STEPS)
    zero16 = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float16, layout=layout)
    pid = gl.program_id(0)
    my_tiles = gl.cdiv(tiles_m * tiles_n - pid, NUM_SMS)
    off_m0, off_n0 = _tile_offsets(pid, tiles_m, tiles_n, BLOCK_M, BLOCK_N, GROUP_M)
    cursor = (0, 0, off_m0, off_n0)
    for i in gl.static_range(STAGES - 1):
        cursor = _issue(a_desc, b_desc, a_bufs, b_bufs, bars, i, cursor, my_tiles, steps,
                        tiles_m, tiles_n, NUM_SMS, STAGES, B_NK, BLOCK_M, BLOCK_N, GROUP_M)
    cons = 0
    for t in range(my_tiles):
        off_m, off_n = _tile_offsets(pid + t * NUM_SMS, tiles_m, tiles_n, BLOCK_M, BLOCK_N,
                                     GROUP_M)
        outer = gl.zeros((BLOCK_M, BLOCK_N), dtype=outer_ty, layout=layout)
        prev = zero16
        acc = zero16
        for c in range(chunks):
            lo = c * CHUNK_STEPS
            hi = gl.minimum(lo + CHUNK_STEPS, steps)
            s = cons % STAGES
            mbarrier.wait(bars.index(s), (cons // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(s), _operand_b(b_bufs, s, B_NK), zero16,
                                use_acc=False, is_async=True)
            # Only the wgmma just issued may still run: the previous chunk's
            # f16 sum is final and joins the outer sum meanwhile, and the
            # previous step's buffers are free to refill.
            acc, prev = warpgroup_mma_wait(num_outstanding=1, deps=(acc, prev))
            outer += prev.to(outer_ty)
            cursor = _issue(a_desc, b_desc, a_bufs, b_bufs, bars, cons + STAGES - 1, cursor,
                            my_tiles, steps, tiles_m, tiles_n, NUM_SMS, STAGES, B_NK, BLOCK_M,
                            BLOCK_N, GROUP_M)
            cons += 1
            for kk in range(lo + 1, hi):
                s = cons % STAGES
                mbarrier.wait(bars.index(s), (cons // STAGES) & 1)
                acc = warpgroup_mma(a_bufs.index(s), _operand_b(b_bufs, s, B_NK), acc,
                                    is_async=True)
                acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
                cursor = _issue(a_desc, b_desc, a_bufs, b_bufs, bars, cons + STAGES - 1, cursor,
                                my_tiles, steps, tiles_m, tiles_n, NUM_SMS, STAGES, B_NK,
                                BLOCK_M, BLOCK_N, GROUP_M)
                cons += 1
            prev = acc
        prev = warpgroup_mma_wait(num_outstanding=0, deps=(prev,))
        outer += prev.to(outer_ty)
        val = outer.to(gl.float32)
        if HAS_BIAS:
            offs_n = off_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, layout))
            bias = gl.load(bias_ptr + offs_n * stride_bias, mask=offs_n < N, other=0.0)
            val = val + gl.expand_dims(bias.to(gl.float32), 0)
        if ACT == 1:
            val = gl.maximum(val, 0.0)
        elif ACT == 2:
            val = 0.5 * val * (1.0 + gl.erf(val * 0.7071067811865476))
        # The previous tile's store must have read c_smem.
        tma.store_wait(pendings=0)
        c_smem.store(val.to(c_desc.dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(pendings=0)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))


def _warps_per_cta(block_m: int, num_warps: int) -> list[int]:
    """Warps along M while they find rows (16 a warp), then along N."""
    w = [4, 1]
    while w[0] * w[1] != num_warps:
        if block_m > 16 * w[0]:
            w[0] *= 2
        else:
            w[1] *= 2
    return w


def _instr_n(block_m: int, block_n: int, num_warps: int) -> int:
    """The widest wgmma N that tiles BLOCK_N for the warps along N."""
    reps_n = triton.cdiv(num_warps, triton.cdiv(block_m, 16))
    n = 256
    while n > max(block_n // reps_n, 8) or block_n % n:
        n -= 8
    return n


def config(chunk: int, out_dtype: torch.dtype) -> tuple[int, int, int, int]:
    """(BLOCK_M, BLOCK_N, BLOCK_K, STAGES). BLOCK_K divides the chunk length
    (a multiple of 32) so chunks end on steps; an f32 result tile of 128x256
    would not fit beside the ring in shared memory, so it takes 128x128.
    Measured on an H100 (2026-11-23): 128x256x64 with 3 stages is the fastest
    (0.77-0.86x cuBLAS against 0.67-0.75x for 128x128 tiles)."""
    bk = 64 if chunk % 64 == 0 else 32
    if out_dtype == torch.float32:
        return 128, 128, bk, 4
    return 128, 256, bk, 3 if bk == 64 else 4


def launch(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None, c: torch.Tensor,
           outer: str, activation: str, chunk: int, sms: int) -> None:
    """C = act(A @ B + bias) with f16 chunks of `chunk` elements of K; A (M,
    K), B (K, N) and C (M, N) as TMA reads them (unit inner stride, 16-byte
    aligned rows and base: the caller checks)."""
    m, k = a.shape
    n = b.shape[1]
    nk = b.stride(0) == 1
    bt = b.t() if nk else b
    bm, bn, bk, stages = config(chunk, c.dtype)
    c_ty = gl.float16 if c.dtype == torch.float16 else gl.float32
    b_block = [bn, bk] if nk else [bk, bn]
    a_desc = TensorDescriptor(a, list(a.shape), list(a.stride()), [bm, bk],
                              gl.NVMMASharedLayout.get_default_for([bm, bk], gl.float16))
    b_desc = TensorDescriptor(bt, list(bt.shape), list(bt.stride()), b_block,
                              gl.NVMMASharedLayout.get_default_for(b_block, gl.float16))
    c_desc = TensorDescriptor(c, list(c.shape), list(c.stride()), [bm, bn],
                              gl.NVMMASharedLayout.get_default_for([bm, bn], c_ty))
    warps = 8
    wm, wn = _warps_per_cta(bm, warps)
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    _split_k_wgmma_kernel[(min(sms, tiles),)](
        a_desc, b_desc, c_desc, bias if bias is not None else c, m, n, k,
        bias.stride(0) if bias is not None else 0, chunk // bk,
        NUM_SMS=sms, STAGES=stages, B_NK=nk, HAS_BIAS=bias is not None,
        ACT=_ACTIVATIONS[activation], OUTER_F16=outer == "f16", GROUP_M=8, WARPS_M=wm,
        WARPS_N=wn, INSTR_N=_instr_n(bm, bn, warps), num_warps=warps)
