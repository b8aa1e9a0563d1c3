"""The C++ launcher of the mlir backend (gpupoor/csrc): streams, CUDA graphs,
tensor maps per operand, threads. Needs a GPU and the kernel library."""

import threading

import pytest
import torch

from gpupoor.kernels import split_k_sequential

pytestmark = pytest.mark.gpu


def ints(*shape, gen):
    return torch.randint(-1, 2, shape, device="cuda", generator=gen).half()


def test_side_stream_and_graph_capture():
    """A parallel launch (slices=4) on a side stream and captured into a
    graph: a replay reads the inputs at replay time."""
    g = torch.Generator(device="cuda").manual_seed(1)
    x, w = ints(4, 512, gen=g), ints(1024, 512, gen=g).T
    want = (x.double() @ w.double())
    assert torch.equal(split_k_sequential(x, w, backend="mlir", slices=4).double(), want)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = split_k_sequential(x, w, backend="mlir", slices=4)
    side.synchronize()
    assert torch.equal(got.double(), want)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = split_k_sequential(x, w, backend="mlir", slices=4)
    x.copy_(ints(4, 512, gen=g))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out.double(), x.double() @ w.double())


def test_graph_replay_beside_eager_calls_on_the_capture_stream():
    """A captured parallel launch has its own workspace: replays on one
    stream and eager calls on the capture stream run at the same time."""
    g = torch.Generator(device="cuda").manual_seed(3)
    x1, x2 = ints(2, 2, 8, 8192, gen=g)
    w = ints(4096, 8192, gen=g).T
    want1, want2 = (x1.double() @ w.double()), (x2.double() @ w.double())
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


def test_tensor_maps_follow_each_operand():
    """On sm_90a this product takes a TMA kernel, whose tensor maps the
    launcher encodes per operand address (elsewhere the same calls run the
    cp.async kernels)."""
    g = torch.Generator(device="cuda").manual_seed(11)
    ws = [ints(256, 512, gen=g).T for _ in range(2)]
    xs = [ints(200, 512, gen=g) for _ in range(3)]
    for x, w in [(x, ws[0]) for x in xs + xs[::-1]] + [(xs[1], w) for w in ws + ws[::-1]]:
        assert torch.equal(split_k_sequential(x, w, backend="mlir").double(),
                           x.double() @ w.double())


def test_threads_launch_at_once():
    """Threads making and using plans at once (each its own shapes and a
    shared one), on their own streams."""
    g = torch.Generator(device="cuda").manual_seed(5)
    w = ints(640, 264, gen=g).T
    xs = [ints(m, 264, gen=g) for m in (1, 3, 17, 64, 130, 300)]
    wants = [x.double() @ w.double() for x in xs]
    torch.cuda.synchronize()
    errors = []

    def work(i):
        try:
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                for rep in range(20):
                    j = (i + rep) % len(xs)
                    y = split_k_sequential(xs[j], w, backend="mlir", slices=rep % 3)
                    stream.synchronize()
                    if not torch.equal(y.double(), wants[j]):
                        errors.append((i, rep))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_dispatch_modes_and_subclasses_see_the_operator():
    from torch.utils.flop_counter import FlopCounterMode
    g = torch.Generator(device="cuda").manual_seed(7)
    x, w = ints(8, 256, gen=g), ints(128, 256, gen=g).T
    with FlopCounterMode(display=False) as counter:
        split_k_sequential(x, w, backend="mlir")
    assert counter.get_total_flops() == 2 * 8 * 128 * 256

    class Sub(torch.Tensor):
        pass
    y = split_k_sequential(x.as_subclass(Sub), w, backend="mlir")
    assert torch.equal(y.double(), x.double() @ w.double())
