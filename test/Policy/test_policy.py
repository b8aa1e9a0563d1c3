"""One policy: what gpupoor-split-k decides is what the policy library
(gpupoor-policy) says, on 10^4 problems; the numpy model of the split and
slice rules (test/Numerics/split_k_model.py), written from the rules' text,
agrees with the library as an independent oracle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "Numerics"))

import compiler_strategies  # noqa: E402
import problems as grid  # noqa: E402
import split_k_model as model  # noqa: E402

COUNT = int(os.environ.get("GPUPOOR_POLICY_COUNT", "10000"))


def _tool(name: str) -> str:
    env = {"gpupoor-opt": "GPUPOOR_OPT", "gpupoor-policy": "GPUPOOR_POLICY"}[name]
    path = os.environ.get(env)
    if not path:
        pytest.skip(f"{env} is not set")
    return path


def decisions(problems: list[dict]) -> list[dict]:
    """gpupoor-policy's JSON line for each problem."""
    res = subprocess.run([_tool("gpupoor-policy"), "-"],
                         input="".join(grid.line(p) + "\n" for p in problems),
                         capture_output=True, text=True, check=True)
    out = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(out) == len(problems)
    return out


@pytest.fixture(scope="module")
def problems() -> list[dict]:
    return grid.problems(COUNT)


@pytest.fixture(scope="module")
def policy(problems) -> list[dict]:
    return decisions(problems)


def test_compiler_decides_as_the_policy(problems, policy):
    compiled = compiler_strategies.strategies(_tool("gpupoor-opt"), problems)
    assert len(problems) >= 10**4 or COUNT < 10**4
    mismatches = []
    for p, got, want in zip(problems, compiled, policy):
        assert got is not None, f"gpupoor-split-k left {p} alone"
        if got != {key: v for key, v in want["strategy"].items() if key != "tuned"}:
            mismatches.append((grid.line(p), got, want["strategy"]))
    assert not mismatches, f"{len(mismatches)} differ, e.g. {mismatches[:3]}"


def test_every_strategy_has_a_kernel(problems):
    """Every strategy the policy gives the grid has a kernel configuration
    that verifies (on sm_86 and sm_89 the decode tile's BK = 128 took 108
    KiB of shared memory of their 99)."""
    errors = compiler_strategies.configuration_errors(_tool("gpupoor-opt"), problems)
    assert not errors, errors[:5]


def test_the_grid_covers_every_choice(policy):
    """The grid reaches every tile rule, swapped tiles, automatic slices
    beyond one and every package family (so that agreement means
    something)."""
    tiles = {tuple(d["strategy"]["tile"]) for d in policy}
    for t in ((16, 128, 64), (16, 128, 128), (32, 128, 64), (64, 128, 64), (64, 64, 64),
              (128, 128, 64), (128, 256, 64), (128, 192, 64), (128, 160, 64), (128, 128, 32),
              (256, 128, 64), (128, 64, 32), (64, 16, 128), (32, 16, 256), (32, 64, 128),
              (64, 160, 64), (64, 192, 64), (64, 256, 64), (64, 32, 128), (64, 8, 128),
              (16, 256, 128), (192, 96, 64), (128, 176, 64), (128, 224, 64), (64, 96, 64),
              (192, 192, 64), (64, 32, 64)):
        assert t in tiles, t
    assert any(d["strategy"]["slices"] > 1 for d in policy)
    families = {d["launch"]["family"] for d in policy if "launch" in d}
    assert families == {"large", "m16", "m64", "n64", "mid", "s16", "s16w", "s32", "s32w",
                        "pl", "w192",
                        "pl192", "w160", "pl160", "pl128", "m32", "m32w", "m64w", "n64w",
                        "m64c", "midc", "pl128c", "largec", "plc", "w192c", "pl192c", "w160c",
                        "pl160c", "plk", "pl192k", "pl160k", "pl128k", "m64n160", "m64n192",
                        "m64n256", "s16q", "s16wc", "s32q", "s32wc", "s8", "s8w", "s8q",
                        "s8wc", "s16c", "s32c", "s8c", "m16n256", "m192n96", "w176", "pl176",
                        "w224", "pl224", "w176c", "pl176c", "w224c", "pl224c", "pl176k", "pl224k",
                        "plh", "pl192h", "pl160h", "pl128h", "pl176h", "pl224h", "plch",
                        "pl192ch", "pl160ch", "pl128ch", "pl176ch", "pl224ch", "n16", "n16w",
                        "n16q", "n16c", "n16wc", "m64q", "m64n96", "x96q", "t192",
                        "plt192", "x128", "x128c", "x64q", "n32", "n32w", "n64s",
                        "n64sw", "x64n128q", "x64sq", "s16e", "s16we"}


