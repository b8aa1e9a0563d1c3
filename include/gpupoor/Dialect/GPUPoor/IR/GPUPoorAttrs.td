//===- GPUPoorAttrs.td - gpupoor attributes ----------------*- tablegen -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORATTRS_TD
#define GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORATTRS_TD

include "gpupoor/Dialect/GPUPoor/IR/GPUPoorBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def GPUPoor_Epilogue : I32EnumAttr<"Epilogue",
    "elementwise function applied to the result after the bias", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Relu", 1, "relu">,
      I32EnumAttrCase<"Gelu", 2, "gelu">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

def GPUPoor_BLayout : I32EnumAttr<"BLayout",
    "storage layout of the B operand", [
      // B is K x N (row-major), as in C = A * B.
      I32EnumAttrCase<"KN", 0, "kn">,
      // B is N x K, the nn.Linear weight layout: C = A * B^T.
      I32EnumAttrCase<"NK", 1, "nk">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

def GPUPoor_Chip : I32EnumAttr<"Chip",
    "NVIDIA compute capability the strategy is chosen for", [
      I32EnumAttrCase<"SM80", 80, "sm_80">,
      I32EnumAttrCase<"SM86", 86, "sm_86">,
      I32EnumAttrCase<"SM89", 89, "sm_89">,
      I32EnumAttrCase<"SM90", 90, "sm_90">,
      // Hopper with the architecture-specific features (wgmma).
      I32EnumAttrCase<"SM90a", 91, "sm_90a">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gpupoor";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class GPUPoor_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<GPUPoor_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A list of integers printed and parsed in square brackets, so that it reads
// as one value inside a struct-format attribute.
def GPUPoor_TileParameter : ArrayRefParameter<"int64_t", "[BM, BN, BK]"> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
      ::llvm::SmallVector<int64_t> sizes;
      if ($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&]() {
                return $_parser.parseInteger(sizes.emplace_back());
              }))
        return ::mlir::failure();
      return sizes;
    }()
  }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

def GPUPoor_SplitKAttr : GPUPoor_Attr<"SplitK", "split_k"> {
  let summary = "How a matmul is split along K and accumulated";
  let description = [{
    Describes the split-k strategy of a `gpupoor.matmul`:

    * `splits`: the number S of K chunks. When absent, S follows gpu_poor's
      rule `next_pow2(floor(sqrt(ceil(K / BK))))` clamped to
      `[1, max_splits]`, evaluated at run time when K is dynamic.
    * `max_splits`: the upper clamp of that rule (default 32).
    * `tile`: the output tile and K step `[BM, BN, BK]` of one thread block.
      It must map onto the chip's f16 MMA fragments: m16n8k16 (`mma.sync`)
      for sm_80 to sm_90, m64nNk16 (`wgmma`, N <= 256) for sm_90a.
    * `inner`: the accumulator type inside a chunk; f16 only, the point of
      the project (mma has no bf16 accumulator).
    * `outer`: the type the chunk results are summed in: f16 (gpu_poor's
      choice) or f32.
    * `epilogue`: `none`, `relu` or `gelu`, applied after the bias.
    * `b_layout`: `kn` when B is K x N, `nk` when B is N x K.
    * `chip`: the target the tile was chosen for.

    Example:

    ```mlir
    #gpupoor.split_k<splits = 4, tile = [128, 128, 32], inner = f16,
                     outer = f32, epilogue = relu, b_layout = nk,
                     chip = sm_80>
    ```
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<int64_t>", "number of K splits">:$splits,
    DefaultValuedParameter<"int64_t", "32", "upper clamp of the default rule">:$max_splits,
    GPUPoor_TileParameter:$tile,
    "::mlir::Type":$inner,
    "::mlir::Type":$outer,
    DefaultValuedParameter<"::mlir::gpupoor::Epilogue",
        "::mlir::gpupoor::Epilogue::None", "epilogue">:$epilogue,
    DefaultValuedParameter<"::mlir::gpupoor::BLayout",
        "::mlir::gpupoor::BLayout::KN", "layout of B">:$b_layout,
    DefaultValuedParameter<"::mlir::gpupoor::Chip",
        "::mlir::gpupoor::Chip::SM80", "target chip">:$chip
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getTileM() const { return getTile()[0]; }
    int64_t getTileN() const { return getTile()[1]; }
    int64_t getTileK() const { return getTile()[2]; }
  }];
}

#endif // GPUPOOR_DIALECT_GPUPOOR_IR_GPUPOORATTRS_TD
