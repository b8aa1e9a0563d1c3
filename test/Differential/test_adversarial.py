"""Adversarial programs (adversarial.py) against their expectations.

Each program belongs to one of ten classes (in-place chains, signed zeros,
inits aliasing A or B, device code, encodings, wide integers, huge shapes,
broadcast batches, odd-typed split attributes, memory spaces; see
adversarial.py) and carries the checks it must pass: rewritten (and fused)
or left alone by gpupoor-split-k, bit for bit against upstream MLIR's own
lowering (test_differential.REFERENCE) on the CPU, a clean diagnostic, or
no crash. A crash is an exit status that is a signal (negative, or above
128) or 'LLVM ERROR', 'Assertion', 'PLEASE submit a bug report' or
'Stack dump' on stderr. A diagnostic on a gpupoor op that the input does
not have (the verifier's, on what a pass built) fails too: a pass must
refuse an input with its own diagnostic, not leave IR that fails to verify
(docs/guide/Testing.md's rule for the fuzzer).

Program i is of class (i % 10) + 1, so that every class gets the same
share. The same variables as test_differential.py run a campaign:

  GPUPOOR_DIFF_COUNT=300 GPUPOOR_DIFF_SEED=5 python3 -m pytest -q \\
      test/Differential/test_adversarial.py

(default: 30 programs, three a class; GPUPOOR_DIFF_START skips programs;
GPUPOOR_ADV_CLASSES=2,6 draws only those classes). Run directly, the file
runs the campaign without pytest and prints one line per failure and a
table per class:

  python3 test/Differential/test_adversarial.py --count 300 --seed 5 [--log f.jsonl]
"""

import ctypes
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Numerics"))
from cpu_kernel import GPUPOOR_OPT, LLC, MLIR_TRANSLATE, CC, _WORK, memref  # noqa: E402
import adversarial  # noqa: E402

from test_differential import REFERENCE  # noqa: E402

COUNT = int(os.environ.get("GPUPOOR_DIFF_COUNT", "30"))
START = int(os.environ.get("GPUPOOR_DIFF_START", "0"))
SEED = int(os.environ.get("GPUPOOR_DIFF_SEED", str(random.SystemRandom().randrange(1 << 30))))
CLASSES = [int(c) for c in os.environ.get("GPUPOOR_ADV_CLASSES", "").split(",") if c] or \
    sorted(adversarial.CLASSES)
TIMEOUT = int(os.environ.get("GPUPOOR_ADV_TIMEOUT", "300"))
CHIP = os.environ.get("GPUPOOR_ADV_CHIP", "sm_80")

# memrefCopy (a copy of a strided memref) lives in MLIR's C runner utils.
RUNNER_DIR = os.environ.get("MLIR_RUNNER_UTILS_DIR", "/usr/lib/llvm-22/lib")

CRASH_MARKERS = ("LLVM ERROR", "Assertion", "PLEASE submit a bug report", "Stack dump")


class Result:
    def __init__(self, cmd, rc, out, err):
        self.cmd, self.rc, self.out, self.err = cmd, rc, out, err

    @property
    def crashed(self):
        return self.rc is None or self.rc < 0 or self.rc > 128 or \
            any(m in self.err for m in CRASH_MARKERS)

    @property
    def clean_error(self):
        """Failed with a message and no crash."""
        return self.rc not in (0, None) and not self.crashed and "error" in self.err

    def summary(self):
        what = ("timed out" if self.rc is None else f"exit {self.rc}")
        err = self.err.strip()
        if len(err) > 4000:  # the message and the stack's top frames
            err = err[:3000] + "\n...\n" + err[-800:]
        return f"$ {shell(self.cmd)}\n{what}\n{err}"


def shell(cmd):
    return " ".join(c if re.fullmatch(r"[\w./=,:+-]+", c) else "'" + c.replace("'", "'\\''") + "'"
                    for c in cmd)


