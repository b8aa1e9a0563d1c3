"""`split_k_sequential` and the `gpupoor::split_k_matmul` operator.

Drop-in for gpu_poor's `gpu_poor.kernels.split_k_sequential`: C = x @ weight
(+ bias), K cut into S chunks summed in f16 on the tensor cores, the chunk
sums met in an outer sum (f32 by default here; f16 as gpu_poor does with
`outer="f16"`).
"""

from __future__ import annotations

import functools
import math
import os
from typing import Optional

import torch

from . import _fastpath
from ._mlir_backend import device_info, teach
from ._mlir_backend import launch as mlir_launch
from .variants import DEFAULT_MAX_SPLITS, VariantKey

BACKENDS = ("mlir", "triton")
ACTIVATIONS = (None, "relu", "gelu")
OUTER_TYPES = ("f32", "f16")
_SUPPORTED = (torch.float16, torch.float32)


def default_backend(device: torch.device, m: int = 0, n: int = 0, k: int = 0) -> str:
    """The backend an M x N x K product gets without `backend=`:
    $GPUPOOR_BACKEND when set (read when gpupoor is imported); `triton` on
    devices the kernel library has no cubins for; else `mlir`, whose kernels
    lead on every shape measured (docs/Python.md: on Hopper its sm_90a wgmma
    kernel ran 0.84-0.94x cuBLAS on large products where the triton
    backend's ran 0.75-0.87x, and its parallel split-k leads on decode
    shapes). The size arguments are kept for callers of earlier versions."""
    del m, n, k
    return _default_backend(device.index)


def _default_backend(index: int) -> str:
    env = _ENV_BACKEND
    if env:
        if env not in BACKENDS:
            raise ValueError(f"GPUPOOR_BACKEND must be one of {BACKENDS}, got {env!r}")
        return env
    chips, _ = device_info(index)
    return "mlir" if chips else "triton"


# Read once, at import: it is on every call's path.
_ENV_BACKEND = os.environ.get("GPUPOOR_BACKEND")


def _check(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
           max_k_splits: int, outer: str, activation: Optional[str], slices: int,
           backend: Optional[str]) -> int:
    """Raises TypeError/ValueError naming the argument that is wrong;
    returns the operands' device index."""
    for name, t in (("x", x), ("weight", weight)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if x.dtype not in _SUPPORTED:
        hint = (" (bf16 values beyond f16's range of +-65504 would turn into inf: convert to "
                "float16 explicitly where that is safe)" if x.dtype == torch.bfloat16 else "")
        raise TypeError(f"x must be float16 or float32, got {x.dtype}{hint}")
    if weight.dtype != x.dtype:
        raise TypeError(f"weight must have x's dtype {x.dtype}, got {weight.dtype}")
    if x.dim() < 1:
        raise ValueError("x must have at least one dimension (..., K), got a scalar")
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D (K, N), got shape {tuple(weight.shape)}")
    if x.shape[-1] != weight.shape[0]:
        raise ValueError(f"x's last dimension ({x.shape[-1]}) must equal weight's first "
                         f"(K = {weight.shape[0]}): weight is K x N (nn.Linear's weight.T)")
    n = weight.shape[1]
    if bias is not None:
        if not isinstance(bias, torch.Tensor):
            raise TypeError(f"bias must be a torch.Tensor or None, got {type(bias).__name__}")
        if bias.dtype != x.dtype:
            raise TypeError(f"bias must have x's dtype {x.dtype}, got {bias.dtype}")
        if bias.shape != (n,) and bias.shape != (1, n):
            raise ValueError(f"bias must have shape ({n},) or (1, {n}), got {tuple(bias.shape)}")
    # is_cuda and get_device(): the cheapest reads of a tensor's device.
    tensors = (("x", x), ("weight", weight), ("bias", bias))
    for name, t in tensors:
        if t is not None and not t.is_cuda:
            raise ValueError(f"{name} must be on a CUDA device, got {t.device}")
    index = x.get_device()
    for name, t in tensors[1:]:
        if t is not None and t.get_device() != index:
            raise ValueError(f"{name} is on {t.device}, x on {x.device}: they must share a device")
    if isinstance(max_k_splits, bool) or not isinstance(max_k_splits, int) \
            or not 1 <= max_k_splits <= 65535:
        raise ValueError(f"max_k_splits must be an int in [1, 65535], got {max_k_splits!r}")
    if outer not in OUTER_TYPES:
        raise ValueError(f"outer must be one of {OUTER_TYPES}, got {outer!r}")
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    if isinstance(slices, bool) or not isinstance(slices, int) or not 0 <= slices <= 65535:
        raise ValueError(f"slices must be an int in [0, 65535] (0: automatic), got {slices!r}")
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS} or None, got {backend!r}")
    return index


