#!/usr/bin/env bash
# Builds gpupoor with AddressSanitizer and UndefinedBehaviorSanitizer (clang
# 22 and its runtime, from Debian's packages) in its own build directory,
# ${GPUPOOR_SAN_BUILD_DIR:-build-san}, and runs the lit suite with it: any
# memory error or undefined behaviour in a pass fails the test that hit it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_SAN_BUILD_DIR:-$root/build-san}
if [[ ! -f "$build/build.ninja" ]]; then
  # -O1 keeps the build and the instrumented runs quick.
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_LINKER_TYPE=LLD \
    -DGPUPOOR_SANITIZERS="address;undefined" >/dev/null
fi
cmake --build "$build" --target gpupoor-opt
# MLIR's registries live until exit by design: leaks are not errors here.
# LLVM's BumpPtrAllocator poisons its free space when built with ASan; our
# instrumented copies of its inline code share allocators with Debian's
# uninstrumented libMLIR.so, which writes there without unpoisoning: manual
# poisoning is ignored, heap and stack checks stay.
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir "$build" -R check-gpupoor --output-on-failure
