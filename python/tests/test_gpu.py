"""The package on a GPU: exact results on {-1, 0, 1} inputs, gpu_poor's call
patterns, epilogues, backward, zero sizes, determinism, opcheck,
torch.compile, fallback kernels and 64-bit operands. Needs CUDA and, for the
mlir backend, the kernel library (python -m gpupoor.build_library) or
gpupoor-opt."""

import os

import pytest
import torch
import torch.nn.functional as F

import gpupoor
from gpupoor.kernels import split_k_sequential
from gpupoor.variants import DEFAULT_MAX_SPLITS

pytestmark = pytest.mark.gpu
BACKENDS = [b for b in os.environ.get("GPUPOOR_TEST_BACKENDS", "mlir,triton").split(",") if b]


from gpu_reference import ints, ref


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


SHAPES = [(1, 8, 40), (1, 4096, 4104), (7, 136, 1032), (16, 128, 520), (17, 488, 3104),
          (33, 1000, 4104), (128, 128, 4096), (129, 136, 24), (300, 264, 2056),
          # The TMA kernels (M > 128): edge tiles, K tails, and (2100x4360:
          # 374 tiles) several tiles a persistent program; on sm_90a the
          # 128x128 family (512x4096), the swapped decode one (1x4096) and
          # the 128x192 and 128x160 ones (w192, w160 for B as N x K,
          # pl160 for B as N x K and pl192 for K x N at 1100x4104).
          (1000, 1000, 1000), (2100, 4360, 1000), (512, 4096, 1032),
          (512, 6144, 264), (1536, 1536, 264), (1100, 4104, 264)]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("layout", ["linear", "kn"])
@pytest.mark.parametrize("outer", ["f32", "f16"])
def test_exact_on_small_integers(backend, m, n, k, layout, outer):
    g = torch.Generator(device="cuda").manual_seed(m * 7919 + n * 31 + k)
    x = ints(m, k, gen=g)
    w = ints(n, k, gen=g).T if layout == "linear" else ints(k, n, gen=g)
    y = split_k_sequential(x, w, outer=outer, backend=backend)
    want = ref(x, w)
    if outer == "f16" and want.abs().max() > 2048:
        pytest.skip("partial sums beyond f16's integers")
    assert torch.equal(y.double(), want)
    assert torch.equal(y, split_k_sequential(x, w, outer=outer, backend=backend))


