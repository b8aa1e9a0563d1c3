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
chips=${GPUPOOR_PTX_DIFF_CHIPS:-sm_90 sm_80}

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
      --sweep --static "$shapes" --formats isa --skip-rejected | grep rejected || true
  done
}
build_all "$work/base-build/bin/gpupoor-opt" "$work/ptx-base"
build_all "${GPUPOOR_BUILD_DIR:-$root/build}/bin/gpupoor-opt" "$work/ptx-new"

# Kernels one side rejects (a chip's shared-memory limit, say) are listed
# above; the ones both sides built must match byte for byte.
(cd "$work/ptx-base" && find . -name '*.ptx' | sort) >"$work/base.list"
(cd "$work/ptx-new" && find . -name '*.ptx' | sort) >"$work/new.list"
comm -3 "$work/base.list" "$work/new.list" | sed 's/^/ptx-diff: built on one side only: /' >&2
differ=0 count=0
while read -r f; do
  count=$((count + 1))
  cmp -s "$work/ptx-base/$f" "$work/ptx-new/$f" || { echo "ptx-diff: differs: $f" >&2; differ=1; }
done < <(comm -12 "$work/base.list" "$work/new.list")
if ((differ)); then
  echo "ptx-diff: PTX differs from $base (diff -r $work/ptx-base $work/ptx-new)" >&2
  exit 1
fi
echo "ptx-diff: $count kernels built on both sides, PTX byte-identical to $base"
