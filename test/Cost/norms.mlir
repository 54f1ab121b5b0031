// Gas of normalisations and softmax (the exact operation sequences of
// runtime/include/plumb/runtime/norm.h and softmax.h).
// plumb-gas-v1: base 112564, MAC 24, elementwise 148, transcendental 4091,
// compare 1092, indexed 264, byte read 1, byte written 143.
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -o /dev/null | FileCheck %s

// batch_norm on 1x16x8x8: 4 operations per element (sub, div, mul, add) and
// 2 per channel (add epsilon, sqrt): 4*1024 + 2*16.
// gas = 112564 + 148*4128 + 4352 + 143*4096 = 1313588.
// CHECK: node 0 plumb.batch_norm macs=0 elementwise=4128 transcendental=0 compare=0 indexed=0 read=4352 written=4096 gas=1313588
func.func @main(%x: tensor<1x16x8x8xf32>, %s: tensor<16xf32>, %b: tensor<16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %y = plumb.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// -----

// layer_norm over 4 rows of 8: per element a sum step, a subtraction, a
// square-accumulate (1 MAC), a division, a multiply and the bias add
// (5 elementwise); per row two divisions, an add and a sqrt (4).
// 32 MACs, 5*32 + 4*4 = 176.
// gas = 112564 + 24*32 + 148*176 + 192 + 143*128 = 157876.
// CHECK: node 0 plumb.layer_norm macs=32 elementwise=176 transcendental=0 compare=0 indexed=0 read=192 written=128 gas=157876
// Without bias: 4*32 + 4*4 = 144.
// CHECK: node 1 plumb.layer_norm macs=32 elementwise=144 transcendental=0 compare=0 indexed=0 read=160 written=128 gas=153108
func.func @main(%x: tensor<1x4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %y = plumb.layer_norm %x, %s, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %z = plumb.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  return %y, %z : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

// -----

// softmax on 3x10: per element a max step (compare), subtraction, exp, sum
// step, division: 1 compare, 3 elementwise, 1 transcendental. log_softmax:
// the same, with a subtraction for the division, and one log per row (3).
// softmax: 112564 + 148*90 + 4091*30 + 1092*30 + 120 + 143*120 = 298654.
// CHECK: node 0 plumb.softmax macs=0 elementwise=90 transcendental=30 compare=30 indexed=0 read=120 written=120 gas=298654
// CHECK: node 1 plumb.log_softmax macs=0 elementwise=90 transcendental=33 compare=30 indexed=0 read=120 written=120 gas=310927
func.func @main(%x: tensor<3x10xf32>) -> (tensor<3x10xf32>, tensor<3x10xf32>) {
  %a = plumb.softmax %x {axis = 1 : i64} : tensor<3x10xf32>
  %b = plumb.log_softmax %x {axis = 1 : i64} : tensor<3x10xf32>
  return %a, %b : tensor<3x10xf32>, tensor<3x10xf32>
}
