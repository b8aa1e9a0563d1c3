#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (what CI runs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -V
# The lit suite again, on an AddressSanitizer + UBSan build, then a short
# fuzzing run of the passes on that build (docs/Testing.md).
"$root/scripts/test-sanitized.sh"
# A fixed seed on a fresh corpus: the same inputs on every run.
GPUPOOR_FUZZ_CORPUS=$(mktemp -d) "$root/scripts/fuzz.sh" -seed=1 -runs=${GPUPOOR_FUZZ_RUNS:-20000}
