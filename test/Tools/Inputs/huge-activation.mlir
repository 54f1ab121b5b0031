// A valid model whose input and activation are 2^20 x 2^20 floats (4 TiB
// each): nothing overflows int64, and `plumb run --max-memory` must refuse
// it before reading an input or allocating anything.
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<1048576x1048576xf32> {plumb.name = "x"}) -> (tensor<1048576x1048576xf32> {plumb.name = "y"}) {
    %0 = plumb.relu %x : tensor<1048576x1048576xf32>
    return %0 : tensor<1048576x1048576xf32>
  }
}
