// A small program for trace and dispute tests: a reduction with a tree, a
// multi-result node, a node with several operands, and a plumb.if whose
// regions capture values defined outside it. Inputs: x (2x8 f32), c (bool).
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<2x8xf32> {plumb.name = "x"}, %c: tensor<i1> {plumb.name = "c"}) -> (tensor<2x1xf32> {plumb.name = "y"}, tensor<2x4xf32> {plumb.name = "z"}) {
    %w = plumb.constant dense<[[-0.75, 0.0, 0.75, -0.25], [0.5, -0.5, 0.25, -0.75], [0.0, 0.75, -0.25, 0.5], [-0.5, 0.25, -0.75, 0.0], [0.75, -0.25, 0.5, -0.5], [0.25, -0.75, 0.0, 0.75], [-0.25, 0.5, -0.5, 0.25], [-0.75, 0.0, 0.75, -0.25]]> : tensor<8x4xf32>
    %0 = plumb.matmul %x, %w {tree = #plumb.tree<blocked 4>} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %1 = plumb.relu %0 : tensor<2x4xf32>
    %2:2 = plumb.split %1 {axis = 1 : i64, sizes = array<i64: 1, 3>} : tensor<2x4xf32> -> tensor<2x1xf32>, tensor<2x3xf32>
    %3 = plumb.reduce_sum %2#1 {axes = array<i64: 1>, keepdims = true, tree = #plumb.tree<blocked 2>} : tensor<2x3xf32> -> tensor<2x1xf32>
    %4 = plumb.add %2#0, %3 : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    %5 = plumb.if %c : tensor<i1> -> tensor<2x4xf32> {
      %6 = plumb.tanh %0 : tensor<2x4xf32>
      %7 = plumb.mul %6, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
      plumb.yield %7 : tensor<2x4xf32>
    } else {
      plumb.yield %1 : tensor<2x4xf32>
    }
    return %4, %5 : tensor<2x1xf32>, tensor<2x4xf32>
  }
}
