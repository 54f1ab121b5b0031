// RUN: plumb-opt %s -plumb-canonicalize | FileCheck %s
// RUN: plumb-opt %s -plumb-canonicalize | plumb-opt -plumb-canonicalize | FileCheck %s

// The pipeline: simplify reshapes, fold the constant subgraph with the
// kernels, CSE the duplicate exp, drop dead code, give the matmul its tree.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>
// CHECK-DAG: %[[W:.+]] = plumb.constant dense<{{.*}}> : tensor<3x2xf32>
// CHECK: %[[E:.+]] = plumb.exp %[[X]]
// CHECK-NOT: plumb.exp
// CHECK: plumb.add %[[E]], %[[E]]
// CHECK: plumb.matmul {{.*}}{tree = #plumb.tree<blocked 256>}
// CHECK-NOT: plumb.reshape
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w0 = plumb.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %w1 = plumb.neg %w0 : tensor<6xf32>
  %w = plumb.reshape %w1 : tensor<6xf32> -> tensor<3x2xf32>
  %e1 = plumb.exp %x : tensor<2x3xf32>
  %e2 = plumb.exp %x : tensor<2x3xf32>
  %dead = plumb.tanh %x : tensor<2x3xf32>
  %s = plumb.add %e1, %e2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = plumb.matmul %s, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}
