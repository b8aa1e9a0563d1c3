#!/usr/bin/env bash
# Runs the kernels of older chips (sm_80, sm_86, sm_89: their own tiles,
# stages and shared-memory limits) on this machine's newer GPU (an H100), as
# PTX that the driver compiles for it, through the package's exact GPU tests
# and the GPU suite, then compute-sanitizer on a subset of each. Correctness
# only: speed on another chip means nothing.
#
#   test/GPU/run_ptx_chips.sh LIB SUITE LOGS
#
# LIB:   the package's library as PTX, `python -m gpupoor.build_library --ptx
#        --chips sm_80,sm_86,sm_89 --out LIB` (here: MLIR, no GPU)
# SUITE: SUITE/<chip>, `test/GPU/build_kernels.py SUITE/<chip> --chip <chip>
#        --formats isa --skip-rejected [--only ...]`
# LOGS:  every log, and summary.txt (printed last)
#
# Environment: CHIPS (default "sm_80 sm_86 sm_89"); PYTEST_FILES (default
# test_gpu.py and the test_gpu_*.py files of every chip, those that exist);
# MEMCHECK_TESTS
# (pytest -k of the package tests memcheck runs), SAN_KERNELS (suite kernels
# memcheck runs, --sanitize-shape), RACE_KERNELS (racecheck's);
# SUITE_SHARDS: processes a chip's suite runs in (default 2); JIT_SECONDS,
# RUN_SECONDS, SAN_SECONDS: each phase's time limit. The chips
# run side by side, each in its own processes (GPUPOOR_CHIP=<chip>, the
# library from GPUPOOR_KERNEL_DIR). The JIT cache (CUDA_CACHE_PATH, 4 GiB)
# is filled first by test/GPU/jit_ptx.py, in parallel, so that the tests and
# the sanitizers load compiled code.
set -u
lib=$(realpath "$1") suite=$(realpath "$2") logs=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
chips=${CHIPS:-sm_80 sm_86 sm_89}
mkdir -p "$logs"
logs=$(realpath "$logs")
export PYTHONUNBUFFERED=1 GPUPOOR_COMPILE=0 GPUPOOR_TEST_BACKENDS=mlir
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-/tmp/gpupoor-jit-cache} CUDA_CACHE_MAXSIZE=4294967296
files=${PYTEST_FILES:-$(cd "$root/python" && ls tests/test_gpu.py tests/test_gpu_{unaligned,autograd,torch,launches,batched,arguments}.py 2>/dev/null)}
memcheck_tests=${MEMCHECK_TESTS:-(exact_on_small_integers and (7-136-1032 or 33-1000-4104 or 300-264-2056)) or strided_and_misaligned or (bias_and_activation and 77) or slices_exact_and_deterministic[3] or decode_with_bias[None-5]}
san_kernels=${SAN_KERNELS:-kn_f32 kn_f16 nk_bias_relu kn_bias_gelu_f32out kn_f32_p0 nk_f16_m32_p7 kn_full_epilogue kn_f32_batched_p0 gen_nk_bias_relu}
race_kernels=${RACE_KERNELS:-kn_f32 kn_f32_p0}
summary=$logs/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
stamp() { say "[$(date +%T), $SECONDS s] $*"; }

say "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))' 2>&1 | tee -a "$summary"
say "pytest files: $files"

# Subsets of the suite's kernels, as directories of links.
sets=$(mktemp -d)
for chip in $chips; do
  for set in san race; do
    mkdir -p "$sets/$set/$chip"
    names=$san_kernels; [[ $set == race ]] && names=$race_kernels
    for n in $names; do
      [[ -d $suite/$chip/$n ]] && ln -sfn "$suite/$chip/$n" "$sets/$set/$chip/$n"
    done
  done