@pytest.mark.parametrize("m,n,k", [s for s in SHAPES if s[0] > 1])
@pytest.mark.parametrize("layout", ["linear", "kn"])
@pytest.mark.parametrize("pad", [True, False])
def test_exact_on_transposed_activations(backend, m, n, k, layout, pad):
    """A stored K x M (x = a.T, as a weight gradient's grad^T reads): on
    sm_90a the wgmma kernels read it along M where its rows are whole 16
    bytes (pad), elsewhere and otherwise a kernel that reads it through its
    strides."""
    g = torch.Generator(device="cuda").manual_seed(m * 7919 + n * 31 + k + pad)
    x = ints(k, -(-m // 8) * 8 if pad else m, gen=g)[:, :m].T
    assert x.stride(0) == 1
    w = ints(n, k, gen=g).T if layout == "linear" else ints(k, n, gen=g)
    y = split_k_sequential(x, w, backend=backend)
    assert torch.equal(y.double(), ref(x, w))


@pytest.mark.parametrize("slices", [1, 2, 3, 7, 65535])
def test_slices_exact_and_deterministic(slices):
    g = torch.Generator(device="cuda").manual_seed(slices)
    x, w = ints(5, 4104, gen=g), ints(1000, 4104, gen=g).T
    y = split_k_sequential(x, w, slices=slices, backend="mlir")
    assert torch.equal(y.double(), ref(x, w))
    xr = torch.randn(5, 4104, device="cuda").half()
    a = split_k_sequential(xr, w, slices=slices, backend="mlir")
    assert torch.equal(a, split_k_sequential(xr, w, slices=slices, backend="mlir"))


@pytest.mark.parametrize("max_k_splits", [1, 3, 8, 64, 1000])
@pytest.mark.parametrize("m,n,k", [(1, 4096, 4104), (300, 528, 4112), (1100, 2208, 1040)])
def test_any_max_k_splits_runs_on_the_library(max_k_splits, m, n, k):
    """The library's kernels take S from the launch (splits-arg): every
    max_k_splits runs on the variants built for LIBRARY_MAX_SPLITS (the
    device need not have gpupoor-opt), S the rule's under that bound, C
    exact on integers and rounding as S says on random inputs."""
    from gpupoor import _mlir_backend
    from gpupoor._native import C as _C
    g = torch.Generator(device="cuda").manual_seed(max_k_splits + m)
    x, w = ints(m, k, gen=g), ints(n, k, gen=g).T
    y = split_k_sequential(x, w, max_k_splits=max_k_splits, backend="mlir")
    assert torch.equal(y.double(), ref(x, w))
    chips, sm_count = _mlir_backend.device_info(0)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = _C.describe_plan(x, w, None, c, "none", "f32", max_k_splits, 0, list(chips), sm_count)
    # The policy's S: the rule's, raised where the tile has a longest chunk
    # (policy::longestChunk: 128 for decode tiles).
    launch = _C.choose_launch(chips[0], m, n, k, "nk", 0, max_k_splits, sm_count)
    assert p["values"][p["params"].index("splits")] == launch["splits"]
    assert launch["splits"] >= _C.default_splits(k, max_k_splits)
    # One chunk of K = 4104 sums far worse in f16 than the default's 16.
    xr, wr = torch.randn(m, k, device="cuda").half(), torch.randn(n, k, device="cuda").half().T
    want = ref(xr, wr)
    err = lambda s: ((split_k_sequential(xr, wr, max_k_splits=s, backend="mlir").double()
                      - want).norm() / want.norm()).item()
    if max_k_splits == 1 and k > 4096:
        assert err(1) > 2 * err(32)


@pytest.mark.parametrize("activation", [None, "relu", "gelu"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
@pytest.mark.parametrize("m", [3, 77, 300])
def test_bias_and_activation(backend, activation, dtype, m):
    g = torch.Generator(device="cuda").manual_seed(m)
    x, w = ints(m, 520, gen=g, dtype=dtype), ints(200, 520, gen=g, dtype=dtype).T
    bias = torch.randn(200, device="cuda", generator=g).to(dtype)
    y = split_k_sequential(x, w, bias, activation=activation, backend=backend)
    assert y.dtype == dtype
    want = ref(x, w, bias, activation)
    # One rounding of an exact f32 value.
    tol = dict(rtol=1e-3, atol=1e-3) if dtype == torch.float16 else dict(rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(y.double(), want, **tol)


@pytest.mark.parametrize("shape1,shape2", [((32, 64), (64, 32)), ((1, 64), (64, 32)),
                                           ((2, 32, 64), (64, 32)), ((3, 4, 32, 64), (64, 32)),
                                           ((0, 64), (64, 32)), ((64,), (64, 32))])
def test_gpu_poor_call_patterns(backend, shape1, shape2):
    x = torch.randn(*shape1, device="cuda", dtype=torch.float16)
    w = torch.randn(*shape2, device="cuda", dtype=torch.float16)
    b = torch.randn(1, shape2[1], device="cuda", dtype=torch.float16)
    y = split_k_sequential(x, w, b, backend=backend)
    torch.testing.assert_close(y, F.linear(x, w.T, b.reshape(-1)), rtol=1e-2, atol=5e-2)


def test_zero_k_gives_the_bias(backend):
    b = torch.randn(8, device="cuda").half()
    y = split_k_sequential(torch.empty(3, 0, device="cuda").half(),
                           torch.empty(0, 8, device="cuda").half(), b, activation="relu",
                           backend=backend)
    assert torch.equal(y, torch.relu(b).expand(3, 8))
    # x of more dimensions, or of one, whose rows a reshape(-1, 0) could not count.
    for lead in ((2, 3), ()):
        y = split_k_sequential(torch.empty(*lead, 0, device="cuda").half(),
                               torch.empty(0, 8, device="cuda").half(), b, backend=backend)
        assert torch.equal(y, b.expand(*lead, 8))


def test_zero_k_or_n_backward(backend):
    """Gradients of products with K = 0 (zeros, the bias's the gradient's
    sum) and N = 0 (zeros), x of two and three dimensions."""
    for xs, ws in (((5, 0), (0, 8)), ((2, 3, 0), (0, 8)), ((5, 16), (16, 0))):
        x = torch.randn(*xs, device="cuda").half().requires_grad_()
        w = torch.randn(*ws, device="cuda").half().requires_grad_()
        b = torch.randn(ws[-1], device="cuda").half().requires_grad_()
        y = split_k_sequential(x, w, b, backend=backend)
        gy = torch.randn(y.shape, device="cuda").half()
        y.backward(gy)
        assert torch.equal(x.grad, torch.zeros_like(x)) and torch.equal(w.grad, torch.zeros_like(w))
        assert torch.allclose(b.grad.float(), gy.float().flatten(0, -2).sum(0), atol=1e-2)


def test_gelu_second_derivatives_match_a_float64_reference(backend):
    """d(dx)/dx and d(dx)/dW through a gradient taken with create_graph
    (GELU's second derivative, e.g. a gradient penalty), against float64
    autograd of gelu(x W + b)."""
    g = torch.Generator(device="cuda").manual_seed(4)
    x = torch.randn(33, 64, device="cuda", generator=g).half().requires_grad_()
    w = (torch.randn(64, 48, device="cuda", generator=g) / 8).half().requires_grad_()
    b = torch.randn(48, device="cuda", generator=g).half().requires_grad_()
    y = split_k_sequential(x, w, b, activation="gelu", backend=backend)
    gx, = torch.autograd.grad(y.float().sum(), x, create_graph=True)
    hx, hw = torch.autograd.grad(gx.float().pow(2).sum(), (x, w))
    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, w, b))
    gx64, = torch.autograd.grad(F.gelu(x64 @ w64 + b64).sum(), x64, create_graph=True)
    hx64, hw64 = torch.autograd.grad(gx64.pow(2).sum(), (x64, w64))
    for got, want in ((hx, hx64), (hw, hw64)):
        err = ((got.double() - want).norm() / want.norm()).item()
        assert err < 1e-2, err


def test_strided_and_misaligned_operands_are_exact(backend):
    g = torch.Generator(device="cuda").manual_seed(5)
    big = ints(45, 2 * 301 + 1, gen=g)
    x = big[:, 1::2]                        # inner stride 2, odd offset
    w = ints(77, 301, gen=g).T
    assert torch.equal(split_k_sequential(x, w, backend=backend).double(), ref(x, w))
    xo = ints(45, 302, gen=g)[:, 1:]        # misaligned rows
    assert torch.equal(split_k_sequential(xo, w, backend=backend).double(), ref(xo, w))


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's kernels")
@pytest.mark.parametrize("layout,m,n,k", [("nk", 100, 200, 1031), ("kn", 100, 202, 1031),
                                           ("km", 104, 202, 1031), ("kn", 200, 1234, 1277),
                                           ("nk", 100, 200, 1036), ("km", 104, 202, 1030)])
def test_unaligned_operands_run_on_padded_copies(layout, m, n, k):
    """Operands whose rows lie off 16 bytes (K, or B's N as K x N, no
    multiple of 8) are copied into padded rows first
    (policy::copiesUnalignedOperands), which the fast kernel reads; with the
    copies off (_C._copy_unaligned("never"), the benchmarks' `nopad`) the
    element kernels take them as they lie. Both exact; the kernels launched
    named by the profiler. (K = 1036: rows of whole 8-byte words, K = 1030
    and N = 202 or 1234: of 4-byte ones.)"""
    from gpupoor._native import C
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    x = ints(k, m, gen=g).T if layout == "km" else ints(m, k, gen=g)
    w = ints(n, k, gen=g).T if layout == "nk" else ints(k, n, gen=g)
    want = ref(x, w)
    ran = {}
    for on in (True, False):
        C._copy_unaligned("policy" if on else "never")
        try:
            with torch.profiler.profile(
                    activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                y = split_k_sequential(x, w, backend="mlir")
                torch.cuda.synchronize()
        finally:
            C._copy_unaligned("policy")
        assert torch.equal(y.double(), want), on
        ran[on] = {e.name for e in prof.events() if e.name.startswith("gpupoor_")}
    matmuls = {on: {name for name in names if name.startswith("gpupoor_matmul")}
               for on, names in ran.items()}
    assert matmuls[True] and not any(x.endswith("_elements") for x in matmuls[True]), ran
    assert matmuls[False] and all(x.endswith("_elements") for x in matmuls[False]), ran
    # The copies are the library's row-copy kernel's.
    assert "gpupoor_row_copy" in ran[True] and "gpupoor_row_copy" not in ran[False], ran



def _as_they_lie(x, w):
    """split_k_sequential(x, w) with the unaligned copies off (the element
    kernels read the operands as they lie), and the matmul kernels it
    launched, by name."""
    from gpupoor._native import C
    C._copy_unaligned("never")
    try:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            y = split_k_sequential(x, w, backend="mlir")
            torch.cuda.synchronize()
    finally:
        C._copy_unaligned("policy")
    return y, {e.name for e in prof.events() if e.name.startswith("gpupoor_matmul")}


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's kernels")
@pytest.mark.parametrize("layout,m,n,k,first", [
    ("nk", 100, 200, 1036, 0),   # rows of whole 8-byte words: 8-byte pieces, a K tail of 4
    ("nk", 100, 200, 1036, 2),   # A starting 4 bytes on: 4-byte pieces for A, 8-byte for B
    ("nk", 100, 200, 1030, 0),   # 4-byte pieces, a K tail of 6
    ("nk", 100, 200, 1034, 3),   # A starting 6 bytes on: elements for A, a K tail of 2
    ("kn", 100, 202, 1036, 0),   # B's rows of 202 columns: 4-byte pieces, an N edge of 2
    ("kn", 3000, 100, 1030, 0),  # a narrow product of many rows
    ("km", 104, 204, 1028, 0),   # A as K x M, B's rows of 204: 8-byte pieces, an N edge of 4
    ("nk", 1, 4104, 4102, 0),    # one row (its stride never applied): 8-byte pieces, a K tail of 6
    ("nk", 1, 4104, 4101, 0),    # one row in 8-byte pieces, a K tail of 5 (a 2-byte piece); B by elements
])
def test_element_kernels_read_rows_in_pieces(layout, m, n, k, first):
    """The element kernels (rows off 16 bytes, as they lie) read an operand
    whose start and row stride lie on 8 or 4 bytes in 8- or 4-byte cp.async
    pieces, zero-filled past K and past M or N, and others element by
    element (KernelArgs::aPieceElems): exact in each mix, on the kernels
    named _elements. Where both operands take pieces, a piece that failed
    to zero-fill past K would leave stale products in the sums."""
    g = torch.Generator(device="cuda").manual_seed(m + n + k + first)
    if layout == "km":
        x = ints(k * m + first, gen=g)[first:].view(k, m).T
    else:
        x = ints(m * k + first, gen=g)[first:].view(m, k)
    w = ints(n, k, gen=g).T if layout == "nk" else ints(k, n, gen=g)
    y, names = _as_they_lie(x, w)
    assert torch.equal(y.double(), ref(x, w))
    assert names and all(name.endswith("_elements") for name in names), names


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's kernels")
@pytest.mark.parametrize("layout", ["nk", "kn"])
def test_element_kernels_choose_pieces_per_batch_element(layout):
    """A batch whose elements lie 2 elements (4 bytes) apart past whole
    rows: element b of A starts on 8 bytes for even b and on 4 for odd
    ones; B's, one element apart, on 2 bytes for odd b, 4 or 8 for even
    ones. Each block takes its own element's pieces. Exact."""
    g = torch.Generator(device="cuda").manual_seed(3)
    batch, m, n, k = 6, 100, 200, 1036
    a_store = ints(batch * (m * k + 2), gen=g)
    x = a_store.as_strided((batch, m, k), (m * k + 2, k, 1))
    if layout == "nk":
        b_store = ints(batch * (n * k + 1), gen=g)
        w = b_store.as_strided((batch, n, k), (n * k + 1, k, 1)).transpose(1, 2)
    else:
        b_store = ints(batch * (k * n + 1), gen=g)
        w = b_store.as_strided((batch, k, n), (k * n + 1, n, 1))
    y, names = _as_they_lie(x, w)
    assert torch.equal(y.double(), ref(x, w))
    assert names and all(name.endswith("_elements") for name in names), names


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's kernels")
@pytest.mark.parametrize("k", [1031, 1036])
@pytest.mark.parametrize("rows_apart", [0, 1])
@pytest.mark.parametrize("batch", [4, 20])
def test_unaligned_batches_run_on_padded_copies(k, rows_apart, batch):
    """Batches of operands whose rows lie off 16 bytes (K = 1031; 1036: of
    whole 8-byte words, but for A's, which start 2 bytes on), copied into
    padded rows: batches a whole number of rows apart (rows_apart=0) and a row
    between them, A as M x K, B as N x K read through its transpose, few
    batches (n64) and more (m64). Exact."""
    g = torch.Generator(device="cuda").manual_seed(batch + rows_apart + k)
    x = ints(batch, 100 + rows_apart, k + 1, gen=g)[:, :100, 1:]
    w = ints(batch, 200 + rows_apart, k, gen=g)[:, :200].transpose(1, 2)
    assert x.stride(0) == (100 + rows_apart) * (k + 1) and w.stride(1) == 1
    y = split_k_sequential(x, w, backend="mlir")
    assert torch.equal(y.double(), ref(x, w))


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's kernels")
@pytest.mark.parametrize("batch,m,n,k,first", [(0, 333, 200, 1000, 0), (0, 1003, 136, 2056, 1),
                                               (3, 333, 200, 1000, 0), (2, 100, 1000, 264, 3)])
def test_a_as_k_by_m_off_16_bytes_runs_on_its_padded_copy(batch, m, n, k, first):
    """An A stored K x M whose rows of M lie off 16 bytes (M no multiple of
    8), or start off them (`first` elements into its storage), 2-D or
    batched: copied as it lies into padded rows (policy::Strategy::padsA)
    and read as K x M. Exact, and in a CUDA graph each replay copies A as
    it is then."""
    g = torch.Generator(device="cuda").manual_seed(batch + m + n + k + first)
    store = ints(max(batch, 1) * k * m + first, gen=g)
    def view(flat):
        a = flat[first:].view(max(batch, 1), k, m).transpose(1, 2)
        return a if batch else a[0]
    x = view(store)
    w = ints(*((batch,) if batch else ()), k, n, gen=g)
    assert x.stride(-2) == 1 and x.stride(-1) == m
    assert torch.equal(split_k_sequential(x, w, backend="mlir").double(), ref(x, w))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = split_k_sequential(x, w, backend="mlir")
    store.copy_(ints(store.numel(), gen=g))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(y.double(), ref(x, w))


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's kernels")
def test_padded_copies_in_a_cuda_graph():
    """A product whose operands are copied into padded rows (K = 1031),
    captured into a CUDA graph: each replay copies the operands as they are
    then."""
    g = torch.Generator(device="cuda").manual_seed(5)
    x, w = ints(100, 1031, gen=g), ints(200, 1031, gen=g).T
    y = split_k_sequential(x, w, backend="mlir")      # loads the kernels
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = split_k_sequential(x, w, backend="mlir")
    for seed in (6, 7):
        g.manual_seed(seed)
        x.copy_(ints(100, 1031, gen=g))
        w.copy_(ints(200, 1031, gen=g).T)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(y.double(), ref(x, w))


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's kernels")
@pytest.mark.parametrize("m,n,k", [(1, 20000, 1031), (16, 136, 1031), (4096, 16, 4100),
                                   (8, 4100, 4100), (12000, 40, 4020)])
def test_vector_and_small_products_read_unaligned_operands_as_they_lie(m, n, k):
    """A product of one row reads each operand once, one of fewer than
    policy::kMinCopiedWork multiply-adds would pay the copy's launch, and a
    narrow one (16 columns, 8 rows; 40 columns in more blocks than SMs on
    sm_90a) whose operands' rows lie on 8 bytes reads them in cp.async
    pieces for less than their copies would cost: their unaligned operands
    are not copied (policy::copiesUnalignedOperands); exact."""
    if min(m, n) > 1 and m * n * k > 2**22 and torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the narrow products' piece rules are sm_90a's")
    g = torch.Generator(device="cuda").manual_seed(11)
    x, w = ints(m, k, gen=g), ints(k, n, gen=g)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        y = split_k_sequential(x, w, backend="mlir")
        torch.cuda.synchronize()
    assert torch.equal(y.double(), ref(x, w))
    names = {e.name for e in prof.events() if e.name.startswith("gpupoor_matmul")}
    assert names and all(name.endswith("_elements") for name in names), names


@pytest.mark.parametrize("activation", [None, "relu", "gelu"])
def test_backward_matches_a_float64_reference(backend, activation):
    """Gradients against float64 autograd of the same function, its
    activation's derivative taken at the kernel's own pre-activation (where
    an f16 value sits at relu's kink, only that tells which side it is on)."""
    g = torch.Generator(device="cuda").manual_seed(3)
    lin = gpupoor.LowPrecisionLinear(256, 96, activation=activation, device="cuda",
                                     dtype=torch.float16, backend=backend)
    x = torch.randn(4, 33, 256, device="cuda", generator=g).half().requires_grad_()
    y = lin(x)
    gy = torch.randn(y.shape, device="cuda", generator=g).half()
    y.backward(gy)
    with torch.no_grad():
        z = split_k_sequential(x, lin.weight.T, lin.bias, backend=backend).double()
    x64 = x.detach().double().requires_grad_()
    w64 = lin.weight.detach().double().requires_grad_()
    b64 = lin.bias.detach().double().requires_grad_()
    z64 = F.linear(x64, w64, b64)
    if activation == "relu":
        slope = (z > 0).double()
    elif activation == "gelu":
        cdf = 0.5 * (1 + torch.erf(z * 0.7071067811865476))
        slope = cdf + z * torch.exp(-0.5 * z * z) * 0.3989422804014327
    else:
        slope = torch.ones_like(z)
    z64.backward(gy.double() * slope)
    for got, want in ((x.grad, x64.grad), (lin.weight.grad, w64.grad), (lin.bias.grad, b64.grad)):
        err = ((got.double() - want).norm() / want.norm()).item()
        assert err < 2e-3, err


@pytest.mark.skipif(not torch.cuda.is_available() or
                    torch.cuda.get_device_capability() != (9, 0),
                    reason="the K x M kernels are sm_90a's")
def test_weight_gradient_reads_grad_transposed_without_a_copy():
    """On sm_90a the weight gradient (grad^T @ x) reads grad^T as a view
    through a K x M kernel: the backward copies no activation-sized tensor
    (before, grad^T was cloned contiguous for every weight gradient), and
    the gradient matches float64's."""
    lin = gpupoor.LowPrecisionLinear(512, 384, bias=False, device="cuda", dtype=torch.float16,
                                     backend="mlir")
    x = torch.randn(4, 75, 512, device="cuda", dtype=torch.float16, requires_grad=True)
    gy = torch.randn(4, 75, 384, device="cuda", dtype=torch.float16)
    y = lin(x)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        y.backward(gy)
    copies = [e.name for e in prof.events() if e.name in ("aten::clone", "aten::copy_")]
    assert copies == []
    want = gy.reshape(-1, 384).double().t() @ x.detach().reshape(-1, 512).double()
    err = ((lin.weight.grad.double() - want).norm() / want.norm()).item()
    assert err < 2e-3, err


def test_gelu_backward_takes_no_second_product(backend):
    """Where a gradient will be taken, GELU's forward keeps the
    pre-activation (the kernel writes z, GELU runs apart, as nn.Linear and
    nn.GELU do), so the backward runs two products, not three; under
    no_grad GELU stays in the kernel's epilogue."""
    lin = gpupoor.LowPrecisionLinear(256, 192, activation="gelu", device="cuda",
                                     dtype=torch.float16, backend=backend)
    x = torch.randn(5, 40, 256, device="cuda", dtype=torch.float16, requires_grad=True)
    y = lin(x)
    z = split_k_sequential(x.detach(), lin.weight.detach().T, lin.bias.detach(), backend=backend)
    assert torch.equal(y, F.gelu(z))
    with torch.no_grad():
        fused = lin(x)
    want = F.gelu(z.float())
    assert ((fused.float() - want).abs() <= 1e-3 * want.abs() + 1e-3).all()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        y.backward(torch.randn_like(y))
    def outermost(e):
        # The operator's autograd kernel calls it again below autograd.
        p = e.cpu_parent
        while p is not None:
            if p.name == e.name:
                return False
            p = p.cpu_parent
        return True

    calls = [e for e in prof.events() if e.name == "gpupoor::split_k_matmul" and outermost(e)]
    assert len(calls) == 2, len(calls)


class _CountCasts(torch.utils._python_dispatch.TorchDispatchMode):
    """Counts the dtype casts (aten._to_copy) dispatched under it."""

    def __init__(self):
        super().__init__()
        self.casts = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is torch.ops.aten._to_copy.default:
            self.casts += 1
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("x_dtype", [torch.float16, torch.float32, torch.bfloat16])
def test_autocast_takes_f16_casts_as_matmul_does(backend, x_dtype):
    """Under torch.autocast an f32 LowPrecisionLinear takes x of any float
    dtype: the result is f16 and bit for bit the product of the f16 casts,
    and the gradients reach the f32 master weights as through explicit
    casts."""
    g = torch.Generator(device="cuda").manual_seed(5)
    lin = gpupoor.LowPrecisionLinear(200, 72, activation="relu", device="cuda",
                                     backend=backend)
    x = torch.randn(3, 11, 200, device="cuda", generator=g).to(x_dtype)
    gy = torch.randn(3, 11, 72, device="cuda", generator=g).half()
    with torch.autocast("cuda", dtype=torch.float16):
        y = lin(x)
    assert y.dtype == torch.float16
    y.backward(gy)
    got = (lin.weight.grad.clone(), lin.bias.grad.clone())
    lin.zero_grad()
    w16, b16 = lin.weight.half(), lin.bias.half()
    want = split_k_sequential(x.half(), w16.T, b16, activation="relu", backend=backend)
    assert torch.equal(y, want)
    want.backward(gy)
    assert lin.weight.grad.dtype == torch.float32
    assert torch.equal(got[0], lin.weight.grad) and torch.equal(got[1], lin.bias.grad)


def test_autocast_casts_master_weights_once_a_region(backend):
    """f32 parameters are cast once an autocast region (autocast's cache),
    LowPrecisionLinear's weight.T included, not once a call; outside
    autocast mixed dtypes stay an error."""
    lin = gpupoor.LowPrecisionLinear(128, 64, device="cuda", backend=backend)
    x = torch.randn(8, 128, device="cuda", dtype=torch.float16)
    with torch.autocast("cuda", dtype=torch.float16):
        with _CountCasts() as first:
            lin(x)
        with _CountCasts() as again:
            lin(x)
            split_k_sequential(x, lin.weight.T, lin.bias, backend=backend)
    assert (first.casts, again.casts) == (2, 0)
    with pytest.raises(TypeError, match="weight must have x's dtype"):
        lin(x)


def test_opcheck(backend):
    x = torch.randn(64, 256, device="cuda", dtype=torch.float16, requires_grad=True)
    w = torch.randn(128, 256, device="cuda", dtype=torch.float16, requires_grad=True)
    b = torch.randn(128, device="cuda", dtype=torch.float16, requires_grad=True)
    for args in ((x, w.T, None, 32, "f32", "none", 0, backend),
                 (x, w.T, b, 32, "f16", "relu", 1, backend)):
        torch.library.opcheck(torch.ops.gpupoor.split_k_matmul, args)


def test_torch_compile_fullgraph(backend):
    lin = gpupoor.LowPrecisionLinear(128, 64, activation="relu", device="cuda",
                                     dtype=torch.float16, backend=backend)
    f = torch.compile(lambda x: lin(x) * 2, fullgraph=True)
    x = torch.randn(3, 5, 128, device="cuda", dtype=torch.float16)
    assert torch.equal(f(x), lin(x) * 2)


def test_cpu_and_cross_device_refused():
    with pytest.raises(ValueError, match="x must be on a CUDA device"):
        split_k_sequential(torch.ones(2, 8).half(), torch.ones(8, 2, device="cuda").half())


@pytest.mark.skipif(torch.cuda.is_available() and
                    torch.cuda.get_device_properties(0).total_memory < 40 * 2**30,
                    reason="needs 40 GiB")
def test_operands_past_two_to_the_31_elements():
    # A of 2^31 + 2048 elements: the 32-bit kernels refuse it, the 64-bit
    # fallback runs it.
    m, k, n = 2**20 + 1, 2048, 16
    g = torch.Generator(device="cuda").manual_seed(11)
    x = torch.randint(-1, 2, (m, k), device="cuda", generator=g, dtype=torch.int8).half()
    w = ints(n, k, gen=g).T
    y = split_k_sequential(x, w, backend="mlir")
    want = (x.float() @ w.float())
    assert torch.equal(y.float(), want)


def test_eager_fast_path_and_dispatcher_agree(backend):
    """Calls without autograd skip the dispatcher; both paths run the same
    kernel."""
    g = torch.Generator(device="cuda").manual_seed(8)
    x = torch.randn(9, 300, device="cuda", generator=g).half()
    w = torch.randn(70, 300, device="cuda", generator=g).half().T
    direct = split_k_sequential(x, w, backend=backend)
    dispatched = torch.ops.gpupoor.split_k_matmul(x, w, None, 32, "f32", "none", 0, backend)
    assert torch.equal(direct, dispatched)
    with torch.no_grad():
        assert torch.equal(split_k_sequential(x.requires_grad_(), w, backend=backend), direct)


def test_cuda_graph_capture():
    x = torch.randn(4, 512, device="cuda").half()
    w = torch.randn(256, 512, device="cuda").half().T
    want = split_k_sequential(x, w, backend="mlir")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = split_k_sequential(x, w, backend="mlir")
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, want)


def test_cuda_graph_shares_slice_counters():
    """Launches in slices captured on one stream share the capture's
    counters, zeroed once (each launch leaves them zero): products of few
    and of many tiles (counters grown within the capture), allocations
    between them, a second graph on another stream and eager calls between
    replays; every replay gives the eager results, exactly. (It checks the
    results, not that the counters are shared: graph_counters_sm_90a.txt
    measures that.)"""
    g = torch.Generator(device="cuda").manual_seed(7)

    def ints(*shape):
        return torch.randint(-1, 2, shape, device="cuda", generator=g).half()

    # (M, N, K, slices): 16 tiles in 8 slices; 2048 tiles of 128 x 256, past
    # the 1024 counters first held, in two slices.
    cases = [(1024, 64, 4096, 8), (300, 700, 2048, 3), (8192, 8192, 256, 2), (1024, 128, 4096, 8)]
    ops = [(ints(m, k), ints(k, n), s) for m, n, k, s in cases]
    want = [(x.double() @ w.double()).half() for x, w, _ in ops]
    for (x, w, s), y in zip(ops, want):
        assert torch.equal(split_k_sequential(x, w, slices=s, backend="mlir"), y)
    graphs, outs = [], []
    # Two captures in a row on one stream (the second its own counters),
    # and one on another stream.
    first = torch.cuda.Stream()
    for stream in (first, first, torch.cuda.Stream()):
        stream.wait_stream(torch.cuda.current_stream())
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            got = []
            for x, w, s in ops:
                got.append(split_k_sequential(x, w, slices=s, backend="mlir"))
                torch.full((4096,), -1, dtype=torch.int32, device="cuda")
        graphs.append(graph)
        outs.append(got)
    for _ in range(3):
        for graph, got in zip(graphs, outs):
            for y in got:
                y.fill_(float("nan"))
            graph.replay()
            x, w, s = ops[1]
            assert torch.equal(split_k_sequential(x, w, slices=s, backend="mlir"), want[1])
            torch.cuda.synchronize()
            assert all(torch.equal(y, z) for y, z in zip(got, want))


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


@pytest.mark.parametrize("batch,m,n,k", [(3, 1, 136, 264), (5, 16, 520, 1032), (4, 77, 136, 520),
                                         (2, 300, 264, 2056), (6, 129, 1000, 24)])
@pytest.mark.parametrize("layout", ["bmm", "nk", "kmkn"])
def test_batched_exact(backend, batch, m, n, k, layout):
    """A 3-D weight: a batch of products in one launch (torch.bmm's), exact
    on small integers: B as (batch, K, N), as the transpose of (batch, N, K)
    (attention's Q K^T) and A as the transpose of (batch, K, M) (dV = P^T
    dO's P^T)."""
    g = torch.Generator(device="cuda").manual_seed(batch + m + n + k)
    x = ints(batch, k, m, gen=g).transpose(1, 2) if layout == "kmkn" else \
        ints(batch, m, k, gen=g)
    w = ints(batch, n, k, gen=g).transpose(1, 2) if layout == "nk" else \
        ints(batch, k, n, gen=g)
    for outer in ("f32", "f16"):
        y = split_k_sequential(x, w, outer=outer, backend=backend)
        assert y.shape == (batch, m, n)
        assert torch.equal(y.double(), ref(x, w))


@pytest.mark.parametrize("slices", [0, 1, 3])
def test_batched_strides_broadcast_and_one_element(backend, slices):
    """Batches of any strides: padding between elements, a weight the batch
    shares (expand: batch stride 0, which no tensor map takes: the
    cp.async kernel's), a permuted view, one element (the 2-D product), f32
    operands; slices asked for. Exact on small integers."""
    if backend == "triton" and slices > 1:
        pytest.skip("the triton backend runs sequential split-k only")
    g = torch.Generator(device="cuda").manual_seed(slices)
    batch, m, n, k = 4, 200, 264, 1032
    x = ints(batch, m + 5, k, gen=g)[:, :m]
    w = ints(batch + 1, k, n, gen=g)[1:]
    shared = ints(k, n, gen=g).expand(batch, k, n)
    permuted = ints(m, batch, k, gen=g).transpose(0, 1)
    for a, b in ((x, w), (x, shared), (permuted, w), (x[:1], w[:1]), (x.float(), w.float())):
        y = split_k_sequential(a, b, slices=slices, backend=backend)
        assert y.dtype == a.dtype and y.shape == (a.shape[0], m, n)
        assert torch.equal(y.double(), ref(a, b))
    # Deterministic run to run.
    assert torch.equal(split_k_sequential(x, w, slices=slices, backend=backend),
                       split_k_sequential(x, w, slices=slices, backend=backend))


def test_batched_backward_matches_a_float64_reference(backend):
    """dx = g W^T and dW = x^T g of a batch, each a batched product of the
    operator's own."""
    g = torch.Generator(device="cuda").manual_seed(5)
    x = torch.randn(6, 33, 256, device="cuda", generator=g).half().requires_grad_()
    w = torch.randn(6, 256, 96, device="cuda", generator=g).half().requires_grad_()
    y = split_k_sequential(x, w, backend=backend)
    gy = torch.randn(y.shape, device="cuda", generator=g).half()
    y.backward(gy)
    x64 = x.detach().double().requires_grad_()
    w64 = w.detach().double().requires_grad_()
    torch.bmm(x64, w64).backward(gy.double())
    for got, want in ((x.grad, x64.grad), (w.grad, w64.grad)):
        assert got.shape == want.shape
        err = ((got.double() - want).norm() / want.norm()).item()
        assert err < 2e-3, err
