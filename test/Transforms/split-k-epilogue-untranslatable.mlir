// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k | FileCheck %s
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k --remarks-filter=gpupoor-split-k --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// The epilogue fusion takes only the arith and math ops that both epilogue
// lowerings translate: the kernels' (convert-gpupoor-kernel-to-nvvm, then
// the NVPTX backend) and the CPU loops' (gpupoor-cpu-pipeline). Any other
// op stays in its consumer, which reads the gpupoor.matmul's result; the
// ops before it are fused. A remark (--remarks-filter=gpupoor-split-k)
// says why. Each of these used to be fused, and the program failed at LLVM
// translation or aborted in the backend.

// math.clampf has no lowering to LLVM on either side. The consumer before
// it is fused.
// CHECK-LABEL: func @clampf
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK: arith.mulf
// CHECK-NEXT: gpupoor.yield
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: math.clampf
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'math.clampf' stays outside the matmul's epilogue: the kernels' NVVM lowering or the CPU loops' lowering has no pattern for it"
func.func @clampf(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %lo = arith.constant -1.0 : f32
    %hi = arith.constant 1.0 : f32
    %y = math.clampf %x to [%lo, %hi] : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// math.ipowi: no lowering on either side (math-to-funcs is in neither
// pipeline).
// CHECK-LABEL: func @ipowi
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: math.ipowi
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'math.ipowi' stays outside the matmul's epilogue: the kernels' NVVM lowering or the CPU loops' lowering has no pattern for it"
func.func @ipowi(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = arith.fptosi %x : f32 to i32
    %p = math.ipowi %i, %i : i32
    %y = arith.sitofp %p : i32 to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// math.isinf: the kernels lower it, the CPU loops do not.
// CHECK-LABEL: func @isinf
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: math.isinf
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'math.isinf' stays outside the matmul's epilogue: the kernels' NVVM lowering or the CPU loops' lowering has no pattern for it"
func.func @isinf(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %f = math.isinf %x : f32
    %y = arith.uitofp %f : i1 to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// math.isnormal: no lowering on either side.
// CHECK-LABEL: func @isnormal
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: math.isnormal
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'math.isnormal' stays outside the matmul's epilogue: the kernels' NVVM lowering or the CPU loops' lowering has no pattern for it"
func.func @isnormal(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %f = math.isnormal %x : f32
    %y = arith.uitofp %f : i1 to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// arith.scaling_truncf (here with no 8-bit type in sight): no lowering.
// CHECK-LABEL: func @scaling_truncf
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: arith.scaling_truncf
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'arith.scaling_truncf' stays outside the matmul's epilogue: the kernels' NVVM lowering or the CPU loops' lowering has no pattern for it"
func.func @scaling_truncf(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    %t = arith.scaling_truncf %x, %s : f32, f32 to f16
    %y = arith.extf %t : f16 to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// arith.scaling_extf: no lowering either.
// CHECK-LABEL: func @scaling_extf
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: arith.scaling_extf
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'arith.scaling_extf' stays outside the matmul's epilogue: the kernels' NVVM lowering or the CPU loops' lowering has no pattern for it"
func.func @scaling_extf(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %h = arith.truncf %x : f32 to f16
    %y = arith.scaling_extf %h, %h : f16, f16 to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// 8-bit floats (and the 4- and 6-bit ones, tf32) have no LLVM type:
// arith-to-llvm leaves their truncf, extf and arithmetic unconverted.
// CHECK-LABEL: func @truncf_f8
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: arith.truncf
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'arith.truncf' stays outside the matmul's epilogue: its element types are not integers, f16, bf16, f32 or f64, the ones the lowerings compute with"
func.func @truncf_f8(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.truncf %x : f32 to f8E4M3FN
    %y = arith.extf %t : f8E4M3FN to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// An f8 constant from outside the body: the body stays in its consumer,
// and the remark names the constant.
// CHECK-LABEL: func @outer_f8_constant
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: arith.extf
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'arith.constant' stays outside the matmul's epilogue: its element types are not integers, f16, bf16, f32 or f64, the ones the lowerings compute with"
func.func @outer_f8_constant(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f8E4M3FN
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %h = arith.extf %half : f8E4M3FN to f32
    %y = arith.mulf %x, %h : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// f128 (and f80): the NVPTX backend has none, and aborts on their
// arithmetic.
// CHECK-LABEL: func @f128
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: arith.extf
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'arith.extf' stays outside the matmul's epilogue: its element types are not integers, f16, bf16, f32 or f64, the ones the lowerings compute with"
func.func @f128(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %w = arith.extf %x : f32 to f128
    %s = arith.mulf %w, %w : f128
    %y = arith.truncf %s : f128 to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// An explicit rounding mode becomes a constrained intrinsic, which states
// the mode rather than sets it: both targets round to nearest (NVPTX
// aborts on one to bf16).
// CHECK-LABEL: func @rounding_mode
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: arith.truncf
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'arith.truncf' stays outside the matmul's epilogue: the lowerings do not honour an explicit rounding mode"
func.func @rounding_mode(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.truncf %x toward_zero : f32 to f16
    %y = arith.extf %t : f16 to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// math.fpowi with an i64 exponent that is not a constant: libdevice's
// powi and LLVM's take an i32 (a constant is narrowed: below).
// CHECK-LABEL: func @fpowi_variable_i64
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: math.fpowi
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'math.fpowi' stays outside the matmul's epilogue: its exponent is neither an i32 nor a constant that fits in one"
func.func @fpowi_variable_i64(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.fptosi %x : f32 to i64
    %y = math.fpowi %x, %n : f32, i64
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// arith.addui_extended on index: arith-to-llvm keeps the index in its
// result struct, which LLVM cannot hold.
// CHECK-LABEL: func @addui_extended_index
// CHECK: %[[R:.*]] = gpupoor.matmul
// CHECK-SAME: -> tensor<32x32xf32>{{$}}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
// CHECK: arith.addui_extended
// REMARK: remark: [Missed] EpilogueFusion | Category:gpupoor-split-k | Remark="'arith.addui_extended' stays outside the matmul's epilogue: arith-to-llvm cannot lower it on index"
func.func @addui_extended_index(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = arith.fptosi %x : f32 to i64
    %j = arith.index_cast %i : i64 to index
    %s, %f = arith.addui_extended %j, %j : index, i1
    %y = arith.uitofp %f : i1 to f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A constant exponent that fits in i32 is fused, whatever its type (the
// NVVM lowering narrows it): the ONNX importer's tanh-GELU has x^3 so.
// CHECK-LABEL: func @fpowi_constant_i64
// CHECK-NOT: linalg.generic
// CHECK: gpupoor.matmul
// CHECK: math.fpowi %{{.*}}, %{{.*}} : f32, i64
// CHECK-NEXT: gpupoor.yield
// REMARK-NOT: EpilogueFusion
func.func @fpowi_constant_i64(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.constant 3 : i64
    %y = math.fpowi %x, %n : f32, i64
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