done
kset() { echo "$sets/$1/$2"; }
# The suite's variants of a chip in SUITE_SHARDS processes (round robin).
shards=${SUITE_SHARDS:-2}
for chip in $chips; do
  i=0
  for d in "$suite/$chip"/*/; do
    [[ -f $d/gpupoor_matmul_0.json ]] || continue
    mkdir -p "$sets/shard$((i % shards))/$chip"
    ln -sfn "${d%/}" "$sets/shard$((i % shards))/$chip/$(basename "$d")"
    i=$((i + 1))
  done
done

stamp "JIT: every PTX kernel of the library and the suite, for this GPU"
# The package's native extensions, against this machine's PyTorch.
(cd "$root/python" && timeout 300 python3 setup.py -q build_ext --inplace \
  --build-temp /tmp/gpupoor-ext/temp --build-lib /tmp/gpupoor-ext/lib) >"$logs/extension.log" 2>&1 &
fast=$!
jit_dirs=()
for chip in $chips; do jit_dirs+=("$lib/$chip" "$suite/$chip"); done
timeout "${JIT_SECONDS:-120}" python3 "$root/test/GPU/jit_ptx.py" "${jit_dirs[@]}" \
  --jobs "${JIT_JOBS:-14}" --out "$logs/jit.json" >"$logs/jit.log" 2>&1
say "jit rc $?: $(grep -c FAIL "$logs/jit.log") failures"
grep -v '^ ' "$logs/jit.log" | tail -n 12 | tee -a "$summary"
wait $fast; say "native extensions build rc $?"

stamp "package tests and GPU suite, chips side by side"
pids=()
for chip in $chips; do
  # First, which kernel a call loads: the chip's PTX from LIB (the
  # override works); then the tests.
  (cd "$root/python" && export GPUPOOR_CHIP=$chip GPUPOOR_KERNEL_DIR=$lib &&
   timeout 60 python3 -c '
import torch, gpupoor
from gpupoor._native import C
from gpupoor._mlir_backend import device_info
x = torch.randint(-1, 2, (33, 520), device="cuda").half()
w = torch.randint(-1, 2, (200, 520), device="cuda").half()
y = gpupoor.kernels.split_k_sequential(x, w.T, backend="mlir")
assert torch.equal(y.double(), x.double() @ w.double().T)
chips, sms = device_info(0)
plan = C.describe_plan(x, w.T, None, y, "none", "f32", 32, 0, list(chips), sms)
print("chips", chips, "loaded", plan["chip"], plan["kernel"])' \
     >"$logs/probe_$chip.log" 2>&1
   timeout "${RUN_SECONDS:-200}" python3 -m pytest -q -p no:cacheprovider -rfE $files \
     >"$logs/pytest_$chip.log" 2>&1) &
  pids+=($!)
  for ((i = 0; i < shards; i++)); do
    timeout "${RUN_SECONDS:-200}" python3 "$root/test/GPU/run_gpu_suite.py" "$(kset shard$i "$chip")" \
      --quick >"$logs/suite_${chip}_$i.log" 2>&1 &
    pids+=($!)
  done
done
for p in "${pids[@]}"; do wait "$p"; done
for chip in $chips; do
  say "$chip probe: $(tail -1 "$logs/probe_$chip.log")"
  say "$chip pytest: $(grep -E ' (passed|failed|skipped|errors?)' "$logs/pytest_$chip.log" | tail -1)"
  grep -E '^(FAILED|ERROR) ' "$logs/pytest_$chip.log" | head -20 | tee -a "$summary"
  for ((i = 0; i < shards; i++)); do
    f=$logs/suite_${chip}_$i.log
    say "$chip suite --quick, shard $i ($(ls "$(kset shard$i "$chip")" | wc -l) variants): $(tail -1 "$f")"
    grep '^FAIL' "$f" | head -10 | tee -a "$summary"
  done
done

stamp "compute-sanitizer"
pids=()
export PYTORCH_NO_CUDA_MEMORY_CACHING=1
for chip in $chips; do
  timeout "${SAN_SECONDS:-120}" compute-sanitizer --tool memcheck --error-exitcode 9 \
    python3 "$root/test/GPU/run_gpu_suite.py" "$(kset san "$chip")" --sanitize-shape \
    >"$logs/memcheck_suite_$chip.log" 2>&1 &
  pids+=($!)
  timeout "${SAN_SECONDS:-120}" compute-sanitizer --tool racecheck --error-exitcode 9 \
    python3 "$root/test/GPU/run_gpu_suite.py" "$(kset race "$chip")" --sanitize-shape \
    >"$logs/racecheck_suite_$chip.log" 2>&1 &
  pids+=($!)
  (cd "$root/python" && GPUPOOR_CHIP=$chip GPUPOOR_KERNEL_DIR=$lib timeout "${SAN_SECONDS:-120}" \
     compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
     python3 -m pytest -q -p no:cacheprovider $files -k "$memcheck_tests") \
    >"$logs/memcheck_pytest_$chip.log" 2>&1 &
  pids+=($!)
done
rcs=()
for p in "${pids[@]}"; do wait "$p"; rcs+=($?); done
i=0
for chip in $chips; do
  for what in memcheck_suite racecheck_suite memcheck_pytest; do
    f=$logs/${what}_$chip.log
    say "$chip $what rc ${rcs[$i]}: $(grep -v '^=====' "$f" | grep -E ' (passed|failed|skipped)' | tail -1) | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1)"
    i=$((i + 1))
  done
done
stamp "done"
