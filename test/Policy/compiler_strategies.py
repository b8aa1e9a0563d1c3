"""What gpupoor-split-k decides for each problem: a linalg.matmul (or
batch_matmul) of the problem's shape and layouts a function, rewritten with
the problem's chip, and the #gpupoor.split_k of each function read back."""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict

MAP_A = {"mk": "(m, k)", "km": "(k, m)"}
MAP_B = {"kn": "(k, n)", "nk": "(n, k)"}


def _dim(v) -> str:
    return "?" if v == "?" else str(v)


def _function(i: int, p: dict) -> str:
    m, n, k = _dim(p["m"]), _dim(p["n"]), _dim(p["k"])
    a = [m, k] if p.get("a", "mk") == "mk" else [k, m]
    b = [k, n] if p["b"] == "kn" else [n, k]
    c = [m, n]
    attrs = []
    if "slices" in p:
        attrs.append(f"gpupoor.slices = {p['slices']} : i64")
    if "splits" in p:
        attrs.append(f"gpupoor.splits = {p['splits']} : i64")
    attr = f" {{{', '.join(attrs)}}}" if attrs else ""
    if "batch" in p:
        bb = _dim(p["batch"])
        a, b, c = [bb] + a, [bb] + b, [bb] + c
        maps = (f"affine_map<(b, m, n, k) -> (b, {MAP_A[p.get('a', 'mk')][1:]}>, "
                f"affine_map<(b, m, n, k) -> (b, {MAP_B[p['b']][1:]}>, "
                "affine_map<(b, m, n, k) -> (b, m, n)>")
        op = "linalg.batch_matmul"
    else:
        maps = (f"affine_map<(m, n, k) -> {MAP_A[p.get('a', 'mk')]}>, "
                f"affine_map<(m, n, k) -> {MAP_B[p['b']]}>, "
                "affine_map<(m, n, k) -> (m, n)>")
        op = "linalg.matmul"
    ta, tb, tc = (f"tensor<{'x'.join(s)}xf16>" for s in (a, b, c))
    return (f"func.func @p{i}(%a: {ta}, %b: {tb}, %c: {tc}) -> {tc} {{\n"
            f"  %r = {op} indexing_maps = [{maps}] ins(%a, %b : {ta}, {tb}) outs(%c : {tc})"
            f"{attr} -> {tc}\n  return %r : {tc}\n}}\n")


def _memref_function(i: int, p: dict) -> str:
    """_function's product on memrefs (what gpupoor-swap-operands and the
    kernel configuration take, after bufferization)."""
    s = _function(i, p).replace("tensor<", "memref<")
    s = re.sub(r"\) -> memref<[^>]*> \{", ") {", s, count=1)
    s = re.sub(r"  %r = (linalg\.\w+)", r"  \1", s)
    return re.sub(r" -> memref<[^>]*>\n  return %r : memref<[^>]*>\n", "\n  return\n", s)


def _by_options(problems: list[dict]) -> dict[tuple, list[int]]:
    """The problems' indices by the pass options they share (chip,
    max-splits or None for the compiler's default): one gpupoor-opt run
    each."""
    groups = defaultdict(list)
    for i, p in enumerate(problems):
        groups[(p["chip"], p.get("max-splits"))].append(i)
    return groups


def _split_k(chip: str, max_splits: int | None) -> str:
    """gpupoor-split-k's options for a group: max-splits only where the
    problem sets one, so that the compiler's default meets the policy's."""
    return f"chip={chip} slices=0" + (f" max-splits={max_splits}" if max_splits else "")


