#!/usr/bin/env bash
# Builds the gpupoor PyTorch package's wheel: the native extension (built
# against the installed torch) and the kernel library as data, so that the
# wheel runs where no LLVM, MLIR or gpupoor-opt is installed.
#
#   scripts/build-wheel.sh [--out DIR] [--library DIR] [-- BUILD_LIBRARY_ARGS...]
#
# The library: --library DIR takes a library built earlier (the directory
# that holds <chip>/index.json, e.g. python/gpupoor/_kernels); otherwise
# `python -m gpupoor.build_library` builds it with $GPUPOOR_OPT (default:
# build/bin/gpupoor-opt) and BUILD_LIBRARY_ARGS (default: every chip,
# sm_80, sm_86, sm_89 and sm_90a; e.g. `-- --chips sm_90a --jobs 16`).
# The wheel requires the torch minor release it was built against: the
# extension links torch's C++ API, which changes between releases.
# Prints the wheel's path last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/dist
library=
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --library) library=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "build-wheel.sh: unknown argument $1 (see its header)" >&2; exit 2 ;;
  esac
done
python=${PYTHON:-python3}

# The package's sources in a staging tree of the checkout's shape (setup.py
# compiles ../lib/Policy, ../lib/Runtime/Driver.cpp and ../include), so
# that neither the checkout's own library nor its build outputs leak in.
stage=${GPUPOOR_WHEEL_STAGE:-$root/build/wheel-stage}
rm -rf "$stage"
mkdir -p "$stage/lib/Runtime"
cp -r "$root/include" "$stage/"
cp -r "$root/lib/Policy" "$stage/lib/"
cp "$root/lib/Runtime/Driver.cpp" "$stage/lib/Runtime/"
"$python" -c 'import shutil, sys
shutil.copytree(sys.argv[1], sys.argv[2], ignore=shutil.ignore_patterns(
    "build", "_kernels", "*.so", "*.egg-info", "__pycache__", ".pytest_cache"))' \
  "$root/python" "$stage/python"
mkdir -p "$stage/python/gpupoor/_kernels"
if [[ -n $library ]]; then
  [[ -n $(find "$library" -maxdepth 2 -name index.json -print -quit) ]] ||
    { echo "build-wheel.sh: $library holds no <chip>/index.json" >&2; exit 1; }
  cp -r "$library"/. "$stage/python/gpupoor/_kernels/"
else
  GPUPOOR_OPT=$(realpath "${GPUPOOR_OPT:-$root/build/bin/gpupoor-opt}")
  export GPUPOOR_OPT
  (cd "$root/python" && "$python" -m gpupoor.build_library \
     --out "$stage/python/gpupoor/_kernels" "$@")
fi

# Pin torch to the release the extension is built against.
torch_minor=$("$python" -c "import torch; print('.'.join(torch.__version__.split('+')[0].split('.')[:2]))")
sed -i "s/^  \"torch>=[0-9.]*\",$/  \"torch~=${torch_minor}.0\",/" "$stage/python/pyproject.toml"
grep -q "\"torch~=${torch_minor}.0\"" "$stage/python/pyproject.toml" ||
  { echo "build-wheel.sh: could not pin torch in pyproject.toml" >&2; exit 1; }

# ccache (its compiler links: torch's extension build takes one program as
# CXX) across staging trees: paths relative to the stage.
if [[ -z ${CXX:-} && -x /usr/lib/ccache/c++ ]]; then
  export CXX=/usr/lib/ccache/c++ CCACHE_BASEDIR=$stage CCACHE_NOHASHDIR=1
fi
mkdir -p "$out"
"$python" -m pip wheel --no-build-isolation --no-deps --no-index -q "$stage/python" -w "$out"
ls -t "$out"/gpupoor-*.whl | head -1
