#!/usr/bin/env python3
"""Regenerates the front-end IR of test/Frontend/ (the committed *.mlir).

Each layer is an f16 ONNX graph built here with `onnx.helper` in the form
PyTorch's exporter gives it (nn.Linear as Gemm with transB=1, or on 3-D
inputs MatMul + Add; GELU, LeakyReLU, Clip, Sigmoid as ONNX ops; attention as
MatMul of a transposed operand), imported with torch-mlir's ONNX importer
(`iree-import-onnx`) and lowered by IREE's input pipeline
(`iree-compile --compile-to=input`). Only IREE's ABI wrapper is removed: the
layer's function is kept as IREE made it, its arguments and result tensors
(weights are arguments, not globals, so the function is self-contained).

  python3 -m venv /tmp/fe && /tmp/fe/bin/pip install iree-base-compiler onnx
  PATH=/tmp/fe/bin:$PATH /tmp/fe/bin/python test/Frontend/generate.py

Needs `iree-import-onnx`, `iree-compile` and the `onnx` module (all from
PyPI); lit only reads the generated files.
"""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F16 = TensorProto.FLOAT16
OPSET = 20


def tensor(name, shape):
    return helper.make_tensor_value_info(name, F16, shape)


def scalar_const(name, value):
    """A 0-d f16 constant node (how the exporter gives Clip its bounds)."""
    t = numpy_helper.from_array(np.array(value, dtype=np.float16), name + "_value")
    return helper.make_node("Constant", [], [name], value=t)


def linear(x, w, b, y, prefix=""):
    """nn.Linear on a 2-D input: Gemm(x, W^T) + b."""
    return [helper.make_node("Gemm", [x, w, b], [y], transB=1, name=prefix + "gemm")]


def activation(kind, x, y):
    if kind == "relu":
        return [helper.make_node("Relu", [x], [y])]
    if kind == "gelu":
        return [helper.make_node("Gelu", [x], [y])]
    if kind == "gelu_tanh":
        return [helper.make_node("Gelu", [x], [y], approximate="tanh")]
    if kind == "sigmoid":
        return [helper.make_node("Sigmoid", [x], [y])]
    if kind == "leaky_relu":
        return [helper.make_node("LeakyRelu", [x], [y], alpha=0.01)]
    if kind == "relu6":
        return [scalar_const("lo", 0.0), scalar_const("hi", 6.0),
                helper.make_node("Clip", [x, "lo", "hi"], [y])]
    if kind == "silu":
        return [helper.make_node("Sigmoid", [x], ["sig"]),
                helper.make_node("Mul", [x, "sig"], [y])]
    raise ValueError(kind)


def layer_linear(act=None, batch="batch"):
    """nn.Linear(256, 512) on [batch, 256], then `act`."""
    nodes = linear("x", "weight", "bias", "h" if act else "y")
    if act:
        nodes += activation(act, "h", "y")
    return helper.make_graph(
        nodes, "linear",
        [tensor("x", [batch, 256]), tensor("weight", [512, 256]), tensor("bias", [512])],
        [tensor("y", [batch, 512])])


def layer_linear_3d():
    """nn.Linear(256, 512) on [batch, 16, 256]: MatMul with the transposed
    weight, then Add."""
    nodes = [helper.make_node("Transpose", ["weight"], ["wt"], perm=[1, 0]),
             helper.make_node("MatMul", ["x", "wt"], ["h"]),
             helper.make_node("Add", ["h", "bias"], ["y"])]
    return helper.make_graph(
        nodes, "linear_3d",
        [tensor("x", ["batch", 16, 256]), tensor("weight", [512, 256]),
         tensor("bias", [512])],
        [tensor("y", ["batch", 16, 512])])


def layer_weight_grad():
    """nn.Linear's weight gradient dY^T X over a batch (Gemm, transA=1)."""
    nodes = [helper.make_node("Gemm", ["dy", "x"], ["y"], transA=1)]
    return helper.make_graph(
        nodes, "weight_grad",
        [tensor("dy", ["batch", 512]), tensor("x", ["batch", 256])],
        [tensor("y", [512, 256])])


