"""Builds the front-end layers of test/Frontend/ for run_frontend.py.

Compiles each layer (the IR that IREE's input pipeline made of an ONNX
graph) with `gpupoor-opt --gpupoor-to-cubin` and lowers its host code as
build_differential.py does, to an object file; writes index.json with each
layer's argument and result shapes (a dynamic batch is given a size that is
not a multiple of any tile).

A layer whose weights are dense_resource constants (*_const) has them saved
in OUT/NAME.npz, 2-D before 1-D (a weight before its bias), for the
runner's PyTorch reference. --format isa embeds PTX instead of cubins: an
older chip's build (sm_80) then runs on a newer GPU through the driver's
JIT.

  GPUPOOR_OPT=build/bin/gpupoor-opt python3 test/GPU/build_frontend.py OUT [--chip sm_90]
      [--format bin|isa]
"""

import argparse
import glob
import numpy as np
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "Numerics"))
from build_differential import HOST, sh  # noqa: E402
from cpu_kernel import GPUPOOR_OPT, LLC, MLIR_TRANSLATE  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "Frontend"))
from layers import signature  # noqa: E402

FRONTEND = os.path.join(HERE, "..", "Frontend")
# The size of a dynamic batch dimension, per rank of the tensor.
BATCH = {2: 200, 3: 5}


def resource_constants(source):
    """The dense_resource constants of `source` as arrays, 2-D before 1-D, in
    order of use otherwise: each blob is hex, a 4-byte alignment, then the
    elements."""
    blobs = dict(re.findall(r'^\s*([\w.]+): "0x([0-9A-Fa-f]+)"', source, re.M))
    out = []
    for name, dims, elt in re.findall(
            r"dense_resource<([\w.]+)> : tensor<((?:\d+x)+)(f16|f32)>", source):
        shape = tuple(int(d) for d in dims.rstrip("x").split("x"))
        raw = bytes.fromhex(blobs[name])[4:]
        out.append(np.frombuffer(raw, np.float16 if elt == "f16" else np.float32)
                   .reshape(shape))
    return sorted(out, key=lambda a: -a.ndim)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--format", default="bin", choices=("bin", "isa"))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    index = []
    for path in sorted(glob.glob(os.path.join(FRONTEND, "*.mlir"))):
        name = os.path.basename(path)[:-5]
        source = open(path).read()
        if name.endswith("_const"):
            np.savez(os.path.join(args.out_dir, name + ".npz"), *resource_constants(source))
        dev = sh([GPUPOOR_OPT, path,
                  f"--gpupoor-to-cubin=chip={args.chip} cubin-format={args.format}"])
        host = sh([GPUPOOR_OPT, "-", HOST], input=dev)
        ll = sh([MLIR_TRANSLATE, "--mlir-to-llvmir"], input=host)
        base = os.path.join(args.out_dir, name)
        with open(base + ".ll", "w") as f:
            f.write(ll)
        sh([LLC, "-O2", "-filetype=obj", "-relocation-model=pic", base + ".ll", "-o", base + ".o"])
        os.remove(base + ".ll")
        arg_shapes, out_shape = signature(source, BATCH)
        out_type = re.search(r"func\.func @layer\(.*?\) -> tensor<[^>]*x(\w+)>", source).group(1)
        index.append({"name": name, "args": [list(s) for s in arg_shapes], "out": list(out_shape),
                      "out_type": out_type,
                      "kernels": dev.count("gpu.binary @")})
        print(f"{name}: {index[-1]['kernels']} kernels", flush=True)
    with open(os.path.join(args.out_dir, "index.json"), "w") as f:
        json.dump({"chip": args.chip, "format": args.format, "layers": index}, f, indent=1)


if __name__ == "__main__":
    main()
