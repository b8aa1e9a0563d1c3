"""Hand-written programs for the GPU leg of the differential tests
(test/GPU/build_differential.py --fixed), beside the generated ones:

- each math op front ends emit, in an offloaded elementwise kernel whose
  constants (math.fpowi's exponent among them) are defined outside the op,
  as torch-mlir writes them; alone and as the prologue of a matmul whose
  operand it computes;
- C += A*B accumulating into a memref argument in place (static and
  dynamic), where the generated programs take C as a tensor argument;
- a function that returns either a product of its own or C, a buffer it
  does not own (an scf.if), which its caller accumulates into: the copy
  the buffer deallocation pipeline makes of C (gpupoor-lower-clones, on
  the GPU an allocation and a copy kernel);
- static products whose sm_90a kernels the generated shapes seldom reach:
  B as K x N in clusters of two (rows off 32-byte sectors), and A as K x M
  of 8, 16 and 32 rows run swapped (on memrefs, which cannot be copied,
  also 24 rows, past the box's columns).

Each is a `kernel` of the generated programs' form: its inputs, then the
memref OUT that receives the result. Upstream MLIR's CPU lowering of the
same source is the reference.
"""

from __future__ import annotations

import numpy as np

from programs import Program
from programs import inputs as programs_inputs

# Each math op's body, of %x (f32), with the constants it uses defined
# outside the linalg.generic (CONSTANTS): (name, body lines, result).
CONSTANTS = """  %c3_i64 = arith.constant 3 : i64
  %c2_i32 = arith.constant 2 : i32
  %p25 = arith.constant 2.5 : f32
  %k = arith.constant 0.044715 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %six = arith.constant 6.0 : f32
  %zero = arith.constant 0.0 : f32
"""
MATH_OPS = [
    ("fpowi_i64", ["%y = math.fpowi %x, %c3_i64 : f32, i64"]),
    ("fpowi_i32", ["%y = math.fpowi %x, %c2_i32 : f32, i32"]),
    ("powf", ["%ab = math.absf %x : f32", "%y = math.powf %ab, %p25 : f32"]),
    ("erf", ["%s = arith.mulf %x, %half : f32", "%y = math.erf %s : f32"]),
    ("tanh_gelu", ["%c = math.fpowi %x, %c3_i64 : f32, i64", "%t = arith.mulf %c, %k : f32",
                   "%u = arith.addf %x, %t : f32", "%v = math.tanh %u : f32",
                   "%w = arith.addf %v, %one : f32", "%h = arith.mulf %x, %half : f32",
                   "%y = arith.mulf %h, %w : f32"]),
    ("exp", ["%s = arith.mulf %x, %half : f32", "%y = math.exp %s : f32"]),
    ("log", ["%ab = math.absf %x : f32", "%y = math.log %ab : f32"]),
    ("log1p_mish", ["%e = math.exp %x : f32", "%sp = math.log1p %e : f32",
                    "%t = math.tanh %sp : f32", "%y = arith.mulf %x, %t : f32"]),
    ("sqrt", ["%ab = math.absf %x : f32", "%y = math.sqrt %ab : f32"]),
    ("rsqrt", ["%ab = math.absf %x : f32", "%s = arith.addf %ab, %one : f32",
               "%y = math.rsqrt %s : f32"]),
    ("sigmoid", ["%n = arith.negf %x : f32", "%e = math.exp %n : f32",
                 "%d = arith.addf %e, %one : f32", "%y = arith.divf %one, %d : f32"]),
    ("hardswish", ["%a3 = arith.addf %x, %p25 : f32", "%lo = arith.maximumf %a3, %zero : f32",
                   "%hi = arith.minimumf %lo, %six : f32", "%m = arith.mulf %x, %hi : f32",
                   "%y = arith.divf %m, %six : f32"]),
]


