#!/usr/bin/env bash
# Compiles linear_relu.mlir with gpupoor-opt (cubins for CHIP, default
# sm_90), mlir-translate and llc, and links it with main.cpp and
# libgpupoor_cuda_runtime into WORK/linear_relu; runs it when a GPU is there
# (and check_torch.py, where PyTorch sees that GPU). GPUPOOR_OPTIONS: more
# --gpupoor-to-cubin options (e.g. persistent=true).
#   test/Runtime/build.sh BUILD_DIR WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
work=$2
chip=${CHIP:-sm_90}
tools=${LLVM_TOOLS:-/usr/lib/llvm-22/bin}
mkdir -p "$work"
"$build/bin/gpupoor-opt" "$here/linear_relu.mlir" \
  --gpupoor-to-cubin="chip=$chip toolkit=${CUDA_TOOLKIT:-/usr/local/cuda} ${GPUPOOR_OPTIONS:-}" --gpupoor-host-to-llvm -o "$work/linear_relu.llvm.mlir"
"$tools/mlir-translate" --mlir-to-llvmir "$work/linear_relu.llvm.mlir" -o "$work/linear_relu.ll"
"$tools/llc" -O2 -filetype=obj -relocation-model=pic "$work/linear_relu.ll" -o "$work/linear_relu.o"
# The runtime needs libcuda.so.1, the driver's: where only the toolkit's
# stub exists (libcuda.so, no .so.1), the linker leaves it to run time.
${CXX:-g++} -O2 "$here/main.cpp" "$work/linear_relu.o" -o "$work/linear_relu" \
  -L"$build/lib" -lgpupoor_cuda_runtime -Wl,-rpath,"$build/lib" -Wl,--allow-shlib-undefined
nm -D --undefined-only "$work/linear_relu" | grep -q mgpuLaunchKernel \
  || nm --undefined-only "$work/linear_relu" | grep -q mgpuLaunchKernel
echo "built $work/linear_relu ($chip)"
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  "$work/linear_relu"
  if python3 -c "import torch; assert torch.cuda.is_available()" 2> /dev/null; then
    python3 "$here/check_torch.py" "$work/linear_relu"
  fi
fi
