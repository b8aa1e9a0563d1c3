"""Adversarial programs for differential testing.

programs.py draws the forms front ends emit; this generator draws the forms
a compiler gets wrong at the edges, ten classes of them, each program with
the expectation that it must meet (test_adversarial.py checks them):

  1 inplace    in-place consumer chains (outs(%biased), outs(%mm), ...):
               rewritten, every consumer fused, bit for bit
  2 signzero   -0.0 fills and inits, -0.0 inputs and products, K = 0,
               consumers that show the sign (1/x, copysign, compares):
               rewritten, bit for bit
  3 aliasinit  an init that is a view of A's or B's buffer (memref casts,
               subviews, reinterpret_casts, reshapes; tensor casts, slices,
               reshapes): bit for bit (every argument buffer for memrefs)
  4 device     matmuls in a gpu.launch body or a gpu.func: left as linalg by
               gpupoor-split-k; gpupoor-to-cubin and the CPU pipeline
               do not crash
  5 encoding   tensors with a sparse or an arbitrary encoding: left alone,
               no crash
  6 wideint    epilogues through i128, i65, i7 integers: rewritten, bit for
               bit; gpupoor-to-cubin does not abort
  7 huge       static shapes whose element or tile counts overflow: a clean
               diagnostic from gpupoor-to-cubin; no crash anywhere
  8 bcastbatch batch_matmul with a broadcast operand, dynamic batch and M:
               bit for bit; gpupoor-to-cubin + gpupoor-host-to-llvm do not
               crash
  9 attrs      gpupoor.splits / gpupoor.slices of unsigned and odd-width
               types: honoured in range (bit for bit), a diagnostic out of
               range
 10 memspace   memrefs in a non-default memory space: not rewritten or
               correct; the CPU pipeline never prints an error and exits 0

A Case carries the source, its arguments (as programs.Program does), and
`checks`, the names of what test_adversarial.check verifies.
"""

import random

import numpy as np

from adversarial_ir import (
    Case,
    _SIMPLE,
    _Matmul,
    _generic,
    _idmap,
    _maps,
    _mt,
    _np,
    _options,
    _rowmap,
    _tt)
from adversarial_types import gen_attrs, gen_bcastbatch, gen_huge, gen_memspace, gen_wideint

CLASSES = {1: "inplace", 2: "signzero", 3: "aliasinit", 4: "device", 5: "encoding",
           6: "wideint", 7: "huge", 8: "bcastbatch", 9: "attrs", 10: "memspace"}


def gen_inplace(rng):
    mm = _Matmul(rng, init=rng.choice(["zero", "zero", "cin", "out"]))
    mm.frame()
    t, tc, r = mm.t, mm.tc, mm.r
    idm, rowm = _idmap(r), _rowmap(r)
    chain = ["%v0"]
    forms = []
    nstages = rng.choice([1, 2, 2, 3, 3, 4])
    for si in range(nstages):
        stage = rng.choice(list(_SIMPLE))
        lines_of, extra = _SIMPLE[stage]
        cur = chain[-1]
        # Where the stage writes: a fresh tensor, the value it reads (in
        # place), an earlier value of the chain, the matmul's result.
        dest = rng.choice(["fresh", "cur", "cur", "cur_init", "earlier", "mm"])
        if dest == "earlier" and len(chain) < 2:
            dest = "cur"
        out = f"%v{si + 1}"
        ins, maps, bargs = [], [], []
        if dest == "cur_init":
            # The value comes in through the init: ins() holds only the extra.
            outs_v = cur
        else:
            ins.append((cur, tc))
            maps.append(idm)
            bargs.append(f"%x: {t}")
            outs_v = {"fresh": f"%e_{t}", "cur": cur, "mm": "%v0"}.get(dest) or rng.choice(chain[:-1])
        if extra == "bias":
            bt = f"tensor<{mm.n if mm.static else '?'}x{t}>"
            mm.params.append(f"%x{si}: {bt}")
            mm.args.append((f"x{si}", "any", (mm.n,), _np(t)))
            ins.append((f"%x{si}", bt))
            maps.append(rowm)
            bargs.append(f"%w: {t}")
        elif extra == "full":
            mm.params.append(f"%x{si}: {tc}")
            mm.args.append((f"x{si}", "any", mm.c_shape, _np(t)))
            ins.append((f"%x{si}", tc))
            maps.append(idm)
            bargs.append(f"%w: {t}")
        maps.append(idm)
        bargs.append(f"%x: {t}" if dest == "cur_init" else f"%o: {t}")
        mm.body += _generic(out, ins, [(outs_v, tc)], maps, r, ", ".join(bargs),
                            lines_of(t) + [f"linalg.yield %y : {t}"], tc)
        chain.append(out)
        forms.append(f"{stage}->{dest}")
    src = mm.finish(chain[-1])
    # Each stage reads the chain's value (through ins, or as its init) and
    # nothing else of the chain: all of them fuse, whatever they write into.
    checks = ("rewritten", "fused", "bitwise")
    return Case(1, "/".join(forms), src, mm.args, mm.c_shape, _np(t), out_init=(
        "cin" if mm.init == "out" else None), checks=checks, unfused_ops=0,
        options=_options(rng), description=mm.describe())


