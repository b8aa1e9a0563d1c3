// RUN: gpupoor-opt %s -split-input-file -gpupoor-check-memory-spaces -verify-diagnostics | FileCheck %s

// Default and integer memory spaces translate: the pass leaves the IR as
// it is.
// CHECK-LABEL: func @integer_spaces
func.func @integer_spaces(%a: memref<4xf16>, %b: memref<4xf16, 3>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<4xf16>
  memref.store %v, %b[%c0] : memref<4xf16, 3>
  return
}

// -----

// Device code maps its own spaces.
// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  gpu.func @shared(%a: memref<4xf16, #gpu.address_space<workgroup>>) workgroup(%w: memref<4xf16, #gpu.address_space<workgroup>>) {
    gpu.return
  }
}

// -----

// expected-error @+1 {{'func.func' op uses 'memref<4xf16, #gpu.address_space<workgroup>>', whose memory space has no LLVM address space in host code (only integer memory spaces translate)}}
func.func @argument(%a: memref<4xf16, #gpu.address_space<workgroup>>) {
  return
}

// -----

func.func @allocation() {
  // expected-error @+1 {{'memref.alloca' op uses 'memref<4xf16, "scratch">', whose memory space has no LLVM address space in host code}}
  %a = memref.alloca() : memref<4xf16, "scratch">
  return
}
