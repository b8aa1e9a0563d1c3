// RUN: gpupoor-opt %s -split-input-file -gpupoor-lower-clones -verify-diagnostics | FileCheck %s

// An identity layout: an allocation of the shape (its dynamic sizes the
// source's) and a linalg.copy.
// CHECK-LABEL: func @identity
// CHECK-SAME: (%[[S:.*]]: memref<?x8xf16>)
// CHECK: %[[M:.*]] = memref.dim %[[S]], %c0
// CHECK: %[[A:.*]] = memref.alloc(%[[M]]) : memref<?x8xf16>
// CHECK: linalg.copy ins(%[[S]] : memref<?x8xf16>) outs(%[[A]] : memref<?x8xf16>)
// CHECK-NOT: bufferization.clone
// CHECK: return %[[A]]
func.func @identity(%s: memref<?x8xf16>) -> memref<?x8xf16> {
  %c = bufferization.clone %s : memref<?x8xf16> to memref<?x8xf16>
  return %c : memref<?x8xf16>
}

// -----

// A static layout no identity buffer has (a subview of wider rows): a 1-D
// buffer of offset + 1 + (8 - 1) * 16 + (8 - 1) * 1 elements, viewed with
// the source's layout, after a check that its strides step forward.
// CHECK-LABEL: func @strided
// CHECK-SAME: (%[[S:.*]]: memref<8x8xf16, strided<[16, 1], offset: 4>>)
// CHECK: %{{.*}}, %[[OFF:.*]], %[[SZ:.*]]:2, %[[ST:.*]]:2 = memref.extract_strided_metadata %[[S]]
// CHECK: %[[SPAN0:.*]] = arith.addi %[[OFF]], %c1
// CHECK: cf.assert %{{.*}}, "gpupoor: a returned buffer's copy needs an offset and strides that are not negative"
// CHECK: %[[BUF:.*]] = memref.alloc(%{{.*}}) : memref<?xf16>
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[BUF]] to offset: [4], sizes: [8, 8], strides: [16, 1] : memref<?xf16> to memref<8x8xf16, strided<[16, 1], offset: 4>>
// CHECK: linalg.copy ins(%[[S]] : {{.*}}) outs(%[[V]] : {{.*}})
// CHECK: return %[[V]]
func.func @strided(%s: memref<8x8xf16, strided<[16, 1], offset: 4>>) -> memref<8x8xf16, strided<[16, 1], offset: 4>> {
  %c = bufferization.clone %s : memref<8x8xf16, strided<[16, 1], offset: 4>> to memref<8x8xf16, strided<[16, 1], offset: 4>>
  return %c : memref<8x8xf16, strided<[16, 1], offset: 4>>
}

// -----

// Dynamic strides and offset: the view takes the source's.
// CHECK-LABEL: func @dynamic
// CHECK: %{{.*}}, %[[OFF:.*]], %[[SZ:.*]]:2, %[[ST:.*]]:2 = memref.extract_strided_metadata
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [%[[OFF]]], sizes: [%[[SZ]]#0, %[[SZ]]#1], strides: [%[[ST]]#0, %[[ST]]#1]
func.func @dynamic(%s: memref<?x?xf16, strided<[?, ?], offset: ?>>) -> memref<?x?xf16, strided<[?, ?], offset: ?>> {
  %c = bufferization.clone %s : memref<?x?xf16, strided<[?, ?], offset: ?>> to memref<?x?xf16, strided<[?, ?], offset: ?>>
  return %c : memref<?x?xf16, strided<[?, ?], offset: ?>>
}

// -----

func.func @unranked(%s: memref<*xf16>) -> memref<*xf16> {
  // expected-error @+1 {{'bufferization.clone' op copies an unranked memref or into another type, which gpupoor does not lower}}
  %c = bufferization.clone %s : memref<*xf16> to memref<*xf16>
  return %c : memref<*xf16>
}
