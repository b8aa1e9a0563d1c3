#!/usr/bin/env python3
"""Regenerates the fx_*.mlir layers of test/Frontend/ (committed): PyTorch
modules in f16 imported by torch-mlir's FX importer
(`torch_mlir.fx.export_and_import(..., output_type="linalg-on-tensors")`),
the route a PyTorch user takes into MLIR without ONNX. nn.Linear with a bias
arrives there as extf + an f32 matmul + an f32 bias add + truncf (aten.addmm
with PyTorch's opmath upcast); without one as an f16 x f16 -> f32 matmul.

Each layer's function is @layer; its arguments are the activations and the
weights (functional forms: F.linear(x, w, b), w as nn.Linear holds it), so
that test/GPU/run_frontend.py can call it with the same tensors it gives
PyTorch. The *_const layers hold their weights as dense_resource constants
(nn.Module parameters, as the importer writes them): lit only. `dyn` layers
have a dynamic batch (torch.export.Dim).

  pip install torch-mlir     # with the torch it was built against
  python3 test/Frontend/generate_fx.py [NAME ...]
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
K, N, M = 256, 512, 64

# The elementwise activations of torch.nn that lower to elementwise ops.
ACTIVATIONS = {
    "relu": F.relu, "relu6": F.relu6, "leaky_relu": lambda h: F.leaky_relu(h, 0.01),
    "gelu": F.gelu, "gelu_tanh": lambda h: F.gelu(h, approximate="tanh"),
    "silu": F.silu, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
    "hardswish": F.hardswish, "mish": F.mish,
}


class Fn(nn.Module):
    """A module whose forward is `fn` of its inputs."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def x2(m=M):
    return torch.randn(m, K, dtype=torch.float16)


def w(n=N, k=K):
    return torch.randn(n, k, dtype=torch.float16)


def b(n=N):
    return torch.randn(n, dtype=torch.float16)


def layers():
    """name -> (comment, module, example inputs, dynamic batch)."""
    out = {
        "fx_linear": ("F.linear without a bias", Fn(lambda x, w_: F.linear(x, w_)),
                      (x2(), w()), False),
        "fx_linear_bias": ("F.linear with a bias", Fn(F.linear), (x2(), w(), b()), False),
        "fx_linear_bias_dyn": ("F.linear with a bias, dynamic batch", Fn(F.linear),
                               (x2(), w(), b()), True),
        "fx_linear_bias_3d": ("F.linear with a bias on a 3-D input", Fn(F.linear),
                              (torch.randn(4, 16, K, dtype=torch.float16), w(), b()), False),
        "fx_linear_bias_residual": (
            "F.linear with a bias, plus a residual",
            Fn(lambda x, w_, b_, r: F.linear(x, w_, b_) + r),
            (x2(), w(), b(), torch.randn(M, N, dtype=torch.float16)), False),
        "fx_linear_bias_float": ("F.linear with a bias, .float() of it",
                                 Fn(lambda x, w_, b_: F.linear(x, w_, b_).float()),
                                 (x2(), w(), b()), False),
        "fx_mlp": ("a Llama MLP: down(silu(gate(x)) * up(x)), no biases",
                   Fn(lambda x, g, u, d: F.linear(F.silu(F.linear(x, g)) * F.linear(x, u), d)),
                   (x2(), w(), w(), w(K, N)), False),
        "fx_bmm": ("torch.bmm", Fn(torch.bmm),
                   (torch.randn(8, M, K, dtype=torch.float16),
                    torch.randn(8, K, N, dtype=torch.float16)), False),
        "fx_attention_scores": (
            "attention scores q @ k^T * 0.125",
            Fn(lambda q, k_: q @ k_.transpose(-1, -2) * 0.125),
            (torch.randn(2, 4, M, 64, dtype=torch.float16),
             torch.randn(2, 4, M, 64, dtype=torch.float16)), False),
        "fx_linear_bias_relu_const": ("nn.Linear + ReLU, weights as constants",
                                      nn.Sequential(nn.Linear(K, N), nn.ReLU()), (x2(),), False),
    }
    for act, fn in ACTIVATIONS.items():
        out[f"fx_linear_bias_{act}"] = (f"F.linear with a bias + {act}",
                                        Fn(lambda x, w_, b_, fn=fn: fn(F.linear(x, w_, b_))),
                                        (x2(), w(), b()), False)
    return out


def generate(name, comment, module, args, dynamic):
    from torch_mlir import fx

    kwargs = {}
    if dynamic:
        batch = torch.export.Dim("batch", min=2, max=1 << 20)
        # (forward(*args): one input, the tuple of them.)
        kwargs["dynamic_shapes"] = (({0: batch},) + (None,) * (len(args) - 1),)
    mod = fx.export_and_import(module.half().eval(), *args, output_type="linalg-on-tensors",
                               func_name="layer", **kwargs)
    text = str(mod)
    checks = [
        "// RUN: gpupoor-opt %s --gpupoor-split-k --mlir-print-local-scope | FileCheck %s",
        '// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa" '
        "| FileCheck %s --check-prefix=CUBIN",
        '// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_80 cubin-format=isa" '
        "| FileCheck %s --check-prefix=SM80",
        "",
        "// Every matmul is a gpupoor.matmul and every elementwise op after it is",
        "// in its epilogue: no linalg op is left.",
        "// CHECK-LABEL: func.func @layer",
        "// CHECK-NOT: linalg.",
        "// CHECK: gpupoor.matmul",
        "// CHECK-NOT: linalg.",
        "// CHECK: return",
        "// Only the matmul kernels (and their fallbacks) are launched.",
        "// CUBIN-LABEL: func.func @layer",
        "// CUBIN-NOT: gpu.launch_func @layer_kernel",
        "// CUBIN: gpu.launch_func @gpupoor_matmul_0",
        "// CUBIN-NOT: gpu.launch_func @layer_kernel",
        "// CUBIN: return",
        "// sm_80 (the mma.sync kernel) compiles too; with parallel slices its host",
        "// code also zeroes the slices' counters.",
        "// SM80-LABEL: func.func @layer",
        "// SM80: gpu.launch_func @gpupoor_matmul_0",
    ]
    header = [f"// Generated by test/Frontend/generate_fx.py ({name}): do not edit.",
              f"// {comment} (torch-mlir FX importer, linalg-on-tensors)"]
    with open(os.path.join(HERE, name + ".mlir"), "w") as f:
        f.write("\n".join(header + checks) + "\n\n" + text)
    print(name)


def main(names):
    torch.manual_seed(0)
    all_layers = layers()
    for name in names or all_layers:
        generate(name, *all_layers[name])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
