"""Random valid matmul programs for differential testing.

Each program is a function `@kernel(A, B, extra..., OUT)` on tensors whose
result is materialized into the memref OUT: a linalg.matmul (A*B or A*B^T
through indexing maps, A possibly transposed too) or linalg.batch_matmul on static or dynamic shapes,
with a zero-filled init or an init read as C += A*B, then a chain of
elementwise consumers drawn from the forms front ends emit (and one,
reading linalg.index, that ends what the epilogue fuses). Inputs (see `inputs`) make the
matmul exact in any summation order, so that any two correct compilations
of a program agree bit for bit.
"""

import random
from dataclasses import dataclass, field

import numpy as np

# Consumers: name -> (result types it applies to, extra input kind).
# Extra kinds: None, "bias" (rank-1, along N; element type in the form),
# "full" (a tensor of the result's shape).
STAGES = {
    "bias": ("f16 f32", "bias"),           # addf(x, b) in T
    "bias_ext": ("f32", "bias16"),         # addf(x, extf(b16)) in f32
    "bias_wide": ("f16", "bias16"),        # truncf(addf(extf x, extf b)) for f16
    "bias_trunc": ("f16", "bias32"),       # addf(x, truncf(b32)): not fusable
    "named_bias": ("f16 f32", "bias"),     # linalg.add of a linalg.broadcast
    "relu": ("f16 f32", None),
    "relu_commuted": ("f16 f32", None),
    "relu_wide": ("f16", None),
    "named_relu": ("f16 f32", None),       # linalg.max against a zero fill
    "relu_maxnum": ("f16 f32", None),      # not ReLU under NaN: not fusable
    "relu_select": ("f16 f32", None),
    "relu6": ("f16 f32", None),
    "clamp_1000": ("f16 f32", None),
    "leaky": ("f16 f32", None),
    "gelu": ("f16 f32", None),             # exact erf form, in f32
    "gelu_div": ("f32", None),             # x / sqrt(2): not fusable
    "scale": ("f16 f32", None),
    "residual": ("f16 f32", "full"),
    "reads_init": ("f16 f32", "full"),     # the generic's init is read
    "trunc": ("f32", None),                # f32 -> f16: the front ends' truncf generic
    "relu_ugt": ("f16 f32", None),         # ReLU as the ONNX importer spells it
    "silu": ("f16 f32", None),
    "sigmoid": ("f16 f32", None),
    "tanh_gelu": ("f16 f32", None),
    "clamp_0d": ("f16 f32", "scalars"),    # bounds as 0-d tensors
    "row_scale": ("f16 f32", "row"),       # an operand per row (along M)
    "index_shift": ("f16 f32", None),      # reads linalg.index: ends the fused chain
    "silu_graph": ("f16 f32", None),       # x * sigmoid(x) as two ops, both reading x
    "leaky_graph": ("f16 f32", None),      # ONNX LeakyReLU: max, min (0-d splat), mul, add
}

# Stages made of several linalg ops (the others are one each).
OPS_PER_STAGE = {"named_bias": 2, "silu_graph": 2, "leaky_graph": 4}

# Stages that end the fused chain (the ones after stay separate ops too).
UNFUSABLE = {"index_shift"}


@dataclass
class Program:
    source: str
    # (name, kind, shape, numpy dtype) of each argument before OUT, in order.
    args: list = field(default_factory=list)
    out_shape: tuple = ()
    out_dtype: type = np.float16
    stages: list = field(default_factory=list)
    description: str = ""
    # gpupoor-cpu-pipeline options: any of them leaves the result of an
    # exact matmul unchanged.
    options: str = ""
    # How many of the stages the epilogue fuses, and the linalg ops that
    # stay after the rewrite.
    fused: int = 0
    unfused_ops: int = 0


def _np(t):
    return np.float16 if t == "f16" else np.float32


