"""Variant keys and sources, requirement checks, variant selection, cache
keys and the kernel-library build (with this checkout's gpupoor-opt)."""

import contextlib
import functools
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
from gpupoor.variants import VariantKey, library_variants


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
        # An sm_90a device of 132 SMs (its chips, as the launcher lists them).
        return C.describe_plan(a, b, None, c, "none", "f32", 32, 0, ["sm_90a", "sm_90"], 132,
                               find_variant=lambda *key: [(manifest(), "")])
    try:
        rules = plan()
        C._force_choice("m64", 2)
        forced = plan()
        # (256 tiles in 2 slices: m64 two blocks an SM, as the rules take it.)
        assert (forced["family"], forced["slices"]) == ("m64w", 2)
        C._force_choice("m64n160", 0)   # 64 x 160: B as N x K only
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
         "dynamic_shared_memory": 49152, "block_size": 128,
         "splits": "default", "max_splits": 32}
    m.update(over)
    # The rule a kernel of this chip and tile evaluates, as the compiler
    # writes it (the launcher refuses another: test_families).
    m.setdefault("split_rule", _split_rule(m["chip"], m["tile"], m["max_splits"]))
    return m


def _split_rule(chip, tile, max_splits):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "Numerics"))
    import split_k_model as model
    return model.split_rule(chip, tile, max_splits)


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


def _split_k(gpupoor_opt, keys):
    """gpupoor-split-k's output for each key's source, {name: (exit status,
    output, errors)}: one gpupoor-opt a half of the keys, their sources
    split (-split-input-file: a process a variant took 0.05 s, 200 s for the
    library), and a process a key where a half fails, to tell which."""
    import concurrent.futures

    def run(batch):
        res = subprocess.run([gpupoor_opt, "--gpupoor-split-k", "--split-input-file",
                              "--output-split-marker=// -----", "-"],
                             input="\n// -----\n".join(k.source() for k in batch),
                             capture_output=True, text=True)
        outs = res.stdout.split("// -----\n")
        if res.returncode == 0 and len(outs) == len(batch):
            return {k.name: (0, out, "") for k, out in zip(batch, outs)}
        if len(batch) == 1:
            return {batch[0].name: (res.returncode, res.stdout, res.stderr)}
        return {k: v for one in batch for k, v in run([one]).items()}

    halves = [keys[:len(keys) // 2], keys[len(keys) // 2:]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return {k: v for part in pool.map(run, halves) for k, v in part.items()}


@pytest.fixture(scope="module")
def split_library(gpupoor_opt):
    """gpupoor-split-k's output for every library variant's source."""
    return _split_k(gpupoor_opt, library_variants())


@pytest.mark.parametrize("key", library_variants(), ids=lambda k: k.name)
def test_every_variant_fuses_into_one_kernel(split_library, key):
    status, out, err = split_library[key.name]
    assert status == 0, err
    assert out.count("gpupoor.matmul") == 1
    assert "linalg." not in out


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
    # Every chip's library has the row-copy kernel, whose manifest names the
    # parameters the package passes (operands.cpp copyRows).
    for chip in ("sm_80", "sm_90", "sm_90a"):
        rc = lib.row_copy(chip)
        assert rc is not None and rc.cubin.read_bytes()[:4] == b"\x7fELF"
        assert (rc.name, rc.manifest["block_size"], rc.manifest["chunk_elements"]) == (
            "gpupoor_row_copy", 256, 8)
        assert rc.manifest["params"] == [
            "src", "dst", "batch", "rows", "cols", "src_batch_stride", "src_row_stride",
            "dst_batch_stride", "dst_row_stride", "src_end"]
    # Not in the roots and compiling off: none (the package copies by torch).
    assert KernelLibrary(roots=[tmp_path / "none"], cache_dir=tmp_path / "cache",
                         allow_compile=False).row_copy("sm_90a") is None
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
    C.set_resolver(device_info, mb.find_variant, mb.find_row_copy)
    try:
        yield
    finally:
        C.set_resolver(mb.device_info, mb.find_variant, mb.find_row_copy)


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
    # (16-byte rows, the 8-column tile's, are unswizzled.)
    for box, swizzle in (([64, 64], "128B"), ([32, 64], "64B"), ([16, 64], "32B"),
                         ([8, 64], "none")):
        assert C.kernel_violation({**base, **maps(box, swizzle)}, {}, 1) is None
    for box, swizzle, bytes_ in (([32, 64], "128B", 64), ([64, 64], "64B", 128),
                                 ([8, 64], "32B", 16), ([16, 64], "none", 32),
                                 ([4, 64], "none", 8)):
        with pytest.raises(ValueError, match=f"gpupoor_matmul_0: tensor map b_desc swizzles "
                                             f"{swizzle} across a box row of {bytes_} bytes"):
            C.kernel_violation({**base, **maps(box, swizzle)}, {}, 1)
