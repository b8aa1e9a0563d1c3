"""Variant keys and sources, requirement checks, variant selection, cache
keys and the kernel-library build (with this checkout's gpupoor-opt)."""

import json
import shutil
import subprocess

import pytest
import torch

from gpupoor import compile as gcompile
from gpupoor._mlir_backend import chip_for, chips_for, narrow_tiles, plan
from gpupoor.build_library import main as build_main
from gpupoor.kernels import variant_key
from gpupoor.library import Kernel, KernelLibrary, KernelRequirementError, Variant, load_variant
from gpupoor.variants import (SM90A_TILES, SWAPPED_TILES, VariantKey,
                              auto_slices, default_splits, library_variants)


def test_variant_names_round_trip():
    for key in library_variants():
        assert VariantKey.from_name(key.name) == key
    with pytest.raises(ValueError):
        VariantKey(outer="f64")
    with pytest.raises(ValueError):
        VariantKey.from_name("nonsense")


def test_split_rules_match_the_compilers_model():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "Numerics"))
    import split_k_model as model
    for k in (1, 31, 32, 33, 1000, 4096, 14336, 100000):
        for ms in (1, 3, 32, 65535):
            assert default_splits(k, ms) == model.default_splits(k, ms)
    for tiles in (1, 5, 66, 132, 133, 1000):
        for s in (1, 4, 16, 70000):
            for blocks in (1, 2):
                for share in (0, 4):
                    assert auto_slices(tiles, s, 132, blocks, share) == \
                        model.num_slices(0, tiles, s, 132, blocks, share)


def test_sm90a_families_only_for_sm90a_nk():
    keys = library_variants()
    # 96, and 16 nk variants of each of n64, mid, s16, s16w and pl.
    assert len(keys) == 2 * 2 * 4 * 2 * 3 + 5 * 2 * 4 * 2
    for family in SM90A_TILES:
        fam = [k for k in keys if k.tile == family]
        assert len(fam) == 16 and all(k.b_layout == "nk" for k in fam)
        assert all(k.builds_for("sm_90a") for k in fam)
        assert not any(k.builds_for(chip) for k in fam
                       for chip in ("sm_80", "sm_86", "sm_89", "sm_90"))
    assert all(k.builds_for("sm_80") for k in keys if k.tile not in SM90A_TILES)
    assert "tile=64,16,64" in VariantKey(b_layout="nk", tile="s16").pipeline_options("sm_90a")
    assert "blocks-per-sm=2" in VariantKey(b_layout="nk", tile="s16w").pipeline_options("sm_90a")
    # Persistent blocks take one K slice.
    pl = VariantKey(b_layout="nk", tile="pl").pipeline_options("sm_90a").split()
    assert "persistent=true" in pl and "slices=1" in pl and "slices=0" not in pl
    assert "tile=128,256,64" in pl
    assert "slices=0" in VariantKey(b_layout="nk").pipeline_options("sm_90a").split()


def test_narrow_tiles_where_they_fit_one_wave():
    m64 = VariantKey(b_layout="nk", tile="m64")
    hopper = ("sm_90a", "sm_90")
    assert narrow_tiles(m64, hopper, 64, 4096, 132).tile == "n64"     # 64 tiles
    assert narrow_tiles(m64, hopper, 128, 4096, 132).tile == "n64"    # 128 tiles
    assert narrow_tiles(m64, hopper, 128, 4224, 132).tile == "n64"    # 2 x 66 = 132
    assert narrow_tiles(m64, hopper, 128, 4288, 132).tile == "m64"    # 2 x 67 > 132
    assert narrow_tiles(m64, hopper, 64, 14336, 132).tile == "m64"    # 224 tiles
    assert narrow_tiles(m64, ("sm_90",), 64, 4096, 132) == m64        # mma.sync library
    assert narrow_tiles(VariantKey(tile="m64"), hopper, 64, 4096, 132).tile == "m64"  # kn
    for tile in ("m16", "large"):
        key = VariantKey(b_layout="nk", tile=tile)
        assert narrow_tiles(key, hopper, 64, 4096, 132) == key
    narrow = narrow_tiles(m64, hopper, 64, 4096, 132)
    assert narrow.name == "nk_f32_none_f16_n64_s32" and VariantKey.from_name(narrow.name) == narrow


