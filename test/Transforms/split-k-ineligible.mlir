// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k=report-ineligible -verify-diagnostics

// Without report-ineligible, ineligible matmuls are left untouched, silently.
// CHECK-NOT: gpupoor.matmul

func.func @bf16(%a: tensor<16x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: bf16 operands: mma has no bf16 accumulator}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @f32(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: 'f32' operands: only f16 operands are accumulated in f16}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @int8(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: integer operands ('i8')}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xi8>, tensor<32x16xi8>) outs(%c : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}

// -----

func.func @mixed(%a: tensor<16x32xf16>, %b: tensor<32x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: mixed operand element types 'f16' and 'f32'}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @f64_result(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<16x16xf64>
  %c = linalg.fill ins(%zero : f64) outs(%e : tensor<16x16xf64>) -> tensor<16x16xf64>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: result element type 'f64' is not f16 or f32}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf64>) -> tensor<16x16xf64>
  return %r : tensor<16x16xf64>
}

// -----

// A broadcast A (one row for every m): no kernel reads A so.
func.func @broadcast_a(%a: tensor<32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: indexing maps are neither A*B nor A*B^T}}
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @matvec(%a: tensor<16x32xf16>, %x: tensor<32xf16>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: 'linalg.matvec' is not linalg.matmul or linalg.batch_matmul}}
  %r = linalg.matvec ins(%a, %x : tensor<16x32xf16>, tensor<32xf16>) outs(%c : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

func.func @broadcast_b(%a: tensor<16x32xf16>, %b: tensor<32xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: indexing maps are neither A*B nor A*B^T}}
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<16x32xf16>, tensor<32xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// gpupoor.matmul launches kernels: a matmul in device code stays.
gpu.module @kernels {
  gpu.func @device(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
    %zero = arith.constant 0.0 : f16
    linalg.fill ins(%zero : f16) outs(%c : memref<32x32xf16>)
    // expected-remark @+1 {{not rewritten to gpupoor.matmul: inside device code (a gpu.module, gpu.func or gpu.launch)}}
    linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x32xf16>) outs(%c : memref<32x32xf16>)
    gpu.return
  }
}

// -----

// The kernels read A while they write C: a matmul that reads its own
// output is left alone.
func.func @aliased(%c: memref<16x16xf16>, %b: memref<16x16xf16>) {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: init is also operand A or B, or a view of one}}
  linalg.matmul ins(%c, %b : memref<16x16xf16>, memref<16x16xf16>) outs(%c : memref<16x16xf16>)
  return
}

// -----

// The body of a gpu.launch is device code too.
func.func @in_launch(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
  %one = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %one, %y = %one, %z = %one)
             threads(%tx, %ty, %tz) in (%u = %one, %v = %one, %w = %one) {
    // expected-remark @+1 {{not rewritten to gpupoor.matmul: inside device code (a gpu.module, gpu.func or gpu.launch)}}
    linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x32xf16>) outs(%c : memref<32x32xf16>)
    gpu.terminator
  }
  return
}

// -----

// An init that is a view of A's or B's buffer: the kernels would read rows
// of A (or B) the op has already written.
func.func @init_subview_of_a(%a: memref<32x64xf16>, %b: memref<64x32xf16>) {
  %c = memref.subview %a[0, 0] [32, 32] [1, 1] : memref<32x64xf16> to memref<32x32xf16, strided<[64, 1]>>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: init is also operand A or B, or a view of one}}
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x32xf16>) outs(%c : memref<32x32xf16, strided<[64, 1]>>)
  return
}

// -----

func.func @init_cast_of_b(%a: memref<32x32xf16>, %b: memref<32x32xf16>) {
  %c = memref.cast %b : memref<32x32xf16> to memref<?x?xf16>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: init is also operand A or B, or a view of one}}
  linalg.matmul ins(%a, %b : memref<32x32xf16>, memref<32x32xf16>) outs(%c : memref<?x?xf16>)
  return
}

// -----

func.func @init_reinterpret_of_a(%a: memref<32x32xf16>, %b: memref<32x32xf16>) {
  %c = memref.reinterpret_cast %a to offset: [0], sizes: [32, 32], strides: [32, 1] : memref<32x32xf16> to memref<32x32xf16, strided<[32, 1]>>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: init is also operand A or B, or a view of one}}
  linalg.matmul ins(%a, %b : memref<32x32xf16>, memref<32x32xf16>) outs(%c : memref<32x32xf16, strided<[32, 1]>>)
  return
}

// -----

func.func @init_reshape_of_a(%a: memref<32x32xf16>, %b: memref<32x32xf16>) {
  %flat = memref.collapse_shape %a [[0, 1]] : memref<32x32xf16> into memref<1024xf16>
  %c = memref.expand_shape %flat [[0, 1]] output_shape [32, 32] : memref<1024xf16> into memref<32x32xf16>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: init is also operand A or B, or a view of one}}
  linalg.matmul ins(%a, %b : memref<32x32xf16>, memref<32x32xf16>) outs(%c : memref<32x32xf16>)
  return
}

// -----

func.func @init_tensor_cast_of_a(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<?x?xf16> {
  %c = tensor.cast %a : tensor<32x32xf16> to tensor<?x?xf16>
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: init is also operand A or B, or a view of one}}
  %r = linalg.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}

// -----

// A tensor encoding (sparse_tensor's or any other) says how the elements
// are stored, which the kernels do not read.
#csr = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @sparse_operand(%a: tensor<32x64xf16, #csr>, %b: tensor<64x32xf16>, %c: tensor<32x32xf16>) -> tensor<32x32xf16> {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: operand type 'tensor<32x64xf16, #sparse_tensor.encoding<}}
  %r = linalg.matmul ins(%a, %b : tensor<32x64xf16, #csr>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16>) -> tensor<32x32xf16>
  return %r : tensor<32x32xf16>
}

// -----

func.func @encoded_result(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %c: tensor<32x32xf16, "tiled">) -> tensor<32x32xf16, "tiled"> {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: operand type 'tensor<32x32xf16, "tiled">' has an encoding}}
  %r = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf16, "tiled">) -> tensor<32x32xf16, "tiled">
  return %r : tensor<32x32xf16, "tiled">
}

// -----

// Memory outside the default space (workgroup memory, an address space of
// its own) is not memory the host code hands to a kernel.
func.func @workgroup_memory(%a: memref<32x64xf16, #gpu.address_space<workgroup>>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: operand type 'memref<32x64xf16, #gpu.address_space<workgroup>>' is not in the default memory space}}
  linalg.matmul ins(%a, %b : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x32xf16>) outs(%c : memref<32x32xf16>)
  return
}

// -----

func.func @integer_memory_space(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16, 3>) {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: operand type 'memref<32x32xf16, 3>' is not in the default memory space}}
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x32xf16>) outs(%c : memref<32x32xf16, 3>)
  return
}


// -----

// A layout map that is not strided<...> (a permutation written as a map):
// the host code reads strides from the memref's descriptor.
func.func @affine_map_layout(%a: memref<64x32xf16, affine_map<(d0, d1) -> (d1, d0)>>, %b: memref<32x48xf16>, %c: memref<64x48xf16>) {
  // expected-remark @+1 {{not rewritten to gpupoor.matmul: operand type 'memref<64x32xf16, affine_map<(d0, d1) -> (d1, d0)>>' has a layout map that is not strided<...>}}
  linalg.matmul ins(%a, %b : memref<64x32xf16, affine_map<(d0, d1) -> (d1, d0)>>, memref<32x48xf16>) outs(%c : memref<64x48xf16>)
  return
}
