#!/usr/bin/env python3
"""gpupoor's GPU suite: runs cubins built by build_kernels.py on a CUDA GPU.

  python3 test/GPU/run_gpu_suite.py KERNEL_DIR [--quick] [--bench] [--sanitize-shape]

Kernels built as PTX only (build_kernels.py --formats isa) load as PTX, which
the driver compiles for the GPU: an older chip's kernels run on a newer GPU.

Checks, with outputs poisoned (NaN) and fresh inputs every run:
  * exact results on integer inputs in {-1, 0, 1} over many shapes and split
    counts (wherever every partial sum fits f16's integers);
  * bit-for-bit equality with the independent numpy model of the split-k
    numerics (test/Numerics/split_k_model.py) on random inputs;
  * random normal error at M = N = 512, K in {4096, 8192, 16384}, next to
    cuBLAS with f16 accumulation;
  * identical results across two runs;
  * parallel split-k kernels (grid y = P', a workspace and counters the
    launcher keeps) and batched kernels (one launch for the batch) alike,
    and a parallel kernel given a short workspace traps.
Prints a summary line 'N passed, N failed'. Needs torch, cupy, numpy.
"""

import argparse
import math
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Numerics"))
import split_k_model as model  # noqa: E402
from gpupoor_kernel import GpupoorKernel, bk_of, model_slices  # noqa: E402


class Results:
    def __init__(self):
        self.passed = self.failed = 0
        self.failures = []

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(what)
            print("FAIL", what, flush=True)


def make(shape, kind, nk, gen):
    m, n, k = shape
    bshape = (n, k) if nk else (k, n)
    if kind == "int":
        a = torch.randint(-1, 2, (m, k), generator=gen, device="cuda").half()
        b = torch.randint(-1, 2, bshape, generator=gen, device="cuda").half()
    else:
        a = torch.randn((m, k), generator=gen, device="cuda").half()
        b = torch.randn(bshape, generator=gen, device="cuda").half()
    return a, b


def padded_rows(b, nk):
    """B as K x N (not nk) in rows of a multiple of 8 elements, as an aligned
    kernel's copies take them (N x K rows keep K's stride)."""
    n = b.shape[1]
    if nk or n % 8 == 0:
        return b
    return torch.zeros((b.shape[0], n + 8 - n % 8), dtype=b.dtype, device=b.device)[:, :n].copy_(b)


def run(kern, a, b, n, ins=(), out_dtype=torch.float16, c_in=None):
    c = torch.full((a.shape[0], n), float("nan"), dtype=out_dtype, device="cuda")
    if c_in is not None:
        c.copy_(c_in)
    kern(a, b, c, ins)
    torch.cuda.synchronize()
    return c


def ref64(a, b, nk):
    return a.double() @ (b.double().T if nk else b.double())


