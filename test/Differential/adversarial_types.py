"""Adversarial classes 6 to 10 (adversarial.py lists them all): wide
integers in epilogues, huge static shapes, broadcast batches, odd-typed
split attributes, memory spaces.
"""


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

def _wide_stage(name, t):
    bits = 16 if t == "f16" else 32
    it = f"i{bits}"
    return {
        "fptosi_i128": [f"%i = arith.fptosi %x : {t} to i128", f"%y = arith.sitofp %i : i128 to {t}"],
        "ext_trunc_i128": [f"%i = arith.fptosi %x : {t} to i32", "%w = arith.extsi %i : i32 to i128",
                           "%sh = arith.constant 70 : i128", "%l = arith.shli %w, %sh : i128",
                           "%rr = arith.shrsi %l, %sh : i128", "%n = arith.trunci %rr : i128 to i32",
                           f"%y = arith.sitofp %n : i32 to {t}"],
        "i65_mul": [f"%i = arith.fptosi %x : {t} to i65", "%three = arith.constant 3 : i65",
                    "%p = arith.muli %i, %three : i65", f"%y = arith.sitofp %p : i65 to {t}"],
        "i7_wrap": [f"%i = arith.fptosi %x : {t} to i65", "%n = arith.trunci %i : i65 to i7",
                    "%w = arith.extsi %n : i7 to i32", f"%y = arith.sitofp %w : i32 to {t}"],
        "i7_uitofp": [f"%i = arith.fptosi %x : {t} to i128", "%n = arith.trunci %i : i128 to i7",
                      f"%y = arith.uitofp %n : i7 to {t}"],
        "bits_i128": [f"%i = arith.bitcast %x : {t} to {it}", f"%w = arith.extui %i : {it} to i128",
                      "%sh = arith.constant 100 : i128", "%l = arith.shli %w, %sh : i128",
                      "%rr = arith.shrui %l, %sh : i128", f"%n = arith.trunci %rr : i128 to {it}",
                      f"%y = arith.bitcast %n : {it} to {t}"],
        "cmp_i128": [f"%i = arith.fptosi %x : {t} to i128", "%z = arith.constant 0 : i128",
                     "%p = arith.cmpi slt, %i, %z : i128", "%s = arith.select %p, %z, %i : i128",
                     f"%y = arith.sitofp %s : i128 to {t}"],
        "i128_const": [f"%i = arith.fptosi %x : {t} to i128",
                       "%big = arith.constant 170141183460469231731687303715884105727 : i128",
                       "%s = arith.addi %i, %big : i128", "%d = arith.subi %s, %big : i128",
                       f"%y = arith.sitofp %d : i128 to {t}"],
        "i1_wide": [f"%zf = arith.constant 0.0 : {t}", f"%p = arith.cmpf ogt, %x, %zf : {t}",
                    "%e = arith.extui %p : i1 to i65", f"%y = arith.uitofp %e : i65 to {t}"],
    }[name]


def gen_wideint(rng):
    mm = _Matmul(rng, init=rng.choice(["zero", "zero", "cin"]))
    mm.frame()
    t, tc, r = mm.t, mm.tc, mm.r
    cur, forms = "%v0", []
    n_wide = rng.choice([1, 1, 2])
    for si in range(n_wide + rng.choice([0, 0, 1])):
        st = (rng.choice(["fptosi_i128", "ext_trunc_i128", "i65_mul", "i7_wrap", "i7_uitofp", "bits_i128",
                          "cmp_i128", "i128_const", "i1_wide"]) if si < n_wide else
              rng.choice(["relu", "scale"]))
        lines = _wide_stage(st, t) if si < n_wide else _SIMPLE[st][0](t)
        out = f"%v{si + 1}"
        mm.body += _generic(out, [(cur, tc)], [(f"%e_{t}", tc)], [_idmap(r)] * 2, r, f"%x: {t}, %o: {t}",
                            lines + [f"linalg.yield %y : {t}"], tc)
        cur = out
        forms.append(st)
    src = mm.finish(cur)
    return Case(6, "/".join(forms), src, mm.args, mm.c_shape, _np(t),
                checks=("rewritten", "bitwise", "cubin_ok"), options=_options(rng),
                description=mm.describe())