def test_mid_and_swapped_tiles_as_the_compiler_chooses_them():
    """The compiler's static choices (SelectKernelConfig.cpp oneWaveMidTile,
    selectSwappedTile) at run time: large to mid, m16 to s16."""
    hopper = ("sm_90a", "sm_90")
    large = VariantKey(b_layout="nk", tile="large")
    assert narrow_tiles(large, hopper, 512, 4096, 132).tile == "mid"      # 64 wide, 128 mid
    assert narrow_tiles(large, hopper, 512, 4096 + 128, 132) == large     # 68 wide: not under half
    assert narrow_tiles(large, hopper, 256, 2048, 132) == large           # 32 mid tiles
    # Beyond one wave of 128 x 256 tiles: persistent blocks (persistent=auto).
    assert narrow_tiles(large, hopper, 512, 14336, 132).tile == "pl"      # 224 wide tiles
    assert narrow_tiles(large, hopper, 4096, 4096, 132).tile == "pl"      # 512
    assert narrow_tiles(large, hopper, 1024, 4096, 132) == large          # 8 x 16 = 128
    assert narrow_tiles(large, hopper, 1024, 4096 + 128, 132).tile == "pl"  # 8 x 17 = 136
    assert narrow_tiles(large, ("sm_90",), 4096, 4096, 132) == large      # mma.sync library
    assert narrow_tiles(large, hopper, 128, 33024, 132) == large          # M <= 128: large only
    m16 = VariantKey(b_layout="nk", tile="m16")
    assert narrow_tiles(m16, hopper, 1, 4096, 132).tile == "s16"          # 64 swapped tiles
    assert narrow_tiles(m16, hopper, 16, 8448, 132).tile == "s16"         # 132
    assert narrow_tiles(m16, hopper, 16, 8512, 132).tile == "s16w"        # 133: two an SM
    assert narrow_tiles(m16, hopper, 1, 14336, 132).tile == "s16w"        # 224
    assert narrow_tiles(m16, hopper, 1, 16896, 132).tile == "s16w"        # 264
    assert narrow_tiles(m16, hopper, 1, 16960, 132) == m16                # 265
    assert narrow_tiles(m16, hopper, 1, 2048, 132).tile == "s16"          # 32: in slices
    assert narrow_tiles(m16, hopper, 16, 64, 132).tile == "s16"           # 1
    assert narrow_tiles(m16, ("sm_90",), 1, 4096, 132) == m16
    assert narrow_tiles(VariantKey(tile="m16"), hopper, 1, 4096, 132).tile == "m16"  # kn
    assert "s16" in SWAPPED_TILES and "s16w" in SWAPPED_TILES


def test_chip_for_capability():
    assert chip_for((8, 0)) == "sm_80"
    assert chip_for((8, 6)) == "sm_86"
    assert chip_for((8, 7)) == "sm_86"
    assert chip_for((8, 9)) == "sm_89"
    # Hopper: the arch-specific sm_90a (wgmma) first, then sm_90.
    assert chip_for((9, 0)) == "sm_90a"
    assert chips_for((9, 0)) == ("sm_90a", "sm_90")
    assert chips_for((8, 6)) == ("sm_86",)
    assert chip_for((7, 5)) is None
    assert chip_for((10, 0)) is None


def test_variant_key_from_operands():
    w = torch.empty(48, 64, dtype=torch.float16)  # nn.Linear's (N, K)
    assert variant_key(w.T, 200, True, "relu", "f32", torch.float16, 32).name == \
        "nk_f32_bias_relu_f16_large_s32"
    assert variant_key(w.T.contiguous(), 3, False, "none", "f16", torch.float32, 8).name == \
        "kn_f16_none_f32_m16_s8"
    assert variant_key(w.T, 17, False, "gelu", "f32", torch.float16, 32).epilogue == "bias_gelu"
    assert variant_key(w.T, 17, False, "none", "f32", torch.float16, 32).tile == "m64"
    assert variant_key(w.T, 129, False, "none", "f32", torch.float16, 32).tile == "large"


