// RUN: plumb-opt %s -split-input-file -plumb-canonical-order | FileCheck %s
// RUN: plumb-opt %s -split-input-file -plumb-canonical-order | plumb-opt -split-input-file -plumb-canonical-order | FileCheck %s

// Two independent nodes come out in the same order whichever way they went
// in: @main here and in the next case differ only in node order.
// CHECK-LABEL: func.func @main
// CHECK: %[[C:.+]] = plumb.constant dense<2.000000e+00>
// CHECK: %[[A:.+]] = plumb.[[FIRST:exp|neg]] %arg0
// CHECK: %[[B:.+]] = plumb.[[SECOND:exp|neg]] %arg0
// CHECK: plumb.add %[[A]], %[[B]]
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = plumb.exp %x : tensor<4xf32>
  %b = plumb.neg %x : tensor<4xf32>
  %c = plumb.constant dense<2.0> : tensor<4xf32>
  %s = plumb.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = plumb.mul %s, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @main
// CHECK: plumb.constant dense<2.000000e+00>
// CHECK: plumb.[[FIRST]] %arg0
// CHECK: plumb.[[SECOND]] %arg0
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = plumb.constant dense<2.0> : tensor<4xf32>
  %b = plumb.neg %x : tensor<4xf32>
  %a = plumb.exp %x : tensor<4xf32>
  %s = plumb.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = plumb.mul %s, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// Identical constants merge into one.
// CHECK-LABEL: func.func @main
// CHECK-COUNT-1: plumb.constant
// CHECK-NOT: plumb.constant
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c1 = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c2 = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = plumb.add %x, %c1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = plumb.add %a, %c2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}

// -----

// Must not fire on a chain: dependencies keep their order.
// CHECK-LABEL: func.func @main
// CHECK: plumb.neg
// CHECK-NEXT: plumb.exp
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = plumb.neg %x : tensor<4xf32>
  %a = plumb.exp %b : tensor<4xf32>
  return %a : tensor<4xf32>
}