def variant_key(b: torch.Tensor, m: int, has_bias: bool, activation: str, outer: str,
                out_dtype: torch.dtype, max_k_splits: int) -> VariantKey:
    """The library variant for B (K x N view) and the epilogue; its tile
    family is the launcher's to choose (the policy's, per device and
    shape: _mlir_backend.choose_variant)."""
    # B's fast layout: unit stride along N (kn) or along K (nk, nn.Linear's
    # weight.T). Either kernel takes any strides through its fallbacks.
    nk = b.stride(0) == 1 and b.stride(1) != 1
    return _variant_key(nk, "large", has_bias, activation, outer,
                        out_dtype == torch.float32, max_k_splits)


@functools.lru_cache(maxsize=None)
def _variant_key(nk: bool, tile: str, has_bias: bool, activation: str, outer: str,
                 f32_out: bool, max_k_splits: int) -> VariantKey:
    epilogue = "none" if not has_bias and activation == "none" else (
        "bias" if activation == "none" else f"bias_{activation}")
    return VariantKey("nk" if nk else "kn", outer, epilogue, "f32" if f32_out else "f16",
                      tile, max_k_splits)


def _split_k_matmul_impl(a: torch.Tensor, b: torch.Tensor, bias: Optional[torch.Tensor],
                         max_k_splits: int, outer: str, activation: str, slices: int,
                         backend: str) -> torch.Tensor:
    """act(a @ b + bias) with split-k f16 inner sums: a (M, K), b (K, N) any
    strides, bias (N,) or None, all float16 or all float32 (float32 operands
    are rounded to float16 for the product; the result stays float32).
    activation: 'none', 'relu' or 'gelu' (erf); backend: 'mlir', 'triton'
    or 'auto' (default_backend(), decided when the op runs). Arguments are
    checked by `split_k_sequential`; call that."""
    # The operator may be called directly: never hand a kernel host memory or
    # another device's.
    index = a.get_device()
    if index < 0 or b.get_device() != index or (bias is not None and bias.get_device() != index):
        raise ValueError("gpupoor::split_k_matmul: a, b and bias must be CUDA tensors on one "
                         f"device, got {a.device}, {b.device}"
                         + (f", {bias.device}" if bias is not None else ""))
    return _compute(a, b, bias, index, max_k_splits, outer, activation, slices, backend)


def _compute(a, b, bias, index, max_k_splits, outer, activation, slices, backend,
             call=None):
    """_split_k_matmul_impl on checked operands of device `index`. `call`:
    split_k_sequential's arguments, to teach the compiled launch path the
    plan when the mlir backend launches."""
    m, k = a.shape
    n = b.shape[1]
    out = a.new_empty((m, n))
    if m == 0 or n == 0:
        return out
    if k == 0:
        acc = torch.zeros((m, n), dtype=torch.float32, device=a.device)
        if bias is not None:
            acc += bias.float()
        out.copy_(_activate(acc, activation))
        return out
    if a.dtype == torch.float32:
        a, b = a.half(), b.half()
    if backend == "auto":
        backend = _default_backend(index)
    if index != torch._C._cuda_getDevice():
        with torch.cuda.device(index):
            _launch(a, b, bias, out, index, max_k_splits, outer, activation, slices, backend)
    else:
        plan = _launch(a, b, bias, out, index, max_k_splits, outer, activation, slices,
                       backend)
        fast = _fastpath.get() if plan is not None and call is not None else None
        if fast is not None:
            teach(fast, index, plan, call)
    return out


split_k_matmul = torch.library.custom_op("gpupoor::split_k_matmul", mutates_args=())(
    _split_k_matmul_impl)


def _launch(a, b, bias, out, index, max_k_splits, outer, activation, slices, backend):
    """Launches on `backend`; returns the mlir backend's plan, else None."""
    if backend == "triton":
        # Imported when first used: Triton is optional.
        from ._triton_backend import launch as triton_launch
        triton_launch(a, b, bias, out, outer, activation, max_k_splits, slices)
        return None
    key = variant_key(b, a.shape[0], bias is not None, activation, outer, out.dtype,
                      max_k_splits)
    return mlir_launch(a, b, bias, out, key, slices, index=index)


def _activate(x: torch.Tensor, activation: str) -> torch.Tensor:
    if activation == "relu":
        return torch.relu(x)
    if activation == "gelu":
        return torch.nn.functional.gelu(x)
    return x


@split_k_matmul.register_fake
def _(a, b, bias, max_k_splits, outer, activation, slices, backend):
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "a and b must be 2-D")
    torch._check(a.shape[1] == b.shape[0], lambda: "a's columns must equal b's rows")
    return a.new_empty((a.shape[0], b.shape[1]))


def _setup_context(ctx, inputs, output):
    a, b, bias, max_k_splits, outer, activation, slices, backend = inputs
    ctx.has_bias = bias is not None
    ctx.options = (max_k_splits, outer, slices, backend)
    ctx.activation = activation
    saved = (a, b, bias if bias is not None else a.new_empty(0),
             output if activation == "relu" else a.new_empty(0))
    ctx.save_for_backward(*saved)


