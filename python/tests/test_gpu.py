"""The package on a GPU: exact results on {-1, 0, 1} inputs over shapes,
layouts and outer sums, slices and chunk counts, bias and activations,
gpu_poor's call patterns, zero K and N, GELU's second derivatives, strided
and misaligned operands. Needs CUDA and, for the mlir backend, the kernel
library (python -m gpupoor.build_library) or gpupoor-opt. The other
test_gpu_*.py files cover the rest by subject."""

import pytest
import torch
import torch.nn.functional as F

from gpupoor.kernels import split_k_sequential

from gpu_reference import ints, ref

pytestmark = pytest.mark.gpu

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
