// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-nvgpu | FileCheck %s
// The second case asks for 4 stages through the pass option.
// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-nvgpu=stages=4 | FileCheck %s --check-prefix=ST4
// ST4: memref<4x128x32xf16

// The host side launches a Triton-ABI kernel on a 1-D grid; the kernel
// stages tiles with cp.async into dynamic shared memory, reads fragments with
// ldmatrix and accumulates in f16 with mma.sync.
// CHECK-LABEL: func @mm
// CHECK: %[[GM:.*]] = arith.ceildivsi %{{.*}}, %[[BM:.*]] : index
// CHECK: %[[GN:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK: %[[GRID:.*]] = arith.muli %[[GM]], %[[GN]] : index
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%c256, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c49152_i32 args(%{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32)
// CHECK-SAME: gpupoor.kernel = {{{.*}}block_size = 256 : i64{{.*}}dynamic_shared_memory = 49152 : i64
// CHECK: gpu.module @gpupoor_matmul_0_module
// CHECK: gpu.func @gpupoor_matmul_0(%{{.*}}: !llvm.ptr<1> {gpupoor.name = "a_ptr"}, %{{.*}}: !llvm.ptr<1> {gpupoor.name = "b_ptr"}, %{{.*}}: !llvm.ptr<1> {gpupoor.name = "c_ptr"}, %{{.*}}: !llvm.ptr<1> {gpupoor.name = "bias_ptr"}, %{{.*}}: i32 {gpupoor.name = "M"}, %{{.*}}: i32 {gpupoor.name = "N"}, %{{.*}}: i32 {gpupoor.name = "K"}, %{{.*}}: i32 {gpupoor.name = "stride_am"}, %{{.*}}: i32 {gpupoor.name = "stride_ak"}, %{{.*}}: i32 {gpupoor.name = "stride_bk"}, %{{.*}}: i32 {gpupoor.name = "stride_bn"}, %{{.*}}: i32 {gpupoor.name = "stride_cm"}, %{{.*}}: i32 {gpupoor.name = "stride_cn"}) kernel
// CHECK: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<3x128x32xf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<3x32x128xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1} : memref<?x?xf16, strided<[?, 1]>, 1> to memref<3x128x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_create_group
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf16>,
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<3x128x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<3x32x128xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
// The chunk-end handover widens the f16 sums into the f32 outer sums.
// CHECK: arith.extf %{{.*}} : vector<2x2xf16> to vector<2x2xf32>
// CHECK: arith.addf %{{.*}} : vector<2x2xf32>
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<?x?xf16, strided<[?, ?]>, 1>
func.func @mm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Transposed B (nn.Linear weight) is read with non-transposing ldmatrix; the
// bias is read in the epilogue.
// CHECK-LABEL: func @linear
// CHECK: gpu.func @gpupoor_matmul_0
// CHECK: memref.view {{.*}} to memref<3x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<3x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: transpose = true
// CHECK: memref.load %{{.*}} : memref<?xf16, strided<[1]>, 1>
// CHECK: arith.maximumf
func.func @linear(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %bias: memref<?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b bias(%bias : memref<?xf16>) outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 64, 64], inner = f16, outer = f16, epilogue = relu, b_layout = nk, chip = sm_80>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Element-wise tile loads for operands of any alignment and strides: no
// cp.async, 16-byte shared stores of eight masked loads, strided memrefs.
// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-nvgpu=async-copies=false | FileCheck %s --check-prefix=GEN
// GEN-LABEL: func @any_alignment
// GEN: gpu.launch_func
// GEN-SAME: async_copies = false
// GEN-SAME: requires = "none"
// GEN-NOT: nvgpu.device_async_copy
// GEN: memref.load %{{.*}} : memref<?x?xf16, strided<[?, ?]>, 1>
// GEN: vector.from_elements {{.*}} : vector<8xf16>
// GEN: vector.store %{{.*}} : memref<3x128x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// GEN: nvgpu.mma.sync
func.func @any_alignment(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_86>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}