def exact_suite(kernels, res, quick, gen):
    edges = [1, 8, 15, 16, 17, 127, 128, 129, 512 - 3 * 8]
    ks = [8, 16, 24, 32, 40, 520, 1032, 3104, 4096]
    shapes = []
    for m in edges:
        for n in [8, 16, 128, 136, 488]:
            shapes.append((m, n, ks[(m + n) % len(ks)]))
    shapes += [(m, 4096, 4096) for m in range(1, 17, 3)]  # skinny
    shapes += [(m, 1000, 4104) for m in (2, 33, 64, 127)]  # skinny, K and N tails
    shapes += [(64, 64, k) for k in ks]                   # K tails of every size
    shapes += [(0, 16, 32), (16, 16, 0)]
    # Element-wise kernels take any alignment: odd sizes everywhere.
    odd_edges = [1, 7, 8, 15, 16, 17, 127, 128, 129, 488]
    odd_ks = [1, 7, 15, 17, 31, 33, 520, 1031, 3105]
    unaligned = [(m, n, odd_ks[(m + 2 * n) % len(odd_ks)]) for m in odd_edges for n in odd_edges]
    unaligned += [(33, 65, 1031), (127, 129, 4095), (1, 14336, 4095)]
    # A stored K x M takes any K: 8 columns of B as K x N (rows of 16
    # bytes) whose K is no multiple of 8, which the runtime's encoder reads
    # in rows of 16 bytes, not grouped eight at a time (groupedRows).
    k_tails_of_8_columns = [(8, 8, 1031), (3, 8, 4095), (17, 8, 133)]
    if quick:
        shapes = shapes[::4]
        unaligned = unaligned[::4]
    for name, kern in kernels.items():
        meta = kern.meta
        if meta["c_type"] != "f16" or not kern.plain:
            continue
        # (Not a swapped kernel's: its B is the call's A, in rows of K.)
        km_kn = kern.km and not kern.nk and not meta.get("swapped_operands")
        aligned_shapes = shapes + (k_tails_of_8_columns if km_kn else [])
        for shape in (aligned_shapes if kern.aligned else shapes + unaligned):
            m, n, k = shape
            a, b = make(shape, "int", kern.nk, gen)
            try:
                c = run(kern, a, b, n)
            # A launch or encoding the kernel should take, or operands the
            # suite should not have given it: a failure, not the suite's end.
            except (RuntimeError, ValueError) as e:
                res.check(False, f"{name} {shape}: {e}")
                continue
            if m == 0 or n == 0:
                res.check(c.numel() == 0, f"{name} {shape} empty")
                continue
            res.check(not torch.isnan(c).any().item(), f"{name} {shape}: unwritten outputs")
            ref = ref64(a, b, kern.nk)
            s = kern.splits_for(k)
            chunk = max([hi - lo for lo, hi in model.chunk_bounds(k, s, bk_of(meta))] or [0])
            fits = chunk <= 2048 and ref.abs().max().item() <= 2048
            if meta["outer"] == "f16" and (kern.parallel or meta.get("sets", 1) > 1):
                # Slice sums start from zero, and a chunk's several sums add
                # its steps in another order: bound every partial sum by the
                # chunks' absolute sums.
                total = torch.zeros_like(ref)
                for lo, hi in model.chunk_bounds(k, s, bk_of(meta)):
                    total += (a[:, lo:hi].double() @ (b[:, lo:hi].double().T if kern.nk else b[lo:hi].double())).abs()
                fits &= total.max().item() <= 2048
            elif meta["outer"] == "f16":
                partial = torch.zeros_like(ref)
                for lo, hi in model.chunk_bounds(k, s, bk_of(meta)):
                    partial += a[:, lo:hi].double() @ (b[:, lo:hi].double().T if kern.nk else b[lo:hi].double())
                    fits &= partial.abs().max().item() <= 2048
            if fits:
                res.check(torch.equal(c.double(), ref), f"{name} {shape} S={s}: not exact "
                          f"(max err {(c.double() - ref).abs().max().item()})")
            c2 = run(kern, a, b, n)
            res.check(torch.equal(c.view(torch.int16), c2.view(torch.int16)),
                      f"{name} {shape}: two runs differ")


def splits_arg_suite(kernels, res, gen):
    """Kernels that take S as a parameter (splits_arg), launched with S of
    1, 3, 7, 40 and 1000 (past every shape's K tiles: a chunk a tile):
    the exact and model suites (quick) at each, the reference cut in the
    chunks of that S."""
    taking = {name: kern for name, kern in kernels.items() if kern.takes_splits}
    for splits in (1, 3, 7, 40, 1000):
        for kern in taking.values():
            kern.splits = splits
        exact_suite(taking, res, True, gen)
        model_suite(taking, res, True, gen)
    for kern in taking.values():
        kern.splits = None


def dependent_launch_suite(kernels, res, gen):
    """Kernels whose manifest says dependent_launch, launched back to back
    with programmatic stream serialization (each may start before the one
    before it ends): a chain whose launches read the previous launch's C as
    their A (read after write), and a ping-pong whose launches write C over
    the A the launch before read (write after read), bit for bit equal to
    the same launches run one at a time; parallel kernels share one
    workspace across the chain. Kernels with an f16 C, their epilogue
    operands fixed; where the epilogue reads C, fresh outputs hold C_in
    and the ping-pong's the A two launches back."""
    steps = 12
    for name, kern in kernels.items():
        if not kern.dependent or kern.meta["c_type"] != "f16":
            continue
        for m, n in ((16, 1032), (200, 520)):
            k = n
            bs = [(torch.randn((n, k) if kern.nk else (k, n), generator=gen, device="cuda")
                   / math.sqrt(k)).half() for _ in range(3)]
            x0 = torch.randn((m, k), generator=gen, device="cuda").half()
            ins, named, c_in = epilogue_inputs(kern, m, n, gen)
            # Twelve launches scale a row by its scale twelve times: a
            # scale of 2.8 (200 rows of randn hold one) took C past f16's
            # range, and inf - inf made the reference chain NaN.
            if "scale" in named:
                named["scale"].clamp_(-1.0, 1.0)
            fresh = c_in if kern.meta["reads_c"] else torch.full(
                (m, n), float("nan"), dtype=torch.float16, device="cuda")

            def chain(pingpong, dependent):
                kern.dependent = dependent
                bufs = [x0.clone()] + [fresh.clone() for _ in range(1 if pingpong else steps)]
                torch.cuda.synchronize()
                if dependent:
                    # The host queues every launch while the GPU spins: they
                    # run back to back.
                    torch.cuda._sleep(20_000_000)
                for i in range(steps):
                    src, dst = (i % 2, (i + 1) % 2) if pingpong else (i, i + 1)
                    kern(bufs[src], bs[i % len(bs)], bufs[dst], ins)
                    if not dependent:
                        torch.cuda.synchronize()
                torch.cuda.synchronize()
                kern.dependent = True
                return torch.stack(bufs)

            for pingpong in (False, True):
                ref, got = chain(pingpong, False), chain(pingpong, True)
                what = "write after read" if pingpong else "read after write"
                res.check(not torch.isnan(ref).any().item(),
                          f"{name} {m}x{n}x{k}: {what} chain left outputs unwritten")
                res.check(torch.equal(ref.view(torch.int16), got.view(torch.int16)),
                          f"{name} {m}x{n}x{k}: dependent launches ({what}) differ from "
                          f"launches one at a time")


