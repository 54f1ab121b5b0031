module attributes {plumb.contract = "plumb-det-v1", plumb.opset = 8 : i64} {
  func.func @main(%arg0: tensor<1x1x28x28xf32> {plumb.name = "Input3"}) -> (tensor<1x10xf32> {plumb.name = "Plus214_Output_0"}) {
    %0 = plumb.constant dense<[[[-0.0822488219]], [[-0.108868778]], [[-0.141039595]], [[-0.204869166]], [[-0.17913565]], [[-0.215438381]], [[-0.133805066]], [[-0.195724562]], [[-0.268250644]], [[-0.258212209]], [[-0.0761560649]], [[0.0132841459]], [[-0.00444464432]], [[-0.414740831]], [[-0.17879115]], [[-0.0386558883]]]> : tensor<16x1x1xf32>
    %1 = plumb.constant dense<[[[-0.161539719]], [[-0.433835655]], [[0.091641359]], [[-0.0168522168]], [[-0.0650264397]], [[-0.131737873]], [[0.0204175506]], [[-0.121110231]]]> : tensor<8x1x1xf32>
    %2 = plumb.constant dense_resource<c_d3f7b7da3409bc3d> : tensor<8x1x5x5xf32>
    %3 = plumb.constant dense_resource<c_dfce63950e93f1b2> : tensor<16x8x5x5xf32>
    %4 = plumb.constant dense<[[-0.0448560268, 0.00779166119, 0.0681008175, 0.0299937408, -0.126409635, 0.14021875, -0.0552849025, -0.0493838154, 0.0843220502, -0.0545404144]]> : tensor<1x10xf32>
    %5 = plumb.constant dense_resource<c_f5ed46fd356b93d3> : tensor<256x10xf32>
    %6 = plumb.fused -> tensor<1x8x28x28xf32> {
      %10 = plumb.conv %arg0, %2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>, tree = #plumb.tree<blocked 256>} : (tensor<1x1x28x28xf32>, tensor<8x1x5x5xf32>) -> tensor<1x8x28x28xf32>
      %11 = plumb.add %10, %1 : (tensor<1x8x28x28xf32>, tensor<8x1x1xf32>) -> tensor<1x8x28x28xf32>
      %12 = plumb.relu %11 : tensor<1x8x28x28xf32>
      plumb.yield %12 : tensor<1x8x28x28xf32>
    }
    %output = plumb.max_pool %6 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x8x28x28xf32> -> tensor<1x8x14x14xf32>
    %7 = plumb.fused -> tensor<1x16x14x14xf32> {
      %10 = plumb.conv %output, %3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>, tree = #plumb.tree<blocked 256>} : (tensor<1x8x14x14xf32>, tensor<16x8x5x5xf32>) -> tensor<1x16x14x14xf32>
      %11 = plumb.add %10, %0 : (tensor<1x16x14x14xf32>, tensor<16x1x1xf32>) -> tensor<1x16x14x14xf32>
      %12 = plumb.relu %11 : tensor<1x16x14x14xf32>
      plumb.yield %12 : tensor<1x16x14x14xf32>
    }
    %output_0 = plumb.max_pool %7 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>} : tensor<1x16x14x14xf32> -> tensor<1x16x4x4xf32>
    %8 = plumb.reshape %output_0 : tensor<1x16x4x4xf32> -> tensor<1x256xf32>
    %9 = plumb.fused -> tensor<1x10xf32> {
      %10 = plumb.matmul %8, %5 {tree = #plumb.tree<blocked 256>} : (tensor<1x256xf32>, tensor<256x10xf32>) -> tensor<1x10xf32>
      %11 = plumb.add %10, %4 : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
      plumb.yield %11 : tensor<1x10xf32>
    }
    return %9 : tensor<1x10xf32>
  }
}