# --------------------------------------------------------------------------
# 7: huge static shapes
# --------------------------------------------------------------------------

INT64_MAX = (1 << 63) - 1


def gen_huge(rng):
    form = rng.choice(["mn2^40", "mn2^24", "m2^62", "batch2^33", "batch2^40", "k2^40", "mnk2^31",
                       "batch70000", "mn2^16"])
    batched = form.startswith("batch")
    m, n, k, bt = 64, 64, 64, None
    if form == "mn2^40":
        m = n = 1 << 40
    elif form == "mn2^24":
        m = n = 1 << 24
    elif form == "m2^62":
        m = 1 << 62
    elif form == "batch2^33":
        bt, m, n = 1 << 33, 128, 128
    elif form == "batch2^40":
        bt, m, n = 1 << 40, 4096, 4096
    elif form == "k2^40":
        k = 1 << 40
    elif form == "mnk2^31":
        m = n = k = 1 << 31
    elif form == "batch70000":
        bt = 70000
    elif form == "mn2^16":
        m = n = 1 << 16
    if rng.random() < 0.3 and not batched:
        m, n = rng.choice([(m, rng.choice([1, 16, 4096])), (rng.choice([1, 16, 4096]), n)])
    nk = rng.random() < 0.5
    t = rng.choice(["f16", "f32"])
    lead = (bt,) if batched else ()
    sa, sb, sc = lead + (m, k), lead + ((n, k) if nk else (k, n)), lead + (m, n)
    elements = max(np.prod(sa, dtype=object), np.prod(sb, dtype=object), np.prod(sc, dtype=object))
    # Tiles of at most 256 x 256 (the largest tile): a lower bound.
    tiles = (bt or 1) * -(-m // 256) * -(-n // 256)
    overflow = elements * 4 > INT64_MAX or tiles > (1 << 31) - 1
    ta, tb, tc = _tt(sa, "f16"), _tt(sb, "f16"), _tt(sc, t)
    op = "linalg.batch_matmul" if batched else "linalg.matmul"
    bias = rng.random() < 0.4
    lines = [f"  %e = tensor.empty() : {tc}", f"  %zero = arith.constant 0.0 : {t}",
             f"  %f = linalg.fill ins(%zero : {t}) outs(%e : {tc}) -> {tc}",
             f"  %r = {op}{_maps(batched, False, nk)} ins(%a, %b : {ta}, {tb}) outs(%f : {tc}) -> {tc}"]
    cur = "%r"
    r = len(sc)
    params = [f"%a: {ta}", f"%b: {tb}"]
    if bias:
        params.append(f"%bias: tensor<{n}x{t}>")
        lines += _generic("%s", [("%r", tc), ("%bias", f"tensor<{n}x{t}>")], [("%e", tc)],
                          [_idmap(r), _rowmap(r), _idmap(r)], r, f"%x: {t}, %y: {t}, %o: {t}",
                          [f"%q = arith.addf %x, %y : {t}", f"linalg.yield %q : {t}"], tc)
        cur = "%s"
    mc = _mt(sc, t)
    params.append(f"%out: {mc}")
    lines.append(f"  bufferization.materialize_in_destination {cur} in restrict writable %out : ({tc}, {mc}) -> ()")
    src = f"func.func @kernel({', '.join(params)}) {{\n" + "\n".join(lines) + "\n  return\n}\n"
    checks = ("split_nocrash", "cpu_nocrash", "cubin_diag" if overflow else "cubin_ok")
    return Case(7, f"{form} {sc}x{k}{' nk' if nk else ''}{' bias' if bias else ''} {t}"
                   f"{' (overflows)' if overflow else ''}", src, checks=checks, options=_options(rng))


# --------------------------------------------------------------------------
# 8: batch_matmul with a broadcast operand
# --------------------------------------------------------------------------

def gen_bcastbatch(rng):
    form = rng.choice(["broadcast_b", "broadcast_b", "map_b", "map_b", "broadcast_a", "map_a"])
    t = rng.choice(["f16", "f32"])
    # (upstream's batch_matmul takes a broadcast B map (k, n) only)
    nk = rng.random() < 0.35 and not form.startswith("map")
    dyn_b, dyn_m = rng.random() < 0.6, rng.random() < 0.6
    dyn_nk = rng.random() < 0.3
    bt, m, n, k = rng.randint(1, 4), rng.randint(1, 24), rng.randint(1, 24), rng.randint(1, 64)
    bcast_a = form.endswith("_a")
    s = lambda v, d: "?" if d else str(v)
    sb_, sm_, sn_, sk_ = s(bt, dyn_b), s(m, dyn_m), s(n, dyn_nk), s(k, dyn_nk)
    a3 = f"tensor<{sb_}x{sm_}x{sk_}xf16>"
    a2 = f"tensor<{sm_}x{sk_}xf16>"
    b3 = f"tensor<{sb_}x{sn_ + 'x' + sk_ if nk else sk_ + 'x' + sn_}xf16>"
    b2 = f"tensor<{sn_ + 'x' + sk_ if nk else sk_ + 'x' + sn_}xf16>"
    tc = f"tensor<{sb_}x{sm_}x{sn_}x{t}>"
    mc = f"memref<{sb_}x{sm_}x{sn_}x{t}>"
    sa = (m, k) if bcast_a else (bt, m, k)
    sbs = ((n, k) if nk else (k, n))
    sbs = sbs if not bcast_a else (bt,) + sbs
    params = [f"%a: {a2 if bcast_a else a3}", f"%b: {b3 if bcast_a else b2}"]
    args = [("a", "a", sa, np.float16), ("b", "b", sbs, np.float16)]
    lines = ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
             "  %c2 = arith.constant 2 : index"]
    # The batch comes from the operand that has it; M from A; N from B.
    full, fullt = ("%b", b3) if bcast_a else ("%a", a3)
    dims = []
    if dyn_b:
        lines.append(f"  %db = tensor.dim {full}, %c0 : {fullt}")
        dims.append("%db")
    if dyn_m:
        lines.append(f"  %dm = tensor.dim %a, %c{0 if bcast_a else 1} : {params[0].split(': ')[1]}")
        dims.append("%dm")
    if dyn_nk:
        bty = params[1].split(": ")[1]
        nd = (0 if nk else 1) + (1 if bcast_a else 0)
        kd = (1 if nk else 0) + (1 if bcast_a else 0)
        lines.append(f"  %dn = tensor.dim %b, %c{nd} : {bty}")
        dims.append("%dn")
    lines += [f"  %e = tensor.empty({', '.join(dims)}) : {tc}", f"  %zero = arith.constant 0.0 : {t}",
              f"  %f = linalg.fill ins(%zero : {t}) outs(%e : {tc}) -> {tc}"]
    if form.startswith("broadcast"):
        # linalg.broadcast of the rank-2 operand along the batch.
        if bcast_a:
            edims = [d for d in (["%db"] if dyn_b else []) + (["%dm"] if dyn_m else [])]
            if dyn_nk:
                lines.append(f"  %dk = tensor.dim %b, %c{kd} : {b3}")
                edims.append("%dk")
            lines += [f"  %ea = tensor.empty({', '.join(edims)}) : {a3}",
                      f"  %ab = linalg.broadcast ins(%a : {a2}) outs(%ea : {a3}) dimensions = [0]"]
            ins = f"%ab, %b : {a3}, {b3}"
        else:
            edims = (["%db"] if dyn_b else [])
            if dyn_nk:
                kd2 = 1 if nk else 0
                lines.append(f"  %dk = tensor.dim %b, %c{kd2} : {b2}")
                edims += (["%dn", "%dk"] if nk else ["%dk", "%dn"])
            lines += [f"  %eb = tensor.empty({', '.join(edims)}) : {b3}",
                      f"  %bb = linalg.broadcast ins(%b : {b2}) outs(%eb : {b3}) dimensions = [0]"]
            ins = f"%a, %bb : {a3}, {b3}"
        maps = _maps(True, False, nk)
    else:
        maps = _maps(True, False, nk, bcast_a=bcast_a, bcast_b=not bcast_a)
        ins = f"%a, %b : {params[0].split(': ')[1]}, {params[1].split(': ')[1]}"
    lines.append(f"  %r = linalg.batch_matmul{maps} ins({ins}) outs(%f : {tc}) -> {tc}")
    cur = "%r"
    stage = rng.choice([None, "relu", "bias"])
    if stage:
        lines_of, extra = _SIMPLE[stage]
        ins_l, maps_l, bargs = [("%r", tc)], [_idmap(3)], [f"%x: {t}"]
        if extra == "bias":
            bty = f"tensor<{sn_}x{t}>"
            params.append(f"%bias: {bty}")
            args.append(("bias", "any", (n,), _np(t)))
            ins_l.append(("%bias", bty))
            maps_l.append(_rowmap(3))
            bargs.append(f"%w: {t}")
        lines += _generic("%s", ins_l, [("%e", tc)], maps_l + [_idmap(3)], 3, ", ".join(bargs + [f"%o: {t}"]),
                          lines_of(t) + [f"linalg.yield %y : {t}"], tc)
        cur = "%s"
    params.append(f"%out: {mc}")
    lines.append(f"  bufferization.materialize_in_destination {cur} in restrict writable %out : ({tc}, {mc}) -> ()")
    src = f"func.func @kernel({', '.join(params)}) {{\n" + "\n".join(lines) + "\n  return\n}\n"
    return Case(8, f"{form}{' nk' if nk else ''}{' dynB' if dyn_b else ''}{' dynM' if dyn_m else ''}"
                   f"{' dynNK' if dyn_nk else ''}{' ' + stage if stage else ''} {t}", src, args,
                (bt, m, n), _np(t), checks=("split_ok", "bitwise", "host_ok"), options=_options(rng),
                description=f"B={bt} M={m} N={n} K={k}")