# --------------------------------------------------------------------------
# 2: signed zeros
# --------------------------------------------------------------------------

_NEGZERO = {"f16": ["-0.0", "-0.000000e+00", "0x8000"], "f32": ["-0.0", "-0.000000e+00", "0x80000000"]}


def _signzero_stage(name, t):
    one, z = f"%one = arith.constant 1.0 : {t}", f"%zz = arith.constant 0.0 : {t}"
    return {
        "recip": [one, f"%y = arith.divf %one, %x : {t}"],
        "copysign": [one, f"%y = math.copysign %one, %x : {t}"],
        "signcmp": [one, z, f"%m1 = arith.constant -1.0 : {t}", f"%p = arith.cmpf olt, %x, %zz : {t}",
                    f"%rx = arith.divf %one, %x : {t}", f"%q = arith.cmpf olt, %rx, %zz : {t}",
                    "%pq = arith.ori %p, %q : i1", f"%y = arith.select %pq, %m1, %one : {t}"],
        "neg": [f"%y = arith.negf %x : {t}"],
        "mul_negzero_bias": [f"%y = arith.addf %x, %w : {t}"],
    }[name]


def gen_signzero(rng):
    init = rng.choice(["negzero", "negzero", "negzero", "zero", "cin", "out"])
    k = rng.choice([0, 0, 1, 2, 3, 8, 16, 17, rng.randint(1, 64)])
    mm = _Matmul(rng, init="zero" if init == "negzero" else init, k=k, max_mn=12)
    t = mm.t
    zero = rng.choice(_NEGZERO[t]) if init == "negzero" else "0.0"
    mm.frame(zero=zero)
    tc, r = mm.tc, mm.r
    cur, forms = "%v0", []
    for si in range(rng.choice([0, 1, 1, 2])):
        # Not max_negzero and min_poszero: upstream's arith-expand lowers
        # maximumf / minimumf to a compare and a select that treat -0.0 as
        # +0.0 (against arith's own semantics, which its constant folder
        # follows), so a product that folds (static K = 0) and the reference
        # differ on the sign of a zero whoever is right.
        st = rng.choice(["recip", "copysign", "signcmp", "neg", "mul_negzero_bias"])
        ins, maps, bargs = [(cur, tc)], [_idmap(r)], [f"%x: {t}"]
        if st == "mul_negzero_bias":
            bt = f"tensor<{mm.n if mm.static else '?'}x{t}>"
            mm.params.append(f"%x{si}: {bt}")
            mm.args.append((f"x{si}", "zeros", (mm.n,), _np(t)))
            ins.append((f"%x{si}", bt))
            maps.append(_rowmap(r))
            bargs.append(f"%w: {t}")
        maps.append(_idmap(r))
        bargs.append(f"%o: {t}")
        out = f"%v{si + 1}"
        mm.body += _generic(out, ins, [(f"%e_{t}", tc)], maps, r, ", ".join(bargs),
                            _signzero_stage(st, t) + [f"linalg.yield %y : {t}"], tc)
        cur = out
        forms.append(st)
    src = mm.finish(cur)
    return Case(2, f"init={init}:{zero} K={k} " + "/".join(forms), src, mm.args, mm.c_shape, _np(t),
                out_init="cin" if init == "out" else None, checks=("rewritten", "bitwise"),
                options=_options(rng), inputs="signzero", description=mm.describe())


