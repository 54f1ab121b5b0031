// Not the program the dispute tests' traces ran.
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<2x8xf32> {plumb.name = "x"}, %c: tensor<i1> {plumb.name = "c"}) -> (tensor<2x8xf32> {plumb.name = "y"}) {
    %0 = plumb.relu %x : tensor<2x8xf32>
    return %0 : tensor<2x8xf32>
  }
}
