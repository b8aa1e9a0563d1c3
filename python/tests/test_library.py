"""Variant keys and sources, requirement checks, variant selection, cache
keys and the kernel-library build (with this checkout's gpupoor-opt)."""

import contextlib
import dataclasses
import functools
import itertools
import json
import shutil
import subprocess

import pytest
import torch

from gpupoor import compile as gcompile
from gpupoor._mlir_backend import chip_for, chips_for, find_variant
from gpupoor._native import C
from gpupoor.build_library import main as build_main
from gpupoor.library import Kernel, KernelLibrary, KernelRequirementError, Variant
from gpupoor.variants import (PERSISTENT_TILES, SWAPPED_TILES, VariantKey,
                              library_variants)


def test_variant_names_round_trip():
    for key in library_variants():
        assert VariantKey.from_name(key.name) == key
    with pytest.raises(ValueError):
        VariantKey(outer="f64")
    with pytest.raises(ValueError):
        VariantKey.from_name("nonsense")


def test_forced_choice_takes_the_tuned_tables_place():
    """The tuner's candidates (gpupoor._C._force_choice) decide where the
    tuned table would: the family's tile and the slices asked for, on every
    later plan; a family the layouts lack leaves the rules' choice; None
    gives the table back. Sizes classes are ceil(log2)."""
    assert [C.size_class(s) for s in (1, 2, 3, 4, 5, 256, 257, 4096, 11008)] == \
        [0, 1, 2, 2, 3, 8, 9, 12, 14]
    a = torch.empty(512, 4096, dtype=torch.float16)
    b = torch.empty(4096, 4096, dtype=torch.float16)
    c = torch.empty(512, 4096, dtype=torch.float16)
    families = []

    def plan():
        return C.describe_plan(a, b, None, c, "none", "f32", 32, 0, list(HOPPER[0]), HOPPER[1],
                               find_variant=lambda *key: [(manifest(), "")])
    try:
        rules = plan()
        C._force_choice("m64", 2)
        forced = plan()
        # (256 tiles in 2 slices: m64 two blocks an SM, as the rules take it.)
        assert (forced["family"], forced["slices"]) == ("m64w", 2)
        C._force_choice("w160", 0)      # 160 columns: B as N x K only
        assert plan()["family"] == rules["family"]
        with pytest.raises(ValueError, match="unknown kernel family"):
            C._force_choice("huge", 0)
        launch = C.choose_launch("sm_90a", 512, 4096, 4096, "kn", 0, 32, 132)
        families.append(launch["family"])
    finally:
        C._force_choice(None)
    assert plan()["family"] == rules["family"]
    assert C.choose_launch("sm_90a", 512, 4096, 4096, "kn", 0, 32, 132)["family"] == \
        families[0]


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


