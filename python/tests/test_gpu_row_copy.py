"""The row-copy kernel on a GPU: the package's copies into padded rows of
operands whose rows lie off 16 bytes (lib/Transforms/RowCopy.h), bit for bit,
and by that kernel. Needs CUDA and the mlir backend's kernel library."""

import os

import pytest
import torch

pytestmark = pytest.mark.gpu
BACKENDS = [b for b in os.environ.get("GPUPOOR_TEST_BACKENDS", "mlir,triton").split(",") if b]


def _bits(t):
    """A random 2-byte tensor of `t`'s shape whose bits cover every pattern
    (NaNs and infinities among them), so that a copy must move bits."""
    return torch.randint(-2**15, 2**15, t.shape, dtype=torch.int16, device="cuda").view(t.dtype)


@pytest.mark.skipif("mlir" not in BACKENDS, reason="the mlir backend's library")
@pytest.mark.parametrize("case", [
    "rows", "cols_1", "cols_7", "cols_9", "cols_17", "k1031", "k4052", "offset_1", "offset_5",
    "transposed", "batch_gaps", "batch_rows_apart", "bf16", "one_row", "tail_of_allocation"])
def test_row_copy_kernel_copies_bits_exactly(case):
    """The package's copies into padded rows (_C._padded_rows, the operand
    copies of unaligned products) by the library's row-copy kernel: rows of
    any length (shorter than a chunk of 8, with a partial last chunk),
    starting at any element (offset views), along a transposed view's unit
    stride, batches with gaps between rows and between batches, bf16, one
    row, and a source whose last row ends where its allocation does: every
    bit copied, rows padded as policy::paddedRowElems says (to 16 elements),
    by that kernel."""
    from gpupoor._native import C
    dtype = torch.bfloat16 if case == "bf16" else torch.float16
    shapes = {"rows": (37, 40), "cols_1": (33, 1), "cols_7": (9, 7), "cols_9": (9, 9),
              "cols_17": (65, 17), "k1031": (100, 1031), "k4052": (327, 4052),
              "bf16": (50, 1031), "one_row": (1, 1027)}
    if case in shapes:
        t = _bits(torch.empty(shapes[case], dtype=dtype, device="cuda"))
    elif case.startswith("offset_"):
        skip = int(case.split("_")[1])
        t = _bits(torch.empty(40, 1031 + skip, dtype=dtype, device="cuda"))[3:, skip:]
    elif case == "transposed":
        t = _bits(torch.empty(1031, 70, dtype=dtype, device="cuda")).T
    elif case == "batch_gaps":
        t = _bits(torch.empty(5, 30, 1030, dtype=dtype, device="cuda"))[:, 1:29, 3:]
    elif case == "batch_rows_apart":
        t = _bits(torch.empty(4, 20, 523, dtype=dtype, device="cuda"))
    else:
        # The source is a whole allocation of its own (cudaMalloc, not the
        # caching allocator's pools) of 18 x 1025 elements, 36,900 bytes, no
        # multiple of 16: the words around its last row's whole chunks would
        # reach 12 bytes past it, which compute-sanitizer's memcheck sees.
        cupy = pytest.importorskip("cupy")
        size = 18 * 1025 * 2
        ptr = cupy.cuda.runtime.malloc(size)
        mem = cupy.cuda.MemoryPointer(cupy.cuda.UnownedMemory(ptr, size, None), 0)
        t = torch.as_tensor(cupy.ndarray((18, 1025), dtype=cupy.float16, memptr=mem),
                            device="cuda")
        t.copy_(_bits(t))
    try:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            out = C._padded_rows(t)
            torch.cuda.synchronize()
        along = out if t.stride(-1) == 1 else out.transpose(-2, -1)
        cols = along.size(-1)
        padded = cols if cols % 8 == 0 else -(-cols // 16) * 16
        assert along.stride(-1) == 1 and along.stride(-2) == padded
        if along.dim() == 3:
            assert along.stride(0) == along.size(1) * padded
        assert torch.equal(out.view(torch.int16), t.view(torch.int16))
        # (Under compute-sanitizer the profiler records no kernels.)
        kernels = {e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA}
        assert not kernels or "gpupoor_row_copy" in kernels, kernels
    finally:
        if case == "tail_of_allocation":
            # (torch.equal synchronized: nothing reads it any more.)
            cupy.cuda.runtime.free(ptr)
