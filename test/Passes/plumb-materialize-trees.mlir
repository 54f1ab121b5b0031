// RUN: plumb-opt %s -split-input-file -plumb-materialize-trees | FileCheck %s
// RUN: plumb-opt %s -split-input-file -plumb-materialize-trees=block=64 | FileCheck %s --check-prefix=B64

// CHECK-LABEL: func.func @main
// CHECK: plumb.matmul {{.*}}tree = #plumb.tree<blocked 256>
// CHECK: plumb.softmax {{.*}}tree = #plumb.tree<blocked 256>
// CHECK: plumb.reduce_sum {{.*}}tree = #plumb.tree<blocked 256>
// B64: plumb.matmul {{.*}}tree = #plumb.tree<blocked 64>
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2xf32> {
  %0 = plumb.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = plumb.softmax %0 {axis = 1 : i64} : tensor<2x4xf32>
  %2 = plumb.reduce_sum %1 {axes = array<i64: 1>, keepdims = false} : tensor<2x4xf32> -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// Must not fire: an existing tree is kept; max/min and elementwise ops get none.
// CHECK-LABEL: func.func @main
// CHECK: plumb.matmul {{.*}}tree = #plumb.tree<seq>
// CHECK: plumb.reduce_max
// CHECK-NOT: tree
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2xf32> {
  %0 = plumb.matmul %a, %b {tree = #plumb.tree<seq>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = plumb.reduce_max %0 {axes = array<i64: 1>, keepdims = false} : tensor<2x4xf32> -> tensor<2xf32>
  %2 = plumb.exp %1 : tensor<2xf32>
  return %2 : tensor<2xf32>
}
