"""The package on a GPU as PyTorch sees it: opcheck, torch.compile, devices
refused, operands past 2^31 elements, the eager fast path against the
dispatcher, CUDA graphs. Needs CUDA and, for the mlir backend, the kernel
library."""

import pytest
import torch

import gpupoor
from gpupoor.kernels import split_k_sequential

from gpu_reference import ints

pytestmark = pytest.mark.gpu


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
