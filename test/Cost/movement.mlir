// Gas of data movement: no arithmetic. Reshape, concat, split, expand and
// tile copy contiguous runs (bytes only); every result element of transpose,
// slice, gather and pad is an indexed read; resize reads 1 (nearest), 2^d
// (linear) or 4^d (cubic) taps per result element and interpolates.
// plumb-gas-v1: base 112564, MAC 24, elementwise 148, transcendental 4091,
// compare 1092, indexed 264, byte read 1, byte written 143.
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -o /dev/null | FileCheck %s

// reshape:   112564 + 96 + 143*96 = 126388
// transpose: 112564 + 264*24 + 96 + 143*96 = 132724
// CHECK: node 0 plumb.reshape macs=0 elementwise=0 transcendental=0 compare=0 indexed=0 read=96 written=96 gas=126388
// CHECK: node 1 plumb.transpose macs=0 elementwise=0 transcendental=0 compare=0 indexed=24 read=96 written=96 gas=132724
// CHECK: node 2 plumb.concat macs=0 elementwise=0 transcendental=0 compare=0 indexed=0 read=192 written=192 gas=140212
// CHECK: node 3 plumb.split macs=0 elementwise=0 transcendental=0 compare=0 indexed=0 read=96 written=96 gas=126388
// CHECK: node 4 plumb.slice macs=0 elementwise=0 transcendental=0 compare=0 indexed=12 read=96 written=48 gas=122692
// CHECK: node 5 plumb.expand macs=0 elementwise=0 transcendental=0 compare=0 indexed=0 read=96 written=192 gas=140116
// CHECK: node 6 plumb.tile macs=0 elementwise=0 transcendental=0 compare=0 indexed=0 read=96 written=288 gas=153844
// CHECK: node 7 plumb.pad macs=0 elementwise=0 transcendental=0 compare=0 indexed=40 read=96 written=160 gas=146100
func.func @main(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x3x2xf32>, tensor<4x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<2x3x2xf32>, tensor<2x2x3x4xf32>, tensor<6x3x4xf32>, tensor<2x5x4xf32>) {
  %r = plumb.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %t = plumb.transpose %x {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %c = plumb.concat %x, %x {axis = 0 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  %s0, %s1 = plumb.split %x {axis = 0 : i64, sizes = array<i64: 1, 1>} : tensor<2x3x4xf32> -> tensor<1x3x4xf32>, tensor<1x3x4xf32>
  %sl = plumb.slice %x {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  %e = plumb.expand %x : tensor<2x3x4xf32> -> tensor<2x2x3x4xf32>
  %tl = plumb.tile %x {repeats = array<i64: 3, 1, 1>} : tensor<2x3x4xf32> -> tensor<6x3x4xf32>
  %p = plumb.pad %x {mode = "constant", pads = array<i64: 0, 1, 0, 0, 1, 0>, value = 0.0 : f32} : tensor<2x3x4xf32> -> tensor<2x5x4xf32>
  return %r, %t, %c, %s0, %s1, %sl, %e, %tl, %p : tensor<6x4xf32>, tensor<4x3x2xf32>, tensor<4x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<2x3x2xf32>, tensor<2x2x3x4xf32>, tensor<6x3x4xf32>, tensor<2x5x4xf32>
}

// -----

// gather 5x3 by 2 i64 indices: read 60 + 16, write 2x3 floats.
// CHECK: node 0 plumb.gather macs=0 elementwise=0 transcendental=0 compare=0 indexed=6 read=76 written=24 gas=117656
func.func @main(%d: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %y = plumb.gather %d, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// resize 1x3x4x4 -> 1x3x8x8: nearest reads one tap per result element;
// linear over the 2 resized dims reads 4 taps and does 2^2 - 1 = 3
// combinations of 3 operations per result element: 192 x 9 = 1728.
// linear: 112564 + 148*1728 + 264*768 + 192 + 143*768 = 681076.
// CHECK: node 0 plumb.resize macs=0 elementwise=0 transcendental=0 compare=0 indexed=192 read=192 written=768 gas=273268
// CHECK: node 1 plumb.resize macs=0 elementwise=1728 transcendental=0 compare=0 indexed=768 read=192 written=768 gas=681076
// cubic over the 2 resized dims reads 4^2 = 16 taps and does (16 - 1) / 3 = 5
// combinations of 7 operations per result element: 192 x 35 = 6720.
// cubic: 112564 + 148*6720 + 264*3072 + 192 + 143*768 = 2028148.
// CHECK: node 2 plumb.resize macs=0 elementwise=6720 transcendental=0 compare=0 indexed=3072 read=192 written=768 gas=2028148
func.func @main(%x: tensor<1x3x4x4xf32>) -> (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) {
  %n = plumb.resize %x {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  %l = plumb.resize %x {mode = "linear", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  %c = plumb.resize %x {mode = "cubic", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", cubic_coeff_a = -0.75 : f32, exclude_outside = false, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return %n, %l, %c : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
}

// -----

// grid_sample, 18 result elements over k = 2 spatial dims (read: the input's
// 192 bytes and the grid's 48): nearest 4k = 8 operations and 1 tap each;
// linear 4k + 3k + 3 * (2^2 - 1) = 23 operations and 4 taps; cubic
// 4k + 28k + 5 * 7 = 99 operations and 16 taps.
// nearest: 112564 + 148*144 + 264*18 + 240 + 143*72 = 149164.
// linear: 112564 + 148*414 + 264*72 + 240 + 143*72 = 203380.
// cubic: 112564 + 148*1782 + 264*288 + 240 + 143*72 = 462868.
// CHECK: node 0 plumb.grid_sample macs=0 elementwise=144 transcendental=0 compare=0 indexed=18 read=240 written=72 gas=149164
// CHECK: node 1 plumb.grid_sample macs=0 elementwise=414 transcendental=0 compare=0 indexed=72 read=240 written=72 gas=203380
// CHECK: node 2 plumb.grid_sample macs=0 elementwise=1782 transcendental=0 compare=0 indexed=288 read=240 written=72 gas=462868
func.func @main(%x: tensor<1x3x4x4xf32>, %g: tensor<1x2x3x2xf32>) -> (tensor<1x3x2x3xf32>, tensor<1x3x2x3xf32>, tensor<1x3x2x3xf32>) {
  %n = plumb.grid_sample %x, %g {align_corners = false, mode = "nearest", padding_mode = "zeros"} : (tensor<1x3x4x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  %l = plumb.grid_sample %x, %g {align_corners = true, mode = "linear", padding_mode = "border"} : (tensor<1x3x4x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  %c = plumb.grid_sample %x, %g {align_corners = false, mode = "cubic", padding_mode = "reflection"} : (tensor<1x3x4x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  return %n, %l, %c : tensor<1x3x2x3xf32>, tensor<1x3x2x3xf32>, tensor<1x3x2x3xf32>
}
