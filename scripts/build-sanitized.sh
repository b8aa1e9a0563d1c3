#!/usr/bin/env bash
# Configures and builds gpupoor with AddressSanitizer and UndefinedBehavior-
# Sanitizer (clang 22 and its runtime, from Debian's packages) in its own
# build directory, ${GPUPOOR_SAN_BUILD_DIR:-build-san}, with the libFuzzer
# harness:   scripts/build-sanitized.sh TARGET...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_SAN_BUILD_DIR:-$root/build-san}
# -O1 keeps the build and the instrumented runs quick.
cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_LINKER_TYPE=LLD \
  -DGPUPOOR_SANITIZERS="address;undefined" -DGPUPOOR_BUILD_FUZZER=ON >/dev/null
cmake --build "$build" --target "$@"
