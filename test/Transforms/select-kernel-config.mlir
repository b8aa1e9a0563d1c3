// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90 outer-type=f32" -gpupoor-select-kernel-config | FileCheck %s --check-prefix=SM90-F32
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_90 outer-type=f16" -gpupoor-select-kernel-config | FileCheck %s --check-prefix=SM90-F16
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_80 outer-type=f32" -gpupoor-select-kernel-config | FileCheck %s --check-prefix=SM80-F32
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_80 outer-type=f16" -gpupoor-select-kernel-config | FileCheck %s --check-prefix=SM80-F16
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_86 outer-type=f16" -gpupoor-select-kernel-config | FileCheck %s --check-prefix=SM86-F16
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k="chip=sm_89 outer-type=f32" -gpupoor-select-kernel-config | FileCheck %s --check-prefix=SM89-F32
// The pipeline's defaults are the passes': the same configurations.
// RUN: gpupoor-opt %s -split-input-file --gpupoor-to-cubin="chip=sm_90 cubin-format=isa" -mlir-print-ir-after=gpupoor-select-kernel-config -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90-F32
// RUN: gpupoor-opt %s -split-input-file --gpupoor-to-cubin="chip=sm_86 outer-type=f16 cubin-format=isa" -mlir-print-ir-after=gpupoor-select-kernel-config -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM86-F16

// The kernel configuration gpupoor-select-kernel-config picks per chip and
// shape (with the tile gpupoor-split-k picks through the same heuristics).
// sm_90 has 228 KiB of shared memory an SM: two 2 x 2 blocks of 4 stages of
// 16 KiB fit with 32 KiB of f32 outer sums each; sm_80 (164 KiB) fits them
// only with f16 outer sums; sm_86/sm_89 (100 KiB) fit neither: 2 x 4 warps
// of 64 x 32, all sums in registers.

// A large static product on sm_90 takes 256 x 128 x 64 tiles as eight
// 64 x 64 warps, 3 stages; f32 outer sums half in shared memory, handed
// over on the tensor cores.
// SM90-F32-LABEL: func @large
// SM90-F32: config(#gpupoor.kernel_config<warps = [4, 2], stages = 3, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 1, handover = mma, index_bitwidth = 32>)
// SM90-F16-LABEL: func @large
// SM90-F16: config(#gpupoor.kernel_config<warps = [4, 2], stages = 3, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM80-F32-LABEL: func @large
// SM80-F32: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM80-F16-LABEL: func @large
// SM80-F16: config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM86-F16-LABEL: func @large
// SM86-F16: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM89-F32-LABEL: func @large
// SM89-F32: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
func.func @large(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %out: memref<4096x4096xf16>) {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x4096xf16>
  %c = linalg.fill ins(%cst : f16) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>)
                     outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<4096x4096xf16>, memref<4096x4096xf16>) -> ()
  return
}

// -----

// Too few 256 x 128 tiles to fill the SMs twice: 128 x 128 x 32. f32 C: the
// shared-memory epilogue takes two passes over a warp's rows.
// SM90-F32-LABEL: func @skinny
// SM90-F32: config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 2, handover = convert, index_bitwidth = 32>)
// SM90-F16-LABEL: func @skinny
// SM90-F16: config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 2, handover = convert, index_bitwidth = 32>)
// SM80-F32-LABEL: func @skinny
// SM80-F32: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 2, handover = convert, index_bitwidth = 32>)
// SM80-F16-LABEL: func @skinny
// SM80-F16: config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 2, handover = convert, index_bitwidth = 32>)
// SM86-F16-LABEL: func @skinny
// SM86-F16: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 2, handover = convert, index_bitwidth = 32>)
// SM89-F32-LABEL: func @skinny
// SM89-F32: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 2, handover = convert, index_bitwidth = 32>)

func.func @skinny(%a: tensor<512x2048xf16>, %b: tensor<2048x10240xf16>, %out: memref<512x10240xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x10240xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<512x10240xf32>) -> tensor<512x10240xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x2048xf16>, tensor<2048x10240xf16>)
                     outs(%c : tensor<512x10240xf32>) -> tensor<512x10240xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<512x10240xf32>, memref<512x10240xf32>) -> ()
  return
}

// -----

// A dynamic shape could be small: 128 x 128 x 32.
// SM90-F32-LABEL: func @dynamic
// SM90-F32: config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 2, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM90-F16-LABEL: func @dynamic
// SM90-F16: config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM80-F32-LABEL: func @dynamic
// SM80-F32: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM80-F16-LABEL: func @dynamic
// SM80-F16: config(#gpupoor.kernel_config<warps = [2, 2], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM86-F16-LABEL: func @dynamic
// SM86-F16: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)
// SM89-F32-LABEL: func @dynamic
// SM89-F32: config(#gpupoor.kernel_config<warps = [2, 4], stages = 4, group_m = 8, copies = async, fragment_prefetch = 1, shared_outer_rows = 0, epilogue_passes = 1, handover = convert, index_bitwidth = 32>)

func.func @dynamic(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %out: memref<?x?xf16>) {
  %cst = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf16>
  %n = tensor.dim %b, %c1 : tensor<?x?xf16>
  %c = tensor.empty(%m, %n) : tensor<?x?xf16>
  %z = linalg.fill ins(%cst : f16) outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%z : tensor<?x?xf16>) -> tensor<?x?xf16>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<?x?xf16>, memref<?x?xf16>) -> ()
  return
}
