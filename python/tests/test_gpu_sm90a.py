"""The sm_90a kernel families on a GPU: exact results on {-1, 0, 1} inputs for
each wgmma tile the policy chooses (thin, swapped, two blocks an SM, deferred
handover, clusters, filling tiles, stream-K), over M, N and K tails, both B
layouts and A as K x M. Skipped off sm_90a; needs CUDA and the kernel library."""

import pytest
import torch

from gpupoor.kernels import split_k_sequential
from gpupoor.variants import DEFAULT_MAX_SPLITS

from gpu_reference import ints, ref

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("family,m,n,k,want", [
    # Chunks of two K tiles or more: the split handover's path (and its
    # K tail); 1100 x 2208 x 272: 162 tiles of 128 x 128, persistent (pl128:
    # 5 K tiles in 5 chunks, no split handover).
    # N and K multiples of 16 (rows on 32-byte sectors: no clusters,
    # test_sm90a_clusters_exact).
    ("mid", 300, 528, 1040, "mid"), ("large", 300, 608, 4112, "large"),
    ("w192", 300, 528, 1040, "w192"), ("w160", 300, 528, 1040, "w160"),
    ("mid", 1100, 2208, 272, "pl128"),
    # Chunks of one K tile (S = 8 of 5 K tiles): the whole-tile handover.
    ("mid", 300, 528, 272, "mid")])
@pytest.mark.parametrize("slices", [0, 2])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("layout", ["linear", "kn"])
def test_sm90a_families_exact(family, m, n, k, want, slices, outer, layout):
    """sm_90a's 128-row families, each taken where the tuned table would
    choose (gpupoor._C._force_choice), with and without slices: exact on
    small integers. The families a block a tile take the split handover
    where their chunks have two K tiles or more."""
    from gpupoor import _mlir_backend
    from gpupoor._native import C as _C

    chips, sm_count = _mlir_backend.device_info(0)
    if chips[:1] != ("sm_90a",):
        pytest.skip("sm_90a's families")
    g = torch.Generator(device="cuda").manual_seed(m + n + k + slices)
    x = ints(m, k, gen=g)
    w = ints(n, k, gen=g).T if layout == "linear" else ints(k, n, gen=g)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    _C._force_choice(family, slices)
    try:
        p = _C.describe_plan(x, w, None, c, "none", outer, DEFAULT_MAX_SPLITS, 0, list(chips),
                             sm_count)
        y = split_k_sequential(x, w, outer=outer, backend="mlir")
    finally:
        _C._force_choice(None)
    assert p["family"] == (want if slices == 0 else family)
    if slices or want == "pl128":
        assert p["slices"] == max(slices, 1)
    assert torch.equal(y.double(), ref(x, w))


@pytest.mark.parametrize("m,n,k", [(17, 200, 1000), (24, 4104, 264), (32, 5120, 4104),
                                   (32, 72, 128)])
@pytest.mark.parametrize("slices", [0, 3])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
@pytest.mark.parametrize("layout", ["nk", "kn"])
def test_sm90a_thin_tile_exact(m, n, k, slices, outer, activation, layout):
    """17 to 32 rows (A as M x K, B either way) take sm_90a's 32-row wgmma
    tile (the m32 family, policy::kThinTile), whose m64 MMAs compute 32 rows
    past the tile that it does not store: exact on small integers over N and
    K tails, slices, both outer types and an epilogue (compute-sanitizer
    checks that nothing past M is touched)."""
    from gpupoor import _mlir_backend
    from gpupoor._native import C as _C

    chips, sm_count = _mlir_backend.device_info(0)
    if chips[:1] != ("sm_90a",):
        pytest.skip("sm_90a's 32-row tile")
    g = torch.Generator(device="cuda").manual_seed(m + n + k + slices)
    x = ints(m, k, gen=g)
    w = ints(n, k, gen=g).T if layout == "nk" else ints(k, n, gen=g)
    bias = ints(n, gen=g) if activation else None
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, bias, c, activation or "none", outer, DEFAULT_MAX_SPLITS, slices,
                         list(chips), sm_count)
    # Two blocks an SM where the grid exceeds the SMs (policy::wgmmaBlocksPerSM).
    assert p["family"] == ("m32w" if p["tiles"] * p["slices"] > sm_count else "m32")
    y = split_k_sequential(x, w, bias, activation=activation, outer=outer, slices=slices,
                           backend="mlir")
    assert torch.equal(y.double(), ref(x, w, bias, activation))


@pytest.mark.parametrize("m,n,k,layout,want", [
    # One tile in 33 slices; 13 and 8 slices of few tiles.
    (33, 16, 4104, "nk", "n16"), (600, 8, 3000, "kn", "n16"), (1000, 16, 8192, "kmkn", "n16"),
    # Past the SMs: two blocks an SM (in clusters of two where B is K x N).
    (9000, 5, 520, "nk", "n16w"), (9000, 16, 520, "kn", "n16wc"),
    # B's 16 columns shared in clusters of four (few tiles) or two.
    (1000, 9, 1000, "kn", "n16q"), (4100, 16, 264, "kmkn", "n16q"),
    (300, 16, 2000, "kmkn", "n16q"), (7000, 16, 520, "kn", "n16c")])
