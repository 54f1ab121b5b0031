// conv-relu.mlir with the conv's value also returned: two uses, so
// plumb-fuse-elementwise leaves the conv and the relu as two nodes.
func.func @main(%x: tensor<1x1x28x28xf32> {plumb.name = "x"}) -> (tensor<1x8x28x28xf32> {plumb.name = "c"}, tensor<1x8x28x28xf32> {plumb.name = "y"}) {
  %w = plumb.constant dense<0.5> : tensor<8x1x5x5xf32>
  %b = plumb.constant dense<0.25> : tensor<8xf32>
  %c = plumb.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x28x28xf32>, tensor<8x1x5x5xf32>, tensor<8xf32>) -> tensor<1x8x28x28xf32>
  %r = plumb.relu %c : tensor<1x8x28x28xf32>
  return %c, %r : tensor<1x8x28x28xf32>, tensor<1x8x28x28xf32>
}