# --------------------------------------------------------------------------
# 9: gpupoor.splits / gpupoor.slices of odd integer types
# --------------------------------------------------------------------------

# (attribute text, value or None when out of range); signless values only
# where their signed and unsigned readings agree.
_SPLITS = [("4 : ui8", 4), ("255 : ui8", 255), ("3 : i7", 3), ("2 : si16", 2), ("70000 : ui32", None),
           ("65536 : ui32", 65536), ("65537 : ui64", None), ("0 : ui8", None), ("-3 : si8", None),
           ("1 : ui1", 1), ("63 : i7", 63), ("40000 : ui16", 40000), ("3 : si3", 3), ("128 : ui8", 128), ("5 : i65", 5), ("18446744073709551615 : ui64", None),
           ("2 : index", 2)]
_SLICES = [("0 : ui8", 0), ("3 : ui8", 3), ("7 : i7", 7), ("2 : si16", 2), ("70000 : ui32", None),
           ("65535 : ui16", 65535), ("65536 : ui32", None), ("-1 : si8", None), ("1 : ui1", 1),
           ("200 : ui8", 200), ("4 : i65", 4), ("18446744073709551616 : ui65", None)]


def gen_attrs(rng):
    which = rng.choice(["splits", "splits", "slices", "both"])
    attrs, bad, splits_val = [], False, None
    if which in ("splits", "both"):
        text, v = rng.choice(_SPLITS)
        attrs.append(f"gpupoor.splits = {text}")
        bad |= v is None
        splits_val = v
    if which in ("slices", "both"):
        text, v = rng.choice(_SLICES)
        attrs.append(f"gpupoor.slices = {text}")
        bad |= v is None
    mm = _Matmul(rng, init=rng.choice(["zero", "zero", "cin"]), max_mn=24, max_k=80)
    mm.frame()
    line = mm.body[mm.matmul_line]
    op = "linalg.batch_matmul" if mm.batched else "linalg.matmul"
    mm.body[mm.matmul_line] = line.replace(op, f"{op} {{{', '.join(attrs)}}}", 1) \
        if not _maps(mm.batched, mm.km, mm.nk) else line.replace(" ins(", f" {{{', '.join(attrs)}}} ins(", 1)
    src = mm.finish("%v0")
    opts = f"outer-type={rng.choice(['f16', 'f32'])}"
    if bad:
        checks, diag = ("split_diag",), "gpupoor." + ("splits" if "splits" in " ".join(attrs) else "slices")
        # Which attribute is bad names the diagnostic.
        for a in attrs:
            name = a.split(" = ")[0]
            table = _SPLITS if name == "gpupoor.splits" else _SLICES
            if dict(table)[a.split(" = ")[1]] is None:
                diag = name
        return Case(9, ", ".join(attrs) + " (out of range)", src, checks=checks, diag_text=diag,
                    options=opts, description=mm.describe())
    checks = ("rewritten", "bitwise") + (("splits_is",) if splits_val is not None else ())
    return Case(9, ", ".join(attrs), src, mm.args, mm.c_shape, _np(mm.t), checks=checks,
                splits_is=splits_val, options=opts, description=mm.describe())