@pytest.mark.parametrize("slices", [0, 3])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_narrow_tile_exact(m, n, k, layout, want, slices, outer, activation):
    """At most 16 columns over more than 32 rows take the decode tile
    unswapped (policy::kNarrowTile: the n16 families, in clusters sharing a
    B stored K x N): exact on small integers over M and K tails, N of 5 to
    16 (rows of B as K x N off 16 bytes), slices, both outer types, A as K
    x M and an epilogue. With slices asked for no cluster is taken."""
    from gpupoor._native import C as _C

    chips, sm_count, x, w, g = _sm90a_family_operands(m, n, k, layout)
    bias = ints(n, gen=g) if activation else None
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, bias, c, activation or "none", outer, DEFAULT_MAX_SPLITS, slices,
                         list(chips), sm_count)
    if slices:
        want = "n16w" if p["tiles"] * slices > sm_count else "n16"
    assert p["family"] == want
    y = split_k_sequential(x, w, bias, activation=activation, outer=outer, slices=slices,
                           backend="mlir")
    assert torch.equal(y.double(), ref(x, w, bias, activation))


def _sm90a_family_operands(m, n, k, layout):
    """The device's chips and SMs, x (M x K; stored K x M for km*), w (K x N;
    stored N x K for *nk) in small integers and their generator; skips
    unless a 132-SM sm_90a device chooses the families as the tests name
    them."""
    from gpupoor import _mlir_backend

    chips, sm_count = _mlir_backend.device_info(0)
    if chips[:1] != ("sm_90a",) or sm_count != 132:
        pytest.skip("sm_90a's families, as a 132-SM device chooses them")
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    # A stored K x M in rows of a multiple of 8 elements, its first M columns
    # viewed: rows of 16 bytes, which the kernels that read A so need. (Rows
    # of M elements, M no multiple of 8, are copied into padded rows first:
    # policy::Strategy::padsA.)
    x = ints(k, -(-m // 8) * 8, gen=g)[:, :m].T if layout.startswith("km") else ints(m, k, gen=g)
    w = ints(n, k, gen=g).T if layout.endswith("nk") else ints(k, n, gen=g)
    return chips, sm_count, x, w, g


@pytest.mark.parametrize("m,n,k,layout,want", [
    # Grids beyond the SMs: C tiles (133, 141) or tiles x slices (20 x 13, 10 x 13).
    (32, 9000, 264, "nk", "m32w"), (20, 1280, 4104, "nk", "m32w"),
    (64, 17000, 136, "nk", "m64w"), (64, 17000, 136, "kn", "m64w"),
    (64, 17000, 136, "kmnk", "m64w"), (121, 640, 4104, "nk", "n64w"),
    (124, 640, 4104, "kn", "n64w"), (128, 640, 4104, "kmkn", "n64w"),
    (20, 1280, 4104, "kn", "m32w")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
def test_sm90a_two_blocks_an_sm_exact(m, n, k, layout, want, outer):
    """The one-warpgroup families two blocks an SM (m32w, m64w, n64w), taken
    where the grid exceeds the SMs as the compiler's static kernel would
    (policy::wgmmaBlocksPerSM): exact on small integers over M, N and K
    tails, both B layouts and A as K x M."""
    from gpupoor._native import C as _C

    chips, sm_count, x, w, g = _sm90a_family_operands(m, n, k, layout)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, None, c, "none", outer, DEFAULT_MAX_SPLITS, 0, list(chips),
                         sm_count)
    assert p["family"] == want and p["tiles"] * p["slices"] > sm_count
    y = split_k_sequential(x, w, outer=outer, backend="mlir")
    assert torch.equal(y.double(), ref(x, w))


@pytest.mark.parametrize("m,n,k,want", [
    # B as K x N up to 8 rows where the 16 x 256 tile fits (112, 100 and
    # 125 tiles: policy::wideDecodeTileFits), from 8 rows on the 16 x 128
    # tile where its tiles take one slice (108, 89, 94:
    # policy::kMmaDecodeKNRows), swapped below K = 2048 and where they
    # would take slices (86).
    (4, 28672, 8192, "m16n256"), (7, 25600, 4096, "m16n256"), (1, 32000, 2048, "m16n256"),
    (8, 13824, 5120, "m16"), (13, 11392, 8200, "m16"), (16, 12032, 3080, "m16"),
    (8, 14336, 1024, "s16w"), (8, 11008, 4096, "s16w")])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_decode_of_b_as_k_by_n_on_mma_tiles_exact(m, n, k, want, activation):
    """Decode products of B stored K x N (rows padded by 8 elements) where
    the rules take sm_90's mma.sync tiles over the swapped one: the family
    as named, exact on small integers with and without a bias and ReLU."""
    from gpupoor._native import C as _C

    chips, sm_count, x, _, g = _sm90a_family_operands(m, 8, 8, "kn")
    x = ints(m, k, gen=g)
    w = ints(k, n + 8, gen=g)[:, :n]
    bias = ints(n, gen=g) if activation else None
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, bias, c, activation or "none", "f32", DEFAULT_MAX_SPLITS, 0,
                         list(chips), sm_count)
    assert p["family"] == want
    y = split_k_sequential(x, w, bias, activation=activation, backend="mlir")
    assert torch.equal(y.double(), ref(x, w, bias, activation))


@pytest.mark.parametrize("m,n,k,ld", [
    # 16 rows, dense or in rows padded to 24 / 32 (whose pad the map's M
    # bounds); N and K tails; past the SMs two blocks an SM (s16w).
    (16, 200, 1000, 16), (16, 136, 4104, 24), (16, 4160, 264, 32), (16, 1000, 2056, 24),
    (16, 9000, 264, 16), (16, 9000, 1000, 24),
    # 32 rows: the 64 x 32 tile, 64-byte rows (s32, s32w).
    (32, 200, 1000, 32), (32, 136, 4104, 40), (32, 4160, 264, 48), (32, 1000, 2056, 32),
    (32, 9000, 264, 32), (32, 9000, 1000, 40),
    # 8 rows: the 64 x 8 tile, unswizzled 16-byte rows (s8 and its twins).
    (8, 200, 1000, 8), (8, 136, 4104, 16), (8, 4160, 264, 8), (8, 1000, 2056, 16),
    (8, 9000, 264, 8)])
@pytest.mark.parametrize("slices", [0, 3])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
@pytest.mark.parametrize("layout", ["kmnk", "kmkn"])
def test_sm90a_swapped_reads_a_as_k_by_m_exact(m, n, k, ld, slices, outer, activation, layout):
    """A product whose A is stored K x M in 8, 16 or 32 rows runs swapped on
    A as it lies: the swapped kernel's B as K x N in a tile of 8, 16 or 32
    columns, one atom of 16-byte unswizzled or 32- or 64-byte swizzled rows
    (KernelSpec::bAtomCols), its map bounded by M; exact on small integers
    over N and K tails, padded rows, slices, both outer types, a bias along
    the kernel's rows, both B layouts."""
    from gpupoor._native import C as _C

    chips, sm_count, _, w, g = _sm90a_family_operands(m, n, k, layout)
    x = ints(k, ld, gen=g)[:, :m].T
    assert x.stride() == (1, ld)
    bias = ints(n, gen=g) if activation else None
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, bias, c, activation or "none", outer, DEFAULT_MAX_SPLITS, slices,
                         list(chips), sm_count)
    # The s{m} family, or its variant two blocks an SM where the grid exceeds
    # the SMs (policy::wgmmaBlocksPerSM) and in clusters
    # (policy::clusterBlocks).
    two = p["tiles"] * p["slices"] > sm_count
    assert p["family"].startswith(f"s{m}w" if two else f"s{m}") and p["swapped"], p
    assert tuple(_C.family_tile(p["family"], "sm_90a", layout[2:]))[1] == m
    b_desc = p["params"].index("b_desc")
    # 8 dense rows: the map reads eight rows of 16 bytes at a time as one
    # of 128 (runtime::groupedRows).
    want = (0, (64, k - 7), 16, 8) if (m, ld, k % 8) == (8, 8, 0) else (0, (m, k), 2 * ld, 1)
    assert [(mp[1], mp[2], mp[3], mp[6]) for mp in p["maps"] if mp[0] == b_desc] == [want]
    y = split_k_sequential(x, w, bias, activation=activation, outer=outer, slices=slices,
                           backend="mlir")
    assert torch.equal(y.double(), ref(x, w, bias, activation))


@pytest.mark.parametrize("m,n,k", [
    # One tile, K tails, few tiles in slices; past the SMs two blocks an SM
    # (s16we).
    (5, 200, 1000), (3, 136, 264), (7, 1000, 2056), (12, 200, 1000), (2, 4096, 4104),
    (4, 9000, 1000), (15, 9000, 264)])
@pytest.mark.parametrize("slices", [0, 3])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
@pytest.mark.parametrize("layout", ["kmnk", "kmkn"])
def test_sm90a_copied_k_by_m_decode_keeps_eight_sums_exact(m, n, k, slices, outer, activation,
                                                           layout):
    """A decode product whose A, stored K x M, is copied M x K first (rows
    not a multiple of 8: policy::copiesKMajorA) runs the swapped decode
    tile with a sum a k16 step (s16e, s16we: policy::kCopiedDecodeSets):
    exact on small integers over N and K tails, slices, both outer types,
    a bias along the kernel's rows, both B layouts."""
    from gpupoor._native import C as _C

    chips, sm_count, x, w, g = _sm90a_family_operands(m, n, k, layout)
    bias = ints(n, gen=g) if activation else None
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, bias, c, activation or "none", outer, DEFAULT_MAX_SPLITS, slices,
                         list(chips), sm_count)
    two = p["tiles"] * p["slices"] > sm_count
    assert (p["family"], p["sets"], p["swapped"]) == ("s16we" if two else "s16e", 8, True), p
    y = split_k_sequential(x, w, bias, activation=activation, outer=outer, slices=slices,
                           backend="mlir")
    assert torch.equal(y.double(), ref(x, w, bias, activation))


