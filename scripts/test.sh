#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (what CI runs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -V
# The lit suite again, on an AddressSanitizer + UBSan build, then a short
# fuzzing run of the passes on that build (docs/guide/Testing.md).
"$root/scripts/test-sanitized.sh"
# On a fresh corpus, past upstream MLIR's crashes (scripts/fuzz.sh).
GPUPOOR_FUZZ_CORPUS=$(mktemp -d) GPUPOOR_FUZZ_TRIAGE=1 \
  "$root/scripts/fuzz.sh" -runs=${GPUPOOR_FUZZ_RUNS:-20000}