def manifest(**over):
    m = {"kernel": "gpupoor_matmul_0", "tile": [128, 128, 32], "group_m": 8,
         "params": ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak",
                    "stride_bk", "stride_bn", "stride_cm", "stride_cn", "ws_ptr", "ws_bytes",
                    "locks_ptr", "locks_count"],
         "checks": {"unit_stride": ["stride_ak", "stride_bn"],
                    "stride_multiple_of_8": ["stride_am", "stride_bk"],
                    "pointer_aligned_16": ["a_ptr", "b_ptr"],
                    "max_size": 2**31 - 1 - 8192, "max_offset": 2**31 - 1}}
    m.update(over)
    return m


def args(m=64, n=64, k=64, **over):
    a = {"a_ptr": 4096, "b_ptr": 8192, "c_ptr": 0, "M": m, "N": n, "K": k,
         "stride_am": k, "stride_ak": 1, "stride_bk": n, "stride_bn": 1,
         "stride_cm": n, "stride_cn": 1}
    a.update(over)
    return a


def test_checks():
    k = Kernel(manifest(), None)
    assert k.violation(args()) is None
    assert "stride_ak" in k.violation(args(stride_ak=2))
    assert "multiple of 8" in k.violation(args(stride_am=65))
    assert "aligned" in k.violation(args(a_ptr=4098))
    # Offsets past 2^31 - 1: A of 2^31 elements.
    assert "A's last element offset" in k.violation(args(m=2**20 + 1, k=2048))
    assert "outside" in k.violation(args(stride_cm=2**31))
    assert k.violation(args(m=2**10, n=2**10), slices=4) is None
    assert "slice sums" in k.violation(args(m=2**14, n=2**14), slices=8)
    # Element-copy kernels and 64-bit ones check less.
    assert Kernel(manifest(checks={"max_size": 2**31 - 8193, "max_offset": 2**31 - 1}),
                  None).violation(args(stride_ak=3)) is None
    assert Kernel(manifest(checks={}), None).violation(args(m=2**21, k=2**12)) is None
    # The TMA kernel's tensor maps: positive row strides where rows > 1.
    tma = Kernel(manifest(checks={"positive_row_stride": [["stride_am", "M"],
                                                           ["stride_bn", "N"]]}), None)
    assert tma.violation(args()) is None
    assert "stride_am = 0" in tma.violation(args(stride_am=0))
    assert tma.violation(args(m=1, stride_am=0)) is None
    assert "stride_bn = -64" in tma.violation(args(stride_bn=-64))
    # A persistent kernel's work tiles (the batch's too) stay below its
    # 32-bit loop bound.
    pers = Kernel(manifest(checks={"max_work_tiles": 2**31 - 1 - 132}), None)
    assert pers.violation(args(m=128 * 2**15, n=128 * 2**10)) is None
    assert "work tiles" in pers.violation(args(m=128 * 2**15, n=128 * 2**16))
    assert "work tiles" in pers.violation(args(m=128, n=128, batch=2**31 - 132))


def test_select_takes_the_first_kernel_that_fits():
    fast = Kernel(manifest(kernel="gpupoor_matmul_0"), None)
    elements = Kernel(manifest(kernel="gpupoor_matmul_0_elements",
                               checks={"max_size": 2**31 - 8193, "max_offset": 2**31 - 1}), None)
    wide = Kernel(manifest(kernel="gpupoor_matmul_0_i64", checks={}), None)
    v = Variant(VariantKey(), "sm_90", [fast, elements, wide], None)
    assert v.select(args()) is fast
    assert v.select(args(stride_ak=2)) is elements
    assert v.select(args(m=2**20 + 1, k=2048)) is wide
    only_fast = Variant(VariantKey(), "sm_90", [fast], None)
    with pytest.raises(KernelRequirementError, match="stride_ak = 2, not 1"):
        only_fast.select(args(stride_ak=2))


