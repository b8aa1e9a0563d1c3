//===- GPUPoorBase.td - gpupoor dialect definition ---------*- tablegen -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORBASE_TD
#define GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORBASE_TD

include "mlir/IR/OpBase.td"

def GPUPoor_Dialect : Dialect {
  let name = "gpupoor";
  let cppNamespace = "::mlir::gpupoor";
  let summary = "Split-k matrix multiplication with fp16 tensor-core accumulators";
  let description = [{
    The `gpupoor` dialect carries f16 matrix multiplications together with the
    split-k strategy that makes f16 accumulation accurate enough to use: K is
    split into S chunks, each chunk is accumulated in f16 on the tensor cores,
    and the chunk results are added into an outer accumulator (f16 or f32).

    The dialect is a stepping stone between `linalg` (which it is rewritten
    from) and the target-specific lowerings (`nvgpu`/`nvvm`, or loops on the
    CPU).
  }];
  let useDefaultAttributePrinterParser = 1;
}

class GPUPoor_Op<string mnemonic, list<Trait> traits = []>
    : Op<GPUPoor_Dialect, mnemonic, traits>;

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORBASE_TD
