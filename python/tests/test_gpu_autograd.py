"""The package on a GPU under autograd and autocast: backward against a
float64 reference, the weight gradient's transposed read, GELU's backward
without a second product, autocast's casts. Needs CUDA and, for the mlir
backend, the kernel library."""

import pytest
import torch
import torch.nn.functional as F

import gpupoor
from gpupoor.kernels import split_k_sequential

pytestmark = pytest.mark.gpu


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
