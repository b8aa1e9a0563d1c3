// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s
// The first case asks for 4 stages through the pass option: 4 x (128 +
// 128) x 32 halves of shared memory, 65536 bytes.
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="stages=4" -convert-gpupoor-to-nvgpu | FileCheck %s --check-prefix=ST4
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="shared-epilogue=false stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s --check-prefix=DIRECT
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="mma-handover=true stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s --check-prefix=MMAH
// ST4: dynamic_shared_memory_size %c65536_i32
// Without fragment prefetch each tile starts with its wait and barrier and
// loads its own fragments; the loop carries no fragments.
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="fragment-prefetch=0 stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s --check-prefix=PF0
// PF0-LABEL: gpu.func @gpupoor_matmul_0
// PF0: scf.for {{.*}} -> (vector<2x2xf32>, {{.*}}vector<2x2xf32>) {
// PF0: scf.for {{.*}} -> (vector<2x2xf16>, {{.*}}vector<2x2xf16>) {
// PF0: nvgpu.device_async_wait
// PF0-NEXT: gpu.barrier
// PF0: nvgpu.device_async_copy
// PF0: nvgpu.ldmatrix
// PF0: nvgpu.mma.sync
// With fragments two k steps (a whole tile) ahead, the barrier sits at the
// tile's first step; the refill's group comes before its wait, which counts
// it among the pending groups.
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="fragment-prefetch=2 stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s --check-prefix=PF2
// PF2-LABEL: gpu.func @gpupoor_matmul_0
// PF2: scf.for {{.*}} -> (vector<2x2xf16>,
// PF2-NOT: nvgpu.ldmatrix
// PF2: nvgpu.device_async_copy
// PF2: nvgpu.device_async_create_group
// PF2-NEXT: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// PF2-NEXT: gpu.barrier
// PF2: nvgpu.ldmatrix