def test_gpupoor_chip_names_the_library_chip(monkeypatch):
    """GPUPOOR_CHIP runs one chip's library on a device of that capability or
    a later one (PTX libraries, build_library --ptx); anything else is a
    ValueError naming the variable, also from the calls that read it."""
    from gpupoor import _mlir_backend as mb
    from gpupoor import kernels
    monkeypatch.delenv("GPUPOOR_CHIP", raising=False)
    assert mb.chip_override((9, 0)) == ()
    assert mb.chip_override((9, 0), " ") == ()
    for chip in ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"):
        assert mb.chip_override((9, 0), chip) == (chip,)
    assert mb.chip_override((8, 9), "sm_86") == ("sm_86",)
    assert mb.chip_override((8, 7), "sm_86") == ("sm_86",)
    assert mb.chip_override((12, 0), "sm_80") == ("sm_80",)
    for value in ("sm_75", "sm_100", "sm80", "SM_80", "80", "sm_90a,sm_90"):
        with pytest.raises(ValueError, match=f"GPUPOOR_CHIP='{value}' is not a chip"):
            mb.chip_override((9, 0), value)
    with pytest.raises(ValueError, match=r"GPUPOOR_CHIP=sm_86 is newer than the device "
                                         r"\(compute capability 8\.0\)"):
        mb.chip_override((8, 0), "sm_86")
    with pytest.raises(ValueError, match="GPUPOOR_CHIP=sm_90 is newer"):
        mb.chip_override((8, 9), "sm_90")
    with pytest.raises(ValueError, match="GPUPOOR_CHIP=sm_90a is newer"):
        mb.chip_override((8, 9), "sm_90a")
    with pytest.raises(ValueError, match="GPUPOOR_CHIP=sm_90a is an arch-specific target"):
        mb.chip_override((10, 0), "sm_90a")
    # device_info reads the variable (once per device: its cache).
    monkeypatch.setattr(mb, "properties", lambda index: (9, 0, 132))
    try:
        for value, chips in (("sm_80", ("sm_80",)), ("sm_89", ("sm_89",)),
                             ("", ("sm_90a", "sm_90"))):
            monkeypatch.setenv("GPUPOOR_CHIP", value)
            mb.device_info.cache_clear()
            assert mb.device_info(0) == (chips, 132)
        monkeypatch.setenv("GPUPOOR_CHIP", "sm_100")
        mb.device_info.cache_clear()
        monkeypatch.delenv("GPUPOOR_BACKEND", raising=False)
        with _resolver(mb.device_info), \
                pytest.raises(ValueError, match="GPUPOOR_CHIP='sm_100'"):
            kernels.default_backend(torch.device("cuda", 0))
        monkeypatch.setattr(mb, "properties", lambda index: (8, 0, 108))
        monkeypatch.setenv("GPUPOOR_CHIP", "sm_89")
        with pytest.raises(ValueError, match="GPUPOOR_CHIP=sm_89 is newer"):
            mb.device_info(0)
    finally:
        mb.device_info.cache_clear()


def manifest(**over):
    m = {"kernel": "gpupoor_matmul_0", "chip": "sm_90", "tile": [128, 128, 32], "group_m": 8,
         "params": ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak",
                    "stride_bk", "stride_bn", "stride_cm", "stride_cn", "ws_ptr", "ws_bytes",
                    "locks_ptr", "locks_count"],
         "checks": {"unit_stride": ["stride_ak", "stride_bn"],
                    "stride_multiple_of_8": ["stride_am", "stride_bk"],
                    "pointer_aligned_16": ["a_ptr", "b_ptr"],
                    "max_size": 2**31 - 1 - 8192, "max_offset": 2**31 - 1},
         "param_types": ["ptr"] * 3 + ["i32"] * 9 + ["ptr", "i64", "ptr", "i32"],
         "dynamic_shared_memory": 49152, "block_size": 128}
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


def _plan(man, m, n, k, slices, chips=("sm_90",)):
    """The launcher's plan of an M x N x K product (B as K x N) whose every
    variant has the one kernel `man`."""
    a = torch.empty(m, k, dtype=torch.float16)
    b = torch.empty(k, n, dtype=torch.float16)
    c = torch.empty(m, n, dtype=torch.float16)
    return C.describe_plan(a, b, None, c, "none", "f32", 32, slices, list(chips), 132,
                           find_variant=lambda *key: [(man, "")])


def test_plan_slices():
    s = C.default_splits(4096, 32)
    assert _plan(manifest(), 8192, 8192, 4096, 0)["slices"] == 1    # tiles fill the GPU
    assert _plan(manifest(), 1, 4096, 4096, 0)["slices"] > 1        # 32 tiles: slices
    assert _plan(manifest(), 1, 4096, 4096, 1)["slices"] == 1       # sequential forced
    assert _plan(manifest(), 1, 4096, 4096, 7)["slices"] == 7
    assert _plan(manifest(), 1, 4096, 4096, 1000)["slices"] == s    # at most S
    # Persistent blocks take one K slice whatever the call asks.
    for slices in (0, 1, 7):
        assert _plan(manifest(persistent=True), 256, 256, 4096, slices)["slices"] == 1