def generate(rng: random.Random) -> Program:
    batched = rng.random() < 0.2
    nk = rng.random() < 0.4
    km = rng.random() < 0.2
    static = rng.random() < 0.5
    t = rng.choice(["f16", "f32"])
    zero_init = rng.random() < 0.85
    bt = rng.randint(1, 3) if batched else None
    m, n, k = rng.randint(1, 70), rng.randint(1, 70), rng.randint(1, 300)
    lead = (bt,) if batched else ()
    r = len(lead) + 2
    dims = "x".join(["?"] * r)

    def ty(shape, elt):
        return f"tensor<{'x'.join(map(str, shape)) if static else dims}x{elt}>"

    a_shape = lead + ((k, m) if km else (m, k))
    b_shape, c_shape = lead + ((n, k) if nk else (k, n)), lead + (m, n)
    p = Program("", out_shape=c_shape, out_dtype=_np(t))
    params = [f"%a: {ty(a_shape, 'f16')}", f"%b: {ty(b_shape, 'f16')}"]
    p.args = [("a", "int", a_shape, np.float16), ("b", "int", b_shape, np.float16)]
    tc = ty(c_shape, t)
    body = []
    for i in range(r):
        body.append(f"  %c{i} = arith.constant {i} : index")
    if static:
        for et in ("f16", "f32"):
            body.append(f"  %e_{et} = tensor.empty() : {ty(c_shape, et)}")
    else:
        dim_ops = []
        for i in range(r - 2):
            body.append(f"  %d{i} = tensor.dim %a, %c{i} : {ty(a_shape, 'f16')}")
            dim_ops.append(f"%d{i}")
        body.append(f"  %dm = tensor.dim %a, %c{r - 1 if km else r - 2} : {ty(a_shape, 'f16')}")
        body.append(f"  %dn = tensor.dim %b, %c{r - 2 if nk else r - 1} : {ty(b_shape, 'f16')}")
        dim_ops += ["%dm", "%dn"]
        for et in ("f16", "f32"):
            body.append(f"  %e_{et} = tensor.empty({', '.join(dim_ops)}) : {ty(c_shape, et)}")
    # One zero per type: a truncf stage changes the type of what follows.
    for zt in ("f16", "f32"):
        body.append(f"  %zero_{zt} = arith.constant 0.0 : {zt}")
    if zero_init:
        body.append(f"  %init = linalg.fill ins(%zero_{t} : {t}) outs(%e_{t} : {tc}) -> {tc}")
    else:
        params.append(f"%cin: {tc}")
        p.args.append(("cin", "int", c_shape, _np(t)))
    op = "linalg.batch_matmul" if batched else "linalg.matmul"
    maps = ""
    if nk or km:
        ld = "b, " if batched else ""
        dl = "(b, m, n, k)" if batched else "(m, n, k)"
        a_map = f"({ld}k, m)" if km else f"({ld}m, k)"
        b_map = f"({ld}n, k)" if nk else f"({ld}k, n)"
        maps = (f" indexing_maps = [affine_map<{dl} -> {a_map}>, affine_map<{dl} -> {b_map}>, "
                f"affine_map<{dl} -> ({ld}m, n)>]")
    init = "%init" if zero_init else "%cin"
    body.append(f"  %v0 = {op}{maps} ins(%a, %b : {ty(a_shape, 'f16')}, {ty(b_shape, 'f16')}) "
                f"outs({init} : {tc}) -> {tc}")
    cur = "%v0"
    ids = ", ".join(f"d{i}" for i in range(r))
    idmap = f"affine_map<({ids}) -> ({ids})>"
    rowmap = f"affine_map<({ids}) -> (d{r - 1})>"
    par = ", ".join(['"parallel"'] * r)
    chain_open = True
    for si in range(rng.choice([0, 1, 1, 2, 2, 3])):
        names = [s for s, (types, _) in STAGES.items() if t in types.split()]
        stage = rng.choice(names)
        p.stages.append(stage)
        chain_open &= stage not in UNFUSABLE
        if chain_open:
            p.fused += 1
        else:
            p.unfused_ops += OPS_PER_STAGE.get(stage, 1)
        out = f"%v{si + 1}"
        extra = STAGES[stage][1]
        xname = f"%x{si}"
        if extra and extra.startswith("bias"):
            bty = {"bias": t, "bias16": "f16", "bias32": "f32"}[extra]
            btype = f"tensor<{n if static else '?'}x{bty}>"
            params.append(f"{xname}: {btype}")
            p.args.append((xname[1:], "int", (n,), _np(bty)))
        elif extra == "full":
            params.append(f"{xname}: {tc}")
            p.args.append((xname[1:], "int", c_shape, _np(t)))
        elif extra == "scalars":
            for bound in ("lo", "hi"):
                params.append(f"{xname}{bound}: tensor<{t}>")
                p.args.append((xname[1:] + bound, "int", (), _np(t)))
        elif extra == "row":
            params.append(f"{xname}: tensor<{m if static else '?'}x{t}>")
            p.args.append((xname[1:], "int", (m,), _np(t)))
        body += _stage(stage, cur, out, xname, t, tc, idmap, rowmap, par, r, static, n, m)
        cur = out
        if stage == "trunc":
            t = "f16"
            tc = ty(c_shape, t)
    p.out_dtype = _np(t)
    mc = f"memref<{'x'.join(map(str, c_shape)) if static else dims}x{t}>"
    params.append(f"%out: {mc}")
    body.append(f"  bufferization.materialize_in_destination {cur} in restrict writable %out "
                f": ({tc}, {mc}) -> ()")
    body.append("  return")
    p.source = f"func.func @kernel({', '.join(params)}) {{\n" + "\n".join(body) + "\n}\n"
    opts = [f"outer-type={rng.choice(['f16', 'f32'])}"]
    if rng.random() < 0.5:
        opts.append(f"splits={rng.choice([1, 2, 3, 5, 32])}")
    if rng.random() < 0.3:
        opts.append(f"tile={rng.choice(['16,8,16', '64,64,32', '128,128,64', '32,16,48'])}")
    p.options = " ".join(opts)
    p.description = (f"[{p.options}] {'batch ' if batched else ''}{'km' if km else 'mk'} {'nk' if nk else 'kn'} "
                     f"{'static' if static else 'dynamic'} {c_shape}x{k} {t} "
                     f"{'zero init' if zero_init else 'C += A*B'} stages={p.stages}")
    return p


