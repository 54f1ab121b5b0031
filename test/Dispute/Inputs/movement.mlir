// Data movement nodes whose results span several chunks, for sub-node
// disputes on them (docs/dispute.md, Dispute/Slice.h). Input: x (64x96 f32,
// make-movement-input.py).
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<64x96xf32> {plumb.name = "x"}) -> (tensor<95x128xf32> {plumb.name = "y"}) {
    %0 = plumb.relu %x : tensor<64x96xf32>
    %1 = plumb.transpose %0 {perm = array<i64: 1, 0>} : tensor<64x96xf32> -> tensor<96x64xf32>
    %2 = plumb.reshape %1 : tensor<96x64xf32> -> tensor<48x128xf32>
    %3 = plumb.slice %2 {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : tensor<48x128xf32> -> tensor<47x128xf32>
    %4 = plumb.concat %3, %2 {axis = 0 : i64} : (tensor<47x128xf32>, tensor<48x128xf32>) -> tensor<95x128xf32>
    return %4 : tensor<95x128xf32>
  }
}