def layer_mlp():
    """Linear(256, 1024) -> GELU -> Linear(1024, 256), plus the residual."""
    nodes = (linear("x", "w1", "b1", "h1", "fc1_") + activation("gelu", "h1", "g")
             + linear("g", "w2", "b2", "h2", "fc2_")
             + [helper.make_node("Add", ["h2", "x"], ["y"])])
    return helper.make_graph(
        nodes, "mlp",
        [tensor("x", ["batch", 256]), tensor("w1", [1024, 256]), tensor("b1", [1024]),
         tensor("w2", [256, 1024]), tensor("b2", [256])],
        [tensor("y", ["batch", 256])])


def layer_attention_scores():
    """Scaled attention scores Q K^T / sqrt(64) of [2, 8, 128, 64] heads."""
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["s"]),
             scalar_const("scale", 0.125),
             helper.make_node("Mul", ["s", "scale"], ["y"])]
    return helper.make_graph(
        nodes, "attention_scores",
        [tensor("q", [2, 8, 128, 64]), tensor("k", [2, 8, 128, 64])],
        [tensor("y", [2, 8, 128, 128])])


def layer_attention():
    """softmax(Q K^T / sqrt(64)) V of [2, 8, 128, 64] heads."""
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["s"]),
             scalar_const("scale", 0.125),
             helper.make_node("Mul", ["s", "scale"], ["ss"]),
             helper.make_node("Softmax", ["ss"], ["p"], axis=-1),
             helper.make_node("MatMul", ["p", "v"], ["y"])]
    return helper.make_graph(
        nodes, "attention",
        [tensor("q", [2, 8, 128, 64]), tensor("k", [2, 8, 128, 64]),
         tensor("v", [2, 8, 128, 64])],
        [tensor("y", [2, 8, 128, 64])])


DOCS = {
    "linear": "nn.Linear(256, 512) on [batch, 256] (ONNX Gemm, transB=1)",
    "linear_static": "nn.Linear(256, 512) on [64, 256]",
    "linear_relu": "nn.Linear(256, 512) + ReLU",
    "linear_gelu": "nn.Linear(256, 512) + GELU (erf)",
    "linear_gelu_tanh": "nn.Linear(256, 512) + GELU (tanh approximation)",
    "linear_sigmoid": "nn.Linear(256, 512) + Sigmoid",
    "linear_leaky_relu": "nn.Linear(256, 512) + LeakyReLU(0.01)",
    "linear_relu6": "nn.Linear(256, 512) + ReLU6 (Clip with 0-d bounds)",
    "linear_silu": "nn.Linear(256, 512) + SiLU (x * sigmoid(x))",
    "linear_3d": "nn.Linear(256, 512) on [batch, 16, 256] (Transpose, MatMul, Add)",
    "mlp": "Linear(256, 1024), GELU, Linear(1024, 256), residual add",
    "weight_grad": "nn.Linear's weight gradient dY^T X (Gemm, transA=1), K = batch",
    "attention_scores": "Q K^T / 8 of [2, 8, 128, 64] heads",
    "attention": "softmax(Q K^T / 8) V of [2, 8, 128, 64] heads",
}

LAYERS = {
    "linear": lambda: layer_linear(),
    "linear_static": lambda: layer_linear(batch=64),
    "linear_relu": lambda: layer_linear("relu"),
    "linear_gelu": lambda: layer_linear("gelu"),
    "linear_gelu_tanh": lambda: layer_linear("gelu_tanh"),
    "linear_sigmoid": lambda: layer_linear("sigmoid"),
    "linear_leaky_relu": lambda: layer_linear("leaky_relu"),
    "linear_relu6": lambda: layer_linear("relu6"),
    "linear_silu": lambda: layer_linear("silu"),
    "linear_3d": layer_linear_3d,
    "weight_grad": layer_weight_grad,
    "mlp": layer_mlp,
    "attention_scores": layer_attention_scores,
    "attention": layer_attention,
}


