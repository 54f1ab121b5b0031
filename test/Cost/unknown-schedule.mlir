// An unknown schedule name is an error that lists the known ones.
// RUN: plumb-opt %s -plumb-print-gas=schedule=plumb-gas-v0 -verify-diagnostics -o /dev/null

// expected-error @+1 {{unknown gas schedule 'plumb-gas-v0'; known schedules: plumb-gas-v1}}
module {
  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %r = plumb.relu %a : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
