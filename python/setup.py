"""Builds the package's native extensions against the installed PyTorch:

- gpupoor._C, from csrc/policy.cpp and the compiler's policy library
  (../lib/Policy: the same sources gpupoor-opt links);
- gpupoor._gpupoor_fastpath, the compiled launch path (csrc/fastpath.cpp),
  where the CUDA runtime's headers are found (the toolkit's, CUDA_HOME, or
  the nvidia-* wheels PyTorch's CUDA builds depend on); without them the
  package launches through its Python path alone.

Everything else is in pyproject.toml.

  pip install --no-build-isolation ./python      # builds them against the installed torch
  python setup.py build_ext --inplace            # into the source tree (the CMake build does)
"""

import os
import shutil
import warnings
from pathlib import Path

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, library_paths

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# Relative to this directory, as setuptools wants sources.
POLICY = sorted(os.path.relpath(p, HERE) for p in (REPO / "lib" / "Policy").glob("*.cpp"))


def cuda_include():
    """A directory with cuda_runtime_api.h, or None."""
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
    return next((str(d) for d in candidates if (d / "cuda_runtime_api.h").is_file()), None)


extensions = [CppExtension(
    "gpupoor._C",
    ["gpupoor/csrc/policy.cpp", *POLICY],
    include_dirs=[str(REPO / "include")],
    extra_compile_args=["-O2", "-std=c++17"],
)]
CUDA = cuda_include()
if CUDA:
    extensions.append(CppExtension(
        "gpupoor._gpupoor_fastpath",
        ["gpupoor/csrc/fastpath.cpp"],
        include_dirs=[CUDA],
        libraries=["c10_cuda", "torch_cuda"],
        extra_compile_args=["-O2", "-std=c++20", "-fvisibility=hidden"],
        extra_link_args=[f"-Wl,-rpath,{p}" for p in library_paths()],
    ))
else:
    warnings.warn("gpupoor: no CUDA runtime headers (cuda_runtime_api.h; set CUDA_HOME): the "
                  "compiled launch path is not built, calls take the Python launcher")

setup(ext_modules=extensions,
      cmdclass={"build_ext": BuildExtension.with_options(use_ninja=False)})
