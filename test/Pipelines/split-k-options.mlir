// Every gpupoor-split-k option is reachable through the pipelines, textual
// (--pass-pipeline) or flag form.
// RUN: gpupoor-opt %s --pass-pipeline='builtin.module(gpupoor-to-cubin{chip=sm_80 cubin-format=isa strict=true})' -split-input-file -verify-diagnostics -o /dev/null
// RUN: gpupoor-opt %s --gpupoor-cpu-pipeline="strict=true" -split-input-file -verify-diagnostics -o /dev/null
// RUN: gpupoor-opt %s --gpupoor-cpu-pipeline="report-ineligible=true relax-f32-accumulation=false fold-layouts=false" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// REPORT: remark: not rewritten to gpupoor.matmul: integer operands ('i8')
// REPORT: remark: not rewritten to gpupoor.matmul: f32 result: the IR accumulates in f32, and relax-f32-accumulation is off

func.func @ineligible(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  // expected-error @+1 {{not rewritten to gpupoor.matmul: integer operands ('i8')}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xi8>, tensor<32x16xi8>) outs(%c : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}

// -----

// Rewritten by default (relax-f32-accumulation=true), so strict accepts it.
func.func @f32acc(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
