#!/usr/bin/env bash
# Fuzzes gpupoor's passes with libFuzzer under ASan and UBSan
# (tools/gpupoor-fuzz): crashes, undefined behaviour and IR that fails to
# verify after a pass stop it with a reproducer (crash-* in the working
# directory). The seed corpus is every lit test input and a set of generated
# programs (test/Differential/programs.py and adversarial.py); what the fuzzer adds is kept in
# ${GPUPOOR_FUZZ_CORPUS:-$build/fuzz-corpus} between runs. An upstream MLIR
# crash (the parser's, say) stops a run like ours; a long campaign goes on
# past crashes with -fork=N -ignore_crashes=1 and leaves each as crash-*.
#
#   scripts/fuzz.sh -seed=1 -runs=20000        (what CI runs, on a fresh corpus)
#   scripts/fuzz.sh -fork=2 -ignore_crashes=1 -max_total_time=36000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPOOR_SAN_BUILD_DIR:-$root/build-san}
"$root/scripts/build-sanitized.sh" gpupoor-fuzz >/dev/null
seeds="$build/fuzz-seeds"
corpus=${GPUPOOR_FUZZ_CORPUS:-$build/fuzz-corpus}
rm -rf "$seeds" && mkdir -p "$seeds" "$corpus"
python3 - "$root" "$seeds" <<'PY'
import glob, os, random, sys
root, out = sys.argv[1], sys.argv[2]
n = 0
for path in glob.glob(os.path.join(root, "test", "**", "*.mlir"), recursive=True):
    for chunk in open(path).read().split("// -----"):
        with open(os.path.join(out, f"lit{n}.mlir"), "w") as f:
            f.write(chunk)
        n += 1
sys.path.insert(0, os.path.join(root, "test", "Differential"))
import programs
rng = random.Random(1)
for i in range(200):
    with open(os.path.join(out, f"gen{i}.mlir"), "w") as f:
        f.write(programs.generate(rng).source)
# The adversarial forms (test/Differential/adversarial.py), 20 of each class.
import adversarial
for i in range(200):
    with open(os.path.join(out, f"adv{i}.mlir"), "w") as f:
        f.write(adversarial.generate(rng, i % 10 + 1).source)
PY
source "$root/scripts/sanitizer-env.sh"
fuzz=("$build/bin/gpupoor-fuzz" "$corpus" "$seeds" -max_len=16384 -timeout=60
      -print_final_stats=1)
if [[ ${GPUPOOR_FUZZ_TRIAGE:-0} != 1 ]]; then
  exec "${fuzz[@]}" "$@"
fi
# Triage mode (CI): go on past crashes, then fail only for those in
# gpupoor's code. A crash whose stack, up to the harness, runs only through
# libMLIR.so and the sanitizer runtime is upstream MLIR's (its parser fails
# on some mutated inputs): reported, not failed on.
artifacts=$(mktemp -d)
"${fuzz[@]}" -fork=1 -ignore_crashes=1 -artifact_prefix="$artifacts/" "$@" \
  >"$artifacts/log" 2>&1 || true
grep -E "^(stat::|Done|INFO: fuzzed)|#[0-9]+ +DONE" "$artifacts/log" || tail -5 "$artifacts/log"
# In fork mode the last progress line has the total of executions.
grep -E "^#[0-9]+: " "$artifacts/log" | tail -1 || true
if ! grep -qE "INFO: fuzzed for [1-9][0-9]* (iterations|seconds)" "$artifacts/log"; then
  echo "fuzz: the fuzzer ran no input"
  exit 1
fi
ours=0
# A hang or a blow-up is ours until shown otherwise.
for slow in "$artifacts"/timeout-* "$artifacts"/oom-*; do
  [[ -e $slow ]] || continue
  echo "fuzz: $(basename "$slow") (a hang or an out-of-memory):"
  head -c 2000 "$slow"
  ours=1
done
for crash in "$artifacts"/crash-*; do
  [[ -e $crash ]] || continue
  trace=$("$build/bin/gpupoor-fuzz" "$crash" 2>&1 || true)
  frames=$(sed -n '/ERROR: \|invalid IR after\|runtime error/,/LLVMFuzzerTestOneInput/p' <<<"$trace" |
    grep -E "bin/gpupoor-fuzz\+" | grep -vE " in (__interceptor_|__asan|mem(cpy|move|set)|operator new|LLVMFuzzerTestOneInput)" || true)
  if [[ -n $frames || $trace == *"invalid IR after"* ]]; then
    echo "fuzz: a crash in gpupoor's code: $crash"
    echo "$trace" | head -40
    ours=1
  else
    echo "fuzz: an upstream MLIR crash (not gpupoor's): $(basename "$crash"): $(grep -m1 -oE " in [^ ]+::[^ (]+" <<<"$trace" | head -1)"
  fi
done
exit $ours
