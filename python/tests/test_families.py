"""The policy's choices as the package sees them (gpupoor._C, the
compiler's policy library): the split and slice rules, the kernel families
each chip's library holds, which family a product takes by the rules, and
the tuned table's rows."""

import functools
import itertools

import pytest

from gpupoor._native import C
from gpupoor.variants import (PERSISTENT_TILES, SM90A_TILES, SWAPPED_TILES, TILES, VariantKey,
                              library_variants)

from policy_choice import family as _family


def test_one_default_max_k_splits():
    """The default max_k_splits is the policy's (policy::kDefaultMaxSplits)
    wherever a caller meets it: the Python functions, the module, the
    operator's schema; the numpy model's (test/Numerics) is the same, and
    with it the compiler's (test/Policy runs gpupoor-split-k without
    max-splits against the model). The library's variants are built for
    gpu_poor's 32 and take S from the launch."""
    import inspect
    import sys
    from pathlib import Path

    import torch

    import gpupoor
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "Numerics"))
    import split_k_model as model
    default = C.DEFAULT_MAX_SPLITS
    assert default == model.DEFAULT_MAX_SPLITS
    assert inspect.signature(gpupoor.split_k_sequential).parameters["max_k_splits"].default == default
    assert inspect.signature(gpupoor.LowPrecisionLinear).parameters["max_k_splits"].default == default
    schema = torch.ops.gpupoor.split_k_matmul.default._schema
    assert next(a for a in schema.arguments if a.name == "max_k_splits").default_value == default
    assert VariantKey().max_splits == C.LIBRARY_MAX_SPLITS == 32


