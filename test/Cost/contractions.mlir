// Gas of the contraction family: every result element of matmul, gemm and
// conv is a K-term dot product (K MACs); conv counts padded taps too;
// conv_transpose scatters every input element over Cout/group x kernel.
// Bytes: every operand read once, every result written (f32 = 4 bytes).
// plumb-gas-v1: base 112564, MAC 24, elementwise 148, transcendental 4091,
// compare 1092, indexed 264, byte read 1, byte written 143.
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -o /dev/null | FileCheck %s

// 2x3x4 @ 4x5: 30 outputs x K=4 = 120 MACs; read (24+20)*4, write 30*4.
// gas = 112564 + 24*120 + 176 + 143*120 = 132780.
// CHECK: node 0 plumb.matmul macs=120 elementwise=0 transcendental=0 compare=0 indexed=0 read=176 written=120 gas=132780
// CHECK: total gas=132780 schedule=plumb-gas-v1 nodes=1
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %c = plumb.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %c : tensor<2x3x5xf32>
}

// -----

// Vector-matrix: lhs 1-D is promoted, K = 6: 3 outputs x 6 = 18 MACs.
// gas = 112564 + 24*18 + 96 + 143*12 = 114808.
// CHECK: node 0 plumb.matmul macs=18 elementwise=0 transcendental=0 compare=0 indexed=0 read=96 written=12 gas=114808
func.func @main(%a: tensor<6xf32>, %b: tensor<6x3xf32>) -> tensor<3xf32> {
  %c = plumb.matmul %a, %b : (tensor<6xf32>, tensor<6x3xf32>) -> tensor<3xf32>
  return %c : tensor<3xf32>
}

// -----

// gemm M=2 N=4 K=3 (trans_a): 24 MACs; alpha != 1 (1), C with beta != 1 (2)
// per output = 3 x 8 = 24 elementwise.
// gas = 112564 + 24*24 + 148*24 + 88 + 143*32 = 121356.
// CHECK: node 0 plumb.gemm macs=24 elementwise=24 transcendental=0 compare=0 indexed=0 read=88 written=32 gas=121356
func.func @main(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = plumb.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32, trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// gemm with alpha = beta = 1: only the add of C (1 per output).
// gas = 112564 + 24*24 + 148*8 + 104 + 143*32 = 119004.
// CHECK: node 0 plumb.gemm macs=24 elementwise=8 transcendental=0 compare=0 indexed=0 read=104 written=32 gas=119004
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = plumb.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// conv 1x1x28x28 * 8x1x5x5, pad 2: 6272 outputs x 25 taps = 156800 MACs,
// bias add 6272; read (784+200+8)*4, write 6272*4.
// gas = 112564 + 24*156800 + 148*6272 + 3968 + 143*25088 = 8395572.
// CHECK: node 0 plumb.conv macs=156800 elementwise=6272 transcendental=0 compare=0 indexed=0 read=3968 written=25088 gas=8395572
func.func @main(%x: tensor<1x1x28x28xf32>, %w: tensor<8x1x5x5xf32>, %b: tensor<8xf32>) -> tensor<1x8x28x28xf32> {
  %y = plumb.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x28x28xf32>, tensor<8x1x5x5xf32>, tensor<8xf32>) -> tensor<1x8x28x28xf32>
  return %y : tensor<1x8x28x28xf32>
}

// -----

// Depthwise (group 4), no bias: 100 outputs x (1 channel x 9 taps) = 900.
// gas = 112564 + 24*900 + 544 + 143*400 = 191908.
// CHECK: node 0 plumb.conv macs=900 elementwise=0 transcendental=0 compare=0 indexed=0 read=544 written=400 gas=191908
func.func @main(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x5x5xf32> {
  %y = plumb.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

// conv_transpose: 256 input elements x (Cout/group 2 x 9 taps) = 4608 MACs.
// Output 1x2x17x17 = 578 elements.
// gas = 112564 + 24*4608 + 1312 + 143*2312 = 555084.
// CHECK: node 0 plumb.conv_transpose macs=4608 elementwise=0 transcendental=0 compare=0 indexed=0 read=1312 written=2312 gas=555084
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x17x17xf32> {
  %y = plumb.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x17x17xf32>
  return %y : tensor<1x2x17x17xf32>
}
