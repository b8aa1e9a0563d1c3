// RUN: gpupoor-opt %s -split-input-file --gpupoor-to-cubin="chip=sm_90 cubin-format=isa" | FileCheck %s

// A function that returns a new tensor allocates it on the device, and the
// kernel writes it there.
// CHECK-LABEL: func.func @returns_tensor
// CHECK:         %[[R:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}, %{{.*}}, %{{.*}}) : memref<?x?x?xf16>
// CHECK:         gpu.launch_func @gpupoor_matmul_0_
// CHECK-NOT:     memref.alloc
// CHECK:         return %[[R]]
func.func @returns_tensor(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f16
  %nb = tensor.dim %a, %c0 : tensor<?x?x?xf16>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf16>
  %n = tensor.dim %b, %c2 : tensor<?x?x?xf16>
  %e = tensor.empty(%nb, %m, %n) : tensor<?x?x?xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf16>, tensor<?x?x?xf16>)
                           outs(%f : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  return %r : tensor<?x?x?xf16>
}

// -----

// An elementwise op the epilogue cannot take (it reads linalg.index) runs
// as a kernel of its own, on the matmul's output in a device buffer that is
// freed on the device.
// CHECK-LABEL: func.func @unfused
// CHECK:         %[[T:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<16x16xf16>
// CHECK:         gpu.launch_func @gpupoor_matmul_0_{{.*}} args(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK:         gpu.launch_func @unfused_kernel::@unfused_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args({{.*}}%[[T]] : memref<16x16xf16>
// CHECK:         gpu.dealloc async [%{{.*}}] %[[T]] : memref<16x16xf16>
// CHECK:       gpu.binary @unfused_kernel
func.func @unfused(%a: tensor<16x64xf16>, %b: tensor<64x16xf16>, %out: memref<16x16xf16>) {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x16xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<16x16xf16>) -> tensor<16x16xf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x16xf16>)
                     outs(%f : tensor<16x16xf16>) -> tensor<16x16xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<16x16xf16>) outs(%e : tensor<16x16xf16>) {
  ^bb0(%x: f16, %o: f16):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f16
    %y = arith.addf %x, %fi : f16
    linalg.yield %y : f16
  } -> tensor<16x16xf16>
  bufferization.materialize_in_destination %g in restrict writable %out
      : (tensor<16x16xf16>, memref<16x16xf16>) -> ()
  return
}

// -----

// A reduction over every dimension (and the 0-d fill of its init) has no
// parallel dimension to spread: it runs as loops in a one-thread launch.
// CHECK-LABEL: func.func @full_reduction
// CHECK:         gpu.launch_func @gpupoor_matmul_0_
// CHECK:         gpu.launch_func @full_reduction_kernel::@full_reduction_kernel blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK:         gpu.launch_func @full_reduction_kernel_0::@full_reduction_kernel blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
func.func @full_reduction(%a: tensor<16x64xf16>, %b: tensor<64x16xf16>, %out: memref<f16>) {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x16xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<16x16xf16>) -> tensor<16x16xf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x16xf16>)
                     outs(%f : tensor<16x16xf16>) -> tensor<16x16xf16>
  %e0 = tensor.empty() : tensor<f16>
  %f0 = linalg.fill ins(%z : f16) outs(%e0 : tensor<f16>) -> tensor<f16>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%r : tensor<16x16xf16>) outs(%f0 : tensor<f16>) {
  ^bb0(%x: f16, %acc: f16):
    %y = arith.addf %x, %acc : f16
    linalg.yield %y : f16
  } -> tensor<f16>
  bufferization.materialize_in_destination %s in restrict writable %out
      : (tensor<f16>, memref<f16>) -> ()
  return
}

// -----