def test_split_rules_match_the_compilers_model():
    """The policy the package calls (gpupoor._C) against the numpy model of
    the rules, an independent oracle."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "Numerics"))
    import split_k_model as model
    for k in (1, 31, 32, 33, 1000, 4096, 14336, 100000):
        for ms in (1, 3, 32, 65535):
            assert C.default_splits(k, ms) == model.default_splits(k, ms)
    for chip, tile in (("sm_90a", [64, 16, 64]), ("sm_90a", [128, 256, 64]),
                       ("sm_90a", [32, 16, 256]), ("sm_90", [16, 128, 64]),
                       ("sm_80", [128, 128, 32]), ("sm_90", [256, 128, 64])):
        blocks = model.slice_blocks_per_sm(chip, tile[:2])
        share = model.slice_one_share(chip, tile[:2])
        for tiles in (1, 5, 33, 66, 132, 133, 1000):
            for s in (1, 4, 16, 70000):
                for k in (1024, 2047, 2048, 4096, 16383, 16384, 28672):
                    want = model.num_slices(0, tiles, s, 132, blocks, share, k)
                    if model.short_k_one_slice(chip, k):
                        want = 1
                    assert C.launch_slices(0, chip, tile, k, tiles, s, 132) == want
                    assert C.launch_slices(3, chip, tile, k, tiles, s, 132) == min(3, s)


def test_policy_arguments_are_checked():
    with pytest.raises(ValueError, match="chip"):
        C.choose_launch("sm_99", 1, 1, 1, "nk", 0, 32, 132)
    with pytest.raises(ValueError, match="b_layout"):
        C.choose_launch("sm_90a", 1, 1, 1, "mn", 0, 32, 132)
    with pytest.raises(ValueError, match="m must be >= 1"):
        C.choose_launch("sm_90a", 0, 1, 1, "nk", 0, 32, 132)
    # Operands past 2^48 elements (whose counts would overflow: a SIGFPE
    # before), C's or a batch's; 2^48 itself is taken.
    with pytest.raises(ValueError, match="2\\^48"):
        C.choose_launch("sm_90a", 2**40, 2**40, 64, "nk", 0, 32, 132)
    with pytest.raises(ValueError, match="2\\^48"):
        C.choose_launch("sm_90a", 2**24, 64, 2**24 + 1, "kn", 0, 32, 132)
    with pytest.raises(ValueError, match="2\\^48"):
        C.choose_launch("sm_90a", 2**16, 2**16, 64, "nk", 0, 32, 132, batch=2**16 + 1)
    assert C.choose_launch("sm_90a", 2**24, 2**24, 64, "nk", 0, 32, 132)["tiles"] > 0
    with pytest.raises(ValueError, match="tile"):
        C.launch_slices(0, "sm_90a", [64, 16], 1, 1, 1, 132)
    with pytest.raises(ValueError, match="family"):
        C.family_tile("huge", "sm_90a", "nk")
    with pytest.raises(ValueError, match="together"):
        C.violation({"max_size": 10}, [128, 128, 32], 8, 0, {"M": 1}, 1)
    # A parameter the launcher does not pass is its bug, said as such.
    assert C.violation({"unit_stride": ["stride_ak"]}, [128, 128, 32], 8, 0, {"M": 1}, 1) == \
        "the launcher passes no stride_ak"
    assert C.launch_grid(500, 1, True, 132) == (132, 1)
    assert C.launch_grid(500, 3, False, 132) == (500, 3)
    assert C.launch_grid(500, 1, True, 133, 2) == (132, 1)
    # Fewer SMs than a cluster's blocks: one cluster (whose launch the
    # driver refuses), never a grid of no blocks that leaves C unwritten.
    assert C.launch_grid(500, 1, True, 3, 4) == (4, 1)
    assert C.launch_grid(500, 1, True, 1, 2) == (2, 1)
    with pytest.raises(ValueError, match="cluster_m"):
        C.launch_grid(500, 1, True, 132, 3)


def test_families_are_the_policys():
    """variants.py names the policy's families and compiles each with the
    policy's tile (none: the compiler's dynamic choice, large)."""
    assert TILES == tuple(C.FAMILIES)
    for family in TILES:
        # (s8*, s16q, s16wc, s16c, s32q, s32wc and s32c are built for A as K x M
        # only.)
        a = "mk" if C.family_info(family)["mk"] else "km"
        for chip in ("sm_80", "sm_90a"):
            for b in ("kn", "nk"):
                builds = VariantKey(b_layout=b, tile=family, a_layout=a).builds_for(chip)
                assert C.family_builds(family, chip, b, a) == builds
                if not builds:
                    continue
                tile = C.family_tile(family, chip, b)
                options = VariantKey(b_layout=b, tile=family, a_layout=a).pipeline_options(chip)
                if family == "large":
                    assert "tile=" not in options
                else:
                    assert f"tile={','.join(map(str, tile))}" in options, (family, options)
    launch = C.choose_launch("sm_90a", 4096, 4096, 4096, "nk", 0, 32, 132, tuned=False)
    assert PERSISTENT_TILES == ("pl", "pl192", "pl160", "pl128", "pl128c", "plc", "pl192c",
                                "pl160c", "plk", "pl192k", "pl160k", "pl128k", "pl176",
                                "pl224", "pl176c", "pl224c", "pl176k", "pl224k", "plh",
                                "pl192h", "pl160h", "pl128h", "pl176h", "pl224h", "plch",
                                "pl192ch", "pl160ch", "pl128ch", "pl176ch", "pl224ch", "m64q",
                                "plt192", "x64n128q")
    assert launch["family"] == "pl" and launch["grid"] == (132, 1)
    assert all("persistent=true" in VariantKey(b_layout="nk", tile=f).pipeline_options("sm_90a")
               for f in PERSISTENT_TILES)
    assert "stages=4" in VariantKey(tile="m16").pipeline_options("sm_80")
    # The split handover: sm_90a's two-warpgroup families a block a tile
    # (their kernels take it where B's tile halves allow) and the
    # persistent ones ending in h, not the other persistent ones nor other
    # chips.
    for family in TILES:
        a = "mk" if C.family_info(family)["mk"] else "km"
        options = VariantKey(b_layout="nk", tile=family,
                             a_layout=a).pipeline_options("sm_90a").split()
        assert ("split-handover=true" in options) == (
            family in ("large", "mid", "w192", "w160", "largec", "midc", "w192c", "w160c",
                       "w176", "w224", "w176c", "w224c", "x128", "x128c")
            or family.endswith("h")), family
        # Clusters of two: the families ending in c (and ch), on sm_90a; of four:
        # s16q, s32q and s8q; stream-K the persistent ones ending in k.
        assert ("cluster-m=2" in options) == family.endswith(("c", "ch")), family
        assert ("cluster-m=4" in options) == family.endswith("q"), family
        stream_k = family in ("plk", "pl192k", "pl160k", "pl128k", "pl176k", "pl224k")
        assert ("stream-k=true" in options) == stream_k, family
        assert C.family_config(family, "sm_90a")["stream_k"] == stream_k, family
        assert C.family_config(family, "sm_80")["cluster_m"] == (
            2 if family.endswith(("c", "ch")) else 4 if family.endswith("q") else 1)
        assert C.family_config(family, "sm_80")["split_handover"] is False
    assert "split-handover" not in VariantKey(tile="large").pipeline_options("sm_80")


def test_sm90a_families_only_for_sm90a():
    # (The batched variants: test_batched_products_take_batched_families.)
    keys = [k for k in library_variants() if not k.batched]
    # 32 variants of each of large, m16, m64, n64, mid, s16, s16w, s16e, s16we, s32, s32w,
    # pl, w192,
    # pl192, w160, pl160, pl128, m32, m32w, m64w, n64w, n32, n32w, n64s, n64sw, the cluster
    # families m64c,
    # midc, pl128c, largec, plc, w192c, pl192c, w160c, pl160c, m64q, the stream-K ones plk,
    # pl192k, pl160k, pl128k, the split-handover ones plh, pl128h, plch, pl128ch,
    # the filling m64n192, m64n256, m192n96, the 64 x 96 m64n96, the narrow
    # n16, n16w, the transposed product's x96q, x128, x128c and x64n128q and the
    # three-warpgroup t192, plt192 (both B layouts),
    # 16 nk variants of each of m64n160 (64 x 160 tiles of B as K x N lost to 64
    # x 192) and of the 128-row tiles of 176
    # and 224 columns (176: no whole atoms of B as K x N; 224: seven 32-column
    # atoms, which lost: w176, pl176, w176c,
    # pl176c, pl176k, w224, pl224, w224c, pl224c, pl224k, and the split handover's
    # 128 x 192 and 128 x 160 tiles, whose halves are no whole atoms either:
    # pl192h, pl160h, pl176h, pl224h and their cluster twins ending in ch);
    # for A as K x M again those of
    # every family but m16, m16n256 (mma.sync kernels, which read A through its
    # strides), m32 and m32w (the 32-row tile's A atoms), the swapped ones
    # included (their B, A as K x N), on sm_90a only.
    nk_only = {"m64n160", "w176", "pl176", "w176c", "pl176c", "w224", "pl224",
               "w224c", "pl224c", "pl176k", "pl224k", "pl192h", "pl160h", "pl176h", "pl224h",
               "pl192ch", "pl160ch", "pl176ch", "pl224ch"}
    no_km = {"m16", "m16n256", "m32", "m32w"}
    # 16 kn variants of the narrow tile's clusters (n16q, n16c, n16wc: a
    # narrow B stored K x N is what they share), for either A layout, and
    # of m16n256 (a weight stored N x K runs swapped), A as M x K.
    kn_only = {"n16q", "n16c", "n16wc", "m16n256"}
    assert not set(SWAPPED_TILES) & no_km
    # The swapped decode tile's eight-sum families, for an A stored K x M
    # that is copied M x K first: A as M x K only.
    copied_only = {"s16e", "s16we"}
    assert copied_only < set(SWAPPED_TILES)
    per_a = 2 * 2 * 4 * 2 * 57 + 2 * 4 * 2 * (len(nk_only) + len(kn_only))
    km = [k for k in keys if k.a_layout == "km"]
    assert len(keys) == per_a + len(km)
    with pytest.raises(ValueError, match="A as M x K"):
        VariantKey(tile="s16q")
    # (s8*, s16q, s16wc, s16c, s32q, s32wc and s32c: A as K x M only.)
    assert len(km) == 2 * 2 * 4 * 2 * 63 + 2 * 4 * 2 * (len(nk_only - no_km) +
                                                        len(kn_only - no_km))
    assert {k.tile for k in km} == set(TILES) - no_km - copied_only
    assert nk_only < set(SM90A_TILES)
    km_only = {"s16q", "s16wc", "s16c", "s32q", "s32wc", "s32c", "s8", "s8w", "s8q", "s8wc",
               "s8c"}
    for family in SM90A_TILES:
        a = "km" if family in km_only else "mk"
        fam = [k for k in keys if k.tile == family and k.a_layout == a]
        assert len(fam) == (16 if family in nk_only | kn_only else 32)
        assert all(k.b_layout == "nk" for k in fam) == (family in nk_only)
        assert all(k.b_layout == "kn" for k in fam) == (family in kn_only)
        assert all(k.builds_for("sm_90a") for k in fam)
        assert VariantKey(b_layout="kn", tile=family, a_layout=a).builds_for("sm_90a") == \
            (family not in nk_only)
        assert VariantKey(b_layout="nk", tile=family, a_layout=a).builds_for("sm_90a") == \
            (family not in kn_only)
        assert not any(k.builds_for(chip) for k in fam
                       for chip in ("sm_80", "sm_86", "sm_89", "sm_90"))
    assert all(k.builds_for("sm_80") for k in keys
               if k.tile not in SM90A_TILES and k.a_layout == "mk")
    assert all(k.builds_for("sm_90a") and not k.builds_for("sm_90") for k in km)
    with pytest.raises(ValueError, match="A as K x M"):
        VariantKey(tile="m32", a_layout="km")
    # Names: A as K x M prefixes B's layout, and round-trips.
    key = VariantKey("kn", "f32", "bias_gelu", "f16", "mid", 32, "km")
    assert key.name == "kmkn_f32_bias_gelu_f16_mid_s32"
    assert VariantKey.from_name(key.name) == key
    assert VariantKey.from_name("kn_f32_none_f16_s16_s32").a_layout == "mk"
    assert "tile=64,16,128" in VariantKey(b_layout="nk", tile="s16").pipeline_options("sm_90a")
    assert "blocks-per-sm=2" in VariantKey(b_layout="nk", tile="s16w").pipeline_options("sm_90a")
    # Persistent blocks take one K slice.
    pl = VariantKey(b_layout="nk", tile="pl").pipeline_options("sm_90a").split()
    assert "persistent=true" in pl and "slices=1" in pl and "slices=0" not in pl
    assert "tile=128,256,64" in pl
    assert "slices=0" in VariantKey(b_layout="nk").pipeline_options("sm_90a").split()


def test_families_where_they_fit_one_wave():
    """The policy's static choices at run time, on an H100's 132 SMs: the
    one-warpgroup tiles for M <= 128 (n64 where its tiles fit one wave, n32
    for 56 to 64 rows there, A as K x M 64)."""
    assert _family(64, 4096) == "n32"       # 64 tiles of 64 x 64: 128 of 64 x 32
    assert _family(56, 4096) == "n32" and _family(55, 4096) == "n64"  # kRows64MinRows
    assert _family(33, 4096) == "n64"
    assert _family(64, 4096, a="km") == "n32" and _family(63, 4096, a="km") == "n64"
    # Off 128-byte lines (policy's rowsOnLines): K, or N of B as K x N.
    assert _family(64, 4096, k=4000) == "n64" and _family(64, 4000) == "n32"
    assert _family(64, 4000, b="kn") == "n64"
    assert _family(32, 4096, a="km") != "n32"    # 32 rows: the swapped tiles
    assert _family(64, 2816) == "n32" and _family(64, 2752) == "n64"  # 43 tiles: slices
    assert _family(64, 4224) == "n32"       # 132 tiles
    assert _family(64, 4288) == "n64"       # 134 tiles
    assert _family(64, 4288, b="kn") == "x64q"   # past them, the transposed product
    assert _family(72, 4096, k=3072) == "m64"    # 65 to 120 rows from K = 3072: 64 x 128
    assert _family(72, 4096, k=3064) == "n64"    # 128 tiles
    assert _family(120, 4096, k=3072) == "m64" and _family(121, 4096, k=3072) == "n64"
    assert _family(72, 4096, k=3072, b="kn", a="km") == "m64"
    assert _family(128, 4096) == "n64"      # 128 tiles
    assert _family(128, 4224) == "n64"      # 2 x 66 = 132
    assert _family(128, 4288) == "m64"      # 2 x 67 > 132
    assert _family(64, 14336) == "m64"      # 112 tiles
    assert _family(64, 16896) == "m64"      # 132
    assert _family(64, 17000) == "m64w"     # 133: two blocks an SM
    assert _family(64, 17000, chip="sm_90") == "m64"  # mma.sync: no such variant
    assert _family(40, 1280, b="kn") == "n64w"   # 20 tiles x 13 slices: two an SM
    assert _family(40, 4360, b="kn", k=2040) == "n64"   # 137 tiles of 64 x 32: 64 x 64
    assert _family(40, 4360, b="kn") == "x64q"   # from K = 2048 transposed
    assert _family(17, 1280, b="kn") == "m32w"
    assert _family(16, 1280) == "s16w"           # 20 swapped tiles x 13 slices
    assert _family(64, 4096, chip="sm_90") == "m64"   # mma.sync library
    # B as K x N: the same wgmma tiles (N-major B).
    assert _family(64, 4096, b="kn") == "n32"
    assert _family(128, 4096, b="kn") == "n64"
    assert _family(64, 14336, b="kn") == "m64"
    assert _family(64, 17000, b="kn") == "m64w"
    assert _family(64, 17000, a="km") == "m64w"
    assert _family(33, 4096, chip="sm_80") == "m64"   # 32-row tiles: the 64-row family
    # sm_90a, 17 to 32 rows, B as N x K: the 32-row wgmma tile (kThinTile).
    assert _family(32, 5120) == "m32"
    assert _family(17, 8192) == "m32"
    assert _family(32, 8448) == "m32"       # 132 tiles
    assert _family(32, 8512) == "m32w"      # 133: two blocks an SM
    assert _family(33, 5120, k=2040) == "n64"   # 160 tiles of 64 x 32: 64 x 64
    assert _family(32, 5120, b="kn") == "m32"
    assert _family(32, 5120, a="km") == "s32q"   # swapped: A as its B as K x N
    assert _family(200, 4096, chip="sm_80") == "large"


def test_transposed_product_of_65_to_128_rows():
    """65 to 128 rows from K = 4096 whose transposed product's 64-row tiles
    number from a third of the SMs (44 of 132) to 30 clusters of four, A's
    rows off 32-byte sectors: the transposed product in 64 x 128 tiles,
    persistent clusters of four sharing A's tile (policy::swappedRowsTile),
    in one slice."""
    for b, a in (("nk", "mk"), ("kn", "mk"), ("kn", "km")):
        assert _family(100, 4096, b=b, a=a) == "x64n128q"
    launch = C.choose_launch("sm_90a", 100, 4096, 4096, "nk", 0, 32, 132, tuned=False)
    assert launch["swapped"] and launch["slices"] == 1
    assert (launch["tiles"], launch["grid"]) == (64, (64, 1))
    assert _family(65, 4096) == "x64n128q" and _family(64, 4096) == "n32"
    assert _family(127, 4096) == "x64n128q"
    assert _family(128, 4096) == "n64"         # rows on sectors: no persistent clusters
    assert _family(96, 4096) == "m64"          # the same
    assert _family(100, 4096, k=4088) == "m64c"    # K under 4096
    assert _family(100, 2816) == "x64n128q" and _family(100, 2752) == "m64"  # 44 | 43 tiles
    assert _family(100, 7680) == "x64n128q" and _family(100, 7688) == "m64c"  # 30 | 31 clusters
    assert _family(100, 4100) == "m64c"        # C's rows off 16 bytes
    assert _family(100, 4096, slices=2) == "m64"   # slices asked
    assert _family(100, 4096, sms=114) == "m64"    # another part
    assert _family(100, 4096, chip="sm_90") == "m64"   # no wgmma kernel
    assert C.choose_launch("sm_90a", 100, 4096, 4096, "nk", 0, 32, 132)["family"] == "x64n128q"


def test_three_warpgroup_tile_as_the_compiler_chooses_it():
    """One wave of 192 x 96 tiles in one slice with K >= 1536
    (kThreeWarpgroupTile): 8 x 16 = 128 against 96 of 128 x 192 (120 of
    128 x 160 for B as N x K); not at K = 1024, nor in two slices."""
    for b, a in (("nk", "mk"), ("kn", "mk"), ("kn", "km")):
        assert _family(1536, 1536, k=1536, b=b, a=a) == "m192n96"
        assert _family(1100, 2048, k=2048, b=b, a=a) == "m192n96"  # 6 x 22 = 132
    assert _family(2200, 1024, k=1024, b="kn") == "w192"
    assert _family(1536, 1536, k=1536, slices=2) == "w160"   # slices asked for
    assert _family(192, 6144, k=12288, b="kn") == "m64n192"   # 192 x 96 in two slices
    assert _family(192, 12288, k=4096) == "w192"             # one row tile
    assert _family(1536, 1536, k=1536, chip="sm_90") == "large"


def test_mid_and_swapped_tiles_as_the_compiler_chooses_them():
    """gpupoor-split-k's choices (oneWaveMidTile, wideTile,
    selectSwappedTile, persistent=auto) mapped onto the families."""
    assert _family(512, 4096) == "mid"              # 64 wide, 128 mid tiles
    assert _family(512, 4096 + 128) == "mid"        # 128 x 128 tiles: one wave (wideTile)
    # 512 tiles of 128 x 224 in four waves (896 of 128 x 128 take seven):
    # persistent, with the split handover (narrower than 256 columns:
    # policy::splitHandoverPays).
    assert _family(1024, 14336) == "pl224h"
    assert _family(1024, 14336, slices=2) == "w224"  # slices: not persistent
    assert _family(256, 1024) == "m64"              # few wide tiles, short slices: 64 x 128
    # 80 mid tiles, or 40 wide ones in three slices of 4608 >= 4096 of K
    # where the slices are named; chosen, the filling 64 x 160 tile (128
    # of all of K), whose wave costs less than the slices' meeting.
    assert _family(256, 5120, k=13824, slices=3) == "large"
    assert _family(256, 5120, k=13824) == "m64n160"
    # 128 rows whose 128 x 128 tiles fill one wave: filling tiles too.
    assert _family(128, 10240, k=8192) == "m64n160"
    assert _family(128, 10240, k=8192, b="kn") == "m64n192"
    # ... from K = 3072 on, persistent up to it (oneWavePersistentPays),
    # with the split handover.
    assert _family(128, 11008, k=2048) == "pl128h"
    # Slices of 1706: the rules' mid tile, which the filling 64 x 160 one
    # (4 x 32 = 128 tiles, one wave) takes over where the slices are chosen.
    assert _family(256, 5120, k=5120, slices=1) == "mid"
    assert _family(256, 5120, k=5120) == "m64n160"
    assert _family(256, 5120, k=5120, b="kn") == "m64n192"  # 64 x 160 of K x N lost
    # B as K x N takes 128 x 160 (five 32-column atoms) where M fills its row
    # tiles (policy's nMajorB160Pays), 128 x 192 where the last is partial.
    for a in ("mk", "km"):
        assert _family(256, 10240, k=8192, b="kn", a=a) == "w160"   # 2 x 64 = 128 tiles
        assert _family(1024, 5120, k=5120, b="kn", a=a) == "pl160"  # 8 x 32 = 256
        assert _family(320, 6912, k=5120, b="kn", a=a) == "w192"    # 3 x 36 = 108
    assert _family(256, 5120, k=5120, a="km") == "m64n160"
    assert _family(192, 10240, k=8192) == "m64n256"         # 3 x 40 = 120 tiles
    assert _family(256, 5112, k=5120) == "midc"             # off sectors: clusters
    # Past one wave: B as N x K in 4 x 63 = 252 tiles of 128 x 176 (two
    # waves nearly full), 4 x 62 = 248 of 128 x 224 (wideTile); at
    # most two tiles an SM and K of at least two tiles a chunk, with the
    # split handover (policy::splitHandoverPays), as the compiler's static
    # kernel: not where a chunk has one K tile (K = 64 or 128: 2 chunks).
    # Tiles narrower than 256 columns take it on any grid; those of 256
    # up to two tiles an SM.
    assert _family(512, 11008) == "pl176h"
    assert _family(512, 13824) == "pl224h"
    assert _family(512, 13824, k=128) == "pl224"
    assert _family(1024, 13824) == "pl224h"         # 8 x 62 = 496 tiles
    assert _family(256, 28672, k=8192) == "pl224h"  # 2 x 128 = 256
    assert _family(2048, 4096) == "plh"             # 16 x 16 = 256
    assert _family(4096, 4096) == "pl"              # 512
    # Stream-K where the persistent grid's last wave is at most two thirds
    # full (policy::streamKPays): 216 tiles (84 left) at K = 4096; five whole
    # waves and 28 tiles (runs of 1024 of K); not 512 tiles (116 left) nor
    # 688 with runs of 512.
    assert _family(512, 13824, b="kn") == "plk"
    assert _family(2048, 11008) == "plk"
    assert _family(4096, 4096) == "pl"
    assert _family(2048, 11008, k=2048) == "pl"
    # Beyond one wave of 128-row tiles: persistent blocks (persistent=auto).
    assert _family(512, 14336, b="kn") == "plh"     # 224 wide tiles
    assert _family(512, 14336) == "pl224h"          # B as N x K: 256 of 128 x 224
    assert _family(4096, 4096) == "pl"              # 512
    assert _family(1024, 4096) == "large"           # 8 x 16 = 128
    assert _family(4096, 4096, chip="sm_90") == "large"  # mma.sync library
    assert _family(4096, 4096, slices=2) == "large"      # slices: not persistent
    assert _family(4096, 4096, slices=2, k=64) == "pl"   # ... unless S = 1
    assert _family(1, 4096) == "s16"                # 64 swapped tiles
    assert _family(16, 8448) == "s16"               # 132
    assert _family(16, 8512) == "s16w"              # 133: two an SM
    assert _family(1, 14336) == "s16w"              # 224
    assert _family(1, 16896) == "s16w"              # 264
    # Past two an SM B as N x K stays swapped, two blocks an SM (265 tiles;
    # 448; an LM head's 2004), 16 x 256 tiles or not (policy::selectSwappedTile).
    assert _family(1, 16960) == "s16w"
    assert _family(4, 28672, k=8192) == "s16w" and _family(16, 33792) == "s16w"
    assert _family(1, 128256) == "s16w"
    # B as K x N up to 8 rows: 16 x 256 tiles from three quarters of the SMs
    # to all (kWideDecodeTile), else swapped; 16 rows the 16 x 128 tile.
    assert _family(1, 25088, b="kn") == "s16w"      # 98 of 16 x 256
    assert _family(1, 25344, b="kn") == "m16n256"   # 99
    assert _family(4, 28672, b="kn", k=8192) == "m16n256"  # 112
    assert _family(8, 33792, b="kn") == "m16n256"   # 132
    assert _family(16, 33792, b="kn") == "m16"
    assert _family(1, 28672, b="kn", k=8200) == "s16w"  # whole K tiles a chunk
    assert _family(1, 33793, b="kn") == "s16w"      # 133
    assert _family(1, 28672, chip="sm_80", sms=108) == "m16"
    assert _family(1, 28672, k=8192, chip="sm_90") == "m16"  # sm_90a's library only
    assert _family(1, 2048) == "s16"                # 32: in slices (the 32-row tile's nearest)
    assert _family(16, 64) == "s16"                 # 1
    assert _family(1, 4096, chip="sm_90") == "m16"
    assert _family(1, 4096, b="kn") == "s16"       # its A: B read along N
    assert _family(1, 14336, b="kn") == "s16w"
    # A as K x M: the swapped kernel reads it as its B as K x N where its
    # rows fill its boxes of 8 or 16 columns (M = 8, 16), in clusters of
    # four at one block an SM (64 tiles: s8q, s16q) and of two at two (224:
    # s16wc; policy::clusterBlocks); other decode products copy it M x K
    # first.
    # The copy runs the swapped decode tile with a sum a k16 step (s16e,
    # s16we: policy::kCopiedDecodeSets).
    assert _family(1, 4096, a="km") == "s16e"
    rules = functools.partial(C.choose_launch, tuned=False)
    for m, a_layout, family in ((1, "mk", "s16e"), (4, "mk", "s16e"), (8, "km", "s8q"),
                                (12, "mk", "s16e"), (16, "km", "s16q")):
        for b in ("nk", "kn"):
            launch = rules("sm_90a", m, 4096, 4096, b, 0, 32, 132, "km")
            assert (launch["family"], launch["a_layout"]) == (family, a_layout), (m, b)
    launch = rules("sm_90a", 16, 14336, 4096, "nk", 0, 32, 132, "km")
    assert (launch["family"], launch["a_layout"]) == ("s16wc", "km")
    # 128 tiles: more clusters of four than the SMs hold at once, of two.
    launch = rules("sm_90a", 16, 8192, 8192, "nk", 0, 32, 132, "km")
    assert (launch["family"], launch["a_layout"]) == ("s16c", "km")
    # 8 rows: s8wc at two blocks an SM; past two blocks an SM's tiles copied
    # M x K (every tile reads all of A in 16-byte rows), for the 16 x 256
    # tile where it fits.
    for m, n, k, b, want in ((8, 8192, 8192, "kn", ("s8c", "km")),
                             (8, 14336, 4096, "nk", ("s8wc", "km")),
                             (8, 28672, 8192, "kn", ("m16n256", "mk"))):
        launch = rules("sm_90a", m, n, k, b, 0, 32, 132, "km")
        assert (launch["family"], launch["a_layout"]) == want, (m, n, k, b)
    # 32 rows: the swapped 64 x 32 tile (s32q in clusters of four, s32wc
    # past the SMs in clusters of two), whatever K; 24 rows (off 32-byte
    # sectors) copied for the 32-row tile. Past two
    # swapped tiles an SM: 16 rows copied, then B as N x K swapped as A as
    # M x K is (the 16-row tile would read A an element at a time; eight
    # sums a chunk, as every copied A), 32 rows
    # unswapped, read as they lie in 64-row tiles up to a K of 8192.
    for m, n, k, b, want in ((32, 4096, 4096, "kn", ("s32q", "km")),
                             (32, 4096, 14336, "nk", ("s32q", "km")),
                             (32, 14336, 4096, "kn", ("s32wc", "km")),
                             (32, 8192, 8192, "kn", ("s32c", "km")),
                             (24, 4096, 4096, "kn", ("m32", "mk")),
                             (16, 17024, 1024, "nk", ("s16we", "mk")),
                             (32, 17024, 1024, "kn", ("m64w", "km")),
                             (32, 17024, 8208, "kn", ("m32w", "mk"))):
        launch = rules("sm_90a", m, n, k, b, 0, 32, 132, "km")
        assert (launch["family"], launch["a_layout"]) == want, (m, n, k, b)
    # A as M x K keeps the 32-row tile.
    assert _family(32, 4096) == "m32"

    launch = rules("sm_90a", 4096, 4096, 4096, "kn", 0, 32, 132, "km")
    assert (launch["family"], launch["a_layout"]) == ("pl", "km")
    assert rules("sm_80", 4096, 4096, 4096, "kn", 0, 32, 108, "km")["a_layout"] == "mk"
    assert _family(512, 4096, b="kn") == "mid"
    assert _family(4096, 4096, b="kn") == "pl"
    launch = C.choose_launch("sm_90a", 1, 2048, 1280, "nk", 0, 32, 132, tuned=False)
    assert launch["swapped"] and launch["slices"] == 1      # K < 2048: one slice
    assert C.choose_launch("sm_90a", 1, 2048, 5120, "nk", 0, 32, 132, tuned=False)["slices"] == 4
    assert set(SWAPPED_TILES) == {"s16", "s16w", "s32", "s32w", "s16q", "s16wc", "s32q",
                                  "s32wc", "s8", "s8w", "s8q", "s8wc", "s16c", "s32c", "s8c", "x96q",
                                  "x128", "x128c", "x64q", "x64n128q", "x64sq", "s16e", "s16we"}


def test_clusters_where_rows_start_off_sectors():
    """sm_90a's families in clusters of two along M (policy::clusterPays):
    static products whose N or K is no multiple of 16 elements, of two row
    tiles or more and one slice; their grid takes whole pairs of row
    tiles, a persistent one at most the SMs in whole pairs."""
    rules = functools.partial(C.choose_launch, tuned=False)
    launch = rules("sm_90a", 1000, 1000, 1000, "nk", 0, 32, 132)
    assert (launch["family"], launch["tiles"], launch["grid"]) == ("m64c", 128, (128, 1))
    launch = rules("sm_90a", 3000, 3000, 3000, "kn", 0, 32, 132, "km")
    assert (launch["family"], launch["a_layout"]) == ("pl192c", "km")
    assert (launch["tiles"], launch["grid"]) == (24 * 16, (132, 1))
    # An odd last row tile's partner: 1100 rows are 9 tiles of 128,
    # launched as 10 (by 23 columns of 224: the widths' waves count the
    # tiles as launched, policy::launchTiles), with the split handover.
    launch = rules("sm_90a", 1100, 5000, 1000, "nk", 0, 32, 133)
    assert launch["family"] == "pl224ch" and launch["tiles"] == 10 * 23
    assert launch["grid"] == (132, 1)
    assert _family(1000, 1000, k=1024) == "m64c"     # N off sectors
    assert _family(1000, 1024, k=1000) == "m64c"     # K off sectors
    assert _family(1000, 1024, k=1024) == "m64"      # aligned rows
    assert _family(1000, 1000, k=1000, chip="sm_90") == "large"   # no TMA kernel
    assert _family(64, 1000, k=1000) == "n64"        # one row tile
    assert _family(1000, 1000, k=1000, slices=2) == "m64w"   # slices (then two an SM)
    assert _family(100, 17000, k=1000) == "m64w"     # two blocks an SM


def test_transposed_product_for_few_rows():
    """193 to 384 rows whose 64-row tiles leave SMs idle, K >= 2048: the
    transposed product, 3 x 32 tiles of 64 x 96 in clusters of four
    (policy::swappedFillTile); under half the SMs (256 x 1024: 3 x 16) or
    five 96-column tiles (448 rows), not."""
    assert _family(256, 2048) == "x96q"
    assert _family(256, 2048, b="kn") == "x96q"
    assert _family(256, 2048, b="kn", a="km") == "x96q"
    assert _family(448, 2048) == "m64"
    assert _family(256, 2048, k=2000) == "n64"     # K under 2048
    assert _family(256, 2052) == "m64q"            # C's rows off 16 bytes
    assert _family(256, 2048, slices=2) != "x96q"  # slices asked


def test_transposed_product_of_a_as_k_x_m_in_64_columns():
    """Where A lies K x M and B K x N, the transposed product's B (A^T) is
    N-major: 64 x 64 tiles (whole 128-byte atoms) in clusters of four where
    those clusters fit the chip's at once (30 on 132 SMs:
    ChipInfo::maxClustersOf4), else x96q's 64 x 96 (policy::swappedFillTile)."""
    assert _family(352, 1224, k=3560, b="kn", a="km") == "x64q"   # 6 x 5 clusters
    assert _family(328, 1208, k=3048, b="kn", a="km") == "x64q"   # 6 x 5, tails
    assert _family(288, 2144, k=2408, b="kn", a="km") == "x96q"   # 5 x 9: past 30
    assert _family(352, 1224, k=3560, a="km") == "x96q"           # B as N x K: not measured
    assert _family(352, 1224, k=3560, b="kn") == "x96q"           # A as M x K
    assert _family(352, 1224, k=3560, b="kn", a="km", sms=114) != "x64q"  # another part


