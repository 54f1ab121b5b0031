// RUN: plumb-opt %s -split-input-file -plumb-fuse-elementwise | FileCheck %s
// RUN: plumb-opt %s -split-input-file -plumb-fuse-elementwise -plumb-fuse-elementwise | FileCheck %s
// The second line: the pass is idempotent (a fused node is not fused again).

// A conv, its batch norm, the residual sum and the relu: one node whose body
// is the chain in its original order, operands from outside untouched.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x4x4xf32>
// CHECK: %[[W:.+]] = plumb.constant dense<5.000000e-01> : tensor<2x2x1x1xf32>
// CHECK: %[[S:.+]] = plumb.constant dense<2.500000e-01> : tensor<2xf32>
// CHECK: %[[F:.+]] = plumb.fused -> tensor<1x2x4x4xf32> {
// CHECK-NEXT: %[[C:.+]] = plumb.conv %[[X]], %[[W]]
// CHECK-NEXT: %[[B:.+]] = plumb.batch_norm %[[C]], %[[S]], %[[S]], %[[S]], %[[S]]
// CHECK-NEXT: %[[A:.+]] = plumb.sum %[[B]], %[[X]]
// CHECK-NEXT: %[[R:.+]] = plumb.relu %[[A]]
// CHECK-NEXT: plumb.yield %[[R]] : tensor<1x2x4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = plumb.constant dense<0.5> : tensor<2x2x1x1xf32>
  %s = plumb.constant dense<0.25> : tensor<2xf32>
  %c = plumb.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = plumb.batch_norm %c, %s, %s, %s, %s {epsilon = 1.0e-05 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %a = plumb.sum %b, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = plumb.relu %a : tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// A value with two users ends a chain: the conv stays alone, each user may
// start its own chain. An elementwise chain needs no head.
// CHECK-LABEL: func.func @main
// CHECK: %[[C:.+]] = plumb.conv
// CHECK-NOT: plumb.fused -> {{.*}} {
// CHECK: %[[F:.+]] = plumb.fused -> tensor<1x2x4x4xf32> {
// CHECK-NEXT: %[[E:.+]] = plumb.exp %[[C]]
// CHECK-NEXT: %[[N:.+]] = plumb.neg %[[E]]
// CHECK-NEXT: plumb.yield %[[N]]
// CHECK: %[[T:.+]] = plumb.tanh %[[C]]
// CHECK: return %[[F]], %[[T]]
func.func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = plumb.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = plumb.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %e = plumb.exp %c : tensor<1x2x4x4xf32>
  %n = plumb.neg %e : tensor<1x2x4x4xf32>
  %t = plumb.tanh %c : tensor<1x2x4x4xf32>
  return %n, %t : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Not fused: a graph output in mid-chain, a broadcast of the chain value
// (the add's result is larger than the relu's), integer ops, and ops that
// are not elementwise (reshape, softmax).
// CHECK-LABEL: func.func @main
// CHECK-NOT: plumb.fused
// CHECK: return
func.func @main(%x: tensor<4xf32>, %y: tensor<3x4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<3x4xf32>, tensor<4xi64>, tensor<2x2xf32>) {
  %a = plumb.relu %x : tensor<4xf32>
  %b = plumb.add %a, %y : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %c = plumb.neg %i : tensor<4xi64>
  %d = plumb.abs %c : tensor<4xi64>
  %e = plumb.softmax %x {axis = 0 : i64} : tensor<4xf32>
  %f = plumb.reshape %e : tensor<4xf32> -> tensor<2x2xf32>
  return %a, %b, %d, %f : tensor<4xf32>, tensor<3x4xf32>, tensor<4xi64>, tensor<2x2xf32>
}

// -----

// A matmul heads a chain; the bias add broadcasts its other operand, never
// the chain value.
// CHECK-LABEL: func.func @main
// CHECK: plumb.fused -> tensor<2x3xf32> {
// CHECK-NEXT: plumb.matmul
// CHECK-NEXT: plumb.add
// CHECK-NEXT: plumb.tanh
// CHECK-NEXT: plumb.yield
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %m = plumb.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %a = plumb.add %b, %m : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = plumb.tanh %a : tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}
