#!/usr/bin/env bash
# Sets up, builds gpupoor-opt and compiles the bundled example with it,
# printing the result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_BUILD_DIR:-$root/build}
example=${1:-$root/examples/matmul.mlir}
"$root/scripts/install-deps.sh" >&2
"$root/scripts/build.sh" --target gpupoor-opt >&2
echo "== gpupoor-opt $(basename "$example") --gpupoor-split-k" >&2
"$build/bin/gpupoor-opt" "$example" --gpupoor-split-k=report-ineligible