def strided_suite(kernels, res, gen):
    """Element-wise kernels on non-contiguous views (inner strides of 2)."""
    for name, kern in kernels.items():
        meta = kern.meta
        if kern.aligned or meta["c_type"] != "f16" or not kern.plain:
            continue
        m, n, k = 45, 77, 301
        a_big = torch.randint(-1, 2, (m, 2 * k), generator=gen, device="cuda").half()
        b_big = torch.randint(-1, 2, ((n, 2 * k) if kern.nk else (k, 2 * n)), generator=gen,
                              device="cuda").half()
        a, b = a_big[:, ::2], b_big[:, ::2]
        c = run(kern, a, b, n)
        res.check(torch.equal(c.double(), ref64(a, b, kern.nk)), f"{name}: strided operands not exact")


def c_layout_suite(kernels, res, gen):
    """Kernels that store C by TMA (c_desc) or through shared memory
    (epilogue_passes) on C that takes no 16-byte row vectors, which the TMA
    kernels store from their lanes and the others in the widest vectors C
    takes (a row stride of N = 4 mod 8: 8 bytes, 2 or 6 mod 8: 4 bytes, odd:
    elements): N not a multiple of 8, C's pointer 2 or 4 bytes off, a row stride
    past the row (and the vector paths on an aligned strided C); exact,
    outside C untouched."""
    for name, kern in kernels.items():
        stores = "c_desc" in kern.meta["params"] or kern.meta.get("epilogue_passes", 0) > 0
        if not stores or not kern.plain or kern.meta["c_type"] != "f16":
            continue
        for m, n, k, pad, off in ((300, 1001, 520, 0, 0), (129, 7, 264, 0, 0),
                                  (1, 4100, 1032, 0, 0), (200, 520, 264, 3, 1),
                                  (200, 520, 264, 8, 0), (1, 136, 40, 5, 1),
                                  (300, 1002, 520, 0, 0), (264, 516, 264, 0, 0),
                                  (200, 520, 264, 2, 0), (130, 260, 1032, 4, 0),
                                  (200, 520, 264, 4, 2)):
            a, b = make((m, n, k), "int", kern.nk, gen)
            b = padded_rows(b, kern.nk)
            big = torch.full((m * (n + pad) + off,), float("nan"), dtype=torch.float16,
                             device="cuda")
            c = big[off:].view(m, n + pad)[:, :n]
            kern(a, b, c)
            torch.cuda.synchronize()
            shape = (m, n, k, f"stride {n + pad}", f"offset {off}")
            res.check(torch.equal(c.double(), ref64(a, b, kern.nk)), f"{name} {shape}: not exact")
            outside = torch.ones_like(big, dtype=torch.bool)
            outside[off:].view(m, n + pad)[:, :n] = False
            res.check(torch.isnan(big[outside]).all().item(), f"{name} {shape}: wrote outside C")