def test_transposed_product_of_33_to_64_rows():
    """33 to 64 rows from K = 2048 whose transposed product's 64-row tiles
    number from half the SMs (66 of 132; with B stored K x N up to 63 rows
    from a third, 44) to 30 clusters of four: the
    transposed product in 64 x 64 tiles, clusters of four sharing A's tile
    (policy::swappedFewRowsTile, the package's x64q), in one slice, two f16
    sums a chunk in chunks of 320 or more as the unswapped 64 x 64 tile
    (x64sq, n64s); not 64 rows with B stored N x K."""
    for b, a in (("nk", "mk"), ("kn", "mk"), ("kn", "km"), ("nk", "km")):
        assert _family(46, 6768, k=4096, b=b, a=a) == "x64q"      # chunks of 256
        assert _family(46, 6768, k=7048, b=b, a=a) == "x64sq"     # of 441: two sums
        for family in ("x64q", "x64sq"):
            assert VariantKey(b_layout=b, tile=family, a_layout=a).builds_for("sm_90a")
    launch = C.choose_launch("sm_90a", 64, 5120, 13824, "kn", 0, 32, 132, tuned=False)
    assert launch["swapped"] and launch["slices"] == 1 and launch["sets"] == 2
    assert (launch["tiles"], launch["grid"]) == (80, (80, 1))
    assert C.choose_launch("sm_90a", 64, 5120, 4096, "kn", 0, 32, 132)["sets"] == 1
    assert _family(33, 5120) == "x64q" and _family(32, 5120) != "x64q"
    assert _family(64, 5120, b="kn") == "x64q" and _family(65, 5120, k=2048) != "x64q"
    assert _family(64, 5120) == "n64"        # 64 rows of B as N x K
    assert _family(64, 5120, a="km") == "n64"
    assert _family(64, 5120, b="kn", a="km") == "x64q"
    assert _family(48, 5120, k=2048) == "x64q" and _family(48, 5120, k=2040) == "n64"
    assert _family(48, 4168) == "x64q" and _family(48, 4160) == "n64"    # 66 | 65 tiles
    # B stored K x N: from a third of the SMs (44 tiles), but for 64 rows.
    assert _family(40, 2816, b="kn") == "x64q" and _family(40, 2752, b="kn") == "n64"
    assert _family(63, 2760, b="kn", a="km") == "x64q"
    assert _family(64, 3000, b="kn") == "n64" and _family(64, 4168, b="kn") == "x64q"
    assert _family(48, 7680) == "x64q" and _family(48, 7688) != "x64q"   # 30 | 31 clusters
    assert _family(48, 5124) != "x64q"                 # C's rows off 16 bytes
    assert _family(48, 5120, slices=2) != "x64q"       # slices asked
    assert _family(48, 5120, sms=114) != "x64q"        # another part
    assert _family(48, 5120, chip="sm_90") != "x64q"   # no wgmma kernel
    assert C.choose_launch("sm_90a", 48, 5120, 4096, "nk", 0, 32, 132)["family"] == "x64q"


