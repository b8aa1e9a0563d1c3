"""Argument checking, shape and dtype rules and the fake implementation:
no GPU needed (fake CUDA tensors)."""

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import gpupoor
from gpupoor.kernels import split_k_sequential


@pytest.fixture
def fake():
    with FakeTensorMode() as mode:
        yield mode


def cuda(*shape, dtype=torch.float16):
    return torch.empty(*shape, dtype=dtype, device="cuda")


@pytest.mark.parametrize("lead", [(), (5,), (2, 3), (0,), (2, 0, 4)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_shapes_and_dtype_follow_x(fake, lead, dtype):
    x = cuda(*lead, 64, dtype=dtype)
    w = cuda(32, 64, dtype=dtype)
    y = split_k_sequential(x, w.T, cuda(32, dtype=dtype))
    assert y.shape == (*lead, 32) and y.dtype == dtype and y.device == x.device


def test_one_dimensional_x_and_row_bias(fake):
    y = split_k_sequential(cuda(64), cuda(64, 16), cuda(1, 16))
    assert y.shape == (16,)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_batched_shapes(fake, dtype):
    """A 3-D weight is a batch of products: (batch, M, K) @ (batch, K, N)."""
    y = split_k_sequential(cuda(3, 5, 64, dtype=dtype), cuda(3, 64, 24, dtype=dtype))
    assert y.shape == (3, 5, 24) and y.dtype == dtype
    assert split_k_sequential(cuda(0, 5, 64), cuda(0, 64, 24)).shape == (0, 5, 24)
    assert split_k_sequential(cuda(1, 5, 64), cuda(1, 64, 24)).shape == (1, 5, 24)


def test_zero_size_dims(fake):
    assert split_k_sequential(cuda(0, 8), cuda(8, 4)).shape == (0, 4)
    assert split_k_sequential(cuda(3, 0), cuda(0, 4)).shape == (3, 4)
    assert split_k_sequential(cuda(3, 8), cuda(8, 0)).shape == (3, 0)


def test_module_forward_shape(fake):
    lin = gpupoor.LowPrecisionLinear(64, 48, activation="relu", device="cuda",
                                     dtype=torch.float16)
    assert lin(cuda(2, 7, 64)).shape == (2, 7, 48)
    assert isinstance(lin, torch.nn.Linear)


@pytest.mark.parametrize("call, error, match", [
    (lambda: split_k_sequential(torch.ones(4, 8).half(), torch.ones(8, 4).half()),
     ValueError, "x must be on a CUDA device"),
    (lambda: split_k_sequential(cuda(4, 8), torch.ones(8, 4).half()),
     ValueError, "weight must be on a CUDA device"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), torch.ones(4).half()),
     ValueError, "bias must be on a CUDA device"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(4, 8)), ValueError, "K = 4"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4, 2)), ValueError, "x must be 3-D"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(1, 8, 4, 2)), ValueError, "weight must be 2-D"),
    (lambda: split_k_sequential(cuda(2, 4, 8), cuda(3, 8, 4)), ValueError,
     r"x's batch \(2\) must equal weight's \(3\)"),
    (lambda: split_k_sequential(cuda(2, 4, 8), cuda(2, 6, 4)), ValueError, "K = 6"),
    (lambda: split_k_sequential(cuda(2, 4, 8), cuda(2, 8, 4), cuda(4)), ValueError,
     "bias is not supported with a batched"),
    (lambda: split_k_sequential(cuda(2, 4, 8), cuda(2, 8, 4), activation="relu"), ValueError,
     "activation is not supported with a batched"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8)), ValueError, "weight must be 2-D"),
    (lambda: split_k_sequential(torch.empty((), device="cuda").half(), cuda(8, 4)),
     ValueError, "x must have at least one dimension"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), cuda(5)), ValueError, "bias must have shape"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), cuda(2, 4)), ValueError,
     "bias must have shape"),
    (lambda: split_k_sequential(cuda(4, 8, dtype=torch.bfloat16), cuda(8, 4, dtype=torch.bfloat16)),
     TypeError, "bf16"),
    (lambda: split_k_sequential(cuda(4, 8, dtype=torch.int32), cuda(8, 4, dtype=torch.int32)),
     TypeError, "x must be float16 or float32"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4, dtype=torch.float32)),
     TypeError, "weight must have x's dtype"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), cuda(4, dtype=torch.float32)),
     TypeError, "bias must have x's dtype"),
    (lambda: split_k_sequential(cuda(4, 8), [[1.0]]), TypeError, "weight must be a torch.Tensor"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), max_k_splits=0), ValueError, "max_k_splits"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), max_k_splits=2.0), ValueError, "max_k_splits"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), outer="f64"), ValueError, "outer"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), outer=None), ValueError, "outer"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), activation="silu"), ValueError, "activation"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), slices=-1), ValueError, "slices"),
    (lambda: split_k_sequential(cuda(4, 8), cuda(8, 4), backend="cublas"), ValueError, "backend"),
])
def test_bad_arguments_name_the_argument(fake, call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.skipif(torch.cuda.is_available() and torch.cuda.device_count() < 2,
                    reason="fake tensors on cuda:1 initialize the real device where CUDA exists")
def test_devices_must_match(fake):
    x = torch.empty(4, 8, dtype=torch.float16, device="cuda:0")
    w = torch.empty(8, 4, dtype=torch.float16, device="cuda:1")
    with pytest.raises(ValueError, match="weight is on cuda:1, x on cuda:0"):
        split_k_sequential(x, w)


@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_module_without_bias_traces_no_bias(fake, activation):
    """LowPrecisionLinear(bias=False) with an activation: the operator gets
    no bias (the -0.0 one the mlir backend launches with stays inside the
    implementation), so the fake implementation, the FLOP count and
    autograd see none. (With a gradient to take, GELU runs apart from the
    product, on the pre-activation it keeps for the backward.)"""
    from torch.fx.experimental.proxy_tensor import make_fx
    lin = gpupoor.LowPrecisionLinear(64, 48, bias=False, activation=activation,
                                     dtype=torch.float16, device="cuda")
    assert lin.bias is None
    assert lin(cuda(2, 7, 64)).shape == (2, 7, 48)
    gm = make_fx(lambda x: lin(x))(cuda(3, 64))
    calls = [n for n in gm.graph.nodes if n.target == torch.ops.gpupoor.split_k_matmul.default]
    assert len(calls) == 1
    # The trace leaves out trailing arguments at their defaults.
    schema = torch.ops.gpupoor.split_k_matmul.default._schema
    args = list(calls[0].args) + [a.default_value for a in schema.arguments[len(calls[0].args):]]
    assert args[2] is None and args[5] == ("relu" if activation == "relu" else "none")
    gelus = [n for n in gm.graph.nodes if n.target == torch.ops.aten.gelu.default]
    assert len(gelus) == (activation == "gelu")


def test_module_rejects_bad_options():
    with pytest.raises(ValueError, match="activation"):
        gpupoor.LowPrecisionLinear(4, 4, activation="tanh")
    with pytest.raises(ValueError, match="outer"):
        gpupoor.LowPrecisionLinear(4, 4, outer="bf16")


def test_fake_impl_through_the_op(fake):
    out = torch.ops.gpupoor.split_k_matmul(cuda(5, 64), cuda(64, 24), None, 32, "f32",
                                           "none", 0, "auto")
    assert out.shape == (5, 24) and out.dtype == torch.float16


def test_flop_formula():
    from torch.utils.flop_counter import FlopCounterMode
    with FakeTensorMode():
        x, w, b = cuda(16, 64), cuda(64, 32), cuda(32)
        with FlopCounterMode(display=False) as counter:
            torch.ops.gpupoor.split_k_matmul(x, w, b, 32, "f32", "relu", 0, "auto")
    assert counter.get_total_flops() == 2 * 16 * 32 * 64 + 16 * 32
    with FakeTensorMode():
        x, w = cuda(3, 16, 64), cuda(3, 64, 32)
        with FlopCounterMode(display=False) as counter:
            torch.ops.gpupoor.split_k_matmul(x, w, None, 32, "f32", "none", 0, "auto")
    assert counter.get_total_flops() == 3 * 2 * 16 * 32 * 64


def test_export_traces_one_op_without_breaks(fake):
    """The wrapper's checks trace (no graph breaks): the exported graph holds
    the op."""

    from torch.fx.experimental.proxy_tensor import make_fx
    lin = gpupoor.LowPrecisionLinear(64, 32, activation="gelu", dtype=torch.float16,
                                     device="cuda")
    gm = make_fx(lambda x: lin(x))(cuda(3, 64))
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert torch.ops.gpupoor.split_k_matmul.default in targets


def test_operator_called_directly_refuses_host_tensors():
    with pytest.raises(ValueError, match="x must be on a CUDA device, got cpu"):
        torch.ops.gpupoor.split_k_matmul(torch.ones(2, 8).half(), torch.ones(8, 2).half(), None,
                                         32, "f32", "none", 0, "auto")


def _meta(*shape, grad=True):
    return torch.empty(*shape, dtype=torch.float16, device="meta", requires_grad=grad)


@pytest.mark.parametrize("x_shape, w_shape", [((3, 8), (8, 0)), ((3, 0), (0, 4)),
                                              ((2, 3, 0), (0, 4)), ((0,), (0, 4))])
@pytest.mark.parametrize("bias", [False, True])
def test_backward_of_an_empty_k_or_n(x_shape, w_shape, bias):
    """The gradients of a product whose K or N is 0 have the operands'
    shapes: the backward takes the rows of x and of the gradient without
    inferring them from an empty last dimension (reshape(-1, 0) cannot)."""
    x, w = _meta(*x_shape), _meta(*w_shape)
    b = _meta(w_shape[-1]) if bias else None
    y = torch.ops.gpupoor.split_k_matmul(x, w, b, 32, "f32", "none", 0, "auto")
    y.sum().backward()
    assert x.grad.shape == x.shape and w.grad.shape == w.shape
    assert not bias or b.grad.shape == b.shape


@pytest.mark.parametrize("activation, second", [("gelu", True), ("relu", False),
                                                ("none", False)])
def test_second_derivatives_follow_the_activation(activation, second):
    """A gradient taken with create_graph is itself differentiable in x and
    the weight through GELU's pre-activation (its second derivative is not
    zero); ReLU's and the plain product's dx do not depend on x."""
    x, w = _meta(4, 8), _meta(8, 6)
    y = torch.ops.gpupoor.split_k_matmul(x, w, None, 32, "f32", activation, 0, "auto")
    gx, = torch.autograd.grad(y.sum(), x, create_graph=True)
    hx, hw = torch.autograd.grad(gx.sum(), (x, w), allow_unused=True)
    assert (hx is not None) == second and hw is not None


@pytest.mark.parametrize("kwargs, match", [
    (dict(activation="none"), "activation must be one of"),
    (dict(activation=""), "activation must be one of"),
    (dict(backend="auto"), "backend must be one of")])
def test_traced_calls_refuse_what_eager_calls_refuse(fake, monkeypatch, kwargs, match):
    """The options' public spellings are the same traced (torch.compile
    calls the operator itself) as eagerly: None, not the operator's own
    "none" or "auto", nor ""."""
    x, w = cuda(4, 8), cuda(8, 4)
    with pytest.raises(ValueError, match=match):
        split_k_sequential(x, w, **kwargs)
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    with pytest.raises(ValueError, match=match):
        split_k_sequential(x, w, **kwargs)
    assert split_k_sequential(x, w, activation=None, backend=None).shape == (4, 4)


def test_triton_operator_refuses_what_its_kernels_cannot_take():
    """torch.ops.gpupoor.split_k_triton (the triton backend's launch, a
    public operator) refuses operands and an out its kernels would read or
    write past, by name, before it launches."""
    from gpupoor.kernels import _triton_impl

    def h(*s, dtype=torch.float16):
        return torch.empty(*s, dtype=dtype)
    for args, match in (((h(4, 8), h(8, 6), None, h(4, 5)), "out must have shape"),
                        ((h(4, 8), h(7, 6), None, h(4, 6)), "one K"),
                        ((h(4, 8), h(8, 6), h(5), h(4, 6)), "bias must have shape"),
                        ((h(4, 8), h(8, 6), h(1, 6), h(4, 6)), "bias must have shape"),
                        ((h(4, 8, dtype=torch.float32), h(8, 6), None, h(4, 6)), "float16"),
                        ((h(4, 8), h(8, 6), None, h(4, 6, dtype=torch.int32)), "out must be")):
        with pytest.raises(ValueError, match=match):
            _triton_impl(*args, 32, "f32", "none", 0)


def test_split_and_slice_bounds_are_the_policys(fake):
    """max_k_splits up to policy::kMaxSplits (the compiler's too), slices up
    to kMaxSlices (grid y), named in the message."""
    from gpupoor._native import C
    x, w = cuda(4, 8), cuda(8, 4)
    assert split_k_sequential(x, w, max_k_splits=C.MAX_SPLITS).shape == (4, 4)
    with pytest.raises(ValueError, match=rf"max_k_splits must be an int in \[1, {C.MAX_SPLITS}\]"):
        split_k_sequential(x, w, max_k_splits=C.MAX_SPLITS + 1)
    assert split_k_sequential(x, w, slices=C.MAX_SLICES).shape == (4, 4)
    with pytest.raises(ValueError, match=rf"slices must be an int in \[0, {C.MAX_SLICES}\]"):
        split_k_sequential(x, w, slices=C.MAX_SLICES + 1)