@pytest.mark.parametrize("k", [8, 128, 1000, 1003, 4095, 4104])
@pytest.mark.parametrize("n", [200, 9000])
def test_sm90a_eight_dense_rows_of_a_as_k_by_m_exact(n, k):
    """8 rows of A stored K x M, densely (the rows of K 16 bytes apart): the
    swapped kernel's B map reads them eight at a time as rows of 128 bytes
    where K is a multiple of 8, so that eight rows are in bounds or out
    together, else row by row; exact on small integers either way, over K
    under one 128-deep tile, K tails and N past the SMs (s8w)."""
    from gpupoor._native import C as _C

    chips, sm_count, _, w, g = _sm90a_family_operands(8, n, k, "kmkn")
    x = ints(k, 8, gen=g).T
    c = torch.empty(8, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, None, c, "none", "f32", DEFAULT_MAX_SPLITS, 0, list(chips),
                         sm_count)
    assert p["family"].startswith("s8") and p["swapped"], p
    b_desc = p["params"].index("b_desc")
    [(dims, stride, box, step)] = [(mp[2], mp[3], mp[4], mp[6]) for mp in p["maps"]
                                   if mp[0] == b_desc]
    if k % 8 == 0:
        assert (dims, stride, box[0], step) == ((64, k - 7), 16, 64, 8)
    else:
        assert (dims, stride, box[0], step) == ((8, k), 16, 8, 1)
    y = split_k_sequential(x, w, backend="mlir")
    assert torch.equal(y.double(), ref(x, w))