def _generic(rank_shape: str, elt: str, body: list[str], src: str, dst: str) -> str:
    lines = "\n".join("    " + line for line in body)
    ext = ("    %x = arith.extf %in : f16 to f32\n" if elt == "f16" else "")
    back = ("    %r = arith.truncf %y : f32 to f16\n    linalg.yield %r : f16"
            if elt == "f16" else "    linalg.yield %y : f32")
    first = "%in" if elt == "f16" else "%x"
    return (f"  {dst} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = "
            f"[\"parallel\", \"parallel\"]}} ins({src} : tensor<{rank_shape}x{elt}>) "
            f"outs(%empty : tensor<{rank_shape}x{elt}>) {{\n"
            f"  ^bb0({first}: {elt}, %o: {elt}):\n{ext}{lines}\n{back}\n"
            f"  }} -> tensor<{rank_shape}x{elt}>\n")


def math_alone(name: str, body: list[str]) -> Program:
    """The op over a 33 x 130 f32 tensor, offloaded as a kernel of its own."""
    shape = "33x130"
    source = ("#id = affine_map<(d0, d1) -> (d0, d1)>\n"
              f"func.func @kernel(%a0: tensor<{shape}xf32>, %out: memref<{shape}xf32>) {{\n"
              + CONSTANTS + f"  %empty = tensor.empty() : tensor<{shape}xf32>\n"
              + _generic(shape, "f32", body, "%a0", "%r")
              + f"  bufferization.materialize_in_destination %r in restrict writable %out"
              f" : (tensor<{shape}xf32>, memref<{shape}xf32>) -> ()\n  return\n}}\n")
    return Program(source, [("x", "float", (33, 130), np.float32)], (33, 130), np.float32,
                   ["math"], f"fixed: {name} alone (offloaded, constants outside the op)")


def math_prologue(name: str, body: list[str]) -> Program:
    """The op on A (f16, through f32) before a 24 x 40 x 72 matmul: an
    offloaded kernel whose result the matmul reads. B has one power of two
    a column ("onehot"), so that every C element is one exact product in any
    summation order, and C is f16, whose ulp covers libm's and libdevice's
    differences in the op's result."""
    m, n, k = 24, 40, 72
    source = ("#id = affine_map<(d0, d1) -> (d0, d1)>\n"
              f"func.func @kernel(%a0: tensor<{m}x{k}xf16>, %b: tensor<{k}x{n}xf16>, "
              f"%out: memref<{m}x{n}xf16>) {{\n"
              + CONSTANTS + "  %zero16 = arith.constant 0.0 : f16\n"
              f"  %empty = tensor.empty() : tensor<{m}x{k}xf16>\n"
              + _generic(f"{m}x{k}", "f16", body, "%a0", "%a")
              + f"  %ec = tensor.empty() : tensor<{m}x{n}xf16>\n"
              f"  %init = linalg.fill ins(%zero16 : f16) outs(%ec : tensor<{m}x{n}xf16>)"
              f" -> tensor<{m}x{n}xf16>\n"
              f"  %c = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16>)"
              f" outs(%init : tensor<{m}x{n}xf16>) -> tensor<{m}x{n}xf16>\n"
              f"  bufferization.materialize_in_destination %c in restrict writable %out"
              f" : (tensor<{m}x{n}xf16>, memref<{m}x{n}xf16>) -> ()\n  return\n}}\n")
    return Program(source, [("unit", "float", (m, k), np.float16),
                            ("onehot", "int", (k, n), np.float16)],
                   (m, n), np.float16, ["math"],
                   f"fixed: {name} on A before a matmul (offloaded prologue)")


def accumulate_memref(static: bool) -> Program:
    """C += A*B into the memref OUT in place, after OUT is given C_in."""
    m, n, k = 37, 70, 300
    mem = (lambda r, c: f"memref<{r}x{c}xf16>") if static else (lambda r, c: "memref<?x?xf16>")
    source = (f"func.func @kernel(%a: {mem(m, k)}, %b: {mem(k, n)}, %cin: {mem(m, n)}, "
              f"%out: {mem(m, n)}) {{\n"
              f"  memref.copy %cin, %out : {mem(m, n)} to {mem(m, n)}\n"
              f"  linalg.matmul ins(%a, %b : {mem(m, k)}, {mem(k, n)}) outs(%out : {mem(m, n)})\n"
              "  return\n}\n")
    return Program(source, [("a", "int", (m, k), np.float16), ("b", "int", (k, n), np.float16),
                            ("cin", "int", (m, n), np.float16)], (m, n), np.float16, [],
                   f"fixed: C += A*B into a {'static' if static else 'dynamic'} memref in place")


