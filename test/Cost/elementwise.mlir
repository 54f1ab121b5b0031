// Gas of the elementwise family: a fixed number of simple operations per
// result element; Plumb's own math (exp, log, tanh, sigmoid, erf, gelu, pow)
// is one transcendental evaluation per element. Byte sizes follow the
// element type (f32/i32 4, i64 8, i1 1). NaN-aware max/min steps (clip)
// are compare steps.
// plumb-gas-v1: base 112564, MAC 24, elementwise 148, transcendental 4091,
// compare 1092, indexed 264, byte read 1, byte written 143.
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -o /dev/null | FileCheck %s

// relu:         112564 + 148*6  + 24 + 143*24 = 116908
// clip:         112564 + 1092*12 + 24 + 143*24 = 129124
// hard_sigmoid: 112564 + 148*24 + 24 + 143*24 = 119572
// leaky_relu:   112564 + 148*12 + 24 + 143*24 = 117796
// CHECK: node 0 plumb.relu macs=0 elementwise=6 transcendental=0 compare=0 indexed=0 read=24 written=24 gas=116908
// CHECK: node 1 plumb.clip macs=0 elementwise=0 transcendental=0 compare=12 indexed=0 read=24 written=24 gas=129124
// CHECK: node 2 plumb.hard_sigmoid macs=0 elementwise=24 transcendental=0 compare=0 indexed=0 read=24 written=24 gas=119572
// CHECK: node 3 plumb.leaky_relu macs=0 elementwise=12 transcendental=0 compare=0 indexed=0 read=24 written=24 gas=117796
// CHECK: total gas=483400 schedule=plumb-gas-v1 nodes=4
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = plumb.relu %x : tensor<2x3xf32>
  %b = plumb.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3xf32>
  %c = plumb.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<2x3xf32>
  %d = plumb.leaky_relu %x {alpha = 0.01 : f32} : tensor<2x3xf32>
  return %a, %b, %c, %d : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Broadcasting: the count is per RESULT element; each operand is read once.
// 4x3 result = 12 adds; read 12*4 + 3*4.
// gas = 112564 + 148*12 + 60 + 143*48 = 121264.
// CHECK: node 0 plumb.add macs=0 elementwise=12 transcendental=0 compare=0 indexed=0 read=60 written=48 gas=121264
func.func @main(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  %z = plumb.add %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %z : tensor<4x3xf32>
}

// -----

// Comparisons of i64 produce i1 (1 byte per element).
// gas = 112564 + 148*4 + 64 + 143*4 = 113792.
// CHECK: node 0 plumb.less macs=0 elementwise=4 transcendental=0 compare=0 indexed=0 read=64 written=4 gas=113792
func.func @main(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi1> {
  %c = plumb.less %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %c : tensor<4xi1>
}

// -----

// Variadic: three inputs are two additions per result element; where is one
// select; cast one conversion (f32 -> i64 writes 8 bytes per element).
// CHECK: node 0 plumb.sum macs=0 elementwise=8 transcendental=0 compare=0 indexed=0 read=36 written=16 gas=116072
// CHECK: node 1 plumb.where macs=0 elementwise=4 transcendental=0 compare=0 indexed=0 read=36 written=16 gas=115480
// CHECK: node 2 plumb.cast macs=0 elementwise=4 transcendental=0 compare=0 indexed=0 read=16 written=32 gas=117748
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<1xf32>, %m: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>) {
  %s = plumb.sum %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %w = plumb.where %m, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %i = plumb.cast %a : tensor<4xf32> -> tensor<4xi64>
  return %s, %w, %i : tensor<4xf32>, tensor<4xf32>, tensor<4xi64>
}

// -----

// Transcendental: one evaluation per element; sqrt is an IEEE operation.
// exp: 112564 + 4091*8 + 32 + 143*32 = 149900; sqrt: 112564 + 148*8 + 32 +
// 143*32 = 118356.
// CHECK: node 0 plumb.exp macs=0 elementwise=0 transcendental=8 compare=0 indexed=0 read=32 written=32 gas=149900
// CHECK: node 1 plumb.tanh macs=0 elementwise=0 transcendental=8 compare=0 indexed=0 read=32 written=32 gas=149900
// CHECK: node 2 plumb.sigmoid macs=0 elementwise=0 transcendental=8 compare=0 indexed=0 read=32 written=32 gas=149900
// CHECK: node 3 plumb.gelu macs=0 elementwise=0 transcendental=8 compare=0 indexed=0 read=32 written=32 gas=149900
// CHECK: node 4 plumb.pow macs=0 elementwise=0 transcendental=8 compare=0 indexed=0 read=36 written=32 gas=149904
// CHECK: node 5 plumb.sqrt macs=0 elementwise=8 transcendental=0 compare=0 indexed=0 read=32 written=32 gas=118356
func.func @main(%x: tensor<8xf32>, %p: tensor<f32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %a = plumb.exp %x : tensor<8xf32>
  %b = plumb.tanh %x : tensor<8xf32>
  %c = plumb.sigmoid %x : tensor<8xf32>
  %d = plumb.gelu %x : tensor<8xf32>
  %e = plumb.pow %x, %p : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %f = plumb.sqrt %x : tensor<8xf32>
  return %a, %b, %c, %d, %e, %f : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A constant is not a node and costs nothing itself; the node that reads it
// pays for its bytes (4 floats = 16 bytes).
// gas = 112564 + 148*4 + 32 + 143*16 = 115476.
// CHECK: node 0 plumb.mul macs=0 elementwise=4 transcendental=0 compare=0 indexed=0 read=32 written=16 gas=115476
// CHECK: total gas=115476 schedule=plumb-gas-v1 nodes=1
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = plumb.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = plumb.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Integer pow is priced at its worst case: square-and-multiply over every
// exponent bit, two multiplies per bit (62 per int32 element, 126 per int64).
// i32: 112564 + 148*8*62 + 36 + 143*32 = 190584
// i64: 112564 + 148*8*126 + 72 + 143*64 = 270972
// CHECK: node 0 plumb.pow macs=0 elementwise=496 transcendental=0 compare=0 indexed=0 read=36 written=32 gas=190584
// CHECK: node 1 plumb.pow macs=0 elementwise=1008 transcendental=0 compare=0 indexed=0 read=72 written=64 gas=270972
func.func @main(%x: tensor<8xi32>, %p: tensor<i32>, %y: tensor<8xi64>, %q: tensor<i64>) -> (tensor<8xi32>, tensor<8xi64>) {
  %a = plumb.pow %x, %p : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
  %b = plumb.pow %y, %q : (tensor<8xi64>, tensor<i64>) -> tensor<8xi64>
  return %a, %b : tensor<8xi32>, tensor<8xi64>
}

// -----

// round_f16 / round_bf16 (docs/determinism.md, "Half precision"): 2 simple
// operations per element.
// 112564 + 148*12 + 24 + 143*24 = 117796 each
// CHECK: node 0 plumb.round_f16 macs=0 elementwise=12 transcendental=0 compare=0 indexed=0 read=24 written=24 gas=117796
// CHECK: node 1 plumb.round_bf16 macs=0 elementwise=12 transcendental=0 compare=0 indexed=0 read=24 written=24 gas=117796
// CHECK: total gas=235592 schedule=plumb-gas-v1 nodes=2
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = plumb.round_f16 %x : tensor<2x3xf32>
  %b = plumb.round_bf16 %x : tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}