def test_transposed_product_where_clusters_spill_a_wave():
    """128 x 128 tiles that fit one wave (oneWaveMidTile) but for their
    clusters of two (rows off 32-byte sectors: whole pairs of row tiles):
    the transposed product in 128 x 128 tiles, a block a tile (x128), in
    clusters of two where its own rows lie off sectors (x128c;
    policy::swappedMidTile). Not with C's rows off 16 bytes, slices asked,
    K under kSwappedMidMinK, or another SM count whose waves the clusters
    do not spill."""
    rules = functools.partial(C.choose_launch, tuned=False)
    launch = rules("sm_90a", 1040, 1720, 1536, "nk", 0, 32, 132)
    # 9 row tiles of 128 launched as 10 by 14 columns: 140; transposed 14 x 9.
    assert (launch["family"], launch["swapped"]) == ("x128", True)
    assert (launch["tiles"], launch["grid"], launch["slices"]) == (126, (126, 1), 1)
    launch = rules("sm_90a", 1040, 1712, 1512, "nk", 0, 32, 132)
    assert (launch["family"], launch["tiles"], launch["grid"]) == ("x128c", 126, (126, 1))
    assert _family(1040, 1712, k=1512, b="kn") == "x128c"
    assert _family(1040, 1712, k=1512, b="kn", a="km") == "x128c"
    assert _family(1040, 1714, k=1512) == "w160c"             # N % 8 != 0
    assert _family(1040, 1712, k=1512, slices=2) == "w160"    # slices asked
    assert _family(1040, 1712, k=1512, slices=1) == "x128c"   # one slice asked
    assert _family(1040, 1712, k=512) == "pl128h"             # K under kSwappedMidMinK
    # 7 x 17 tiles of 128 x 128 (8 x 17 launched): past K = 8192 128 x 256
    # tiles in two slices fill more SMs (oneWaveMidTile), shorter not.
    assert _family(840, 2120, k=8192) == "large"
    assert _family(840, 2120, k=2048) == "x128c"
    assert _family(1040, 1728, k=1536) == "pl128h"            # 126 tiles, no clusters
    assert not C.choose_launch("sm_90a", 1040, 1712, 1512, "nk", 0, 32, 140,
                               tuned=False)["swapped"]        # 140 fit 140 SMs


