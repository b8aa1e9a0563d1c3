"""The compiled launch path (gpupoor/csrc/fastpath.cpp): it builds here, it
declines every call it must not take, and on a GPU it launches exactly what
the Python path launches."""

import contextlib

import pytest
import torch
import torch.nn.functional as F

from gpupoor import _fastpath
from gpupoor.kernels import split_k_sequential


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A copy of the module, built against this PyTorch, loaded apart from
    the one calls use (its launch entry is set and cleared here)."""
    import shutil
    try:
        path = _fastpath.path()
    except RuntimeError as e:
        pytest.fail(f"the compiled launch path is not built: {e}")
    copy = tmp_path_factory.mktemp("fastpath") / path.name
    shutil.copy(path, copy)
    return _fastpath.import_built(copy)


ARGS = (32, "f32", None, 0, None)


def test_declines_what_it_cannot_launch(built):
    x, w = torch.ones(2, 8).half(), torch.ones(8, 4).half()
    # No launch entry yet, host tensors, float32, bad options: all None (the
    # Python path raises the argument errors).
    assert built.run(x, w, None, *ARGS) is None
    built.set_launch(1, 1, 1, 1)
    try:
        for args in [(x, w, None, *ARGS), (x.float(), w.float(), None, *ARGS),
                     (x, w, None, True, "f32", None, 0, None),
                     (x, w, None, 32, "f64", None, 0, None),
                     (x, w, None, 32, "f32", "tanh", 0, None),
                     (x, w, None, 32, "f32", None, -1, None),
                     (x, w, None, 32, "f32", None, 0, "triton"),
                     (x, w, torch.ones(5).half(), *ARGS),
                     ("x", w, None, *ARGS)]:
            assert built.run(*args) is None
        # Plans are kept only for calls it could take.
        plan = (1, 1, 1, 128, 0, [0] * 12, (0, 1, 2, -1, -1), 0, 1, (), False)
        assert built.remember(x, w, None, *ARGS, *plan) is False
        assert built.plan_count() == 0
        with pytest.raises(TypeError, match="19 arguments"):
            built.remember(x, w)
    finally:
        built.set_launch(0, 0, 0, 0)


def test_a_package_without_it_says_so(monkeypatch):
    """A package built without the CUDA runtime's headers has no compiled
    launch path: path() says why, and calls take the Python path."""
    monkeypatch.setattr(_fastpath, "MODULE", "gpupoor._no_such_module")
    with pytest.raises(RuntimeError, match="is not built"):
        _fastpath.path()
    monkeypatch.setattr(_fastpath, "_state", "unknown")
    monkeypatch.setattr(_fastpath, "_module", None)
    with pytest.warns(RuntimeWarning, match="did not load"):
        assert _fastpath.get() is None
    assert _fastpath.status().startswith("failed: ")


# ---------------------------------------------------------------- GPU -----

gpu = pytest.mark.gpu


@pytest.fixture(scope="module")
def fast():
    mod = _fastpath.load()
    assert mod is not None, _fastpath.status()
    return mod


def _taught(fast, *args, **kw):
    """Runs a call twice: the Python path (which teaches the plan) and the
    compiled path; returns both results."""
    with _fastpath.suspended():
        slow = split_k_sequential(*args, **kw)
    call = _call(*args, **kw)
    # The Python path taught it only through a call with the module present.
    split_k_sequential(*args, **kw)
    quick = fast.run(*call)
    assert quick is not None, "the compiled path declined a call it was taught"
    return slow, quick


def _call(x, w, bias=None, max_k_splits=32, *, outer="f32", activation=None, slices=0,
          backend=None):
    return (x, w, bias, max_k_splits, outer, activation, slices, backend)


CASES = [dict(m=1, n=4096, k=4096), dict(m=16, n=1000, k=4104, slices=3),
         dict(m=77, n=200, k=520, bias=True, activation="relu"),
         dict(m=300, n=264, k=2056, bias=True, activation="gelu", outer="f16"),
         dict(m=5, n=128, k=64, bias="row", layout="kn"),
         dict(m=6, n=136, k=1032, batch=(2, 3)), dict(m=1, n=64, k=96, vector=True),
         dict(m=40, n=256, k=512, strided=True)]


@gpu
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_same_results_as_the_python_path(fast, case):
    g = torch.Generator(device="cuda").manual_seed(case["m"] * 31 + case["n"])
    m, n, k = case["m"], case["n"], case["k"]
    if case.get("strided"):
        x = torch.randn(m, 2 * k, device="cuda", generator=g).half()[:, ::2]
    elif case.get("vector"):
        x = torch.randn(k, device="cuda", generator=g).half()
    else:
        x = torch.randn(*case.get("batch", ()), m, k, device="cuda", generator=g).half()
    w = (torch.randn(k, n, device="cuda", generator=g).half() if case.get("layout") == "kn"
         else torch.randn(n, k, device="cuda", generator=g).half().T)
    bias = None
    if case.get("bias"):
        bias = torch.randn(n, device="cuda", generator=g).half()
        if case["bias"] == "row":
            bias = bias.reshape(1, n)
    kw = {key: case[key] for key in ("activation", "outer", "slices") if key in case}
    slow, quick = _taught(fast, x, w, bias, backend="mlir", **kw)
    assert quick.shape == slow.shape and quick.dtype == slow.dtype
    assert torch.equal(quick, slow)
    want = F.linear(x.float(), w.T.float(), None if bias is None else bias.float().reshape(n))
    want = {"relu": F.relu, "gelu": F.gelu}.get(kw.get("activation"), lambda t: t)(want)
    # f16 inner sums: an error of a few f16 roundings, relative to the whole.
    assert (quick.float() - want).norm() <= 2e-3 * want.norm()


@gpu
def test_declines_autograd_modes_subclasses_and_new_keys(fast):
    x = torch.randn(8, 256, device="cuda").half()
    w = torch.randn(128, 256, device="cuda").half().T
    _taught(fast, x, w, backend="mlir")
    call = list(_call(x, w, backend="mlir"))
    # Another alignment of x, another K stride, another option: other keys.
    xs = torch.randn(8 * 256 + 1, device="cuda").half()[1:].view(8, 256)
    assert fast.run(xs, *call[1:]) is None
    assert fast.run(*call[:3], 16, *call[4:]) is None
    # Autograd must record the call; a dispatch mode must see the operator.
    xg = x.clone().requires_grad_()
    assert fast.run(xg, *call[1:]) is None
    with torch.no_grad():
        assert fast.run(xg, *call[1:]) is not None
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False) as counter:
        split_k_sequential(x, w, backend="mlir")
    assert counter.get_total_flops() == 2 * 8 * 128 * 256

    class Sub(torch.Tensor):
        pass
    assert fast.run(x.as_subclass(Sub), *call[1:]) is None
    # The Python path raises argument errors the compiled path never sees.
    with pytest.raises(ValueError, match="bias must have shape"):
        split_k_sequential(x, w, torch.ones(5, device="cuda").half(), backend="mlir")


@gpu
def test_side_stream_and_graph_capture(fast):
    x = torch.randn(4, 512, device="cuda").half()
    w = torch.randn(1024, 512, device="cuda").half().T
    want, _ = _taught(fast, x, w, backend="mlir", slices=4)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = split_k_sequential(x, w, backend="mlir", slices=4)
    side.synchronize()
    assert torch.equal(got, want)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = split_k_sequential(x, w, backend="mlir", slices=4)
    x.copy_(torch.randn_like(x))
    graph.replay()
    torch.cuda.synchronize()
    with _fastpath.suspended():
        assert torch.equal(out, split_k_sequential(x, w, backend="mlir", slices=4))


@gpu
@pytest.mark.parametrize("python_path", [False, True])
def test_graph_replay_beside_eager_calls_on_the_capture_stream(fast, python_path):
    """A captured parallel launch has its own workspace: replays on one
    stream and eager calls on the capture stream run at the same time."""
    g = torch.Generator(device="cuda").manual_seed(3)
    x1, x2 = torch.randint(-1, 2, (2, 2, 8, 8192), device="cuda", generator=g).half()
    w = torch.randint(-1, 2, (4096, 8192), device="cuda", generator=g).half().T
    want1, want2 = (x1.double() @ w.double()), (x2.double() @ w.double())
    path = _fastpath.suspended() if python_path else contextlib.nullcontext()
    with path:
        split_k_sequential(x1, w, backend="mlir", slices=8)
        split_k_sequential(x1, w, backend="mlir", slices=8)
        capture = torch.cuda.Stream()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=capture):
            out = split_k_sequential(x1, w, backend="mlir", slices=8)
        for _ in range(5):
            graph.replay()
            with torch.cuda.stream(capture):
                eager = [split_k_sequential(x2, w, backend="mlir", slices=8) for _ in range(4)]
            torch.cuda.synchronize()
            assert torch.equal(out.double(), want1)
            for e in eager:
                assert torch.equal(e.double(), want2)


@gpu
def test_tensor_maps_follow_each_operand(fast):
    """On sm_90a this product takes a TMA kernel: the compiled path encodes
    its tensor maps per operand address, as the Python path does (elsewhere
    the same calls run the cp.async kernels)."""
    g = torch.Generator(device="cuda").manual_seed(11)
    ws = [torch.randn(256, 512, device="cuda", generator=g).half().T for _ in range(2)]
    xs = [torch.randn(200, 512, device="cuda", generator=g).half() for _ in range(3)]
    _taught(fast, xs[0], ws[0], backend="mlir")
    for x, w in [(x, ws[0]) for x in xs + xs[::-1]] + [(xs[1], w) for w in ws + ws[::-1]]:
        quick = fast.run(*_call(x, w, backend="mlir"))
        assert quick is not None
        with _fastpath.suspended():
            assert torch.equal(quick, split_k_sequential(x, w, backend="mlir"))
