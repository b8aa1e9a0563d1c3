//===- KernelPart.h - what the parts of a kernel share ----------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// A gpupoor kernel is emitted by parts (copy pipeline, fragments and MMA,
// split handover, epilogue, ...), each a class derived from KernelPart. They
// share one builder, the kernel's spec and the kernel-wide values (sizes,
// thread ids, the block's tile origin), and write index arithmetic the same
// way.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_CONVERSION_GPUKERNEL_KERNELPART_H
#define GPUPOOR_CONVERSION_GPUKERNEL_KERNELPART_H

#include "gpupoor/Dialect/GPUPoor/TargetUtils/KernelSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::gpupoor {

/// The builder, the spec and the values every part of one kernel reads.
/// The kernel's entry code sets the values before the parts that read them
/// are built.
struct KernelContext {
  KernelContext(ImplicitLocOpBuilder &b, const KernelSpec &spec)
      : b(b), spec(spec) {}

  ImplicitLocOpBuilder &b;
  const KernelSpec &spec;

  /// Problem sizes (index).
  Value m, n, k;
  /// S where the launch passes it (KernelSpec::takesSplits; index), else
  /// null: the strategy's.
  Value splits;
  /// The kernel's dynamic shared memory (memref<?xi8, workgroup>).
  Value rawSmem;
  /// Thread, lane and the warp's position in the block's warp grid.
  Value tid, lane, warpRow, warpCol;
  /// C tiles along M and N, ceil(M/BM) and ceil(N/BN).
  Value tilesM, tilesN;
  /// The block's index among its batch element's blocks (grid x); in a
  /// persistent kernel's loop, its work tile's.
  Value pid;
  /// A batched kernel's batch count, and the batch element of the block
  /// (of the work tile, in a persistent kernel's loop); null otherwise.
  Value batches, batch;
  /// The block's tile origin in C.
  Value m0, n0;
};

/// Base of the kernel parts: index arithmetic on the shared builder.
class KernelPart {
protected:
  explicit KernelPart(KernelContext &kc) : kc(kc), b(kc.b), c(kc.spec) {}

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value divU(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value remU(Value x, Value y) { return arith::RemUIOp::create(b, x, y); }
  Value minI(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value maxI(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, cond, x, y);
  }
  Value clamp8(Value v) { return maxI(minI(v, idx(8)), idx(0)); }

  KernelContext &kc;
  ImplicitLocOpBuilder &b;
  const KernelSpec &c;
};

} // namespace mlir::gpupoor

#endif // GPUPOOR_CONVERSION_GPUKERNEL_KERNELPART_H
