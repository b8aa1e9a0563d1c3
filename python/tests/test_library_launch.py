"""The launcher against the kernels it launches: for every tile family and
layout an sm_90a device chooses, the launch plan fills exactly the
parameters of the kernel its variant compiles to (every combination of the
public arguments), takes the library's variant for any max_k_splits, and
encodes the tensor maps as the manifests say. These tests need no GPU: the
plan is worked out on host tensors against the manifests this checkout's
gpupoor-opt writes. An activation without a bias takes the bias_<act>
variant, whose kernel has a bias parameter (in0_ptr)."""

import collections
import dataclasses
import functools
import itertools
import json
import subprocess

import pytest
import torch

from gpupoor._mlir_backend import find_variant
from gpupoor._native import C
from gpupoor.library import Kernel, Variant
from gpupoor.variants import (PERSISTENT_TILES, SWAPPED_TILES, VariantKey,
                              library_variants)


# (M, N) for which an sm_90a device of 132 SMs takes each tile family at
# K = 64 (the policy's choose_launch), by the variant's layouts: B's, and A
# as K x M (km) for the families that read it so.
_MK_SHAPES = {("kn", "m16"): (16, 17000), ("kn", "s16"): (16, 136), ("kn", "s16w"): (1, 9000),
              ("kn", "m64"): (100, 4240),
              ("kn", "large"): (1024, 4096), ("kn", "n64"): (33, 256),
              ("kn", "mid"): (512, 4096), ("kn", "pl"): (4096, 4096),
              ("nk", "m16"): None, ("nk", "s16"): (16, 136), ("nk", "s16w"): (1, 9000),
              ("nk", "n64"): (33, 250), ("nk", "m64"): (100, 4240),
              ("nk", "large"): (1024, 4096), ("nk", "mid"): (512, 4096),
              ("nk", "pl"): (4096, 4096),
              ("kn", "w192"): (512, 6144), ("kn", "pl192"): (1024, 6144),
              ("nk", "w192"): (512, 6144), ("nk", "pl192"): (1024, 6144),
              ("nk", "w160"): (1536, 1536), ("nk", "pl160"): (512, 10240),
              ("kn", "w160"): (1536, 1536), ("kn", "pl160"): (512, 10240),
              ("kn", "pl128"): (1024, 14336), ("nk", "pl128"): (296, 25360),
              ("nk", "m32"): (32, 5120), ("nk", "m32w"): (32, 9000),
              ("kn", "m32"): (32, 5120), ("kn", "m32w"): (32, 9000),
              ("kn", "m64w"): (64, 17000), ("nk", "m64w"): (64, 17000),
              # Clusters of two (N off 32-byte sectors).
              ("kn", "m64c"): (100, 4232), ("nk", "m64c"): (100, 4232),
              ("kn", "midc"): (256, 4232), ("nk", "midc"): (256, 4232),
              # Clusters of four, persistent: eight row tiles (an M tail)
              # by ten columns of 128 (an N tail): 20 clusters.
              ("kn", "m64q"): (456, 1160), ("nk", "m64q"): (456, 1160),
              # (B as K x N keeps 192 columns where the last row tile is
              # partial: policy's nMajorB160Pays.)
              ("kn", "w192c"): (200, 8456), ("nk", "w192c"): (200, 11624),
              ("nk", "w160c"): (256, 8456), ("nk", "pl160c"): (256, 16904),
              ("kn", "w160c"): (256, 8456), ("kn", "pl160c"): (256, 16904),
              ("kn", "largec"): (256, 12680), ("nk", "largec"): (200, 14792),
              ("kn", "pl192c"): (200, 16904), ("nk", "pl192c"): (200, 23240),
              ("kn", "plc"): (300, 12680), ("nk", "plc"): (200, 29576),
              ("kn", "pl128c"): (512, 19016), ("nk", "pl128c"): (512, 19016),
              # Stream-K: a short last wave (at _K_OF's K; pl128k the tuned
              # table's 128 x 128 tile).
              # (B as N x K takes 128 x 176 or 128 x 224 where 128 x 192's
              # last wave would be short: no pl192k.)
              ("nk", "plk"): (296, 29584), ("kn", "plk"): (512, 13824),
              ("kn", "pl192k"): (200, 18832), ("nk", "pl224k"): (512, 26416),
              ("nk", "pl176k"): (6784, 672),
              ("nk", "pl160k"): (392, 8784), ("kn", "pl160k"): (256, 16960),
              ("nk", "pl128k"): (128, 20000),
              # The filling tiles: one wave of 64-row tiles wider than 128.
              ("nk", "m64n160"): (144, 4352), ("nk", "m64n192"): (144, 7168),
              ("nk", "m64n256"): (144, 8704), ("kn", "m64n192"): (144, 4352),
              ("kn", "m64n256"): (144, 8704),
              # One wave of 64 x 96 tiles (96), where 64 x 64 ones (140)
              # would not fit it (rows on sectors).
              ("nk", "m64n96"): (200, 2240), ("kn", "m64n96"): (200, 2240),
              # The transposed product of few rows: 3 x 36 tiles of 64 x 96
              # in clusters of four (at _K_OF's K).
              ("nk", "x96q"): (288, 2144), ("kn", "x96q"): (288, 2144),
              # The transposed product where 128 x 128 tiles' clusters spill
              # a wave: its 14 x 9 tiles, and in clusters of two where K lies
              # off sectors (at _K_OF's K).
              ("nk", "x128"): (1040, 1720), ("kn", "x128"): (1040, 1720),
              ("nk", "x128c"): (1040, 1712), ("kn", "x128c"): (1040, 1712),
              # (None: represented only, in the places of B as N x K's m16
              # and m16n256, which 2-D decode products no longer take on
              # sm_90a (they run swapped: policy::selectSwappedTile), as the
              # representatives' types rotate with their order.)
              ("kn", "m16n256"): None,
              # The three-warpgroup filling tile: 128 tiles of 192 x 96 (K
              # of 1536: kThreeWarpgroupMinK).
              ("nk", "m192n96"): (1536, 1536), ("kn", "m192n96"): (1536, 1536),
              # The three-warpgroup 192 x 192 tile (wideTile): one wave of 9 x
              # 14 tiles a block a tile, two waves of 11 x 23 persistent (at
              # _K_OF's K, off sectors: with B as N x K on them 128 x 192
              # tiles alone, 17 x 23, cost less than in clusters).
              ("nk", "t192"): (1624, 2568), ("kn", "t192"): (1624, 2568),
              ("nk", "plt192"): (2100, 4360), ("kn", "plt192"): (2100, 4360),
              # 128-row tiles of 176 and 224 columns (B as N x K only), a
              # block a tile, persistent and in clusters (N off sectors).
              ("nk", "w176"): (200, 10576), ("nk", "pl176"): (200, 21136),
              ("nk", "w224"): (200, 12688), ("nk", "pl224"): (200, 25360),
              ("nk", "w176c"): (200, 10568), ("nk", "pl176c"): (200, 21128),
              ("nk", "w224c"): (200, 12680), ("nk", "pl224c"): (200, 25352),
              # The persistent families with the split handover: up to two
              # tiles an SM in chunks of two K tiles (at _K_OF's K).
              ("nk", "plh"): (200, 29584), ("kn", "plh"): (200, 25360),
              ("nk", "pl192h"): (200, 23248), ("nk", "pl160h"): (200, 16912),
              ("nk", "pl128h"): (1024, 4112), ("kn", "pl128h"): (1024, 4112),
              ("nk", "pl176h"): (200, 21136), ("nk", "pl224h"): (200, 25360),
              ("nk", "plch"): (200, 29576), ("kn", "plch"): (200, 25352),
              ("nk", "pl192ch"): (200, 23240), ("nk", "pl160ch"): (200, 16904),
              ("nk", "pl128ch"): (1024, 4104), ("kn", "pl128ch"): (1024, 4104),
              ("nk", "pl176ch"): (200, 21128), ("nk", "pl224ch"): (200, 25352),
              # The narrow tile (at most 16 columns): a block a tile, two an
              # SM past the SMs, and for B as K x N in clusters of four (16
              # tiles) and two (110 tiles, and 142 at two an SM).
              ("kn", "n16"): (100, 16), ("nk", "n16"): (100, 16),
              ("nk", "n16w"): (9000, 16), ("kn", "n16wc"): (9000, 16),
              ("kn", "n16q"): (1000, 16), ("kn", "n16c"): (7000, 16)}