def test_three_warpgroup_wide_tile_where_its_waves_cost_less():
    """192 x 192 tiles over three consumer warpgroups where their waves cost
    5% less than the 128-row widths' (policy's wideTile): one wave a block a
    tile (t192), past it persistent (plt192); large products keep 128 x 256,
    and another SM count counts its own waves."""
    assert _family(1624, 2568, k=744) == "t192"            # 9 x 14 = 126
    assert _family(1624, 2568, k=744, b="kn") == "t192"
    assert _family(1624, 2568, k=744, b="kn", a="km") == "t192"
    assert _family(1536, 3072) == "t192"                   # 8 x 16 = 128
    launch = C.choose_launch("sm_90a", 2100, 4360, 1000, "nk", 0, 32, 132, tuned=False)
    assert (launch["family"], launch["tiles"], launch["grid"]) == ("plt192", 11 * 23, (132, 1))
    assert _family(4096, 4096) == "pl"                     # 4 waves either way
    assert _family(1624, 2568, k=744, sms=114) == "pl176ch"  # two waves of 114


def test_quad_clusters_where_they_fit_at_once():
    """m64 in clusters of four along M, persistent (policy::quadClusterPays):
    rows off sectors, four row tiles or more, and clusters of four (row
    tiles in whole clusters) that sm_90a runs all at once (30); the grid a
    block a launched tile."""
    rules = functools.partial(C.choose_launch, tuned=False)
    launch = rules("sm_90a", 352, 1228, 3560, "nk", 0, 32, 132)
    assert (launch["family"], launch["tiles"], launch["grid"]) == ("m64q", 80, (80, 1))
    launch = rules("sm_90a", 456, 1728, 1512, "kn", 0, 32, 132, "km")
    assert (launch["family"], launch["a_layout"], launch["grid"]) == ("m64q", "km", (112, 1))
    assert _family(512, 1912, k=1000) == "m64q"      # 2 x 15 = 30 clusters
    assert _family(256, 3900, k=1000) == "m64c"      # 1 x 31
    assert _family(232, 2904, k=6280) == "m64q"      # four row tiles, 1 x 23
    assert _family(456, 1728, k=1512, sms=114) == "m64c"   # not the chip's SMs
    assert _family(512, 1928, k=1000) == "m64c"      # 2 x 16 = 32
    assert _family(1000, 1000, k=1000) == "m64c"     # 4 x 8 = 32
    assert _family(192, 1912, k=3000) == "m64c"      # three row tiles
    assert _family(512, 1920, k=1024) == "m64"       # aligned rows
    assert _family(512, 1912, k=1000, slices=2) == "m64w"   # two slices


