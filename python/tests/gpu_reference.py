"""Inputs, float64 references and backends shared by the GPU tests."""

import os

import torch
import torch.nn.functional as F


# The backends the GPU tests run (the `backend` fixture, conftest.py).
BACKENDS = [b for b in os.environ.get("GPUPOOR_TEST_BACKENDS", "mlir,triton").split(",") if b]


def ints(*shape, dtype=torch.float16, gen=None):
    return torch.randint(-1, 2, shape, device="cuda", generator=gen).to(dtype)


def ref(x, w, bias=None, activation=None):
    y = x.double() @ w.double()
    if bias is not None:
        y = y + bias.double().reshape(-1)
    if activation == "relu":
        y = torch.relu(y)
    elif activation == "gelu":
        y = F.gelu(y)
    return y
