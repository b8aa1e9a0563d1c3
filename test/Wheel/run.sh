#!/usr/bin/env bash
# The package as a user installs it: a wheel (scripts/build-wheel.sh, with a
# small kernel library of one variant for sm_80 and for sm_90a), installed
# into a fresh virtual environment and imported from an empty directory,
# where no checkout and no gpupoor-opt is in reach; then the package's CPU
# tests from a copy of python/tests: those that need no checkout (the GPU
# tests among them skip without a GPU; docs/guide/Python.md, "Installing").
#
#   test/Wheel/run.sh BUILD_DIR WORK_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
work=$(realpath -m "$2")
python=${PYTHON:-python3}
rm -rf "$work"
mkdir -p "$work/empty"

wheel=$(GPUPOOR_OPT=$build/bin/gpupoor-opt GPUPOOR_WHEEL_STAGE=$work/stage \
  "$root/scripts/build-wheel.sh" --out "$work/dist" -- \
  --chips sm_80,sm_90a --only nk_f32_none_f16_large_s32 | tail -1)
echo "wheel: $wheel"

# torch (and numpy, pytest) from the system: the wheel's dependencies, not
# gpupoor, which no system path holds.
"$python" -m venv --system-site-packages "$work/venv"
venv_python=$work/venv/bin/python
"$venv_python" -m pip install -q --no-deps --no-index "$wheel"

# (Without __pycache__: ctest runs the package's own tests beside this one,
# whose pytest may be writing there.)
tar -C "$root/python" --exclude=__pycache__ -cf - tests | tar -C "$work/empty" -xf -
cd "$work/empty"
env -u GPUPOOR_OPT -u PYTHONPATH "$venv_python" - "$work/venv" <<'EOF'
import pathlib, sys
import gpupoor
from gpupoor import library
venv = pathlib.Path(sys.argv[1]).resolve()
where = pathlib.Path(gpupoor.__file__).resolve()
assert venv in where.parents, f"gpupoor imported from {where}, not the wheel's install"
root = pathlib.Path(library.PACKAGE_LIBRARY)
chips = sorted(p.parent.name for p in root.glob("*/index.json"))
assert chips == ["sm_80", "sm_90a"], chips
# The kernels themselves, and the native extension, shipped.
assert all(list((root / c).glob("*/*.cubin")) for c in chips), "no cubin shipped"
assert list(where.parent.glob("_C*.so")), "no native extension shipped"
print(f"installed: {where.parent}; library chips: {', '.join(chips)}")
EOF
# The conftest puts the copy's parent (empty) first on sys.path: the
# installed package is what the tests import.
env -u GPUPOOR_OPT -u PYTHONPATH "$venv_python" -m pytest -q -p no:cacheprovider \
  tests/test_arguments.py tests/test_launcher.py tests/test_gpu.py \
  tests/test_gpu_unaligned.py tests/test_gpu_autograd.py tests/test_gpu_torch.py \
  tests/test_gpu_launches.py tests/test_gpu_batched.py tests/test_gpu_sm90a.py \
  tests/test_gpu_sm90a_rows.py \
  tests/test_gpu_arguments.py
