//===- GPUPoorOps.td - gpupoor operations ------------------*- tablegen -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOROPS_TD
#define GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOROPS_TD

include "gpupoor/Dialect/GPUPoor/IR/GPUPoorAttrs.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def GPUPoor_RankedTensorOrMemRef
    : AnyTypeOf<[AnyRankedTensor, AnyMemRef], "ranked tensor or memref">;

def GPUPoor_MatmulOp : GPUPoor_Op<"matmul", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface]> {
  let summary = "f16 matrix multiplication with a split-k strategy";
  let description = [{
    Computes `C = epilogue(A * op(B) + bias)` where `op(B)` is `B` or its
    transpose (see `b_layout`), with f16 operands, f16 accumulation inside
    each of the strategy's K chunks and the chunk results summed in the
    strategy's outer type before the conversion to C's element type.

    Operands are either all ranked tensors (the op then returns the new C)
    or all memrefs (the op writes `init` in place and returns nothing), so
    the op lives on both sides of bufferization. Shapes:

    | operand | rank 2 (matmul)  | rank 3 (batched)       |
    | ------- | ---------------- | ---------------------- |
    | A       | M x K            | batch x M x K          |
    | B (kn)  | K x N            | batch x K x N          |
    | B (nk)  | N x K            | batch x N x K          |
    | bias    | N                | N                      |
    | init    | M x N            | batch x M x N          |

    `config`, when present, is the GPU kernel's configuration
    (`gpupoor-select-kernel-config` sets it; see `#gpupoor.kernel_config`).

    `init` provides C's element type (f16 or f32); its values are not read:
    the op overwrites C, as `linalg.matmul` does on a zero-filled init.

    Example:

    ```mlir
    %c = gpupoor.matmul %a, %b bias(%bias : tensor<256xf16>)
           outs(%init : tensor<128x256xf32>)
           strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16,
                                     outer = f32>)
           : tensor<128x512xf16>, tensor<512x256xf16> -> tensor<128x256xf32>
    ```
  }];

  let arguments = (ins
    GPUPoor_RankedTensorOrMemRef:$a,
    GPUPoor_RankedTensorOrMemRef:$b,
    Optional<GPUPoor_RankedTensorOrMemRef>:$bias,
    GPUPoor_RankedTensorOrMemRef:$init,
    GPUPoor_SplitKAttr:$strategy,
    OptionalAttr<GPUPoor_KernelConfigAttr>:$config
  );
  let results = (outs Optional<AnyRankedTensor>:$result);

  let assemblyFormat = [{
    $a `,` $b (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $init `:` type($init) `)`
    `strategy` `(` qualified($strategy) `)`
    (`config` `(` qualified($config)^ `)`)?
    attr-dict `:` type($a) `,` type($b) (`->` type($result)^)?
  }];

  let hasVerifier = 1;

  let extraClassDeclaration = [{
    /// DestinationStyleOpInterface: `init` is the only DPS init.
    MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }

    bool isBatched() { return getAType().getRank() == 3; }
    bool hasTensorSemantics() {
      return ::llvm::isa<RankedTensorType>(getA().getType());
    }

    ShapedType getAType() { return ::llvm::cast<ShapedType>(getA().getType()); }
    ShapedType getBType() { return ::llvm::cast<ShapedType>(getB().getType()); }
    ShapedType getInitType() {
      return ::llvm::cast<ShapedType>(getInit().getType());
    }
  }];
}

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOROPS_TD
