// RUN: %plumb-opt %s | %plumb-opt | FileCheck %s
// Every plumb op in its custom assembly format survives a print/parse round
// trip, including optional operands, trees, resources and regions.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2x2xf32>, tensor<3xi64>, tensor<i1>, tensor<2xi32>) {
  // CHECK: plumb.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: plumb.constant dense_resource<w0> : tensor<2x2xf32>
  %1 = plumb.constant dense_resource<w0> : tensor<2x2xf32>
  // CHECK: plumb.constant dense<[1, -2, 3]> : tensor<3xi64>
  %2 = plumb.constant dense<[1, -2, 3]> : tensor<3xi64>
  // CHECK: plumb.constant dense<true> : tensor<i1>
  %3 = plumb.constant dense<true> : tensor<i1>
  // CHECK: plumb.constant dense<7> : tensor<2xi32>
  %4 = plumb.constant dense<7> : tensor<2xi32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2x2xf32>, tensor<3xi64>, tensor<i1>, tensor<2xi32>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<4xi64>, %[[B:[^:]+]]: tensor<4xi1>
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi64>, %b: tensor<4xi1>) {
  // CHECK: plumb.neg %[[X]] : tensor<2x3xf32>
  %0 = plumb.neg %x : tensor<2x3xf32>
  // CHECK: plumb.neg %[[I]] : tensor<4xi64>
  %1 = plumb.neg %i : tensor<4xi64>
  // CHECK: plumb.abs %[[I]] : tensor<4xi64>
  %2 = plumb.abs %i : tensor<4xi64>
  // CHECK: plumb.reciprocal %[[X]] : tensor<2x3xf32>
  %3 = plumb.reciprocal %x : tensor<2x3xf32>
  // CHECK: plumb.sqrt %[[X]] : tensor<2x3xf32>
  %4 = plumb.sqrt %x : tensor<2x3xf32>
  // CHECK: plumb.exp %[[X]] : tensor<2x3xf32>
  %5 = plumb.exp %x : tensor<2x3xf32>
  // CHECK: plumb.log %[[X]] : tensor<2x3xf32>
  %6 = plumb.log %x : tensor<2x3xf32>
  // CHECK: plumb.tanh %[[X]] : tensor<2x3xf32>
  %7 = plumb.tanh %x : tensor<2x3xf32>
  // CHECK: plumb.sigmoid %[[X]] : tensor<2x3xf32>
  %8 = plumb.sigmoid %x : tensor<2x3xf32>
  // CHECK: plumb.erf %[[X]] : tensor<2x3xf32>
  %9 = plumb.erf %x : tensor<2x3xf32>
  // CHECK: plumb.relu %[[I]] : tensor<4xi64>
  %10 = plumb.relu %i : tensor<4xi64>
  // CHECK: plumb.not %[[B]] : tensor<4xi1>
  %11 = plumb.not %b : tensor<4xi1>
  // CHECK: plumb.hard_sigmoid %[[X]] {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : tensor<2x3xf32>
  %12 = plumb.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<2x3xf32>
  // CHECK: plumb.leaky_relu %[[X]] {alpha = 0.00999999977 : f32} : tensor<2x3xf32>
  %13 = plumb.leaky_relu %x {alpha = 0.01 : f32} : tensor<2x3xf32>
  // CHECK: plumb.clip %[[X]] {max = 6.000000e+00 : f32, min = 0xFF800000 : f32} : tensor<2x3xf32>
  %14 = plumb.clip %x {max = 6.0 : f32, min = 0xFF800000 : f32} : tensor<2x3xf32>
  // CHECK: plumb.gelu %[[X]] : tensor<2x3xf32>
  %15 = plumb.gelu %x : tensor<2x3xf32>
  // CHECK: plumb.gelu %[[X]] {approximate = "tanh"} : tensor<2x3xf32>
  %16 = plumb.gelu %x {approximate = "tanh"} : tensor<2x3xf32>
  // CHECK: plumb.hard_swish %[[X]] : tensor<2x3xf32>
  %17 = plumb.hard_swish %x : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<3xf32>, %[[I:[^:]+]]: tensor<2x1xi32>, %[[J:[^:]+]]: tensor<3xi32>, %[[B:[^:]+]]: tensor<3xi1>
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<2x1xi32>, %j: tensor<3xi32>, %b: tensor<3xi1>) {
  // CHECK: plumb.add %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = plumb.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.sub %[[I]], %[[J]] : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = plumb.sub %i, %j : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: plumb.mul %[[Y]], %[[X]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = plumb.mul %y, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.div %[[I]], %[[J]] : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %3 = plumb.div %i, %j : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: plumb.pow %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = plumb.pow %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.pow %[[I]], %[[J]] : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %pi = plumb.pow %i, %j : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: plumb.equal %[[B]], %[[B]] : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %5 = plumb.equal %b, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  // CHECK: plumb.less %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %6 = plumb.less %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: plumb.less_or_equal %[[I]], %[[J]] : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %7 = plumb.less_or_equal %i, %j : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  // CHECK: plumb.greater %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %8 = plumb.greater %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: plumb.greater_or_equal %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %9 = plumb.greater_or_equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: plumb.and %[[B]], %[[B]] : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %10 = plumb.and %b, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  // CHECK: plumb.or %[[B]], %[[B]] : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %11 = plumb.or %b, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// CHECK-LABEL: func.func @variadic_where_cast
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<3xf32>, %[[Z:[^:]+]]: tensor<1xf32>, %[[C:[^:]+]]: tensor<2x1xi1>
func.func @variadic_where_cast(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %z: tensor<1xf32>, %c: tensor<2x1xi1>) {
  // CHECK: plumb.sum %[[X]], %[[Y]], %[[Z]] : (tensor<2x3xf32>, tensor<3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %0 = plumb.sum %x, %y, %z : (tensor<2x3xf32>, tensor<3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.max %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = plumb.max %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.min %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = plumb.min %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.where %[[C]], %[[X]], %[[Z]] : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %3 = plumb.where %c, %x, %z : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.cast %[[X]] : tensor<2x3xf32> -> tensor<2x3xi64>
  %4 = plumb.cast %x : tensor<2x3xf32> -> tensor<2x3xi64>
  // CHECK: plumb.cast %[[C]] : tensor<2x1xi1> -> tensor<2x1xi32>
  %5 = plumb.cast %c : tensor<2x1xi1> -> tensor<2x1xi32>
  return
}

// CHECK-LABEL: func.func @contractions
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<3x4xf32>, %[[BT:[^:]+]]: tensor<4x3xf32>, %[[C:[^:]+]]: tensor<4xf32>
func.func @contractions(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %bt: tensor<4x3xf32>, %c: tensor<4xf32>) {
  // CHECK: plumb.matmul %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %0 = plumb.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: plumb.matmul %[[A]], %[[B]] {tree = #plumb.tree<blocked 64>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = plumb.matmul %a, %b {tree = #plumb.tree<blocked 64>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: plumb.gemm %[[A]], %[[BT]], %[[C]] {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true, tree = #plumb.tree<seq>} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = plumb.gemm %a, %bt, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true, tree = #plumb.tree<seq>} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK: plumb.gemm %[[A]], %[[B]] {alpha = 2.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %3 = plumb.gemm %a, %b {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// CHECK-LABEL: func.func @convolutions
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x5x5xf32>, %[[W:[^:]+]]: tensor<4x2x3x3xf32>, %[[B:[^:]+]]: tensor<4xf32>, %[[WT:[^:]+]]: tensor<2x3x3x3xf32>
func.func @convolutions(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>, %wt: tensor<2x3x3x3xf32>) {
  // CHECK: plumb.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, tree = #plumb.tree<blocked 64>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  %0 = plumb.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, tree = #plumb.tree<blocked 64>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  // CHECK: plumb.conv %[[X]], %[[W]] {dilations = array<i64: 2, 2>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x1x1xf32>
  %1 = plumb.conv %x, %w {dilations = array<i64: 2, 2>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x1x1xf32>
  // CHECK: plumb.conv_transpose %[[X]], %[[WT]] {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x12x12xf32>
  %2 = plumb.conv_transpose %x, %wt {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x12x12xf32>
  return
}

// CHECK-LABEL: func.func @pooling_and_norms
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x5x5xf32>, %[[S:[^:]+]]: tensor<2xf32>, %[[L:[^:]+]]: tensor<2x3x4xf32>, %[[LS:[^:]+]]: tensor<4xf32>
func.func @pooling_and_norms(%x: tensor<1x2x5x5xf32>, %s: tensor<2xf32>, %l: tensor<2x3x4xf32>, %ls: tensor<4xf32>) {
  // CHECK: plumb.max_pool %[[X]] {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  %0 = plumb.max_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  // CHECK: plumb.average_pool %[[X]] {ceil_mode = false, count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, tree = #plumb.tree<seq>} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  %1 = plumb.average_pool %x {ceil_mode = false, count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, tree = #plumb.tree<seq>} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  // CHECK: plumb.global_average_pool %[[X]] {tree = #plumb.tree<blocked 8>} : tensor<1x2x5x5xf32> -> tensor<1x2x1x1xf32>
  %2 = plumb.global_average_pool %x {tree = #plumb.tree<blocked 8>} : tensor<1x2x5x5xf32> -> tensor<1x2x1x1xf32>
  // CHECK: plumb.global_max_pool %[[X]] : tensor<1x2x5x5xf32> -> tensor<1x2x1x1xf32>
  %3 = plumb.global_max_pool %x : tensor<1x2x5x5xf32> -> tensor<1x2x1x1xf32>
  // CHECK: plumb.batch_norm %[[X]], %[[S]], %[[S]], %[[S]], %[[S]] {epsilon = 9.99999974E-6 : f32} : (tensor<1x2x5x5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  %4 = plumb.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32} : (tensor<1x2x5x5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  // CHECK: plumb.layer_norm %[[L]], %[[LS]], %[[LS]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %5 = plumb.layer_norm %l, %ls, %ls {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  // CHECK: plumb.layer_norm %[[L]], %[[LS]] {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %6 = plumb.layer_norm %l, %ls {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  // CHECK: plumb.softmax %[[L]] {axis = 2 : i64} : tensor<2x3x4xf32>
  %7 = plumb.softmax %l {axis = 2 : i64} : tensor<2x3x4xf32>
  // CHECK: plumb.log_softmax %[[L]] {axis = 0 : i64, tree = #plumb.tree<seq>} : tensor<2x3x4xf32>
  %8 = plumb.log_softmax %l {axis = 0 : i64, tree = #plumb.tree<seq>} : tensor<2x3x4xf32>
  return
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2x3xi64>
func.func @reductions(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>) {
  // CHECK: plumb.reduce_sum %[[X]] {axes = array<i64: 1>, keepdims = true, tree = #plumb.tree<blocked 64>} : tensor<2x3xf32> -> tensor<2x1xf32>
  %0 = plumb.reduce_sum %x {axes = array<i64: 1>, keepdims = true, tree = #plumb.tree<blocked 64>} : tensor<2x3xf32> -> tensor<2x1xf32>
  // CHECK: plumb.reduce_mean %[[X]] {axes = array<i64: 0, 1>, keepdims = false} : tensor<2x3xf32> -> tensor<f32>
  %1 = plumb.reduce_mean %x {axes = array<i64: 0, 1>, keepdims = false} : tensor<2x3xf32> -> tensor<f32>
  // CHECK: plumb.reduce_prod %[[I]] {axes = array<i64: 0>, keepdims = false} : tensor<2x3xi64> -> tensor<3xi64>
  %2 = plumb.reduce_prod %i {axes = array<i64: 0>, keepdims = false} : tensor<2x3xi64> -> tensor<3xi64>
  // CHECK: plumb.reduce_max %[[X]] {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  %3 = plumb.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK: plumb.reduce_min %[[I]] {axes = array<i64: 1>, keepdims = true} : tensor<2x3xi64> -> tensor<2x1xi64>
  %4 = plumb.reduce_min %i {axes = array<i64: 1>, keepdims = true} : tensor<2x3xi64> -> tensor<2x1xi64>
  // CHECK: plumb.arg_max %[[X]] {axis = 1 : i64, keepdims = false, select_last_index = true} : tensor<2x3xf32> -> tensor<2xi64>
  %5 = plumb.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = true} : tensor<2x3xf32> -> tensor<2xi64>
  return
}

// CHECK-LABEL: func.func @movement
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2xi32>
func.func @movement(%x: tensor<2x3x4xf32>, %y: tensor<2x3xf32>, %i: tensor<2xi32>) {
  // CHECK: plumb.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %0 = plumb.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: plumb.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = plumb.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK: plumb.concat %[[Y]], %[[Y]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %2 = plumb.concat %y, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK: %{{.+}}:2 = plumb.split %[[Y]] {axis = 1 : i64, sizes = array<i64: 1, 2>} : tensor<2x3xf32> -> tensor<2x1xf32>, tensor<2x2xf32>
  %3:2 = plumb.split %y {axis = 1 : i64, sizes = array<i64: 1, 2>} : tensor<2x3xf32> -> tensor<2x1xf32>, tensor<2x2xf32>
  // CHECK: plumb.slice %[[Y]] {starts = array<i64: 1, 2>, steps = array<i64: 1, -2>} : tensor<2x3xf32> -> tensor<1x2xf32>
  %4 = plumb.slice %y {starts = array<i64: 1, 2>, steps = array<i64: 1, -2>} : tensor<2x3xf32> -> tensor<1x2xf32>
  // CHECK: plumb.gather %[[Y]], %[[I]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  %5 = plumb.gather %y, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  // CHECK: plumb.gather_nd %[[X]], %[[I]] : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<4xf32>
  %g = plumb.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<4xf32>
  // CHECK: plumb.expand %[[Y]] : tensor<2x3xf32> -> tensor<5x2x3xf32>
  %6 = plumb.expand %y : tensor<2x3xf32> -> tensor<5x2x3xf32>
  // CHECK: plumb.pad %[[Y]] {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0.000000e+00 : f32} : tensor<2x3xf32> -> tensor<2x5xf32>
  %7 = plumb.pad %y {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0.0 : f32} : tensor<2x3xf32> -> tensor<2x5xf32>
  // CHECK: plumb.pad %[[I]] {mode = "edge", pads = array<i64: 1, 1>, value = 0 : i32} : tensor<2xi32> -> tensor<4xi32>
  %8 = plumb.pad %i {mode = "edge", pads = array<i64: 1, 1>, value = 0 : i32} : tensor<2xi32> -> tensor<4xi32>
  // CHECK: plumb.tile %[[Y]] {repeats = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
  %9 = plumb.tile %y {repeats = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // CHECK: plumb.resize %{{.+}} {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  %0 = plumb.resize %x {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// CHECK-LABEL: func.func @recurrent
// CHECK-SAME: %[[X:[^:]+]]: tensor<5x2x3xf32>, %[[W:[^:]+]]: tensor<1x16x3xf32>, %[[R:[^:]+]]: tensor<1x16x4xf32>, %[[B:[^:]+]]: tensor<1x32xf32>, %[[H:[^:]+]]: tensor<1x2x4xf32>, %[[P:[^:]+]]: tensor<1x12xf32>, %[[GW:[^:]+]]: tensor<1x12x3xf32>, %[[GR:[^:]+]]: tensor<1x12x4xf32>
func.func @recurrent(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x4xf32>, %p: tensor<1x12xf32>, %gw: tensor<1x12x3xf32>, %gr: tensor<1x12x4xf32>) {
  // CHECK: plumb.lstm %[[X]], %[[W]], %[[R]] bias %[[B]] initial_h %[[H]] initial_c %[[H]] peephole %[[P]] {clip = 2.000000e+00 : f32, direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %0:3 = plumb.lstm %x, %w, %r bias %b initial_h %h initial_c %h peephole %p {clip = 2.0 : f32, direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  // CHECK: plumb.lstm %[[X]], %[[W]], %[[R]] initial_h %[[H]] {direction = "reverse", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %1:3 = plumb.lstm %x, %w, %r initial_h %h {direction = "reverse", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  // CHECK: plumb.gru %[[X]], %[[GW]], %[[GR]] {direction = "forward", hidden_size = 4 : i64, linear_before_reset = true, tree = #plumb.tree<seq>} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  %2:2 = plumb.gru %x, %gw, %gr {direction = "forward", hidden_size = 4 : i64, linear_before_reset = true, tree = #plumb.tree<seq>} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// CHECK-LABEL: func.func @control_flow
// CHECK-SAME: %[[C:[^:]+]]: tensor<i1>, %[[X:[^:]+]]: tensor<2xf32>
func.func @control_flow(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: %[[R:.+]] = plumb.if %[[C]] : tensor<i1> -> tensor<2xf32> {
  // CHECK-NEXT: %[[A:.+]] = plumb.relu %[[X]] : tensor<2xf32>
  // CHECK-NEXT: plumb.yield %[[A]] : tensor<2xf32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT: plumb.yield %[[X]] : tensor<2xf32>
  // CHECK-NEXT: }
  %0 = plumb.if %c : tensor<i1> -> tensor<2xf32> {
    %1 = plumb.relu %x : tensor<2xf32>
    plumb.yield %1 : tensor<2xf32>
  } else {
    plumb.yield %x : tensor<2xf32>
  }
  // CHECK: plumb.if %[[C]] : tensor<i1> {
  // CHECK-NEXT: plumb.yield
  // CHECK-NEXT: } else {
  // CHECK-NEXT: plumb.yield
  // CHECK-NEXT: }
  plumb.if %c : tensor<i1> {
    plumb.yield
  } else {
    plumb.yield
  }
  // CHECK: return %[[R]]
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @fused
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x1x4x4xf32>, %[[W:[^:]+]]: tensor<2x1x3x3xf32>, %[[S:[^:]+]]: tensor<2xf32>
func.func @fused(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x3x3xf32>, %s: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: %[[R:.+]] = plumb.fused -> tensor<1x2x2x2xf32> {
  // CHECK-NEXT: %[[C:.+]] = plumb.conv %[[X]], %[[W]]
  // CHECK-NEXT: %[[B:.+]] = plumb.batch_norm %[[C]], %[[S]], %[[S]], %[[S]], %[[S]] {epsilon = 9.99999974E-6 : f32}
  // CHECK-NEXT: %[[Y:.+]] = plumb.relu %[[B]] : tensor<1x2x2x2xf32>
  // CHECK-NEXT: plumb.yield %[[Y]] : tensor<1x2x2x2xf32>
  // CHECK-NEXT: }
  %0 = plumb.fused -> tensor<1x2x2x2xf32> {
    %1 = plumb.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x2x2xf32>
    %2 = plumb.batch_norm %1, %s, %s, %s, %s {epsilon = 1.0e-05 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
    %3 = plumb.relu %2 : tensor<1x2x2x2xf32>
    plumb.yield %3 : tensor<1x2x2x2xf32>
  }
  // CHECK: return %[[R]]
  return %0 : tensor<1x2x2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// conv_transpose with three spatial dimensions.
// CHECK-LABEL: func.func @conv_transpose_3d
// CHECK: plumb.conv_transpose %{{.+}}, %{{.+}} {dilations = array<i64: 1, 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0, 0>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x1x3x4x5xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x2x5x6x7xf32>
func.func @conv_transpose_3d(%x: tensor<1x1x3x4x5xf32>, %w: tensor<1x2x3x3x3xf32>) -> tensor<1x2x5x6x7xf32> {
  %0 = plumb.conv_transpose %x, %w {dilations = array<i64: 1, 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0, 0>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x1x3x4x5xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x2x5x6x7xf32>
  return %0 : tensor<1x2x5x6x7xf32>
}

// CHECK-LABEL: func.func @matmul_integer
func.func @matmul_integer(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  // CHECK: plumb.matmul_integer %{{.+}}, %{{.+}} : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  %0 = plumb.matmul_integer %a, %b : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

// scatter_nd, with and without a reduction.
// CHECK-LABEL: func.func @scatter_nd
// CHECK: plumb.scatter_nd %{{.+}}, %{{.+}}, %{{.+}} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK: plumb.scatter_nd %{{.+}}, %{{.+}}, %{{.+}} {reduction = "add"} : (tensor<4x3xi32>, tensor<2x2xi32>, tensor<2xi32>) -> tensor<4x3xi32>
func.func @scatter_nd(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>, %e: tensor<4x3xi32>, %j: tensor<2x2xi32>, %v: tensor<2xi32>) -> (tensor<4x3xf32>, tensor<4x3xi32>) {
  %0 = plumb.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = plumb.scatter_nd %e, %j, %v {reduction = "add"} : (tensor<4x3xi32>, tensor<2x2xi32>, tensor<2xi32>) -> tensor<4x3xi32>
  return %0, %1 : tensor<4x3xf32>, tensor<4x3xi32>
}

// CHECK-LABEL: func.func @grid_sample
func.func @grid_sample(%x: tensor<1x3x4x4xf32>, %g: tensor<1x2x3x2xf32>, %v: tensor<1x2x3x4x5xf32>, %h: tensor<1x2x2x2x3xf32>) -> (tensor<1x3x2x3xf32>, tensor<1x2x2x2x2xf32>) {
  // CHECK: plumb.grid_sample %{{.+}}, %{{.+}} {align_corners = true, mode = "cubic", padding_mode = "reflection"} : (tensor<1x3x4x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  %0 = plumb.grid_sample %x, %g {align_corners = true, mode = "cubic", padding_mode = "reflection"} : (tensor<1x3x4x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  // CHECK: plumb.grid_sample %{{.+}}, %{{.+}} {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<1x2x3x4x5xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  %1 = plumb.grid_sample %v, %h {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<1x2x3x4x5xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  return %0, %1 : tensor<1x3x2x3xf32>, tensor<1x2x2x2x2xf32>
}

// -----

// rnn: one activation (with alpha / beta) per direction, optional bias,
// initial_h, clip and tree.
// CHECK-LABEL: func.func @rnn
// CHECK: plumb.rnn %{{.+}}, %{{.+}}, %{{.+}} bias %{{.+}} initial_h %{{.+}} {activation_alpha = array<f32: 1.000000e-01, 0.000000e+00>, activation_beta = array<f32: 0.000000e+00, 0.000000e+00>, activations = ["leaky_relu", "tanh"], clip = 2.000000e+00 : f32, direction = "bidirectional", hidden_size = 4 : i64, tree = #plumb.tree<seq>} : (tensor<5x2x3xf32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>, tensor<2x8xf32>, tensor<2x2x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
// CHECK: plumb.rnn %{{.+}}, %{{.+}}, %{{.+}} {activation_alpha = array<f32: 0.000000e+00>, activation_beta = array<f32: 0.000000e+00>, activations = ["relu"], direction = "reverse", hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
func.func @rnn(%x: tensor<5x2x3xf32>, %w: tensor<2x4x3xf32>, %r: tensor<2x4x4xf32>, %b: tensor<2x8xf32>, %h: tensor<2x2x4xf32>, %w1: tensor<1x4x3xf32>, %r1: tensor<1x4x4xf32>) -> (tensor<2x2x4xf32>, tensor<1x2x4xf32>) {
  %0:2 = plumb.rnn %x, %w, %r bias %b initial_h %h {activation_alpha = array<f32: 0.1, 0.0>, activation_beta = array<f32: 0.0, 0.0>, activations = ["leaky_relu", "tanh"], clip = 2.0 : f32, direction = "bidirectional", hidden_size = 4 : i64, tree = #plumb.tree<seq>} : (tensor<5x2x3xf32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>, tensor<2x8xf32>, tensor<2x2x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  %1:2 = plumb.rnn %x, %w1, %r1 {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["relu"], direction = "reverse", hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return %0#1, %1#1 : tensor<2x2x4xf32>, tensor<1x2x4xf32>
}

// -----

// dft (real onesided, complex inverse) and stft with and without a window.
// CHECK-LABEL: func.func @signal
// CHECK: plumb.dft %{{.+}} {axis = 1 : i64, inverse = false, length = 16 : i64, onesided = true} : (tensor<2x16x1xf32>) -> tensor<2x9x2xf32>
// CHECK: plumb.dft %{{.+}} {axis = 0 : i64, inverse = true, length = 4 : i64, onesided = false} : (tensor<3x5x2xf32>) -> tensor<4x5x2xf32>
// CHECK: plumb.stft %{{.+}}, %{{.+}} {frame_length = 16 : i64, frame_step = 8 : i64, onesided = true} : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
// CHECK: plumb.stft %{{.+}} {frame_length = 5 : i64, frame_step = 3 : i64, onesided = false} : (tensor<2x11x2xf32>) -> tensor<2x3x5x2xf32>
func.func @signal(%x: tensor<2x16x1xf32>, %c: tensor<3x5x2xf32>, %s: tensor<1x128x1xf32>, %w: tensor<16xf32>, %sc: tensor<2x11x2xf32>) {
  %0 = plumb.dft %x {axis = 1 : i64, inverse = false, length = 16 : i64, onesided = true} : (tensor<2x16x1xf32>) -> tensor<2x9x2xf32>
  %1 = plumb.dft %c {axis = 0 : i64, inverse = true, length = 4 : i64, onesided = false} : (tensor<3x5x2xf32>) -> tensor<4x5x2xf32>
  %2 = plumb.stft %s, %w {frame_length = 16 : i64, frame_step = 8 : i64, onesided = true} : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  %3 = plumb.stft %sc {frame_length = 5 : i64, frame_step = 3 : i64, onesided = false} : (tensor<2x11x2xf32>) -> tensor<2x3x5x2xf32>
  return
}