# K where FAMILY_SHAPES' family needs more than 64 (a stream-K run's K:
# policy::streamKPays;
# the 192 x 96 tile's least K: kThreeWarpgroupMinK; two K tiles a chunk:
# splitHandoverPays; one wave of 128 x 128 and 128 x 256 tiles a block a
# tile past K = 3072: oneWavePersistentPays; the transposed product of few
# rows from K = 2048: swappedFillTile; its 128 x 128 tiles at a K on
# sectors or off them: swappedMidTile, clusterPays).
_K_OF = {"x96q": 2408, "x64q": 3560, "x128": 1536, "x128c": 1512, "plt192": 1000, "plk": 4096, "pl192k": 4096, "pl160k": 4096, "pl128k": 8192, "pl224k": 4096,
         "pl176k": 4096, **{f: 4096 for f in ("mid", "large", "midc", "largec")},
         "m192n96": 1536,
         **{f: 256 for f in ("plh", "pl192h", "pl160h", "pl128h", "pl176h", "pl224h", "plch",
                             "pl192ch", "pl160ch", "pl128ch", "pl176ch", "pl224ch")}}
FAMILY_SHAPES = {**_MK_SHAPES,
                 **{("km" + b, t): mn for (b, t), mn in _MK_SHAPES.items()
                    if t not in ("m16", "m16n256", "m32", "m32w", "pl128k", "s16w")},
                 # (The tuned table's rows for A as K x M are B as K x N's.)
                 ("kmkn", "pl128k"): (128, 20000),
                 # The swapped families read A as K x M as it is at 16 and
                 # 32 rows, in clusters of four from four tiles at one block
                 # an SM and of two at two (policy::clusterBlocks).
                 ("kmkn", "s16q"): (16, 5120), ("kmnk", "s16q"): (16, 5120),
                 ("kmkn", "s16wc"): (16, 9000), ("kmnk", "s16wc"): (16, 9000),
                 ("kmkn", "s32"): (32, 136), ("kmnk", "s32"): (32, 136),
                 ("kmkn", "s32q"): (32, 5120), ("kmnk", "s32q"): (32, 5120),
                 ("kmkn", "s32wc"): (32, 9000), ("kmnk", "s32wc"): (32, 9000),
                 # Clusters of two at one block an SM where clusters of four
                 # would not fit at once (128 tiles), and 8 rows (the 64 x 8
                 # tile: its A stored K x M read in 16-byte rows).
                 ("kmkn", "s16c"): (16, 8192), ("kmnk", "s16c"): (16, 8192),
                 ("kmkn", "s32c"): (32, 8192), ("kmnk", "s32c"): (32, 8192),
                 ("kmkn", "s8"): (8, 136), ("kmnk", "s8"): (8, 136),
                 ("kmkn", "s8q"): (8, 5120), ("kmnk", "s8q"): (8, 5120),
                 ("kmkn", "s8wc"): (8, 9000), ("kmnk", "s8wc"): (8, 9000),
                 ("kmkn", "s8c"): (8, 8192), ("kmnk", "s8c"): (8, 8192),
                 # The transposed product of A as K x M and B as K x N in 64 x
                 # 64 tiles: 6 x 20 in clusters of four (at _K_OF's K).
                 ("kmkn", "x64q"): (352, 1224)}