def test_plan_slices():
    v = Variant(VariantKey(), "sm_90", [Kernel(manifest(), None)], None)
    s = default_splits(4096, 32)
    assert plan(v, 8192, 8192, 4096, 0, 132) == (s, 1)        # tiles fill the GPU
    assert plan(v, 1, 4096, 4096, 0, 132)[1] > 1              # 32 tiles: slices
    assert plan(v, 1, 4096, 4096, 1, 132) == (s, 1)           # sequential forced
    assert plan(v, 1, 4096, 4096, 7, 132) == (s, 7)
    assert plan(v, 1, 4096, 4096, 1000, 132) == (s, s)        # at most S
    # Persistent blocks take one K slice whatever the call asks.
    pl = Variant(VariantKey(b_layout="nk", tile="pl"), "sm_90a", [Kernel(manifest(), None)], None)
    for slices in (0, 1, 7):
        assert plan(pl, 256, 256, 4096, slices, 132) == (s, 1)


def test_cache_key_changes_with_every_input():
    key = VariantKey()
    base = gcompile.cache_key("sm_90", key, "v1")
    assert base == gcompile.cache_key("sm_90", key, "v1")
    assert base != gcompile.cache_key("sm_80", key, "v1")
    assert base != gcompile.cache_key("sm_90", VariantKey(outer="f16"), "v1")
    assert base != gcompile.cache_key("sm_90", VariantKey(max_splits=8), "v1")
    assert base != gcompile.cache_key("sm_90", key, "v2")


