#!/usr/bin/env bash
# Runs the lit suite and the adversarial differential programs with gpupoor
# built with ASan and UBSan (scripts/build-sanitized.sh): any memory error or
# undefined behaviour in a pass fails the test that hit it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_SAN_BUILD_DIR:-$root/build-san}
"$root/scripts/build-sanitized.sh" gpupoor-opt
source "$root/scripts/sanitizer-env.sh"
ctest --test-dir "$build" -R "check-gpupoor|differential-adversarial" --output-on-failure
