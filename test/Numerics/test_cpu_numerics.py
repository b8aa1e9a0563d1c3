"""CPU numerics of gpupoor's split-k loop form (issue: split-k rewrite).

Each case compiles f16 linalg IR with `gpupoor-opt --gpupoor-cpu-pipeline`,
runs it, and checks it against a float64 reference computed independently:
(a) every output written (outputs poisoned with NaN first);
(b) integer inputs in {-1, 0, 1}: exact wherever every partial sum fits f16;
(c) random normal inputs: the f32-outer error bound, and f16-outer error
    falling from S = 1 to the default S;
(d) bit-for-bit equality with the numpy model of the k16 rounding.
"""

import math

import numpy as np
import pytest

from cpu_kernel import Kernel
import split_k_model as model

# (batch, M, N, K); batch None = plain matmul.
SHAPES = [
    (None, 1, 14336, 4096),
    (None, 16, 256, 4096),
    (None, 33, 65, 1031),
    (None, 127, 129, 4096),
    (None, 64, 64, 3104),
    (3, 40, 72, 520),
]
SPLITS = [1, 2, 3, "default", 32]
OUTERS = ["f16", "f32"]
BK = 32


def shape_id(shape):
    batch, m, n, k = shape
    return (f"{batch}x" if batch else "") + f"{m}x{n}x{k}"


def splits_of(s, k):
    return model.default_splits(k) if s == "default" else s


_kernels = {}


def kernel(splits, outer, batched=False, b_layout="kn", **kw):
    key = (splits, outer, batched, b_layout, tuple(sorted(kw.items())))
    if key not in _kernels:
        # "default" leaves S to the rule, evaluated at run time (K is dynamic).
        s = 0 if splits == "default" else splits
        _kernels[key] = Kernel(splits=s, outer=outer, batched=batched, b_layout=b_layout, **kw)
    return _kernels[key]


def inputs(shape, kind, rng, b_layout="kn"):
    batch, m, n, k = shape
    lead = (batch,) if batch else ()
    b_shape = lead + ((n, k) if b_layout == "nk" else (k, n))
    if kind == "int":
        a = rng.integers(-1, 2, lead + (m, k)).astype(np.float16)
        b = rng.integers(-1, 2, b_shape).astype(np.float16)
    else:
        a = rng.standard_normal(lead + (m, k)).astype(np.float16)
        b = rng.standard_normal(b_shape).astype(np.float16)
    return a, b


def reference(a, b, b_layout="kn"):
    b64 = b.astype(np.float64)
    if b_layout == "nk":
        b64 = np.swapaxes(b64, -1, -2)
    return a.astype(np.float64) @ b64


def call(kern, a, b, n, bias=None, out_dtype=np.float16):
    c = np.full(a.shape[:-1] + (n,), np.nan, dtype=out_dtype)
    args = [a, b] + ([bias] if bias is not None else []) + [c]
    kern(*args)
    return c


@pytest.fixture
def rng(request):
    # Fresh inputs per case, reproducible from the case's name.
    return np.random.default_rng(abs(hash(request.node.name)) % (2**32))


