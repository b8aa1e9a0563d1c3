"""What the tests need of a test/Frontend layer file (no MLIR or ONNX
packages: lit, the CPU differential and the GPU runner all read the
committed .mlir files)."""

import re


def signature(source, batch):
    """The argument shapes and the result shape of `@layer`, a dynamic size
    given the value batch[rank] for a tensor of that rank."""
    m = re.search(r"func\.func @layer\((.*?)\) -> tensor<([^>]*)>", source)

    def shape(t):
        dims = t.split("x")[:-1]
        return tuple(batch[len(dims)] if d == "?" else int(d) for d in dims)
    return [shape(t) for t in re.findall(r"tensor<([^>]*)>", m.group(1))], shape(m.group(2))
