//===- Passes.td - gpupoor conversion passes ---------------*- tablegen -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_PASSES_TD
#define GPUPOOR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGPUPoorToLoops : Pass<"convert-gpupoor-to-loops"> {
  let summary = "Lower memref gpupoor.matmul to target-independent split-k loops";
  let description = [{
    Lowers each `gpupoor.matmul` on memrefs to the loop form that the GPU
    lowerings start from and that also runs on the CPU:

    * an `scf.parallel` over output tiles (batch x BM x BN), one per thread
      block of the GPU kernel;
    * `scf.for` over the rows and columns of a tile;
    * the split loop over the S chunks of K. K is cut into ceil(K / BK)
      blocks and chunk s takes blocks [s * b, (s + 1) * b) with
      b = ceil(blocks / S), clipped to K: uneven chunks absorb any tail and
      no work is dropped (chunks past the end are empty);
    * inside a chunk, the f16 accumulator is updated once per 16-wide k
      step, exactly as m16n8k16 mma with f16 accumulators does it: the
      (up to) 16 products and the incoming accumulator are summed in f64
      and rounded once, to nearest, into f16;
    * each chunk's f16 result is added to the outer accumulator (f32, or f16
      with one rounding per add);
    * the epilogue converts to f32, adds the bias, applies ReLU or GELU
      (erf form) and converts to C's element type.

    When the strategy has no `splits`, S is computed from K at run time with
    gpu_poor's rule. Tensor-semantics ops are rejected: bufferize first.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // GPUPOOR_CONVERSION_PASSES_TD
