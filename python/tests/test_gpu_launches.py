"""The package's launches on a GPU: tensor maps per operand, decode with a
bias, persistent tiles, decode after a kernel that wrote the weight,
dependent launches back to back. Needs CUDA and the kernel library."""

import os

import pytest
import torch

from gpupoor.kernels import split_k_sequential
from gpupoor.variants import DEFAULT_MAX_SPLITS

from gpu_reference import ints, ref

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("m", [77, 300])
def test_tensor_maps_follow_each_operand(m):
    """sm_90a's TMA kernels (B as N x K, M > 16) take a tensor map of each
    operand, encoded per address: operands new and reused after others each
    read their own data; broadcast rows (row stride 0), which no tensor map
    can describe, take a fallback kernel. Elsewhere the same calls run the
    cp.async kernels."""
    g = torch.Generator(device="cuda").manual_seed(m)
    ws = [ints(488, 1032, gen=g).T for _ in range(2)]
    xs = [ints(m, 1032, gen=g) for _ in range(3)]
    for x, w in [(x, ws[0]) for x in xs + xs[::-1]] + [(xs[0], w) for w in ws + ws[::-1]]:
        assert torch.equal(split_k_sequential(x, w, backend="mlir").double(), ref(x, w))
    xb = ints(1, 1032, gen=g).expand(m, 1032)
    assert xb.stride(0) == 0
    assert torch.equal(split_k_sequential(xb, ws[1], backend="mlir").double(), ref(xb, ws[1]))


@pytest.mark.parametrize("m", [1, 5, 16])
@pytest.mark.parametrize("activation", [None, "relu"])
@pytest.mark.parametrize("layout", ["linear", "kn"])
def test_decode_with_bias(m, activation, layout):
    """Decode products of an nn.Linear and of x @ W with W as K x N (on
    sm_90a with 4096 outputs: the swapped kernel, C^T = W^T x^T, the bias
    along its rows; W^T read along N where W is K x N), 2-D and 3-D."""
    g = torch.Generator(device="cuda").manual_seed(m)
    w = ints(4096, 1032, gen=g).T if layout == "linear" else ints(1032, 4096, gen=g)
    bias = ints(4096, gen=g)
    for x in (ints(m, 1032, gen=g), ints(2, m, 1032, gen=g)):
        y = split_k_sequential(x, w, bias, activation=activation, backend="mlir")
        assert torch.equal(y.double(), ref(x, w, bias, activation))


