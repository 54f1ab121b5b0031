// RUN: plumb-opt %s -split-input-file -plumb-print-gas | FileCheck %s
// RUN: plumb-opt %s -split-input-file -plumb-print-gas=schedule=plumb-gas-v1 -o /dev/null | FileCheck %s --check-prefix=GAS

// The pass prints and changes nothing: the IR comes out as it went in.
// Per-family gas is tested in test/Cost/.
// relu of 6 floats under plumb-gas-v1: 112564 + 148*6 + 24 + 143*24 = 116908.
// GAS: node 0 plumb.relu macs=0 elementwise=6 transcendental=0 compare=0 indexed=0 read=24 written=24 gas=116908
// GAS: total gas=116908 schedule=plumb-gas-v1 nodes=1
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[Y:.+]] = plumb.relu %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = plumb.relu %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// No nodes: only constants, which are free. Total 0.
// GAS: total gas=0 schedule=plumb-gas-v1 nodes=0
// CHECK-LABEL: func.func @main
// CHECK: plumb.constant
func.func @main() -> tensor<2xf32> {
  %c = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
