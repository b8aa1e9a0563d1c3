// RUN: gpupoor-opt %s -split-input-file -convert-gpupoor-to-loops | FileCheck %s

// Static S: tile loops, split loop carrying the outer f32 sum, k16 steps
// carrying the f16 accumulator, the f64 sum of one step rounded once.
// Balanced chunks: 97 blocks in 3 chunks, chunk s starting at block
// s * q + min(s, r) with 97 = 32 * 3 + 1 (blocks 0, 33, 65, 97).
// CHECK-LABEL: func @static_splits
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[BK:.*]] = arith.constant 32 : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivsi %[[K:.*]], %[[BK]]
// CHECK: %[[CHUNKS:.*]] = arith.minsi %[[C3]], %[[BLOCKS]]
// CHECK: %[[DIV:.*]] = arith.maxsi %[[CHUNKS]], %[[C1]]
// CHECK: %[[Q:.*]] = arith.divui %[[BLOCKS]], %[[DIV]]
// CHECK: %[[R:.*]] = arith.remui %[[BLOCKS]], %[[DIV]]
// CHECK: scf.parallel (%[[BT:.*]], %[[TM:.*]], %[[TN:.*]]) =
// CHECK-SAME: step (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: scf.for %[[I:.*]] = %[[TM]] to
// CHECK: scf.for %[[J:.*]] = %[[TN]] to
// CHECK: %[[OUTER:.*]] = scf.for %[[S:.*]] = %[[C0]] to %[[C3]] step %{{.*}} iter_args(%[[O:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[SC:.*]] = arith.minsi %[[S]], %[[CHUNKS]]
// CHECK: %[[SQ:.*]] = arith.muli %[[SC]], %[[Q]]
// CHECK: %[[LONGER:.*]] = arith.minsi %[[SC]], %[[R]]
// CHECK: %[[START:.*]] = arith.addi %[[SQ]], %[[LONGER]]
// CHECK: %[[KB0:.*]] = arith.muli %[[START]], %[[BK]]
// CHECK: %[[KB:.*]] = arith.minsi %[[KB0]], %[[K]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[SC]], %[[C1]]
// CHECK: %[[SN:.*]] = arith.minsi %[[NEXT]], %[[CHUNKS]]
// CHECK: arith.muli %[[SN]], %[[Q]]
// CHECK: arith.minsi %[[SN]], %[[R]]
// CHECK: %[[KE:.*]] = arith.minsi %{{.*}}, %[[K]]
// CHECK-NEXT: %[[INNER:.*]] = scf.for %[[K0:.*]] = %[[KB]] to %[[KE]] step %[[C16]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (f16)
// CHECK: %[[ACC64:.*]] = arith.extf %[[ACC]] : f16 to f64
// CHECK: %[[SUM:.*]] = scf.for %[[KK:.*]] = %[[K0]] to %{{.*}} iter_args(%[[T:.*]] = %[[ACC64]]) -> (f64)
// CHECK: memref.load %{{.*}}[%[[I]], %[[KK]]]
// CHECK: memref.load %{{.*}}[%[[KK]], %[[J]]]
// CHECK: arith.mulf %{{.*}} : f64
// CHECK: arith.addf %[[T]], %{{.*}} : f64
// CHECK: arith.truncf %[[SUM]] : f64 to f16
// CHECK: %[[EXT:.*]] = arith.extf %[[INNER]] : f16 to f32
// CHECK: arith.addf %[[O]], %[[EXT]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[OUTER]] : f32 to f16
// CHECK: memref.store %[[R]], %{{.*}}[%[[I]], %[[J]]]
func.func @static_splits(%a: memref<64x3104xf16>, %b: memref<3104x64xf16>, %c: memref<64x64xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x64xf16>)
      strategy(#gpupoor.split_k<splits = 3, tile = [32, 32, 32], inner = f16, outer = f32>)
      : memref<64x3104xf16>, memref<3104x64xf16>
  return
}

// -----