def test_tuned_table_decides_its_classes():
    """Every row of sm_90a's tuned table (lib/Policy/Tuned/SM90a.def, the
    tuner's) decides the launch of its class's products, at the class's
    largest sizes: the row's family (or its persistent or two-blocks-an-SM
    variant, as the rules pick between them) and the slices asked for; with
    tuned=False the rules decide. The package's choice is the compiler's
    (test/Policy compares them on 10^4 problems)."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "lib" / "Policy" / "Tuned" /
            "SM90a.def").read_text()
    rows = re.findall(r"^GPUPOOR_TUNED\(SM90a, (\w+), (\w+), (\d+), (\d+), (\d+), (\w+), "
                      r"(\d+)\)", text, re.M)
    assert rows, "the tuned table is empty"
    variants = {"Large": {"large", "pl", "plk", "plh"},
                "W192": {"w192", "pl192", "pl192k", "pl192h"},
                "W160": {"w160", "pl160", "pl160k", "pl160h"},
                "Mid": {"mid", "pl128", "pl128k", "pl128h"},
                "W176": {"w176", "pl176", "pl176k", "pl176h"},
                "W224": {"w224", "pl224", "pl224k", "pl224h"},
                "S16": {"s16", "s16w", "s16q", "s16wc", "s16c"},
                "S32": {"s32", "s32w", "s32q", "s32wc", "s32c"},
                "M64": {"m64", "m64w"},
                "N64": {"n64", "n64w"}, "M32": {"m32", "m32w"}}
    differs = 0
    for a, b, mc, nc, kc, family, slices in rows:
        m, n, k = (1 << int(c) for c in (mc, nc, kc))
        a, b = a.lower(), b.lower()
        launch = C.choose_launch("sm_90a", m, n, k, b, 0, 32, 132, a)
        rules = C.choose_launch("sm_90a", m, n, k, b, 0, 32, 132, a, tuned=False)
        if rules["family"] == "n32":
            # The rules' 64 x 32 tile replaces the row's 64 x 64 (below).
            assert family == "N64" and launch == rules, (a, b, m, n, k)
            continue
        assert launch["family"] in variants.get(family, {family.lower()}), (a, b, m, n, k)
        assert launch["asked_slices"] == int(slices), (a, b, m, n, k)
        assert launch["a_layout"] == a
        differs += rules["family"] != launch["family"] or rules["slices"] != launch["slices"]
    assert differs > 0


def test_rows_of_64_over_the_tuned_rows():
    """The rules' 64 x 32 tile of 56 to 64 rows (policy::kRows64Tile, four
    f16 sums) replaces the tuned table's 64 x 64 rows, tuned before it; fewer
    rows, and A as K x M short of 64, keep the row (n64, one slice)."""
    for m, a, want in ((64, "mk", "n32"), (56, "mk", "n32"), (55, "mk", "n64"),
                       (50, "mk", "n64"), (64, "km", "n32"), (56, "km", "n64")):
        b = "kn" if a == "km" else "nk"
        launch = C.choose_launch("sm_90a", m, 4096, 4096, b, 0, 32, 132, a)
        assert launch["family"] == want, (m, a, launch)
        assert launch["asked_slices"] == (0 if want == "n32" else 1), (m, a, launch)
        assert launch["slices"] == 1


def test_gpu_cases_take_their_families():
    """Each exact GPU test of test_gpu_sm90a.py and test_gpu_sm90a_rows.py
    names the family the rules
    take for its shape (the device asserts it too, before the exact check):
    checked here, without a GPU, so that a rule moving a case off its family
    fails wherever the tests run. (A case of 384 rows of B as K x N kept
    naming 128 x 192 tiles after such products took 128 x 160 ones.)"""
    import test_gpu_sm90a
    import test_gpu_sm90a_rows

    cases = []
    for gpu in (test_gpu_sm90a, test_gpu_sm90a_rows):
        tests = [name for name in vars(gpu) if name.startswith("test_")]
        for name in tests:
            for mark in getattr(getattr(gpu, name), "pytestmark", []):
                if mark.name == "parametrize" and mark.args[0].startswith("m,n,k,layout,want"):
                    cases += [(name, *case[:5]) for case in mark.args[1]]
    assert len(cases) >= 50
    wrong = []
    for name, m, n, k, layout, want in cases:
        a = "km" if layout.startswith("km") else "mk"
        launch = C.choose_launch("sm_90a", m, n, k, layout[-2:], 0, C.DEFAULT_MAX_SPLITS, 132, a)
        if launch["family"] != want:
            wrong.append((name, m, n, k, layout, want, launch["family"]))
    assert not wrong, wrong


def test_long_chunks_take_two_sums():
    """sm_90a's 64 x 64 tile keeps two f16 sums a chunk (n64s, n64sw) where
    its chunks are at least 320 long (policy::chunkSets), in every layout;
    shorter chunks, a batch and the mma.sync library keep n64's one."""
    launch = C.choose_launch("sm_90a", 128, 4096, 11008, "nk", 0, 256, 132, "mk", tuned=False)
    assert (launch["family"], launch["splits"], launch["sets"]) == ("n64s", 32, 2)  # chunks of 344
    for a, b in (("mk", "kn"), ("km", "nk"), ("km", "kn")):
        assert _family(128, 4096, k=11008, a=a, b=b) == "n64s"
    assert _family(128, 4096, k=4096) == "n64"               # 16 chunks of 256
    assert _family(40, 1280, b="kn", k=5120) == "n64sw"      # 16 of 320, two blocks an SM
    assert _family(40, 1280, b="kn", k=4608) == "n64w"       # 16 of 288
    assert _family(128, 4096, k=11008, chip="sm_90") == "m64"
    batched = C.choose_launch("sm_90a", 128, 2048, 11008, "nk", 0, 256, 132, "mk", batch=2)
    assert tuple(batched["tile"]) == (64, 64, 64)
    assert (batched["family"], batched["sets"]) == ("n64", 1)


