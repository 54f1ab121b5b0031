// RUN: %plumb-opt %s | %plumb-opt | FileCheck %s
// RUN: %plumb-opt %s -plumb-print-kernel-calls 2>&1 | FileCheck %s --check-prefix=CALLS
// The elementwise math ops of lib/Importer/OnnxOpsMath.cpp (and top_k) survive a
// print/parse round trip, and lower to the kernel codes of runtime
// elementwise.h.

// CHECK-LABEL: func.func @math
func.func @math(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %i: tensor<2x3xi64>,
                %j: tensor<3xi64>, %b: tensor<3xi1>) {
  // CHECK: plumb.floor %{{.+}} : tensor<2x3xf32>
  %0 = plumb.floor %x : tensor<2x3xf32>
  // CHECK: plumb.ceil
  %1 = plumb.ceil %x : tensor<2x3xf32>
  // CHECK: plumb.round
  %2 = plumb.round %x : tensor<2x3xf32>
  // CHECK: plumb.sign
  %3 = plumb.sign %x : tensor<2x3xf32>
  // CHECK: plumb.softplus
  %4 = plumb.softplus %x : tensor<2x3xf32>
  // CHECK: plumb.softsign
  %5 = plumb.softsign %x : tensor<2x3xf32>
  // CHECK: plumb.elu %{{.+}} {alpha = 5.000000e-01 : f32}
  %6 = plumb.elu %x {alpha = 0.5 : f32} : tensor<2x3xf32>
  // CHECK: plumb.selu %{{.+}} {alpha = 1.500000e+00 : f32, gamma = 2.000000e+00 : f32}
  %7 = plumb.selu %x {alpha = 1.5 : f32, gamma = 2.0 : f32} : tensor<2x3xf32>
  // CHECK: plumb.prelu %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = plumb.prelu %x, %s : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.celu %{{.+}} {alpha = 2.000000e+00 : f32}
  %9 = plumb.celu %x {alpha = 2.0 : f32} : tensor<2x3xf32>
  // CHECK: plumb.thresholded_relu
  %10 = plumb.thresholded_relu %x {alpha = 1.0 : f32} : tensor<2x3xf32>
  // CHECK: plumb.shrink %{{.+}} {bias = 0.000000e+00 : f32, lambd = 5.000000e-01 : f32}
  %11 = plumb.shrink %x {bias = 0.0 : f32, lambd = 0.5 : f32} : tensor<2x3xf32>
  // CHECK: plumb.mish
  %12 = plumb.mish %x : tensor<2x3xf32>
  // CHECK: plumb.swish
  %13 = plumb.swish %x {alpha = 1.0 : f32} : tensor<2x3xf32>
  // CHECK: plumb.mod %{{.+}}, %{{.+}} {fmod = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %14 = plumb.mod %x, %s {fmod = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.mod %{{.+}}, %{{.+}} {fmod = false} : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %15 = plumb.mod %i, %j {fmod = false} : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: plumb.mean %{{.+}}, %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %16 = plumb.mean %x, %s, %x : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: plumb.bit_and
  %17 = plumb.bit_and %i, %j : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: plumb.shift_right
  %18 = plumb.shift_right %i, %j : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: plumb.xor
  %19 = plumb.xor %b, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  // CHECK: plumb.sin %{{.+}} : tensor<2x3xf32>
  %t0 = plumb.sin %x : tensor<2x3xf32>
  // CHECK: plumb.cos %{{.+}} : tensor<2x3xf32>
  %t1 = plumb.cos %x : tensor<2x3xf32>
  // CHECK: plumb.tan %{{.+}} : tensor<2x3xf32>
  %t2 = plumb.tan %x : tensor<2x3xf32>
  // CHECK: plumb.asin %{{.+}} : tensor<2x3xf32>
  %t3 = plumb.asin %x : tensor<2x3xf32>
  // CHECK: plumb.acos %{{.+}} : tensor<2x3xf32>
  %t4 = plumb.acos %x : tensor<2x3xf32>
  // CHECK: plumb.atan %{{.+}} : tensor<2x3xf32>
  %t5 = plumb.atan %x : tensor<2x3xf32>
  // CHECK: plumb.sinh %{{.+}} : tensor<2x3xf32>
  %t6 = plumb.sinh %x : tensor<2x3xf32>
  // CHECK: plumb.cosh %{{.+}} : tensor<2x3xf32>
  %t7 = plumb.cosh %x : tensor<2x3xf32>
  // CHECK: plumb.asinh %{{.+}} : tensor<2x3xf32>
  %t8 = plumb.asinh %x : tensor<2x3xf32>
  // CHECK: plumb.acosh %{{.+}} : tensor<2x3xf32>
  %t9 = plumb.acosh %x : tensor<2x3xf32>
  // CHECK: plumb.atanh %{{.+}} : tensor<2x3xf32>
  %t10 = plumb.atanh %x : tensor<2x3xf32>
  // CHECK: plumb.top_k %{{.+}} {axis = 1 : i64, k = 2 : i64, largest = false} : tensor<2x3xi64> -> tensor<2x2xi64>, tensor<2x2xi64>
  %v, %vi = plumb.top_k %i {axis = 1 : i64, k = 2 : i64, largest = false} : tensor<2x3xi64> -> tensor<2x2xi64>, tensor<2x2xi64>
  return
}
// CALLS-DAG: PLUMB_RT_FLOOR
// CALLS-DAG: PLUMB_RT_SELU
// CALLS-DAG: PLUMB_RT_PRELU
// CALLS-DAG: PLUMB_RT_MISH
// CALLS-DAG: PLUMB_RT_FMOD_F32
// CALLS-DAG: PLUMB_RT_MOD
// CALLS-DAG: PLUMB_RT_MEAN
// CALLS-DAG: PLUMB_RT_BIT_AND
// CALLS-DAG: PLUMB_RT_SHIFT_RIGHT
// CALLS-DAG: PLUMB_RT_XOR
// CALLS-DAG: PLUMB_RT_SIN
// CALLS-DAG: PLUMB_RT_COS
// CALLS-DAG: PLUMB_RT_TAN
// CALLS-DAG: PLUMB_RT_ASIN
// CALLS-DAG: PLUMB_RT_ACOS
// CALLS-DAG: PLUMB_RT_ATAN
// CALLS-DAG: PLUMB_RT_SINH
// CALLS-DAG: PLUMB_RT_COSH
// CALLS-DAG: PLUMB_RT_ASINH
// CALLS-DAG: PLUMB_RT_ACOSH
// CALLS-DAG: PLUMB_RT_ATANH
// CALLS-DAG: plumb_rt_topk_i64(%in0:i64, [2, 3], 2, 1, 2, 0, %out0:i64, %out1:i64)
