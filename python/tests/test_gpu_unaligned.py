"""The package on a GPU, operands whose rows lie off 16 bytes: padded copies
(also in batches, A stored K x M, in a CUDA graph), the element kernels'
8- and 4-byte pieces, and the narrow products that read such rows as they
lie (policy::copiesUnalignedOperands). Needs CUDA and, for the mlir backend,
the kernel library."""

import pytest
import torch

from gpupoor.kernels import split_k_sequential

from gpu_reference import BACKENDS, ints, ref

pytestmark = pytest.mark.gpu


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
@pytest.mark.parametrize("layout,n,k", [("nk", 934, 1561), ("kn", 1333, 1790), ("nk", 300, 211)])
def test_one_row_copies_a_weight_read_by_elements(layout, n, k):
    """A product of one row whose weight's rows lie on 2 bytes (read an
    element at a time as they lie) copies it into padded rows first,
    whatever its work (policy::copiesUnalignedOperands): the launch reads
    rows of the padded length; exact."""
    from gpupoor import _mlir_backend
    from gpupoor._native import C

    g = torch.Generator(device="cuda").manual_seed(n + k)
    x = ints(1, k, gen=g)
    w = ints(n, k, gen=g).T if layout == "nk" else ints(k, n, gen=g)
    chips, sm_count = _mlir_backend.device_info(0)
    c = torch.empty(1, n, device="cuda", dtype=torch.float16)
    p = C.describe_plan(x, w, None, c, "none", "f32", 256, 0, list(chips), sm_count)
    strides = {p["values"][i] for i, name in enumerate(p["params"]) if name.startswith("stride_")}
    assert C.padded_row_elems(k if layout == "nk" else n) in strides, p
    y = split_k_sequential(x, w, backend="mlir")
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


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's kernels")
@pytest.mark.parametrize("layout,m,n,k,slices", [
    # 64, 80, 65 and 128 tiles (rows of 8-byte words): four, three, four
    # and two slices; 32 tiles (under a third of the SMs): the rules'
    # launch, s16.
    ("nk", 1, 4096, 4100, 4), ("nk", 16, 5120, 1028, 3), ("kn", 5, 4100, 1000, 4),
    ("nk", 4, 8192, 1028, 2), ("nk", 1, 2048, 4100, 0),
    # Rows of 4-byte words, which a decode product's launch reads as they
    # lie (policy::copiesUnalignedOperands): 64 tiles, B as K x N 79.
    ("nk", 4, 4096, 1030, 4), ("kn", 8, 5002, 1000, 3),
    # Past the SMs' worth: three slices up to two waves' (145 and 166
    # tiles), one past (177).
    ("kn", 1, 9218, 1000, 3), ("nk", 6, 10575, 1076, 3), ("nk", 2, 11328, 1028, 1)])
def test_decode_element_kernels_fill_the_sms(layout, m, n, k, slices):
    """sm_90a's decode products whose weight rows lie off 16 bytes, read as
    they lie by the swapped tile's element kernels, run two blocks an SM
    (s16w) from a third of the SMs' worth of tiles, in the slices that
    fill two blocks an SM up to the SMs' worth and in three past it while
    they fill two such waves (policy's elementReadsDecode,
    elementReadSlices), as describe_plan shows; exact."""
    from gpupoor import _mlir_backend
    from gpupoor._native import C

    chips, sm_count = _mlir_backend.device_info(0)
    if chips[:1] != ("sm_90a",) or sm_count != 132:
        pytest.skip("sm_90a's families, as a 132-SM device chooses them")
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    x = ints(m, k, gen=g)
    w = ints(n, k, gen=g).T if layout == "nk" else ints(k, n, gen=g)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    p = C.describe_plan(x, w, None, c, "none", "f32", 32, 0, list(chips), sm_count)
    assert p["family"] == ("s16" if n == 2048 else "s16w"), p
    assert p["kernel"].endswith("_elements"), p
    want = C.choose_launch("sm_90a", m, n, k, layout, 0, 32, sm_count, tuned=False)["slices"]
    assert p["slices"] == (slices or want), p
    y = split_k_sequential(x, w, backend="mlir")
    assert torch.equal(y.double(), ref(x, w))
