// RUN: rm -rf %t && gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90a stream-k=true cubin-format=isa dump-dir=%t" | FileCheck %s --check-prefix=MLIR
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.json --check-prefix=JSON
// RUN: FileCheck %s --input-file=%t/gpupoor_matmul_0.ptx

// A stream-K kernel (2048 x 4096: 256 persistent tiles of 128 x 256, past
// one wave of 132): the host code gives it a workspace of G = min(T, 132)
// slots of a tile's f32 sums (131072 bytes each: 17301504 bytes) and G
// zeroed flags where T > G (here folded), from the runtime's kept buffers:
// no allocation, fill kernel or free a call; the manifest says so. The
// kernel fences before it raises a flag and after it sees one, reading
// flags with atomics.
// MLIR: llvm.func @gpupoorSliceCounters(i64) -> !llvm.ptr
// MLIR: llvm.func @gpupoorSliceSums(i64) -> !llvm.ptr
// MLIR-LABEL: func.func @stream_k
// MLIR: %[[WS:.*]] = llvm.call @gpupoorSliceSums(%c17301504_i64)
// MLIR: %[[FLAGS:.*]] = llvm.call @gpupoorSliceCounters(%c132_i64)
// MLIR-NOT: gpu.launch_func @stream_k_kernel
// MLIR: gpu.launch_func @gpupoor_matmul_0_module::@gpupoor_matmul_0 blocks in (%c132, %c1, %c1)
// MLIR-SAME: %c17301504_i64 : i64, %{{.*}} : !llvm.ptr<1>, %c132_i64 : i64
// MLIR-SAME: stream_k = true
// MLIR-NOT: gpu.dealloc

// JSON: "params": [
// JSON: "stride_cn",
// JSON-NEXT: "ws_ptr",
// JSON-NEXT: "ws_bytes",
// JSON-NEXT: "locks_ptr",
// JSON-NEXT: "locks_count",
// JSON-NEXT: "a_desc",
// JSON: "requires": "{{.*}}where the blocks share tiles a workspace of G*workspace_bytes_per_block bytes and G zeroed flags (the kernel traps on short or misaligned ones)"
// JSON: "stream_k": true
// JSON: "workspace_bytes_per_block": 131072
// JSON-NOT: formula

// CHECK: .visible .entry gpupoor_matmul_0(
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16
// CHECK: membar.gl;
// CHECK: atom.global.exch.b32
// CHECK: atom.global.or.b32 [[FLAG:%r[0-9]+]], {{\[}}[[AT:%rd[0-9]+]]{{\]}}, 0;
// CHECK-NEXT: setp.eq.b32 [[DOWN:%p[0-9]+]], [[FLAG]], 0;
// CHECK-NEXT: @[[DOWN]] bra
// CHECK-NEXT: membar.gl;
// CHECK-NEXT: st.global.b32 {{\[}}[[AT]]{{\]}}, 0;
func.func @stream_k(%a: tensor<2048x14336xf16>, %w: tensor<4096x14336xf16>) -> tensor<2048x4096xf16> {
  %zero = arith.constant 0.0 : f16
  %empty = tensor.empty() : tensor<2048x4096xf16>
  %init = linalg.fill ins(%zero : f16) outs(%empty : tensor<2048x4096xf16>) -> tensor<2048x4096xf16>
  %c = linalg.matmul indexing_maps = [
      affine_map<(m, n, k) -> (m, k)>,
      affine_map<(m, n, k) -> (n, k)>,
      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %w : tensor<2048x14336xf16>, tensor<4096x14336xf16>)
      outs(%init : tensor<2048x4096xf16>) -> tensor<2048x4096xf16>
  return %c : tensor<2048x4096xf16>
}