# The (layouts, family) pairs the test compiles a representative of: those
# of FAMILY_SHAPES, n64w's and n16w's with B as K x N (two blocks an SM,
# for slices beyond the SMs: never at K = 64; n16wc's clusters otherwise), pl128k's that the tuned table never chooses,
# pl192k's of B as N x K that the rules no longer choose (128 x 176 and 128
# x 224 serve where 128 x 192's last wave is short) and
# s32's for A as M x K (a tuned row's choice only), s16w's, s32w's and
# s8w's for A as K x M (slices asked for), and s16e's and s16we's (an A
# stored K x M copied M x K first: the launch's layouts are not the call's),
# whose kernels
# test_parameters_follow_the_signature checks.
_REPRESENTED = list(FAMILY_SHAPES) + [(lay, "n64w") for lay in ("kn", "nk", "kmkn", "kmnk")] + \
    [("kn", "n16w"), ("kmkn", "n16w")] + \
    [("kn", "pl128k"), ("kmnk", "pl128k"), ("nk", "pl192k"), ("kmnk", "pl192k")] + \
    [(lay, f) for lay in ("kn", "nk") for f in ("s32", "s32w")] + \
    [(lay, f) for lay in ("kmkn", "kmnk") for f in ("s16w", "s32w", "s8w")] + \
    [(lay, f) for lay in ("kn", "nk") for f in ("s16e", "s16we")]
# (batch, M, N) for which an sm_90a device of 132 SMs takes each batched
# family at K = 1024 in one slice (choose_launch with the batch), by the
# variant's layouts: a batch's prefixed with b (bkn, bnk, bkmkn, bkmnk).
_BATCHED_SHAPES = {"m16": (8, 16, 4096), "n64": (8, 64, 512), "m64": (8, 64, 2048),
                   "m64w": (8, 100, 4096), "large": (2, 1024, 2048), "pl": (8, 1024, 1024),
                   "mid": (4, 512, 1024), "pl128": (32, 1024, 128), "n64w": (64, 1024, 64)}
BATCHED_SHAPES = {("b" + lay, f): bmn for lay in ("kn", "nk", "kmkn", "kmnk")
                  for f, bmn in _BATCHED_SHAPES.items()
                  if not (lay.startswith("km") and f == "m16")}
_REPRESENTED += list(BATCHED_SHAPES)
# The wide decode tile with B as K x N, which the rules take from K = 2048
# only (policy::kMmaDecodeKNMinK), where its S (chunks of 128) is not
# gpu_poor's default that test_launcher_fills_every_kernel_parameter
# checks; the 16-row tile of B as N x K, which sm_90a's rules take for a
# batch only (a 2-D product runs swapped: policy::selectSwappedTile), is
# _MK_SHAPES' None. (Last: the representatives' types rotate with their
# order; this one's, not its place in _MK_SHAPES', are the test's.)
_REPRESENTED += [("kn", "m16n256")]
FAMILY_SHAPES = {lt: mn for lt, mn in FAMILY_SHAPES.items() if mn is not None}
# 64 x 32 tiles of 56 to 64 rows in one wave (policy::kRows64Tile), and two
# blocks an SM (slices beyond the SMs); after the rest, for the same reason.
_ROWS64_SHAPES = {(lay, "n32"): (64, 4032) for lay in ("kn", "nk", "kmkn", "kmnk")}
FAMILY_SHAPES.update(_ROWS64_SHAPES)
_REPRESENTED += list(_ROWS64_SHAPES) + [(lay, "n32w") for lay in ("kn", "nk", "kmkn", "kmnk")]
# 64 x 64 tiles with two f16 sums a chunk, in chunks of 344 (policy::
# chunkSets), and two blocks an SM; after the rest, for the same reason.
_LONG_CHUNK_SHAPES = {(lay, "n64s"): (128, 2048) for lay in ("kn", "nk", "kmkn", "kmnk")}
_K_OF["n64s"] = 11008
FAMILY_SHAPES.update(_LONG_CHUNK_SHAPES)
_REPRESENTED += list(_LONG_CHUNK_SHAPES) + [(lay, "n64sw") for lay in ("kn", "nk", "kmkn", "kmnk")]
# The transposed product of 65 to 128 rows in 64 x 128 tiles, persistent
# clusters of four (policy::swappedRowsTile: 64 tiles, from K = 4096);
# after the rest, for the same reason.
_SWAPPED_ROWS_SHAPES = {(lay, "x64n128q"): (100, 4096) for lay in ("kn", "nk", "kmkn", "kmnk")}
_K_OF["x64n128q"] = 4096
FAMILY_SHAPES.update(_SWAPPED_ROWS_SHAPES)
_REPRESENTED += list(_SWAPPED_ROWS_SHAPES)
# The transposed product of 33 to 64 rows in x64q's 64 x 64 tiles, clusters
# of four (policy::swappedFewRowsTile: 80 tiles at _K_OF's K, from 2048), in
# the layouts the 193-to-384-row rule leaves; after the rest, for the same
# reason.
_SWAPPED_FEW_ROWS_SHAPES = {(lay, "x64q"): (48, 5120) for lay in ("kn", "nk", "kmnk")}
# And x64sq, its two f16 sums a chunk in chunks of 344 (policy::chunkSets).
_SWAPPED_FEW_ROWS_SHAPES.update({(lay, "x64sq"): (48, 5120) for lay in ("kn", "nk", "kmkn", "kmnk")})
_K_OF["x64sq"] = 11008
FAMILY_SHAPES.update(_SWAPPED_FEW_ROWS_SHAPES)
_REPRESENTED += list(_SWAPPED_FEW_ROWS_SHAPES)
HOPPER = (("sm_90a", "sm_90"), 132)


