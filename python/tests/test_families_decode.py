"""The policy's choices for decode products (M <= 16) as the package sees
them: sm_90's mma.sync tiles over the swapped one for B stored K x N, and
the launch of the swapped tile's element kernels."""

from gpupoor._native import C

from policy_choice import family as _family


def test_decode_of_b_as_k_by_n_on_mma_tiles():
    """Decode products of B stored K x N on sm_90's mma.sync tiles over the
    swapped one (wideDecodeTileFits, kMmaDecodeKNRows, kMmaDecodeKNMinK)."""
    # B as K x N: up to 8 rows (kWideSwappedKNRows), not 16.
    assert _family(4, 28672, k=8192, b="kn") == "m16n256"
    assert _family(8, 32000, b="kn") == "m16n256"   # 125
    assert _family(16, 28672, k=8192, b="kn") == "m16"
    # 8 to 16 rows of B as K x N (kMmaDecodeKNRows): the 16 x 128 tile
    # where its tiles take one slice (from 89 tiles), else swapped.
    assert _family(8, 13824, k=5120, b="kn") == "m16"   # 108 tiles
    assert _family(16, 11392, b="kn") == "m16"          # 89
    assert _family(16, 11264, b="kn") == "s16w"         # 88: three slices
    assert _family(8, 11008, b="kn") == "s16w"          # 86: three
    assert _family(7, 13824, k=5120, b="kn") == "s16w"
    assert _family(8, 13824, k=5120) == "s16w"          # B as N x K
    assert _family(8, 13824, k=5120, b="kn", a="km") == "s8wc"
    # Below K = 2048 (kMmaDecodeKNMinK: the swapped tile's four sums a chunk
    # keep the error down) swapped, the 16 x 256 tile too.
    assert _family(8, 14336, k=1024, b="kn") == "s16w"
    assert _family(8, 14336, k=2048, b="kn") == "m16"
    assert _family(4, 28672, k=1920, b="kn") == "s16w"
    assert _family(4, 28672, k=2048, b="kn") == "m16n256"
    # The 16 x 256 tile's bounds with B as K x N (99 to 132 tiles), and 9
    # rows (the 16 x 128 tile, one slice) where it fits.
    assert _family(4, 25088, b="kn") == "s16w"      # 98
    assert _family(4, 25344, b="kn") == "m16n256"   # 99
    assert _family(4, 33792, b="kn") == "m16n256"   # 132
    assert _family(4, 33856, b="kn") == "s16w"      # 133
    assert _family(9, 28672, k=8192, b="kn") == "m16"
    assert _family(8, 11264, b="kn") == "s16w"      # 88 tiles of 16 x 128
    assert _family(8, 11392, b="kn") == "m16"       # 89


def test_decode_element_reads_fill_the_sms():
    """The swapped decode tile's element kernels (an operand's rows off 16
    bytes, element_reads): two blocks an SM from a third of the SMs' worth
    of tiles (44 on 132), in as many slices as fill two blocks an SM in one
    wave (264 // tiles) up to the SMs' worth (132), three past it while
    they fill two such waves (176 tiles), the rule's one slice past that;
    fewer tiles keep the rules' launch, and so do aligned operands, slices
    asked for and A as K x M."""
    def launch(m, n, k=4096, b="nk", slices=0, a="mk", element_reads=True):
        r = C.choose_launch("sm_90a", m, n, k, b, slices, 32, 132, a, tuned=False,
                            element_reads=element_reads)
        return r["family"], r["slices"]
    assert launch(1, 64 * 44) == ("s16w", 6) and launch(1, 64 * 43) == ("s16", 3)
    assert launch(1, 64 * 64) == ("s16w", 4) and launch(4, 64 * 80) == ("s16w", 3)
    assert launch(16, 64 * 132) == ("s16w", 2) and launch(16, 64 * 133) == ("s16w", 3)
    assert launch(1, 64 * 176) == ("s16w", 3) and launch(1, 64 * 177) == ("s16w", 1)
    assert launch(1, 9218, b="kn") == ("s16w", 3)
    assert launch(1, 64 * 64, k=1024) == ("s16w", 4)
    assert launch(1, 4100, b="kn") == ("s16w", 4)
    assert launch(1, 4096, element_reads=False) == ("s16", 1)
    assert launch(1, 4096, slices=3) == ("s16w", 3)
    assert launch(16, 4096, a="km")[0] == "s16q"
    assert launch(1, 17000) == ("s16w", 1)          # two an SM past the SMs anyway