# What each layer must become under gpupoor-split-k (lit checks them): per
# gpupoor.matmul, its operands and layout, and the ops of its epilogue in
# order; `between` are ops expected after it (a layer's leftovers).
BIAS = "ins(%arg2 : tensor<512xf16>) maps([affine_map<(d0, d1) -> (d1)>])"
LINEAR = ("%arg0, %arg1 " + BIAS, "nk")
EXPECT = {
    "linear": [(LINEAR, ["arith.truncf", "arith.addf"])],
    "linear_static": [(LINEAR, ["arith.truncf", "arith.addf"])],
    "linear_relu": [(LINEAR, ["arith.truncf", "arith.addf", "arith.cmpf ugt",
                              "arith.select"])],
    "linear_gelu": [(LINEAR, ["arith.truncf", "arith.addf", "math.sqrt", "arith.divf",
                              "math.erf", "arith.addf", "arith.mulf", "arith.mulf"])],
    "linear_gelu_tanh": [(LINEAR, ["arith.truncf", "arith.addf", "math.fpowi", "arith.mulf",
                                   "arith.addf", "arith.mulf", "math.tanh", "arith.addf",
                                   "arith.mulf", "arith.mulf"])],
    "linear_sigmoid": [(LINEAR, ["arith.truncf", "arith.addf", "arith.negf", "math.exp",
                                 "arith.addf", "arith.divf"])],
    "linear_leaky_relu": [(LINEAR, ["arith.truncf", "arith.addf", "arith.cmpf ogt",
                                    "arith.select", "arith.cmpf olt", "arith.select",
                                    "arith.mulf", "arith.addf"])],
    "linear_relu6": [(LINEAR, ["arith.truncf", "arith.addf", "arith.cmpf ult",
                               "arith.select", "arith.cmpf ugt", "arith.select"])],
    "linear_silu": [(LINEAR, ["arith.truncf", "arith.addf", "arith.negf", "math.exp",
                              "arith.addf", "arith.divf", "arith.mulf"])],
    "linear_3d": [(("%[[X:.*]], %arg1 " + BIAS, "nk"), ["arith.truncf", "arith.addf"])],
    "mlp": [(("%arg0, %arg1 ins(%arg2 : tensor<1024xf16>) maps([affine_map<(d0, d1) -> (d1)>])",
              "nk"),
             ["arith.truncf", "arith.addf", "math.erf", "arith.mulf"]),
            (("%{{.*}}, %arg3 ins(%arg4, %arg0 : tensor<256xf16>, tensor<?x256xf16>) maps("
              "[affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>])", "nk"),
             ["arith.truncf", "arith.addf", "arith.addf"])],
    "attention_scores": [(("%[[Q:.*]], %[[K:.*]] outs", "nk"), ["arith.truncf", "arith.mulf"])],
    "weight_grad": [(("%arg0, %arg1 outs", "km"), ["arith.truncf"])],
    "attention": [(("%[[Q:.*]], %[[K:.*]] outs", "nk"),
                   ["arith.truncf", "arith.mulf", "arith.extf"]),
                  (("%[[P:.*]], %[[V:.*]] outs", "kn"), ["arith.truncf"])],
}
# Layers whose leftovers (softmax) stay linalg ops, to run as kernels of their own.
LEFTOVERS = {"attention"}


def checks(name):
    """The RUN and CHECK lines of layer `name`."""
    lines = [
        "// RUN: gpupoor-opt %s --gpupoor-split-k --mlir-print-local-scope | FileCheck %s",
        "// RUN: gpupoor-opt %s --gpupoor-to-cubin=\"chip=sm_90 cubin-format=isa\" | "
        "FileCheck %s --check-prefix=CUBIN",
        "",
        "// No transposes, broadcast copies or matmuls are left; each matmul has",
        "// its layer's elementwise ops in its epilogue.",
        "// CHECK-LABEL: func.func @layer",
        "// CHECK-NOT: linalg.transpose",
    ]
    for i, ((operands, layout), ops) in enumerate(EXPECT[name]):
        if name not in LEFTOVERS or i == 0:
            lines.append("// CHECK-NOT: linalg.")
        lines.append(f"// CHECK: gpupoor.matmul {operands}")
        # kn and mk are the defaults, which the attribute does not print.
        lines.append({"nk": "// CHECK-SAME: b_layout = nk",
                      "km": "// CHECK-SAME: a_layout = km"}.get(
                          layout, "// CHECK-SAME: outer = f32>)"))
        for op in ops:
            lines.append(f"// CHECK: = {op}")
        lines.append("// CHECK: gpupoor.yield")
    if name not in LEFTOVERS:
        lines.append("// CHECK-NOT: linalg.")
    lines.append("// CHECK: return")
    lines += [
        "",
        "// The host code only allocates device buffers and launches kernels.",
        "// CUBIN-LABEL: func.func @layer",
        "// CUBIN-NOT: memref.{{(load|store|alloc|copy)}}",
        "// CUBIN: gpu.launch_func",
        "// CUBIN-NOT: memref.{{(load|store|alloc|copy)}}",
        "// CUBIN: return",
        "",
    ]
    return "\n".join(lines) + "\n"


