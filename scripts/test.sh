#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (what CI runs). Each phase
# prints its wall time ("== phase: N s"), so that a slow CI run shows where.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_BUILD_DIR:-$root/build}
phase() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}
phase install-deps "$root/scripts/install-deps.sh"
phase build "$root/scripts/build.sh"
# The tests in parallel, one a core (each writes its own directories); each
# failing test's output is printed.
phase ctest ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
# The lit suite again, on an AddressSanitizer + UBSan build, then a short
# fuzzing run of the passes on that build (docs/guide/Testing.md).
phase sanitized "$root/scripts/test-sanitized.sh"
# On a fresh corpus, past upstream MLIR's crashes (scripts/fuzz.sh).
GPUPOOR_FUZZ_CORPUS=$(mktemp -d)
export GPUPOOR_FUZZ_CORPUS GPUPOOR_FUZZ_TRIAGE=1
phase fuzz "$root/scripts/fuzz.sh" -runs=${GPUPOOR_FUZZ_RUNS:-20000}
