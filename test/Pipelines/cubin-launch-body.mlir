// RUN: gpupoor-opt %s --gpupoor-to-cubin="chip=sm_90 cubin-format=isa" | FileCheck %s

// A matmul in the body of a gpu.launch is device code: gpupoor-split-k
// leaves it alone and gpupoor-offload-to-gpu does not offload it again (it
// once made a launch inside the launch, which kernel outlining crashed on);
// it runs as loops in its thread, outlined with its launch.
// CHECK: func.func @in_launch
// CHECK: gpu.launch_func @in_launch_kernel::@in_launch_kernel
// CHECK-NOT: gpupoor
// CHECK: gpu.binary @in_launch_kernel
module attributes {gpu.container_module} {
  func.func @in_launch(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
    %one = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%x = %one, %y = %one, %z = %one)
               threads(%tx, %ty, %tz) in (%u = %one, %v = %one, %w = %one) {
      %zero = arith.constant 0.0 : f16
      linalg.fill ins(%zero : f16) outs(%c : memref<32x32xf16>)
      linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x32xf16>) outs(%c : memref<32x32xf16>)
      gpu.terminator
    }
    return
  }
}
