// RUN: plumb-opt %s -split-input-file -allow-unregistered-dialect -plumb-verify-static-shapes -verify-diagnostics | FileCheck %s

// A well-formed program passes unchanged.
// CHECK-LABEL: func.func @main
// CHECK: plumb.relu
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = plumb.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{input 0 has type 'tensor<?xf32>'; Plumb needs a statically shaped tensor of f32, i64, i32 or i1}}
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{a Plumb module holds only func.func @main, found @other}}
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{the module has no func.func @main}}
module {
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'foo.bar' is not a Plumb operation}}
  %0 = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