def test_plan_takes_f16_outer_sums_where_exact():
    """The launcher asks for the f16-outer variant where f16 outer sums give C
    bit for bit what f32 ones do (policy::f16OuterIsExact, as gpupoor-select-
    kernel-config takes them): f16 C, no epilogue, at most two chunks."""
    asked = []

    def outer_of(m, n, k, bias=False, out=torch.float16, outer="f32", chips=("sm_90a",)):
        asked.clear()
        a = torch.empty(m, k, dtype=torch.float16)
        b = torch.empty(k, n, dtype=torch.float16)
        c = torch.empty(m, n, dtype=out)
        bv = torch.empty(n, dtype=torch.float16) if bias else None

        def find(chip, b_layout, outer, epilogue, *rest):
            asked.append(outer)
            if epilogue == "none":
                return [(manifest(), "")]
            base = manifest()
            return [(manifest(params=base["params"] + ["in0_ptr", "stride_in0m", "stride_in0n"],
                              param_types=base["param_types"] + ["ptr", "i32", "i32"]), "")]
        C.describe_plan(a, b, bv, c, "none", outer, 32, 0, list(chips), 132, find_variant=find)
        return asked[-1]

    assert C.default_splits(256, 32) == 2 and C.default_splits(384, 32) == 4
    assert outer_of(128, 128, 128) == "f16"
    assert outer_of(256, 256, 256) == "f16"
    assert outer_of(256, 256, 256, chips=("sm_80",)) == "f16"
    assert outer_of(384, 384, 384) == "f32"           # four chunks
    assert outer_of(256, 256, 256, bias=True) == "f32"  # an epilogue follows the sum
    assert outer_of(256, 256, 256, out=torch.float32) == "f32"
    assert outer_of(4096, 4096, 4096, outer="f16") == "f16"


def test_plan_refuses_operands_no_kernel_takes():
    """The first kernel whose checks hold runs; none: ValueError naming each
    kernel's reason."""
    a = torch.empty(8, 64, dtype=torch.float16)[:, ::2]      # stride_ak = 2
    b = torch.empty(32, 16, dtype=torch.float16)
    c = torch.empty(8, 16, dtype=torch.float16)
    with pytest.raises(ValueError, match="stride_ak = 2, not 1"):
        C.describe_plan(a, b, None, c, "none", "f32", 32, 0, ["sm_90"], 132,
                        find_variant=lambda *key: [(manifest(), "")])


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
    only90 = KernelLibrary(roots=[tmp_path / "only90"], cache_dir=tmp_path / "cache",
                           allow_compile=False)
    (tmp_path / "only90").mkdir()
    shutil.copytree(tmp_path / "sm_90", tmp_path / "only90" / "sm_90")
    # 1024 x 4096 x 4096: the large family on both chips (the policy's).
    large = VariantKey.from_name(names[0])
    hopper = ("sm_90a", "sm_90")
    assert large.tile == "large"
    a = torch.empty(1024, 4096, dtype=torch.float16)
    b = torch.empty(4096, 4096, dtype=torch.float16)
    if large.b_layout == "nk":
        b = b.T
    c = torch.empty(1024, 4096, dtype=torch.float32 if large.out == "f32" else torch.float16)
    bias = torch.empty(4096, dtype=c.dtype) if large.epilogue != "none" else None
    activation = large.epilogue[5:] if large.epilogue.startswith("bias_") else "none"
    for library, chip in ((only90, "sm_90"), (lib, "sm_90a")):
        plan = C.describe_plan(a, b, bias, c, activation, large.outer, large.max_splits, 0,
                               list(hopper), 132,
                               find_variant=functools.partial(find_variant, library=library))
        assert plan["chip"] == chip


def test_build_library_as_ptx(gpupoor_opt, tmp_path, monkeypatch):
    """build_library --ptx: PTX kernels (for the driver's JIT, which runs an
    older chip's kernels on a newer GPU), named by the manifests' `ptx`."""
    monkeypatch.setenv("GPUPOOR_OPT", gpupoor_opt)
    name = "kn_f32_bias_gelu_f16_m64_s32"
    assert build_main(["--out", str(tmp_path), "--chips", "sm_86", "--only", name,
                       "--jobs", "1", "--ptx"]) == 0
    d = tmp_path / "sm_86" / name
    assert json.loads((d / "variant.json").read_text())["format"] == "ptx"
    assert not list(d.glob("*.cubin"))
    lib = KernelLibrary(roots=[tmp_path], cache_dir=tmp_path / "cache", allow_compile=False)
    v = lib.find(VariantKey.from_name(name), "sm_86")
    assert [k.name for k in v.kernels] == [
        "gpupoor_matmul_0", "gpupoor_matmul_0_elements", "gpupoor_matmul_0_i64"]
    for k in v.kernels:
        assert k.cubin == d / f"{k.name}.ptx" == d / k.manifest["ptx"]
        assert "cubin" not in k.manifest and k.manifest["chip"] == "sm_86"
        text = k.cubin.read_text()
        assert ".target sm_86" in text and f".entry {k.name}(" in text


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


