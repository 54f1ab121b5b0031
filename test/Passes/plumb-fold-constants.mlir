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
// CHECK-LABEL: func.func @main
// CHECK: plumb.exp %arg0
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %e = plumb.exp %x : tensor<2xf32>
  return %e : tensor<2xf32>
}

// -----

// Must not fire above the size limit.
// LIMIT-LABEL: func.func @main
// LIMIT: plumb.neg
func.func @main() -> tensor<3xf32> {
  %a = plumb.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %n = plumb.neg %a : tensor<3xf32>
  return %n : tensor<3xf32>
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