@pytest.mark.parametrize("m,n,k,layout", [
    # K tails of the 128-deep K tile (policy::kSwappedDecodeTile): K under
    # one tile, a part tile after whole ones; N tails; past the SMs two
    # blocks an SM (s16w), B as N x K past two tiles an SM too (266, 297
    # tiles); B as K x N of 8 rows past two tiles an SM (17024 / 64 = 266:
    # policy::kWideSwappedKNRows), K below policy::kMmaDecodeKNMinK.
    (1, 200, 72, "nk"), (5, 4160, 1000, "nk"), (16, 136, 4104, "nk"), (16, 9000, 264, "nk"),
    (1, 17000, 264, "nk"), (16, 19000, 1000, "nk"),
    (1, 200, 72, "kn"), (5, 4160, 1000, "kn"), (16, 136, 4104, "kn"), (16, 9000, 264, "kn"),
    (8, 17024, 264, "kn")])
@pytest.mark.parametrize("slices", [0, 3])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_swapped_decode_exact(m, n, k, layout, slices, outer, activation):
    """Decode products of A as M x K run swapped (C^T = W x^T, the 64 x 16
    x 128 tile): exact on small integers over M, N and K tails, slices,
    both outer types, a bias along the kernel's rows, both B layouts."""
    from gpupoor._native import C as _C

    chips, sm_count, x, w, g = _sm90a_family_operands(m, n, k, layout)
    bias = ints(n, gen=g) if activation else None
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, bias, c, activation or "none", outer, DEFAULT_MAX_SPLITS, slices,
                         list(chips), sm_count)
    want = "s16w" if p["tiles"] * p["slices"] > sm_count else "s16"
    assert p["family"] == want and p["swapped"], p
    assert tuple(_C.family_tile(want, "sm_90a", layout)) == (64, 16, 128)
    y = split_k_sequential(x, w, bias, activation=activation, outer=outer, slices=slices,
                           backend="mlir")
    assert torch.equal(y.double(), ref(x, w, bias, activation))


@pytest.mark.parametrize("family,m,n,k", [
    # Rows on 32-byte sectors, one wave: the families themselves.
    ("m64", 72, 208, 1312), ("n64", 72, 208, 1312), ("m32", 72, 208, 1312),
    # K off sectors: m64 in clusters of two (m64c) where one slice runs.
    ("m64", 72, 208, 1320),
    # Past the SMs: their two-blocks-an-SM variants (64 x 128 two blocks an
    # SM drains: KernelSpec::kDeferredHandoverMaxBN).
    ("m64", 72, 8528, 1312), ("n64", 72, 4240, 1312), ("m32", 72, 2832, 1312),
    # Four f16 sums a chunk (policy::accumulatorSets), one and two blocks an
    # SM.
    ("n32", 40, 208, 1312), ("n32", 40, 4240, 1312)])