def returned_copy() -> Program:
    """OUT = C_in + A*B, accumulated into the buffer @pick returns: where
    %p holds, a product of its own; else C_in itself, a buffer @pick does
    not own, which the buffer deallocation pipeline copies
    (bufferization.clone, gpupoor-lower-clones). @kernel takes the second
    branch; C_in stays as it was."""
    m, n, k = 72, 136, 320
    t = lambda r, c: f"tensor<{r}x{c}xf16>"  # noqa: E731
    args = f"%a: {t(m, k)}, %b: {t(k, n)}, %cin: {t(m, n)}"
    types = f"{t(m, k)}, {t(k, n)}, {t(m, n)}"
    matmul = lambda init: (f"linalg.matmul ins(%a, %b : {t(m, k)}, {t(k, n)}) "  # noqa: E731
                           f"outs({init} : {t(m, n)}) -> {t(m, n)}")
    source = (f"func.func private @pick({args}, %p: i1) -> {t(m, n)} {{\n"
              f"  %r = scf.if %p -> {t(m, n)} {{\n"
              "    %zero = arith.constant 0.0 : f16\n"
              f"    %e = tensor.empty() : {t(m, n)}\n"
              f"    %z = linalg.fill ins(%zero : f16) outs(%e : {t(m, n)}) -> {t(m, n)}\n"
              f"    %mm = {matmul('%z')}\n"
              f"    scf.yield %mm : {t(m, n)}\n"
              "  } else {\n"
              f"    scf.yield %cin : {t(m, n)}\n"
              "  }\n"
              f"  return %r : {t(m, n)}\n}}\n"
              f"func.func @kernel({args}, %out: memref<{m}x{n}xf16>) {{\n"
              "  %false = arith.constant false\n"
              f"  %r = func.call @pick(%a, %b, %cin, %false) : ({types}, i1) -> {t(m, n)}\n"
              f"  %s = {matmul('%r')}\n"
              f"  bufferization.materialize_in_destination %s in restrict writable %out"
              f" : ({t(m, n)}, memref<{m}x{n}xf16>) -> ()\n  return\n}}\n")
    return Program(source, [("a", "int", (m, k), np.float16), ("b", "int", (k, n), np.float16),
                            ("cin", "int", (m, n), np.float16)], (m, n), np.float16, [],
                   "fixed: C += A*B into the copy of C a callee returns (a buffer it does not own)")


def static_matmul(m: int, n: int, k: int, a_km: bool, b_kn: bool, what: str) -> Program:
    """C = A*B of static sizes, A stored K x M where `a_km` (a transposed
    activation), B stored K x N where `b_kn`, else N x K."""
    a_shape, b_shape = (k, m) if a_km else (m, k), (k, n) if b_kn else (n, k)
    a_map, b_map = "k, m" if a_km else "m, k", "k, n" if b_kn else "n, k"
    t = lambda r, c: f"tensor<{r}x{c}xf16>"  # noqa: E731
    source = (f"func.func @kernel(%a: {t(*a_shape)}, %b: {t(*b_shape)}, "
              f"%out: memref<{m}x{n}xf16>) {{\n"
              "  %z = arith.constant 0.0 : f16\n"
              f"  %e = tensor.empty() : {t(m, n)}\n"
              f"  %f = linalg.fill ins(%z : f16) outs(%e : {t(m, n)}) -> {t(m, n)}\n"
              f"  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> ({a_map})>, "
              f"affine_map<(m, n, k) -> ({b_map})>, affine_map<(m, n, k) -> (m, n)>] "
              f"ins(%a, %b : {t(*a_shape)}, {t(*b_shape)}) outs(%f : {t(m, n)}) -> {t(m, n)}\n"
              f"  bufferization.materialize_in_destination %c in restrict writable %out"
              f" : ({t(m, n)}, memref<{m}x{n}xf16>) -> ()\n  return\n}}\n")
    return Program(source, [("pm1", "int", a_shape, np.float16),
                            ("pm1", "int", b_shape, np.float16)],
                   (m, n), np.float16, [], f"fixed: {m}x{n}x{k} {what}")


