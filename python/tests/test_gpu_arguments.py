"""Every combination of the public arguments of split_k_sequential and
LowPrecisionLinear on a GPU, both backends (an activation without a bias
among them: it runs the `bias_<act>` kernel with a -0.0 bias).

Inputs are small integers ({-1, 0, 1}; bias {-2, ..., 2}), so that every f16
partial sum, whatever the chunking, is an exact integer (each output's
sum of |products| is checked to stay at or below 2048): the kernels' results
then equal a float64 reference of the same epilogue rounded to the output
dtype, bit for bit (None, ReLU). GELU is not exact (erf in f32): it is held
to two ulps of the output dtype at the pre-activation's magnitude, around
torch's GELU of the exact pre-activation. Inputs and references are made
once per shape and shared. Needs CUDA and, for the mlir backend, the kernel
library (python -m gpupoor.build_library) or gpupoor-opt."""

import itertools
import os

import pytest
import torch
import torch.nn.functional as F

import gpupoor
from gpupoor.kernels import split_k_sequential

pytestmark = pytest.mark.gpu
BACKENDS = [b for b in os.environ.get("GPUPOOR_TEST_BACKENDS", "mlir,triton").split(",") if b]

# M x N x K: odd sizes (no multiple of 8: the fallback kernels), decode
# products (M = 1..16), K past 2016 (at least 12 chunks), and on an H100's
# sm_90a library each tile family of the nk variants: s16 (16x136x72),
# s16w (1x9000x264), m16 (4x17000x40), n64 (33x250x520), m64 (100x4500x136),
# large (130x256x1000, 2048x256x4096), mid (512x4096x264), pl (1100x4104x264);
# B as K x N takes m16, m64 and large.
SHAPES = [(1, 13, 9), (7, 13, 9), (3, 64, 200), (16, 136, 72), (33, 250, 520),
          (130, 256, 1000), (2048, 256, 4096),
          (2, 96, 4104), (5, 1000, 520), (9, 72, 2056), (12, 264, 136), (15, 200, 33),
          (1, 9000, 264), (4, 17000, 40),
          (100, 4500, 136), (512, 4096, 264), (1100, 4104, 264)]
# The triton backend's share: its pointer kernel (M <= 32 configurations)
# and its TMA kernel (M > 128) over every combination. On a cold Triton cache
# every constexpr combination, specialization and autotuned configuration
# compiles (a second or two each: the triton backend ran 8 minutes for the
# first 6 shapes on an H100, 2026-11-27, 3.3 of them for 33x250x520's four
# M > 32 configurations), so it takes the whole list only with
# GPUPOOR_TEST_TRITON_SHAPES=all.
TRITON_SHAPES = (SHAPES if os.environ.get("GPUPOOR_TEST_TRITON_SHAPES") == "all"
                 else [(7, 13, 9), (130, 256, 1000)])
ACTIVATIONS = [None, "relu", "gelu"]
DTYPES = [torch.float16, torch.float32]
OUTERS = ["f32", "f16"]
SLICES = [0, 1, 2]
LAYOUTS = ["nk", "kn"]   # weight.T of an (N, K) tensor, or a contiguous (K, N)


def _ids(shape):
    return "x".join(map(str, shape))


class _Shape:
    """One shape's operands (both dtypes, both layouts) and references."""

    def __init__(self, m, n, k):
        g = torch.Generator(device="cuda").manual_seed(m * 7919 + n * 31 + k)
        # x in {-1, 0, 1} with P(0) = 2/3, w with P(0) = 1/3: an output's
        # sum of |products| is about 2K/9 (about 910 at K = 4104).
        x = torch.randint(-1, 2, (m, k), device="cuda", generator=g) * \
            torch.randint(0, 2, (m, k), device="cuda", generator=g)
        w = torch.randint(-1, 2, (n, k), device="cuda", generator=g)
        bias = torch.randint(-2, 3, (n,), device="cuda", generator=g)
        bound = (x.abs().double() @ w.abs().double().T).max().item() if m and n and k else 0
        assert bound <= 2048, f"inputs whose f16 partial sums may pass 2048 ({bound})"
        self.z = x.double() @ w.double().T           # the exact product
        self.x = {dt: x.to(dt) for dt in DTYPES}
        self.w = {dt: {"nk": w.to(dt).T, "kn": w.to(dt).T.contiguous()} for dt in DTYPES}
        self.bias = {dt: bias.to(dt) for dt in DTYPES}
        self.bias64 = bias.double()
        self._want = {}

    def pre(self, with_bias):
        return self.z + self.bias64 if with_bias else self.z

    def want(self, with_bias, activation, dtype):
        """The float64 epilogue rounded once to `dtype` (None, ReLU), or
        (GELU) the float64 value and its tolerance."""
        key = (with_bias, activation, dtype)
        if key not in self._want:
            z = self.pre(with_bias)
            if activation == "gelu":
                # Two ulps of dtype at max(|z|, |gelu(z)|) = |z| (the smallest
                # subnormal at z = 0, whose GELU is exactly 0).
                a = z.abs().to(dtype)
                ulp = (torch.nextafter(a, torch.full_like(a, float("inf"))) - a).double()
                self._want[key] = (F.gelu(z), 2 * ulp)
            else:
                self._want[key] = (torch.relu(z) if activation == "relu" else z).to(dtype)
        return self._want[key]


