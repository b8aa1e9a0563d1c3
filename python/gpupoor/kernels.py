"""`split_k_sequential`, on the `gpupoor::split_k_matmul` operator (gpupoor._C:
TORCH_LIBRARY, CUDA, Meta and autograd kernels in C++).

Drop-in for gpu_poor's `gpu_poor.kernels.split_k_sequential`: C = x @ weight
(+ bias), K cut into S chunks summed in f16 on the tensor cores, the chunk
sums met in an outer sum (f32 by default here; f16 as gpu_poor does with
`outer="f16"`).
"""

from __future__ import annotations

import math
from typing import Optional

import torch

from . import _mlir_backend  # noqa: F401 - installs the launcher's resolver
from ._native import C as _C
from .variants import DEFAULT_MAX_SPLITS

BACKENDS = ("mlir", "triton")
ACTIVATIONS = (None, "relu", "gelu")
OUTER_TYPES = ("f32", "f16")


def default_backend(device: torch.device, m: int = 0, n: int = 0, k: int = 0) -> str:
    """The backend an M x N x K product gets without `backend=`:
    $GPUPOOR_BACKEND when set; `triton` on devices the kernel library has no
    cubins for; else `mlir`, whose kernels lead on every shape measured
    (docs/guide/Python.md). The size arguments are kept for callers of earlier
    versions."""
    del m, n, k
    return _C.default_backend(device.index)


def _triton_impl(a: torch.Tensor, b: torch.Tensor, bias: Optional[torch.Tensor],
                 out: torch.Tensor, max_k_splits: int, outer: str, activation: str,
                 slices: int) -> None:
    """The triton backend's launch into `out` (M x N): gpupoor::split_k_matmul's
    CUDA kernel calls this operator for backend 'triton' with checked f16
    operands, a (M, K) and b (K, N), M, N, K > 0."""
    # A public operator too (torch.ops.gpupoor.split_k_triton): what its
    # kernels would read or write out of bounds is refused by name.
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"a (M, K) and b (K, N) must be 2-D with one K, got {tuple(a.shape)} "
                         f"and {tuple(b.shape)}")
    if out.shape != (a.shape[0], b.shape[1]):
        raise ValueError(f"out must have shape {(a.shape[0], b.shape[1])}, got {tuple(out.shape)}")
    if bias is not None and tuple(bias.shape) != (b.shape[1],):
        # 1-D: the kernels step it by its stride(0).
        raise ValueError(f"bias must have shape ({b.shape[1]},), got {tuple(bias.shape)}")
    if a.dtype != torch.float16 or b.dtype != torch.float16:
        raise ValueError(f"a and b must be float16, got {a.dtype} and {b.dtype}")
    if out.dtype not in (torch.float16, torch.float32):
        raise ValueError(f"out must be float16 or float32, got {out.dtype}")
    if len({t.device for t in (a, b, out) + ((bias,) if bias is not None else ())}) != 1:
        raise ValueError("a, b, bias and out must be on one device")
    # Imported when first used: Triton is optional.
    from ._triton_backend import launch as triton_launch
    triton_launch(a, b, bias, out, outer, activation, max_k_splits, slices)


torch.library.custom_op("gpupoor::split_k_triton", mutates_args=("out",),
                        device_types="cuda")(_triton_impl)


def _flops(x_shape, w_shape, bias_shape, *args, **kwargs) -> int:
    # A 3-D weight: a batch of products, x (batch, M, K).
    m = math.prod(x_shape[:-1])
    k, n = w_shape[-2:]
    return 2 * m * n * k + (m * n if bias_shape is not None else 0)


try:
    from torch.utils.flop_counter import register_flop_formula
    register_flop_formula(torch.ops.gpupoor.split_k_matmul)(_flops)
except ImportError:  # pragma: no cover - older PyTorch
    pass


def split_k_sequential(x: torch.Tensor, weight: torch.Tensor,
                       bias: Optional[torch.Tensor] = None,
                       max_k_splits: int = DEFAULT_MAX_SPLITS, *, outer: str = "f32",
                       activation: Optional[str] = None, slices: int = 0,
                       backend: Optional[str] = None) -> torch.Tensor:
    """x @ weight (+ bias), with f16 inner sums over S chunks of K.

    Args:
      x: (..., K) float16 or float32 CUDA tensor, any strides; (batch, M, K)
        with a 3-D weight.
      weight: (K, N) of x's dtype: `linear.weight.T` as it comes (a view,
        never copied) or any K x N tensor; or (batch, K, N), a batch of
        products (torch.bmm's: attention's Q K^T as `k.transpose(1, 2)`,
        P V), any strides, in one launch on the mlir backend (the triton
        backend launches each element).
      bias: (N,) or (1, N) of x's dtype, or None (None with a 3-D weight).
      max_k_splits: the largest S; S = the power of two at or above
        sqrt(K / 32), at least 12 from K > 2016 (K in gpu_poor's blocks
        of 32, whatever the kernel's K step), on sm_90a at least
        ceil(K / 128) for decode products (the 16-row and swapped
        tiles) and the 32-row tile (17 to 32 rows, A read as M x K),
        ceil(K / 256) for the 128 x 256 tile (the mlir backend), at most
        this. (The mlir backend's swapped
        tiles keep each chunk in four f16 sums on sm_90a, its 32-row
        tile in two.)
      outer: type of the sum of the chunk sums, "f32" (default) or "f16"
        (gpu_poor's).
      activation: None, "relu" or "gelu" (erf), applied in the kernel
        (None with a 3-D weight).
      slices: 0 chooses how many blocks share a tile's K (1 when the tiles
        fill the GPU: sequential split-k); 1 forces sequential; P > 1 runs
        min(P, S) slices. Results are deterministic for each choice.
      backend: "mlir" (compiled kernels), "triton", or None for
        default_backend().

    Returns:
      (..., N) of x's dtype ((batch, M, N) with a 3-D weight). float32 operands are rounded to float16 for the
      product (as gpu_poor does); the float32 result is not rounded again.

    Under `torch.autocast("cuda")` the operands are cast to float16 first, as
    autocast casts a matmul's (a float32 parameter, or its transpose such as
    `linear.weight.T`, once per autocast region, then from autocast's cache),
    and the result is float16: an f16 activation meets f32 master weights
    without a copy per call. bfloat16 operands are cast to float16 too.
    """
    if torch.compiler.is_compiling():
        # Traced: the operator itself (its Meta kernel checks the arguments).
        # None spells the operator's "none" and "auto"; those strings, or
        # "", are no public spelling and stay refused, as eagerly
        # (_C.split_k_sequential).
        return _OP(x, weight, bias, max_k_splits, outer,
                   "none" if activation is None else _spelled(activation, "none"),
                   slices, "auto" if backend is None else _spelled(backend, "auto"))
    # The arguments checked by name, then the operator (gpupoor._C).
    return _C.split_k_sequential(x, weight, bias, max_k_splits, outer, activation, slices,
                                 backend)


_OP = torch.ops.gpupoor.split_k_matmul.default


def _spelled(value: str, internal: str) -> str:
    """A public option's string as the operator's checks see it: the
    operator's own spelling for None (`internal`) quoted, so that they
    refuse it by name."""
    return f"'{value}'" if value == internal else value
