// RUN: plumb-opt %s -split-input-file -plumb-simplify | FileCheck %s

// Reshape chains merge into one reshape.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.+]] = plumb.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = plumb.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = plumb.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Transposes compose; an identity permutation disappears.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = plumb.transpose %[[X]] {perm = array<i64: 2, 0, 1>}
// CHECK-NEXT: return %[[T]]
func.func @main(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = plumb.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = plumb.transpose %0 {perm = array<i64: 1, 2, 0>} : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// A transpose that only moves unit dimensions is a reshape.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: plumb.reshape
// CHECK-NOT: plumb.transpose
func.func @main(%x: tensor<1x5x1xf32>) -> tensor<5x1x1xf32> {
  %0 = plumb.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<1x5x1xf32> -> tensor<5x1x1xf32>
  return %0 : tensor<5x1x1xf32>
}

// -----

// Identities go: same-type reshape, cast, expand, full slice.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.+]]: tensor<2x2xf32>)
// CHECK-NEXT: return %[[X]]
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = plumb.reshape %x : tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = plumb.cast %0 : tensor<2x2xf32> -> tensor<2x2xf32>
  %2 = plumb.expand %1 : tensor<2x2xf32> -> tensor<2x2xf32>
  %3 = plumb.slice %2 {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<2x2xf32> -> tensor<2x2xf32>
  return %3 : tensor<2x2xf32>
}

// -----

// Must not fire: arithmetic is never rewritten (x + 0 stays).
// CHECK-LABEL: func.func @main
// CHECK: plumb.add
// CHECK: plumb.transpose
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %z = plumb.constant dense<0.0> : tensor<2x3xf32>
  %0 = plumb.add %x, %z : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = plumb.transpose %0 {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}