@pytest.mark.parametrize("key", library_variants(), ids=lambda k: k.name)
def test_every_variant_fuses_into_one_kernel(gpupoor_opt, key):
    res = subprocess.run([gpupoor_opt, "--gpupoor-split-k", "-"], input=key.source(),
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("gpupoor.matmul") == 1
    assert "linalg." not in res.stdout


def test_build_library_and_load(gpupoor_opt, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUPOOR_OPT", gpupoor_opt)
    names = ["nk_f32_bias_relu_f16_large_s32", "kn_f16_none_f32_m16_s32"]
    assert build_main(["--out", str(tmp_path), "--chips", "sm_80,sm_90,sm_90a", "--only",
                       *names, "--jobs", "2"]) == 0
    lib = KernelLibrary(roots=[tmp_path], cache_dir=tmp_path / "cache", allow_compile=False)
    for chip in ("sm_80", "sm_90"):
        index = json.loads((tmp_path / chip / "index.json").read_text())
        assert sorted(index["variants"]) == sorted(names)
        assert sorted(lib.prebuilt(chip)) == sorted(names)
        for name in names:
            v = lib.find(VariantKey.from_name(name), chip)
            assert [k.name for k in v.kernels] == [
                "gpupoor_matmul_0", "gpupoor_matmul_0_elements", "gpupoor_matmul_0_i64"]
            for k in v.kernels:
                assert k.cubin.read_bytes()[:4] == b"\x7fELF"
                assert k.manifest["chip"] == chip
                assert len(k.manifest["param_types"]) == len(k.manifest["params"])
                assert k.manifest["slices"] == 0
            assert v.kernels[0].tile == ((128, 128, 32) if "large" in name else (16, 128, 64))
    # sm_90a: the large nk variant is the wgmma kernel (128 x 256 x 64,
    # two warpgroups); the small-M kn one the sm_90 mma.sync kernel.
    wg = lib.find(VariantKey.from_name(names[0]), "sm_90a").kernels[0]
    assert (wg.manifest["chip"], wg.tile, wg.manifest["warps"]) == ("sm_90a", (128, 256, 64),
                                                                   [8, 1])
    small = lib.find(VariantKey.from_name(names[1]), "sm_90a").kernels[0]
    assert (small.manifest["chip"], small.tile) == ("sm_90", (16, 128, 64))
    # Not in the roots and compiling is off: unavailable, not an error.
    assert lib.find(VariantKey(outer="f16"), "sm_90") is None
    # A Hopper device takes the best chip the roots hold.
    from gpupoor._mlir_backend import _find
    only90 = KernelLibrary(roots=[tmp_path / "only90"], cache_dir=tmp_path / "cache",
                           allow_compile=False)
    (tmp_path / "only90").mkdir()
    shutil.copytree(tmp_path / "sm_90", tmp_path / "only90" / "sm_90")
    assert _find(only90, VariantKey.from_name(names[0]), ("sm_90a", "sm_90")).chip == "sm_90"
    assert _find(lib, VariantKey.from_name(names[0]), ("sm_90a", "sm_90")).chip == "sm_90a"


def test_build_library_refuses_bad_arguments(gpupoor_opt, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUPOOR_OPT", gpupoor_opt)
    assert build_main(["--out", str(tmp_path), "--chips", "sm_70"]) == 2
    assert "unknown chip 'sm_70'" in capsys.readouterr().err
    assert build_main(["--out", str(tmp_path), "--only", "bogus"]) == 2
    assert build_main(["--out", str(tmp_path), "--tiles", "huge"]) == 2
    monkeypatch.setenv("GPUPOOR_OPT", str(tmp_path / "missing"))
    monkeypatch.setenv("PATH", "")
    assert build_main(["--out", str(tmp_path)]) == 2


def test_compiles_on_demand_into_the_cache(gpupoor_opt, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUPOOR_OPT", gpupoor_opt)
    lib = KernelLibrary(roots=[], cache_dir=tmp_path, allow_compile=True)
    key = VariantKey(max_splits=8)
    v = lib.find(key, "sm_86")
    assert v is not None and v.kernels[0].manifest["max_splits"] == 8
    assert v.kernels[0].manifest["chip"] == "sm_86"
    # A second library finds it in the cache without compiling.
    monkeypatch.setenv("GPUPOOR_OPT", str(tmp_path / "missing"))
    again = KernelLibrary(roots=[], cache_dir=tmp_path, allow_compile=True)
    assert again.find(key, "sm_86") is None  # the compiler's version is part of the key
    monkeypatch.setenv("GPUPOOR_OPT", gpupoor_opt)
    assert again.find(key, "sm_86").where == v.where


def test_pip_installs_the_package_with_its_library(tmp_path):
    """`pip install ./python` ships the package and what build_library
    wrote into gpupoor/_kernels (a stand-in library here)."""
    import shutil
    import sys
    from pathlib import Path
    src = Path(__file__).resolve().parents[1]
    tree = tmp_path / "src"
    shutil.copytree(src, tree, ignore=shutil.ignore_patterns("_kernels", "build", "*.egg-info",
                                                            "__pycache__", "tests"))
    variant = tree / "gpupoor" / "_kernels" / "sm_90" / "kn_f32_none_f16_large_s32"
    variant.mkdir(parents=True)
    (variant.parent / "index.json").write_text('{"variants": {}}')
    for name in ("variant.json", "gpupoor_matmul_0.json", "gpupoor_matmul_0.cubin"):
        (variant / name).write_text("{}")
    res = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                          "--no-build-isolation", "--no-index", "--target", str(tmp_path / "site"),
                          str(tree)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    site = tmp_path / "site" / "gpupoor"
    assert (site / "kernels.py").is_file() and (site / "modules.py").is_file()
    # The compiled launch path is built from its shipped source.
    assert (site / "csrc" / "fastpath.cpp").is_file()
    assert (site / "_kernels" / "sm_90" / "kn_f32_none_f16_large_s32" / "gpupoor_matmul_0.cubin").is_file()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU exit")
def test_tools_exit_cleanly_without_a_gpu(capsys):
    from gpupoor import accuracy, bench
    assert bench.main(["--reps", "1"]) == 2
    assert accuracy.main([]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err


def test_hopper_triton_config_ends_chunks_on_steps():
    hopper = pytest.importorskip("gpupoor._triton_hopper",
                                 reason="this Triton has no Gluon for Hopper")
    from gpupoor._triton_backend import chunking
    for k in (24, 1000, 4096, 4104, 8192, 14336):
        for max_splits in (1, 8, 32):
            _, chunk = chunking(k, max_splits)
            for out in (torch.float16, torch.float32):
                bm, bn, bk, stages = hopper.config(chunk, out)
                assert chunk % bk == 0
                # The ring and the result tile fit in Hopper's 227 KiB.
                smem = stages * (bm + bn) * bk * 2 + bm * bn * (2 if out == torch.float16 else 4)
                assert smem <= 227 * 1024, (chunk, out, smem)
    # wgmma: warps cover 16 rows each along M first; N per instruction <= 256.
    assert hopper._warps_per_cta(128, 8) == [8, 1]
    assert hopper._instr_n(128, 256, 8) == 256
    assert hopper._instr_n(64, 256, 8) == 128


def test_default_backend_by_device(monkeypatch):
    from gpupoor import kernels
    dev = torch.device("cuda", 0)
    monkeypatch.setattr(kernels, "_ENV_BACKEND", None)
    # Devices with cubins take mlir whatever the shape (Hopper's sm_90a
    # wgmma kernel leads the triton backend's on large products).
    monkeypatch.setattr(kernels, "device_info", lambda index: (("sm_90a", "sm_90"), 132))
    assert kernels.default_backend(dev, 4096, 4096, 4096) == "mlir"
    assert kernels.default_backend(dev, 1, 4096, 4096) == "mlir"
    monkeypatch.setattr(kernels, "device_info", lambda index: (("sm_80",), 108))
    assert kernels.default_backend(dev, 4096, 4096, 4096) == "mlir"
    monkeypatch.setattr(kernels, "device_info", lambda index: ((), 84))
    assert kernels.default_backend(dev, 1, 1) == "triton"
    monkeypatch.setattr(kernels, "_ENV_BACKEND", "mlir")
    assert kernels.default_backend(dev, 4096, 4096, 4096) == "mlir"
    monkeypatch.setattr(kernels, "_ENV_BACKEND", "cuda")
    with pytest.raises(ValueError, match="GPUPOOR_BACKEND"):
        kernels.default_backend(dev)


def test_launch_config_layout_and_switch(monkeypatch):
    """cuLaunchKernelEx's structures as cuda.h lays them out, and
    GPUPOOR_DEPENDENT_LAUNCH."""
    import ctypes

    from gpupoor import _driver

    assert ctypes.sizeof(_driver.LaunchAttribute) == 72
    assert _driver.LaunchAttribute.value.offset == 8
    assert ctypes.sizeof(_driver.LaunchConfig) == 56
    assert (_driver.LaunchConfig.stream.offset, _driver.LaunchConfig.attrs.offset,
            _driver.LaunchConfig.num_attrs.offset) == (32, 40, 48)
    monkeypatch.delenv("GPUPOOR_DEPENDENT_LAUNCH", raising=False)
    assert _driver.dependent_launches()
    monkeypatch.setenv("GPUPOOR_DEPENDENT_LAUNCH", "0")
    assert not _driver.dependent_launches()


def test_load_variant_refuses_stream_k_kernels(tmp_path):
    """A stream-K manifest (its workspace a slot a block) is refused by
    name, not launched with a workspace sized for slices."""
    (tmp_path / "variant.json").write_text(json.dumps({"kernels": ["gpupoor_matmul_0.json"]}))
    (tmp_path / "gpupoor_matmul_0.json").write_text(
        json.dumps({"stream_k": True, "cubin": "gpupoor_matmul_0.cubin"}))
    with pytest.raises(ValueError, match="stream-K kernel"):
        load_variant(library_variants()[0], "sm_90a", tmp_path)