// No splits in the strategy: S is computed from K at run time,
// next_pow2(floor(sqrt(n))) as 2^c for c the count of n >= (2^j + 1)^2, j
// < log2(max_splits) (here 4, 9, 25), at least 12 where n >= 64, clamped to
// max_splits; f16 outer sums round once through f64.
// CHECK-LABEL: func @runtime_splits
// CHECK-DAG: %[[E4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[E9:.*]] = arith.constant 9 : i64
// CHECK-DAG: %[[E25:.*]] = arith.constant 25 : i64
// CHECK-DAG: %[[MAX:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[LONG:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[FLOOR:.*]] = arith.constant 12 : i64
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: arith.cmpi sge, %[[N]], %[[E4]] : i64
// CHECK: arith.cmpi sge, %[[N]], %[[E9]] : i64
// CHECK: arith.cmpi sge, %[[N]], %[[E25]] : i64
// CHECK-NOT: arith.cmpi sge, %[[N]]
// CHECK: %[[POW:.*]] = arith.shli %{{.*}}, %{{.*}} : i64
// CHECK: %[[IS_LONG:.*]] = arith.cmpi sge, %[[N]], %[[LONG]] : i64
// CHECK: %[[RAISED:.*]] = arith.maxsi %[[POW]], %[[FLOOR]] : i64
// CHECK: %[[SEL:.*]] = arith.select %[[IS_LONG]], %[[RAISED]], %[[POW]] : i64
// CHECK: arith.minsi %[[SEL]], %[[MAX]] : i64
// CHECK: %[[S:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[S]] step %{{.*}} iter_args(%[[O:.*]] = %{{.*}}) -> (f16)
// CHECK: %[[O64:.*]] = arith.extf %[[O]] : f16 to f64
// CHECK: %[[I64:.*]] = arith.extf %{{.*}} : f16 to f64
// CHECK: %[[ADD:.*]] = arith.addf %[[O64]], %[[I64]] : f64
// CHECK: arith.truncf %[[ADD]] : f64 to f16
func.func @runtime_splits(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  gpupoor.matmul %a, %b outs(%c : memref<?x?xf32>)
      strategy(#gpupoor.split_k<max_splits = 8, tile = [128, 128, 32], inner = f16, outer = f16>)
      : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

// Batched, transposed B; the epilogue reads a bias per column and a scale
// per batch element and row through their maps, and erf-GELU.
// CHECK-LABEL: func @batched_epilogue
// CHECK: scf.parallel (%[[BT:.*]], %{{.*}}, %{{.*}}) =
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: memref.load %{{.*}}[%[[BT]], %[[I]], %[[KK:.*]]] : memref<2x16x64xf16>
// CHECK: memref.load %{{.*}}[%[[BT]], %[[J]], %[[KK]]] : memref<2x24x64xf16>
// CHECK: %[[BIAS:.*]] = memref.load %{{.*}}[%[[J]]] : memref<24xf16>
// CHECK: %[[SCALE:.*]] = memref.load %{{.*}}[%[[I]], %[[BT]]] : memref<16x2xf32>
// CHECK-NOT: memref.load
// CHECK: %[[BIAS32:.*]] = arith.extf %[[BIAS]] : f16 to f32
// CHECK: %[[V:.*]] = arith.addf %{{.*}}, %[[BIAS32]] : f32
// CHECK: %[[W:.*]] = arith.mulf %[[V]], %[[SCALE]] : f32
// CHECK: math.erf
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[BT]], %[[I]], %[[J]]] : memref<2x16x24xf32>
func.func @batched_epilogue(%a: memref<2x16x64xf16>, %b: memref<2x24x64xf16>,
                            %bias: memref<24xf16>, %scale: memref<16x2xf32>,
                            %c: memref<2x16x24xf32>) {
  gpupoor.matmul %a, %b ins(%bias, %scale : memref<24xf16>, memref<16x2xf32>)
      maps([affine_map<(b, m, n) -> (n)>, affine_map<(b, m, n) -> (m, b)>])
      outs(%c : memref<2x16x24xf32>)
      strategy(#gpupoor.split_k<splits = 2, tile = [16, 8, 16], inner = f16, outer = f32,
                                b_layout = nk>)
      : memref<2x16x64xf16>, memref<2x24x64xf16> epilogue {
  ^bb0(%acc: f32, %bv: f16, %s: f32, %o: f32):
    %b32 = arith.extf %bv : f16 to f32
    %v = arith.addf %acc, %b32 : f32
    %w = arith.mulf %v, %s : f32
    %k = arith.constant 0.70710678 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x = arith.mulf %w, %k : f32
    %e = math.erf %x : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %w, %half : f32
    %g = arith.mulf %h, %p : f32
    gpupoor.yield %g : f32
  }
  return
}