def opt(source, *passes, timeout=TIMEOUT):
    cmd = [GPUPOOR_OPT, "-", *passes]
    for attempt in range(60):
        try:
            res = subprocess.run(cmd, input=source, capture_output=True, text=True, timeout=timeout)
            return Result(cmd, res.returncode, res.stdout, res.stderr)
        except subprocess.TimeoutExpired:
            return Result(cmd, None, "", f"timed out after {timeout} s")
        except OSError:
            # gpupoor-opt is being relinked: wait for the new one.
            time.sleep(10)
    raise RuntimeError(f"{GPUPOOR_OPT} cannot be run")


def tool(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    return Result(cmd, res.returncode, res.stdout, res.stderr)


def build(source, passes, name):
    """gpupoor-opt `passes`, then LLVM IR, an object and a shared library:
    (library or None, the Result that failed or None)."""
    base = os.path.join(_WORK, f"adv{os.getpid()}_{name}")
    res = opt(source, *passes)
    if res.rc != 0 or res.crashed:
        return None, res
    with open(base + ".llvm.mlir", "w") as f:
        f.write(res.out)
    for cmd in ([MLIR_TRANSLATE, "--mlir-to-llvmir", base + ".llvm.mlir", "-o", base + ".ll"],
                [LLC, "-O3", "-filetype=obj", "-relocation-model=pic", base + ".ll", "-o", base + ".o"],
                [CC, "-shared", base + ".o", "-o", base + ".so", "-lm", f"-L{RUNNER_DIR}",
                 "-lmlir_c_runner_utils", f"-Wl,-rpath,{RUNNER_DIR}"]):
        r = tool(cmd)
        if r.rc != 0:
            return None, r
    return ctypes.CDLL(base + ".so"), None


def unload(lib):
    ctypes.CDLL(None).dlclose(ctypes.c_void_p(lib._handle))


def call(lib, case, arrays):
    copies = [np.array(a, copy=True, order="C") for a in arrays]
    descs = [memref(a) for a in copies]
    if case.out_shape is not None:
        if case.out_init:
            # inputs() draws OUT's contents last.
            out = np.array(arrays[-1], copy=True, order="C")
            copies.pop()
            descs.pop()
        else:
            out = np.full(case.out_shape, np.nan, dtype=case.out_dtype)
        descs.append(memref(out))
        copies.append(out)
    fn = lib._mlir_ciface_kernel
    fn.restype = None
    fn(*[ctypes.byref(d) for d in descs])
    return copies


def differ(got, want):
    bits = {2: np.uint16, 4: np.uint32}[got.dtype.itemsize]
    d = (got.view(bits) != want.view(bits)) & ~(np.isnan(got) & np.isnan(want))
    return d


def invalid_ir(res, source):
    """A diagnostic on an op the input does not have (gpupoor.matmul, ...):
    the verifier's, on what a pass made."""
    if res.rc == 0 or res.crashed:
        return False
    ops = set(re.findall(r"error: '([\w.]+)' op", res.err))
    return any(op.startswith("gpupoor.") and op not in source for op in ops)


def is_rewritten(ir):
    return "gpupoor.matmul" in ir and not re.search(r"linalg\.(batch_)?matmul\b", ir)


def left_alone(ir):
    return "gpupoor.matmul" not in ir and re.search(r"linalg\.(batch_)?matmul\b", ir)


def check(case, seed, index):
    """The failures of `case` as [(check, message)]."""
    fails = []
    opts = case.options
    split_cmd = f"--gpupoor-split-k={opts}" if opts else "--gpupoor-split-k"
    need_split = {"rewritten", "fused", "left_alone", "left_alone_or_error", "split_ok", "split_nocrash",
                  "split_diag", "splits_is"} & set(case.checks)
    split = opt(case.source, split_cmd) if need_split or "bitwise" in case.checks else None
    if split is not None and split.crashed:
        fails.append(("crash", "gpupoor-split-k crashed\n" + split.summary()))
    elif split is not None and invalid_ir(split, case.source):
        fails.append(("verify", "gpupoor-split-k made IR that fails to verify\n" + split.summary()))
    elif split is not None and "split_nocrash" in case.checks:
        pass
    elif split is not None:
        if "split_diag" in case.checks:
            if split.rc == 0 or case.diag_text not in split.err:
                fails.append(("split_diag", f"expected a diagnostic naming {case.diag_text}\n"
                              + split.summary() + "\n" + split.out[-2000:]))
        elif split.rc != 0 and "left_alone_or_error" not in case.checks:
            fails.append(("split_ok", "gpupoor-split-k failed\n" + split.summary()))
        else:
            ir = split.out
            if "rewritten" in case.checks and not is_rewritten(ir):
                fails.append(("rewritten", "not rewritten\n" + split.summary() + "\n" + ir[-3000:]))
            if "fused" in case.checks and is_rewritten(ir):
                left = len(re.findall(r"linalg\.(generic|add|max|broadcast)\b", ir))
                if left != case.unfused_ops:
                    fails.append(("fused", f"{left} linalg ops left, expected {case.unfused_ops}\n"
                                  + ir[-3000:]))
            if "left_alone" in case.checks and not left_alone(ir):
                fails.append(("left_alone", "rewritten (or matmul gone)\n" + ir[-3000:]))
            if "left_alone_or_error" in case.checks and split.rc == 0 and not left_alone(ir):
                fails.append(("left_alone", "rewritten (or matmul gone)\n" + ir[-3000:]))
            if "splits_is" in case.checks and is_rewritten(ir):
                m = re.search(r"splits = (\d+)", ir)
                if not m or int(m.group(1)) != case.splits_is:
                    fails.append(("splits_is", f"expected splits = {case.splits_is}\n" + ir[-3000:]))
    cpu_cmd = f"--gpupoor-cpu-pipeline={opts}" if opts else "--gpupoor-cpu-pipeline"
    cpu = None
    if {"cpu_nocrash", "cpu_clean"} & set(case.checks):
        cpu = opt(case.source, cpu_cmd)
        if cpu.crashed:
            fails.append(("crash", "CPU pipeline crashed\n" + cpu.summary()))
        elif invalid_ir(cpu, case.source):
            fails.append(("verify", "the CPU pipeline made IR that fails to verify\n" + cpu.summary()))
        elif "cpu_clean" in case.checks and cpu.rc == 0 and "error" in cpu.err:
            fails.append(("cpu_clean", "CPU pipeline printed an error and exited 0\n" + cpu.summary()))
            cpu.rc = -1000  # what it printed is no program to run
    for name, passes in (("cubin", ("cubin_ok", "cubin_diag")), ("host", ("host_ok",))):
        if not set(passes) & set(case.checks):
            continue
        with tempfile.TemporaryDirectory(dir=_WORK) as dump:
            cmd = [f"--gpupoor-to-cubin=chip={CHIP} cubin-format=isa dump-dir={dump}"]
            if name == "host":
                cmd.append("--gpupoor-host-to-llvm")
            res = opt(case.source, *cmd)
        res.cmd = [c.replace(dump, "/tmp/dump") for c in res.cmd]
        if res.crashed:
            fails.append(("crash", f"gpupoor-to-cubin{' + host-to-llvm' if name == 'host' else ''} "
                          "crashed\n" + res.summary()))
        elif invalid_ir(res, case.source):
            fails.append(("verify", "gpupoor-to-cubin made IR that fails to verify\n" + res.summary()))
        elif "cubin_diag" in case.checks and not res.clean_error:
            fails.append(("cubin_diag", "expected a clean diagnostic\n" + res.summary()
                          + ("\n(exit 0: the program compiled)" if res.rc == 0 else "")))
        elif res.rc != 0 and not res.clean_error:
            fails.append(("cubin_ok", "failed without a message\n" + res.summary()))
    if "bitwise" in case.checks and not (split is not None and split.crashed) and \
            not (cpu is not None and (cpu.crashed or cpu.rc != 0)) and \
            not (split is not None and split.rc != 0 and "split_diag" not in case.checks) and \
            not ("split_diag" in case.checks):
        name = f"{seed}_{index}"
        got_lib, got_err = build(case.source, (cpu_cmd,), name + "_g")
        want_lib, want_err = build(case.ref_source or case.source, REFERENCE, name + "_w")
        if want_lib is None:
            # Upstream cannot lower it: nothing to compare with.
            if got_lib is not None:
                unload(got_lib)
            fails.append(("reference", "upstream's lowering failed (generator bug?)\n"
                          + want_err.summary()))
        elif got_lib is None:
            unload(want_lib)
            if got_err.crashed:
                fails.append(("crash", "CPU pipeline crashed\n" + got_err.summary()))
            elif got_err.cmd[0] != GPUPOOR_OPT or "cpu_clean" not in case.checks:
                fails.append(("bitwise", "gpupoor's CPU form did not build\n" + got_err.summary()))
        else:
            arrays = adversarial.inputs(case, np.random.default_rng(seed * 7 + index))
            got = call(got_lib, case, arrays)
            want = call(want_lib, case, arrays)
            unload(got_lib)
            unload(want_lib)
            names = [a[0] for a in case.args] + (["out"] if case.out_shape is not None else [])
            for i, (g, w, nm) in enumerate(zip(got, want, names)):
                if not case.compare_args and nm != "out":
                    continue
                d = differ(g, w)
                if d.any():
                    fails.append(("bitwise", f"{nm}: {int(d.sum())} of {g.size} differ, e.g. "
                                  f"{g[d][:4]} instead of {w[d][:4]} (at {np.argwhere(d)[:4].tolist()})"))
    return fails


def case_for(seed, index):
    cls = CLASSES[index % len(CLASSES)]
    rng = random.Random(seed * 1000003 + index)
    return adversarial.generate(rng, cls)


def describe(case, seed, index):
    return (f"seed {seed} index {index}: class {case.cls} ({adversarial.CLASSES[case.cls]}) "
            f"{case.form} [{case.options}] {case.description} checks={','.join(case.checks)}")


try:
    import pytest

    @pytest.mark.parametrize("index", range(START, COUNT))
    def test_adversarial(index):
        case = case_for(SEED, index)
        fails = check(case, SEED, index)
        assert not fails, (describe(case, SEED, index) + "\n" + case.source + "\n"
                           + "\n".join(f"[{c}] {m}" for c, m in fails))
except ImportError:  # run directly without pytest
    pass


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=COUNT)
    ap.add_argument("--start", type=int, default=START)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--log")
    args = ap.parse_args()
    log = open(args.log, "a") if args.log else None
    stats = {}
    for index in range(args.start, args.count):
        case = case_for(args.seed, index)
        try:
            fails = check(case, args.seed, index)
        except Exception as e:  # a harness error: report, go on
            fails = [("harness", repr(e))]
        s = stats.setdefault(case.cls, [0, 0])
        s[0] += 1
        s[1] += bool(fails)
        if fails:
            print("FAIL", describe(case, args.seed, index), "|", ", ".join(sorted({c for c, _ in fails})),
                  flush=True)
        if log:
            log.write(json.dumps({"seed": args.seed, "index": index, "cls": case.cls, "form": case.form,
                                  "options": case.options, "checks": case.checks,
                                  "fails": fails, "source": case.source}) + "\n")
            log.flush()
    for cls in sorted(stats):
        print(f"class {cls:2} {adversarial.CLASSES[cls]:10} programs {stats[cls][0]:4} "
              f"failed {stats[cls][1]:4}")


if __name__ == "__main__":
    main()
