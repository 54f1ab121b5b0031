// What gas refuses to price: counts or gas that overflow 64 bits (never a
// wrap), an unknown schedule, and ops without a static cost (anything but
// plumb ops: loops are unrolled at import or rejected there).
// RUN: plumb-opt %s -split-input-file -plumb-print-gas -verify-diagnostics -o /dev/null

// 2^40 results x K = 2^30: 2^70 MACs do not fit in 64 bits.
func.func @main(%a: tensor<1048576x1073741824xf32>, %b: tensor<1073741824x1048576xf32>) -> tensor<1048576x1048576xf32> {
  // expected-error @+1 {{'plumb.matmul' op counts overflow 64 bits (shapes too large); the program is refused}}
  %c = plumb.matmul %a, %b : (tensor<1048576x1073741824xf32>, tensor<1073741824x1048576xf32>) -> tensor<1048576x1048576xf32>
  return %c : tensor<1048576x1048576xf32>
}

// -----

// 2^60 MACs fit, but at 24 gas each (plumb-gas-v1) the gas does not.
func.func @main(%a: tensor<1048576x1048576xf32>, %b: tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  // expected-error @+1 {{'plumb.matmul' gas overflows 64 bits; the program is refused}}
  %c = plumb.matmul %a, %b : (tensor<1048576x1048576xf32>, tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32>
  return %c : tensor<1048576x1048576xf32>
}

// -----

// Each node fits (2^59 MACs, about 1.38e19 gas), their sum does not.
// expected-error @+1 {{the total gas overflows 64 bits; the program is refused}}
func.func @main(%a: tensor<1048576x1048576xf32>, %b: tensor<1048576x524288xf32>) -> (tensor<1048576x524288xf32>, tensor<1048576x524288xf32>) {
  %c = plumb.matmul %a, %b : (tensor<1048576x1048576xf32>, tensor<1048576x524288xf32>) -> tensor<1048576x524288xf32>
  %d = plumb.matmul %a, %b {tree = #plumb.tree<seq>} : (tensor<1048576x1048576xf32>, tensor<1048576x524288xf32>) -> tensor<1048576x524288xf32>
  return %c, %d : tensor<1048576x524288xf32>, tensor<1048576x524288xf32>
}

// -----

// A call has no static cost.
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' has no cost: only plumb ops are priced (loops must be unrolled at import; unbounded work is refused)}}
  %r = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
