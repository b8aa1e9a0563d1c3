#!/usr/bin/env bash
# Configures (once) and builds gpupoor into ${GPUPOOR_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_BUILD_DIR:-$root/build}
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_LINKER_TYPE=LLD \
    ${MLIR_DIR:+-DMLIR_DIR="$MLIR_DIR"} \
    ${LLVM_DIR:+-DLLVM_DIR="$LLVM_DIR"}
fi
cmake --build "$build" "$@"
