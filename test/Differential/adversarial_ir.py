"""The IR pieces the adversarial generators (adversarial.py,
adversarial_types.py) build programs from: a Case, types, maps, a generic,
and the frame of one matmul.
"""

from dataclasses import dataclass, field

import numpy as np

@dataclass
class Case:
    cls: int
    form: str
    source: str
    # (name, kind, shape, numpy dtype) of each argument, OUT excluded.
    args: list = field(default_factory=list)
    # OUT (the last argument), a memref the result is materialized into;
    # None for programs on memrefs, whose arguments are their results.
    out_shape: tuple = None
    out_dtype: type = np.float16
    # The kind of OUT's contents before the call (C += A*B into OUT: "cin"),
    # else None (NaN); inputs() draws them after the arguments.
    out_init: str = None
    # Compare every argument buffer after the call, not only OUT (memref
    # programs write their arguments).
    compare_args: bool = False
    # What test_adversarial.check verifies:
    #   rewritten    gpupoor-split-k makes a gpupoor.matmul, no linalg matmul left
    #   fused        ... and leaves `unfused_ops` linalg ops
    #   left_alone   gpupoor-split-k exits 0 and leaves the linalg matmul
    #   left_alone_or_error  ... or fails with a clean diagnostic
    #   split_ok     gpupoor-split-k exits 0
    #   split_nocrash  gpupoor-split-k does not crash (a diagnostic is fine)
    #   split_diag   gpupoor-split-k fails with a diagnostic (`diag_text`)
    #   bitwise      CPU pipeline against upstream's lowering, bit for bit
    #   cpu_nocrash  the CPU pipeline does not crash
    #   cpu_clean    ... and exits non-zero or prints no error
    #   cubin_ok     gpupoor-to-cubin (PTX) does not crash (errors allowed)
    #   cubin_diag   gpupoor-to-cubin fails with a diagnostic
    #   host_ok      gpupoor-to-cubin + gpupoor-host-to-llvm do not crash
    #   splits_is    the gpupoor.matmul's strategy has splits = `splits_is`
    checks: tuple = ()
    unfused_ops: int = 0
    options: str = ""
    diag_text: str = ""
    splits_is: int = None
    # The program upstream lowers, where it differs (memory spaces dropped).
    ref_source: str = None
    # Input recipe: "exact" (programs.inputs' rule) or "signzero".
    inputs: str = "exact"
    description: str = ""


def _np(t):
    return {"f16": np.float16, "f32": np.float32}[t]


def _shape(shape, dyn=False):
    return "x".join("?" if dyn else str(s) for s in shape)


def _tt(shape, elt, dyn=False, enc=None):
    s = _shape(shape, dyn)
    return f"tensor<{s + 'x' if shape else ''}{elt}{', ' + enc if enc else ''}>"


def _mt(shape, elt, dyn=False, space=None, layout=None):
    s = _shape(shape, dyn)
    extra = "".join(f", {x}" for x in (layout, space) if x is not None)
    return f"memref<{s + 'x' if shape else ''}{elt}{extra}>"


def _maps(batched, km, nk, bcast_a=False, bcast_b=False):
    """indexing_maps for a matmul / batch_matmul, '' for the default."""
    if not (km or nk or bcast_a or bcast_b):
        return ""
    ld = "b, " if batched else ""
    dl = "(b, m, n, k)" if batched else "(m, n, k)"
    a = f"({'' if bcast_a else ld}{'k, m' if km else 'm, k'})"
    b = f"({'' if bcast_b else ld}{'n, k' if nk else 'k, n'})"
    return (f" indexing_maps = [affine_map<{dl} -> {a}>, affine_map<{dl} -> {b}>, "
            f"affine_map<{dl} -> ({ld}m, n)>]")


def _idmap(r):
    ids = ", ".join(f"d{i}" for i in range(r))
    return f"affine_map<({ids}) -> ({ids})>"


def _rowmap(r):
    ids = ", ".join(f"d{i}" for i in range(r))
    return f"affine_map<({ids}) -> (d{r - 1})>"


def _par(r):
    return ", ".join(['"parallel"'] * r)


def _generic(out, ins, outs, maps, r, args, lines, rtype):
    """A linalg.generic; `ins`/`outs` are [(value, type)]."""
    ins_s = (f" ins({', '.join(v for v, _ in ins)} : {', '.join(t for _, t in ins)})"
             if ins else "")
    outs_s = f" outs({', '.join(v for v, _ in outs)} : {', '.join(t for _, t in outs)})"
    res = f"  {out} = " if out else "  "
    tail = f" -> {rtype}" if rtype else ""
    return ([f"{res}linalg.generic {{indexing_maps = [{', '.join(maps)}], "
             f"iterator_types = [{_par(r)}]}}{ins_s}{outs_s} {{",
             f"  ^bb0({args}):"] + [f"    {l}" for l in lines] + [f"  }}{tail}"])


