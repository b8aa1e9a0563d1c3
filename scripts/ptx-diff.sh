#!/usr/bin/env bash
# Proves that a change leaves the kernels alone: builds gpupoor-opt at BASE
# (a git ref, default HEAD) in a worktree and from the working tree, compiles
# every kernel the GPU suite and the benchmarks build (test/GPU/build_kernels.py:
# the suite's variants, the tile sweep and the static shapes the benchmarks
# time) to PTX with both, and diffs the PTX byte for byte.
#
#   scripts/ptx-diff.sh [BASE]          exit 0: identical; 1: a kernel differs
#
# The working tree's build_kernels.py drives both compilers, so both build the
# same list; pipeline options must therefore mean the same on both sides.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-HEAD}
work=${GPUPOOR_PTX_DIFF_DIR:-${TMPDIR:-/tmp}/gpupoor-ptx-diff}
shapes=${GPUPOOR_PTX_DIFF_SHAPES:-4096x4096x4096,8192x8192x8192,4096x14336x4096,512x10240x2048,512x6144x2048,512x2048x5120,16x4096x14336}
chips=${GPUPOOR_PTX_DIFF_CHIPS:-sm_90}

rev=$(git -C "$root" rev-parse --verify "$base^{commit}")
mkdir -p "$work"
tree="$work/base-src"
if [[ -d "$tree" ]]; then
  git -C "$tree" checkout -q --detach "$rev"
else
  git -C "$root" worktree add -q --detach "$tree" "$rev"
fi
echo "ptx-diff: building gpupoor-opt at $base ($rev)" >&2
GPUPOOR_BUILD_DIR="$work/base-build" "$tree/scripts/build.sh" --target gpupoor-opt >/dev/null
echo "ptx-diff: building gpupoor-opt from the working tree" >&2
"$root/scripts/build.sh" --target gpupoor-opt >/dev/null

build_all() { # OPT OUT
  rm -rf "$2"
  for chip in $chips; do
    GPUPOOR_OPT=$1 python3 "$root/test/GPU/build_kernels.py" "$2/$chip" --chip "$chip" \
      --sweep --static "$shapes" --formats isa >/dev/null
  done
}
build_all "$work/base-build/bin/gpupoor-opt" "$work/ptx-base"
build_all "${GPUPOOR_BUILD_DIR:-$root/build}/bin/gpupoor-opt" "$work/ptx-new"

count=$(find "$work/ptx-base" -name '*.ptx' | wc -l)
if diff -r -q -x '*.json' -x '*.mlir' "$work/ptx-base" "$work/ptx-new" >&2; then
  echo "ptx-diff: $count kernels, PTX byte-identical to $base"
else
  echo "ptx-diff: PTX differs from $base (diff -r $work/ptx-base $work/ptx-new)" >&2
  exit 1
fi
