// RUN: gpupoor-opt %s -gpupoor-cpu-pipeline | FileCheck %s
// RUN: gpupoor-opt %s -gpupoor-cpu-pipeline | mlir-translate --mlir-to-llvmir -o /dev/null
// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 cubin-format=llvm" | FileCheck %s --check-prefix=GPU

// A function that returns a buffer it does not own (C as passed in, next
// to the product, or from one branch of an scf.if) returns a copy of it:
// the buffer deallocation pipeline's bufferization.clone becomes an
// allocation and a copy (gpupoor-lower-clones), so that the program
// translates to LLVM IR, with no call into MLIR's runner utilities. In
// gpupoor-to-cubin the copy is a device allocation and a copy kernel.
// CHECK-NOT: memrefCopy
// CHECK-LABEL: llvm.func @returns_c
// CHECK-NOT: bufferization
// CHECK: llvm.call @malloc
// CHECK: llvm.return
// GPU-LABEL: func.func @returns_c
// GPU-NOT: bufferization
// GPU: gpu.alloc
// GPU: gpu.launch_func @gpupoor_row_copy::@gpupoor_row_copy
// GPU: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// GPU: %[[COPY:.*]], %{{.*}} = gpu.alloc
// GPU: gpu.launch_func @gpupoor_row_copy::@gpupoor_row_copy
// GPU: return %{{.*}}, %[[COPY]] :
func.func @returns_c(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %c: tensor<32x32xf16>) -> (tensor<32x32xf16>, tensor<32x32xf16>) {
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  return %mm, %c : tensor<32x32xf16>, tensor<32x32xf16>
}

// CHECK-LABEL: llvm.func @either
// CHECK-NOT: bufferization
// CHECK: llvm.call @malloc
// GPU-LABEL: func.func @either
// GPU-NOT: bufferization
// GPU: scf.if
// GPU: } else {
// GPU: gpu.alloc
// GPU: gpu.launch_func @gpupoor_row_copy::@gpupoor_row_copy
func.func @either(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %c: tensor<32x32xf16>, %p: i1) -> tensor<32x32xf16> {
  %r = scf.if %p -> tensor<32x32xf16> {
    %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
    scf.yield %mm : tensor<32x32xf16>
  } else {
    scf.yield %c : tensor<32x32xf16>
  }
  return %r : tensor<32x32xf16>
}

// A constant the function returns: the caller owns a copy of it, in
// gpupoor-to-cubin a device one (the global copied to the device, then
// into the returned allocation).
// CHECK-LABEL: llvm.func @returns_constant
// CHECK: llvm.call @malloc
// GPU-LABEL: func.func @returns_constant
// GPU-NOT: bufferization
// GPU: %[[G:.*]] = memref.get_global @four
// GPU: %[[D:.*]], %{{.*}} = gpu.alloc
// GPU: gpu.memcpy async [%{{.*}}] %[[D]], %[[G]]
// GPU: %[[R:.*]], %{{.*}} = gpu.alloc
// GPU: gpu.launch_func
// GPU-SAME: args(%[[D]] : memref<4xf16>, %[[R]] : memref<4xf16>)
// GPU: return %[[R]] : memref<4xf16>
func.func @returns_constant() -> memref<4xf16> {
  %g = memref.get_global @four : memref<4xf16>
  return %g : memref<4xf16>
}
memref.global "private" constant @four : memref<4xf16> = dense<1.0>

// A view of wider rows the function returns: its copy keeps the view's
// layout, a buffer of (8 - 1) * 16 + 8 = 120 elements viewed as the rows.
// CHECK-LABEL: llvm.func @returns_view
// CHECK: llvm.mlir.constant(120 : index)
// CHECK: llvm.call @malloc
// GPU-LABEL: func.func @returns_view
// GPU-NOT: bufferization
// GPU: %[[BUF:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%c120) : memref<?xf16>
// GPU: %[[V:.*]] = memref.reinterpret_cast %[[BUF]] to offset: [0], sizes: [8, 8], strides: [16, 1]
// GPU: gpu.launch_func @gpupoor_row_copy::@gpupoor_row_copy
// GPU: return %[[V]] : memref<8x8xf16, strided<[16, 1]>>
func.func @returns_view(%a: memref<8x16xf16>) -> memref<8x8xf16, strided<[16, 1]>> {
  %v = memref.subview %a[0, 0] [8, 8] [1, 1] : memref<8x16xf16> to memref<8x8xf16, strided<[16, 1]>>
  return %v : memref<8x8xf16, strided<[16, 1]>>
}