class _Matmul:
    """The common frame of a tensor program: A, B, the init, the matmul."""

    def __init__(self, rng, *, batched=None, static=None, t=None, m=None, n=None, k=None,
                 bt=None, km=None, nk=None, init=None, max_mn=40, max_k=96):
        self.rng = rng
        self.batched = rng.random() < 0.2 if batched is None else batched
        self.static = rng.random() < 0.5 if static is None else static
        self.t = rng.choice(["f16", "f32"]) if t is None else t
        self.km = rng.random() < 0.15 if km is None else km
        self.nk = rng.random() < 0.35 if nk is None else nk
        self.m = rng.randint(1, max_mn) if m is None else m
        self.n = rng.randint(1, max_mn) if n is None else n
        self.k = rng.randint(1, max_k) if k is None else k
        self.bt = (rng.randint(1, 3) if bt is None else bt) if self.batched else None
        self.lead = (self.bt,) if self.batched else ()
        self.r = len(self.lead) + 2
        self.a_shape = self.lead + ((self.k, self.m) if self.km else (self.m, self.k))
        self.b_shape = self.lead + ((self.n, self.k) if self.nk else (self.k, self.n))
        self.c_shape = self.lead + (self.m, self.n)
        self.init = init  # "zero", "cin", "out" (C += A*B into OUT), or a constant
        self.params, self.args, self.body = [], [], []

    def ty(self, shape, elt):
        return _tt(shape, elt, not self.static)

    @property
    def tc(self):
        return self.ty(self.c_shape, self.t)

    @property
    def mc(self):
        return _mt(self.c_shape, self.t, not self.static)

    def frame(self, zero="0.0"):
        """Parameters A, B (and C_in), constants, tensor.empty, the init and
        the matmul %v0; returns the init's SSA name."""
        ta, tb = self.ty(self.a_shape, "f16"), self.ty(self.b_shape, "f16")
        self.params += [f"%a: {ta}", f"%b: {tb}"]
        self.args += [("a", "a_km" if self.km else "a", self.a_shape, np.float16),
                      ("b", "b_nk" if self.nk else "b", self.b_shape, np.float16)]
        r = self.r
        for i in range(r):
            self.body.append(f"  %c{i} = arith.constant {i} : index")
        if self.static:
            self.dims = ""
        else:
            ops = []
            for i in range(r - 2):
                self.body.append(f"  %d{i} = tensor.dim %a, %c{i} : {ta}")
                ops.append(f"%d{i}")
            self.body.append(f"  %dm = tensor.dim %a, %c{r - 1 if self.km else r - 2} : {ta}")
            self.body.append(f"  %dn = tensor.dim %b, %c{r - 2 if self.nk else r - 1} : {tb}")
            self.dims = ", ".join(ops + ["%dm", "%dn"])
        for et in ("f16", "f32"):
            self.body.append(f"  %e_{et} = tensor.empty({self.dims}) : {self.ty(self.c_shape, et)}")
        t, tc = self.t, self.tc
        if self.init == "cin":
            self.params.append(f"%cin: {tc}")
            self.args.append(("cin", "cin", self.c_shape, _np(t)))
            init = "%cin"
        elif self.init == "out":
            init = "%cin"  # defined once %out exists: see finish()
        else:
            self.body.append(f"  %zinit = arith.constant {zero} : {t}")
            self.body.append(f"  %init = linalg.fill ins(%zinit : {t}) outs(%e_{t} : {tc}) -> {tc}")
            init = "%init"
        self.init_name = init
        op = "linalg.batch_matmul" if self.batched else "linalg.matmul"
        self.matmul_line = len(self.body)
        self.body.append(f"  %v0 = {op}{_maps(self.batched, self.km, self.nk)} ins(%a, %b : {ta}, {tb}) "
                         f"outs({init} : {tc}) -> {tc}")
        return init

    def finish(self, cur, t=None):
        t = t or self.t
        tc = self.ty(self.c_shape, t)
        mc = _mt(self.c_shape, t, not self.static)
        self.params.append(f"%out: {mc}")
        if self.init == "out":
            self.body.insert(self.matmul_line,
                             f"  %cin = bufferization.to_tensor %out restrict writable : {mc} to {tc}")
        self.body.append(f"  bufferization.materialize_in_destination {cur} in restrict writable %out "
                         f": ({tc}, {mc}) -> ()")
        self.body.append("  return")
        return f"func.func @kernel({', '.join(self.params)}) {{\n" + "\n".join(self.body) + "\n}\n"

    def describe(self):
        return (f"{'batch ' if self.batched else ''}{'km' if self.km else 'mk'} "
                f"{'nk' if self.nk else 'kn'} {'static' if self.static else 'dynamic'} "
                f"{self.c_shape}x{self.k} {self.t} init={self.init}")


def _options(rng):
    opts = [f"outer-type={rng.choice(['f16', 'f32'])}"]
    if rng.random() < 0.5:
        opts.append(f"splits={rng.choice([1, 2, 3, 5, 32])}")
    if rng.random() < 0.3:
        opts.append(f"tile={rng.choice(['16,8,16', '64,64,32', '32,16,48'])}")
    return " ".join(opts)


# --------------------------------------------------------------------------
# 1: in-place consumer chains
# --------------------------------------------------------------------------

_SIMPLE = {
    # name: (lines on %x (the value) giving %y, extra kind)
    "bias": (lambda t: [f"%y = arith.addf %x, %w : {t}"], "bias"),
    "relu": (lambda t: [f"%z = arith.constant 0.0 : {t}", f"%y = arith.maximumf %x, %z : {t}"], None),
    "scale": (lambda t: [f"%s = arith.constant 0.5 : {t}", f"%y = arith.mulf %x, %s : {t}"], None),
    "leaky": (lambda t: [f"%z = arith.constant 0.0 : {t}", f"%s = arith.constant 0.125 : {t}",
                         f"%p = arith.cmpf ogt, %x, %z : {t}", f"%q = arith.mulf %x, %s : {t}",
                         f"%y = arith.select %p, %x, %q : {t}"], None),
    "residual": (lambda t: [f"%y = arith.addf %x, %w : {t}"], "full"),
    "relu6": (lambda t: [f"%z = arith.constant 0.0 : {t}", f"%h = arith.constant 6.0 : {t}",
                         f"%q = arith.maximumf %x, %z : {t}", f"%y = arith.minimumf %q, %h : {t}"], None),
}


