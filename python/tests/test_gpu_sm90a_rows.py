"""sm_90a's tiles for 33 to 128 rows and for more rows in one wave of 64-row
tiles on a GPU: the 64 x 32 tile of 56 to 64 rows, the 64 x 64 tile's two
f16 sums in long chunks, 64 x 128 tiles of 65 to 120 rows, the transposed
products of 33 to 128 rows, the narrow fills. Exact results on {-1, 0, 1} inputs over M, N and K tails, both B
layouts and A as K x M. Skipped off sm_90a; needs CUDA and the kernel
library."""

import pytest

from test_gpu_sm90a import _exact_on_family

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("m,n,k,layout,want", [
    # 56 to 64 rows (A as K x M: 64) on 128-byte lines (K, and N of B as K x
    # N, multiples of 64) whose 64 x 64 tiles fit one wave in one slice: 64 x
    # 32 tiles, four f16 sums a chunk (policy::kRows64Tile): M tails (56, 57,
    # 63), N tails of B as N x K (2824 = 88 x 32 + 8, 4104), every layout;
    # off those lines, and A as K x M short of 64 rows, n64. (K tails on
    # n32: test_sm90a_deferred_handover_exact.)
    (56, 2824, 576, "nk", "n32"), (57, 3008, 1280, "kn", "n32"),
    (63, 2944, 2048, "nk", "n32"), (64, 2944, 2048, "kmkn", "n32"),
    (64, 3016, 1984, "kmnk", "n32"), (64, 4104, 1024, "nk", "n32"),
    (63, 3016, 2000, "kmnk", "n64"), (64, 3000, 1280, "kn", "n64"),
    (64, 3008, 1288, "nk", "n64")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_rows_of_64_exact(m, n, k, layout, want, outer, activation):
    """The 64 x 32 tile of 56 to 64 rows (n32): exact on small integers
    over M, N and K tails, both B layouts and A as K x M, both outer types and
    an epilogue."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # The 64 x 64 tile in chunks of at least 320: two f16 sums a chunk
    # (policy::chunkSets). M tails (124, 126, 122, 121; 65 to 120 rows take
    # 64 x 128 tiles from K = 3072), N tails (2744 = 42 x 64 + 56, 3000,
    # 2696, 2632, 1000: from 2753, 65 to 128 rows off sectors run
    # transposed), K tails (5200 = 81 x 64 + 16, 6160, 5136, 8200 = 128 x 64
    # + 8), both B layouts and A as K x M, one slice and several (32 tiles x
    # 4, 42 x 3), two blocks an SM (20 tiles x 13).
    (124, 2744, 5200, "nk", "n64s"), (128, 3000, 6160, "kn", "n64s"),
    (126, 2696, 5136, "kmkn", "n64s"), (122, 2632, 5136, "kmnk", "n64s"),
    (128, 1000, 5200, "nk", "n64s"), (121, 1288, 8200, "kmkn", "n64s"),
    (40, 1280, 5120, "kn", "n64sw")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_long_chunks_exact(m, n, k, layout, want, outer, activation):
    """The 64 x 64 tile's two f16 sums a chunk (n64s, n64sw): exact on
    small integers over M, N and K tails, both B layouts and A as K x M,
    slices, both outer types and an epilogue."""
    p, *_ = _exact_on_family(m, n, k, layout, want, outer, activation)
    assert p["sets"] == 2, p


@pytest.mark.parametrize("m,n,k,layout,want", [
    # 65 to 120 rows from K = 3072: 64 x 128 tiles where 64 x 64 ones would
    # fit one wave (the policy's rowsTakeWiderTile), in clusters of two where
    # K's rows lie off 32-byte sectors (m64c; from K = 4096 such products
    # run transposed). M tails (100, 72, 78, 113), N tails (4040, 4104, 1288,
    # 1944, 3688), K tails, both B layouts and A as K x M, slices (22 tiles x
    # 6, 32 x 4).
    (100, 4040, 3848, "nk", "m64c"), (72, 4104, 3592, "kmkn", "m64c"),
    (100, 1288, 8200, "kmkn", "m64"), (78, 1944, 5840, "kn", "m64"),
    (113, 3688, 3848, "kmnk", "m64c")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_rows_of_65_to_120_exact(m, n, k, layout, want, outer, activation):
    """The 64 x 128 tile of 65 to 120 rows from K = 3072: exact on small
    integers over M, N and K tails, both B layouts and A as K x M, slices,
    both outer types and an epilogue."""
    _exact_on_family(m, n, k, layout, want, outer, activation)


@pytest.mark.parametrize("m,n,k,layout,want", [
    # 65 to 128 rows from K = 4096 whose transposed product's 64-row tiles
    # fill a third of the SMs to 30 clusters of four (the policy's
    # swappedRowsTile): the transposed product in 64 x 128 tiles (all of A's
    # rows along wgmma's N), clusters of four sharing A's tile, persistent,
    # C^T stored in column vectors. M tails (124, 126, 122, 100, 72, 113, 78,
    # 65: A's rows short of the tile's 128 columns), the transposed
    # product's M tails (4040 = 63 x 64 + 8: 64 row tiles; 2888, 4104, 3688,
    # 3120; 7680: 120 tiles, 30 whole clusters), K tails (5200 = 81 x 64 + 16,
    # 5136, 5848, 4104, 4100 off 16 bytes: copied into padded rows), both B
    # layouts and A as K x M.
    (124, 4040, 5200, "nk", "x64n128q"), (126, 4104, 5136, "kmkn", "x64n128q"),
    (122, 2888, 5136, "kmnk", "x64n128q"), (100, 4040, 5200, "nk", "x64n128q"),
    (72, 4104, 5136, "kmkn", "x64n128q"), (113, 3688, 5848, "kmnk", "x64n128q"),
    (78, 3120, 4104, "kn", "x64n128q"), (65, 7680, 4096, "kn", "x64n128q"),
    (127, 2824, 4100, "nk", "x64n128q")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_swapped_rows_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's transposed product of 65 to 128 rows in 64 x 128 tiles and
    persistent clusters of four, its C^T stored by column vectors, taken as
    the compiler's static kernel would: exact on small integers."""
    p, *_ = _exact_on_family(m, n, k, layout, want, outer, activation)
    assert p["swapped"] and p["slices"] == 1, p


@pytest.mark.parametrize("m,n,k,layout,want", [
    # 33 to 64 rows from K = 2048 whose transposed product's 64-row tiles
    # fill half the SMs to 30 clusters of four (the policy's
    # swappedFewRowsTile): the transposed product in 64 x 64 tiles (all of
    # A's rows along wgmma's N), clusters of four sharing A's tile, one f16
    # sum a chunk, two in chunks of 320 or more (x64sq), C^T stored in column
    # vectors. M tails (46, 33, 57, 63, 48, 40: A's rows short of the tile's
    # 64 columns; 64), the transposed product's M tails (4168 = 65 x 64 + 8:
    # 66 row tiles; 5000, 6776, 4232, 7128; with B stored K x N from a third
    # of the SMs, 2760: 44, and 3000; 7680: 120 tiles, 30 whole
    # clusters), K tails (5200 = 81 x 64 + 16, 5136, 2056, 12040, 4100 off 16
    # bytes: copied into padded rows), every layout.
    (46, 4168, 5200, "nk", "x64sq"), (33, 7680, 2048, "kn", "x64q"),
    (64, 5000, 4100, "kmkn", "x64q"), (57, 6776, 5136, "kmnk", "x64sq"),
    (63, 4232, 5200, "kmkn", "x64sq"), (48, 5120, 2056, "kn", "x64q"),
    (40, 7128, 12040, "kn", "x64sq"), (45, 2760, 5136, "kmkn", "x64sq"),
    (38, 3000, 3000, "kn", "x64q")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_swapped_few_rows_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's transposed product of 33 to 64 rows in 64 x 64 tiles and
    clusters of four, its C^T stored by column vectors, taken as the
    compiler's static kernel would: exact on small integers."""
    p, *_ = _exact_on_family(m, n, k, layout, want, outer, activation)
    assert p["swapped"] and p["slices"] == 1, p
    assert p["sets"] == (2 if want == "x64sq" else 1), p


@pytest.mark.parametrize("m,n,k,layout,want", [
    # 512 rows or more whose 128 x 128 tiles fit one wave, rows on 32-byte
    # sectors: those tiles, not the one-warpgroup filling tiles (the
    # policy's kOneWarpgroupFillingMaxM). M tails (1098 = 8 x 128 + 74, 2423,
    # 1771), N tails (1104, 1424, 400, 688), K tails (6704 = 104 x 64 + 48,
    # 3568), every layout.
    (1098, 1104, 6704, "kn", "mid"), (688, 1424, 8112, "kmkn", "mid"),
    (2423, 400, 3568, "nk", "mid"), (1771, 688, 8288, "kmnk", "mid")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_mid_over_filling_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's 128 x 128 tiles of one wave kept over the 64-row filling
    tiles from 512 rows, as the compiler's static kernel would: exact on
    small integers."""
    p, *_ = _exact_on_family(m, n, k, layout, want, outer, activation)
    assert not p["swapped"] and p["slices"] == 1, p


@pytest.mark.parametrize("m,n,k,layout,want", [
    # More than 128 rows whose 64 x 128 tiles fill from a third of the SMs to
    # one wave, K from 6144, rows on 32-byte sectors (the policy's
    # slicedMidTilePays): 128 x 128 tiles in floor(SMs / tiles) slices. M
    # tails (341 = 2 x 128 + 85, 1847, 1704), N tails (1936 = 15 x 128 + 16,
    # 336, 144: one tile of 128 and one of 16), K tails (6160 = 96 x 64 + 16,
    # 13040), 2 to 5 slices, every layout.
    (341, 1936, 6144, "nk", "mid"), (1847, 336, 6160, "kn", "mid"),
    (224, 1456, 13040, "kmkn", "mid"), (304, 1312, 8192, "kmnk", "mid"),
    (1704, 144, 6160, "kn", "mid")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_sliced_mid_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's 128 x 128 tiles in slices taken over one slice of 64 x 128
    tiles for a long K, as the compiler's static kernel would: exact on small
    integers."""
    p, *_ = _exact_on_family(m, n, k, layout, want, outer, activation)
    assert not p["swapped"] and p["slices"] > 1, p


@pytest.mark.parametrize("m,n,k,layout,want", [
    # More than 128 rows whose 128 x 256 tiles fill under half the SMs, in
    # one wave of 64 x 64 tiles at K <= 2048 (the policy's narrowFills): M
    # tails (552 = 8 x 64 + 40, 272 = 4 x 64 + 16), N tails (1960 = 30 x 64 +
    # 40, 784, 618), K tails (560, 632, 1277), both B layouts, A as K x M, and
    # operands copied into padded rows (618 and 1277: no multiples of 8).
    (192, 1960, 560, "nk", "n64"), (552, 784, 632, "kn", "n64"),
    (552, 784, 632, "kmkn", "n64"), (272, 618, 1277, "nk", "n64"),
    (272, 618, 1277, "kn", "n64"),
    # Past it, one wave of 64 x 96 tiles (4 x 24 = 96, 3 x 31 = 93; rows on
    # 32-byte sectors: the policy's ninetySixFills): M tails (200 = 3 x 64 +
    # 8, 136 = 2 x 64 + 8), N tails (2240 = 23 x 96 + 32, 2944 = 30 x 96 +
    # 64), K tails (608 = 9 x 64 + 32, 2000 = 31 x 64 + 16), both B layouts
    # (K x N in three 32-column atoms) and A as K x M.
    (200, 2240, 608, "nk", "m64n96"), (200, 2240, 608, "kn", "m64n96"),
    (200, 2240, 608, "kmnk", "m64n96"), (200, 2240, 608, "kmkn", "m64n96"),
    (136, 2944, 2000, "nk", "m64n96")])
@pytest.mark.parametrize("outer", ["f32", "f16"])
@pytest.mark.parametrize("activation", [None, "relu"])
def test_sm90a_narrow_fill_exact(m, n, k, layout, want, outer, activation):
    """sm_90a's 64 x 64 and 64 x 96 families taken over 64 x 128 for more
    than 128 rows where their tiles fit one wave and K is short, as the
    compiler's static kernel would: exact on small integers."""
    _exact_on_family(m, n, k, layout, want, outer, activation)