def model_suite(kernels, res, quick, gen):
    shapes = [(33, 72, 1032), (128, 128, 4096), (100, 200, 520)]
    if quick:
        shapes = shapes[:1]
    for name, kern in kernels.items():
        meta = kern.meta
        if meta["c_type"] != "f16" or not kern.plain:
            continue
        for shape in shapes:
            m, n, k = shape
            a, b = make(shape, "normal", kern.nk, gen)
            c = run(kern, a, b, n)
            s = kern.splits_for(k)
            want = model.split_k_matmul(a.cpu().numpy(), b.cpu().numpy(), s, meta["outer"], bk_of(meta),
                                        "nk" if kern.nk else "kn", sets=meta.get("sets", 1),
                                        **model_slices(kern)).astype(np.float16)
            got = c.cpu().numpy()
            diff = int((got.view(np.uint16) != want.view(np.uint16)).sum())
            rel = float(np.linalg.norm(got.astype(np.float64) - want.astype(np.float64))
                        / np.linalg.norm(want.astype(np.float64)))
            # Measured on an H200: the tensor cores' f16 accumulation matches
            # "sum the k16 step exactly, round once" except, per element and
            # k16 step, about 1e-5 to 2e-5 of the time, when an inner partial
            # sum lands one f16 ulp away (0.1% to 0.5% of the elements at
            # K = 4096, most at S = 1). Bit equality is reported; the check
            # bounds the rest with a 2x margin on that rate.
            steps = -(-k // 16)
            print(f"  model {name} {shape} S={s} P'={kern.num_slices(m, n, k)}: {diff} of {got.size} elements differ, "
                  f"relative difference {rel:.1e}")
            # Parallel slices meet in a fixed order: bit-identical reruns
            # on random inputs, where any other order would show. A
            # persistent kernel reruns on one block an SM (the suite's
            # launches take a few blocks): the grid changes nothing. A
            # stream-K kernel's shared tiles add their pieces in an order
            # the grid sets: it reruns on the same grid.
            blocks = kern.persistent_blocks
            if not kern.stream_k:
                kern.persistent_blocks = None
            c2 = run(kern, a, b, n)
            kern.persistent_blocks = blocks
            res.check(torch.equal(c.view(torch.int16), c2.view(torch.int16)),
                      f"{name} {shape}: two runs on random inputs differ")
            res.check(diff <= max(8, got.size * steps * 4e-5) and rel <= 2e-4,
                      f"{name} {shape} S={s}: differs from the model in {diff} elements (rel {rel:.1e})")


def epilogue_inputs(kern, m, n, gen):
    """The epilogue's operands of kern's source (cpu_kernel.matmul_source),
    in the order the fusion reads them, as strided views: C_in, the bias,
    a per-row scale (every other element of a longer vector) and a
    residual (a transposed view); plus C_in itself (or None)."""
    src = kern.source
    out_dtype = torch.float16 if kern.meta["c_type"] == "f16" else torch.float32
    ins, named = [], {}
    c_in = None
    chain = any(src.get(key) for key in ("bias", "row_scale", "residual")) \
        or src.get("epilogue", "none") != "none"
    if src.get("accumulate"):
        c_in = torch.randn((m, n), generator=gen, device="cuda").to(out_dtype)
        named["c_in"] = c_in
        if chain:
            ins.append((c_in, c_in.stride(0), c_in.stride(1)))
    if src.get("bias"):
        dt = torch.float16 if src["bias"] == "f16" else torch.float32
        bias = torch.randn(n, generator=gen, device="cuda").to(dt)
        named["bias"] = bias
        ins.append((bias, 0, bias.stride(0)))
    if src.get("row_scale"):
        scale = torch.randn(2 * m, generator=gen, device="cuda")[::2]
        named["scale"] = scale
        ins.append((scale, scale.stride(0), 0))
    if src.get("residual"):
        res = torch.randn((n, m), generator=gen, device="cuda").to(out_dtype).t()
        named["res"] = res
        ins.append((res, res.stride(0), res.stride(1)))
    return ins, named, c_in


def epilogue_reference(kern, acc, named, out):
    """What the source computes from the split-k sum `acc` (the model's),
    each linalg op rounding its result to C's type."""
    src = kern.source
    rnd = lambda x: x.astype(out).astype(np.float32) if out == np.float16 else x.astype(np.float32)
    v = rnd(acc.astype(np.float32))
    if "c_in" in named:
        v = rnd(named["c_in"].cpu().numpy().astype(np.float32) + v)
    bias = named["bias"].cpu().numpy() if "bias" in named else None
    v = model.epilogue(v, bias, src.get("epilogue", "none"), out=out).astype(np.float32)
    if "scale" in named:
        v = rnd(v * named["scale"].cpu().numpy()[:, None])
    if "res" in named:
        v = rnd(v + named["res"].cpu().numpy().astype(np.float32))
    return v.astype(out)


def epilogue_suite(kernels, res, gen):
    """Kernels with an epilogue region (bias, activation, C += A*B, per-row
    and full-size operands through strided views) against the model."""
    for name, kern in kernels.items():
        meta = kern.meta
        if kern.plain:
            continue
        for m, n, k in ((100, 136, 1032), (1, 72, 40), (129, 7, 520)):
            if kern.aligned and n % 8:
                continue
            a, b = make((m, n, k), "normal", kern.nk, gen)
            out_dtype = torch.float16 if meta["c_type"] == "f16" else torch.float32
            ins, named, c_in = epilogue_inputs(kern, m, n, gen)
            c = run(kern, a, b, n, ins, out_dtype, c_in)
            s = kern.splits_for(k)
            acc = model.split_k_matmul(a.cpu().numpy(), b.cpu().numpy(), s, meta["outer"],
                                       bk_of(meta), "nk" if kern.nk else "kn",
                                       sets=meta.get("sets", 1), **model_slices(kern))
            out = np.float16 if out_dtype == torch.float16 else np.float32
            want = epilogue_reference(kern, acc, named, out).astype(np.float64)
            got = c.cpu().numpy().astype(np.float64)
            rel = float(np.linalg.norm(got - want) / np.linalg.norm(want))
            print(f"  epilogue {name} {(m, n, k)}: {len(ins)} operands"
                  f"{', reads C' if c_in is not None else ''}: relative difference {rel:.1e}")
            # Same rare one-ulp differences of the inner sums as in model_suite.
            res.check(not torch.isnan(c).any().item() and rel <= 2e-4,
                      f"{name} {(m, n, k)}: epilogue differs from the model by {rel:.1e}")


def error_table(kernels, gen):
    rows = []
    torch.backends.cuda.matmul.allow_fp16_accumulation = True
    for k in (4096, 8192, 16384):
        a, b = make((512, 512, k), "normal", False, gen)
        ref = ref64(a, b, False)
        cublas16 = (a @ b).double()
        row = {"K": k, "cublas_fp16acc": ((cublas16 - ref).norm() / ref.norm()).item()}
        for name in ("kn_f16", "kn_f32", "kn_f16_s1"):
            if name in kernels:
                c = run(kernels[name], a, b, 512)
                row[name] = ((c.double() - ref).norm() / ref.norm()).item()
        rows.append(row)
    torch.backends.cuda.matmul.allow_fp16_accumulation = False
    return rows


def big_suite(kernels, res, gen):
    """A, B and C each of more than 2^31 elements, on 64-bit kernels, exact
    on {-1, 0, 1} inputs against cuBLAS (exact there too: every partial sum
    is an integer below 2048); the 32-bit kernels refuse such operands."""
    shapes = {"a": (2**21 + 77, 136, 1032), "b": (136, 2**21 + 77, 1032), "c": (46352, 46352, 64)}
    for name, kern in kernels.items():
        if kern.meta.get("size_type") != "i64" or not kern.plain \
                or kern.meta["c_type"] != "f16":
            continue
        for which, (m, n, k) in shapes.items():
            if which == "b" and not kern.nk:
                continue  # B of 2^31 elements in kn layout: K x N, same path as nk's
            a = torch.randint(-1, 2, (m, k), generator=gen, device="cuda", dtype=torch.float16)
            b = torch.randint(-1, 2, (n, k) if kern.nk else (k, n), generator=gen,
                              device="cuda", dtype=torch.float16)
            c = run(kern, a, b, n)
            ref = a @ (b.T if kern.nk else b)
            big = {"a": a, "b": b, "c": c}[which]
            res.check(big.numel() > 2**31 and torch.equal(c, ref),
                      f"{name} {which} of {big.numel()} elements ({m}x{n}x{k}): not exact")
            del c, ref
            narrow = kernels.get(name.replace("_i64", "").replace("_wide", ""))
            if narrow is not None:
                c = torch.empty((m, n), dtype=torch.float16, device="cuda")
                try:
                    narrow(a, b, c)
                    refused = False
                except ValueError:
                    refused = True
                res.check(refused, f"{name}: the 32-bit kernel took {which} of {big.numel()} elements")
                del c
            del a, b
            torch.cuda.empty_cache()


def padded_batch(t, pad):
    """`t` (3-D, contiguous) copied into a batch whose elements lie `pad`
    elements further apart than they need (0: B shared by the batch, its
    element 0 repeated with batch stride 0)."""
    bt, rows, cols = t.shape
    if pad == 0:
        return t[:1].expand(bt, rows, cols)
    store = torch.full((bt * (rows * cols + pad) + 8,), float("nan"), dtype=t.dtype, device=t.device)
    v = store.as_strided(t.shape, (rows * cols + pad, cols, 1))
    v.copy_(t)
    return v


def batch_strides_suite(kernels, res, gen):
    """Batch strides a launcher must check: B shared by the batch (stride 0:
    no tensor map steps it), A's elements 4 or 8 elements further apart
    than dense (4: no 16-byte copies either), C's 4 apart (the TMA store
    kernel then stores from its lanes). A kernel runs exactly where its
    requirements hold and refuses (ValueError) otherwise; the host code's
    chain of variants then takes the next."""
    bt, m, n, k = 5, 300, 600, 200
    for name, kern in kernels.items():
        if not kern.plain:
            continue
        for pad_a, shared_b, pad_c in [(8, False, 0), (8, True, 0), (4, False, 0), (0, False, 4),
                                       (8, False, 8)]:
            a0 = torch.randint(-1, 2, (bt, m, k), generator=gen, device="cuda").half()
            b0 = torch.randint(-1, 2, (bt, n, k) if kern.nk else (bt, k, n), generator=gen,
                               device="cuda").half()
            if shared_b:
                b0 = padded_batch(b0, 0)
            a = padded_batch(a0, pad_a) if pad_a else a0
            c = padded_batch(torch.full((bt, m, n), float("nan"), dtype=torch.float16, device="cuda"),
                             pad_c) if pad_c else torch.full((bt, m, n), float("nan"),
                                                            dtype=torch.float16, device="cuda")
            sab, sbb = a.stride(0), b0.stride(0)
            expect_refused = kern.aligned and (
                sab % 8 != 0 or sbb % 8 != 0
                or ("tensormap" in kern.meta["param_types"] and min(sab, sbb) <= 0))
            try:
                kern(a, b0, c)
                torch.cuda.synchronize()
                refused = False
            except ValueError:
                refused = True
            what = f"{name} batch strides A {sab} B {sbb} C {c.stride(0)}"
            res.check(refused == expect_refused,
                      f"{what}: {'refused' if refused else 'ran'}, expected the other")
            if not refused:
                ref = a0.double() @ (b0.double().transpose(1, 2) if kern.nk else b0.double())
                res.check(torch.equal(c.double(), ref),
                          f"{what}: not exact (unwritten: {int(torch.isnan(c).sum())})")


def batched_bias_suite(kernels, res, gen):
    """Batched kernels of C = relu(A*B + bias) (one f16 bias the batch
    shares: batch stride 0, the operand after the batch count in the ABI):
    exact on {-1, 0, 1} inputs over edge shapes."""
    for name, kern in kernels.items():
        if kern.meta["epilogue_inputs"] != ["f16"] or "maximumf" not in kern.meta["epilogue"]:
            continue
        print(f"  batched bias+relu {name}")
        for bt, m, n, k in [(3, 33, 72, 1032), (5, 300, 600, 200), (2, 1, 136, 64)]:
            a = torch.randint(-1, 2, (bt, m, k), generator=gen, device="cuda").half()
            b = torch.randint(-1, 2, (bt, n, k) if kern.nk else (bt, k, n), generator=gen,
                              device="cuda").half()
            bias = torch.randint(-2, 3, (n,), generator=gen, device="cuda").half()
            c = torch.full((bt, m, n), float("nan"), dtype=torch.float16, device="cuda")
            kern(a, b, c, [(bias, 0, 1, 0)])
            torch.cuda.synchronize()
            ref = (a.double() @ (b.double().transpose(1, 2) if kern.nk else b.double())
                   + bias.double()).clamp(min=0)
            res.check(torch.equal(c.double(), ref),
                      f"{name} bias+relu batch {bt} {m}x{n}x{k}: not exact "
                      f"(unwritten: {int(torch.isnan(c).sum())})")


def batched_suite(kernels, res, gen):
    """Batched kernels (one launch for the batch): exact results on
    {-1, 0, 1} inputs, skinny and tail shapes, an empty batch, a persistent
    kernel's blocks looping over several elements' tiles, two runs
    bit-identical on random inputs; batch_strides_suite."""
    batch_strides_suite(kernels, res, gen)
    batched_bias_suite(kernels, res, gen)
    shapes = [(3, 33, 72, 1032), (2, 1, 4096, 4096), (5, 127, 16, 520), (7, 16, 136, 4104),
              (0, 16, 16, 32), (2, 0, 16, 32), (5, 300, 600, 200)]
    for name, kern in kernels.items():
        if not kern.plain:
            continue
        for bt, m, n, k in shapes:
            bshape = (bt, n, k) if kern.nk else (bt, k, n)
            a = torch.randint(-1, 2, (bt, m, k), generator=gen, device="cuda").half()
            b = torch.randint(-1, 2, bshape, generator=gen, device="cuda").half()
            c = torch.full((bt, m, n), float("nan"), dtype=torch.float16, device="cuda")
            kern(a, b, c)
            torch.cuda.synchronize()
            ref = a.double() @ (b.double().transpose(1, 2) if kern.nk else b.double())
            res.check(torch.equal(c.double(), ref),
                      f"{name} batch {bt} {m}x{n}x{k}: not exact (unwritten: {int(torch.isnan(c).sum())})")
        a = torch.randn(4, 40, 1000, generator=gen, device="cuda").half()
        b = torch.randn((4, 72, 1000) if kern.nk else (4, 1000, 72), generator=gen, device="cuda").half()
        c1 = torch.empty(4, 40, 72, dtype=torch.float16, device="cuda")
        c2 = torch.empty_like(c1)
        kern(a, b, c1)
        kern(a, b, c2)
        torch.cuda.synchronize()
        res.check(torch.equal(c1.view(torch.int16), c2.view(torch.int16)),
                  f"{name}: two batched runs differ")


def short_workspace(kdir, manifest):
    """One launch of a parallel or stream-K kernel with half the workspace
    its manifest asks for: the kernel must trap (exit 3) rather than write
    out of bounds (exit 0 reports the miss). Runs in a child process: a
    trap leaves the CUDA context unusable."""
    kern = GpupoorKernel(kdir, manifest)
    # Stream-K: three blocks over four tiles, the last shared (whatever the
    # tile: 512 x 1024 is 33 tiles of 192 x 96, a multiple of three, none
    # shared).
    m, n, k = (2 * kern.bm, 2 * kern.bn, 256) if kern.stream_k else (1, 4096, 4096)
    a = torch.randn(m, k, device="cuda").half()
    b = torch.randn((n, k) if kern.nk else (k, n), device="cuda").half()
    c = torch.empty(m, n, device="cuda").half()
    half = lambda ws, locks: (ws[: ws.numel() // 2], locks)
    if kern.stream_k:
        kern.persistent_blocks = 3
        full_sk = kern.stream_k_workspace
        kern.stream_k_workspace = lambda g: half(*full_sk(g))
    elif kern.num_slices(m, n, k) < 2:
        print("the kernel runs one slice at 1 x 4096 x 4096")
        return 0
    full = kern.workspace_for
    kern.workspace_for = lambda t, s: half(*full(t, s))
    try:
        kern(a, b, c)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 (the launch error, whichever class)
        print(f"trapped: {type(e).__name__}: {str(e)[:60]}")
        return 3
    print("no trap: a short workspace was accepted")
    return 0


def stream_k_suite(kernels, res, gen):
    """Stream-K kernels (C = A*B) on grids the three-block suite never
    makes: 8 blocks over 9 tiles (G' = 4 < G: blocks without a share,
    tiles of 3-5 pieces), 3 blocks over 5 tiles (every block two pieces,
    the next tile's first), 132 blocks over 133 tiles, and K = 0 (no
    chunks: every tile whole); exact on {-1, 0, 1} inputs, and every flag
    down after the launch (the next launch's waits need them so)."""
    for name, kern in kernels.items():
        if not kern.stream_k or not kern.plain:
            continue
        out = torch.float16 if kern.meta["c_type"] == "f16" else torch.float32
        bm, bn = kern.bm, kern.bn
        cases = [(8, (3 * bm, 3 * bn - 5, 1000)), (3, (bm, 5 * bn, 1032)),
                 (3, (bm - 1, 5 * bn, 4104)), (132, (7 * bm, 19 * bn, 520)),
                 (3, (bm, 5 * bn, 0))]
        blocks = kern.persistent_blocks
        for grid, (m, n, k) in cases:
            kern.persistent_blocks = grid
            a, b = make((m, n, k), "int", kern.nk, gen)
            b = padded_rows(b, kern.nk)
            if k == 0:
                # Rows of 16 bytes, as the tensor maps take them (an empty
                # row's stride is whatever torch gives it).
                a = torch.zeros((m, 8), dtype=torch.float16, device="cuda")[:, :0]
                b = (torch.zeros((n, 8), dtype=torch.float16, device="cuda")[:, :0] if kern.nk
                     else torch.zeros((8, n), dtype=torch.float16, device="cuda")[:0])
            c = run(kern, a, b, n, out_dtype=out)
            res.check(torch.equal(c.double(), ref64(a, b, kern.nk)),
                      f"{name} {m}x{n}x{k} on {grid} blocks: not exact")
            if kern.locks is not None:
                res.check(int(kern.locks.abs().sum()) == 0,
                          f"{name} {m}x{n}x{k} on {grid} blocks: flags left up")
        kern.persistent_blocks = blocks


def trap_suite(kernels, res):
    """Parallel and stream-K kernels trap on a short workspace (checked on
    one kernel of each: the check is the same code in each)."""
    for kind in ("parallel", "stream_k"):
        for name, kern in kernels.items():
            if not getattr(kern, kind):
                continue
            proc = subprocess.run([sys.executable, __file__, kern.kdir, "--short-workspace",
                                   kern.manifest], capture_output=True, text=True)
            res.check(proc.returncode == 3,
                      f"{name}: a short workspace did not trap ({proc.stdout.strip()[-200:]})")
            break


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kernel_dir")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--big", action="store_true",
                        help="only the operands of more than 2^31 elements (64-bit kernels)")
    parser.add_argument("--short-workspace", metavar="MANIFEST",
                        help="(internal) one launch of KERNEL_DIR's MANIFEST with a short workspace")
    parser.add_argument("--all", action="store_true",
                        help="also the benchmarks' static_*, skinny_* and attn_* kernels")
    parser.add_argument("--sanitize-shape", action="store_true",
                        help="one small launch of every kernel (for compute-sanitizer)")
    args = parser.parse_args()
    if args.short_workspace:
        return short_workspace(args.kernel_dir, args.short_workspace)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int.from_bytes(os.urandom(4), "little"))
    kernels = {}
    for name in sorted(os.listdir(args.kernel_dir)):
        kdir = os.path.join(args.kernel_dir, name)
        if not os.path.isfile(os.path.join(kdir, "gpupoor_matmul_0.json")):
            continue
        # The benchmarks' static-shape kernels (build_kernels.py --static,
        # --skinny) are timed, not checked here.
        if name.startswith(("static_", "skinny_", "attn_")) and not args.all:
            continue
        # The configured kernel, and the fallbacks its host code launches
        # where the operands break its requirements (_elements, _i64).
        for manifest in sorted(os.listdir(kdir)):
            if manifest.startswith("gpupoor_matmul_0") and manifest.endswith(".json"):
                suffix = manifest[len("gpupoor_matmul_0"):-len(".json")]
                kernels[name + suffix] = GpupoorKernel(kdir, manifest)
                # Three blocks: every launch of more tiles loops.
                kernels[name + suffix].persistent_blocks = 3
    res = Results()
    batched = {name: kern for name, kern in kernels.items() if kern.batched}
    kernels = {name: kern for name, kern in kernels.items() if not kern.batched}
    if args.sanitize_shape:
        for name, kern in batched.items():
            a = torch.randint(-1, 2, (3, 70, 200), generator=gen, device="cuda").half()
            b = torch.randint(-1, 2, (3, 136, 200) if kern.nk else (3, 200, 136), generator=gen,
                              device="cuda").half()
            c = torch.full((3, 70, 136), float("nan"), dtype=torch.float16, device="cuda")
            # Per-column epilogue operands (a bias) the batch shares.
            ins = [(torch.ones(136, dtype=torch.float16, device="cuda"), 0, 1, 0)
                   for _ in kern.meta["epilogue_inputs"]]
            kern(a, b, c, ins)
            torch.cuda.synchronize()
            res.check(not torch.isnan(c).any().item(), f"{name}: sanitize-shape")
        for name, kern in kernels.items():
            # A persistent kernel's blocks take several tiles each; a
            # stream-K kernel's three blocks share the tiles past whole
            # waves (T mod 3 > 0).
            m, n, k = (300, 600, 200) if kern.persistent else (70, 136, 200)
            while kern.stream_k and (-(-m // kern.bm) * -(-n // kern.bn)) % 3 == 0:
                m, n = m + kern.bm, n + 2 * kern.bn
            a, b = make((m, n, k), "int", kern.nk, gen)
            ins, _, c_in = epilogue_inputs(kern, m, n, gen)
            out = torch.float16 if kern.meta["c_type"] == "f16" else torch.float32
            c = run(kern, a, b, n, ins, out, c_in)
            res.check(not torch.isnan(c).any().item(), f"{name}: sanitize-shape")
        print(f"{res.passed} passed, {res.failed} failed")
        return 1 if res.failed else 0
    if args.big:
        big_suite(kernels, res, gen)
        res.check(res.passed + res.failed > 0, "--big found no 64-bit kernel to run")
        print(f"{res.passed} passed, {res.failed} failed")
        return 1 if res.failed else 0
    exact_suite(kernels, res, args.quick, gen)
    splits_arg_suite(kernels, res, gen)
    dependent_launch_suite(kernels, res, gen)
    batched_suite(batched, res, gen)
    stream_k_suite(kernels, res, gen)
    trap_suite(kernels, res)
    strided_suite(kernels, res, gen)
    c_layout_suite(kernels, res, gen)
    model_suite(kernels, res, args.quick, gen)
    epilogue_suite(kernels, res, gen)
    rows = error_table(kernels, gen)
    print("random normal, M = N = 512: relative Frobenius error vs fp64")
    for row in rows:
        print("  " + "  ".join(f"{k}={v:.3e}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
        if "kn_f16" in row:
            res.check(row["kn_f16"] <= 2e-3, f"K={row['K']}: f16-outer error {row['kn_f16']:.3e} > 2e-3")
    print(f"{res.passed} passed, {res.failed} failed")
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
