// RUN: not gpupoor-opt %s -gpupoor-split-k=outer-type=bf16 2>&1 | FileCheck %s --check-prefix=OUTER
// RUN: not gpupoor-opt %s -gpupoor-split-k=chip=sm_75 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not gpupoor-opt %s -gpupoor-split-k=tile=64,64,24 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not gpupoor-opt %s -gpupoor-split-k=splits=-1 2>&1 | FileCheck %s --check-prefix=SPLITS
// RUN: not gpupoor-opt %s -gpupoor-split-k=max-splits=0 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: not gpupoor-opt %s -gpupoor-split-k=slices=-3 2>&1 | FileCheck %s --check-prefix=SLICES
// RUN: not gpupoor-opt %s -gpupoor-split-k="splits=2 slices=70000" 2>&1 | FileCheck %s --check-prefix=SLICESMAX
// RUN: not gpupoor-opt %s -gpupoor-split-k=sets=3 2>&1 | FileCheck %s --check-prefix=SETS
// RUN: not gpupoor-opt %s -gpupoor-split-k="chip=sm_90 swap=true" 2>&1 | FileCheck %s --check-prefix=SWAP
// RUN: not gpupoor-opt %s -gpupoor-split-k=swap=maybe 2>&1 | FileCheck %s --check-prefix=SWAPVAL

// Bad pass options are reported before anything is rewritten.
// OUTER: error: gpupoor-split-k: outer-type must be f16 or f32, got 'bf16'
// CHIP: error: gpupoor-split-k: unknown chip 'sm_75' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)
// TILE: error: gpupoor-split-k: invalid strategy options: tile BK = 24 is not a multiple of 16 (the MMA k step)
// SPLITS: error: gpupoor-split-k: splits must be >= 0, got -1
// MAX: error: gpupoor-split-k: invalid strategy options: max_splits must be in [1, 65536], got 0
// SLICES: error: gpupoor-split-k: slices must be 0 (chosen) or in [1, 65535], got -3
// SLICESMAX: error: gpupoor-split-k: slices must be 0 (chosen) or in [1, 65535], got 70000
// SETS: error: gpupoor-split-k: sets must be 0 (the chip's rules) or a power of two, got 3
// SWAP: error: gpupoor-split-k: swap=true needs chip=sm_90a, got sm_90
// SWAPVAL: for the --swap option: Cannot find option named 'maybe'!
func.func @f() {
  return
}
