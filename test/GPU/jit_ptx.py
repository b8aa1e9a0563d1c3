#!/usr/bin/env python3
"""Compiles every PTX kernel under the given directories for this machine's
GPU through the driver's JIT (cuModuleLoadData), in parallel processes.

  python3 test/GPU/jit_ptx.py DIR [DIR ...] [--jobs N] [--out FILE.json]

PTX is forward compatible: the kernels of sm_80, sm_86 and sm_89 (the
package's library built with `build_library --ptx`, the GPU suite's with
`build_kernels.py --formats isa`) load on an H100 as PTX, which the driver
compiles for it. This loads each one once, so that

  * every kernel is known to compile for this GPU (a failure names the file
    and the driver's error; exit status 1),
  * the driver's JIT cache (CUDA_CACHE_PATH; set CUDA_CACHE_MAXSIZE, up to
    4 GiB, above the default 256 MiB for many kernels) holds the results:
    the package, run_gpu_suite.py and compute-sanitizer runs that load the
    same PTX later take the cached code instead of compiling each kernel
    again, one at a time.

Prints, per directory, the kernel count, failures, the JIT seconds summed
over the workers, and the largest register count and local-memory (spill)
size of the code the JIT made. Needs cuda-bindings.
"""

import argparse
import concurrent.futures
import json
import os
import re
import sys
import time

_drv = None
# A kernel's name in its PTX.
_ENTRY = re.compile(rb"\.entry\s+([A-Za-z_$][\w$]*)")


def _check(result, what):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != _drv.CUresult.CUDA_SUCCESS:
        _, msg = _drv.cuGetErrorString(err)
        text = msg.decode() if isinstance(msg, bytes) else msg
        raise RuntimeError(f"{what}: {err.name} ({text})")
    return rest[0] if len(rest) == 1 else tuple(rest)


def _init():
    """Each worker: the driver and device 0's primary context, current."""
    global _drv
    from cuda.bindings import driver
    _drv = driver
    _check(_drv.cuInit(0), "cuInit")
    dev = _check(_drv.cuDeviceGet(0), "cuDeviceGet")
    ctx = _check(_drv.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    _check(_drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


def _jit(path):
    """(path, seconds, registers, local bytes, error or None)."""
    try:
        with open(path, "rb") as f:
            text = f.read()
        names = _ENTRY.findall(text)
        start = time.monotonic()
        mod = _check(_drv.cuModuleLoadData(text + b"\0"), "cuModuleLoadData")
        regs = local = 0
        for name in names:
            fn = _check(_drv.cuModuleGetFunction(mod, name),
                        f"cuModuleGetFunction({name.decode()})")
            attr = _drv.CUfunction_attribute
            regs = max(regs, _check(_drv.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_NUM_REGS, fn),
                                    "registers"))
            local = max(local, _check(_drv.cuFuncGetAttribute(
                attr.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn), "local bytes"))
        seconds = time.monotonic() - start
        _check(_drv.cuModuleUnload(mod), "cuModuleUnload")
        return path, seconds, regs, local, None if names else "no .entry in the PTX"
    except Exception as e:  # noqa: BLE001 (the driver's error, whichever)
        return path, 0.0, 0, 0, str(e)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", help="write every kernel's result here (JSON)")
    parser.add_argument("--recheck", type=int, default=8, metavar="N",
                        help="then load N of the kernels again as the package does "
                             "(cuLibraryLoadData) and time it: the JIT cache's hits")
    args = parser.parse_args()
    files = {d: sorted(os.path.join(root, f) for root, _, names in os.walk(d)
                       for f in names if f.endswith(".ptx")) for d in args.dirs}
    todo = [p for d in args.dirs for p in files[d]]
    start = time.monotonic()
    # Fork before this process touches CUDA: each worker makes its own context.
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs),
                                                initializer=_init) as pool:
        results = {r[0]: r for r in pool.map(_jit, todo, chunksize=4)}
    wall = time.monotonic() - start
    failed = 0
    for d in args.dirs:
        rs = [results[p] for p in files[d]]
        bad = [r for r in rs if r[4]]
        failed += len(bad)
        print(f"{d}: {len(rs)} PTX kernels, {len(bad)} failed, JIT {sum(r[1] for r in rs):.1f} s "
              f"(workers summed), at most {max([r[2] for r in rs] or [0])} registers, "
              f"{max([r[3] for r in rs] or [0])} bytes of local memory")
        for r in bad:
            print(f"  FAIL {r[0]}: {r[4]}")
    print(f"{len(todo)} kernels in {wall:.0f} s on {args.jobs} workers, {failed} failed")
    sample = [p for p in todo if not results[p][4]][::max(1, len(todo) // max(1, args.recheck))]
    if args.recheck and sample:
        _init()
        start = time.monotonic()
        for p in sample[:args.recheck]:
            with open(p, "rb") as f:
                text = f.read()
            lib = _check(_drv.cuLibraryLoadData(text + b"\0", None, None, 0, None, None, 0),
                         f"cuLibraryLoadData({p})")
            for name in _ENTRY.findall(text):
                kern = _check(_drv.cuLibraryGetKernel(lib, name), "cuLibraryGetKernel")
                _check(_drv.cuKernelGetFunction(kern), "cuKernelGetFunction")
        took = time.monotonic() - start
        first = sum(results[p][1] for p in sample[:args.recheck])
        print(f"again through cuLibraryLoadData: {len(sample[:args.recheck])} kernels in "
              f"{took:.2f} s (first JIT {first:.1f} s)")
    if args.out:
        with open(args.out, "w") as f:
            fields = ("ptx", "seconds", "registers", "local_bytes", "error")
            json.dump([dict(zip(fields, results[p])) for p in todo], f, indent=0)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
