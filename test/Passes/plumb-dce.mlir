// RUN: plumb-opt %s -split-input-file -plumb-dce | FileCheck %s

// Unused nodes and constants go, transitively.
// CHECK-LABEL: func.func @main
// CHECK-NOT: plumb.exp
// CHECK-NOT: plumb.constant
// CHECK: return %arg0
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = plumb.constant dense<1.0> : tensor<4xf32>
  %0 = plumb.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = plumb.exp %0 : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// Must not fire: used values stay.
// CHECK-LABEL: func.func @main
// CHECK: plumb.exp
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = plumb.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