def _representatives():
    """The variants the test compiles: for each (layout, family) one without
    a bias parameter and one with, outer type, output type and bias
    epilogue rotating over the families (a kernel's parameters follow from
    its function's signature and the family's pipeline options;
    test_parameters_follow_the_signature checks the rest)."""
    reps = {}
    for i, (layouts, tile) in enumerate(_REPRESENTED):
        # (Batched variants have no epilogue.)
        batched = layouts.startswith("b")
        for has_bias in (False,) if batched else (False, True):
            epilogue = ("bias", "bias_relu", "bias_gelu")[i % 3] if has_bias else "none"
            reps[(layouts, tile, has_bias)] = VariantKey(
                layouts[-2:], ("f32", "f16")[(i + has_bias) % 2], epilogue,
                ("f16", "f32")[(i // 2 + has_bias) % 2], tile,
                a_layout="km" if "km" in layouts else "mk", batched=batched)
    return reps


def _layouts(key):
    """A variant's layouts as FAMILY_SHAPES and BATCHED_SHAPES name them
    (kn, nk, kmkn, kmnk; a batch's prefixed with b)."""
    return ("b" if key.batched else "") + ("km" if key.a_layout == "km" else "") + key.b_layout


def _signature(key):
    """A variant's function signature without names and element types, and
    its pipeline options without the outer type (which gives the outer sum's
    type, not a parameter)."""
    line = key.source().splitlines()[0]
    args = [a.split(":")[0].strip() for a in line[line.index("(") + 1:line.rindex(")")].split(",")]
    opts = [o for o in key.pipeline_options("sm_90a").split() if not o.startswith("outer-type=")]
    return args, opts


@pytest.fixture(scope="module")
def compiled_manifests(tmp_path_factory):
    """{representative key: its kernels' manifests, in the order the host
    code tries them}, compiled for sm_90a to LLVM bitcode (cubin-format=llvm:
    the manifests are the same, without code generation's time)."""
    import concurrent.futures
    import os
    from pathlib import Path
    path = os.environ.get("GPUPOOR_OPT") or str(
        Path(__file__).resolve().parents[2] / "build" / "bin" / "gpupoor-opt")
    if not os.access(path, os.X_OK):
        pytest.skip("gpupoor-opt not built")
    root = tmp_path_factory.mktemp("manifests")

    def one(key):
        d = root / key.name
        src = root / f"{key.name}.mlir"
        src.write_text(key.source())
        res = subprocess.run([path, str(src), f"--gpupoor-to-cubin={key.pipeline_options('sm_90a')}"
                              f" cubin-format=llvm dump-dir={d}", "-o", os.devnull],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        manifests = [json.loads(p.read_text()) for p in sorted(d.glob("gpupoor_matmul_*.json"))]
        return key, sorted(manifests, key=lambda m: m["order"])

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(pool.map(one, _representatives().values()))


class _RepresentativeLibrary:
    """A library whose every variant has its representative's kernels."""

    def __init__(self, manifests):
        self.manifests = manifests
        self.reps = _representatives()
        self.found = []

    def has_prebuilt(self, key, chip):
        return True

    def find(self, key, chip):
        rep = self.reps[(_layouts(key), key.tile, key.epilogue != "none")]
        assert _signature(key) == _signature(rep), (key.name, rep.name)
        self.found.append(key)
        return Variant(key, chip, [Kernel(m, None) for m in self.manifests[rep]], None)


def test_parameters_follow_the_signature():
    """Variants of one (layout, family) with a bias parameter or without have
    one signature and one set of pipeline options but the outer type: the
    representatives stand for them."""
    for key in library_variants():
        rep = _representatives()[(_layouts(key), key.tile, key.epilogue != "none")]
        assert _signature(key) == _signature(rep), (key.name, rep.name)
    assert _signature(VariantKey(epilogue="none"))[0] == ["%a", "%b", "%c"]
    assert _signature(VariantKey(epilogue="bias_relu"))[0] == ["%a", "%b", "%bias", "%c"]


class _RuleLibrary(_RepresentativeLibrary):
    """The representatives' kernels as built before splits-arg: each
    evaluates S itself, no `splits` parameter."""

    def find(self, key, chip):
        # (The representatives are of max_k_splits = 32; the key asked for
        # is what the test checks.)
        variant = super().find(dataclasses.replace(key, max_splits=32), chip)
        self.found[-1] = key
        for kern in variant.kernels:
            m = dict(kern.manifest)
            keep = [i for i, p in enumerate(m["params"]) if p != "splits"]
            m["params"] = [m["params"][i] for i in keep]
            m["param_types"] = [m["param_types"][i] for i in keep]
            # As built for the key's max_k_splits (the launcher refuses a
            # rule of another: test_stale_split_rule_is_refused).
            m["max_splits"] = key.max_splits
            m["split_rule"] = {**m["split_rule"], "max_splits": key.max_splits}
            kern.manifest = m
        return variant


@pytest.mark.parametrize("max_k_splits", [1, 8, 32, 1000])
def test_any_max_k_splits_takes_the_library_variant(compiled_manifests, max_k_splits):
    """The library's variants, built for max_k_splits = 32, take S from the
    launch: a call of any max_k_splits runs them with the rule's S under its
    bound. A library whose kernels evaluate S themselves serves only its
    own max_k_splits: the launcher asks for the call's."""
    m, n, k = 300, 528, 4104
    a = torch.empty(m, k, dtype=torch.float16)
    b = torch.empty(n, k, dtype=torch.float16).T
    c = torch.empty(m, n, dtype=torch.float16)
    lib = _RepresentativeLibrary(compiled_manifests)
    p = C.describe_plan(a, b, None, c, "none", "f32", max_k_splits, 0, list(HOPPER[0]),
                        HOPPER[1], find_variant=functools.partial(find_variant, library=lib))
    assert [key.max_splits for key in lib.found] == [32]
    assert p["values"][p["params"].index("splits")] == C.default_splits(k, max_k_splits)
    old = _RuleLibrary(compiled_manifests)
    p = C.describe_plan(a, b, None, c, "none", "f32", max_k_splits, 0, list(HOPPER[0]),
                        HOPPER[1], find_variant=functools.partial(find_variant, library=old))
    assert [key.max_splits for key in old.found] == sorted({32, max_k_splits}, key=lambda s: s != 32)
    assert "splits" not in p["params"]
    # A forced S (the benchmarks' hook) reaches the kernels that take it, and
    # those that evaluate S themselves refuse it.
    C._force_choice(None, splits=5)
    try:
        p = C.describe_plan(a, b, None, c, "none", "f32", max_k_splits, 0, list(HOPPER[0]),
                            HOPPER[1], find_variant=functools.partial(find_variant, library=lib))
        assert p["values"][p["params"].index("splits")] == 5
        with pytest.raises(RuntimeError, match="evaluates S itself"):
            C.describe_plan(a, b, None, c, "none", "f32", max_k_splits, 0, list(HOPPER[0]),
                            HOPPER[1], find_variant=functools.partial(find_variant, library=old))
    finally:
        C._force_choice(None)


@pytest.mark.parametrize("layout_tile", list(FAMILY_SHAPES), ids="-".join)
def test_launcher_fills_every_kernel_parameter(compiled_manifests, monkeypatch, layout_tile):
    """For every combination of the public arguments (bias or not x
    activation x outer x output dtype x slices) on each tile family and B
    layout, the launch plan fills exactly the parameters of the kernel the
    variant compiles to (every kernel of it, the fallbacks too): the bias's
    three where the kernel has them, also for an activation without a bias
    (a bias of -0.0, implicit_bias), and none where it has not."""
    lib = _RepresentativeLibrary(compiled_manifests)
    find = functools.partial(find_variant, library=lib)
    layout, tile = layout_tile
    m, n = FAMILY_SHAPES[layout_tile]
    k = _K_OF.get(tile, 64)
    # A as K x M in rows of a multiple of 8 elements (16 bytes: the fast
    # kernel's requirement).
    a = torch.empty(k, -(-m // 8) * 8, dtype=torch.float16)[:, :m].T \
        if layout.startswith("km") else torch.empty(m, k, dtype=torch.float16)
    b = torch.empty(n, k, dtype=torch.float16).T if layout.endswith("nk") else \
        torch.empty(k, n, dtype=torch.float16)
    ws = {"ws_ptr", "ws_bytes", "locks_ptr", "locks_count"}
    maps = {"a_desc", "b_desc", "c_desc"}
    for with_bias, activation, outer, dtype, slices in itertools.product(
            (False, True), ("none", "relu", "gelu"), ("f32", "f16"),
            (torch.float16, torch.float32), (0, 1, 2)):
        c = torch.empty(m, n, dtype=dtype)
        bias = torch.empty(n, dtype=dtype) if with_bias else None
        what = f"{layout} {tile} bias={with_bias} {activation} {outer} {dtype} slices={slices}"
        p = C.describe_plan(a, b, bias, c, activation, outer, 32, slices, list(HOPPER[0]),
                            HOPPER[1], find_variant=find)
        key = lib.found[-1]
        # f16 outer sums where they are exact (at most two f16 sums: K =
        # 64's one chunk, of one sum but on the swapped tiles, which keep
        # four, and the 32-row tile, two; f16 C, no epilogue), as the
        # compiler takes them.
        sets = C.choose_launch("sm_90a", m, n, k, key.b_layout, slices, 32, HOPPER[1],
                               key.a_layout)["sets"]
        exact = dtype == torch.float16 and not with_bias and activation == "none" and \
            C.default_splits(k, 32) * sets <= 2
        assert _layouts(key) == layout and key.outer == ("f16" if exact else outer), what
        assert key.out == ("f32" if dtype == torch.float32 else "f16"), what
        # An activation without a bias runs its bias_* variant (a bias of
        # -0.0).
        assert key.epilogue == ("none" if not with_bias and activation == "none" else
                                "bias" if activation == "none" else f"bias_{activation}"), what
        variant = lib.find(key, "sm_90a")
        # Persistent blocks take one slice: more (where S = 1 at K = 64
        # allows none) would take the non-persistent family (and no
        # clusters: policy::clusterPays), as would midc's and largec's one
        # wave (K past 3072 here).
        want_tile = {"midc": "mid", "largec": "large", "pl": "large", "pl192": "w192",
                     "pl160": "w160", "plk": "large",
                     "pl192k": "w192", "pl160k": "w160", "pl128k": "mid", "pl176": "w176",
                     "pl224": "w224", "pl224k": "w224", "pl176k": "w176", "plh": "large",
                     "plt192": "t192",
                     "pl192h": "w192", "pl160h": "w160", "pl128h": "mid", "pl176h": "w176",
                     "pl224h": "w224", "plch": "large", "pl192ch": "w192",
                     "pl160ch": "w160", "pl128ch": "mid", "pl176ch": "w176",
                     "pl224ch": "w224"}.get(tile, tile) \
            if (tile in PERSISTENT_TILES or tile in ("midc", "largec")) and \
            min(slices, C.default_splits(k, 32)) > 1 else tile
        # The filling tiles' cost assumes the chosen slices, and 64 x 96 one
        # wave of them, and the transposed products one slice: named ones
        # (more than one for x96q, x64q, x128, x128c, x64n128q, x64sq) keep the rules' tile.
        if (tile in ("m64n160", "m64n192", "m64n256", "m192n96", "m64n96") and slices) or \
                (tile in ("x96q", "x64q", "x128", "x128c", "x64n128q", "x64sq") and slices > 1):
            want_tile = C.choose_launch("sm_90a", m, n, k, layout[-2:], slices, 32, HOPPER[1],
                                        "km" if layout.startswith("km") else "mk")["family"]
            assert want_tile not in ("m64n160", "m64n192", "m64n256", "m192n96", "m64n96",
                                     "x96q", "x64q", "x128", "x128c", "x64n128q", "x64sq"), what
        assert variant.key.tile == want_tile == p["family"], what
        # The policy's tiles and grid (clusters: whole pairs of row tiles).
        if slices == 0:
            launch = C.choose_launch("sm_90a", m, n, k, layout[-2:], 0, 32, HOPPER[1],
                                     "km" if layout.startswith("km") else "mk")
            assert (p["tiles"], p["grid"]) == (launch["tiles"], launch["grid"]), what
        swapped = want_tile in SWAPPED_TILES
        assert p["swapped"] == swapped, what
        # The library's kernels take S from the launch (splits-arg).
        args = {"a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_bk",
                "stride_bn", "stride_cm", "stride_cn", "splits"}
        if key.epilogue != "none":
            args |= {"in0_ptr", "stride_in0m", "stride_in0n"}
        for kern in variant.kernels:
            params = kern.manifest["params"]
            assert set(params) - ws - maps == args, (what, kern.name, params)
        assert p["params"] == variant.kernels[0].manifest["params"], what
        # A stream-K kernel's workspace: a slot a block where blocks share
        # the last wave's tiles (a stream-K family compiled with f16 outer
        # sums is a plain persistent kernel: none).
        first = variant.kernels[0].manifest
        if first.get("stream_k"):
            assert want_tile.endswith("k") and p["tiles"] % p["grid"][0], what
            assert p["sum_bytes"] == p["grid"][0] * first["workspace_bytes_per_block"], what
        elif want_tile in PERSISTENT_TILES:
            assert p["sum_bytes"] == 0, what
        assert len(p["values"]) == len(p["params"])
        assert p["values"][p["params"].index("splits")] == C.default_splits(k, 32), what
        assert (p["bias_slot"] is not None) == (key.epilogue != "none"), what
        if with_bias:
            assert p["values"][p["bias_slot"]] == bias.data_ptr(), what
        # A's tensor map: K rows of M where the kernel reads A along M (A
        # as K x M, or B as K x N as a swapped kernel's A); a swapped
        # kernel's B map is the call's A, K rows of M where A is K x M.
        descs = {p["params"][mp[0]]: (mp[2], mp[3]) for mp in p["maps"]}
        if "a_desc" in descs:
            dims, stride = descs["a_desc"]
            if swapped and layout.endswith("kn"):
                assert (dims, stride) == ((n, k), 2 * b.stride(0)), what
            elif swapped:
                assert dims == (k, n), what
            elif layout.startswith("km"):
                assert (dims, stride) == ((m, k), 2 * a.stride(1)), what
            else:
                assert dims == (k, m), what
        if swapped and layout.startswith("km"):
            # 8 dense rows of 16 bytes: read eight at a time as rows of 128
            # bytes (runtime::groupedRows; K is a multiple of 8 here).
            dense8 = (m, a.stride(1), k % 8) == (8, 8, 0)
            assert descs["b_desc"] == (((64, k - 7), 16) if dense8 else
                                       ((m, k), 2 * a.stride(1))), what
        # The call's A and B go to the kernel's b_ptr and a_ptr when swapped.
        a_slot, b_slot = p["params"].index("a_ptr"), p["params"].index("b_ptr")
        assert (p["a_slot"], p["b_slot"]) == ((b_slot, a_slot) if swapped else (a_slot, b_slot))


@pytest.mark.parametrize("layout_tile", list(BATCHED_SHAPES), ids="-".join)
def test_launcher_fills_every_batched_kernel_parameter(compiled_manifests, layout_tile):
    """A batch of products (rank-3 operands) takes its family's batched
    variant: the plan fills exactly its kernels' parameters (the batch
    strides and count too), the policy's tiles and grid of the whole batch,
    and rank-3 tensor maps stepping a batch element by its stride; for
    every outer and output type and slices (S > 1 at K = 1024: slices
    plan the batch's slice sums)."""
    lib = _RepresentativeLibrary(compiled_manifests)
    find = functools.partial(find_variant, library=lib)
    layout, tile = layout_tile
    batch, m, n = BATCHED_SHAPES[layout_tile]
    k = 1024
    # A batch stride past the element (padding between elements), A as
    # K x M in rows of a multiple of 8 elements.
    if "km" in layout:
        a = torch.empty(batch, k + 1, -(-m // 8) * 8, dtype=torch.float16)[:, :k, :m]
        a = a.transpose(1, 2)
    else:
        a = torch.empty(batch, m + 3, k, dtype=torch.float16)[:, :m]
    b = torch.empty(batch, n, k, dtype=torch.float16).transpose(1, 2) \
        if layout.endswith("nk") else torch.empty(batch, k, n, dtype=torch.float16)
    for outer, dtype, slices in itertools.product(("f32", "f16"), (torch.float16, torch.float32),
                                                  (0, 1, 2)):
        c = torch.empty(batch, m, n, dtype=dtype)
        what = f"{layout} {tile} {outer} {dtype} slices={slices}"
        p = C.describe_plan(a, b, None, c, "none", outer, 32, slices, list(HOPPER[0]),
                            HOPPER[1], find_variant=find)
        key = lib.found[-1]
        assert key.batched and _layouts(key) == layout and key.epilogue == "none", what
        launch = C.choose_launch("sm_90a", m, n, k, key.b_layout, slices, 32, HOPPER[1],
                                 key.a_layout, batch=batch)
        assert p["family"] == key.tile == launch["family"], what
        assert (p["tiles"], p["grid"], p["slices"]) == (launch["tiles"], launch["grid"],
                                                       launch["slices"]), what
        if slices == 0:
            assert key.tile == tile and p["slices"] == 1, what
        variant = lib.find(key, "sm_90a")
        # The configured kernel (TMA but for m16's mma.sync one) takes these
        # operands, and the slices' sums are the batch's tiles'.
        assert p["kernel"] == variant.kernels[0].name, what
        assert bool(p["maps"]) == (tile != "m16"), what
        if p["slices"] > 1:
            first = variant.kernels[0].manifest
            per = first.get("workspace_bytes_per_tile_slice",
                            first["tile"][0] * first["tile"][1] * (2 if key.outer == "f16" else 4))
            assert p["sum_bytes"] == p["tiles"] * p["slices"] * per, what
        args = {"a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_bk",
                "stride_bn", "stride_cm", "stride_cn", "splits", "stride_ab", "stride_bb",
                "stride_cb", "batch"}
        for kern in variant.kernels:
            assert kern.manifest["batched"], (what, kern.name)
            params = set(kern.manifest["params"])
            assert params - {"ws_ptr", "ws_bytes", "locks_ptr", "locks_count", "a_desc",
                             "b_desc", "c_desc"} == args, (what, kern.name)
        values = dict(zip(p["params"], p["values"]))
        assert (values["batch"], values["stride_ab"], values["stride_bb"],
                values["stride_cb"]) == (batch, a.stride(0), b.stride(0), c.stride(0)), what
        assert (values["M"], values["N"], values["K"]) == (m, n, k), what
        # Rank-3 maps: the batch third, a step of the operand's batch stride
        # (the kernel's A and B are the call's: no batched family is
        # swapped).
        operands = (a, b, c)
        names = [p["params"][mp[0]] for mp in p["maps"]]
        assert ("a_desc" in names) == ("a_desc" in p["params"]), what
        for mp in p["maps"]:
            assert (mp[7], mp[8]) == (batch, 2 * operands[mp[1]].stride(0)), what


def _encode_if_holds(encode_if, args):
    """Whether the parameter values `args` (by ABI name) meet a manifest's
    `encode_if`, read from the data alone, as a launcher outside MLIR reads
    it (docs/reference/kernel-abi.md)."""
    return (all(args[p] == 1 for p in encode_if.get("unit_stride", [])) and
            all(args[p] % 8 == 0 for p in encode_if.get("stride_multiple_of_8", [])) and
            all(args[p] % 16 == 0 for p in encode_if.get("pointer_aligned_16", [])) and
            all(args[s] > 0 or args[r] <= 1 for s, r in encode_if.get("positive_row_stride", [])))


@pytest.mark.parametrize("layouts,family,batch", [("nk", "pl", 0), ("kn", "plch", 0),
                                                  ("bnk", "pl", 8)])
def test_c_map_encoded_where_the_manifest_says(compiled_manifests, layouts, family, batch):
    """The plan encodes C's tensor map exactly where the chosen kernel's
    manifest's `encode_if` holds on C, and passes zero bytes (zero_map_slot)
    elsewhere: C of N off 8 columns, rows a multiple of 8, 4 or 2 elements
    apart, a start 2 bytes off 16, one row, a batch stride off 8 elements."""
    lib = _RepresentativeLibrary(compiled_manifests)
    find = functools.partial(find_variant, library=lib)
    key_layouts = layouts.lstrip("b")
    # (The batched plan takes its family at BATCHED_SHAPES' size.)
    m, k, ns = (1024, 1024, (1024, 1020)) if batch else (300, 256, (520, 516))
    seen = set()
    C._force_choice(family, 0)
    try:
        for n, ld, offset, rows, pad in itertools.product(
                ns, (0, 8, 4, 2), (0, 1), (m, 1), (0, 4) if batch else (0,)):
            width = n + ld
            b_shape = (n, k) if key_layouts == "nk" else (k, n)
            if batch:
                a = torch.empty(batch, rows, k, dtype=torch.float16)
                b = torch.empty(batch, *b_shape, dtype=torch.float16)
                step = rows * width + pad
                store = torch.empty(batch * step + offset, dtype=torch.float16)[offset:]
                c = store.as_strided((batch, rows, n), (step, width, 1))
            else:
                a = torch.empty(rows, k, dtype=torch.float16)
                b = torch.empty(*b_shape, dtype=torch.float16)
                store = torch.empty(rows * width + offset, dtype=torch.float16)[offset:]
                c = store.as_strided((rows, n), (width, 1))
            if key_layouts == "nk":
                b = b.transpose(-2, -1)
            p = C.describe_plan(a, b, None, c, "none", "f32", 32, 0, list(HOPPER[0]),
                                HOPPER[1], find_variant=find)
            key = lib.found[-1]
            rep = lib.reps[(_layouts(key), key.tile, key.epilogue != "none")]
            manifests = [mf for mf in compiled_manifests[rep] if mf["kernel"] == p["kernel"]]
            what = (layouts, n, ld, offset, rows, pad, p["kernel"])
            if "c_desc" not in p["params"]:
                continue
            args = {"M": rows, "N": n, "c_ptr": c.data_ptr(), "stride_cm": c.stride(-2),
                    "stride_cn": c.stride(-1)}
            if batch:
                args.update(batch=batch, stride_cb=c.stride(0))
            encode_if = manifests[0]["tensor_maps"]["c_desc"]["encode_if"]
            holds = _encode_if_holds(encode_if, args)
            seen.add(holds)
            c_maps = [mp for mp in p["maps"] if mp[1] == 2]
            assert (len(c_maps) == 1) == holds, what
            assert (p["zero_map_slot"] is None) == holds, what
    finally:
        C._force_choice(None)
    # Both ways, on a kernel that stores C by TMA.
    assert seen == {True, False}, seen


def _bound_broken(bounds, args):
    """The first of a manifest's 32-bit `bounds` that the parameter values
    `args` (by ABI name, and sum_slots) break, read from the data alone, as
    a launcher outside MLIR reads it (docs/reference/kernel-abi.md)."""
    for bound in bounds:
        if "range" in bound:
            value = args[bound["range"]]
            broken = not bound["at_least"] <= value <= bound["at_most"]
        elif "last_offset" in bound:
            rows, row_stride, cols, col_stride = (args[p] for p in bound["view"])
            broken = (rows - 1) * row_stride + (cols - 1) * col_stride > bound["at_most"]
        else:
            value = -(-args[bound["ceil_div"]] // bound["by"])
            broken = value * bound["times"] > bound["at_most"]
        if broken:
            return bound
    return None


def test_bounds_refuse_what_the_launcher_refuses(compiled_manifests):
    """A 32-bit kernel's manifest lists its bounds as data (checks.bounds);
    read from the data alone they refuse exactly the launches the package's
    launcher refuses (policy::violation), on operands that meet the
    kernel's other checks, with sizes and strides up to 2^32 and slices
    up to 65535. A 64-bit kernel lists none."""
    import random
    rng = random.Random(0)
    kinds = collections.Counter()
    for manifests in compiled_manifests.values():
        for mf in manifests:
            checks = mf["checks"]
            if "max_offset" not in checks:
                assert "bounds" not in checks, mf["kernel"]
                continue
            bm, bn, _ = mf["tile"]
            parallel = mf["slices"] != 1
            for _ in range(60):
                size = lambda: rng.choice([rng.randrange(1, 5000), rng.randrange(1, 2**32)])
                args = {name: 8 * rng.choice([rng.randrange(1, 5000), rng.randrange(1, 2**29)])
                        for name in mf["params"] if name.startswith("stride_")}
                args.update(M=size(), N=size(), K=size(), batch=rng.randrange(1, 64))
                args.update({name: 1 for name in checks.get("unit_stride", [])})
                args.update({name: 4096 for name in mf["params"] if name.endswith("_ptr")})
                slices = rng.choice([1, 2, 7, 65535]) if parallel else 1
                # T, whole clusters of row tiles.
                q = mf["cluster_m"]
                tiles = -(-args["M"] // (bm * q)) * q * -(-args["N"] // bn) * args["batch"]
                sum_slots = tiles * slices if slices > 1 else 0
                # (The launcher checks the persistent kernel's work tiles
                # first.)
                broken = ({"work": "tiles"} if tiles > checks.get("max_work_tiles", tiles)
                          else _bound_broken(checks["bounds"], {**args, "sum_slots": sum_slots}))
                why = C.kernel_violation(mf, args, slices)
                assert (why is None) == (broken is None), (mf["kernel"], args, slices, why, broken)
                # The same bound, in the launcher's words.
                said = {"range": lambda b: f"{b['range']} = ",
                        "last_offset": lambda b: f"{b['last_offset']}'s last element offset",
                        "ceil_div": lambda b: {"N": "block order",
                                               "sum_slots": "slice sums"}[b["ceil_div"]],
                        "work": lambda b: "work tiles"}
                if broken is not None:
                    kind = next(k for k in said if k in broken)
                    assert said[kind](broken) in why, (mf["kernel"], why, broken)
                kinds["none" if broken is None else
                      broken.get("range") and "range" or broken.get("last_offset") and
                      "last_offset" or broken.get("ceil_div", "work tiles")] += 1
    # Launches each kind refuses (the slice sums' on parallel kernels), and
    # ones they take.
    assert set(kinds) >= {"none", "range", "last_offset", "sum_slots"}, kinds


def test_off_sector_rows_take_64_byte_l2_promotion(compiled_manifests):
    """A TMA operand whose rows (or address) are 16- but not 32-byte aligned
    is encoded with 64-byte L2 promotion, else with the manifest's 256
    (gpupoor::runtime::l2PromotionFor)."""
    lib = _RepresentativeLibrary(compiled_manifests)
    find = functools.partial(find_variant, library=lib)
    m, n = FAMILY_SHAPES[("nk", "mid")]
    for k, ld, offset, want in ((64, 64, 0, 256), (64, 72, 0, 64), (64, 80, 0, 256),
                                (64, 64, 8, 64)):
        a = torch.empty(m * ld + offset, dtype=torch.float16)[offset:].view(m, ld)[:, :k]
        b = torch.empty(n, 64, dtype=torch.float16).T
        c = torch.empty(m, n, dtype=torch.float16)
        p = C.describe_plan(a, b, None, c, "none", "f32", 32, 0, list(HOPPER[0]), HOPPER[1],
                            find_variant=find)
        promotion = {mp[1]: mp[5] for mp in p["maps"]}
        assert promotion[0] == want, (ld, offset)
        assert promotion[1] == 256


def test_negative_zero_bias_changes_nothing():
    """The launcher's bias for an activation without one is -0.0 (csrc/launcher.cpp,
    implicitBias)."""
    # x + (-0.0) is x, bit for bit, for every f32 and f16 value but NaN.
    for dtype, bits in ((torch.float16, torch.int16), (torch.float32, torch.int32)):
        vals = torch.arange(-2**15, 2**15, dtype=torch.int32).to(torch.int16).view(torch.float16)
        vals = vals.to(dtype) if dtype == torch.float16 else torch.cat(
            [vals.float(), torch.tensor([0.0, -0.0, 1e-40, -1e-40, 3.4e38, float("inf"),
                                         -float("inf")])])
        vals = vals[~vals.isnan()]
        assert torch.equal((vals + torch.tensor(-0.0, dtype=dtype)).view(bits), vals.view(bits))
