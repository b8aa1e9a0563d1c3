// REQUIRES: ptxas
// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a dump-dir=%t toolkit=%cuda_home" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON
// RUN: rm -rf %t.isa && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a cubin-format=isa dump-dir=%t.isa" -o /dev/null
// RUN: FileCheck %s --input-file=%t.isa/gpupoor_matmul_0.ptx
// RUN: rm -rf %t.one && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a blocks-per-sm=1 dump-dir=%t.one toolkit=%cuda_home" -o /dev/null
// RUN: FileCheck %s --input-file=%t.one/gpupoor_matmul_0.json --check-prefix=ONE

// A decode product whose 14336 / 64 = 224 swapped tiles exceed the 132 SMs:
// two blocks an SM, so the whole grid is resident at once. ptxas gives a
// thread half an SM's registers at launch (128 of 256 threads x 2 blocks);
// the producer keeps 24 and the consumer warpgroup takes 232, exactly the
// block's 32768 (more would make setmaxnreg.inc wait forever).
// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 2
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16

// SUMMARY: remark: gpupoor_matmul_0: {{[0-9]+}} bytes of dynamic shared memory, 256 threads, 128 registers, 0-byte stack frame (no spills)

// JSON: "blocks_per_sm": 2,
// JSON: "register_split": {
// JSON-NEXT: "consumer": 232,
// JSON-NEXT: "least_at_launch": 128,
// JSON-NEXT: "producer": 24
// JSON: "registers": 128,
// JSON: "swapped_operands": true,

// One block an SM: a thread has up to 255 registers at launch; the
// consumer takes 240, the most this kernel asks for.
// ONE: "blocks_per_sm": 1,
// ONE: "register_split": {
// ONE-NEXT: "consumer": 240,
// ONE-NEXT: "least_at_launch": 132,
// ONE-NEXT: "producer": 24
func.func @decode(%x: tensor<1x4096xf16>, %w: tensor<14336x4096xf16>) -> tensor<1x14336xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x14336xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x14336xf16>) -> tensor<1x14336xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %w : tensor<1x4096xf16>, tensor<14336x4096xf16>)
                     outs(%f : tensor<1x14336xf16>) -> tensor<1x14336xf16>
  return %r : tensor<1x14336xf16>
}
