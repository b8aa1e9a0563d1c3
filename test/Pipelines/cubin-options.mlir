// Options of gpupoor-to-cubin that no pass checks in time fail the pipeline
// before it runs, one diagnostic each, and leave no output.
// RUN: rm -f %t
// RUN: not gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 cubin-format=elf" -o %t 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not test -e %t
// RUN: not gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 toolkit=%t.missing" 2>&1 | FileCheck %s --check-prefix=TOOLKIT -DDIR=%t.missing
// RUN: not gpupoor-opt %s --gpupoor-to-cubin="chip=sm_99 cubin-format=isa" 2>&1 | FileCheck %s --check-prefix=CHIP
// A pass's option error fails the process too.
// RUN: not gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 cubin-format=isa stages=64" -o %t 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not test -e %t

// FORMAT: error: gpupoor-to-cubin: cubin-format must be bin, isa, fatbin or llvm, got 'elf'
// TOOLKIT: error: gpupoor-to-cubin: toolkit '[[DIR]]' has no bin/ptxas, which cubin-format=bin needs (cubin-format=isa and llvm need none)
// CHIP: error: gpupoor-to-cubin: unknown chip 'sm_99' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)
// STAGES: error: gpupoor-select-kernel-config: stages must be 0 (chosen) or in [2, 32], got 64
func.func @mm(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %zero = arith.constant 0.0 : f16
  %f = linalg.fill ins(%zero : f16) outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%f : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}