def test_model_agrees_with_the_policy(problems, policy):
    """split_k_model's tile_splits and num_slices (with its B and Q) give
    the launch's S and P'."""
    checked = 0
    for p, d in zip(problems, policy):
        launch = d.get("launch")
        # (A tuned class's slices are the table's.)
        if launch is None or "slices" in p or "max-splits" in p or d["strategy"]["tuned"]:
            continue
        tile = launch["tile"][:2]
        chip = launch["chip"]
        assert launch["splits"] == model.tile_splits(chip, launch["tile"], p["k"]), \
            grid.line(p)
        slices = model.num_slices(0, launch["tiles"], launch["splits"], d["sm_count"],
                                  model.slice_blocks_per_sm(chip, tile),
                                  model.slice_one_share(chip, tile), p["k"])
        if launch["family"].startswith("pl") or model.short_k_one_slice(chip, p["k"]):
            slices = 1
        assert launch["slices"] == slices, grid.line(p)
        # The compiler's static strategy: the same rules on its own tile.
        s = d["strategy"]
        if "splits" not in p and "batch" not in p and "?" not in (p["m"], p["n"]):
            m, n = (p["n"], p["m"]) if s["swapped"] else (p["m"], p["n"])
            tiles = -(-m // s["tile"][0]) * -(-n // s["tile"][1])
            want = model.num_slices(0, tiles, s["splits"], d["sm_count"],
                                    model.slice_blocks_per_sm(s["chip"], s["tile"][:2]),
                                    model.slice_one_share(s["chip"], s["tile"][:2]), p["k"])
            if model.short_k_one_slice(s["chip"], p["k"]):
                want = 1
            assert s["slices"] == want, grid.line(p)
        checked += 1
    assert checked > len(problems) // 2


def test_bad_input_exits_nonzero():
    for line in ("chip=sm_99 m=1 n=1 k=1", "m=-1 n=1 k=1", "m=1 n=1 k=1 tile=1,2",
                 "m=1 n=1 k=1 slices=x", "bogus=1",
                 # Operands past 2^48 elements (a SIGFPE before).
                 "m=1099511627776 n=1099511627776 k=64", "m=16777216 n=64 k=16777217",
                 "batch=65537 m=65536 n=65536 k=64"):
        res = subprocess.run([_tool("gpupoor-policy"), "-"], input=line + "\n",
                             capture_output=True, text=True)
        assert res.returncode == 2 and "gpupoor-policy:" in res.stderr, line


def test_clusters_of_b_on_sectors():
    """policy::clusterPays: a product whose B's rows lie on 32-byte sectors
    (K as N x K, N as K x N) while its other rows do not takes no clusters
    where their pairs of row tiles add a wave, and the tile rules weigh the
    tiles alone; a 128 x 128 tile past one wave and B's rows off sectors
    keep them (the families ending in c, or ch for the split handover). On
    114 SMs the same count decides the tile and the launch: 600 x 5000 runs
    100 tiles of 128 x 256 alone, not 120 in pairs."""
    cases = {
        # 128 x 176 alone (129 tiles) for 128 x 256 in pairs (120).
        "m=270 n=7556 k=2656 b=nk a=mk": ("w176", 129),
        # 243 tiles of 128 x 224 alone for 240 of 128 x 256 in pairs.
        "m=1032 n=5976 k=1648 b=nk a=mk": ("pl224h", 243),
        # One wave of 128 x 128 alone (130) for 128 x 160 in pairs.
        "m=1644 n=1278 k=2176 b=nk a=mk": ("mid", 130),
        # Pairs that add no wave stay.
        "m=906 n=1420 k=4832 b=nk a=mk": ("midc", 96),
        # 128 x 224 in pairs (624 tiles): 128 x 128 past a wave keeps its
        # clusters, whose 1080 tiles cost more.
        "m=2914 n=5748 k=6352 b=nk a=mk": ("pl224ch", 624),
        # K off sectors: 128 x 160 in pairs, as before.
        "m=1040 n=1714 k=1512 b=nk a=mk": ("w160c", 110),
        "m=600 n=5000 k=2048 b=nk a=mk sm-count=114": ("plh", 100),
        # B as K x N by its rows, N long: on sectors (K off), 128 x 128
        # alone (120) for 128 x 192 in pairs; A as K x M too (128 x 192
        # alone, 225, for 128 x 256 persistent in pairs).
        "m=297 n=5104 k=842 b=kn a=mk": ("pl128", 120),
        "m=528 n=8640 k=526 b=kn a=km": ("pl192", 225),
        # The transposed product's rule counts clusters wherever rows start
        # off sectors, as measured (swappedMidTile): 126 tiles, 140 in pairs.
        "m=1040 n=1712 k=1512 b=kn a=mk": ("x128c", 126),
    }
    got = decisions([dict(kv.split("=") for kv in ("chip=sm_90a " + line).split())
                     for line in cases])
    for (line, (family, tiles)), d in zip(cases.items(), got):
        assert (d["launch"]["family"], d["launch"]["tiles"]) == (family, tiles), line


def _package():
    """gpupoor._C of this checkout (built by the CMake build), or skip."""
    sys.path.insert(0, str(HERE.parents[1] / "python"))
    try:
        from gpupoor._native import C
    except ImportError as e:
        pytest.skip(f"gpupoor._C is not built: {e}")
    return C


def test_package_decides_as_the_compiler(problems, policy):
    """The package's launcher (gpupoor._C.choose_launch, which its C++
    launcher calls: python/gpupoor/csrc/plan.cpp) decides what
    gpupoor-policy says for every static problem, and what gpupoor-split-k
    chose wherever the library has a family of the compiler's tile: the
    same tile, the same swap, S and P'."""
    C = _package()
    same = checked = 0
    families = {}
    km_launches = {False: 0, True: 0}
    batched_as_compiled = 0
    for p, d in zip(problems, policy):
        want = d.get("launch")
        if want is None:
            continue
        got = C.choose_launch(p["chip"], p["m"], p["n"], p["k"], p["b"], p.get("slices", 0),
                              p.get("max-splits", model.DEFAULT_MAX_SPLITS), d["sm_count"],
                              p.get("a", "mk"), batch=p.get("batch", 0))
        # A batch takes a family with batched variants, and the compiler's
        # own configuration wherever a batched family has its tile
        # (gpupoor-split-k's batch_matmul: test_compiler_decides_as_the_policy).
        if "batch" in p:
            assert C.family_info(got["family"])["batched"], grid.line(p)
            s = d["strategy"]
            if "splits" not in p and any(
                    C.family_builds(f, p["chip"], p["b"], p.get("a", "mk"), True)
                    and list(C.family_tile(f, p["chip"], p["b"])) == s["tile"]
                    for f in C.FAMILIES):
                assert (list(got["tile"]), got["swapped"], got["splits"], got["slices"]) == \
                    (s["tile"], s["swapped"], s["splits"], s["slices"]), grid.line(p)
                batched_as_compiled += 1
        assert got["family"] == want["family"] and got["chip"] == want["chip"], grid.line(p)
        assert got["a_layout"] == want["a"], grid.line(p)
        # A as K x M: sm_90a's wgmma families read it so, but for the few
        # rows (M <= 32) that the policy copies M x K first; elsewhere the M
        # x K variant reads it through its strides.
        if p.get("a") == "km":
            km_launches[got["a_layout"] == "km"] += 1
            builds = C.family_builds(got["family"], p["chip"], p["b"], "km")
            assert got["a_layout"] == "mk" or builds, grid.line(p)
            assert got["a_layout"] == "km" or not builds or p["m"] <= 32, grid.line(p)
        assert list(got["tile"]) == want["tile"] and got["swapped"] == want["swapped"]
        assert (got["splits"], got["slices"], got["tiles"]) == \
            (want["splits"], want["slices"], want["tiles"]), grid.line(p)
        assert list(got["grid"]) == want["grid"], grid.line(p)
        checked += 1
        s = d["strategy"]
        if list(got["tile"]) == s["tile"] and got["family"] != "pl" and "splits" not in p:
            assert (got["chip"], got["swapped"], got["splits"], got["slices"]) == \
                (s["chip"], s["swapped"], s["splits"], s["slices"]), grid.line(p)
            same += 1
        families[got["family"]] = families.get(got["family"], 0) + 1
    assert checked >= len(problems) // 2
    assert min(km_launches.values()) > 0, km_launches
    assert batched_as_compiled >= 100, batched_as_compiled
    # Most problems run the compiler's own tile; the rest its nearest family.
    assert same >= checked // 2, (same, checked, families)


def test_blocks_an_sm_as_the_compiler(problems, policy):
    """Where the package's launch runs the compiler's own configuration on
    sm_90a (its tile, swap and slices, a block a tile), its family's variant
    takes the blocks an SM and the clusters gpupoor-select-kernel-config
    gives the static kernel: m32w, m64w, n64w and s16w exactly where that is
    two blocks an SM (policy::wgmmaBlocksPerSM), the families ending in c
    and ending in q exactly where it is clusters of two and four
    (policy::clusterBlocks), the persistent families exactly where its
    kernel is persistent (policy::persistentPays), the
    persistent ones ending in k exactly where it is stream-K
    (policy::streamKPays), and the persistent ones ending in h exactly where
    it is the split handover (policy::splitHandoverPays)."""
    C = _package()
    configs = compiler_strategies.tma_configs(_tool("gpupoor-opt"), problems)
    checked = {"blocks 1": 0, "blocks 2": 0, "cluster 1": 0, "cluster 2": 0, "cluster 4": 0,
               "persistent False": 0, "persistent True": 0, "stream-K False": 0, "stream-K True": 0, "persistent handover False": 0,
               "persistent handover True": 0}
    for p, d, compiled in zip(problems, policy, configs):
        launch, s = d.get("launch"), d["strategy"]
        if launch is None or compiled is None or launch["chip"] != "sm_90a" or "splits" in p:
            continue
        if (launch["tile"], launch["swapped"], launch["slices"]) != \
                (s["tile"], s["swapped"], s["slices"]):
            continue
        # An A stored K x M that both copy M x K first (policy::copiesKMajorA)
        # runs the copy's kernel, which the memref form here does not show.
        if launch["a"] != p.get("a", "mk"):
            continue
        family = C.family_config(launch["family"], "sm_90a")
        # (A persistent family's blocks an SM are its grid's: one.)
        if not launch["family"].startswith("pl"):
            got = family["blocks_per_sm"] or 1
            assert got == compiled["blocks_per_sm"], (grid.line(p), launch["family"])
            checked[f"blocks {got}"] += 1
        assert family["cluster_m"] == compiled["cluster_m"], (grid.line(p), launch["family"])
        checked[f"cluster {family['cluster_m']}"] += 1
        # Persistent blocks exactly where the compiler's kernel loops over
        # its tiles (policy::persistentPays, quadClusterPays).
        assert family["persistent"] == compiled["persistent"], (grid.line(p), launch["family"])
        checked[f"persistent {family['persistent']}"] += 1
        # Stream-K: the persistent families ending in k exactly where the
        # compiler's kernel shares the last wave's tiles
        # (policy::streamKPays), and no other family.
        assert family["stream_k"] == compiled["stream_k"], (grid.line(p), launch["family"])
        checked[f"stream-K {family['stream_k']}"] += 1
        # The split handover: every two-warpgroup family a block a tile has
        # it (the compiler's dynamic grids' choice); the persistent ones
        # exactly where the compiler's static kernel takes it.
        if family["persistent"]:
            assert family["split_handover"] == compiled["split_handover"], \
                (grid.line(p), launch["family"])
            checked[f"persistent handover {family['split_handover']}"] += 1
    assert min(checked.values()) > 3, checked
    assert min(v for key, v in checked.items()
               if "stream-K" not in key and key != "cluster 4") > 20, checked