// The host side launches a Triton-ABI kernel on a 1-D grid; the kernel
// stages tiles with cp.async into dynamic shared memory, reads fragments with
// ldmatrix and accumulates in f16 with mma.sync.
// CHECK-LABEL: func @mm
// CHECK: %[[GM:.*]] = arith.ceildivsi %{{.*}}, %[[BM:.*]] : index
// CHECK: %[[GN:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK: %[[GRID:.*]] = arith.muli %[[GM]], %[[GN]] : index
// CHECK: scf.if
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%c128{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c81920_i32 args(%{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32)
// CHECK-SAME: #gpupoor.kernel<{{.*}}warps = [2, 2],{{.*}}shared_outer_rows = 2,
// CHECK: gpu.module @gpupoor_matmul_0_module
// CHECK: gpu.func @gpupoor_matmul_0(%{{.*}}: !llvm.ptr<1> {gpupoor.name = "a_ptr"}, %{{.*}}: !llvm.ptr<1> {gpupoor.name = "b_ptr"}, %{{.*}}: !llvm.ptr<1> {gpupoor.name = "c_ptr"}, %{{.*}}: i32 {gpupoor.name = "M"}, %{{.*}}: i32 {gpupoor.name = "N"}, %{{.*}}: i32 {gpupoor.name = "K"}, %{{.*}}: i32 {gpupoor.name = "stride_am"}, %{{.*}}: i32 {gpupoor.name = "stride_ak"}, %{{.*}}: i32 {gpupoor.name = "stride_bk"}, %{{.*}}: i32 {gpupoor.name = "stride_bn"}, %{{.*}}: i32 {gpupoor.name = "stride_cm"}, %{{.*}}: i32 {gpupoor.name = "stride_cn"}) kernel
// CHECK: %[[RAW:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// Prologue: stages - 1 = 2 commit groups of zero-filling copies (the
// element count is the last operand), then tile 0's first fragments. Each
// stage is a view of A's 128 x 32 and B's 32 x 128 halves at the stage's
// byte offset.
// CHECK: scf.if
// CHECK: %[[V0:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8192xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[V0]][%{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?xf16, strided<[?, 1]>, 1> to memref<8192xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_create_group
// CHECK: scf.if
// CHECK: %[[G:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT: nvgpu.device_async_wait %[[G]] {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: %[[S0:.*]] = memref.view %[[RAW]]
// CHECK: nvgpu.ldmatrix %[[S0]][%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<8192xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %[[S0]][%{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<8192xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// With f32 outer sums, 2 x 2 warps of 64 x 64 keep half of them (the
// first two m16 rows: 16 of 32 fragments) in shared memory after the 3
// stages of 16 KiB, one 16-byte slot per thread and fragment, zeroed here.
// CHECK: %[[SLOTS:.*]] = memref.view %[[RAW]][%c49152][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8192xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-16: vector.store %{{.*}}, %[[SLOTS]][%{{.*}}] {alignment = 16 : i64} : memref<8192xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// The split loop over the chunks carries the other 16 f32 outer sums and
// the prefetched fragments ...
// CHECK: scf.for {{.*}} -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<4x2xf16>, {{.*}}vector<4x2xf16>) {
// ... the main K loop the f16 sums. The next k step's fragments load
// first, then the refill's plain 16-byte copies (no element count); then
// the barrier before the tile's last k step and the next tile's first
// fragments.
// CHECK: scf.for {{.*}} -> (vector<2x2xf16>, {{.*}}vector<2x2xf16>, vector<4x2xf16>, {{.*}}vector<4x2xf16>) {
// CHECK-NOT: scf.if
// CHECK: %[[CUR:.*]] = memref.view %[[RAW]]
// CHECK: nvgpu.ldmatrix %[[CUR]]
// CHECK-NOT: nvgpu.mma.sync
// CHECK: %[[W:.*]] = memref.view %[[RAW]]
// CHECK-NOT: nvgpu.mma.sync
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[W]][%{{.*}}], 8 {bypassL1}
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
// CHECK: nvgpu.device_async_wait %[[G]] {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.ldmatrix
// CHECK: nvgpu.mma.sync
// CHECK: scf.yield
// The tail loop refills with guarded, zero-filling copies.
// CHECK: scf.for {{.*}} -> (vector<2x2xf16>,
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK: scf.yield
// The chunk's last tile is peeled; its f16 sums are widened into the f32
// outer sums, in shared memory for the first 16.
// CHECK: nvgpu.mma.sync
// CHECK: arith.extf %{{.*}} : vector<2x2xf16> to vector<2x2xf32>
// CHECK: vector.load %[[SLOTS]]
// CHECK: arith.addf %{{.*}} : vector<2x2xf32>
// CHECK: vector.store %{{.*}}, %[[SLOTS]]
// CHECK: arith.addf %{{.*}} : vector<2x2xf32>
// CHECK: scf.yield
// With mma-handover they go in on the tensor cores: an n8 tile's f16 sums
// are the A fragment of an m16 x k8 tile, times the 8 x 8 identity (its B
// fragment built once) with f32 accumulation.
// MMAH-LABEL: func @mm
// MMAH: %[[ID:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<1x2xf16>
// MMAH: %[[SLOTS:.*]] = memref.view
// MMAH: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
// MMAH-NOT: arith.extf
// MMAH: vector.load %[[SLOTS]]
// MMAH: nvgpu.mma.sync(%{{.*}}, %[[ID]], %{{.*}}) {mmaShape = [16, 8, 8]} : (vector<2x2xf16>, vector<1x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// MMAH: vector.store %{{.*}}, %[[SLOTS]]
// MMAH-COUNT-31: nvgpu.mma.sync(%{{.*}}, %[[ID]], %{{.*}}) {mmaShape = [16, 8, 8]}
// MMAH-NOT: arith.addf
// MMAH: scf.yield
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK: vector.load %[[SLOTS]]
// Epilogue through shared memory: once no warp reads the stages, each
// warp writes its 32 fragments (two column pairs each) into its own region
// of them, 64 rows of 64 + 8 halves (the padding keeps a store's 8 rows in
// distinct banks), 4 x 4608 halves in all ...
// CHECK: %[[EPI:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<18432xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-64: vector.store %{{.*}}, %[[EPI]][%{{.*}}] {alignment = 4 : i64} : memref<18432xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-NOT: vector.store %{{.*}}, %[[EPI]]
// ... then reads 16 rows of 16-byte vectors back (8 lanes a row) and
// stores them where C is contiguous and aligned; where its row stride is a
// multiple of 4 or 2 elements only, as two 8-byte or four 4-byte vectors;
// elements otherwise. Whether C takes 16-byte vectors is one test for the
// kernel, outside each row's: where it does, the narrower ones are not
// tried (behind their branches every row's store cost 6%).
// CHECK: nvvm.bar.warp.sync
// CHECK-NOT: vector.store %{{.*}}, %[[EPI]]
// CHECK: vector.load %[[EPI]][%{{.*}}] {alignment = 16 : i64} : memref<18432xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: scf.if %[[WIDEST:.*]] {
// CHECK-NEXT: scf.if
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<8xf16>
// CHECK-NEXT: } else {
// CHECK-NOT: vector<4xf16>
// CHECK-COUNT-8: memref.store %{{.*}} : memref<?x?xf16, strided<[?, ?]>, 1>
// CHECK-NOT: vector<4xf16>
// CHECK: } else {
// CHECK: scf.if
// CHECK-COUNT-2: vector.store %{{.*}} {alignment = 8 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<4xf16>
// CHECK: } else {
// CHECK: scf.if
// CHECK-COUNT-4: vector.store %{{.*}} {alignment = 4 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<2xf16>
// CHECK: } else {
// CHECK: memref.store %{{.*}} : memref<?x?xf16, strided<[?, ?]>, 1>
// The next round's row takes the same test: one for the kernel.
// CHECK: vector.load %[[EPI]][%{{.*}}] {alignment = 16 : i64} : memref<18432xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: scf.if %[[WIDEST]] {
// The other 15 rounds alike.
// CHECK-COUNT-15: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<8xf16>
// CHECK-COUNT-2: vector.store %{{.*}} {alignment = 8 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<4xf16>
// CHECK-COUNT-4: vector.store %{{.*}} {alignment = 4 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<2xf16>
// CHECK-NOT: vector.store
// CHECK: gpu.return
// Stores straight from the fragments: a pair of adjacent columns per
// store where C allows it.
// DIRECT-LABEL: func @mm
// DIRECT-NOT: nvvm.bar.warp.sync
// DIRECT: scf.if
// DIRECT: vector.store %{{.*}} {alignment = 4 : i64} : memref<?x?xf16, strided<[?, 1]>, 1>, vector<2xf16>
// DIRECT: } else {
// DIRECT: memref.store %{{.*}} : memref<?x?xf16, strided<[?, ?]>, 1>
func.func @mm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// f32 C: a warp's 64 rows of 64 + 8 floats do not fit the three 16 KiB
// stages at once, so the epilogue takes two passes of 32 rows (4 x 2304
// floats), each writing 32 fragment pairs and reading back 16 rows of
// 4-float vectors a lane.
// CHECK-LABEL: func @f32_out
// CHECK: %[[EPI:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<9216xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-32: vector.store %{{.*}}, %[[EPI]][%{{.*}}] {alignment = 8 : i64} : memref<9216xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-16: vector.load %[[EPI]][%{{.*}}] {alignment = 16 : i64} : memref<9216xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-32: vector.store %{{.*}}, %[[EPI]]
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-16: vector.load %[[EPI]]
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK: gpu.return
func.func @f32_out(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf32>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Transposed B (nn.Linear weight) is read with non-transposing ldmatrix. The
// epilogue operand is a pointer and its strides along C's rows (0: a
// per-column bias) and columns; the host passes them after C's. The kernel
// reads it as an M x N view, in row 0 only (it does not vary along M), and
// clones the region after the rounding to its acc type.
// CHECK-LABEL: func @linear
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<?xf16, strided<[?]>>
// CHECK: memref.extract_strided_metadata %[[BIAS]]
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0
// CHECK-SAME: %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : !llvm.ptr<1>, %{{.*}} : i32, %{{.*}} : i32)
// CHECK: gpu.func @gpupoor_matmul_0
// CHECK-SAME: {gpupoor.name = "stride_cn"}, %{{.*}}: !llvm.ptr<1> {gpupoor.name = "in0_ptr"}, %{{.*}}: i32 {gpupoor.name = "stride_in0m"}, %{{.*}}: i32 {gpupoor.name = "stride_in0n"})
// CHECK: memref.view {{.*}} to memref<8192xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<8192xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: transpose = true
// CHECK: %[[B:.*]] = memref.load %{{.*}}[%c0{{.*}}, %{{.*}}] : memref<?x?xf16, strided<[?, ?]>, 1>
// CHECK: %[[S:.*]] = arith.addf %{{.*}}, %[[B]] : f16
// CHECK: arith.maximumf %[[S]], %{{.*}} : f16
func.func @linear(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %bias: memref<?xf16, strided<[?]>>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b ins(%bias : memref<?xf16, strided<[?]>>) maps([affine_map<(m, n) -> (n)>])
      outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [64, 64, 64], inner = f16, outer = f16, b_layout = nk, chip = sm_80>)
      : memref<?x?xf16>, memref<?x?xf16> epilogue {
  ^bb0(%acc: f16, %bv: f16, %o: f16):
    %s = arith.addf %acc, %bv : f16
    %z = arith.constant 0.0 : f16
    %r = arith.maximumf %s, %z : f16
    gpupoor.yield %r : f16
  }
  return
}

// -----

// C += A * B: the kernel loads C's element (clamped into C) before the
// epilogue's add; the manifest says the kernel reads C.
// CHECK-LABEL: func @accumulate
// CHECK: gpu.launch_func
// CHECK-SAME: reads_c = true
// CHECK: gpu.func @gpupoor_matmul_0
// CHECK: %[[CIN:.*]] = memref.load %{{.*}} : memref<?x?xf32, strided<[?, ?]>, 1>
// CHECK: arith.addf %[[CIN]], %{{.*}} : f32
func.func @accumulate(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf32>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_90>)
      : memref<?x?xf16>, memref<?x?xf16> epilogue {
  ^bb0(%acc: f32, %cin: f32):
    %s = arith.addf %cin, %acc : f32
    gpupoor.yield %s : f32
  }
  return
}