// A constant tensor is a global in host memory: the device reads a copy,
// freed at the end. Here it is the bias an epilogue reads (fused: no
// kernel of its own).
// CHECK-LABEL: func.func @constant_operand
// CHECK:         %[[G:.*]] = memref.get_global @[[NAME:.*]] : memref<16xf16>
// CHECK:         %[[D:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<16xf16>
// CHECK:         gpu.memcpy async [%{{.*}}] %[[D]], %[[G]] : memref<16xf16>, memref<16xf16>
// CHECK:         memref.extract_strided_metadata %[[D]]
// CHECK:         gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 {{.*}}epilogue_inputs = [f16]
// CHECK-NOT:     gpu.launch_func @constant_operand_kernel
// CHECK:         gpu.dealloc async [%{{.*}}] %[[D]] : memref<16xf16>
// CHECK-NEXT:    gpu.wait
// CHECK-NEXT:    return
func.func @constant_operand(%a: tensor<16x64xf16>, %b: tensor<64x16xf16>, %out: memref<16x16xf16>) {
  %z = arith.constant 0.0 : f16
  %cz = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<16xf16>
  %e = tensor.empty() : tensor<16x16xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<16x16xf16>) -> tensor<16x16xf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x16xf16>) outs(%f : tensor<16x16xf16>) -> tensor<16x16xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %cz : tensor<16x16xf16>, tensor<16xf16>) outs(%e : tensor<16x16xf16>) {
  ^bb0(%x: f16, %c: f16, %o: f16):
    %y = arith.addf %x, %c : f16
    linalg.yield %y : f16
  } -> tensor<16x16xf16>
  bufferization.materialize_in_destination %g in restrict writable %out : (tensor<16x16xf16>, memref<16x16xf16>) -> ()
  return
}

// -----

// An offloaded elementwise kernel keeps the constants its body uses, also
// where they are defined outside the op (as torch-mlir writes them): a
// math.fpowi's exponent must stay a constant for the NVVM lowering, and
// no constant becomes a kernel parameter. Each math op front ends emit
// compiles.
// CHECK-LABEL: func.func @math_constants
// CHECK:         gpu.launch_func @math_constants_kernel::@math_constants_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%{{[^:]*}} : memref<64x128xf32>, %{{[^:]*}} : memref<64x128xf32>){{$}}
// CHECK:       gpu.binary @math_constants_kernel
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @math_constants(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %c3 = arith.constant 3 : i64
  %c2 = arith.constant 2 : i32
  %p25 = arith.constant 2.5 : f32
  %k = arith.constant 0.044715 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %cube = math.fpowi %a, %c3 : f32, i64
    %sq = math.fpowi %a, %c2 : f32, i32
    %abs = math.absf %a : f32
    %pw = math.powf %abs, %p25 : f32
    %t0 = arith.mulf %cube, %k : f32
    %t1 = arith.addf %t0, %sq : f32
    %th = math.tanh %t1 : f32
    %er = math.erf %th : f32
    %ex = math.exp %er : f32
    %lg = math.log %ex : f32
    %sr = math.sqrt %pw : f32
    %rs = math.rsqrt %ex : f32
    %s0 = arith.addf %lg, %sr : f32
    %s1 = arith.addf %s0, %rs : f32
    %m = arith.mulf %s1, %half : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// C += A * B on a tensor argument, static and dynamic: C is copied on the
// device into a new buffer (the row-copy kernel: rows of f16), the product
// is added there, and that buffer is returned; the caller's C is only read.
// CHECK-LABEL: func.func @accumulate_argument
// CHECK-SAME:    %{{[^:]*}}: memref<64x128xf16>, %{{[^:]*}}: memref<128x256xf16>, %[[C:[^:]*]]: memref<64x256xf16>
// CHECK:         %[[NEW:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<64x256xf16>
// CHECK:         memref.extract_strided_metadata %[[C]]
// CHECK:         memref.extract_strided_metadata %[[NEW]]
// CHECK:         gpu.launch_func @gpupoor_row_copy::@gpupoor_row_copy
// CHECK:         gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-NOT:     bufferization.clone
// CHECK:         return %[[NEW]] : memref<64x256xf16>
func.func @accumulate_argument(%a: tensor<64x128xf16>, %b: tensor<128x256xf16>, %c: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf16>, tensor<128x256xf16>) outs(%c : tensor<64x256xf16>) -> tensor<64x256xf16>
  return %r : tensor<64x256xf16>
}

// -----

// CHECK-LABEL: func.func @accumulate_argument_dynamic
// CHECK-SAME:    %[[C:[^:]*]]: memref<?x?xf16>)
// CHECK:         %[[NEW:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}, %{{.*}}) : memref<?x?xf16>
// CHECK:         memref.extract_strided_metadata %[[C]]
// CHECK:         memref.extract_strided_metadata %[[NEW]]
// CHECK:         gpu.launch_func @gpupoor_row_copy::@gpupoor_row_copy
// CHECK:         gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-NOT:     bufferization.clone
func.func @accumulate_argument_dynamic(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}
