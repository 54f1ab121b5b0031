// RUN: %plumb-opt %s | %plumb-opt | FileCheck %s
// RUN: %plumb-opt %s -plumb-print-kernel-calls 2>&1 | FileCheck %s --check-prefix=CALLS
// The elementwise math ops of lib/Importer/OnnxOpsMath.cpp survive a
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
