#!/usr/bin/env bash
# Sets up, builds gpupoor-opt and compiles the bundled example with it:
# prints the split-k rewrite, then compiles the example to cubins (PTX when
# no ptxas is found) and host code lowered to LLVM, and prints each kernel's
# summary from its manifest.
#   ./scripts/run-example.sh [FILE.mlir]       (CHIP=sm_80 ... picks the chip)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_BUILD_DIR:-$root/build}
example=${1:-$root/examples/matmul.mlir}
chip=${CHIP:-sm_90}
"$root/scripts/install-deps.sh" >&2
"$root/scripts/build.sh" --target gpupoor-opt >&2
opt="$build/bin/gpupoor-opt"
echo "== gpupoor-opt $(basename "$example") --gpupoor-split-k" >&2
"$opt" "$example" --gpupoor-split-k=report-ineligible

format=bin
[[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]] || format=isa
out=$(mktemp -d)
echo "== gpupoor-opt $(basename "$example") --gpupoor-to-cubin=\"chip=$chip cubin-format=$format dump-dir=...\" --gpupoor-host-to-llvm" >&2
"$opt" "$example" --gpupoor-to-cubin="chip=$chip cubin-format=$format dump-dir=$out" \
  --gpupoor-host-to-llvm -o "$out/host.mlir"
python3 - "$out" "$format" <<'PY'
import glob, json, os, sys
out, fmt = sys.argv[1:]
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    m = json.load(open(path))
    size = os.path.getsize(os.path.join(out, m["cubin"])) if fmt == "bin" else 0
    print(f"{m['kernel']}: {m['chip']}, tile {'x'.join(map(str, m['tile']))}, "
          f"{m['stages']} stages, splits {m['splits']} (max {m['max_splits']}), outer {m['outer']}, "
          f"{m['block_size']} threads, {m['dynamic_shared_memory']} B shared memory"
          + (f", {size} B cubin" if size else ", PTX only (no ptxas)")
          + f"; epilogue inputs {m['epilogue_inputs']}; requires: {m['requires']}")
print(f"host code: {os.path.getsize(os.path.join(out, 'host.mlir'))} B of LLVM dialect "
      f"({out}/host.mlir; mlir-translate --mlir-to-llvmir turns it into LLVM IR)")
PY