@pytest.mark.parametrize("n", [4112, 4100])
@pytest.mark.parametrize("activation", [None, "relu", "gelu"])
def test_persistent_tiles(n, activation):
    """M > 128 with 128 x 256 tiles beyond one wave (1600 x n): on sm_90a
    the persistent kernel of them (pl, forced: at these N the rules take
    128 x 224, test_sm90a_176_and_224_columns_exact; in clusters of two,
    plc, where C's rows are off 32-byte sectors), at most one block an SM,
    storing C through its tensor map where one describes C (n = 4112) and
    from its lanes where none does (n = 4100: rows not 16-byte aligned).
    Elsewhere the same calls run the other kernels."""
    from gpupoor import _mlir_backend
    from gpupoor._native import C as _C

    g = torch.Generator(device="cuda").manual_seed(n)
    w = ints(n, 272, gen=g).T
    bias = ints(n, gen=g)
    x = ints(1600, 272, gen=g)
    want = ref(x, w, bias, activation)
    chips, sm_count = _mlir_backend.device_info(0)
    sm90a = chips[:1] == ("sm_90a",)
    if sm90a:
        _C._force_choice("pl", 0)
    try:
        for _ in range(3):
            y = split_k_sequential(x, w, bias, activation=activation, backend="mlir")
            if activation == "gelu":
                torch.testing.assert_close(y.double(), want, rtol=1e-3, atol=1e-3)
            else:
                assert torch.equal(y.double(), want)
        if not sm90a:
            return
        # This call's plan: the persistent grid, and C's map encoded only
        # where it describes C.
        c = torch.empty(1600, n, device="cuda", dtype=torch.float16)
        p = _C.describe_plan(x, w, bias, c, activation or "none", "f32", DEFAULT_MAX_SPLITS, 0,
                             list(chips), sm_count)
        # A view of 16-byte rows that end inside 16 bytes (N % 8 != 0):
        # no map either (TMA's stores would write past column N).
        wide = torch.empty(1600, -(-n // 8) * 8, device="cuda", dtype=torch.float16)[:, :n]
        p_wide = _C.describe_plan(x, w, bias, wide, activation or "none", "f32",
                                  DEFAULT_MAX_SPLITS, 0, list(chips), sm_count)
    finally:
        _C._force_choice(None)
    wide_maps = [m for m in p_wide["maps"] if m[1] == 2]
    assert (len(wide_maps) == 1) == (n % 8 == 0), p_wide
    assert p["family"] == ("pl" if n % 16 == 0 else "plc"), p
    # (Row tiles in whole clusters: policy::launchTiles.)
    pair = _C.family_config(p["family"], "sm_90a")["cluster_m"]
    tiles = -(-1600 // (128 * pair)) * pair * -(-n // 256)
    assert p["tiles"] == tiles and p["grid"] == (min(tiles, sm_count), 1), p
    c_maps = [m for m in p["maps"] if m[1] == 2]
    if n % 8 == 0:
        assert len(c_maps) == 1 and p["zero_map_slot"] is None
    else:
        assert not c_maps and p["zero_map_slot"] is not None


@pytest.mark.parametrize("m,n,k", [(1, 4096, 4096), (16, 2048, 8200)])
@pytest.mark.parametrize("layout", ["nk", "kn"])
def test_decode_reads_the_weight_the_kernel_before_wrote(m, n, k, layout):
    """A decode kernel (the swapped 64 x 16 tile) launches while the
    kernel before it in the stream still runs (programmatic dependent
    launch) and streams the weight. Where that kernel is a gpupoor product
    writing the weight (a different one each call, queued back to back),
    each decode call reads what was written: the results are those of the
    calls one at a time, and exact."""
    from gpupoor._mlir_backend import device_info
    from gpupoor._native import C as _C

    g = torch.Generator(device="cuda").manual_seed(n + k)
    x = ints(m, k, gen=g)
    rows, cols = (n, k) if layout == "nk" else (k, n)
    # Small integers: every product here is exact in f16.
    ps = [ints(rows, 16, gen=g) for _ in range(3)]
    q = ints(16, cols, gen=g)

    def weight(w):
        return w.T if layout == "nk" else w

    def chain(one_at_a_time):
        outs = []
        torch.cuda.synchronize()
        if not one_at_a_time:
            # The calls queue while the GPU spins: they run back to back.
            torch.cuda._sleep(20_000_000)
        for i in range(12):
            w = split_k_sequential(ps[i % 3], q, backend="mlir")
            outs.append(split_k_sequential(x, weight(w), backend="mlir"))
            if one_at_a_time:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        return torch.stack(outs)

    want, got = chain(True), chain(False)
    for i in range(3):
        assert torch.equal(want[i].double(), ref(x, weight(ref(ps[i], q)))), i
    assert torch.equal(want.view(torch.int16), got.view(torch.int16))
    # The path under test was taken where the kernels are Hopper's.
    chips, sm_count = device_info(0)
    if chips[0] == "sm_90a" and os.environ.get("GPUPOOR_DEPENDENT_LAUNCH") != "0":
        w = weight(torch.empty(rows, cols, device="cuda", dtype=torch.float16))
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        p = _C.describe_plan(x, w, None, c, "none", "f32", DEFAULT_MAX_SPLITS, 0, list(chips),
                             sm_count)
        assert p["dependent"] and p["family"] == "s16", p


@pytest.mark.parametrize("m,k", [(1, 2048), (16, 2048), (300, 1032)])
@pytest.mark.parametrize("keep", [True, False])
def test_dependent_launches_back_to_back(m, k, keep):
    """sm_90's and sm_90a's kernels launch with programmatic stream
    serialization: calls back to back, each reading the previous one's
    output (read after write; with `keep` False each output's memory goes
    back to the caching allocator once read, so that a later call writes
    where the call before read: write after read), give what calls one at a
    time give."""
    g = torch.Generator(device="cuda").manual_seed(k + m)
    ws = [(torch.randn(k, k, device="cuda", generator=g) / k**0.5).half() for _ in range(3)]
    x0 = torch.randn(m, k, device="cuda", generator=g).half()

    def chain(one_at_a_time):
        x, outs = x0, []
        torch.cuda.synchronize()
        if not one_at_a_time:
            # The calls queue while the GPU spins: they run back to back.
            torch.cuda._sleep(20_000_000)
        for i in range(12):
            x = split_k_sequential(x, ws[i % 3].T, backend="mlir")
            if keep:
                outs.append(x)
            if one_at_a_time:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        return torch.stack(outs) if keep else x

    want, got = chain(True), chain(False)
    assert torch.isfinite(want).all()
    assert torch.equal(want.view(torch.int16), got.view(torch.int16))
    # The path under test was taken (unless GPUPOOR_DEPENDENT_LAUNCH=0),
    # where the kernels are sm_90's (not where GPUPOOR_CHIP names an older
    # chip's).
    from gpupoor._mlir_backend import device_info
    from gpupoor._native import C as _C
    chips, sm_count = device_info(0)
    if chips[0] in ("sm_90", "sm_90a") and os.environ.get("GPUPOOR_DEPENDENT_LAUNCH") != "0":
        c = torch.empty(m, k, device="cuda", dtype=torch.float16)
        p = _C.describe_plan(x0, ws[0].T, None, c, "none", "f32", DEFAULT_MAX_SPLITS, 0,
                             list(chips), sm_count)
        assert p["dependent"], p["kernel"]


def test_process_exits_cleanly_without_the_caching_allocator():
    """The package's cached device tensors (slice sums and counters, the
    implicit bias of an activation without one) outlive the CUDA driver at
    exit: a process that used them without PyTorch's caching allocator (as
    under compute-sanitizer) still exits 0."""
    import subprocess
    import sys

    import gpupoor

    script = (
        "import torch\n"
        "from gpupoor.kernels import split_k_sequential\n"
        "x = torch.randint(-1, 2, (16, 1024), device='cuda').half()\n"
        "w = torch.randint(-1, 2, (1024, 4096), device='cuda').half()\n"
        "y = split_k_sequential(x, w, activation='relu', slices=2, backend='mlir')\n"
        "assert torch.equal(y.double(), (x.double() @ w.double()).relu())\n"
        "print('ok')\n")
    env = dict(os.environ, PYTORCH_NO_CUDA_MEMORY_CACHING="1",
               PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(gpupoor.__file__)),
                                           os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]