// -----

// C += A * B: C's element is loaded, the f16 outer sum widened to C's f32
// and added to it, the sum stored back in place.
// CHECK-LABEL: func @accumulate
// CHECK: %[[OUTER:.*]] = scf.for
// CHECK: %[[CIN:.*]] = memref.load %[[C:.*]][%[[I:.*]], %[[J:.*]]] : memref<16x8xf32>
// CHECK: %[[ACC:.*]] = arith.extf %[[OUTER]] : f16 to f32
// CHECK: %[[S:.*]] = arith.addf %[[CIN]], %[[ACC]] : f32
// CHECK: memref.store %[[S]], %[[C]][%[[I]], %[[J]]] : memref<16x8xf32>
func.func @accumulate(%a: memref<16x16xf16>, %b: memref<16x8xf16>, %c: memref<16x8xf32>) {
  gpupoor.matmul %a, %b outs(%c : memref<16x8xf32>)
      strategy(#gpupoor.split_k<splits = 1, tile = [16, 8, 16], inner = f16, outer = f16>)
      : memref<16x16xf16>, memref<16x8xf16> epilogue {
  ^bb0(%acc: f32, %cin: f32):
    %s = arith.addf %cin, %acc : f32
    gpupoor.yield %s : f32
  }
  return
}

// -----

// Sizes the types leave dynamic must agree (here K of A and B, M of A and
// C, N of B, C and the bias), or the program stops before reading out of
// bounds.
// CHECK-LABEL: func @shape_checks
// CHECK-COUNT-4: arith.cmpi eq
// CHECK-NOT: arith.cmpi eq
// CHECK: cf.assert %{{.*}}, "gpupoor.matmul: operand sizes disagree
// CHECK: scf.parallel
func.func @shape_checks(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %bias: memref<?xf32>,
                        %c: memref<?x?xf32>) {
  gpupoor.matmul %a, %b ins(%bias : memref<?xf32>) maps([affine_map<(m, n) -> (n)>])
      outs(%c : memref<?x?xf32>)
      strategy(#gpupoor.split_k<splits = 1, tile = [16, 8, 16], inner = f16, outer = f32>)
      : memref<?x?xf16>, memref<?x?xf16> epilogue {
  ^bb0(%acc: f32, %bv: f32, %o: f32):
    %s = arith.addf %acc, %bv : f32
    gpupoor.yield %s : f32
  }
  return
}

// -----

// Parallel split-k: a loop over P' = min(P, S) slices, each summing chunks
// [p * S / P', (p + 1) * S / P') from zero, the slice sums added in order.
// CHECK-LABEL: func @slices
// CHECK:         %[[P3:.*]] = arith.minsi %c3, %{{.*}} : index
// CHECK:         %[[P:.*]] = arith.maxsi %[[P3]], %c1 : index
// CHECK:         %[[TOTAL:.*]] = scf.for %[[SL:.*]] = %{{.*}} to %[[P]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO:.*]]) -> (f32)
// CHECK:           %[[LO:.*]] = arith.divsi %{{.*}}, %[[P]] : index
// CHECK:           %[[HI:.*]] = arith.divsi %{{.*}}, %[[P]] : index
// CHECK:           %[[SUM:.*]] = scf.for %{{.*}} = %[[LO]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK:           %[[NEXT:.*]] = arith.addf %[[ACC]], %[[SUM]] : f32
// CHECK:           scf.yield %[[NEXT]] : f32
// CHECK:         arith.truncf %[[TOTAL]] : f32 to f16
func.func @slices(%a: memref<16x256xf16>, %b: memref<256x8xf16>, %c: memref<16x8xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<16x8xf16>)
      strategy(#gpupoor.split_k<splits = 8, tile = [128, 128, 32], inner = f16, outer = f32, slices = 3>)
      : memref<16x256xf16>, memref<256x8xf16>
  return
}

// -----

// A swapped strategy (C^T = B A^T on the GPU) lowers as the product it
// states: the same chunks of K, summed in the same order, C stored in place
// (each element is the same sum either way).
// CHECK-LABEL: func @swapped
// CHECK-NOT: memref.transpose
// CHECK: scf.parallel
// CHECK: memref.load %{{.*}}[%[[I:.*]], %[[KK:.*]]] : memref<1x64xf16>
// CHECK: memref.load %{{.*}}[%[[J:.*]], %[[KK]]] : memref<128x64xf16>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<1x128xf16>
func.func @swapped(%a: memref<1x64xf16>, %b: memref<128x64xf16>, %c: memref<1x128xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<1x128xf16>)
      strategy(#gpupoor.split_k<splits = 2, tile = [64, 16, 64], inner = f16, outer = f32, b_layout = nk, chip = sm_90a, swapped = true>)
      : memref<1x64xf16>, memref<128x64xf16>
  return
}

// -----

// Where the epilogue adds the sums to C (sums_from_negative_zero), they start
// from -0.0, IEEE's additive identity: C + sum is C where every product is
// -0.0 or K = 0, sign included. Otherwise from +0.0.
// CHECK-LABEL: func @sums_from_negative_zero
// CHECK-DAG: %[[OUTER0:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG: %[[INNER0:.*]] = arith.constant -0.000000e+00 : f16
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[OUTER0]]) -> (f32)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INNER0]]) -> (f16)
// CHECK-LABEL: func @sums_from_positive_zero
// CHECK-NOT: -0.000000e+00
// CHECK: return
func.func @sums_from_negative_zero(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<32x32xf16>) strategy(#gpupoor.split_k<splits = 2, tile = [32, 32, 32], inner = f16, outer = f32>) {sums_from_negative_zero} : memref<32x64xf16>, memref<64x32xf16> epilogue {
  ^bb0(%acc: f16, %o: f16):
    %s = arith.addf %o, %acc : f16
    gpupoor.yield %s : f16
  }
  return
}
func.func @sums_from_positive_zero(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<32x32xf16>) strategy(#gpupoor.split_k<splits = 2, tile = [32, 32, 32], inner = f16, outer = f32>) : memref<32x64xf16>, memref<64x32xf16> epilogue {
  ^bb0(%acc: f16, %o: f16):
    %s = arith.addf %o, %acc : f16
    gpupoor.yield %s : f16
  }
  return
}