# --------------------------------------------------------------------------
# 3: an init that is a view of A's or B's buffer
# --------------------------------------------------------------------------

def gen_aliasinit(rng):
    if rng.random() < 0.55:
        return _alias_memref(rng)
    return _alias_tensor(rng)


def _alias_memref(rng):
    form = rng.choice(["same", "cast", "subview", "reinterpret", "expand", "collapse"])
    of = rng.choice(["a", "b"])
    m, n, k = rng.randint(1, 12), rng.randint(1, 12), rng.randint(1, 24)
    # Shapes the view needs: C is M x N, A is M x K, B is K x N.
    if form in ("same", "cast", "expand", "collapse"):
        if of == "a":
            k = n
        else:
            k = m
    elif form == "subview":
        if of == "a":
            k = max(k, n)
        else:
            k = max(k, m)
    elif form == "reinterpret":
        if of == "a":
            k = max(k, n)
        else:
            k = max(k, (m * n + n - 1) // n)
    fill = rng.random() < 0.3
    lines = []
    three = form == "collapse"
    sa, sb = ((1, m, k), (1, k, n)) if three else ((m, k), (k, n))
    ta, tb = _mt(sa, "f16"), _mt(sb, "f16")
    params = [f"%a: {ta}", f"%b: {tb}"]
    args = [("a", "a", sa, np.float16), ("b", "b", sb, np.float16)]
    src_v, src_t, src_shape = ("%a", ta, sa) if of == "a" else ("%b", tb, sb)
    tcs = _mt((m, n), "f16")
    if form == "same":
        view, vt = src_v, src_t
    elif form == "cast":
        vt = _mt((m, n), "f16", dyn=True)
        lines.append(f"  %view = memref.cast {src_v} : {src_t} to {vt}")
        view = "%view"
    elif form == "subview":
        if of == "a":
            o = rng.randint(0, k - n)
            vt = _mt((m, n), "f16", layout=f"strided<[{k}, 1], offset: {o}>")
            lines.append(f"  %view = memref.subview %a[0, {o}] [{m}, {n}] [1, 1] : {ta} to {vt}")
        else:
            o = rng.randint(0, k - m)
            vt = _mt((m, n), "f16", layout=f"strided<[{n}, 1], offset: {o * n}>")
            lines.append(f"  %view = memref.subview %b[{o}, 0] [{m}, {n}] [1, 1] : {tb} to {vt}")
        view = "%view"
    elif form == "reinterpret":
        total = m * k if of == "a" else k * n
        o = rng.randint(0, total - m * n)
        vt = _mt((m, n), "f16", layout=f"strided<[{n}, 1], offset: {o}>")
        lines.append(f"  %view = memref.reinterpret_cast {src_v} to offset: [{o}], sizes: [{m}, {n}], "
                     f"strides: [{n}, 1] : {src_t} to {vt}")
        view = "%view"
    if form == "expand":
        # batch_matmul of 1 x M x K and 1 x K x N, the init a reshape of A or B.
        ta3, tb3, tc3 = _mt((1, m, k), "f16"), _mt((1, k, n), "f16"), _mt((1, m, n), "f16")
        lines += [f"  %a3 = memref.expand_shape %a [[0, 1], [2]] output_shape [1, {m}, {k}] : {ta} into {ta3}",
                  f"  %b3 = memref.expand_shape %b [[0, 1], [2]] output_shape [1, {k}, {n}] : {tb} into {tb3}",
                  f"  %view = memref.expand_shape {src_v} [[0, 1], [2]] output_shape [1, {m}, {n}] "
                  f": {src_t} into {tc3}"]
        if fill:
            lines += ["  %zero = arith.constant 0.0 : f16",
                      f"  linalg.fill ins(%zero : f16) outs(%view : {tc3})"]
        lines.append(f"  linalg.batch_matmul ins(%a3, %b3 : {ta3}, {tb3}) outs(%view : {tc3})")
    elif form == "collapse":
        ta2, tb2 = _mt((m, k), "f16"), _mt((k, n), "f16")
        lines += [f"  %a2 = memref.collapse_shape %a [[0, 1], [2]] : {ta} into {ta2}",
                  f"  %b2 = memref.collapse_shape %b [[0, 1], [2]] : {tb} into {tb2}",
                  f"  %view = memref.collapse_shape {src_v} [[0, 1], [2]] : {src_t} into {tcs}"]
        if fill:
            lines += ["  %zero = arith.constant 0.0 : f16",
                      f"  linalg.fill ins(%zero : f16) outs(%view : {tcs})"]
        lines.append(f"  linalg.matmul ins(%a2, %b2 : {ta2}, {tb2}) outs(%view : {tcs})")
    else:
        if fill:
            lines += ["  %zero = arith.constant 0.0 : f16",
                      f"  linalg.fill ins(%zero : f16) outs({view} : {vt})"]
        lines.append(f"  linalg.matmul ins(%a, %b : {ta}, {tb}) outs({view} : {vt})")
    src = (f"func.func @kernel({', '.join(params)}) {{\n" + "\n".join(lines) + "\n  return\n}\n")
    return Case(3, f"memref {form} of {of}{' after fill' if fill else ''}", src, args, None,
                compare_args=True, checks=("split_ok", "bitwise"), options=_options(rng),
                description=f"M={m} N={n} K={k}")


def _alias_tensor(rng):
    form = rng.choice(["cast", "slice", "expand", "collapse"])
    of = rng.choice(["a", "b"])
    m, n, k = rng.randint(1, 12), rng.randint(1, 12), rng.randint(1, 24)
    k = (n if of == "a" else m) if form != "slice" else max(k, n if of == "a" else m)
    three = form == "collapse"
    sa, sb = ((1, m, k), (1, k, n)) if three else ((m, k), (k, n))
    ta, tb = _tt(sa, "f16"), _tt(sb, "f16")
    params = [f"%a: {ta}", f"%b: {tb}"]
    args = [("a", "a", sa, np.float16), ("b", "b", sb, np.float16)]
    src_v, src_t = ("%a", ta) if of == "a" else ("%b", tb)
    lines = []
    out_shape = (m, n)
    if form == "cast":
        vt = _tt((m, n), "f16", dyn=True)
        lines.append(f"  %view = tensor.cast {src_v} : {src_t} to {vt}")
        lines.append(f"  %r = linalg.matmul ins(%a, %b : {ta}, {tb}) outs(%view : {vt}) -> {vt}")
        rt, mt = vt, _mt((m, n), "f16", dyn=True)
    elif form == "slice":
        vt = _tt((m, n), "f16")
        if of == "a":
            o = rng.randint(0, k - n)
            lines.append(f"  %view = tensor.extract_slice %a[0, {o}] [{m}, {n}] [1, 1] : {ta} to {vt}")
        else:
            o = rng.randint(0, k - m)
            lines.append(f"  %view = tensor.extract_slice %b[{o}, 0] [{m}, {n}] [1, 1] : {tb} to {vt}")
        lines.append(f"  %r = linalg.matmul ins(%a, %b : {ta}, {tb}) outs(%view : {vt}) -> {vt}")
        rt, mt = vt, _mt((m, n), "f16")
    elif form == "expand":
        ta3, tb3, vt = _tt((1, m, k), "f16"), _tt((1, k, n), "f16"), _tt((1, m, n), "f16")
        lines += [f"  %a3 = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, {m}, {k}] : {ta} into {ta3}",
                  f"  %b3 = tensor.expand_shape %b [[0, 1], [2]] output_shape [1, {k}, {n}] : {tb} into {tb3}",
                  f"  %view = tensor.expand_shape {src_v} [[0, 1], [2]] output_shape [1, {m}, {n}] "
                  f": {src_t} into {vt}",
                  f"  %r = linalg.batch_matmul ins(%a3, %b3 : {ta3}, {tb3}) outs(%view : {vt}) -> {vt}"]
        rt, mt, out_shape = vt, _mt((1, m, n), "f16"), (1, m, n)
    else:
        ta2, tb2, vt = _tt((m, k), "f16"), _tt((k, n), "f16"), _tt((m, n), "f16")
        lines += [f"  %a2 = tensor.collapse_shape %a [[0, 1], [2]] : {ta} into {ta2}",
                  f"  %b2 = tensor.collapse_shape %b [[0, 1], [2]] : {tb} into {tb2}",
                  f"  %view = tensor.collapse_shape {src_v} [[0, 1], [2]] : {src_t} into {vt}",
                  f"  %r = linalg.matmul ins(%a2, %b2 : {ta2}, {tb2}) outs(%view : {vt}) -> {vt}"]
        rt, mt = vt, _mt((m, n), "f16")
    cur = "%r"
    if rng.random() < 0.4:
        # Reads the view again after the matmul: an in-place product into
        # A's buffer would show here.
        rr = len(out_shape)
        lines += [f"  %e2 = tensor.empty() : {_tt(out_shape, 'f16')}"]
        lines += _generic("%s", [("%r", rt), ("%view", rt)], [("%e2", _tt(out_shape, "f16"))],
                          [_idmap(rr)] * 3, rr, "%x: f16, %y: f16, %o: f16",
                          ["%q = arith.addf %x, %y : f16", "linalg.yield %q : f16"], _tt(out_shape, "f16"))
        cur, rt = "%s", _tt(out_shape, "f16")
        mt = _mt(out_shape, "f16")
        form += "+reread"
    params.append(f"%out: {mt}")
    lines.append(f"  bufferization.materialize_in_destination {cur} in restrict writable %out : ({rt}, {mt}) -> ()")
    src = (f"func.func @kernel({', '.join(params)}) {{\n" + "\n".join(lines) + "\n  return\n}\n")
    return Case(3, f"tensor {form} of {of}", src, args, out_shape, np.float16,
                checks=("split_ok", "bitwise"), options=_options(rng), description=f"M={m} N={n} K={k}")


# --------------------------------------------------------------------------
# 4: matmuls in device code
# --------------------------------------------------------------------------

def gen_device(rng):
    where = rng.choice(["launch", "launch", "gpu.func", "gpu.func.device", "launch_tensor"])
    batched = rng.random() < 0.2
    nk = rng.random() < 0.3
    dyn = rng.random() < 0.3
    t = rng.choice(["f16", "f32"])
    m, n, k = rng.choice([16, 32, 64, 33]), rng.choice([16, 32, 8, 65]), rng.choice([16, 64, 128, 17])
    lead = (2,) if batched else ()
    sa, sb, sc = lead + (m, k), lead + ((n, k) if nk else (k, n)), lead + (m, n)
    ta, tb, tc = _mt(sa, "f16", dyn), _mt(sb, "f16", dyn), _mt(sc, t, dyn)
    op = "linalg.batch_matmul" if batched else "linalg.matmul"
    maps = _maps(batched, False, nk)
    fill = rng.random() < 0.7
    epi = rng.random() < 0.4
    r = len(sc)
    inner = []
    if where == "launch_tensor":
        tta, ttb, ttc = _tt(sa, "f16", dyn), _tt(sb, "f16", dyn), _tt(sc, t, dyn)
        inner += [f"%ta = bufferization.to_tensor %a restrict : {ta} to {tta}",
                  f"%tb = bufferization.to_tensor %b restrict : {tb} to {ttb}",
                  f"%tc = bufferization.to_tensor %c restrict writable : {tc} to {ttc}"]
        init = "%tc"
        if fill:
            inner += [f"%zero = arith.constant 0.0 : {t}",
                      f"%tf = linalg.fill ins(%zero : {t}) outs(%tc : {ttc}) -> {ttc}"]
            init = "%tf"
        inner.append(f"%tr = {op}{maps} ins(%ta, %tb : {tta}, {ttb}) outs({init} : {ttc}) -> {ttc}")
        inner.append(f"bufferization.materialize_in_destination %tr in restrict writable %c "
                     f": ({ttc}, {tc}) -> ()")
    else:
        if fill:
            inner += [f"%zero = arith.constant 0.0 : {t}", f"linalg.fill ins(%zero : {t}) outs(%c : {tc})"]
        inner.append(f"{op}{maps} ins(%a, %b : {ta}, {tb}) outs(%c : {tc})")
        if epi:
            g = _generic(None, [], [("%c", tc)], [_idmap(r)], r, f"%x: {t}",
                         [f"%z = arith.constant 0.0 : {t}", f"%y = arith.maximumf %x, %z : {t}",
                          f"linalg.yield %y : {t}"], None)
            inner += [l.strip() for l in g[:1]] + g[1:]
    params = f"%a: {ta}, %b: {tb}, %c: {tc}"
    ind = "      "
    if where.startswith("launch"):
        body = "\n".join(ind + l for l in inner)
        src = (f"func.func @kernel({params}) {{\n"
               f"  %one = arith.constant 1 : index\n"
               f"  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one) "
               f"threads(%tx, %ty, %tz) in (%sx = %one, %sy = %one, %sz = %one) {{\n"
               f"{body}\n      gpu.terminator\n  }}\n  return\n}}\n")
    else:
        kernel = " kernel" if where == "gpu.func" else ""
        body = "\n".join(ind + l for l in inner)
        src = (f"module attributes {{gpu.container_module}} {{\n  gpu.module @kernels {{\n"
               f"    gpu.func @device({params}){kernel} {{\n{body}\n      gpu.return\n    }}\n  }}\n"
               f"  func.func @host() {{\n    return\n  }}\n}}\n")
    return Case(4, f"{where} {'batch ' if batched else ''}{'nk ' if nk else ''}{'dyn ' if dyn else ''}"
                   f"{'fill ' if fill else ''}{'relu ' if epi else ''}{t}", src,
                checks=("left_alone", "cubin_ok", "cpu_nocrash"), options=_options(rng))


# --------------------------------------------------------------------------
# 5: encodings
# --------------------------------------------------------------------------

_ENCODINGS = [
    "#sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>",
    "#sparse_tensor.encoding<{map = (d0, d1) -> (d0 : compressed, d1 : compressed)}>",
    "#sparse_tensor.encoding<{map = (d0, d1) -> (d1 : dense, d0 : compressed)}>",
    "#sparse_tensor.encoding<{map = (d0, d1) -> (d0 : compressed(nonunique), d1 : singleton)}>",
    '"foo"',
    '{layout = "tiled", n = 4 : i64}',
    "7 : i32",
    "[1, 2]",
    "unit",
]


def gen_encoding(rng):
    where = rng.choice(["a", "b", "c", "ac", "abc"])
    enc = rng.choice(_ENCODINGS)
    t = rng.choice(["f16", "f32"])
    dyn = rng.random() < 0.3
    nk = rng.random() < 0.3
    m, n, k = rng.randint(1, 64), rng.randint(1, 64), rng.randint(1, 128)
    sa, sb, sc = (m, k), ((n, k) if nk else (k, n)), (m, n)
    ta = _tt(sa, "f16", dyn, enc if "a" in where else None)
    tb = _tt(sb, "f16", dyn, enc if "b" in where else None)
    tc = _tt(sc, t, dyn, enc if "c" in where else None)
    lines = []
    init_form = rng.choice(["arg", "fill"])
    if init_form == "fill":
        dims = ""
        if dyn:
            lines += ["  %i0 = arith.constant 0 : index", "  %i1 = arith.constant 1 : index",
                      f"  %dm = tensor.dim %a, %i0 : {ta}", f"  %dn = tensor.dim %b, %i{0 if nk else 1} : {tb}"]
            dims = "%dm, %dn"
        lines += [f"  %e = tensor.empty({dims}) : {tc}", f"  %zero = arith.constant 0.0 : {t}",
                  f"  %init = linalg.fill ins(%zero : {t}) outs(%e : {tc}) -> {tc}"]
        init = "%init"
    else:
        init = "%c"
    lines.append(f"  %r = linalg.matmul{_maps(False, False, nk)} ins(%a, %b : {ta}, {tb}) "
                 f"outs({init} : {tc}) -> {tc}")
    cur = "%r"
    if rng.random() < 0.4:
        lines += _generic("%s", [("%r", tc)], [(init, tc)], [_idmap(2)] * 2, 2, f"%x: {t}, %o: {t}",
                          [f"%z = arith.constant 0.0 : {t}", f"%y = arith.maximumf %x, %z : {t}",
                           f"linalg.yield %y : {t}"], tc)
        cur = "%s"
    params = f"%a: {ta}, %b: {tb}" + (f", %c: {tc}" if init == "%c" else "")
    src = (f"func.func @kernel({params}) -> {tc} {{\n" + "\n".join(lines) + f"\n  return {cur} : {tc}\n}}\n")
    return Case(5, f"{enc} on {where} init={init_form}", src,
                checks=("left_alone_or_error", "cubin_ok", "cpu_nocrash"), options=_options(rng))


# --------------------------------------------------------------------------
# 6: wide integers in the epilogue
# --------------------------------------------------------------------------



GENERATORS = {1: gen_inplace, 2: gen_signzero, 3: gen_aliasinit, 4: gen_device, 5: gen_encoding,
              6: gen_wideint, 7: gen_huge, 8: gen_bcastbatch, 9: gen_attrs, 10: gen_memspace}


def generate(rng: random.Random, cls: int) -> Case:
    return GENERATORS[cls](rng)


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

def _signed_zeros(v, rng):
    """Gives each zero of `v` (a float array) a random sign."""
    v = np.array(v, dtype=np.float64)
    neg = (v == 0) & (rng.random(size=v.shape) < 0.5)
    v[neg] = -0.0
    return v


def _lines(v, axis, rng, choices):
    """Sets whole lines of `v` along `axis` (rows of A, columns of B) by
    one of `choices`, each line with probability 0.4."""
    moved = np.moveaxis(v, axis, -1)
    pick = rng.random(size=moved.shape[:-1]) < 0.4
    for idx in zip(*np.nonzero(pick)):
        how = choices[rng.integers(len(choices))]
        line = moved[idx]
        if how == "+0":
            line[:] = 0.0
        elif how == "-0":
            line[:] = -0.0
        elif how == "neg":
            line[:] = -np.abs(line) - 0.125
        elif how == "pos":
            line[:] = np.abs(line) + 0.125
    return v


def inputs(case: Case, rng: np.random.Generator):
    """Arguments for the case: A integers in [-2, 2], B multiples of 1/8 in
    [-2, 2], C_in integers (every sum exact in any order); with the
    "signzero" recipe, zeros of both signs, whole rows of A of +0.0 or
    -0.0, whole columns of B of one sign or zero, so that products and whole
    sums are -0.0; the other arguments normal, large and NaN values (-0.0
    and +0.0 for "zeros")."""
    arrays = []
    sz = case.inputs == "signzero"
    extra = [("out", case.out_init, case.out_shape, case.out_dtype)] if case.out_init else []
    for name, kind, shape, dtype in case.args + extra:
        if kind in ("a", "a_km"):
            v = rng.integers(-2, 3, size=shape).astype(np.float64)
            if sz:
                v = _signed_zeros(v, rng)
                if len(shape) >= 2:
                    # A row i: a[..., i, :] (a[..., :, i] when A is K x M).
                    v = _lines(v, -1 if kind == "a" else -2, rng, ["+0", "-0"])
        elif kind in ("b", "b_nk"):
            v = rng.integers(-16, 17, size=shape) / 8.0
            if sz:
                v = _signed_zeros(v, rng)
                if len(shape) >= 2:
                    # B column j: b[..., :, j] (b[..., j, :] when B is N x K).
                    v = _lines(v, -2 if kind == "b" else -1, rng, ["+0", "-0", "neg", "pos"])
        elif kind == "cin":
            v = rng.integers(-16, 17, size=shape).astype(np.float64)
            if sz:
                v[rng.random(size=shape) < 0.5] = 0
                v = _signed_zeros(v, rng)
        elif kind == "zeros":
            v = _signed_zeros(np.zeros(shape), rng)
        else:
            v = np.asarray(rng.standard_normal(size=shape) * rng.choice([1.0, 30.0, 3000.0]))
            v[np.asarray(rng.random(size=shape) < 0.02)] = np.nan
        arrays.append(np.asarray(v).astype(dtype))
    return arrays

