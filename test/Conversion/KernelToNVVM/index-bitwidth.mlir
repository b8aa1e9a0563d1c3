// RUN: gpupoor-opt %s --pass-pipeline="builtin.module(gpupoor-select-kernel-config{index-bitwidth=32 stages=3}, convert-gpupoor-to-nvgpu, gpu.module(convert-scf-to-cf, expand-strided-metadata, lower-affine, arith-expand, convert-gpupoor-kernel-to-nvvm))" | FileCheck %s
// An explicit width that contradicts the kernel's configuration:
// RUN: not gpupoor-opt %s --pass-pipeline="builtin.module(gpupoor-select-kernel-config{index-bitwidth=32 stages=3}, convert-gpupoor-to-nvgpu, gpu.module(convert-gpupoor-kernel-to-nvvm{index-bitwidth=64}))" 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: error: convert-gpupoor-kernel-to-nvvm: index-bitwidth=64 contradicts the kernel configuration's index_bitwidth = 32
// RUN: gpupoor-opt %s --pass-pipeline="builtin.module(gpupoor-select-kernel-config{index-bitwidth=64 stages=3}, convert-gpupoor-to-nvgpu, gpu.module(convert-scf-to-cf, expand-strided-metadata, lower-affine, arith-expand, convert-gpupoor-kernel-to-nvvm))" | FileCheck %s --check-prefix=I64

// One conversion lowers the kernel's nvgpu, gpu, memref and arith ops with a
// single index width: the memref descriptors, the address arithmetic and the
// NVVM ops agree on it.
// CHECK: gpu.module @gpupoor_matmul_0_module
// CHECK: llvm.func @gpupoor_matmul_0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32
// CHECK: llvm.mlir.poison : !llvm.struct<(ptr<1>, ptr<1>, i32, array<2 x i32>, array<2 x i32>)>
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvgpu.
// CHECK-NOT: memref.load
// I64: llvm.mlir.poison : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
// I64: nvvm.mma.sync
func.func @mm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

