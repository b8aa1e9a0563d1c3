#!/usr/bin/env bash
# Installs what gpupoor needs to build and test on Debian 12, when missing:
# LLVM/MLIR 22 from Debian's packages, CMake, Ninja, ccache, lld, a C++
# compiler, and clang 22 with its sanitizer runtimes. Then reports where ptxas is (needed only to build cubins).
set -euo pipefail

packages=(
  cmake ninja-build ccache lld g++ python3 python3-venv
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # The sanitized build (scripts/test-sanitized.sh).
  clang-22 libclang-rt-22-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all Debian packages present"
fi

# Python packages of the numerics tests, from PyPI.
if ! python3 -c "import numpy, pytest" 2>/dev/null; then
  echo "install-deps: installing numpy and pytest with pip"
  python3 -m pip install -q --disable-pip-version-check numpy pytest
fi
# PyTorch (with cuda-bindings, the package launcher's driver API) for the
# Python package's tests; about 3 GB from PyPI, then pip's cache.
if ! python3 -c "import torch, cuda.bindings" 2>/dev/null; then
  echo "install-deps: installing torch and cuda-bindings with pip"
  python3 -m pip install -q --disable-pip-version-check torch cuda-bindings
fi

# ptxas: CUDA_HOME first, then /usr/local/cuda, then PATH.
ptxas=""
for candidate in ${CUDA_HOME:+"$CUDA_HOME/bin/ptxas"} /usr/local/cuda/bin/ptxas; do
  if [[ -x "$candidate" ]]; then ptxas=$candidate; break; fi
done
if [[ -z "$ptxas" ]]; then ptxas=$(command -v ptxas || true); fi
if [[ -n "$ptxas" ]]; then
  echo "install-deps: ptxas found at $ptxas"
else
  echo "install-deps: no ptxas found (set CUDA_HOME, or put the CUDA toolkit's bin/ on PATH)." \
       "Building cubins needs it; everything else builds and tests without it."
fi