@contextlib.contextmanager
def _resolver(device_info):
    """The launcher asks `device_info` for devices' chips in this block."""
    from gpupoor import _mlir_backend as mb
    C.set_resolver(device_info, mb.find_variant)
    try:
        yield
    finally:
        C.set_resolver(mb.device_info, mb.find_variant)


def test_default_backend_by_device(monkeypatch):
    from gpupoor import kernels
    dev = torch.device("cuda", 0)
    monkeypatch.delenv("GPUPOOR_BACKEND", raising=False)
    # Devices with cubins take mlir whatever the shape (Hopper's sm_90a
    # wgmma kernel leads the triton backend's on large products).
    with _resolver(lambda index: (("sm_90a", "sm_90"), 132)):
        assert kernels.default_backend(dev, 4096, 4096, 4096) == "mlir"
        assert kernels.default_backend(dev, 1, 4096, 4096) == "mlir"
    with _resolver(lambda index: (("sm_80",), 108)):
        assert kernels.default_backend(dev, 4096, 4096, 4096) == "mlir"
    with _resolver(lambda index: ((), 84)):
        assert kernels.default_backend(dev, 1, 1) == "triton"
        monkeypatch.setenv("GPUPOOR_BACKEND", "mlir")
        assert kernels.default_backend(dev, 4096, 4096, 4096) == "mlir"
        monkeypatch.setenv("GPUPOOR_BACKEND", "cuda")
        with pytest.raises(ValueError, match="GPUPOOR_BACKEND"):
            kernels.default_backend(dev)


def test_stream_k_manifest_needs_persistent_blocks_and_slots():
    """A stream-K manifest (its workspace a slot a block) must say the
    slot's size and be persistent: refused by name otherwise, never
    launched with a workspace sized for slices."""
    base = {"kernel": "gpupoor_matmul_0", "chip": "sm_90a", "params": [], "param_types": [],
            "dynamic_shared_memory": 0, "block_size": 128, "tile": [128, 192, 64]}
    for bad in ({"stream_k": True, "persistent": True},
                {"stream_k": True, "workspace_bytes_per_block": 98304}):
        with pytest.raises(ValueError, match="gpupoor_matmul_0: stream_k without"):
            C.kernel_violation({**base, **bad}, {}, 1)
    assert C.kernel_violation({**base, "stream_k": True, "persistent": True,
                               "workspace_bytes_per_block": 98304}, {}, 1) is None


def test_manifest_maps_swizzle_across_a_box_row():
    """A tensor map's swizzle spans its box row (the kernels' shared tiles):
    a manifest whose map says otherwise is refused by name, never encoded
    into a layout the kernel does not read."""
    base = {"kernel": "gpupoor_matmul_0", "chip": "sm_90a", "params": [], "param_types": [],
            "dynamic_shared_memory": 0, "block_size": 128, "tile": [64, 32, 64]}
    def maps(box, swizzle):
        return {"tensor_maps": {"b_desc": {"box_dim": box, "element_strides": [1, 1],
                                           "global_dim": ["N", "K"], "data_type": "float16",
                                           "swizzle": swizzle, "l2_promotion": "128B",
                                           "oob_fill": "zero"}}}
    for box, swizzle in (([64, 64], "128B"), ([32, 64], "64B"), ([16, 64], "32B")):
        assert C.kernel_violation({**base, **maps(box, swizzle)}, {}, 1) is None
    for box, swizzle, bytes_ in (([32, 64], "128B", 64), ([64, 64], "64B", 128),
                                 ([8, 64], "none", 16)):
        with pytest.raises(ValueError, match=f"gpupoor_matmul_0: tensor map b_desc swizzles "
                                             f"{swizzle} across a box row of {bytes_} bytes"):
            C.kernel_violation({**base, **maps(box, swizzle)}, {}, 1)