// -----

// Two f16 sums a chunk (sets = 2, BK = 64 of four k16 steps): sum 0 takes
// steps 0 and 2 of each K tile (K from the chunk's start in steps of 32),
// sum 1 steps 1 and 3 (from 16 past it); each enters the outer sum in
// turn, sum 1 as +0.0 where all its steps lie past K in a chunk that has
// some.
// CHECK-LABEL: func @two_sets
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[OUTER:.*]] = scf.for %{{.*}} iter_args(%[[O:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[SUM0:.*]] = scf.for %{{.*}} = %[[KB:.*]] to %[[KE:.*]] step %[[C32]] iter_args(%{{.*}}) -> (f16)
// CHECK: %[[O0:.*]] = arith.addf %[[O]], %{{.*}} : f32
// CHECK: %[[FROM:.*]] = arith.addi %[[KB]], %[[C16]] : index
// CHECK: %[[SUM1:.*]] = scf.for %{{.*}} = %[[FROM]] to %[[KE]] step %[[C32]] iter_args(%{{.*}}) -> (f16)
// CHECK-DAG: %[[PAST:.*]] = arith.cmpi sge, %[[FROM]], %[[KE]] : index
// CHECK-DAG: %[[SOME:.*]] = arith.cmpi slt, %[[KB]], %[[KE]] : index
// CHECK: %[[PADDED:.*]] = arith.andi %[[PAST]], %[[SOME]] : i1
// CHECK: %[[S1:.*]] = arith.select %[[PADDED]], %[[ZERO]], %[[SUM1]] : f16
// CHECK: %[[EXT1:.*]] = arith.extf %[[S1]] : f16 to f32
// CHECK: %[[O1:.*]] = arith.addf %[[O0]], %[[EXT1]] : f32
// CHECK: scf.yield %[[O1]] : f32
func.func @two_sets(%a: memref<64x200xf16>, %b: memref<200x64xf16>, %c: memref<64x64xf16>) {
  gpupoor.matmul %a, %b outs(%c : memref<64x64xf16>)
      strategy(#gpupoor.split_k<splits = 2, tile = [64, 64, 64], inner = f16, outer = f32, chip = sm_90a, sets = 2>)
      : memref<64x200xf16>, memref<200x64xf16>
  return
}