@pytest.mark.parametrize("splits", [3, 4, 6, 9])
@pytest.mark.parametrize("slices", [1, 2, 3])
@pytest.mark.parametrize("layout", ["nk", "kn", "kmkn"])
def test_sm90a_deferred_handover_exact(family, m, n, k, splits, slices, layout):
    """The one-warpgroup families up to 128 columns (and 64 x 64 with two
    f16 sums a chunk) hand each chunk over
    behind the next chunk's first wgmma group (KernelSpec::defersHandover):
    chunks in unrolled groups of four and the rest one by one, so S below,
    at and past a group (3, 4, 6 = a group and two, 9 = two and one), in
    one to three slices (a slice may hold no whole group, or no chunk);
    exact on small integers over M, N and K tails, both B layouts and A as
    K x M, on the variant the launch takes (clusters, two blocks an SM)."""
    from gpupoor._native import C as _C

    if family == "m32" and layout.startswith("km"):
        pytest.skip("the 32-row tile reads A as M x K only")
    chips, sm_count, x, w, g = _sm90a_family_operands(m, n, k, layout)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    _C._force_choice(family, slices, True, splits)
    try:
        p = _C.describe_plan(x, w, None, c, "none", "f32", DEFAULT_MAX_SPLITS, 0, list(chips),
                             sm_count)
        y = split_k_sequential(x, w, backend="mlir")
    finally:
        _C._force_choice(None)
    tile = {"m64": (64, 128), "n64": (64, 64), "m32": (32, 64), "n32": (64, 32)}[family]
    want = family
    # (64 x 64 in chunks of at least 320, S = 3 and 4 here: two f16 sums a
    # chunk, policy::chunkSets.)
    if family == "n64" and -(-k // splits) >= 320:
        want = "n64s"
    if k % 16 and slices == 1:
        want += "c"
    elif -(-m // tile[0]) * -(-n // tile[1]) * min(slices, splits) > sm_count:
        want += "w"
    launched = (p["family"], p["values"][p["params"].index("splits")], p["slices"])
    assert launched == (want, splits, min(slices, splits)), p
    assert torch.equal(y.double(), ref(x, w))


def _exact_on_family(m, n, k, layout, want, outer, activation):
    """The package's plan for small-integer operands of the shape (the
    family asserted) and its result checked exact; the plan, operands and
    bias."""
    from gpupoor._native import C as _C

    chips, sm_count, x, w, g = _sm90a_family_operands(m, n, k, layout)
    bias = ints(n, gen=g) if activation else None
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, bias, c, activation or "none", outer, DEFAULT_MAX_SPLITS, 0,
                         list(chips), sm_count)
    assert p["family"] == want, p
    y = split_k_sequential(x, w, bias, activation=activation, outer=outer, backend="mlir")
    assert torch.equal(y.double(), ref(x, w, bias, activation))
    return p, x, w, bias


@pytest.mark.parametrize("m,n,k,layout,want", [
    # M tails (200 = 128 + 72), N tails and a K tail (1040 = 16 x 64 + 16);
    # N off 32-byte sectors: clusters of two; past the SMs persistent (with
    # the split handover where chunks have two K tiles or more: not at K =
    # 144, three K tiles in two chunks), and with stream-K where the last
    # wave is short.
    (200, 10640, 1040, "nk", "w176"), (200, 21200, 1040, "kmnk", "pl176h"),
    (456, 10640, 144, "kmnk", "pl176"),
    (200, 10600, 1024, "nk", "w176c"), (200, 21160, 1024, "kmnk", "pl176ch"),
    (456, 10600, 144, "kmnk", "pl176c"),
    (200, 12720, 1040, "kmnk", "w224"), (200, 25360, 1040, "nk", "pl224h"),
    (456, 12720, 144, "nk", "pl224"),
    (200, 12680, 1024, "nk", "w224c"), (200, 25400, 1024, "kmnk", "pl224ch"),
    (456, 12680, 144, "kmnk", "pl224c"),
    (512, 26480, 4096, "nk", "pl224k"), (500, 26480, 4096, "kmnk", "pl224k"),
    (6784, 672, 4096, "nk", "pl176k")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_176_and_224_columns_exact(m, n, k, layout, want, outer, activation):
    """B as N x K in 128-row tiles of 176 and 224 columns where their waves
    cost least (policy's wideTile), a block a tile, persistent, with
    stream-K and in clusters: exact on small integers over M, N and K
    tails, A as K x M, both outer types and an epilogue."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # An odd count of row tiles (the last pair's partner stores nothing), N
    # or K off 32-byte sectors and a K tail; chunks of two K tiles (the
    # split handover of largec, midc, w192c and w160c).
    # (64 x 128 tiles: 64 x 64 ones, 141 or 144, would not fit a wave.)
    (136, 3000, 1000, "nk", "m64c"), (136, 3000, 1000, "kn", "m64c"),
    (136, 3000, 1000, "kmnk", "m64c"), (136, 3072, 1000, "nk", "m64c"),
    (136, 3000, 1024, "kn", "m64c"),
    (328, 3000, 3080, "nk", "midc"), (328, 3000, 3080, "kn", "midc"),
    (328, 3000, 3080, "kmkn", "midc"),
    # One wave up to K = 3072: persistent (oneWavePersistentPays); past it
    # (584 x 12680: 600 tiles) persistent too.
    (328, 2720, 1000, "nk", "pl128ch"), (328, 2720, 1000, "kn", "pl128ch"),
    (328, 2720, 1000, "kmkn", "pl128ch"),
    (584, 12680, 1000, "nk", "pl128ch"), (584, 12680, 1000, "kn", "pl128ch"),
    (584, 12680, 152, "nk", "pl128c"), (584, 12680, 144, "kn", "pl128c"),
    # B as N x K whose K lies on sectors: no clusters that add a wave (128 x
    # 128 tiles in pairs, 600, against 500), 128 x 256 alone (250) instead.
    (584, 12680, 144, "nk", "pl"),
    (328, 8440, 3080, "nk", "largec"), (328, 8440, 3080, "kn", "largec"),
    (328, 8440, 3080, "kmnk", "largec"),
    (328, 8440, 1000, "nk", "plch"), (328, 8440, 1000, "kn", "plch"),
    (328, 8440, 1000, "kmnk", "plch"),
    # Persistent: the split handover too (families ending in ch) where
    # chunks have two K tiles or more (not at K = 144).
    (328, 16888, 1000, "nk", "plch"), (328, 16888, 1000, "kn", "plch"),
    (328, 16888, 1000, "kmkn", "plch"),
    (456, 22200, 1000, "nk", "plc"), (456, 21160, 1000, "kn", "plc"),
    (456, 21160, 1000, "kmkn", "plc"),
    (328, 6328, 1000, "nk", "w192c"), (328, 5640, 1000, "kn", "w192c"),
    (328, 17432, 1000, "nk", "pl192ch"), (392, 11280, 1000, "kn", "pl192c"),
    (328, 17432, 1000, "kmnk", "pl192ch"), (456, 11640, 144, "kmnk", "pl192c"),
    (584, 3512, 1000, "nk", "w160c"), (392, 10552, 1000, "nk", "pl160ch"),
    (392, 10552, 1000, "kmnk", "pl160ch"), (456, 8520, 144, "nk", "pl160c"),
    # B as K x N in five 32-column atoms (M a multiple of 128: the policy's
    # nMajorB160Pays).
    (640, 3512, 1000, "kn", "w160c"), (512, 10552, 1000, "kmkn", "pl160c"),
    # 128 x 128 tiles in clusters would spill a wave (126 tiles, 140
    # launched): the narrowest wider tile whose clusters fit one
    # (widerTileForOneWave; C's rows off 16 bytes: not the transposed
    # product); a last row tile of 16 rows.
    (1040, 1714, 1512, "nk", "w160c"), (1040, 1714, 1512, "kn", "w192c"),
    (1040, 1714, 1512, "kmkn", "w192c")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_clusters_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's families in clusters of two along M sharing B's tile by TMA
    multicast (the families ending in c), taken where operand rows start
    off 32-byte sectors as the compiler's static kernel would
    (policy::clusterPays): exact on small integers over odd pairs, M, N and
    K tails, both B layouts, A as K x M, both outer types and an
    epilogue."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # Five row tiles (the second cluster's last three blocks store nothing),
    # an N tail (1500 = 11 x 128 + 92), a K tail (2500 = 39 x 64 + 4), every
    # operand layout; N on sectors with K off (400 rows: five 96-column
    # tiles, past the transposed product's, policy::swappedFillTile); an M
    # tail of 8 rows over
    # eight row tiles; 17 row tiles launched as 20 over a long K.
    (300, 1500, 2500, "kn", "m64q"), (300, 1500, 2500, "kmnk", "m64q"),
    (300, 1500, 2500, "kmkn", "m64q"), (400, 1536, 2504, "nk", "m64q"),
    (456, 1728, 1512, "nk", "m64q"), (1064, 624, 7064, "kn", "m64q")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_quad_clusters_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's 64 x 128 family in clusters of four along M, persistent
    (m64q), taken where its clusters all run at once as the compiler's
    static kernel would (policy::quadClusterPays): exact on small integers
    over partly empty clusters, M, N and K tails, both B layouts, A as
    K x M, both outer types and an epilogue."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # 193 to 384 rows whose 64-row tiles leave SMs idle: the transposed
    # product in 64 x 96 tiles, clusters of four (the policy's
    # swappedFillTile), C^T stored in column vectors. Tails of the
    # transposed product's M (2152 = 33 x 64 + 40: 34 row tiles, the last
    # cluster half empty) and N (250 = 2 x 96 + 58, 340 = 3 x 96 + 52; 288 =
    # 3 x 96 none), K tails (2408 = 37 x 64 + 40, 2426 off 16 bytes: copied
    # into padded rows), both B layouts and A as K x M.
    (288, 2152, 2408, "nk", "x96q"), (288, 2152, 2408, "kn", "x96q"),
    (250, 2152, 2408, "kmkn", "x96q"), (340, 1616, 2056, "kmnk", "x96q"),
    (340, 1616, 2056, "nk", "x96q"), (213, 1720, 2426, "nk", "x96q")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_swapped_fill_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's transposed product of few rows in 64 x 96 tiles and
    clusters of four, its C^T stored by column vectors, taken as the
    compiler's static kernel would: exact on small integers."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # A as K x M with B as K x N: the transposed product in 64 x 64 tiles
    # (its B, A^T, N-major in one 128-byte atom a tile), clusters of four.
    # Tails of the transposed product's M (1208 = 18 x 64 + 56: 19 row tiles,
    # the last cluster's fourth empty) and N (328 = 5 x 64 + 8, 352 = 5 x 64 +
    # 32), K tails (3048 = 47 x 64 + 40, 3560 = 55 x 64 + 40).
    (352, 1224, 3560, "kmkn", "x64q"), (328, 1208, 3048, "kmkn", "x64q")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_swapped_fill_km_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's transposed product of A as K x M and B as K x N in 64 x 64
    tiles and clusters of four, taken as the compiler's static kernel
    would: exact on small integers."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # Fewer than twice group_m row tiles run as one group in a persistent
    # kernel (GroupedTileOrder): 9 row tiles of 128 (1032 = 8 x 128 + 8,
    # 1048) in clusters of two (five clusters, the last half empty) and
    # without, past one wave, with the split handover; 11 row tiles of A as
    # K x M (1320 = 10 x 128 + 40).
    (1032, 5976, 1648, "kn", "plch"), (1048, 6352, 4064, "nk", "pl224h"),
    (1320, 8800, 2600, "kmkn", "pl")])
def test_sm90a_one_group_of_row_tiles_exact(m, n, k, layout, want):
    """Products of 9 to 15 row tiles, whose tiles the persistent TMA kernel
    orders as one group, every tile once: exact on small integers."""
    _exact_on_family(m, n, k, layout, want, "f32", None)


@pytest.mark.parametrize("m,n,k,b_layout", [(330, 1208, 3048, "kn"), (300, 4100, 1032, "nk"),
                                           (5500, 8, 5120, "kn"), (1003, 1000, 1003, "nk")])
def test_sm90a_a_as_k_x_m_off_16_bytes_runs_its_padded_copy(m, n, k, b_layout):
    """An A stored K x M in rows of M elements, M no multiple of 8 (off 16
    bytes), is copied as it lies into padded rows first
    (policy::Strategy::padsA): the plan (describe_plan, on the operands the
    call launches on) is the K x M product's, its A map reads rows of the
    padded M (policy::paddedRowElems), and the result is exact."""
    from gpupoor._native import C as _C

    chips, sm_count, _, w, g = _sm90a_family_operands(m, n, k, b_layout)
    x = ints(k, m, gen=g).T
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, None, c, "none", "f32", DEFAULT_MAX_SPLITS, 0, list(chips),
                         sm_count)
    want = _C.choose_launch("sm_90a", m, n, k, b_layout, 0, DEFAULT_MAX_SPLITS, sm_count, "km")
    assert want["a_layout"] == "km" and p["family"] == want["family"], p
    # The maps of the call's A (operand 0, swapped or not) read the copy's
    # rows of the padded M.
    a_map = [mp for mp in p["maps"] if mp[1] == 0]
    assert a_map and all(mp[3] == 2 * _C.padded_row_elems(m) for mp in a_map), p["maps"]
    y = split_k_sequential(x, w, backend="mlir")
    assert torch.equal(y.double(), ref(x, w))


@pytest.mark.parametrize("m,n,k,layout,want", [
    # One wave of 64-row tiles wider than 128 columns: M tails (200 = 3 x 64
    # + 8, 136 = 2 x 64 + 8), N tails of every width, a K tail of 16, both B
    # layouts and A as K x M.
    (200, 4336, 4112, "nk", "m64n160"), (200, 4336, 4112, "kmnk", "m64n160"),
    (200, 4336, 4112, "kn", "m64n192"), (200, 4336, 4112, "kmkn", "m64n192"),
    (136, 8480, 4112, "nk", "m64n256"), (136, 8480, 4112, "kn", "m64n256"),
    (136, 8480, 4112, "kmnk", "m64n256"),
    # One wave of 192 x 96 tiles over three consumer warpgroups (8 x 16 =
    # 128, 6 x 22 = 132): M tails (1500 = 7 x 192 + 156), N tails (1520 = 15
    # x 96 + 80), K tails of 16, both B layouts (K x N in 32-column atoms)
    # and A as K x M.
    (1500, 1520, 1552, "nk", "m192n96"), (1500, 1520, 1552, "kn", "m192n96"),
    (1496, 1520, 1552, "kmkn", "m192n96"), (1496, 1520, 1552, "kmnk", "m192n96"),
    (1100, 2032, 2064, "nk", "m192n96")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_filling_tiles_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's one-warpgroup families of 64 x 160, 64 x 192 and 64 x 256
    tiles and the three-warpgroup 192 x 96 one, taken where their tiles fill
    one wave with less work an SM than the rules' 128-row tile, as the
    compiler's static kernel would (the policy's filling tiles): exact on
    small integers."""
    _exact_on_family(m, n, k, layout, want, outer, activation)



@pytest.mark.parametrize("m,n,k,layout,want", [
    # 192 x 192 tiles over three consumer warpgroups (the policy's wideTile):
    # one wave of 9 x 14 a block a tile, M tails (1624 = 8 x 192 + 88, 1630),
    # N tails (2568 = 13 x 192 + 72), K tails (744 = 11 x 64 + 40), N and K
    # off 16 bytes (2570, 2562: C's rows stored by elements; K = 746: A and B
    # copied into padded rows), both B layouts and A as K x M; two waves of
    # 11 x 23 persistent (TMA stores of f16 C; 4362: the lanes store).
    (1624, 2568, 744, "nk", "t192"), (1624, 2568, 744, "kn", "t192"),
    (1624, 2568, 744, "kmkn", "t192"), (1624, 2568, 744, "kmnk", "t192"),
    (1624, 2570, 746, "nk", "t192"), (1630, 2562, 744, "kn", "t192"),
    (2100, 4360, 1000, "nk", "plt192"), (2100, 4360, 1000, "kn", "plt192"),
    (2104, 4360, 1000, "kmkn", "plt192"), (2100, 4362, 1000, "nk", "plt192")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_three_warpgroup_wide_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's 192 x 192 families, a block a tile and persistent, taken
    where their waves cost less than the 128-row tiles' as the compiler's
    static kernel would: exact on small integers."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # The transposed product in 128 x 128 tiles where the product's own
    # clusters spill a wave (the policy's swappedMidTile), C^T stored in
    # column vectors: 14 x 9 tiles, tails of both (1720 = 13 x 128 + 56,
    # 1040 = 8 x 128 + 16, 1030), every layout; in clusters of two where K
    # lies off 32-byte sectors (1512 = 23 x 64 + 40).
    (1040, 1720, 1536, "nk", "x128"), (1040, 1720, 1536, "kn", "x128"),
    (1040, 1720, 1536, "kmkn", "x128"), (1040, 1720, 1536, "kmnk", "x128"),
    (1040, 1712, 1512, "nk", "x128c"), (1040, 1712, 1512, "kn", "x128c"),
    (1040, 1712, 1512, "kmkn", "x128c"), (1030, 1712, 1512, "nk", "x128c")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_swapped_mid_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's transposed 128 x 128 families, a block a tile and in
    clusters of two, taken where the compiler's static kernel would run the
    transposed product: exact on small integers."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # B as K x N in 128 x 160 tiles, five 32-column atoms of 64-byte
    # swizzled rows (M a multiple of 128: the policy's nMajorB160Pays): a
    # block a tile (128 tiles) and persistent (256), K tails of 16, A as
    # K x M.
    (512, 5120, 5136, "kn", "w160"), (512, 5120, 5136, "kmkn", "w160"),
    (1024, 5120, 5136, "kn", "pl160"), (1024, 5120, 5136, "kmkn", "pl160")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_n_major_160_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's 128 x 160 families for B stored K x N, taken where the
    compiler's static kernel would take that tile: exact on small
    integers."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # 200 to 261 tiles on 132 SMs (and past two an SM in tiles narrower than
    # 256 columns: 600, 380 and 388) in chunks of two K tiles or more; M, N
    # and K tails (1040 = 16 x 64 + 16), both B layouts (B as K x N: 256 and
    # 128 columns, whole atoms a half) and A as K x M.
    (200, 29600, 1040, "nk", "plh"), (328, 16960, 1040, "kn", "plh"),
    (200, 25360, 1040, "kmkn", "plh"), (520, 9200, 1040, "nk", "pl192h"),
    (328, 15520, 1040, "kmnk", "pl192h"), (1100, 4240, 1040, "nk", "pl160h"),
    (200, 16960, 1040, "kmnk", "pl160h"), (1100, 3600, 1040, "nk", "pl128h"),
    (1100, 3600, 1040, "kn", "pl128h"), (1100, 3600, 1040, "kmnk", "pl128h"),
    (1500, 6400, 1040, "kn", "pl128h"), (456, 21200, 1040, "nk", "pl224h"),
    (456, 16960, 1040, "kmnk", "pl176h")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_persistent_split_handover_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's persistent families with the split handover (the families
    ending in h; in clusters, ch: test_sm90a_clusters_exact), taken where
    the compiler's static kernel takes it (policy::splitHandoverPays: at
    most two tiles an SM, or tiles narrower than 256 columns): exact on
    small integers."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # 348, 212-220 or 157 tiles on 132 SMs: the last wave's tiles shared by runs of
    # chunks; M, N and K tails (K 4112: a chunk of 257), both B layouts, A
    # as K x M (in rows of a multiple of 8 elements, which its tensor map
    # needs), the tuned table's 128 x 128 tile. (B as K x N takes 128 x 192
    # where M is no multiple of 128: policy::nMajorB160Pays.)
    (500, 22192, 4112, "nk", "plk"), (512, 13824, 4096, "kn", "plk"),
    (512, 13824, 4096, "kmkn", "plk"), (376, 13824, 4096, "kn", "pl192k"),
    (392, 8784, 4096, "nk", "pl160k"), (392, 8784, 4096, "kmnk", "pl160k"),
    (256, 16960, 4096, "kn", "pl160k"), (256, 16960, 4096, "kmkn", "pl160k"),
    (128, 20000, 8192, "nk", "pl128k"), (104, 20000, 8192, "kmkn", "pl128k"),
    # Five whole waves and 28 tiles (runs of 1028 and 1024 of K).
    (2000, 11008, 4112, "nk", "plk"), (2048, 11008, 4096, "kmkn", "plk")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_stream_k_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's persistent families with stream-K (the families ending in
    k), taken where the last wave is short as the compiler's static kernel
    would (policy::streamKPays): exact on small integers, and bit for bit
    the same run to run and replayed from a CUDA graph (the shared tiles'
    pieces meet in block order); with f16 outer sums the family's kernel is
    a plain persistent one."""
    p, x, w, bias = _exact_on_family(m, n, k, layout, want, outer, activation)
    assert (p["sum_bytes"] > 0) == (outer == "f32"), p
    # Random normal operands: the same bits again.
    xr = torch.randn_like(x, dtype=torch.float32).half()
    wr = torch.randn_like(w, dtype=torch.float32).half()
    first = split_k_sequential(xr, wr, bias, activation=activation, outer=outer, backend="mlir")
    for _ in range(3):
        assert torch.equal(split_k_sequential(xr, wr, bias, activation=activation, outer=outer,
                                              backend="mlir"), first)
    # Captured into a CUDA graph (the graph's own workspace and flags),
    # replayed twice: the same bits.
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = split_k_sequential(xr, wr, bias, activation=activation, outer=outer, backend="mlir")
    for _ in range(2):
        out.zero_()
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, first)


@pytest.mark.parametrize("batch,m,n,k,layout,want", [
    (8, 16, 4100, 136, "nk", "m16"), (8, 64, 520, 200, "kn", "n64"),
    (8, 64, 2048, 264, "kmnk", "m64"), (8, 100, 4096, 136, "nk", "m64w"),
    (2, 1000, 2056, 264, "kn", "pl"), (8, 1024, 1000, 136, "kmkn", "pl"),
    (4, 500, 1024, 200, "nk", "mid"), (32, 512, 128, 512, "kn", "m64w"),
    (8, 64, 520, 4104, "kmkn", "n64"), (8, 4100, 128, 264, "kn", "pl128"),
    (32, 1000, 72, 520, "kmnk", "pl128"), (64, 1000, 64, 1032, "nk", "n64w"),
    (8, 1000, 40, 4104, "kmkn", "n64"), (2, 1000, 2056, 4104, "nk", "pl")])
@pytest.mark.parametrize("slices", [0, 2])
@pytest.mark.parametrize("outer", ["f32", "f16"])
def test_sm90a_batched_exact(batch, m, n, k, layout, want, slices, outer):
    """Batches of products (rank-3 operands, batch strides past the
    element) on each batched family as the policy takes it for the batch:
    exact on small integers over M, N and K tails, both B layouts and A as
    K x M, with slices asked for (a block a tile instead of persistent ones,
    two blocks an SM for the one-warpgroup tiles)."""
    from gpupoor._native import C as _C

    chips, sm_count, _, _, g = _sm90a_family_operands(m, n, k, layout)
    x = ints(batch, k + 1, m + 8, gen=g)[:, :k, :m].transpose(1, 2) \
        if layout.startswith("km") else ints(batch, m + 3, k, gen=g)[:, :m]
    w = ints(batch, n, k, gen=g).transpose(1, 2) if layout.endswith("nk") else \
        ints(batch, k, n, gen=g)
    c = torch.empty(batch, m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, None, c, "none", outer, DEFAULT_MAX_SPLITS, slices, list(chips),
                         sm_count)
    if slices:
        want = {"pl": "large", "pl128": "mid", "n64": "n64w", "m64": "m64w"}.get(want, want)
    assert p["family"] == want and p["slices"] == (slices or 1)
    y = split_k_sequential(x, w, outer=outer, slices=slices, backend="mlir")
    assert torch.equal(y.double(), ref(x, w))
