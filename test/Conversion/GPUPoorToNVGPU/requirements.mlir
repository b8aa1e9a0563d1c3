// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config -convert-gpupoor-to-nvgpu | FileCheck %s

// What a kernel needs of its operands is proven from the types where they
// tell and checked by the host code at run time otherwise; the host then
// launches a kernel that needs less. cp.async copies need unit inner
// strides, rows of a multiple of 8 elements and 16-byte aligned pointers
// (never in the type); 32-bit indices need every size, stride and offset
// below 2^31.

// Static shapes that fit 32 bits: the host checks the cp.async requirements
// only, and falls back to element copies.
// CHECK-LABEL: func @static_fits
// CHECK-NOT: 2147475455
// CHECK: llvm.ptrtoint
// CHECK: scf.if
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 {{.*}}args({{.*}} : i32
// CHECK-SAME: copies = async
// CHECK: } else {
// CHECK: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements
// CHECK-SAME: copies = elements,{{.*}}index_bitwidth = 32>
// CHECK-NOT: gpupoor_matmul_0_i64
func.func @static_fits(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<256x256xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<256x512xf16>, memref<512x256xf16>
  return
}

// -----

// A static inner stride of 2: cp.async cannot take A; the selection picks
// element copies, and the one kernel needs nothing more.
// CHECK-LABEL: func @strided
// CHECK-NOT: llvm.ptrtoint
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: copies = elements,{{.*}}index_bitwidth = 32>
// CHECK-NOT: gpu.launch_func
func.func @strided(%a: memref<128x64xf16, strided<[128, 2]>>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<128x128xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<128x64xf16, strided<[128, 2]>>, memref<64x128xf16>
  return
}

// -----

// A static row of 1031 elements (not a multiple of 8): element copies too.
// CHECK-LABEL: func @odd_rows
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: copies = elements
// CHECK-NOT: gpu.launch_func
func.func @odd_rows(%a: memref<64x1031xf16>, %b: memref<1031x64xf16>, %c: memref<64x64xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x64xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<64x1031xf16>, memref<1031x64xf16>
  return
}

// -----

// A of 2^32 elements: the selection takes 64-bit indices, and the kernel
// takes its sizes and strides as i64.
// CHECK-LABEL: func @huge
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 {{.*}}args({{.*}} : !llvm.ptr<1>, %{{.*}} : i64
// CHECK-SAME: copies = async,{{.*}}index_bitwidth = 64>
// CHECK: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements
// CHECK-SAME: copies = elements,{{.*}}index_bitwidth = 64>
// CHECK: gpu.func @gpupoor_matmul_0({{.*}}: i64 {gpupoor.name = "M"}
func.func @huge(%a: memref<65536x65536xf16>, %b: memref<65536x128xf16>, %c: memref<65536x128xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<65536x128xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<65536x65536xf16>, memref<65536x128xf16>
  return
}

// -----

// Dynamic shapes: both requirements at run time. The cp.async kernel where
// both hold, element copies where the operands fit 32 bits, else element
// copies with 64-bit indices.
// The 32-bit bounds are policy::kernelBounds' that the types leave open:
// M, N, K and the three strides not static (the inner ones are 1) in
// [0, 2^31 - 1 - 8192], A's, B's and C's last element offsets at most
// 2^31 - 1, and the block order's ceil(N / 128) at most (2^31 - 1) / 8
// (group_m 8). A sequential kernel has no slice sums to bound.
// CHECK-LABEL: func @dynamic
// CHECK: llvm.ptrtoint
// CHECK-COUNT-6: arith.cmpi sle, %{{.*}}, %c2147475455{{.*}} : index
// CHECK-NOT: arith.cmpi sle, %{{.*}}, %c2147475455
// CHECK-COUNT-3: arith.cmpi sle, %{{.*}}, %c2147483647{{.*}} : index
// CHECK: %[[COLS:.*]] = arith.ceildivsi %{{.*}}, %c128{{.*}} : index
// CHECK: arith.cmpi sle, %[[COLS]], %c268435455 : index
// CHECK-NOT: arith.minsi
// CHECK: scf.if
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK: } else {
// CHECK: scf.if
// CHECK: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements
// CHECK: } else {
// CHECK: gpu.launch_func @gpupoor_matmul_0_i64_module::@gpupoor_matmul_0_i64 {{.*}}args({{.*}} : i64
// CHECK-SAME: copies = elements,{{.*}}index_bitwidth = 64>
func.func @dynamic(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A batched product's elements start 16-byte aligned only where the batch
// strides are multiples of 8 elements: a static 4100 rules cp.async out.
// CHECK-LABEL: func @odd_batch_stride
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: copies = elements
// CHECK-NOT: gpu.launch_func
func.func @odd_batch_stride(%a: memref<2x64x64xf16, strided<[4100, 64, 1]>>, %b: memref<2x64x64xf16>, %c: memref<2x64x64xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<2x64x64xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<2x64x64xf16, strided<[4100, 64, 1]>>, memref<2x64x64xf16>
  return
}

// -----

// Dynamic batch strides: the host checks A's and B's before it launches
// the cp.async kernel.
// CHECK-LABEL: func @dynamic_batch_stride
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:3, %[[AS:.*]]:3 = memref.extract_strided_metadata %arg0
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:3, %[[BS:.*]]:3 = memref.extract_strided_metadata %arg1
// CHECK: arith.andi %[[AS]]#0, %{{.*}} : index
// CHECK: arith.andi %[[BS]]#0, %{{.*}} : index
// CHECK: scf.if
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: copies = async
// CHECK: } else {
// CHECK: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements
func.func @dynamic_batch_stride(%a: memref<?x?x?xf16, strided<[?, ?, 1]>>, %b: memref<?x?x?xf16>, %c: memref<?x?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?x?xf16, strided<[?, ?, 1]>>, memref<?x?x?xf16>
  return
}