# ------------------------------------------- launcher against kernels -----
# The launcher fills exactly the parameters of the kernel it launches, for
# every combination of the public arguments (an activation without a bias
# takes the bias_<act> variant, whose kernel has a bias parameter, in0_ptr).
# These tests need no GPU: the launch plan is worked out on host tensors
# against the manifests gpupoor-opt writes.

# (M, N) for which an sm_90a device of 132 SMs takes each tile family at
# K = 64 (the policy's choose_launch), by the variant's layouts: B's, and A
# as K x M (km) for the families that read it so.
_MK_SHAPES = {("kn", "m16"): (4, 17000), ("kn", "s16"): (16, 136), ("kn", "s16w"): (1, 9000),
              ("kn", "m64"): (100, 4240),
              ("kn", "large"): (1024, 4096), ("kn", "n64"): (33, 256),
              ("kn", "mid"): (512, 4096), ("kn", "pl"): (4096, 4096),
              ("nk", "m16"): (4, 17000), ("nk", "s16"): (16, 136), ("nk", "s16w"): (1, 9000),
              ("nk", "n64"): (33, 250), ("nk", "m64"): (100, 4240),
              ("nk", "large"): (1024, 4096), ("nk", "mid"): (512, 4096),
              ("nk", "pl"): (4096, 4096),
              ("kn", "w192"): (512, 6144), ("kn", "pl192"): (1024, 6144),
              ("nk", "w192"): (512, 6144), ("nk", "pl192"): (1024, 6144),
              ("nk", "w160"): (1536, 1536), ("nk", "pl160"): (512, 10240),
              ("kn", "pl128"): (1024, 14336), ("nk", "pl128"): (1024, 14336),
              ("nk", "m32"): (32, 5120), ("nk", "m32w"): (32, 9000),
              ("kn", "m32"): (32, 5120), ("kn", "m32w"): (32, 9000),
              ("kn", "m64w"): (64, 17000), ("nk", "m64w"): (64, 17000),
              # Clusters of two (N off 32-byte sectors).
              ("kn", "m64c"): (100, 4232), ("nk", "m64c"): (100, 4232),
              ("kn", "midc"): (256, 4104), ("nk", "midc"): (256, 4104),
              ("kn", "w192c"): (256, 8456), ("nk", "w192c"): (256, 10568),
              ("nk", "w160c"): (256, 8456), ("nk", "pl160c"): (256, 16904),
              ("kn", "largec"): (256, 12680), ("nk", "largec"): (256, 12680),
              ("kn", "pl192c"): (256, 16904), ("nk", "pl192c"): (300, 14088),
              ("kn", "plc"): (300, 16904), ("nk", "plc"): (300, 16904),
              ("kn", "pl128c"): (512, 19016), ("nk", "pl128c"): (512, 19016),
              # Stream-K: a short last wave (at _K_OF's K; pl128k the tuned
              # table's 128 x 128 tile).
              ("nk", "plk"): (512, 13824), ("kn", "plk"): (512, 13824),
              ("kn", "pl192k"): (384, 13824), ("nk", "pl192k"): (520, 8448),
              ("nk", "pl160k"): (296, 11408),
              ("nk", "pl128k"): (128, 20000),
              # The filling tiles: one wave of 64-row tiles wider than 128.
              ("nk", "m64n160"): (144, 4352), ("nk", "m64n192"): (144, 7168),
              ("nk", "m64n256"): (144, 8704), ("kn", "m64n192"): (144, 4352),
              ("kn", "m64n256"): (144, 8704)}
# K where FAMILY_SHAPES' family needs more than 64 (a stream-K run's K:
# policy::streamKPays).
_K_OF = {"plk": 4096, "pl192k": 4096, "pl160k": 4096, "pl128k": 8192}
FAMILY_SHAPES = {**_MK_SHAPES,
                 **{("km" + b, t): mn for (b, t), mn in _MK_SHAPES.items()
                    if t not in ("m16", "m32", "m32w", "pl128k")},
                 # (The tuned table's rows for A as K x M are B as K x N's.)
                 ("kmkn", "pl128k"): (128, 20000),
                 # The swapped families read A as K x M as it is at 16 and
                 # 32 rows.
                 ("kmkn", "s16w"): (16, 9000), ("kmnk", "s16w"): (16, 9000),
                 ("kmkn", "s32"): (32, 136), ("kmnk", "s32"): (32, 5120),
                 ("kmkn", "s32w"): (32, 9000), ("kmnk", "s32w"): (32, 9000)}
