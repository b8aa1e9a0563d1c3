//===- Epilogue.h - the epilogue region and C stores ------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_EPILOGUE_H
#define GPUPOOR_CONVERSION_GPUKERNEL_EPILOGUE_H

#include "gpupoor/Conversion/GPUKernel/KernelABI.h"

#include <map>
#include <tuple>

namespace mlir::gpupoor {

/// The kernel's end: each outer sum is rounded to the epilogue's type and
/// goes through the op's epilogue region (emitEpilogue, shared with the CPU
/// lowering; its operands read at the element's row and column, C too when
/// the region reads it) and into C, guarded at M's and N's edges. With
/// `epilogue_passes`, each warp stages its C tile through its own region of
/// the idle stages and stores 16-byte row vectors; otherwise lanes store
/// their fragments' column pairs directly.
class EpilogueEmitter : public KernelPart {
public:
  EpilogueEmitter(KernelContext &kc, const KernelArgs &args)
      : KernelPart(kc), args(args) {}

  /// Stores C from the warp's outer-sum fragments (mt * nTiles + nt).
  void emit(ValueRange outer);

private:
  /// Element (row, column) = (rowBase + rowOff, colBase + colOff) of
  /// epilogue operand `input`, loaded once per element it reads.
  Value epilogueElement(unsigned input, int64_t rowOff, int64_t colOff);
  /// The epilogue of outer sum `outer` at that element.
  Value epilogue(Value outer, int64_t rowOff, int64_t colOff);
  /// Whether C takes `len`-element vector stores: contiguous along N, its
  /// row stride a multiple of `len` and its pointer aligned to the vector;
  /// with `columns`, the same along M.
  Value cTakesVectors(int64_t len, bool columns = false);
  /// A width of vector stores into C and whether C takes it (cTakesVectors).
  struct StoreWidth {
    int64_t len;
    Value ok;
  };
  /// Stores `v` (a vector) at C[row, col...]: where the row lies inside M and
  /// the vector inside N, as vectors of the first of `widths` (widest first)
  /// that C takes; else the elements inside M and N one by one.
  void storeRow(Value v, Value row, Value col, ArrayRef<StoreWidth> widths);
  /// Stores the elements of `v` one by one at C[row, col + e] (with
  /// `alongM`, C[row + e, col]) where `inside` holds and the element lies
  /// inside N (M).
  void storeElements(Value v, Value row, Value col, Value inside, bool alongM);
  /// Stores each lane's fragment pairs (`value`, as below) at their rows
  /// and columns of C, guarded.
  void emitFragmentStores(function_ref<Value(int64_t, int64_t, int64_t)> value);
  /// Stores C tile values through shared memory in the spec's passes;
  /// `value(mt, nt, h)` is a lane's vector<2> of fragment (mt, nt), row
  /// half h.
  void emitSharedStores(function_ref<Value(int64_t, int64_t, int64_t)> value);
  /// The transposed path of the shared-memory epilogue (column_stores):
  /// where C takes column vectors (contiguous along M), the warps write
  /// their fragments into their regions by columns and store 16-byte
  /// column vectors; elsewhere emitSharedStores.
  void emitColumnStores(function_ref<Value(int64_t, int64_t, int64_t)> value);
  /// Stores `v` (a vector along M) at C[row..., col]: as one vector where
  /// the column lies inside N and the vector inside M, else the elements
  /// inside M and N one by one.
  void storeColumn(Value v, Value row, Value col);

  /// The persistent kernel's C tile by TMA stores (KernelSpec::tmaStores):
  /// each warp writes a box (its rows by 64 columns) into one of its slots
  /// of the epilogue buffer in the 128-byte swizzle, its lane 0 stores it
  /// through C's tensor map, and the warp writes the next box into the next
  /// slot while TMA reads the last: it waits only for the box before, and
  /// goes on to its next tile while the stores drain. (Stored from the
  /// lanes, all blocks wrote C at once at their tiles' ends: measured in
  /// docs/design/decisions.md#persistent-kernels-with-tma-stored-c.) Where C's
  /// map cannot describe C (the kernel checks what the host code checks before
  /// it encodes the map), the lanes store their fragments instead.
  void emitTmaStores(function_ref<Value(int64_t, int64_t, int64_t)> value);

  const KernelArgs &args;
  /// A lane's first fragment element (row, column) in C.
  Value rowBase, colBase;
  /// Epilogue operand elements loaded so far, by (operand, row offset,
  /// column offset), -1 along a dimension the operand does not vary in.
  std::map<std::tuple<unsigned, int64_t, int64_t>, Value> loadedInputs;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_EPILOGUE_H
