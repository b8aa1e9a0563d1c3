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
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpBase.td"

def GPUPoor_RankedTensorOrMemRef
    : AnyTypeOf<[AnyRankedTensor, AnyMemRef], "ranked tensor or memref">;

def GPUPoor_MatmulOp : GPUPoor_Op<"matmul", [
    // The epilogue computes each element from its block arguments alone
    // (and keeps its constants: rewrite drivers hoist constants to the
    // nearest isolated region).
    IsolatedFromAbove,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface]> {
  let summary = "f16 matrix multiplication with a split-k strategy and an "
                "elementwise epilogue";
  let description = [{
    Computes, for every element (b, m, n) of C,

    ```
    C[b, m, n] = epilogue(acc, in_0[map_0(b, m, n)], ..., C_in[b, m, n])
    acc        = round(sum_k A[b, m, k] * op(B)[b, k, n])
    ```

    where `op(B)` is `B` or its transpose (see `b_layout`), the sum is the
    strategy's: f16 operands, f16 accumulation inside each of its K chunks,
    the chunk results summed in its outer type, and `round` converts that
    sum to the type of the epilogue's first block argument (the element type
    of the `linalg.matmul` this op replaces: f16 or f32).

    The `epilogue` region is one block whose arguments are `acc`, one
    element of each `epilogue_ins` operand (read at `epilogue_maps[i]` of
    `(m, n)`, or `(b, m, n)` when batched: any projected permutation, so
    per-row, per-column, transposed, full-size and 0-d operands alike) and
    the element of `init` at the same place, as in `linalg.generic`; it
    yields C's element. Its ops are side-effect free `arith` and `math` ops
    on scalars, so every element is computed on its own and the lowerings
    clone the region into their store paths; each must be one both
    lowerings translate (the kernels' NVVM one and the CPU loops'): integers
    of at most 64 bits, index, f16, bf16, f32 or f64, no explicit rounding
    mode, and not `math.clampf`, `math.ipowi`, `math.isnormal`,
    `math.isinf` or the scaling casts (docs/design/Numerics.md has the
    whole list). `init` is read only when the
    region uses its argument (`C += A * B` reads it; a plain product does
    not). Without a region the op is `C = acc` (then `acc` has C's type).

    Operands are either all ranked tensors (the op then returns the new C)
    or all memrefs (the op writes `init` in place and returns nothing), so
    the op lives on both sides of bufferization. Shapes:

    | operand | rank 2 (matmul)  | rank 3 (batched)       |
    | ------- | ---------------- | ---------------------- |
    | A       | M x K            | batch x M x K          |
    | B (kn)  | K x N            | batch x K x N          |
    | B (nk)  | N x K            | batch x N x K          |
    | init    | M x N            | batch x M x N          |

    `sums_from_negative_zero`: the K sums start from -0.0, IEEE's additive
    identity, instead of +0.0. `gpupoor-split-k` sets it where the epilogue
    adds the sum to C (`C += A * B`, a constant fill other than +0.0 among
    them), so that where every product is -0.0 (or K = 0) the result is C
    itself, as in the sum `linalg.matmul` computes from C, sign of zero
    included. The CPU loop form honours it; the GPU kernels' tensor-core
    sums start from +0.0 whatever it says (docs/design/Numerics.md).

    `config`, when present, is the GPU kernel's configuration
    (`gpupoor-select-kernel-config` sets it; see `#gpupoor.kernel_config`).

    Example: a linear layer with an f32 matmul result, its truncation, a
    per-column bias and ReLU:

    ```mlir
    %c = gpupoor.matmul %a, %b
           ins(%bias : tensor<256xf16>) maps([affine_map<(m, n) -> (n)>])
           outs(%init : tensor<128x256xf16>)
           strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16,
                                     outer = f32>)
           : tensor<128x512xf16>, tensor<512x256xf16> -> tensor<128x256xf16>
           epilogue {
      ^bb0(%acc: f32, %bias: f16, %out: f16):
        %t = arith.truncf %acc : f32 to f16
        %s = arith.addf %t, %bias : f16
        %zero = arith.constant 0.0 : f16
        %r = arith.maximumf %s, %zero : f16
        gpupoor.yield %r : f16
    }
    ```
  }];

  let arguments = (ins
    GPUPoor_RankedTensorOrMemRef:$a,
    GPUPoor_RankedTensorOrMemRef:$b,
    Variadic<GPUPoor_RankedTensorOrMemRef>:$epilogue_ins,
    GPUPoor_RankedTensorOrMemRef:$init,
    GPUPoor_SplitKAttr:$strategy,
    OptionalAttr<GPUPoor_KernelConfigAttr>:$config,
    DefaultValuedAttr<AffineMapArrayAttr, "{}">:$epilogue_maps,
    UnitAttr:$sums_from_negative_zero
  );
  let results = (outs Optional<AnyRankedTensor>:$result);
  let regions = (region MaxSizedRegion<1>:$epilogue);

  let assemblyFormat = [{
    $a `,` $b
    (`ins` `(` $epilogue_ins^ `:` type($epilogue_ins) `)` `maps` `(`
       $epilogue_maps `)`)?
    `outs` `(` $init `:` type($init) `)`
    `strategy` `(` qualified($strategy) `)`
    (`config` `(` qualified($config)^ `)`)?
    attr-dict `:` type($a) `,` type($b) (`->` type($result)^)?
    (`epilogue` $epilogue^)?
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;

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

    /// The epilogue's block, or null without one.
    ::mlir::Block *getEpilogueBlock() {
      return getEpilogue().empty() ? nullptr : &getEpilogue().front();
    }
    /// The type `acc` is rounded to: the epilogue's first argument's, C's
    /// element type without an epilogue.
    Type getAccType();
    /// Whether the epilogue reads `init` (C += A * B).
    bool readsInit();
  }];
}

def GPUPoor_YieldOp : GPUPoor_Op<"yield", [
    Pure, Terminator, HasParent<"MatmulOp">]> {
  let summary = "yields C's element from a gpupoor.matmul epilogue";
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOOROPS_TD