# --------------------------------------------------------------------------
# 10: memory spaces
# --------------------------------------------------------------------------

_SPACES = ["3", "1", "#gpu.address_space<workgroup>", "#gpu.address_space<global>",
           "#gpu.address_space<private>", "5 : i32", '"foo"']


def gen_memspace(rng):
    space = rng.choice(_SPACES)
    form = rng.choice(["memref", "memref", "tensor_out"])
    which = rng.choice(["all", "c", "a", "ab"])
    t = rng.choice(["f16", "f32"])
    dyn = rng.random() < 0.3
    nk = rng.random() < 0.3
    m, n, k = rng.randint(1, 24), rng.randint(1, 24), rng.randint(1, 64)
    sa, sb, sc = (m, k), ((n, k) if nk else (k, n)), (m, n)
    fill = rng.random() < 0.7

    def build(sp):
        sp_of = lambda x: sp if (which == "all" or x in which) else None
        ta, tb = _mt(sa, "f16", dyn, sp_of("a")), _mt(sb, "f16", dyn, sp_of("b"))
        tc = _mt(sc, t, dyn, sp if which in ("all", "c") else None)
        lines = []
        if form == "memref":
            if fill:
                lines += [f"  %zero = arith.constant 0.0 : {t}", f"  linalg.fill ins(%zero : {t}) outs(%c : {tc})"]
            lines.append(f"  linalg.matmul{_maps(False, False, nk)} ins(%a, %b : {ta}, {tb}) outs(%c : {tc})")
            params = f"%a: {ta}, %b: {tb}, %c: {tc}"
        else:
            tta, ttb, ttc = _tt(sa, "f16", dyn), _tt(sb, "f16", dyn), _tt(sc, t, dyn)
            lines += [f"  %ta = bufferization.to_tensor %a restrict : {ta} to {tta}",
                      f"  %tb = bufferization.to_tensor %b restrict : {tb} to {ttb}"]
            dims = ""
            if dyn:
                lines += ["  %i0 = arith.constant 0 : index", "  %i1 = arith.constant 1 : index",
                          f"  %dm = tensor.dim %ta, %i0 : {tta}",
                          f"  %dn = tensor.dim %tb, %i{0 if nk else 1} : {ttb}"]
                dims = "%dm, %dn"
            lines += [f"  %e = tensor.empty({dims}) : {ttc}", f"  %zero = arith.constant 0.0 : {t}",
                      f"  %f = linalg.fill ins(%zero : {t}) outs(%e : {ttc}) -> {ttc}",
                      f"  %r = linalg.matmul{_maps(False, False, nk)} ins(%ta, %tb : {tta}, {ttb}) "
                      f"outs(%f : {ttc}) -> {ttc}",
                      f"  bufferization.materialize_in_destination %r in restrict writable %c "
                      f": ({ttc}, {tc}) -> ()"]
            params = f"%a: {ta}, %b: {tb}, %c: {tc}"
        return f"func.func @kernel({params}) {{\n" + "\n".join(lines) + "\n  return\n}\n"

    src, ref = build(space), build(None)
    args = [("a", "a", sa, np.float16), ("b", "b", sb, np.float16),
            ("c", "cin" if not fill and form == "memref" else "any", sc, _np(t))]
    return Case(10, f"{form} space={space} on {which}{' dyn' if dyn else ''}{' nk' if nk else ''}"
                    f"{' fill' if fill else ''} {t}", src, args, None, compare_args=True,
                checks=("split_ok", "cpu_clean", "bitwise"), ref_source=ref, options=_options(rng),
                description=f"M={m} N={n} K={k}")
