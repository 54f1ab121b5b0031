// Compiled code computes exactly what the interpreter computes, bit for bit
// (outputs compared as raw .npy bytes, NaN payloads included), on a program
// that exercises the emitter's special cases: plumb.if with a yield from
// each branch, a reshape sharing its operand's buffer, a graph input
// returned as is, non-canonical NaNs in an input and in a constant (the
// interpreter canonicalises every result, so kernels must only ever see
// 0x7FC00000), int32 variadic sums, layer_norm with a broadcast scale, and
// gather.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/mixed-inputs.py %t 1
// RUN: %plumb compile %s -o %t/b.plumb --target cpu --quiet | FileCheck %s --check-prefix=COMPILE
// COMPILE: nodes    {{[0-9]+}}
// COMPILE: cpu      built: cpu/model.so
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --output-dir %t/compiled > %t/compiled.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --output-dir %t/interp > %t/interp.txt
// RUN: diff %t/compiled.txt %t/interp.txt
// RUN: for i in 0 1 2 3 4 5 6; do cmp %t/compiled/output_$i.npy %t/interp/output_$i.npy || exit 1; done
// The other branch of the if.
// RUN: %python %S/Inputs/mixed-inputs.py %t 0
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --output-dir %t/compiled0 --threads 3 > %t/compiled0.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --output-dir %t/interp0 > %t/interp0.txt
// RUN: diff %t/compiled0.txt %t/interp0.txt
// The else branch forwards the graph input x (with a non-canonical NaN):
// both paths store the plumb.if's result with canonical NaNs.
// RUN: for i in 0 1 2 3 4 5 6; do cmp %t/compiled0/output_$i.npy %t/interp0/output_$i.npy || exit 1; done
// The emitted code has both branches, a hook after every node and no copy
// for the aliased reshape.
// RUN: FileCheck %s --check-prefix=SRC < %t/b.plumb/cpu/model.cpp
// SRC: if (*(const uint8_t *)
// SRC: } else {
// SRC: plumb.reshape -> float32[3x2]
// SRC-NOT: memcpy
// SRC: hook(user,
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<2x3xf32> {plumb.name = "x"},
                  %c: tensor<i1> {plumb.name = "c"},
                  %k: tensor<2x3xi32> {plumb.name = "k"},
                  %i: tensor<2xi64> {plumb.name = "i"})
      -> (tensor<2x3xf32> {plumb.name = "branch"},
          tensor<3x2xf32> {plumb.name = "relu"},
          tensor<2x3xi32> {plumb.name = "sum"},
          tensor<2x2xf32> {plumb.name = "gathered"},
          tensor<2x3xf32> {plumb.name = "x_again"},
          tensor<2x3x4xf32> {plumb.name = "normed"},
          tensor<2xf32> {plumb.name = "nan_gathered"}) {
    %w = plumb.constant dense<[1.0, -2.0, 0.5]> : tensor<3xf32>
    %nan = plumb.constant dense<[0x7FC00001, 0xFFC00000, 1.0]> : tensor<3xf32>
    %kb = plumb.constant dense<[7, -3, 2147483647]> : tensor<3xi32>
    %ls = plumb.constant dense<[0.5, 1.0, 2.0, -1.0]> : tensor<4xf32>
    %0 = plumb.sqrt %x : tensor<2x3xf32>
    %1 = plumb.if %c : tensor<i1> -> tensor<2x3xf32> {
      %2 = plumb.log %0 : tensor<2x3xf32>
      plumb.yield %2 : tensor<2x3xf32>
    } else {
      plumb.yield %x : tensor<2x3xf32>
    }
    %3 = plumb.mul %1, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %4 = plumb.reshape %3 : tensor<2x3xf32> -> tensor<3x2xf32>
    %5 = plumb.relu %4 : tensor<3x2xf32>
    %6 = plumb.sum %k, %kb, %k : (tensor<2x3xi32>, tensor<3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    %7 = plumb.gather %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x2xf32>
    %8 = plumb.reshape %x : tensor<2x3xf32> -> tensor<2x3x1xf32>
    %9 = plumb.expand %8 : tensor<2x3x1xf32> -> tensor<2x3x4xf32>
    %10 = plumb.add %9, %ls : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %11 = plumb.layer_norm %10, %ls, %ls {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %12 = plumb.gather %nan, %i {axis = 0 : i64} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>
    return %1, %5, %6, %7, %x, %11, %12 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xi32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>, tensor<2xf32>
  }
}
