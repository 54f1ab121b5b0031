// RUN: %plumb-opt %s -split-input-file -verify-diagnostics
// Verifier errors of the elementwise math ops (PlumbOps.cpp).

func.func @mod_float_fmod0(%x: tensor<2xf32>) {
  // expected-error @+1 {{fmod = false is defined for integers only}}
  %0 = plumb.mod %x, %x {fmod = false} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @prelu_shape(%x: tensor<2xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{not broadcast-compatible}}
  %0 = plumb.prelu %x, %s : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @bit_and_float(%x: tensor<2xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of 64-bit signless integer or 32-bit signless integer values}}
  %0 = plumb.bit_and %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @mean_empty() {
  // expected-error @+1 {{needs at least one operand}}
  %0 = plumb.mean : () -> tensor<2xf32>
  return
}
