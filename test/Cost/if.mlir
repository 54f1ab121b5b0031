// plumb.if costs its own base plus reading its condition, plus the dearer of
// its two branches (the gas of the ops in it; constants and the yield are
// free). Loops never reach the IR: static ones are unrolled at import.
// plumb-gas-v1: base 112564, transcendental 4091, elementwise 148, byte read
// 1, byte written 143.
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -o /dev/null | FileCheck %s

// then: two exps of 8 floats, 2 x (112564 + 4091*8 + 32 + 143*32) = 299800.
// else: one neg, 112564 + 148*8 + 32 + 143*32 = 118356.
// if: 112564 + 1 (the i1 condition) + max(299800, 118356) = 412365.
// Counts are the if's own plus the dearer branch's.
// CHECK: node 0 plumb.if macs=0 elementwise=0 transcendental=16 compare=0 indexed=0 read=65 written=64 gas=412365
// CHECK: total gas=412365 schedule=plumb-gas-v1 nodes=1
func.func @main(%c: tensor<i1>, %a: tensor<8xf32>) -> tensor<8xf32> {
  %r = plumb.if %c : tensor<i1> -> tensor<8xf32> {
    %e = plumb.exp %a : tensor<8xf32>
    %f = plumb.exp %e : tensor<8xf32>
    plumb.yield %f : tensor<8xf32>
  } else {
    %n = plumb.neg %a : tensor<8xf32>
    plumb.yield %n : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// The same branches swapped: the else branch is the dearer one now, and the
// gas does not change. A constant inside a branch is free.
// CHECK: node 0 plumb.if macs=0 elementwise=0 transcendental=16 compare=0 indexed=0 read=65 written=64 gas=412365
func.func @main(%c: tensor<i1>, %a: tensor<8xf32>) -> tensor<8xf32> {
  %r = plumb.if %c : tensor<i1> -> tensor<8xf32> {
    %k = plumb.constant dense<1.0> : tensor<8xf32>
    %n = plumb.neg %a : tensor<8xf32>
    plumb.yield %n : tensor<8xf32>
  } else {
    %e = plumb.exp %a : tensor<8xf32>
    %f = plumb.exp %e : tensor<8xf32>
    plumb.yield %f : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// Nested: the inner if is priced the same way inside the outer branch.
// inner = 412365 (as above); outer then = 118356 (neg) + 412365 = 530721;
// outer else = 118356; outer = 112564 + 1 + 530721 = 643286.
// CHECK: node 0 plumb.if macs=0 elementwise=8 transcendental=16 compare=0 indexed=0 read=98 written=96 gas=643286
func.func @main(%c: tensor<i1>, %a: tensor<8xf32>) -> tensor<8xf32> {
  %r = plumb.if %c : tensor<i1> -> tensor<8xf32> {
    %n = plumb.neg %a : tensor<8xf32>
    %i = plumb.if %c : tensor<i1> -> tensor<8xf32> {
      %e = plumb.exp %n : tensor<8xf32>
      %f = plumb.exp %e : tensor<8xf32>
      plumb.yield %f : tensor<8xf32>
    } else {
      %m = plumb.neg %n : tensor<8xf32>
      plumb.yield %m : tensor<8xf32>
    }
    plumb.yield %i : tensor<8xf32>
  } else {
    %n = plumb.neg %a : tensor<8xf32>
    plumb.yield %n : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