# The (layouts, family) pairs the test compiles a representative of: those
# of FAMILY_SHAPES, n64w's (n64 two blocks an SM, for slices beyond the
# SMs: never at K = 64), pl128k's that the tuned table never chooses and
# s32's for A as M x K (a tuned row's choice only), whose kernels
# test_parameters_follow_the_signature checks.
_REPRESENTED = list(FAMILY_SHAPES) + [(lay, "n64w") for lay in ("kn", "nk", "kmkn", "kmnk")] + \
    [("kn", "pl128k"), ("kmnk", "pl128k")] + \
    [(lay, f) for lay in ("kn", "nk") for f in ("s32", "s32w")]
HOPPER = (("sm_90a", "sm_90"), 132)


def _representatives():
    """The variants the test compiles: for each (layout, family) one without
    a bias parameter and one with, outer type, output type and bias
    epilogue rotating over the families (a kernel's parameters follow from
    its function's signature and the family's pipeline options;
    test_parameters_follow_the_signature checks the rest)."""
    reps = {}
    for i, (layouts, tile) in enumerate(_REPRESENTED):
        for has_bias in (False, True):
            epilogue = ("bias", "bias_relu", "bias_gelu")[i % 3] if has_bias else "none"
            reps[(layouts, tile, has_bias)] = VariantKey(
                layouts[-2:], ("f32", "f16")[(i + has_bias) % 2], epilogue,
                ("f16", "f32")[(i // 2 + has_bias) % 2], tile,
                a_layout="km" if layouts.startswith("km") else "mk")
    return reps


def _layouts(key):
    """A variant's layouts as FAMILY_SHAPES names them (kn, nk, kmkn, kmnk)."""
    return ("km" if key.a_layout == "km" else "") + key.b_layout


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
    code tries them}, compiled for sm_90a to PTX (cubin-format=isa: the
    manifests are the same, without ptxas's time)."""
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
                              f" cubin-format=isa dump-dir={d}", "-o", os.devnull],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        manifests = [json.loads(p.read_text()) for p in sorted(d.glob("*.json"))]
        order = {"": 0, "_elements": 1, "_i64": 2}
        return key, sorted(manifests, key=lambda m: order[m["kernel"][len("gpupoor_matmul_0"):]])

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
        # f16 outer sums where they are exact (at most two chunks, as K =
        # 64's one; f16 C, no epilogue), as the compiler takes them.
        exact = dtype == torch.float16 and not with_bias and activation == "none" and \
            C.default_splits(k, 32) <= 2
        assert _layouts(key) == layout and key.outer == ("f16" if exact else outer), what
        assert key.out == ("f32" if dtype == torch.float32 else "f16"), what
        # An activation without a bias runs its bias_* variant (a bias of
        # -0.0).
        assert key.epilogue == ("none" if not with_bias and activation == "none" else
                                "bias" if activation == "none" else f"bias_{activation}"), what
        variant = lib.find(key, "sm_90a")
        # Persistent blocks take one slice: more (where S = 1 at K = 64
        # allows none) would take the non-persistent family.
        want_tile = {"pl": "large", "pl192": "w192", "pl160": "w160", "plk": "large",
                     "pl192k": "w192", "pl160k": "w160", "pl128k": "mid"}.get(tile, tile) \
            if tile in PERSISTENT_TILES and min(slices, C.default_splits(k, 32)) > 1 else tile
        # The filling tiles' cost assumes the chosen slices: named ones keep
        # the rules' tile.
        if tile.startswith("m64n") and slices:
            want_tile = C.choose_launch("sm_90a", m, n, k, layout[-2:], slices, 32, HOPPER[1],
                                        "km" if layout.startswith("km") else "mk")["family"]
            assert not want_tile.startswith("m64n"), what
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
            assert descs["b_desc"] == ((m, k), 2 * a.stride(1)), what
        # The call's A and B go to the kernel's b_ptr and a_ptr when swapped.
        a_slot, b_slot = p["params"].index("a_ptr"), p["params"].index("b_ptr")
        assert (p["a_slot"], p["b_slot"]) == ((b_slot, a_slot) if swapped else (a_slot, b_slot))


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
