// Gas of the Fourier transforms (docs/gas.md): 2n transcendental
// evaluations for the twiddles; per transform and stage of radix p (n
// outputs, the bins for the last) p indexed reads and (p - 1) * 8
// operations per output; a window's products (one per loaded part); the
// inverse's two divisions per bin.
// plumb-gas-v1: base 112564, MAC 24, elementwise 148, transcendental 4091,
// compare 1092, indexed 264, byte read 1, byte written 143.
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -o /dev/null | FileCheck %s

// dft, 2 real transforms of 8 (radix 2, 2, 2), 5 bins: outputs 8 + 8 + 5 =
// 21 a transform: indexed 2 * 2 * 21 = 84, elementwise 2 * 21 * 8 = 336.
// 112564 + 148*336 + 4091*16 + 264*84 + 64 + 143*80 = 261428.
// dft inverse, 3 complex transforms of 6 (radix 3 then 2): reads 18 + 12,
// terms 12 + 6 a transform: indexed 90, elementwise 3*18*8 + 3*2*6 = 468.
// 112564 + 148*468 + 4091*12 + 264*90 + 144 + 143*144 = 275416.
// CHECK: node 0 plumb.dft macs=0 elementwise=336 transcendental=16 compare=0 indexed=84 read=64 written=80 gas=261428
// CHECK: node 1 plumb.dft macs=0 elementwise=468 transcendental=12 compare=0 indexed=90 read=144 written=144 gas=275416
func.func @main(%x: tensor<2x8x1xf32>, %c: tensor<3x6x2xf32>) -> (tensor<2x5x2xf32>, tensor<3x6x2xf32>) {
  %0 = plumb.dft %x {axis = 1 : i64, inverse = false, length = 8 : i64, onesided = true} : (tensor<2x8x1xf32>) -> tensor<2x5x2xf32>
  %1 = plumb.dft %c {axis = 1 : i64, inverse = true, length = 6 : i64, onesided = false} : (tensor<3x6x2xf32>) -> tensor<3x6x2xf32>
  return %0, %1 : tensor<2x5x2xf32>, tensor<3x6x2xf32>
}

// -----

// stft, 4 frames of 8 with a window, 5 bins: indexed 4 * 42 = 168,
// elementwise 4 * 21 * 8 + 4 * 8 = 704.
// 112564 + 148*704 + 4091*16 + 264*168 + 112 + 143*160 = 349556.
// CHECK: node 0 plumb.stft macs=0 elementwise=704 transcendental=16 compare=0 indexed=168 read=112 written=160 gas=349556
func.func @main(%s: tensor<1x20x1xf32>, %w: tensor<8xf32>) -> tensor<1x4x5x2xf32> {
  %0 = plumb.stft %s, %w {frame_length = 8 : i64, frame_step = 4 : i64, onesided = true} : (tensor<1x20x1xf32>, tensor<8xf32>) -> tensor<1x4x5x2xf32>
  return %0 : tensor<1x4x5x2xf32>
}