def _backward(ctx, grad):
    a, b, bias, out = ctx.saved_tensors
    max_k_splits, outer, slices, backend = ctx.options
    op = torch.ops.gpupoor.split_k_matmul
    if ctx.activation == "relu":
        grad = grad * (out > 0)
    elif ctx.activation == "gelu":
        # The pre-activation, recomputed (the forward kept only its inputs).
        z = op(a, b, bias if ctx.has_bias else None, max_k_splits, outer, "none", slices,
               backend).float()
        cdf = 0.5 * (1 + torch.erf(z * 0.7071067811865476))
        pdf = torch.exp(-0.5 * z * z) * 0.3989422804014327
        grad = (grad.float() * (cdf + z * pdf)).to(grad.dtype)
    grad_a = grad_b = grad_bias = None
    if ctx.needs_input_grad[0]:
        # (M, N) @ (N, K): b.T is a view.
        grad_a = op(grad, b.t(), None, max_k_splits, outer, "none", slices, backend)
    if ctx.needs_input_grad[1]:
        # grad_b^T (N, K) = grad^T (N, M) @ a (M, K): rows of grad^T are
        # copied contiguous (an activation-sized copy, not the weight's) so
        # the fast kernel reads them; the result's transpose is a K x N view
        # laid out as nn.Linear's weight.
        grad_b = op(grad.t().contiguous(), a, None, max_k_splits, outer, "none", slices,
                    backend).t()
    if ctx.has_bias and ctx.needs_input_grad[2]:
        grad_bias = grad.sum(0, dtype=torch.float32).to(bias.dtype).reshape(bias.shape)
    return grad_a, grad_b, grad_bias, None, None, None, None, None


split_k_matmul.register_autograd(_backward, setup_context=_setup_context)


def _flops(a_shape, b_shape, bias_shape, *args, **kwargs) -> int:
    m, k = a_shape
    n = b_shape[1]
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
      x: (..., K) float16 or float32 CUDA tensor, any strides.
      weight: (K, N) of x's dtype: `linear.weight.T` as it comes (a view,
        never copied) or any K x N tensor.
      bias: (N,) or (1, N) of x's dtype, or None.
      max_k_splits: the largest S; S = the power of two at or above
        sqrt(K / 32), at least 12 from K > 2016 (K in gpu_poor's blocks
        of 32, whatever the kernel's K step), at most this.
      outer: type of the sum of the chunk sums, "f32" (default) or "f16"
        (gpu_poor's).
      activation: None, "relu" or "gelu" (erf), applied in the kernel.
      slices: 0 chooses how many blocks share a tile's K (1 when the tiles
        fill the GPU: sequential split-k); 1 forces sequential; P > 1 runs
        min(P, S) slices. Results are deterministic for each choice.
      backend: "mlir" (compiled kernels), "triton", or None for
        default_backend().

    Returns:
      (..., N) of x's dtype. float32 operands are rounded to float16 for the
      product (as gpu_poor does); the float32 result is not rounded again.
    """
    fast = _fastpath._module
    if fast is not None and not torch.compiler.is_compiling():
        # The compiled launch path takes calls like one the Python path
        # launched before (about 10 us less host time); None: any other.
        out = fast.run(x, weight, bias, max_k_splits, outer, activation, slices, backend)
        if out is not None:
            return out
    call = (x, weight, bias, max_k_splits, outer, activation, slices, backend)
    index = _check(x, weight, bias, max_k_splits, outer, activation, slices, backend)
    k, n = weight.shape
    two_d = x.dim() == 2
    a = x if two_d else x.reshape(math.prod(x.shape[:-1]), k)
    if bias is not None and bias.dim() != 1:
        bias = bias.reshape(n)
    args = (a, weight, bias, max_k_splits, outer, activation or "none", slices, backend or "auto")
    if _direct(x, weight, bias):
        out = _compute(a, weight, bias, index, *args[3:], call=call)
    else:
        out = torch.ops.gpupoor.split_k_matmul(*args)
    return out if two_d else out.reshape(*x.shape[:-1], n)


def _direct(*tensors) -> bool:
    """Whether an eager call may skip PyTorch's dispatcher (about 25 us of
    host time a call): nothing to differentiate, no tracing, no tensor
    subclass, no dispatch mode (FakeTensorMode, FlopCounterMode, ...) that
    must see the operator."""
    if torch.compiler.is_compiling() or _len_dispatch_modes():
        return False
    grad = torch.is_grad_enabled()
    for t in tensors:
        if t is not None and (type(t) not in _PLAIN or (grad and t.requires_grad)):
            return False
    return True


# nn.Parameter is a subclass that adds nothing to dispatch.
_PLAIN = (torch.Tensor, torch.nn.Parameter)


def _len_dispatch_modes() -> int:
    """User dispatch modes on the stack, plus the infrastructure ones
    (fake, proxy, functional) that live outside it."""
    try:
        n = torch._C._len_torch_dispatch_stack()
        for key in _INFRA_MODES:
            n += torch._C._get_dispatch_mode(key) is not None
        return n
    except AttributeError:  # pragma: no cover - a PyTorch without them: always dispatch
        return 1


_INFRA_MODES = tuple(getattr(torch._C._TorchDispatchModeKey, k)
                     for k in ("FAKE", "PROXY", "FUNCTIONAL")
                     if hasattr(getattr(torch._C, "_TorchDispatchModeKey", None), k))
