module attributes {plumb.contract = "plumb-det-v1", plumb.opset = 16 : i64} {
  func.func @main(%arg0: tensor<1x576xf32> {plumb.name = "input"}, %arg1: tensor<2x1x128xf32> {plumb.name = "state"}, %arg2: tensor<i64> {plumb.bound_value = dense<16000> : tensor<i64>, plumb.name = "sr"}) -> (tensor<1x1xf32> {plumb.name = "output"}, tensor<2x1x128xf32> {plumb.name = "stateN"}) {
    %0 = plumb.constant dense_resource<c_04fe12fc749c1e80> : tensor<64xf32>
    %1 = plumb.constant dense_resource<c_1bcbd98c3bdd8f09> : tensor<128xf32>
    %2 = plumb.constant dense_resource<c_3622b94e810dcfbd> : tensor<1x128x1xf32>
    %3 = plumb.constant dense_resource<c_4931685f3b70e4e4> : tensor<128xf32>
    %4 = plumb.constant dense_resource<c_5e472f98abc1543b> : tensor<128x64x3xf32>
    %5 = plumb.constant dense<1> : tensor<i64>
    %6 = plumb.constant dense<0> : tensor<i64>
    %7 = plumb.constant dense_resource<c_8ae50956c688f273> : tensor<258x1x256xf32>
    %8 = plumb.constant dense<-0.624597728> : tensor<1xf32>
    %9 = plumb.constant dense_resource<c_8ed8f50f1b1a465e> : tensor<64xf32>
    %10 = plumb.constant dense_resource<c_91b50fc019b9bea4> : tensor<64x64x3xf32>
    %11 = plumb.constant dense_resource<c_a3a65396d5769521> : tensor<64x128x3xf32>
    %12 = plumb.constant dense_resource<c_a723798da0f69ccc> : tensor<1x512x128xf32>
    %13 = plumb.constant dense_resource<c_a8ebf4a30b1abde8> : tensor<1x512x128xf32>
    %14 = plumb.constant dense_resource<c_ac746703f9d70cb0> : tensor<1x1024xf32>
    %15 = plumb.constant dense_resource<c_ae7e3760db67753c> : tensor<128x129x3xf32>
    %16 = plumb.constant dense<2.000000e+00> : tensor<f32>
    %17 = plumb.pad %arg0 {mode = "reflect", pads = array<i64: 0, 0, 0, 64>, value = 0.000000e+00 : f32} : tensor<1x576xf32> -> tensor<1x640xf32>
    %18 = plumb.gather %arg1, %6 {axis = 0 : i64} : (tensor<2x1x128xf32>, tensor<i64>) -> tensor<1x128xf32>
    %19 = plumb.reshape %18 : tensor<1x128xf32> -> tensor<1x1x128xf32>
    %20 = plumb.gather %arg1, %5 {axis = 0 : i64} : (tensor<2x1x128xf32>, tensor<i64>) -> tensor<1x128xf32>
    %21 = plumb.reshape %20 : tensor<1x128xf32> -> tensor<1x1x128xf32>
    %22 = plumb.reshape %17 : tensor<1x640xf32> -> tensor<1x1x640xf32>
    %23 = plumb.conv %22, %7 {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 128>, tree = #plumb.tree<blocked 256>} : (tensor<1x1x640xf32>, tensor<258x1x256xf32>) -> tensor<1x258x4xf32>
    %24 = plumb.slice %23 {starts = array<i64: 0, 129, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x258x4xf32> -> tensor<1x129x4xf32>
    %25 = plumb.slice %23 {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x258x4xf32> -> tensor<1x129x4xf32>
    %26 = plumb.pow %24, %16 : (tensor<1x129x4xf32>, tensor<f32>) -> tensor<1x129x4xf32>
    %27 = plumb.fused -> tensor<1x129x4xf32> {
      %40 = plumb.pow %25, %16 : (tensor<1x129x4xf32>, tensor<f32>) -> tensor<1x129x4xf32>
      %41 = plumb.add %40, %26 : (tensor<1x129x4xf32>, tensor<1x129x4xf32>) -> tensor<1x129x4xf32>
      %42 = plumb.sqrt %41 : tensor<1x129x4xf32>
      plumb.yield %42 : tensor<1x129x4xf32>
    }
    %28 = plumb.fused -> tensor<1x128x4xf32> {
      %40 = plumb.conv %27, %15, %3 {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 1>, tree = #plumb.tree<blocked 256>} : (tensor<1x129x4xf32>, tensor<128x129x3xf32>, tensor<128xf32>) -> tensor<1x128x4xf32>
      %41 = plumb.relu %40 : tensor<1x128x4xf32>
      plumb.yield %41 : tensor<1x128x4xf32>
    }
    %29 = plumb.fused -> tensor<1x64x2xf32> {
      %40 = plumb.conv %28, %11, %0 {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 2>, tree = #plumb.tree<blocked 256>} : (tensor<1x128x4xf32>, tensor<64x128x3xf32>, tensor<64xf32>) -> tensor<1x64x2xf32>
      %41 = plumb.relu %40 : tensor<1x64x2xf32>
      plumb.yield %41 : tensor<1x64x2xf32>
    }
    %30 = plumb.fused -> tensor<1x64x1xf32> {
      %40 = plumb.conv %29, %10, %9 {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 2>, tree = #plumb.tree<blocked 256>} : (tensor<1x64x2xf32>, tensor<64x64x3xf32>, tensor<64xf32>) -> tensor<1x64x1xf32>
      %41 = plumb.relu %40 : tensor<1x64x1xf32>
      plumb.yield %41 : tensor<1x64x1xf32>
    }
    %31 = plumb.fused -> tensor<1x128x1xf32> {
      %40 = plumb.conv %30, %4, %1 {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 1>, tree = #plumb.tree<blocked 256>} : (tensor<1x64x1xf32>, tensor<128x64x3xf32>, tensor<128xf32>) -> tensor<1x128x1xf32>
      %41 = plumb.relu %40 : tensor<1x128x1xf32>
      plumb.yield %41 : tensor<1x128x1xf32>
    }
    %32 = plumb.reshape %31 : tensor<1x128x1xf32> -> tensor<1x1x128xf32>
    %y, %y_h, %y_c = plumb.lstm %32, %13, %12 bias %14 initial_h %19 initial_c %21 {direction = "forward", hidden_size = 128 : i64, input_forget = false, tree = #plumb.tree<blocked 256>} : (tensor<1x1x128xf32>, tensor<1x512x128xf32>, tensor<1x512x128xf32>, tensor<1x1024xf32>, tensor<1x1x128xf32>, tensor<1x1x128xf32>) -> (tensor<1x1x1x128xf32>, tensor<1x1x128xf32>, tensor<1x1x128xf32>)
    %33 = plumb.concat %y_h, %y_c {axis = 0 : i64} : (tensor<1x1x128xf32>, tensor<1x1x128xf32>) -> tensor<2x1x128xf32>
    %34 = plumb.reshape %y_h : tensor<1x1x128xf32> -> tensor<1x128x1xf32>
    %35 = plumb.relu %34 : tensor<1x128x1xf32>
    %36 = plumb.fused -> tensor<1x1x1xf32> {
      %40 = plumb.conv %35, %2, %8 {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>, tree = #plumb.tree<blocked 256>} : (tensor<1x128x1xf32>, tensor<1x128x1xf32>, tensor<1xf32>) -> tensor<1x1x1xf32>
      %41 = plumb.sigmoid %40 : tensor<1x1x1xf32>
      plumb.yield %41 : tensor<1x1x1xf32>
    }
    %37 = plumb.reshape %36 : tensor<1x1x1xf32> -> tensor<1x1xf32>
    %38 = plumb.reduce_mean %37 {axes = array<i64: 1>, keepdims = false, tree = #plumb.tree<blocked 256>} : tensor<1x1xf32> -> tensor<1xf32>
    %39 = plumb.reshape %38 : tensor<1xf32> -> tensor<1x1xf32>
    return %39, %33 : tensor<1x1xf32>, tensor<2x1x128xf32>
  }
}

