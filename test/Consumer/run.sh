#!/usr/bin/env bash
# Installs this build of gpupoor into a fresh prefix, builds the consumer
# project against the installed package alone, and runs it on a matmul:
#   test/Consumer/run.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
work=${2:-$(mktemp -d)}
rm -rf "$work/prefix" "$work/build"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
# Only the installed tree: the source and build trees are not on any path.
cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGPUPoor_DIR="$work/prefix/lib/cmake/gpupoor" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
format=isa
command -v ptxas > /dev/null || [[ -x /usr/local/cuda/bin/ptxas ]] && format=bin
"$work/build/consumer" "$here/matmul.mlir" sm_80 "$format"
"$work/prefix/bin/gpupoor-opt" --version | head -1
