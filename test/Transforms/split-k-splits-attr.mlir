// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k -verify-diagnostics
// RUN: gpupoor-opt %s -split-input-file -gpupoor-split-k -verify-diagnostics | FileCheck %s

// A gpupoor.splits attribute S cannot be fails the pass (it used to print an
// error and exit 0 with the matmul left alone).
func.func @zero(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{'linalg.matmul' op gpupoor.splits must be an integer in [1, 65536], got 0 : i64}}
  %r = linalg.matmul {gpupoor.splits = 0 : i64} ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @not_integer(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{'linalg.matmul' op gpupoor.splits must be an integer in [1, 65536], got "four"}}
  %r = linalg.matmul {gpupoor.splits = "four"} ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @wide(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{'linalg.matmul' op gpupoor.splits must be an integer in [1, 65536], got 170141183460469231731687303715884105727 : i128}}
  %r = linalg.matmul {gpupoor.splits = 170141183460469231731687303715884105727 : i128} ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// gpupoor.slices names P: 0 (chosen) or a count up to 65535 (grid y).
func.func @slices_negative(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{'linalg.matmul' op gpupoor.slices must be an integer in [0, 65535], got -2 : i64}}
  %r = linalg.matmul {gpupoor.slices = -2 : i64} ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// The count is the integer the attribute's type says: 255 : ui8 is 255 (not
// -1, its bits read as signed), 3 : i7 is 3, 2 : si16 is 2.
// CHECK-LABEL: func @unsigned
// CHECK: strategy(#gpupoor.split_k<splits = 255,
func.func @unsigned(%a: tensor<16x8192xf16>, %b: tensor<8192x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul {gpupoor.splits = 255 : ui8} ins(%a, %b : tensor<16x8192xf16>, tensor<8192x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func @odd_widths
// CHECK: strategy(#gpupoor.split_k<splits = 3,
// CHECK-SAME: slices = 2
func.func @odd_widths(%a: tensor<16x1024xf16>, %b: tensor<1024x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul {gpupoor.splits = 3 : i7, gpupoor.slices = 2 : si16} ins(%a, %b : tensor<16x1024xf16>, tensor<1024x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @unsigned_out_of_range(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{'linalg.matmul' op gpupoor.slices must be an integer in [0, 65535], got 70000 : ui32}}
  %r = linalg.matmul {gpupoor.slices = 70000 : ui32} ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @unsigned_max(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{'linalg.matmul' op gpupoor.splits must be an integer in [1, 65536], got 18446744073709551615 : ui64}}
  %r = linalg.matmul {gpupoor.splits = 18446744073709551615 : ui64} ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
