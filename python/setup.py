"""Builds gpupoor._C, the package's native extension, from csrc/ and the
compiler's policy library (../lib/Policy: the same sources gpupoor-opt
links). Everything else is in pyproject.toml.

  pip install --no-build-isolation ./python      # builds it against the installed torch
  python setup.py build_ext --inplace            # into the source tree (the CMake build does)
"""

import os
from pathlib import Path

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# Relative to this directory, as setuptools wants sources.
POLICY = sorted(os.path.relpath(p, HERE) for p in (REPO / "lib" / "Policy").glob("*.cpp"))

setup(
    ext_modules=[CppExtension(
        "gpupoor._C",
        ["gpupoor/csrc/policy.cpp", *POLICY],
        include_dirs=[str(REPO / "include")],
        extra_compile_args=["-O2", "-std=c++17"],
    )],
    cmdclass={"build_ext": BuildExtension.with_options(use_ninja=False)},
)
