// Gas of reductions and pooling: one step per input element (an add for
// sum and product, a NaN-aware compare step for max, min and argmax); every
// window position of a pooled output (padding included) is an indexed read
// and one compare (max) or add (average); means and averages divide once per
// result element.
// plumb-gas-v1: base 112564, MAC 24, elementwise 148, transcendental 4091,
// compare 1092, indexed 264, byte read 1, byte written 143.
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -o /dev/null | FileCheck %s

// 2x3x4 reduced over axis 1: 24 steps; the mean divides 8 results.
// reduce_sum:  112564 + 148*24 + 96 + 143*32 = 120788
// reduce_mean: 112564 + 148*32 + 96 + 143*32 = 121972
// reduce_max:  112564 + 1092*24 + 96 + 143*32 = 143444
// arg_max:     112564 + 1092*24 + 96 + 143*64 = 148020
// CHECK: node 0 plumb.reduce_sum macs=0 elementwise=24 transcendental=0 compare=0 indexed=0 read=96 written=32 gas=120788
// CHECK: node 1 plumb.reduce_mean macs=0 elementwise=32 transcendental=0 compare=0 indexed=0 read=96 written=32 gas=121972
// CHECK: node 2 plumb.reduce_max macs=0 elementwise=0 transcendental=0 compare=24 indexed=0 read=96 written=32 gas=143444
// CHECK: node 3 plumb.arg_max macs=0 elementwise=0 transcendental=0 compare=24 indexed=0 read=96 written=64 gas=148020
func.func @main(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi64>) {
  %s = plumb.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %m = plumb.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %x2 = plumb.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %i = plumb.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = false} : tensor<2x3x4xf32> -> tensor<2x4xi64>
  return %s, %m, %x2, %i : tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi64>
}

// -----

// max_pool 2x2 stride 2 on 1x8x28x28: 1568 outputs x 4 window positions.
// average_pool 3x3 stride 1 pad 1 on 1x2x4x4: 32 outputs x 9 + 32 divisions.
// max_pool: 112564 + 1092*6272 + 264*6272 + 25088 + 143*6272 = 9539380
// average_pool: 112564 + 148*320 + 264*288 + 128 + 143*128 = 254388
// CHECK: node 0 plumb.max_pool macs=0 elementwise=0 transcendental=0 compare=6272 indexed=6272 read=25088 written=6272 gas=9539380
// CHECK: node 1 plumb.average_pool macs=0 elementwise=320 transcendental=0 compare=0 indexed=288 read=128 written=128 gas=254388
func.func @main(%x: tensor<1x8x28x28xf32>, %z: tensor<1x2x4x4xf32>) -> (tensor<1x8x14x14xf32>, tensor<1x2x4x4xf32>) {
  %y = plumb.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x28x28xf32> -> tensor<1x8x14x14xf32>
  %a = plumb.average_pool %z {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = false, count_include_pad = false} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %y, %a : tensor<1x8x14x14xf32>, tensor<1x2x4x4xf32>
}

// -----

// Global pools over 1x8x7x7: 392 steps; the average adds 8 divisions.
// CHECK: node 0 plumb.global_average_pool macs=0 elementwise=400 transcendental=0 compare=0 indexed=0 read=1568 written=32 gas=177908
// CHECK: node 1 plumb.global_max_pool macs=0 elementwise=0 transcendental=0 compare=392 indexed=0 read=1568 written=32 gas=546772
func.func @main(%x: tensor<1x8x7x7xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) {
  %a = plumb.global_average_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
  %m = plumb.global_max_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
  return %a, %m : tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>
}
