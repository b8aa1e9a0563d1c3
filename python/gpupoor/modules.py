"""`LowPrecisionLinear`: nn.Linear on gpupoor's split-k kernels."""

from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from .kernels import ACTIVATIONS, OUTER_TYPES, split_k_sequential
from .variants import DEFAULT_MAX_SPLITS


class LowPrecisionLinear(nn.Linear):
    """nn.Linear whose product runs with f16 inner sums (split-k), bias and
    activation fused into the kernel; drop-in for gpu_poor's module.

    Args:
      in_features, out_features, bias, device, dtype: as nn.Linear.
      activation: None, "relu" or "gelu", applied after the bias in the
        kernel's epilogue (gpu_poor names it but refuses any but None).
      max_k_splits: the largest split count S (gpu_poor's K_ACC_DIV_MAX).
      outer: "f32" (default) or "f16" (gpu_poor's) outer sums.
      slices, backend: as split_k_sequential.

    The weight keeps nn.Linear's (out_features, in_features) layout; the
    kernel reads weight.T as a view.

    Mixed precision: keep the module in float32 (master weights) and run it
    under `torch.autocast("cuda", dtype=torch.float16)`. The weight and bias
    are then cast to float16 once per autocast region (autocast's cache, as
    for nn.Linear) and the output is float16. Train with
    `torch.amp.GradScaler`: small gradients vanish in f16 inner sums sooner
    than in f32 accumulation.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device=None, dtype=None, *, activation: Optional[str] = None,
                 max_k_splits: int = DEFAULT_MAX_SPLITS, outer: str = "f32",
                 slices: int = 0, backend: Optional[str] = None) -> None:
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
        if outer not in OUTER_TYPES:
            raise ValueError(f"outer must be one of {OUTER_TYPES}, got {outer!r}")
        self.activation = activation
        self.max_k_splits = max_k_splits
        self.outer = outer
        self.slices = slices
        self.backend = backend

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return split_k_sequential(input, self.weight.T, self.bias, self.max_k_splits,
                                  outer=self.outer, activation=self.activation,
                                  slices=self.slices, backend=self.backend)

    def extra_repr(self) -> str:
        return (f"{super().extra_repr()}, activation={self.activation}, "
                f"max_k_splits={self.max_k_splits}, outer={self.outer}")