def _generic(ins, outs, maps, par, args, body_lines, t, tc, out):
    return [f"  {out} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
            f"iterator_types = [{par}]}} ins({ins}) outs({outs}) {{",
            f"  ^bb0({args}):", *[f"    {l}" for l in body_lines], f"  }} -> {tc}"]


def _stage(stage, cur, out, x, t, tc, idmap, rowmap, par, r, static, n, m):
    un = lambda lines: _generic(f"{cur} : {tc}", f"%e_{t} : {tc}", [idmap, idmap], par,
                                f"%in: {t}, %o: {t}", lines, t, tc, out)
    if stage in ("bias", "bias_ext", "bias_wide", "bias_trunc"):
        bty = {"bias": t, "bias_ext": "f16", "bias_wide": "f16", "bias_trunc": "f32"}[stage]
        btype = f"tensor<{n if static else '?'}x{bty}>"
        lines = {
            "bias": [f"%s = arith.addf %in, %y : {t}", f"linalg.yield %s : {t}"],
            "bias_ext": ["%yx = arith.extf %y : f16 to f32", "%s = arith.addf %in, %yx : f32",
                         "linalg.yield %s : f32"],
            "bias_wide": ["%xw = arith.extf %in : f16 to f32", "%yw = arith.extf %y : f16 to f32",
                          "%s = arith.addf %yw, %xw : f32", "%st = arith.truncf %s : f32 to f16",
                          "linalg.yield %st : f16"],
            "bias_trunc": ["%yt = arith.truncf %y : f32 to f16", "%s = arith.addf %in, %yt : f16",
                           "linalg.yield %s : f16"],
        }[stage]
        return _generic(f"{cur}, {x} : {tc}, {btype}", f"%e_{t} : {tc}", [idmap, rowmap, idmap], par,
                        f"%in: {t}, %y: {bty}, %o: {t}", lines, t, tc, out)
    if stage == "named_bias":
        btype = f"tensor<{n if static else '?'}x{t}>"
        added = ", ".join(str(i) for i in range(r - 1))
        return [f"  %bc{out[2:]} = linalg.broadcast ins({x} : {btype}) outs(%e_{t} : {tc}) dimensions = [{added}]",
                f"  {out} = linalg.add ins({cur}, %bc{out[2:]} : {tc}, {tc}) outs(%e_{t} : {tc}) -> {tc}"]
    if stage == "named_relu":
        return [f"  %z{out[2:]} = linalg.fill ins(%zero_{t} : {t}) outs(%e_{t} : {tc}) -> {tc}",
                f"  {out} = linalg.max ins({cur}, %z{out[2:]} : {tc}, {tc}) outs(%e_{t} : {tc}) -> {tc}"]
    if stage in ("residual", "reads_init"):
        if stage == "residual":
            return _generic(f"{cur}, {x} : {tc}, {tc}", f"%e_{t} : {tc}", [idmap, idmap, idmap], par,
                            f"%in: {t}, %y: {t}, %o: {t}",
                            [f"%s = arith.addf %in, %y : {t}", f"linalg.yield %s : {t}"], t, tc, out)
        return _generic(f"{cur} : {tc}", f"{x} : {tc}", [idmap, idmap], par, f"%in: {t}, %o: {t}",
                        [f"%s = arith.addf %in, %o : {t}", f"linalg.yield %s : {t}"], t, tc, out)
    c = lambda name, v, ty=t: f"%{name} = arith.constant {v} : {ty}"
    if stage == "relu":
        return un([c("z", "0.0"), f"%y = arith.maximumf %in, %z : {t}", f"linalg.yield %y : {t}"])
    if stage == "relu_commuted":
        return un([c("z", "0.0"), f"%y = arith.maximumf %z, %in : {t}", f"linalg.yield %y : {t}"])
    if stage == "relu_wide":
        return un([c("z", "0.0", "f32"), "%w = arith.extf %in : f16 to f32",
                   "%y = arith.maximumf %w, %z : f32", "%yt = arith.truncf %y : f32 to f16",
                   "linalg.yield %yt : f16"])
    if stage == "relu_maxnum":
        return un([c("z", "0.0"), f"%y = arith.maxnumf %in, %z : {t}", f"linalg.yield %y : {t}"])
    if stage == "relu_select":
        return un([c("z", "0.0"), f"%p = arith.cmpf ogt, %in, %z : {t}",
                   f"%y = arith.select %p, %in, %z : {t}", f"linalg.yield %y : {t}"])
    if stage in ("relu6", "clamp_1000"):
        hi = "6.0" if stage == "relu6" else "1000.0"
        return un([c("z", "0.0"), c("h", hi), f"%m = arith.maximumf %in, %z : {t}",
                   f"%y = arith.minimumf %m, %h : {t}", f"linalg.yield %y : {t}"])
    if stage == "leaky":
        return un([c("z", "0.0"), c("s", "0.125"), f"%p = arith.cmpf ogt, %in, %z : {t}",
                   f"%n = arith.mulf %in, %s : {t}", f"%y = arith.select %p, %in, %n : {t}",
                   f"linalg.yield %y : {t}"])
    if stage == "scale":
        return un([c("s", "0.5"), f"%y = arith.mulf %in, %s : {t}", f"linalg.yield %y : {t}"])
    if stage in ("gelu", "gelu_div"):
        lines, x32 = [], "%in"
        if t == "f16":
            lines.append("%w = arith.extf %in : f16 to f32")
            x32 = "%w"
        lines += [c("h", "0.5", "f32"), c("one", "1.0", "f32")]
        if stage == "gelu":
            lines += [c("k", "0.70710678118654752", "f32"), f"%s = arith.mulf {x32}, %k : f32"]
        else:
            lines += [c("k", "1.41421356237309504", "f32"), f"%s = arith.divf {x32}, %k : f32"]
        lines += ["%er = math.erf %s : f32", "%pp = arith.addf %er, %one : f32",
                  f"%hx = arith.mulf {x32}, %h : f32", "%g = arith.mulf %hx, %pp : f32"]
        if t == "f16":
            lines += ["%gt = arith.truncf %g : f32 to f16", "linalg.yield %gt : f16"]
        else:
            lines += ["linalg.yield %g : f32"]
        return un(lines)
    if stage == "trunc":
        t16 = tc.replace("xf32>", "xf16>")
        return _generic(f"{cur} : {tc}", f"%e_f16 : {t16}", [idmap, idmap], par, "%in: f32, %o: f16",
                        ["%y = arith.truncf %in : f32 to f16", "linalg.yield %y : f16"], t, t16, out)
    if stage == "relu_ugt":
        return un([c("z", "0.0"), f"%p = arith.cmpf ugt, %in, %z : {t}",
                   f"%y = arith.select %p, %in, %z : {t}", f"linalg.yield %y : {t}"])
    if stage in ("silu", "sigmoid"):
        lines = [c("one", "1.0"), f"%ng = arith.negf %in : {t}", f"%ex = math.exp %ng : {t}",
                 f"%d = arith.addf %one, %ex : {t}"]
        lines += ([f"%y = arith.divf %in, %d : {t}"] if stage == "silu"
                  else [f"%y = arith.divf %one, %d : {t}"])
        return un(lines + [f"linalg.yield %y : {t}"])
    if stage == "tanh_gelu":
        return un([c("h", "0.5"), c("one", "1.0"), c("k", "0.7978845608"), c("k3", "0.044715"),
                   f"%x3 = arith.mulf %in, %in : {t}", f"%x3b = arith.mulf %x3, %in : {t}",
                   f"%s3 = arith.mulf %x3b, %k3 : {t}", f"%u = arith.addf %in, %s3 : {t}",
                   f"%v = arith.mulf %u, %k : {t}", f"%th = math.tanh %v : {t}",
                   f"%p = arith.addf %th, %one : {t}", f"%hx = arith.mulf %in, %h : {t}",
                   f"%y = arith.mulf %hx, %p : {t}", f"linalg.yield %y : {t}"])
    if stage == "clamp_0d":
        s0 = f"tensor<{t}>"
        smap = idmap.split("->")[0] + "-> ()>"
        return _generic(f"{cur}, {x}lo, {x}hi : {tc}, {s0}, {s0}", f"%e_{t} : {tc}",
                        [idmap, smap, smap, idmap], par, f"%in: {t}, %l: {t}, %h: {t}, %o: {t}",
                        [f"%p = arith.cmpf ult, %in, %l : {t}", f"%y = arith.select %p, %l, %in : {t}",
                         f"%q = arith.cmpf ugt, %y, %h : {t}", f"%z = arith.select %q, %h, %y : {t}",
                         f"linalg.yield %z : {t}"], t, tc, out)
    if stage == "row_scale":
        mmap = idmap.split("->")[0] + f"-> (d{r - 2})>"
        rtype = f"tensor<{m if static else '?'}x{t}>"
        return _generic(f"{cur}, {x} : {tc}, {rtype}", f"%e_{t} : {tc}", [idmap, mmap, idmap], par,
                        f"%in: {t}, %y: {t}, %o: {t}",
                        [f"%s = arith.mulf %in, %y : {t}", f"linalg.yield %s : {t}"], t, tc, out)
    if stage == "silu_graph":
        sg = f"%sg{out[2:]}"
        return (_generic(f"{cur} : {tc}", f"%e_{t} : {tc}", [idmap, idmap], par, f"%in: {t}, %o: {t}",
                         [c("one", "1.0"), f"%ng = arith.negf %in : {t}", f"%ex = math.exp %ng : {t}",
                          f"%d = arith.addf %one, %ex : {t}", f"%y = arith.divf %one, %d : {t}",
                          f"linalg.yield %y : {t}"], t, tc, sg)
                + _generic(f"{cur}, {sg} : {tc}, {tc}", f"%e_{t} : {tc}", [idmap, idmap, idmap], par,
                           f"%in: {t}, %y: {t}, %o: {t}",
                           [f"%s = arith.mulf %in, %y : {t}", f"linalg.yield %s : {t}"], t, tc, out))
    if stage == "leaky_graph":
        k = out[2:]
        s0 = f"tensor<{t}>"
        smap = idmap.split("->")[0] + "-> ()>"
        lines = [f"  %lz{k} = arith.constant dense<0.0> : {s0}"]
        for name, pred in (("mx", "ogt"), ("mn", "olt")):
            lines += _generic(f"%lz{k}, {cur} : {s0}, {tc}", f"%e_{t} : {tc}", [smap, idmap, idmap], par,
                              f"%z: {t}, %in: {t}, %o: {t}",
                              [f"%p = arith.cmpf {pred}, %z, %in : {t}",
                               f"%y = arith.select %p, %z, %in : {t}", f"linalg.yield %y : {t}"],
                              t, tc, f"%{name}{k}")
        lines += _generic(f"%mn{k} : {tc}", f"%e_{t} : {tc}", [idmap, idmap], par, f"%in: {t}, %o: {t}",
                          [c("alpha", "0.01", "f64"), f"%at = arith.truncf %alpha : f64 to {t}",
                           f"%y = arith.mulf %in, %at : {t}", f"linalg.yield %y : {t}"], t, tc, f"%ml{k}")
        return lines + _generic(f"%mx{k}, %ml{k} : {tc}, {tc}", f"%e_{t} : {tc}", [idmap, idmap, idmap],
                                par, f"%x: {t}, %y: {t}, %o: {t}",
                                [f"%s = arith.addf %x, %y : {t}", f"linalg.yield %s : {t}"], t, tc, out)
    if stage == "index_shift":
        return un([f"%i = linalg.index {r - 1} : index", "%ii = arith.index_cast %i : index to i32",
                   f"%f = arith.sitofp %ii : i32 to {t}", f"%y = arith.addf %in, %f : {t}",
                   f"linalg.yield %y : {t}"])
    raise ValueError(stage)


def inputs(p: Program, rng: np.random.Generator):
    """Arguments for the program. A holds integers and B multiples of 1/8 in
    [-2, 2], C_in (C += A*B) integers, so that every product and partial sum
    (|sum| < 256) is exact in f16 and any summation order gives the same
    matmul result; what follows
    the matmul gets arbitrary values (normal, some large, some NaN), so that
    every rounding, clamp and NaN rule of the epilogue shows."""
    arrays = []
    for name, _, shape, dtype in p.args:
        if name == "a":
            v = rng.integers(-2, 3, size=shape)
        elif name == "b":
            v = rng.integers(-16, 17, size=shape) / 8.0
        elif name == "cin":
            # C += A*B: an integer C_in keeps every partial sum exact.
            v = rng.integers(-16, 17, size=shape)
        else:
            v = np.asarray(rng.standard_normal(size=shape) * rng.choice([1.0, 30.0, 3000.0]))
            v[np.asarray(rng.random(size=shape) < 0.02)] = np.nan
        arrays.append(np.asarray(v).astype(dtype))
    return arrays
