// RUN: plumb-opt %s -split-input-file -plumb-fold-constants | FileCheck %s
// RUN: plumb-opt %s -split-input-file -plumb-fold-constants=max-elements=2 | FileCheck %s --check-prefix=LIMIT

// Transcendental ops fold with the runtime kernels: exp(0) = 1 and
// exp(1) = 2.71828175 (the correctly rounded float), a chain folds fully.
// (The operand constants stay for plumb-dce to remove.)
// CHECK-LABEL: func.func @main
// CHECK: plumb.constant dense<[1.000000e+00, 2.71828175]> : tensor<2xf32>
// CHECK: %[[C:.+]] = plumb.constant dense<[2.000000e+00, 5.43656349]> : tensor<2xf32>
// CHECK-NOT: plumb.exp
// CHECK: return %[[C]]
// LIMIT-LABEL: func.func @main
// LIMIT-NOT: plumb.exp
func.func @main() -> tensor<2xf32> {
  %a = plumb.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %e = plumb.exp %a : tensor<2xf32>
  %s = plumb.add %e, %e : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// A reduction folds with its tree; the result is the kernel's.
// CHECK-LABEL: func.func @main
// CHECK: %[[S:.+]] = plumb.constant dense<1.000000e+01> : tensor<1xf32>
// CHECK-NEXT: return %[[S]]
func.func @main() -> tensor<1xf32> {
  %a = plumb.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %r = plumb.reduce_sum %a {axes = array<i64: 1>, keepdims = false, tree = #plumb.tree<blocked 2>} : tensor<1x4xf32> -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// -----

// Must not fire: an operand is not constant.
// CHECK-LABEL: func.func @nonconst
// CHECK: plumb.exp %arg0
// LIMIT-LABEL: func.func @nonconst
// LIMIT: plumb.exp %arg0
func.func @nonconst(%x: tensor<2xf32>) -> tensor<2xf32> {
  %e = plumb.exp %x : tensor<2xf32>
  return %e : tensor<2xf32>
}

// -----

// Must not fire above the size limit when the operand stays alive (it has
// another user), so folding would add a constant.
// LIMIT-LABEL: func.func @alive
// LIMIT: plumb.neg
func.func @alive() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = plumb.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %n = plumb.neg %a : tensor<3xf32>
  return %n, %a : tensor<3xf32>, tensor<3xf32>
}

// -----

// Above the limit, a fold that uses up its constant operands and is no
// larger than them is taken (a weight's zero point subtracted once, not
// every run); the value becomes a resource blob, like an imported weight.
// LIMIT-LABEL: func.func @consumed
// LIMIT: %[[C:.+]] = plumb.constant dense_resource<folded> : tensor<2x3xi32>
// LIMIT-NOT: plumb.sub
// LIMIT: return %[[C]]
// LIMIT: dialect_resources
// LIMIT: folded: "0x01000000FCFFFFFFFBFFFFFFFEFFFFFFFFFFFFFF0000000001000000"
func.func @consumed() -> tensor<2x3xi32> {
  %w = plumb.constant dense<[[-3, -4, -1], [0, 1, 2]]> : tensor<2x3xi32>
  %z = plumb.constant dense<1> : tensor<i32>
  %d = plumb.sub %w, %z : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  return %d : tensor<2x3xi32>
}

// -----

// A splat operand counts as one element: a splat turned into a larger
// non-splat value is not folded above the limit.
// LIMIT-LABEL: func.func @splat
// LIMIT: plumb.add
func.func @splat(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = plumb.constant dense<1.0> : tensor<3xf32>
  %r = plumb.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %a = plumb.add %s, %r : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %m = plumb.mul %a, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %k = plumb.mul %r, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %o = plumb.add %m, %k : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %o : tensor<3xf32>
}

// -----

// An out-of-range gather is left for run time to report.
// CHECK-LABEL: func.func @main
// CHECK: plumb.gather
func.func @main() -> tensor<1xf32> {
  %d = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %i = plumb.constant dense<[5]> : tensor<1xi64>
  %g = plumb.gather %d, %i {axis = 0 : i64} : (tensor<2xf32>, tensor<1xi64>) -> tensor<1xf32>
  return %g : tensor<1xf32>
}

// -----

// A weight's standardisation (its mean, w - mean, the variance, then the
// normalised weight) keeps the weight alive through every step, so no step
// alone may fold above the limit; the subgraph folds whole because it hands
// on no more than it uses up (one 2x4 value for the 2x4 weight).
// LIMIT-LABEL: func.func @standardised
// LIMIT-NOT: plumb.reduce_mean
// LIMIT-NOT: plumb.sub
// LIMIT-NOT: plumb.div
// LIMIT: %[[W:.+]] = plumb.constant dense_resource<folded_4> : tensor<2x4xf32>
// LIMIT-NEXT: plumb.matmul %arg0, %[[W]]
func.func @standardised(%x: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %w = plumb.constant dense<[[1.0, 2.0, 3.0, 6.0], [0.5, -1.0, 4.0, 0.5]]> : tensor<2x4xf32>
  %m = plumb.reduce_mean %w {axes = array<i64: 0>, keepdims = true, tree = #plumb.tree<blocked 256>} : tensor<2x4xf32> -> tensor<1x4xf32>
  %d = plumb.sub %w, %m : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %q = plumb.mul %d, %d : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %v = plumb.reduce_mean %q {axes = array<i64: 0>, keepdims = true, tree = #plumb.tree<blocked 256>} : tensor<2x4xf32> -> tensor<1x4xf32>
  %n = plumb.div %d, %v : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %y = plumb.matmul %x, %n {tree = #plumb.tree<blocked 256>} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// The same subgraph when the program also keeps w - mean: it would hand on
// two 2x4 values for one, more than the limit allows, so it stays for run
// time.
// LIMIT-LABEL: func.func @kept
// LIMIT: plumb.sub
// LIMIT: plumb.div
func.func @kept(%x: tensor<3x2xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>) {
  %w = plumb.constant dense<[[1.0, 2.0, 3.0, 6.0], [0.5, -1.0, 4.0, 0.5]]> : tensor<2x4xf32>
  %m = plumb.reduce_mean %w {axes = array<i64: 0>, keepdims = true, tree = #plumb.tree<blocked 256>} : tensor<2x4xf32> -> tensor<1x4xf32>
  %d = plumb.sub %w, %m : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %n = plumb.div %d, %m : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %y = plumb.matmul %x, %n {tree = #plumb.tree<blocked 256>} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %y, %d : tensor<3x4xf32>, tensor<2x4xf32>
}