def km_memref_matmul(m: int, n: int, k: int) -> Program:
    """OUT = A*B on static memrefs, A stored K x M, B as K x N: a memref A
    cannot be copied M x K, so sm_90a's swapped kernel reads any M of 1 to
    32 rows as it lies (its box of 8, 16 or 32 columns past M
    zero-filled)."""
    source = (f"func.func @kernel(%a: memref<{k}x{m}xf16>, %b: memref<{k}x{n}xf16>, "
              f"%out: memref<{m}x{n}xf16>) {{\n"
              "  %z = arith.constant 0.0 : f16\n"
              f"  linalg.fill ins(%z : f16) outs(%out : memref<{m}x{n}xf16>)\n"
              "  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, "
              "affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] "
              f"ins(%a, %b : memref<{k}x{m}xf16>, memref<{k}x{n}xf16>) "
              f"outs(%out : memref<{m}x{n}xf16>)\n  return\n}}\n")
    return Program(source, [("pm1", "int", (k, m), np.float16),
                            ("pm1", "int", (k, n), np.float16)],
                   (m, n), np.float16, [], f"fixed: {m}x{n}x{k} A as K x M on memrefs (swapped)")


def inputs(p: Program, rng: np.random.Generator) -> list[np.ndarray]:
    """programs.inputs; for "unit" normal values without NaNs (every C
    element reads a row of A), for "onehot" a K x N matrix with one power
    of two (2^-2 .. 2^2, either sign) a column, and for "pm1" integers in
    {-1, 0, 1} (a K of at most 2048 keeps every partial sum exact in f16, in
    any order)."""
    arrays = programs_inputs(p, rng)
    for i, (name, _, shape, dtype) in enumerate(p.args):
        if name == "unit":
            arrays[i] = (2 * rng.standard_normal(size=shape)).astype(dtype)
        if name == "pm1":
            arrays[i] = rng.integers(-1, 2, size=shape).astype(dtype)
        if name == "onehot":
            k, n = shape
            v = np.zeros(shape)
            v[rng.integers(0, k, size=n), np.arange(n)] = (
                rng.choice([-1.0, 1.0], size=n) * 2.0 ** rng.integers(-2, 3, size=n))
            arrays[i] = v.astype(dtype)
    return arrays


def programs() -> list[Program]:
    out = [math_alone(n, b) for n, b in MATH_OPS]
    out += [math_prologue(n, b) for n, b in MATH_OPS]
    out += [accumulate_memref(True), accumulate_memref(False), returned_copy()]
    out += [static_matmul(16, 1000, 2040, True, False, "A as K x M, 16 rows (swapped)"),
            static_matmul(1000, 1000, 1000, False, True, "B as K x N (sm_90a: clusters)"),
            static_matmul(520, 1000, 1000, True, True, "A as K x M, B as K x N (clusters)"),
            static_matmul(32, 1000, 2040, True, True, "A as K x M, 32 rows (swapped)"),
            static_matmul(32, 4160, 264, True, False, "A as K x M, 32 rows (swapped)"),
            km_memref_matmul(24, 1000, 1000), km_memref_matmul(8, 4100, 520),
            # Four f16 sums a chunk (sets = 4), the last K tile 8 elements
            # long: three of its sums add zero-filled steps alone.
            static_matmul(1, 2100, 1032, False, False, "1 row (swapped, sets = 4)"),
            static_matmul(4, 1100, 2056, False, True, "4 rows, B as K x N (swapped, sets = 4)"),
            # Rows off 16 bytes, copied into padded rows first
            # (policy::copiesUnalignedOperands): K of 1027; B as K x N of
            # 1234 columns; A as K x M of 327 rows, copied as it lies into
            # padded rows (policy::Strategy::padsA).
            static_matmul(327, 1234, 1027, False, False, "K = 1027 (operands copied, padded)"),
            static_matmul(300, 1234, 1000, False, True, "B as K x N of N = 1234 (B padded)"),
            static_matmul(327, 1000, 1031, True, True, "A as K x M of M = 327 (padded as it lies)"),
            # One row of A as K x M: reshaped 1 x K, not copied; of K off 8
            # elements, copied into a padded row.
            static_matmul(1, 2100, 1032, True, False, "A as K x M of 1 row (reshaped)"),
            static_matmul(1, 1100, 1030, True, True, "A as K x M of 1 row, K = 1030 (copied, padded)")]
    return out
