// RUN: gpupoor-opt %s -split-input-file -gpupoor-check-host-memory -verify-diagnostics

// Host code that only computes pointers and sizes passes; device code may
// read and write as it likes.
module attributes {gpu.container_module} {
  func.func @launch_only(%a: memref<?x?xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = memref.dim %a, %c0 : memref<?x?xf16>
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a
        : memref<?x?xf16> -> memref<f16>, index, index, index, index, index
    %p = memref.extract_aligned_pointer_as_index %base : memref<f16> -> index
    gpu.launch_func @kernels::@k blocks in (%d, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%p : index)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%p: index) kernel {
      %m = memref.alloca() : memref<4xf16>
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<4xf16>
      memref.store %v, %m[%c0] : memref<4xf16>
      gpu.return
    }
  }
}

// -----

// A copy of a C += A * B result into another buffer, as bufferization
// leaves it.
func.func @copy(%c: memref<16x16xf16>, %out: memref<16x16xf16>) {
  // expected-error @+1 {{host code would access GPU memory here}}
  memref.copy %c, %out : memref<16x16xf16> to memref<16x16xf16>
  return
}

// -----

// An op left after a matmul, as host loops.
func.func @host_loop(%c: memref<16x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    // expected-error @+1 {{host code would access GPU memory here}}
    %v = memref.load %c[%i, %i] : memref<16x16xf16>
    %w = arith.addf %v, %v : f16
    // expected-error @+1 {{host code would access GPU memory here}}
    memref.store %w, %c[%i, %i] : memref<16x16xf16>
  }
  return
}

// -----

func.func @alloc() -> memref<16xf32> {
  // expected-error @+1 {{host code would access GPU memory here}}
  %m = memref.alloc() : memref<16xf32>
  return %m : memref<16xf32>
}

// -----

// A host constant that host code hands on as it is (here, to a call) would
// be read as device memory.
func.func private @consume(memref<4xf16>)
func.func @global_passed_on() {
  // expected-error @+1 {{host constant read by device code}}
  %g = memref.get_global @four : memref<4xf16>
  func.call @consume(%g) : (memref<4xf16>) -> ()
  return
}
memref.global "private" constant @four : memref<4xf16> = dense<1.0>