_shapes: dict = {}


def shape_data(shape) -> _Shape:
    if shape not in _shapes:
        _shapes.clear()     # one shape's tensors at a time (at most about 0.5 GB)
        _shapes[shape] = _Shape(*shape)
    return _shapes[shape]


def check(y, data, with_bias, activation, dtype, what):
    assert y.dtype == dtype and y.shape == data.z.shape, what
    if activation == "gelu":
        want, tol = data.want(with_bias, activation, dtype)
        err = (y.double() - want).abs()
        bad = err > tol
        assert not bad.any(), (f"{what}: {int(bad.sum())} elements off by more than two ulps, "
                               f"worst {err.max().item():.3g} at "
                               f"z = {data.pre(with_bias)[bad][0].item()}")
    else:
        assert torch.equal(y, data.want(with_bias, activation, dtype)), what


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("with_bias", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("shape", SHAPES, ids=_ids)
def test_split_k_sequential_every_combination(shape, with_bias, activation, backend):
    """split_k_sequential over outer x slices x dtype x B layout for this
    shape, bias and activation; the mlir backend's calls twice, the second
    (float16) from the plan the first made, bit-identical."""
    if backend == "triton" and shape not in TRITON_SHAPES:
        pytest.skip("the triton backend's shapes: TRITON_SHAPES")
    data = shape_data(shape)
    for dtype, layout, outer, slices in itertools.product(DTYPES, LAYOUTS, OUTERS, SLICES):
        x, w = data.x[dtype], data.w[dtype][layout]
        bias = data.bias[dtype] if with_bias else None
        kw = dict(outer=outer, activation=activation, slices=slices, backend=backend)
        what = f"{dtype} {layout} outer={outer} slices={slices}"
        if backend == "triton" and slices > 1:
            with pytest.raises(ValueError, match="sequential split-k only"):
                split_k_sequential(x, w, bias, **kw)
            continue
        y = split_k_sequential(x, w, bias, **kw)
        check(y, data, with_bias, activation, dtype, what)
        if backend == "mlir":
            again = split_k_sequential(x, w, bias, **kw)
            assert torch.equal(again.view(torch.uint8), y.view(torch.uint8)), what


MODULE_SHAPES = [(1, 13, 9), (7, 13, 9), (16, 136, 72), (33, 250, 520), (130, 256, 1000),
                 (1, 9000, 264), (512, 4096, 264)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", MODULE_SHAPES, ids=_ids)
def test_low_precision_linear_every_combination(shape, backend):
    """LowPrecisionLinear(K, N, bias, activation, outer, slices, backend) in
    float16 and float32, forward on x of shape (M, K) and (2, M, K)."""
    if backend == "triton" and shape not in TRITON_SHAPES:
        pytest.skip("the triton backend's shapes: TRITON_SHAPES")
    data = shape_data(shape)
    m, n, k = shape
    for dtype, with_bias, activation, outer, slices in itertools.product(
            DTYPES, [False, True], ACTIVATIONS, OUTERS, SLICES):
        lin = gpupoor.LowPrecisionLinear(k, n, bias=with_bias, device="cuda", dtype=dtype,
                                         activation=activation, outer=outer, slices=slices,
                                         backend=backend)
        with torch.no_grad():
            lin.weight.copy_(data.w[dtype]["nk"].T)
            if with_bias:
                lin.bias.copy_(data.bias[dtype])
        assert (lin.bias is None) == (not with_bias)
        what = f"{dtype} bias={with_bias} {activation} outer={outer} slices={slices}"
        x = data.x[dtype]
        if backend == "triton" and slices > 1:
            with pytest.raises(ValueError, match="sequential split-k only"):
                lin(x)
            continue
        with torch.no_grad():
            check(lin(x), data, with_bias, activation, dtype, what)
        # With autograd on: through the operator.
        y3 = lin(torch.stack([x, x])).detach()
        assert y3.shape == (2, m, n), what
        assert torch.equal(y3[0].view(torch.uint8), y3[1].view(torch.uint8)), what
        check(y3[1], data, with_bias, activation, dtype, what + " (3-D x, autograd)")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_without_bias_forward_and_backward(backend, activation, dtype):
    """LowPrecisionLinear(in, out, bias=False, activation=...): forward, and
    gradients of x and the weight against float64 autograd (the activation's
    derivative at the kernel's own pre-activation); no bias, no bias
    gradient."""
    torch.manual_seed(0)
    lin = gpupoor.LowPrecisionLinear(256, 24, bias=False, activation=activation, device="cuda",
                                     dtype=dtype, backend=backend)
    assert lin.bias is None
    g = torch.Generator(device="cuda").manual_seed(4)
    x = torch.randn(4, 7, 256, device="cuda", generator=g).to(dtype).requires_grad_()
    y = lin(x)
    assert y.shape == (4, 7, 24) and y.dtype == dtype and y.requires_grad
    gy = torch.randn(y.shape, device="cuda", generator=g).to(dtype)
    y.backward(gy)
    assert x.grad is not None and lin.weight.grad is not None
    with torch.no_grad():
        z = split_k_sequential(x, lin.weight.T, backend=backend).double()
        # Forward: the activation of the bias-free product, as the kernel
        # gives it.
        act = F.relu(z) if activation == "relu" else F.gelu(z)
        torch.testing.assert_close(y.double(), act.to(dtype).double(), rtol=2e-3, atol=2e-3)
    x64 = x.detach().double().requires_grad_()
    w64 = lin.weight.detach().double().requires_grad_()
    z64 = F.linear(x64, w64)
    if activation == "relu":
        slope = (z > 0).double()
    else:
        cdf = 0.5 * (1 + torch.erf(z * 0.7071067811865476))
        slope = cdf + z * torch.exp(-0.5 * z * z) * 0.3989422804014327
    z64.backward(gy.double() * slope)
    for got, want in ((x.grad, x64.grad), (lin.weight.grad, w64.grad)):
        err = ((got.double() - want).norm() / want.norm()).item()
        assert err < 2e-3, err
    # Through the operator directly: no gradient for the absent bias.
    a = x.detach().reshape(-1, 256).requires_grad_()
    out = torch.ops.gpupoor.split_k_matmul(a, lin.weight.T, None, 32, "f32", activation, 0,
                                           backend)
    grads = torch.autograd.grad(out, [a, lin.weight], gy.reshape(-1, 24))
    assert all(gr is not None for gr in grads)


def test_linear_without_bias_compiles():
    """torch.compile(fullgraph=True) of LowPrecisionLinear(bias=False,
    activation="relu"): the operator's fake implementation and its
    implementation at run time (the backend does not enter the trace)."""
    lin = gpupoor.LowPrecisionLinear(128, 64, bias=False, activation="relu", device="cuda",
                                     dtype=torch.float16, backend=BACKENDS[0])
    f = torch.compile(lambda x: lin(x) * 2, fullgraph=True)
    x = torch.randn(3, 5, 128, device="cuda", dtype=torch.float16)
    assert torch.equal(f(x), lin(x) * 2)


def test_zero_k_without_bias():
    for backend in BACKENDS:
        for activation in ACTIVATIONS:
            y = split_k_sequential(torch.empty(3, 0, device="cuda").half(),
                                   torch.empty(0, 8, device="cuda").half(),
                                   activation=activation, backend=backend)
            assert torch.equal(y, torch.zeros(3, 8, device="cuda").half())


def test_activation_without_bias_under_graph_capture():
    """The -0.0 bias of an activation without a bias: a launch captured
    before any eager call of its (device, dtype, N) takes a tensor of the
    graph's own, refilled by each replay; one captured after reuses the
    eager calls' tensor; both replay the eager result."""
    n = 1736                            # an N no other test uses
    g = torch.Generator(device="cuda").manual_seed(n)
    x = torch.randint(-1, 2, (5, 264), device="cuda", generator=g).half()
    w = torch.randint(-1, 2, (n, 264), device="cuda", generator=g).half().T
    want = torch.relu(x.double() @ w.double()).half()
    # The plan (kernel loaded) from a call with a bias of the same stride:
    # nothing but the launch is left to the capture.
    zero = torch.zeros(n, device="cuda").half()
    assert torch.equal(split_k_sequential(x, w, zero, activation="relu", backend="mlir"), want)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    first = torch.cuda.CUDAGraph()
    with torch.cuda.graph(first, stream=side):
        out1 = split_k_sequential(x, w, activation="relu", backend="mlir")
    for _ in range(2):
        first.replay()
        torch.cuda.synchronize()
        assert torch.equal(out1, want)
    for _ in range(3):
        assert torch.equal(split_k_sequential(x, w, activation="relu", backend="mlir"), want)
    second = torch.cuda.CUDAGraph()
    with torch.cuda.graph(second, stream=side):
        out2 = split_k_sequential(x, w, activation="relu", backend="mlir")
    del first
    second.replay()
    torch.cuda.synchronize()
    assert torch.equal(out2, want)
