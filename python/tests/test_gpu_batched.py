"""The package on a GPU, batched products: exact over layouts, broadcast and
one-element batch strides, backward. Needs CUDA and, for the mlir backend,
the kernel library."""

import pytest
import torch

from gpupoor.kernels import split_k_sequential

from gpu_reference import ints, ref

pytestmark = pytest.mark.gpu


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