def configuration_errors(gpupoor_opt: str, problems: list[dict]) -> list[str]:
    """The errors gpupoor-split-k, gpupoor-swap-operands and
    gpupoor-select-kernel-config report on the problems (as memrefs): none
    where every strategy the policy gives has a kernel configuration that
    verifies (fits the chip's shared memory, threads, ...)."""
    groups = _by_options(problems)
    errors = []
    for (chip, max_splits), indices in groups.items():
        src = "".join(_memref_function(i, problems[i]) for i in indices)
        res = subprocess.run([gpupoor_opt, "-", "-o", "/dev/null",
                              f"--gpupoor-split-k={_split_k(chip, max_splits)}",
                              "--gpupoor-swap-operands", "--gpupoor-select-kernel-config"],
                             input=src, capture_output=True, text=True)
        if res.returncode:
            errors += [f"{chip}: {line}" for line in res.stderr.splitlines() if "error" in line]
    return errors


_CONFIG = re.compile(r"func\.func @p(\d+)|#gpupoor\.kernel_config<([^>]*)>")


def tma_configs(gpupoor_opt: str, problems: list[dict]) -> list[dict | None]:
    """The blocks an SM, the blocks a cluster, persistent blocks, stream-K
    and the split handover (blocks_per_sm, cluster_m, persistent, stream_k,
    split_handover)
    gpupoor-select-kernel-config gives each problem's
    TMA kernel (as memrefs, after gpupoor-split-k and
    gpupoor-swap-operands), or None
    where it configures none or another (rows TMA cannot read: the
    package's variants then run their fallback kernels)."""
    groups = _by_options(problems)
    out: list[dict | None] = [None] * len(problems)
    for (chip, max_splits), indices in groups.items():
        src = "".join(_memref_function(i, problems[i]) for i in indices)
        res = subprocess.run([gpupoor_opt, "-", f"--gpupoor-split-k={_split_k(chip, max_splits)}",
                              "--gpupoor-swap-operands",
                              "--gpupoor-select-kernel-config", "--mlir-print-local-scope"],
                             input=src, capture_output=True, text=True)
        current = None
        for fn, config in _CONFIG.findall(res.stdout):
            if fn:
                current = int(fn)
            elif current is not None and out[current] is None and "copies = tma" in config:
                # (The attribute leaves out a default of one.)
                out[current] = {
                    key: int(found.group(1)) if (found := re.search(rf"{key} = (\d+)", config))
                    else 1 for key in ("blocks_per_sm", "cluster_m")}
                out[current]["stream_k"] = "stream_k = true" in config
                out[current]["persistent"] = "persistent = true" in config
                out[current]["split_handover"] = "handover = split" in config
    return out


_STRATEGY = re.compile(r"func\.func @p(\d+)|#gpupoor\.split_k<([^>]*)>")


def _parse(body: str, chip_default: str) -> dict:
    fields = dict(re.findall(r"(\w+) = (\[[^\]]*\]|\w+)", body))
    return {"chip": fields.get("chip", chip_default),
            "tile": [int(x) for x in fields["tile"].strip("[]").split(",")],
            "swapped": fields.get("swapped") == "true",
            "splits": int(fields["splits"]) if "splits" in fields else None,
            "slices": int(fields.get("slices", 1)),
            "sets": int(fields.get("sets", 1))}


def strategies(gpupoor_opt: str, problems: list[dict]) -> list[dict | None]:
    """The #gpupoor.split_k gpupoor-split-k (slices=0: chosen; the
    problem's chip and max-splits) gives each problem, or None where it
    leaves the matmul alone."""
    groups = _by_options(problems)
    out: list[dict | None] = [None] * len(problems)
    for (chip, max_splits), indices in groups.items():
        src = "".join(_function(i, problems[i]) for i in indices)
        options = _split_k(chip, max_splits)
        res = subprocess.run([gpupoor_opt, "-", f"--gpupoor-split-k={options}",
                              "--mlir-print-local-scope"],
                             input=src, capture_output=True, text=True, check=True)
        current = None
        for fn, body in _STRATEGY.findall(res.stdout):
            if fn:
                current = int(fn)
            elif current is not None and out[current] is None:
                out[current] = _parse(body, "sm_80")
    return out