@pytest.mark.parametrize("outer", OUTERS)
@pytest.mark.parametrize("splits", SPLITS, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_integer_inputs_exact(shape, splits, outer, rng):
    batch, m, n, k = shape
    s = splits_of(splits, k)
    chunk = max(hi - lo for lo, hi in model.chunk_bounds(k, s, BK))
    a, b = inputs(shape, "int", rng)
    c = call(kernel(splits, outer, batched=bool(batch)), a, b, n)
    assert not np.isnan(c).any(), "output elements left unwritten"
    ref = reference(a, b)
    # Bit-exact against the model in every case.
    want = model.split_k_matmul(a, b, s, outer, BK).astype(np.float16)
    np.testing.assert_array_equal(c.view(np.uint16), want.view(np.uint16))
    # Exact against float64 whenever no partial sum can leave f16's integers.
    if chunk <= 2048 and np.abs(ref).max() <= 2048:
        partial = np.zeros(ref.shape)
        fits = True
        for lo, hi in model.chunk_bounds(k, s, BK):
            partial += reference(a[..., lo:hi], b[..., lo:hi, :])
            fits &= np.abs(partial).max() <= 2048
        if outer == "f32" or fits:
            np.testing.assert_array_equal(c.astype(np.float64), ref)


@pytest.mark.parametrize("splits", SPLITS, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_random_inputs(shape, splits, rng):
    batch, m, n, k = shape
    s = splits_of(splits, k)
    a, b = inputs(shape, "normal", rng)
    ref = reference(a, b)
    errors = {}
    for outer in OUTERS:
        c = call(kernel(splits, outer, batched=bool(batch)), a, b, n)
        assert not np.isnan(c).any(), "output elements left unwritten"
        want = model.split_k_matmul(a, b, s, outer, BK).astype(np.float16)
        np.testing.assert_array_equal(c.view(np.uint16), want.view(np.uint16))
        errors[outer] = model.rel_error(c, ref)
    bound = 0.35 * 2.0**-11 * math.sqrt(k / (16 * s)) + 3e-4
    assert errors["f32"] <= bound, f"f32-outer error {errors['f32']:.3e} > bound {bound:.3e}"


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_f16_outer_error_falls_with_splits(shape, rng):
    batch, m, n, k = shape
    s_default = model.default_splits(k)
    if s_default == 1:
        pytest.skip("default S is 1 for this K")
    a, b = inputs(shape, "normal", rng)
    ref = reference(a, b)
    err = {}
    for splits in (1, "default"):
        c = call(kernel(splits, "f16", batched=bool(batch)), a, b, n)
        err[splits] = model.rel_error(c, ref)
    assert err["default"] < err[1], err


@pytest.mark.parametrize("shape", [(None, 33, 65, 1031), (None, 16, 256, 4096), (2, 17, 40, 200)], ids=shape_id)
@pytest.mark.parametrize("splits", [1, 3, "default"], ids=str)
def test_transposed_b(shape, splits, rng):
    batch, m, n, k = shape
    s = splits_of(splits, k)
    a, b = inputs(shape, "int", rng, b_layout="nk")
    c = call(kernel(splits, "f32", batched=bool(batch), b_layout="nk"), a, b, n)
    np.testing.assert_array_equal(c.astype(np.float64), reference(a, b, "nk"))


def test_s1_f16_outer_matches_naive_loop(rng):
    """(d): S = 1, f16 outer, against a naive loop written here."""
    m, n, k = 9, 11, 100
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = call(kernel(1, "f16"), a, b, n)
    naive = np.zeros((m, n), np.float16)
    for i in range(m):
        for j in range(n):
            acc = np.float16(0)
            for k0 in range(0, k, 16):
                total = float(acc)
                for kk in range(k0, min(k0 + 16, k)):
                    total += float(a[i, kk]) * float(b[kk, j])
                acc = np.float16(total)
            naive[i, j] = acc
    np.testing.assert_array_equal(c.view(np.uint16), naive.view(np.uint16))


@pytest.mark.parametrize("act", ["relu", "gelu"])
@pytest.mark.parametrize("bias_type", ["f16", "f32"])
def test_fused_bias_activation(act, bias_type, rng):
    m, n, k = 33, 65, 1031
    a, b = inputs((None, m, n, k), "normal", rng)
    bias = rng.standard_normal(n).astype(np.float16 if bias_type == "f16" else np.float32)
    kern = kernel("default", "f32", bias=bias_type, epilogue=act, out_type="f32")
    c = call(kern, a, b, n, bias=bias, out_dtype=np.float32)
    acc = model.split_k_matmul(a, b, model.default_splits(k), "f32", BK)
    want = model.epilogue(acc, bias, act, out=np.float32)
    np.testing.assert_allclose(c, want, rtol=2e-6, atol=2e-6)
    # And close to the float64 truth.
    ref = model.epilogue(reference(a, b), bias, act, out=np.float64)
    assert model.rel_error(c, ref) < 1e-3


def test_edge_shapes_exact(rng):
    """Degenerate sizes: K below one block, K = 0 rows/cols, M or N = 1."""
    for m, n, k, splits in [(1, 1, 1, 1), (5, 3, 7, 3), (1, 8, 16, 32), (16, 1, 33, 2), (4, 4, 0, 2)]:
        a, b = inputs((None, m, n, k), "int", rng)
        c = call(kernel(splits, "f32"), a, b, n)
        np.testing.assert_array_equal(c.astype(np.float64), reference(a, b), err_msg=f"{m}x{n}x{k} S={splits}")


@pytest.mark.parametrize("slices", [2, 3, 7, 32], ids=str)
@pytest.mark.parametrize("outer", OUTERS)
def test_parallel_slices_match_model(slices, outer, rng):
    """Parallel split-k: P' = min(P, S) slices, each summing its chunks from
    zero, the slice sums added in order p = 0 .. P' - 1: bit for bit the
    model's, for S that P divides and S that it does not, K with a tail."""
    batch, m, n, k = 0, 9, 13, 1000
    a, b = inputs((batch, m, n, k), "normal", rng)
    for splits in (8, 5):
        kern = kernel(splits, outer, slices=slices)
        c = call(kern, a, b, n)
        assert not np.isnan(c).any(), "output elements left unwritten"
        want = model.split_k_matmul(a, b, splits, outer, BK, slices=slices).astype(np.float16)
        np.testing.assert_array_equal(c.view(np.uint16), want.view(np.uint16))
    # Not vacuous: with f16 sums the order of the slices shows.
    if outer == "f16" and slices == 3:
        seq = model.split_k_matmul(a, b, 8, outer, BK).astype(np.float16)
        par = model.split_k_matmul(a, b, 8, outer, BK, slices=3).astype(np.float16)
        assert (seq.view(np.uint16) != par.view(np.uint16)).any()


@pytest.mark.parametrize("outer", OUTERS)
def test_automatic_slices_match_model(outer, rng):
    """slices = 0: P' from the dynamic shape at run time (num_slices's rule;
    sm_80: 108 SMs, 128 x 128 tiles): one tile gives P' = S = 8; 40 tiles (a
    batch of 10 of 2 x 2) P1 = 2, P2 = 5 > 4, so 5; bit for bit the model's."""
    for batch, m, n, k, splits in [(0, 9, 13, 1000, 8), (10, 130, 130, 1000, 32)]:
        a, b = inputs((batch, m, n, k), "normal", rng)
        kern = kernel(splits, outer, batched=bool(batch), slices=0)
        c = call(kern, a, b, n)
        want = model.split_k_matmul(a, b, splits, outer, BK, slices=0, sm_count=108)
        np.testing.assert_array_equal(c.view(np.uint16), want.astype(np.float16).view(np.uint16))
        tiles = max(batch, 1) * -(-m // 128) * -(-n // 128)
        assert model.num_slices(0, tiles, splits, 108) == (8 if batch == 0 else 5)


def test_automatic_slices_one_warpgroup_tiles(rng):
    """sm_90a's one-warpgroup tiles (64 x 64 here, 132 SMs): one slice
    where a third of the SMs or more have a tile. One tile: P' = S = 8;
    a batch of 44 tiles (3 x 44 >= 132): one slice, though the rule without
    the share gives P1 = 3. f16 outer sums, so the slice count shows in the
    bits; bit for bit the model's."""
    opts = "chip=sm_90a tile=64,64,64"
    for batch, want in [(0, 8), (44, 1)]:
        a, b = inputs((batch, 9, 13, 1000), "normal", rng, "nk")
        kern = kernel(8, "f16", batched=bool(batch), b_layout="nk", slices=0, split_k=opts)
        c = call(kern, a, b, 13)
        tiles = max(batch, 1)
        assert model.num_slices(0, tiles, 8, 132, model.slice_blocks_per_sm("sm_90a", (64, 64)),
                                model.slice_one_share("sm_90a", (64, 64))) == want
        ref = model.split_k_matmul(a, b, 8, "f16", 64, b_layout="nk", slices=0,
                                   tile_mn=(64, 64), sm_count=132, chip="sm_90a")
        np.testing.assert_array_equal(c.view(np.uint16), ref.astype(np.float16).view(np.uint16))
    # Not vacuous: three slices would have given other bits.
    three = model.split_k_matmul(a, b, 8, "f16", 64, b_layout="nk", slices=3)
    assert (three.astype(np.float16).view(np.uint16) != c.view(np.uint16)).any()


def test_default_splits_count_k_in_blocks_of_32(rng):
    """The default S counts K in gpu_poor's blocks of 32 whatever the tile's
    K step: with BK = 64 and K = 1000 (dynamic, the rule runs in the loop
    form), ceil(1000 / 32) = 32 blocks give S = 8, chunks of two 64-wide
    tiles; counting in BK's 16 blocks would give S = 4. f16 outer sums, so
    S shows in the bits; bit for bit the model's."""
    assert model.default_splits(1000) == 8
    a, b = inputs((0, 9, 13, 1000), "normal", rng, "nk")
    kern = kernel("default", "f16", b_layout="nk", split_k="chip=sm_90a tile=64,64,64")
    c = call(kern, a, b, 13)
    want = model.split_k_matmul(a, b, 8, "f16", 64, b_layout="nk")
    np.testing.assert_array_equal(c.view(np.uint16), want.astype(np.float16).view(np.uint16))
    four = model.split_k_matmul(a, b, 4, "f16", 64, b_layout="nk")
    assert (four.astype(np.float16).view(np.uint16) != c.view(np.uint16)).any()


def _sums_match_model(kern, split_k, shape, splits, outer, sets, rng):
    """The IR gpupoor-split-k (options `split_k`) gives the kernel's source;
    the CPU kernel's C bit for bit the model's chunks of `sets` f16 sums
    each (K tiles of 128), and not its chunks of one sum."""
    import subprocess
    from cpu_kernel import GPUPOOR_OPT
    ir = subprocess.run([GPUPOOR_OPT, f"--gpupoor-split-k={split_k}"], input=kern.source,
                        capture_output=True, text=True, check=True).stdout
    a, b = inputs((0,) + shape, "normal", rng, "nk")
    c = call(kern, a, b, shape[1])
    ref = model.split_k_matmul(a, b, splits, outer, 128, b_layout="nk", sets=sets)
    np.testing.assert_array_equal(c.view(np.uint16), ref.astype(np.float16).view(np.uint16))
    one = model.split_k_matmul(a, b, splits, outer, 128, b_layout="nk")
    assert (one.astype(np.float16).view(np.uint16) != c.view(np.uint16)).any()
    return ir


def test_swapped_decode_matches_model(rng):
    """sm_90a runs a static decode product whose 4096 weight rows make 64
    tiles of 64 x 16 x 128 swapped (C^T = B A^T, `swapped = true`); the CPU lowering of
    that op computes C as it stands, bit for bit the model's sums (the same
    chunks in the same order as the GPU kernel's). Each chunk keeps four
    f16 sums, k16 steps t, t + 4 of its K tile in sum t (`sets = 4`); K =
    520 leaves the last tile 8 elements, which sum 0 takes, the other three
    adding +0.0."""
    kern = kernel(8, "f16", b_layout="nk", shape=(1, 4096, 520), split_k="chip=sm_90a")
    ir = _sums_match_model(kern, "chip=sm_90a splits=8 outer-type=f16", (1, 4096, 520), 8,
                           "f16", 4, rng)
    assert "swapped = true" in ir and "tile = [64, 16, 128]" in ir and "sets = 4" in ir


def test_thin_tile_matches_model(rng):
    """sm_90a gives a static product of 24 rows the 32-row tile (32 x 64 x
    128, not swapped) in chunks of 128, each two f16 sums (`sets = 2`:
    policy::kThinTileSets), k16 steps t, t + 2, ... of its K tile in sum t;
    the CPU lowering is bit for bit the model's sums. K = 1000 leaves the
    last tile 104 elements (6.5 k16 steps: sum 0 takes the half step)."""
    kern = kernel(0, "f32", b_layout="nk", shape=(24, 192, 1000), split_k="chip=sm_90a")
    ir = _sums_match_model(kern, "chip=sm_90a outer-type=f32", (24, 192, 1000), 8, "f32", 2,
                           rng)
    assert "tile = [32, 64, 128]" in ir and "sets = 2" in ir and "splits = 8" in ir, ir


def test_sets_option_on_mma_sync_tile_matches_model(rng):
    """gpupoor-split-k's `sets=4` on the strategy of the mma.sync kernel's
    16 x 128 x 128 decode tile (sm_90, 8 rows; one f16 sum a chunk by the
    rules): four sums, k16 steps t, t + 4 of each K tile in sum t. This
    checks the option and the CPU loop form of that strategy, bit for bit
    the model's sums (the GPU kernel's own order is the GPU suite's to
    check); K = 1000 leaves the last tile 104 elements (6.5 k16 steps: sum
    2 takes the half step)."""
    import subprocess
    from cpu_kernel import GPUPOOR_OPT
    kern = kernel(8, "f16", b_layout="nk", shape=(8, 4096, 1000), split_k="chip=sm_90 sets=4")
    ir = subprocess.run(
        [GPUPOOR_OPT, "--gpupoor-split-k=splits=8 outer-type=f16 slices=1 chip=sm_90 sets=4"],
        input=kern.source, capture_output=True, text=True, check=True).stdout
    assert "tile = [16, 128, 128]" in ir and "chip = sm_90" in ir and "sets = 4" in ir, ir
    a, b = inputs((0, 8, 4096, 1000), "normal", rng, "nk")
    c = call(kern, a, b, 4096)
    ref = model.split_k_matmul(a, b, 8, "f16", 128, b_layout="nk", sets=4)
    np.testing.assert_array_equal(c.view(np.uint16), ref.astype(np.float16).view(np.uint16))
    one = model.split_k_matmul(a, b, 8, "f16", 128, b_layout="nk")
    assert (one.astype(np.float16).view(np.uint16) != c.view(np.uint16)).any()


def test_default_splits_at_least_12_from_k_2017():
    """gpu_poor's rule gives 8 chunks for 64 to 80 blocks of 32 (K in
    (2016, 2560]), 0.38 of a plain f16 sum's error; the default takes 12
    there and leaves every other K as the rule has it; max_splits still
    clamps."""
    ks = (1000, 2016, 2017, 2048, 2560, 2561, 4096, 14336)
    assert [model.default_splits(k) for k in ks] == [8, 8, 12, 12, 12, 16, 16, 32]
    assert model.default_splits(2048, 8) == 8


@pytest.mark.parametrize("static", [False, True], ids=["dynamic", "static"])
def test_balanced_chunks_at_k_2048(static, rng):
    """K = 2048 with BK = 64: the default 12 chunks cut its 32 tiles into 8
    chunks of 3 tiles, then 4 of 2, whether the rule runs at run time or in
    the rewrite; f16 outer sums show the chunking in the bits: bit for bit
    the model's, and not gpu_poor's 8 chunks."""
    bounds = model.chunk_bounds(2048, 12, 64)
    assert [hi - lo for lo, hi in bounds] == [192] * 8 + [128] * 4
    a, b = inputs((0, 9, 13, 2048), "normal", rng, "nk")
    kw = dict(shape=(9, 13, 2048)) if static else {}
    kern = kernel("default", "f16", b_layout="nk", split_k="chip=sm_90a tile=64,64,64", **kw)
    c = call(kern, a, b, 13)
    want = model.split_k_matmul(a, b, 12, "f16", 64, b_layout="nk").astype(np.float16)
    np.testing.assert_array_equal(c.view(np.uint16), want.view(np.uint16))
    eight = model.split_k_matmul(a, b, 8, "f16", 64, b_layout="nk").astype(np.float16)
    assert (eight.view(np.uint16) != c.view(np.uint16)).any()
