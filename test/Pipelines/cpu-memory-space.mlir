// RUN: not gpupoor-opt %s --gpupoor-cpu-pipeline 2>&1 | FileCheck %s
// RUN: gpupoor-opt %s --gpupoor-cpu-pipeline -verify-diagnostics

// A memref outside the default and integer memory spaces has no LLVM address
// space: the pipeline fails (upstream's memref lowering would print an
// error and succeed, exit 0, leaving the memref unconverted). The matmul on
// it is not rewritten (not memory the host code hands to a kernel).
// CHECK: error: 'func.func' op uses 'memref<32x64xf16, #gpu.address_space<workgroup>>', whose memory space has no LLVM address space in host code
// expected-error @+1 {{'func.func' op uses 'memref<32x64xf16, #gpu.address_space<workgroup>>', whose memory space has no LLVM address space in host code (only integer memory spaces translate)}}
func.func @workgroup_memory(%a: memref<32x64xf16, #gpu.address_space<workgroup>>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
  linalg.matmul ins(%a, %b : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x32xf16>) outs(%c : memref<32x32xf16>)
  return
}