def test_batched_products_take_batched_families():
    """A batch of products takes a family with batched variants
    (policy::familyBatched): over batches, sizes, slices and layouts, every
    batched family is reached and no other."""
    want = {f for f in TILES if C.family_info(f)["batched"]}
    assert want == {"large", "m16", "m64", "n64", "mid", "pl", "pl128", "m64w", "n64w"}
    seen = set()
    for chip in ("sm_90a", "sm_80"):
        for batch, m, n, k in itertools.product((2, 8, 32), (1, 16, 64, 100, 512, 2048),
                                                (64, 128, 512, 2048, 4096), (64, 1024)):
            for b, a, slices in itertools.product(("nk", "kn"), ("mk", "km"), (0, 1, 3)):
                launch = C.choose_launch(chip, m, n, k, b, slices, 32, 132, a, batch=batch)
                family = launch["family"]
                assert family in want, (chip, batch, m, n, k, b, a, slices, family)
                assert C.family_builds(family, chip, b, launch["a_layout"], batched=True)
                seen.add(family)
    assert seen == want
    # The library holds each batched family's variants without an epilogue.
    batched = [key for key in library_variants() if key.batched]
    # Both B layouts, outer and C types, A as M x K and (but m16, an
    # mma.sync kernel) K x M.
    assert len(batched) == 2 * 2 * 2 * (len(want) + len(want - {"m16"}))
    assert {key.tile for key in batched} == want
    assert {key.epilogue for key in batched} == {"none"}
    assert all(key.name.startswith("b") and VariantKey.from_name(key.name) == key
               for key in batched)
    # A batch takes no split handover (policy::splitHandoverPays), its
    # two-warpgroup variants neither.
    for family in ("large", "mid"):
        assert "split-handover=true" in VariantKey(tile=family).pipeline_options("sm_90a")
        assert "split-handover" not in VariantKey(tile=family, batched=True).pipeline_options(
            "sm_90a")
    with pytest.raises(ValueError, match="no batched kernels"):
        VariantKey(tile="s16", batched=True)
    with pytest.raises(ValueError, match="no epilogue"):
        VariantKey(epilogue="bias", batched=True)
