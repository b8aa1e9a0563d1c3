"""Builds gpupoor._C against the installed PyTorch: the compiler's policy
library (../lib/Policy, the sources gpupoor-opt links), the
gpupoor::split_k_matmul operator (TORCH_LIBRARY) and its launcher
(csrc/), and the project's tensor-map encoder and launch
(../lib/Runtime/Driver.cpp, which the host code's runtime links too). It
needs the CUDA driver API's header (cuda.h: the toolkit's, CUDA_HOME's, or
the nvidia-* wheels PyTorch's CUDA builds depend on); the driver itself is
opened at run time.

Everything else is in pyproject.toml.

  pip install --no-build-isolation ./python      # builds it against the installed torch
  python setup.py build_ext --inplace            # into the source tree (the CMake build does)
"""

import os
import shutil
from pathlib import Path

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, library_paths

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# Relative to this directory, as setuptools wants sources.
POLICY = sorted(os.path.relpath(p, HERE) for p in (REPO / "lib" / "Policy").glob("*.cpp"))
DRIVER = os.path.relpath(REPO / "lib" / "Runtime" / "Driver.cpp", HERE)


def cuda_include():
    """A directory with cuda.h (and cuda_runtime_api.h)."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(str(Path(nvcc).resolve().parent.parent))
    candidates = [Path(r) / "include" for r in roots if r]
    try:
        import nvidia
        for base in nvidia.__path__:
            candidates += sorted(Path(base).glob("*/include"))
    except ImportError:
        pass
    for d in candidates:
        if (d / "cuda.h").is_file() and (d / "cuda_runtime_api.h").is_file():
            return str(d)
    raise RuntimeError("gpupoor: no CUDA headers (cuda.h, cuda_runtime_api.h) found: set "
                       "CUDA_HOME to a CUDA toolkit, or install PyTorch's nvidia-* wheels")


def shared_libstdcxx():
    """The libstdc++ shared library PyTorch's libraries run on, as this
    process (which imported torch) mapped it; None where none is mapped.

    The extension links it by path, so that it shares that C++ runtime: a
    compiler that links libstdc++ statically (a GCC built without the shared
    library, as on one of the project's GPU machines: g++ 13 in /opt/gcc)
    gives the extension its own copy of the iostreams and locales, and every
    TORCH_CHECK that formats an integer then faulted in
    std::ostream::_M_insert<long> instead of raising (a minimal extension
    built there alike). Ahead of the driver's own -lstdc++ on the link line,
    the shared library defines those symbols first."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith("libstdc++.so") and os.path.isfile(path):
                return path
    return None


STDCXX = shared_libstdcxx() if os.path.exists("/proc/self/maps") else None

extensions = [CppExtension(
    "gpupoor._C",
    [*(f"gpupoor/csrc/{name}.cpp" for name in ("policy", "library", "loader", "plan", "launcher", "operands", "ops")),
     *POLICY, DRIVER],
    include_dirs=[str(REPO / "include"), "gpupoor/csrc", cuda_include()],
    libraries=["c10_cuda", "torch_cuda", "dl"],
    # The C++ standard is the one PyTorch builds its extensions with (its
    # headers change with it).
    extra_compile_args=["-O2", "-fvisibility=hidden"],
    extra_link_args=[f"-Wl,-rpath,{p}" for p in library_paths()] + ([STDCXX] if STDCXX else []),
)]

setup(ext_modules=extensions,
      # ninja, where present, compiles the sources in parallel.
      cmdclass={"build_ext": BuildExtension.with_options(use_ninja=shutil.which("ninja") is not None)})