def strip_abi(text):
    """The layer's function without IREE's ABI: the `$async` function IREE's
    ABI wrapper calls, with its `hal.tensor.import`s turned back into tensor
    arguments, its `hal.buffer_view.dim`s into `tensor.dim`s, and its
    barrier and `hal.tensor.export` into a plain return of the tensor. The
    ops between (everything IREE's input pipeline made of the layer) are
    kept as they are."""
    m = re.search(r"(?ms)^  util\.func public @\S+\$async\((.*?)\).*?\{\n(.*?)^  \}", text)
    if not m:
        raise RuntimeError("no $async function in IREE's output:\n" + text)
    lines = m.group(2).splitlines()
    rename, args, dims, body, result = {}, {}, [], [], None
    for line in lines:
        if (d := re.match(r"\s*(%\w+) = hal\.buffer_view\.dim<(%\w+) : [^>]*>\[(\d+)\]", line)):
            dims.append(d.groups())
        elif (i := re.match(r"\s*(%\w+) = hal\.tensor\.import .*=> (%\w+) : !hal\.buffer_view -> (tensor<[^>]*>)", line)):
            rename[i.group(1)] = i.group(2)
            args[i.group(2)] = i.group(3)
        elif (b := re.match(r"\s*(%\w+) = hal\.tensor\.barrier join\((%\w+) : (tensor<[^>]*>)\)", line)):
            rename[b.group(1)] = b.group(2)
            result = (b.group(2), b.group(3))
        elif "hal.tensor.export" in line or "tensor.dim %" in line and result and result[0] in line:
            continue
        elif line.strip().startswith("util.return"):
            continue
        else:
            body.append(line)
    if result is None or not args:
        raise RuntimeError("unexpected ABI function:\n" + m.group(0))
    sig = ", ".join(f"{a}: {t}" for a, t in args.items())
    out = [f"  func.func @layer({sig}) -> {result[1]} {{"]
    for idx, (name, arg, dim) in enumerate(dims):
        out.append(f"    %abi_c{idx} = arith.constant {dim} : index")
        out.append(f"    {name} = tensor.dim {arg}, %abi_c{idx} : {args[arg]}")
    sub = lambda s: re.sub(r"%[\w$.]+", lambda v: rename.get(v.group(0), v.group(0)), s)
    out += [sub(line) for line in body]
    out.append(f"    return {sub(result[0])} : {result[1]}")
    out.append("  }")
    f = "\n".join(out)
    if re.search(r"\b(util|hal|flow|iree)\.", f):
        raise RuntimeError("IREE ops left in the layer:\n" + f)
    return "module {\n" + f + "\n}\n"


def generate(name, graph, tmp):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    path = os.path.join(tmp, name + ".onnx")
    onnx.save(model, path)
    imported = os.path.join(tmp, name + ".onnx.mlir")
    subprocess.run(["iree-import-onnx", path, "-o", imported], check=True)
    lowered = subprocess.run(
        ["iree-compile", imported, "--compile-to=input",
         "--iree-input-demote-f64-to-f32=false"],
        check=True, capture_output=True, text=True).stdout
    with open(os.path.join(HERE, name + ".mlir"), "w") as f:
        f.write(f"// Generated by test/Frontend/generate.py ({name}): do not edit.\n")
        f.write(f"// {DOCS[name]}\n")
        f.write(checks(name))
        f.write(strip_abi(lowered))


def main(names):
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or LAYERS:
            generate(name, LAYERS[name](), tmp)
            print("wrote", name + ".mlir")


if __name__ == "__main__":
    main(sys.argv[1:])