// -----

// Element-wise tile loads for operands of any alignment and strides: each
// 16-byte chunk of an operand whose start and row stride lie on 8 (4)
// bytes and whose inner stride is 1 in two 8-byte (four 4-byte) cp.async
// pieces (no bypassL1: that is 16-byte copies' alone), each zero-filling
// past the operand, through a unit-stride view; chosen at run time, once a
// block. Otherwise eight masked loads of the strided memref and a 16-byte
// shared store.
// The 64-bit kernels keep the element loads alone (their code stays small).
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="async-copies=false stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s --check-prefix=GEN
// RUN: gpupoor-opt %s -split-input-file -gpupoor-select-kernel-config="async-copies=false index-bitwidth=64 stages=3" -convert-gpupoor-to-nvgpu | FileCheck %s --check-prefix=GEN64
// GEN64-LABEL: func @any_alignment
// GEN64: gpu.func @gpupoor_matmul_0(
// GEN64-NOT: nvgpu.device_async_copy
// GEN64: memref.load %{{.*}} : memref<?x?xf16, strided<[?, ?]>, 1>
// GEN64: nvgpu.mma.sync
// GEN-LABEL: func @any_alignment
// GEN: gpu.launch_func
// GEN-SAME: #gpupoor.kernel<{{.*}}copies = elements,
// GEN: gpu.func @gpupoor_matmul_0(%[[APTR:[a-z0-9]+]]: !llvm.ptr<1>
// GEN: %[[AUNIT:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?x?xf16, strided<[?, 1]>, 1>
// GEN: llvm.ptrtoint %[[APTR]] : !llvm.ptr<1> to i64
// GEN: arith.andi %{{.*}}, %c1{{(_[0-9]+)?}} : index
// GEN: arith.andi %{{.*}}, %c3{{(_[0-9]+)?}} : index
// GEN: %[[A2:.*]] = arith.select %{{.*}}, %c2{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}} : index
// GEN: arith.andi %{{.*}}, %c3{{(_[0-9]+)?}} : index
// GEN: arith.andi %{{.*}}, %c7{{(_[0-9]+)?}} : index
// GEN: %[[APIECE:.*]] = arith.select %{{.*}}, %c4{{(_[0-9]+)?}}, %[[A2]] : index
// GEN: %[[IS8:.*]] = arith.cmpi eq, %[[APIECE]], %c4
// GEN: scf.if %[[IS8]] {
// Each piece reads the chunk's elements in it (none: from column 0) into
// its 8 bytes of the chunk.
// GEN: %[[N0:.*]] = arith.maxsi %{{.*}}, %c0{{(_[0-9]+)?}} : index
// GEN: %[[ANY0:.*]] = arith.cmpi slt, %c0{{(_[0-9]+)?}}, %[[N0]] : index
// GEN: %[[AT0:.*]] = arith.select %[[ANY0]], %{{.*}}, %c0{{(_[0-9]+)?}} : index
// GEN: %[[D0:.*]] = arith.addi %[[DST:[0-9a-z_]+]], %c0{{(_[0-9]+)?}} : index
// GEN: nvgpu.device_async_copy %[[AUNIT]][%{{.*}}, %[[AT0]]], %{{.*}}[%[[D0]]], 4, %[[N0]] : memref<?x?xf16, strided<[?, 1]>, 1> to memref<8192xf16, #gpu.address_space<workgroup>>
// GEN: %[[N1:.*]] = arith.maxsi %{{.*}}, %c0{{(_[0-9]+)?}} : index
// GEN: %[[AT1:.*]] = arith.select %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}} : index
// GEN: %[[D1:.*]] = arith.addi %[[DST]], %c4{{(_[0-9]+)?}} : index
// GEN: nvgpu.device_async_copy %[[AUNIT]][%{{.*}}, %[[AT1]]], %{{.*}}[%[[D1]]], 4, %[[N1]] : memref<?x?xf16, strided<[?, 1]>, 1> to memref<8192xf16, #gpu.address_space<workgroup>>
// GEN: } else {
// GEN: %[[IS4:.*]] = arith.cmpi eq, %[[APIECE]], %c2
// GEN: scf.if %[[IS4]] {
// GEN-COUNT-4: nvgpu.device_async_copy %[[AUNIT]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], 2, %{{[0-9a-z_]+}} : memref<?x?xf16, strided<[?, 1]>, 1> to memref<8192xf16, #gpu.address_space<workgroup>>
// GEN: } else {
// GEN-COUNT-8: memref.load %{{.*}} : memref<?x?xf16, strided<[?, ?]>, 1>
// GEN: vector.from_elements {{.*}} : vector<8xf16>
// GEN: vector.store %{{.*}} : memref<8192xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// GEN: nvgpu.mma.sync
func.func @any_alignment(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf16>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, chip = sm_86>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// A batched matmul launches once: the blocks of batch element b follow
// those of element b - 1 along grid x, and the kernel takes each operand's
// batch stride in i64 (0 for a bias the batch shares). First, the sizes the
// types leave dynamic must agree across the operands (the batch, M, K, N;
// the bias's N), or the program stops instead of reading out of bounds.
// CHECK-LABEL: func @batched
// CHECK-SAME: (%[[A:.*]]: memref<?x?x?xf16>, %[[B:.*]]: memref<?x?x?xf16>, %[[BIAS:.*]]: memref<?xf16>, %[[C:.*]]: memref<?x?x?xf32>)
// CHECK-COUNT-6: arith.cmpi eq
// CHECK: cf.assert %{{.*}}, "gpupoor.matmul: operand sizes disagree
// CHECK: %[[NB:.*]] = memref.dim %[[A]], %c0
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:3, %[[AS:.*]]:3 = memref.extract_strided_metadata %[[A]]
// CHECK: memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%{{.*}}, %{{.*}}], strides: [%{{.*}}, 1] : memref<?x?x?xf16> to memref<?x?xf16, strided<[?, 1]>>
// CHECK: memref.reinterpret_cast %[[B]] to offset: [0], sizes: [%{{.*}}, %{{.*}}], strides: [%{{.*}}, 1] : memref<?x?x?xf16> to memref<?x?xf16, strided<[?, 1]>>
// CHECK: memref.reinterpret_cast %[[C]] to offset: [0], sizes: [%{{.*}}, %{{.*}}], strides: [%{{.*}}, 1] : memref<?x?x?xf32> to memref<?x?xf32, strided<[?, 1]>>
// CHECK: %[[GRID:.*]] = arith.muli %{{.*}}, %[[NB]] : index
// CHECK: cf.assert %{{.*}}, "gpupoor.matmul: batch * ceil(M/BM) * ceil(N/BN) blocks exceed the grid (2^31 - 1)"
// CHECK: %[[ABS:.*]] = arith.index_cast %[[AS]]#0 : index to i64
// CHECK: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%[[GRID]], %c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK-SAME: %[[ABS]] : i64
// CHECK-SAME: #gpupoor.kernel<{{.*}}launch = batched
// CHECK: gpu.launch_func @gpupoor_matmul_0_elements_module::@gpupoor_matmul_0_elements
// CHECK: gpu.launch_func @gpupoor_matmul_0_i64_module::@gpupoor_matmul_0_i64
// CHECK-SAME: #gpupoor.kernel<{{.*}}copies = elements,{{.*}}index_bitwidth = 64>{{.*}}launch = batched
// CHECK: return
// The kernel: block id = b * T + the block's tile; each pointer moves by b
// times its batch stride.
// CHECK: gpu.module @gpupoor_matmul_0_module
// CHECK: gpu.func @gpupoor_matmul_0(
// CHECK-SAME: %{{.*}}: i64 {gpupoor.name = "stride_ab"}, %{{.*}}: i64 {gpupoor.name = "stride_bb"}, %{{.*}}: i64 {gpupoor.name = "stride_cb"}, %{{.*}}: i32 {gpupoor.name = "batch"}, %{{.*}}: !llvm.ptr<1> {gpupoor.name = "in0_ptr"}, %{{.*}}: i32 {gpupoor.name = "stride_in0m"}, %{{.*}}: i32 {gpupoor.name = "stride_in0n"}, %{{.*}}: i64 {gpupoor.name = "stride_in0b"})
// CHECK: %[[BX:.*]] = gpu.block_id  x
// CHECK: %[[BATCH:.*]] = arith.divui %[[BX]], %{{.*}} : index
// CHECK: arith.remui %[[BX]], %{{.*}} : index
// CHECK-COUNT-4: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>
func.func @batched(%a: memref<?x?x?xf16>, %b: memref<?x?x?xf16>, %bias: memref<?xf16>, %c: memref<?x?x?xf32>) {
  gpupoor.matmul %a, %b ins(%bias : memref<?xf16>) maps([affine_map<(b, m, n) -> (n)>])
      outs(%c : memref<?x?x?xf32>)
      strategy(#gpupoor.split_k<tile = [128, 128, 32], inner = f16, outer = f32, b_layout = nk, chip = sm_90>)
      : memref<?x?x?xf16>, memref<?x?x?xf16> epilogue {
  ^bb0(%acc: f32, %bv: f16, %o: f32):
    %b32 = arith.extf %bv : f16 to f32
    %s = arith.addf %acc, %b32 : f32
    gpupoor.yield %s : f32
  }
  return
}

// -----

// A batch of static size 0, and batches whose M or K is 0: the host code's
// views of the first batch element are reinterpret_casts (a subview at
// offset 0 of a size-0 dimension fails its verifier); it launches nothing.
// CHECK-LABEL: func @empty_batches
// CHECK-COUNT-3: memref.reinterpret_cast %{{.*}} to offset: [0]
func.func @empty_batches(%a: memref<0x64x32xf16>, %b: memref<0x32x48xf16>, %c: memref<0x64x48xf16>,
                         %a2: memref<3x0x32xf16>, %b2: memref<3x32x48xf16>, %c2: memref<3x0x48xf16>,
                         %a3: memref<3x64x0xf16>, %b3: memref<3x0x48xf16>, %c3: memref<3x64x48xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<0x64x48xf16>)
      strategy(#gpupoor.split_k<tile = [64, 64, 32], inner = f16, outer = f32, chip = sm_80>)
      : memref<0x64x32xf16>, memref<0x32x48xf16>
  gpupoor.matmul %a2, %b2 outs(%c2 : memref<3x0x48xf16>)
      strategy(#gpupoor.split_k<tile = [64, 64, 32], inner = f16, outer = f32, chip = sm_80>)
      : memref<3x0x32xf16>, memref<3x32x48xf16>
  gpupoor.matmul %a3, %b3 outs(%c3 : memref<3x64x48xf16>)
      strategy(#gpupoor.split_k<tile = [64, 64, 32], inner = f16, outer = f32, chip = sm_80>)
      : memref<3x64x0xf16>, memref<3x0x48xf16>
  return
}
