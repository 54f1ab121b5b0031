// RUN: %plumb-opt %s -split-input-file -canonicalize | FileCheck %s
// The exact folders of PlumbFolds.cpp: constant folding with the kernels'
// bit-exact semantics, identity folds, and the cases that must not fold.

// CHECK-LABEL: func.func @add_f32
// CHECK: %[[C:.+]] = plumb.constant dense<[1.500000e+00, 0x7FC00000, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]]
func.func @add_f32() -> tensor<3xf32> {
  %a = plumb.constant dense<[1.0, 0x7F800000, 2.0]> : tensor<3xf32>
  %b = plumb.constant dense<[0.5, 0xFF800000, 1.0]> : tensor<3xf32>
  %0 = plumb.add %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Broadcasting operands; a splat stays a splat.
// CHECK-LABEL: func.func @sub_mul_broadcast
// CHECK-DAG: %[[S:.+]] = plumb.constant dense<{{\[}}[0.000000e+00, -1.000000e+00], [2.000000e+00, 1.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[M:.+]] = plumb.constant dense<6.000000e+00> : tensor<4x4xf32>
// CHECK: return %[[S]], %[[M]]
func.func @sub_mul_broadcast() -> (tensor<2x2xf32>, tensor<4x4xf32>) {
  %a = plumb.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %b = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = plumb.sub %a, %b : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %c = plumb.constant dense<2.0> : tensor<4x4xf32>
  %d = plumb.constant dense<3.0> : tensor<4xf32>
  %1 = plumb.mul %c, %d : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<4x4xf32>
}

// -----

// Float division is one IEEE division: 1/0 = inf, 0/0 = NaN (canonical).
// CHECK-LABEL: func.func @div_f32
// CHECK: plumb.constant dense<[0x7F800000, 0x7FC00000, 0.333333343]> : tensor<3xf32>
func.func @div_f32() -> tensor<3xf32> {
  %a = plumb.constant dense<[1.0, 0.0, 1.0]> : tensor<3xf32>
  %b = plumb.constant dense<[0.0, 0.0, 3.0]> : tensor<3xf32>
  %0 = plumb.div %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// i64 arithmetic wraps.
// CHECK-LABEL: func.func @int64_wrap
// CHECK-DAG: %[[A:.+]] = plumb.constant dense<[-9223372036854775808, 5]> : tensor<2xi64>
// CHECK-DAG: %[[S:.+]] = plumb.constant dense<[9223372036854775807, -1]> : tensor<2xi64>
// CHECK-DAG: %[[M:.+]] = plumb.constant dense<[1, 4]> : tensor<2xi64>
// CHECK: return %[[A]], %[[S]], %[[M]]
func.func @int64_wrap() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %a = plumb.constant dense<[9223372036854775807, 2]> : tensor<2xi64>
  %b = plumb.constant dense<[1, 3]> : tensor<2xi64>
  %0 = plumb.add %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %m = plumb.constant dense<[-9223372036854775808, 2]> : tensor<2xi64>
  %1 = plumb.sub %m, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %2 = plumb.mul %a, %a : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0, %1, %2 : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
}

// -----

// i32 arithmetic wraps at 32 bits.
// CHECK-LABEL: func.func @int32_wrap
// CHECK-DAG: plumb.constant dense<[-2147483648, 0]> : tensor<2xi32>
// CHECK-DAG: plumb.constant dense<[0, 1]> : tensor<2xi32>
func.func @int32_wrap() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = plumb.constant dense<[2147483647, -1]> : tensor<2xi32>
  %b = plumb.constant dense<[1, 1]> : tensor<2xi32>
  %0 = plumb.add %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %c = plumb.constant dense<[65536, -1]> : tensor<2xi32>
  %1 = plumb.mul %c, %c : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

// -----

// Integer division truncates toward zero; x / 0 = 0; INT_MIN / -1 = INT_MIN.
// CHECK-LABEL: func.func @int_div
// CHECK-DAG: plumb.constant dense<[-3, 0, -9223372036854775808, 3]> : tensor<4xi64>
// CHECK-DAG: plumb.constant dense<[-2147483648, 0]> : tensor<2xi32>
func.func @int_div() -> (tensor<4xi64>, tensor<2xi32>) {
  %a = plumb.constant dense<[-7, 5, -9223372036854775808, -7]> : tensor<4xi64>
  %b = plumb.constant dense<[2, 0, -1, -2]> : tensor<4xi64>
  %0 = plumb.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %c = plumb.constant dense<[-2147483648, 9]> : tensor<2xi32>
  %d = plumb.constant dense<[-1, 0]> : tensor<2xi32>
  %1 = plumb.div %c, %d : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<4xi64>, tensor<2xi32>
}

// -----

// Comparisons: NaN compares false (equal, less) and true for nothing.
// CHECK-LABEL: func.func @compare
// CHECK-DAG: plumb.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: plumb.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: plumb.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: plumb.constant dense<[false, true, true]> : tensor<3xi1>
func.func @compare() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = plumb.constant dense<[0x7FC00000, 1.0, 2.0]> : tensor<3xf32>
  %b = plumb.constant dense<[0x7FC00000, 1.0, 1.0]> : tensor<3xf32>
  %0 = plumb.equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = plumb.greater %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %i = plumb.constant dense<[1, 2, 3]> : tensor<3xi64>
  %j = plumb.constant dense<2> : tensor<i64>
  %2 = plumb.less_or_equal %i, %j : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %3 = plumb.greater_or_equal %i, %j : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @logic
// CHECK-DAG: plumb.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-DAG: plumb.constant dense<[true, true, true, false]> : tensor<4xi1>
// CHECK-DAG: plumb.constant dense<[false, false, true, true]> : tensor<4xi1>
func.func @logic() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %a = plumb.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = plumb.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = plumb.and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = plumb.or %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = plumb.not %a : tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Neg flips the sign bit of floats and wraps integers.
// CHECK-LABEL: func.func @neg
// CHECK-DAG: plumb.constant dense<[-0.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: plumb.constant dense<[-9223372036854775808, -5]> : tensor<2xi64>
func.func @neg() -> (tensor<2xf32>, tensor<2xi64>) {
  %a = plumb.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = plumb.neg %a : tensor<2xf32>
  %b = plumb.constant dense<[-9223372036854775808, 5]> : tensor<2xi64>
  %1 = plumb.neg %b : tensor<2xi64>
  return %0, %1 : tensor<2xf32>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @where
// CHECK: plumb.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
func.func @where() -> tensor<3xf32> {
  %c = plumb.constant dense<[true, false, true]> : tensor<3xi1>
  %x = plumb.constant dense<[1.0, 9.0, 3.0]> : tensor<3xf32>
  %y = plumb.constant dense<2.0> : tensor<f32>
  %0 = plumb.where %c, %x, %y : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// f32 -> integer truncates toward zero, NaN gives 0, out-of-range values
// saturate; integer -> f32 rounds to nearest even; anything -> i1 is x != 0;
// i64 -> i32 keeps the low 32 bits.
// CHECK-LABEL: func.func @cast
// CHECK-DAG: plumb.constant dense<[0, -1, 1, 2147483647, -2147483648]> : tensor<5xi32>
// CHECK-DAG: plumb.constant dense<[0, 9223372036854775807, -9223372036854775808]> : tensor<3xi64>
// 16777217 and 16777219 are ties: to 2^24 (0x4B800000) and 2^24 + 4 (0x4B800002).
// CHECK-DAG: plumb.constant dense<[0x4B800000, 0x4B800002]> : tensor<2xf32>
// CHECK-DAG: plumb.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: plumb.constant dense<[-1, 1]> : tensor<2xi32>
func.func @cast() -> (tensor<5xi32>, tensor<3xi64>, tensor<2xf32>, tensor<3xi1>, tensor<2xi32>) {
  %a = plumb.constant dense<[0x7FC00000, -1.9, 1.9, 3.0e+10, -3.0e+10]> : tensor<5xf32>
  %0 = plumb.cast %a : tensor<5xf32> -> tensor<5xi32>
  %b = plumb.constant dense<[0xFFC00000, 0x7F800000, 0xFF800000]> : tensor<3xf32>
  %1 = plumb.cast %b : tensor<3xf32> -> tensor<3xi64>
  %c = plumb.constant dense<[16777217, 16777219]> : tensor<2xi64>
  %2 = plumb.cast %c : tensor<2xi64> -> tensor<2xf32>
  %d = plumb.constant dense<[0.0, -0.5, 0x7FC00000]> : tensor<3xf32>
  %3 = plumb.cast %d : tensor<3xf32> -> tensor<3xi1>
  %e = plumb.constant dense<[4294967295, 4294967297]> : tensor<2xi64>
  %4 = plumb.cast %e : tensor<2xi64> -> tensor<2xi32>
  return %0, %1, %2, %3, %4 : tensor<5xi32>, tensor<3xi64>, tensor<2xf32>, tensor<3xi1>, tensor<2xi32>
}

// -----

// Data movement of constants copies bits.
// CHECK-LABEL: func.func @movement
// CHECK-DAG: plumb.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
// CHECK-DAG: plumb.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
// CHECK-DAG: plumb.constant dense<[6, 4]> : tensor<2xi64>
// CHECK-DAG: plumb.constant dense<{{\[}}[3, 1], [6, 4]]> : tensor<2x2xi64>
// CHECK-DAG: plumb.constant dense<[1, 2, 3, 4, 5, 6, 7]> : tensor<7xi64>
// CHECK-DAG: plumb.constant dense<{{\[}}[1, 2], [1, 2]]> : tensor<2x2xi64>
func.func @movement() -> (tensor<2x3xi64>, tensor<3x2xi64>, tensor<2xi64>, tensor<2x2xi64>, tensor<7xi64>, tensor<2x2xi64>) {
  %a = plumb.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64>
  %0 = plumb.reshape %a : tensor<6xi64> -> tensor<2x3xi64>
  %1 = plumb.transpose %0 {perm = array<i64: 1, 0>} : tensor<2x3xi64> -> tensor<3x2xi64>
  %2 = plumb.slice %a {starts = array<i64: 5>, steps = array<i64: -2>} : tensor<6xi64> -> tensor<2xi64>
  %i = plumb.constant dense<[-1, 0]> : tensor<2xi64>
  %3 = plumb.gather %0, %i {axis = 1 : i64} : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  %b = plumb.constant dense<7> : tensor<1xi64>
  %4 = plumb.concat %a, %b {axis = 0 : i64} : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
  %c = plumb.constant dense<[1, 2]> : tensor<2xi64>
  %5 = plumb.expand %c : tensor<2xi64> -> tensor<2x2xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi64>, tensor<3x2xi64>, tensor<2xi64>, tensor<2x2xi64>, tensor<7xi64>, tensor<2x2xi64>
}

// -----

// Folding an out-of-range constant gather index is left to the run-time
// check.
// CHECK-LABEL: func.func @gather_out_of_range
// CHECK: plumb.gather
func.func @gather_out_of_range() -> tensor<1xi64> {
  %a = plumb.constant dense<[1, 2, 3]> : tensor<3xi64>
  %i = plumb.constant dense<[3]> : tensor<1xi64>
  %0 = plumb.gather %a, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

// Max/min of constants (NaN propagates, max(-0, +0) = +0, min(-0, +0) = -0).
// CHECK-LABEL: func.func @max_min
// CHECK-DAG: plumb.constant dense<[0x7FC00000, 0.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: plumb.constant dense<[0x7FC00000, -0.000000e+00, 1.000000e+00]> : tensor<3xf32>
func.func @max_min() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = plumb.constant dense<[0x7FC00000, -0.0, 1.0]> : tensor<3xf32>
  %b = plumb.constant dense<[1.0, 0.0, 3.0]> : tensor<3xf32>
  %0 = plumb.max %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = plumb.min %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Identity folds on non-constant values.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NOT: plumb.
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identities(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = plumb.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = plumb.transpose %x {perm = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = plumb.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = plumb.expand %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %4 = plumb.cast %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %5 = plumb.max %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = plumb.min %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = plumb.concat %x {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Reshape chains of non-constant values are not folded into each other, but
// a reshape back to the original type is.
// CHECK-LABEL: func.func @not_identity
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK: %[[R:.+]] = plumb.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: %[[T:.+]] = plumb.transpose %[[X]] {perm = array<i64: 1, 0>}
// CHECK: %[[S:.+]] = plumb.slice %[[X]] {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>}
// CHECK: return %[[R]], %[[T]], %[[S]]
func.func @not_identity(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>, tensor<2x2xf32>) {
  %0 = plumb.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = plumb.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = plumb.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<3x2xf32>, tensor<2x2xf32>
}

// -----

// Transcendental ops and pow are never folded (they are Plumb's own
// correctly rounded functions, computed by the runtime), nor are ops with a
// non-constant operand.
// CHECK-LABEL: func.func @no_fold
// CHECK-SAME: %[[X:[^:]+]]: tensor<2xf32>
// CHECK-DAG: %[[A:.+]] = plumb.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[P:.+]] = plumb.pow %[[A]], %[[A]]
// CHECK-DAG: %[[E:.+]] = plumb.exp %[[A]]
// CHECK-DAG: %[[S:.+]] = plumb.add %[[X]], %[[A]]
// CHECK-DAG: %[[R:.+]] = plumb.sqrt %[[A]]
// CHECK: return %[[P]], %[[E]], %[[S]], %[[R]]
func.func @no_fold(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = plumb.pow %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = plumb.exp %a : tensor<2xf32>
  %2 = plumb.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = plumb.sqrt %a : tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
