// RUN: %plumb-opt %s -split-input-file -verify-diagnostics
// One case per verifier error path of the plumb ops (PlumbOps.cpp and the
// shape functions of PlumbShapes.cpp they call) and of the tree attribute's
// parser. (TreeAttr::verify's negative block size cannot be written: the
// parser only produces 0 or a block >= 1.)

func.func @gelu_approximate(%x: tensor<2xf32>) {
  // expected-error @+1 {{approximate must be "none" or "tanh", got "erf"}}
  %0 = plumb.gelu %x {approximate = "erf"} : tensor<2xf32>
  return
}

// -----

func.func @hard_swish_integer(%x: tensor<2xi64>) {
  // expected-error @+1 {{must be statically shaped tensor of 32-bit float values}}
  %0 = plumb.hard_swish %x : tensor<2xi64>
  return
}

// -----

func.func @gather_nd_batch_dims(%d: tensor<2x3x4xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+2 {{gather_nd: batch dimension 0 differs: data 2x3x4, indices 3x1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = plumb.gather_nd %d, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_nd_result(%d: tensor<2x3x4xf32>, %i: tensor<5x2xi64>) {
  // expected-error @+2 {{'plumb.gather_nd' op inferred type(s) 'tensor<5x4xf32>' are incompatible with return type(s) of operation 'tensor<5x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = plumb.gather_nd %d, %i : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @binary_result_shape(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'plumb.add' op result shape 3x3 differs from the inferred shape 2x3}}
  %0 = plumb.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @binary_operand_types(%x: tensor<3xf32>, %y: tensor<3xi64>) {
  // expected-error @+1 {{operand element types differ: 'f32' vs 'i64'}}
  %0 = plumb.sub %x, %y : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @pow_mixed_int_types(%x: tensor<3xi32>, %y: tensor<3xi64>) {
  // expected-error @+1 {{operand element types differ: 'i32' vs 'i64'}}
  %0 = plumb.pow %x, %y : (tensor<3xi32>, tensor<3xi64>) -> tensor<3xi32>
  return
}

// -----

func.func @pow_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{must be statically shaped tensor of 32-bit float or 64-bit signless integer or 32-bit signless integer values}}
  %0 = plumb.pow %x, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @pow_result_type(%x: tensor<3xi32>) {
  // expected-error @+1 {{result element type 'i64' differs from operand element type 'i32'}}
  %0 = plumb.pow %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi64>
  return
}

// -----

func.func @binary_result_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{result element type 'i64' differs from operand element type 'f32'}}
  %0 = plumb.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi64>
  return
}

// -----

func.func @binary_not_broadcastable(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{shapes 2x3, 4 are not broadcast-compatible}}
  %0 = plumb.div %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @variadic_empty() {
  // expected-error @+1 {{needs at least one operand}}
  %0 = plumb.sum : () -> tensor<3xf32>
  return
}

// -----

func.func @variadic_types(%x: tensor<3xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{operand and result element types differ: 'i64' vs 'f32'}}
  %0 = plumb.max %x, %i : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @variadic_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{result shape 4 differs from the inferred shape 3}}
  %0 = plumb.min %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_branch_types(%c: tensor<3xi1>, %x: tensor<3xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{x and y element types differ: 'f32' vs 'i64'}}
  %0 = plumb.where %c, %x, %i : (tensor<3xi1>, tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @where_result_type(%c: tensor<3xi1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{x and result element types differ: 'f32' vs 'i64'}}
  %0 = plumb.where %c, %x, %x : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xi64>
  return
}

// -----

func.func @cast_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{cast changes the shape from 3 to 1x3}}
  %0 = plumb.cast %x : tensor<3xf32> -> tensor<1x3xi64>
  return
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = plumb.relu %x : tensor<?xf32>
  return
}

// -----

func.func @matmul_scalar(%x: tensor<f32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{matmul operands must have rank >= 1, got scalar and 3}}
  %0 = plumb.matmul %x, %y : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @matmul_integer_contraction(%x: tensor<2x3xi32>, %y: tensor<4x5xi32>) {
  // expected-error @+1 {{matmul contraction dimensions differ: 2x3 and 4x5 (3 vs 4)}}
  %0 = plumb.matmul_integer %x, %y : (tensor<2x3xi32>, tensor<4x5xi32>) -> tensor<2x5xi32>
  return
}

// -----

func.func @matmul_integer_float(%x: tensor<2x3xf32>, %y: tensor<3x5xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit signless integer values}}
  %0 = plumb.matmul_integer %x, %y : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_contraction(%x: tensor<2x3xf32>, %y: tensor<4x5xf32>) {
  // expected-error @+1 {{matmul contraction dimensions differ: 2x3 and 4x5 (3 vs 4)}}
  %0 = plumb.matmul %x, %y : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_batch(%x: tensor<2x2x3xf32>, %y: tensor<3x3x5xf32>) {
  // expected-error @+1 {{shapes 2, 3 are not broadcast-compatible}}
  %0 = plumb.matmul %x, %y : (tensor<2x2x3xf32>, tensor<3x3x5xf32>) -> tensor<2x2x5xf32>
  return
}

// -----

func.func @matmul_result(%x: tensor<2x3xf32>, %y: tensor<3x5xf32>) {
  // expected-error @+1 {{result shape 2x4 differs from the inferred shape 2x5}}
  %0 = plumb.matmul %x, %y : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{gemm operands must be 2-D, got 2x3x4 and 4x5}}
  %0 = plumb.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @gemm_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{gemm contraction dimensions differ: A' is 2x3, B' is 5x4}}
  %0 = plumb.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_c(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{gemm C of shape 3 does not broadcast to 2x4}}
  %0 = plumb.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @conv_rank(%x: tensor<2x5xf32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{conv input must have rank >= 3 (N, C, spatial...), got 2x5}}
  %0 = plumb.conv %x, %w {dilations = array<i64>, group = 1 : i64, pads = array<i64>, strides = array<i64>} : (tensor<2x5xf32>, tensor<4x2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+1 {{conv weight rank 3 differs from input rank 4}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_strides_count(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{expected 2 strides, got 1}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_pads_count(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{expected 4 pads, got 2}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_dilations_count(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{expected 2 dilations, got 3}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_strides_positive(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{strides must be >= 1}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_dilations_positive(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{dilations must be >= 1}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 0>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_pads_non_negative(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{pads must be >= 0}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, -1, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_group(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{group 3 must divide input channels 2 and output channels 4}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 3 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_weight_channels(%x: tensor<1x2x5x5xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{conv weight expects 1 x 1 input channels, input has 2}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{conv bias must have shape 4, got 3}}
  %0 = plumb.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_window(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x7x7xf32>) {
  // expected-error @+1 {{window of size 7 (dilation 1) does not fit input size 5 with pads 0+0}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x7x7xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @conv_result(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{result shape 1x4x4x4 differs from the inferred shape 1x4x3x3}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @conv_window_overflow(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{window arithmetic overflows}}
  %0 = plumb.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 9223372036854775807, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_rank(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3xf32>) {
  // expected-error @+1 {{conv_transpose needs input and weight of equal rank >= 3, got 1x2x3x3 and 2x3x3}}
  %0 = plumb.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_count(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{expected 2 output_padding values}}
  %0 = plumb.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x2x3x3xf32>, %w: tensor<3x3x3x3xf32>) {
  // expected-error @+1 {{conv_transpose weight has 3 input channels, input has 2 (group 1)}}
  %0 = plumb.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{conv_transpose bias must have shape 3}}
  %0 = plumb.conv_transpose %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<4xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_range(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{output_padding must be in [0, max(stride, dilation))}}
  %0 = plumb.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 2, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_empty_output(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{conv_transpose output dimension 0 would be -3}}
  %0 = plumb.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 5, 0, 5, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_result(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{result shape 1x3x8x8 differs from the inferred shape 1x3x7x7}}
  %0 = plumb.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{pooling input must have rank >= 3, got 2x5}}
  %0 = plumb.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @pool_kernel_count(%x: tensor<1x2x5x5xf32>) {
  // expected-error @+1 {{expected 2 kernel_shape values, got 1}}
  %0 = plumb.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_kernel_positive(%x: tensor<1x2x5x5xf32>) {
  // expected-error @+1 {{kernel_shape values must be >= 1}}
  %0 = plumb.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 0, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_pads_kernel(%x: tensor<1x2x5x5xf32>) {
  // expected-error @+1 {{pads must be smaller than the kernel}}
  %0 = plumb.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 2, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_result(%x: tensor<1x2x5x5xf32>) {
  // expected-error @+1 {{result shape 1x2x3x3 differs from the inferred shape 1x2x4x4}}
  %0 = plumb.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  return
}

// -----

func.func @average_pool_result(%x: tensor<1x2x5x5xf32>) {
  // expected-error @+1 {{result shape 1x2x2x2 differs from the inferred shape 1x2x3x3}}
  %0 = plumb.average_pool %x {ceil_mode = true, count_include_pad = false, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x5x5xf32> -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @global_average_pool_rank(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{global pooling input must have rank >= 3, got 2x5}}
  %0 = plumb.global_average_pool %x : tensor<2x5xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @global_max_pool_result(%x: tensor<1x2x5x5xf32>) {
  // expected-error @+1 {{result shape 1x2x1 differs from the inferred shape 1x2x1x1}}
  %0 = plumb.global_max_pool %x : tensor<1x2x5x5xf32> -> tensor<1x2x1xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{input must have rank >= 2, got 4}}
  %0 = plumb.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<1x2x3xf32>, %s: tensor<2xf32>, %t: tensor<3xf32>) {
  // expected-error @+1 {{per-channel operands must have shape 2, got 3}}
  %0 = plumb.batch_norm %x, %s, %s, %t, %s {epsilon = 1.0e-05 : f32} : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  return
}

// -----

func.func @batch_norm_result(%x: tensor<1x2x3xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{result shape differs from input shape}}
  %0 = plumb.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32} : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %0 = plumb.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x3xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{scale of shape 2 does not broadcast to 3}}
  %0 = plumb.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_bias(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{bias of shape 2x3 does not broadcast to 3}}
  %0 = plumb.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'plumb.softmax' op axis -1 out of range for rank 2}}
  %0 = plumb.softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'plumb.log_softmax' op axis 2 out of range for rank 2}}
  %0 = plumb.log_softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_types(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input and result element types differ: 'f32' vs 'i64'}}
  %0 = plumb.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xi64>
  return
}

// -----

func.func @reduce_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reduction axis 2 out of range for rank 2}}
  %0 = plumb.reduce_mean %x {axes = array<i64: 2>, keepdims = true} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_axes_sorted(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reduction axes must be sorted and unique}}
  %0 = plumb.reduce_max %x {axes = array<i64: 1, 0>, keepdims = false} : tensor<2x3xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_result(%x: tensor<2x3xi64>) {
  // expected-error @+1 {{result shape 2x1 differs from the inferred shape 2}}
  %0 = plumb.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xi64> -> tensor<2x1xi64>
  return
}

// -----

func.func @reduce_min_result(%x: tensor<2x3xi64>) {
  // expected-error @+1 {{result shape 1x3 differs from the inferred shape 3}}
  %0 = plumb.reduce_min %x {axes = array<i64: 0>, keepdims = false} : tensor<2x3xi64> -> tensor<1x3xi64>
  return
}

// -----

func.func @arg_max_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %0 = plumb.arg_max %x {axis = 2 : i64, keepdims = false, select_last_index = false} : tensor<2x3xf32> -> tensor<2xi64>
  return
}

// -----

func.func @arg_max_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result shape 2 differs from the inferred shape 2x1}}
  %0 = plumb.arg_max %x {axis = 1 : i64, keepdims = true, select_last_index = false} : tensor<2x3xf32> -> tensor<2xi64>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reshape from 2x3 (6 elements) to 4 (4 elements)}}
  %0 = plumb.reshape %x : tensor<2x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reshape_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input and result element types differ: 'f32' vs 'i32'}}
  %0 = plumb.reshape %x : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @reshape_too_large(%x: tensor<1048576x1048576xf32>) {
  // expected-error @+1 {{shape 1048576x1048576x2 has more than 2^40 elements}}
  %0 = plumb.reshape %x : tensor<1048576x1048576xf32> -> tensor<1048576x1048576x2xf32>
  return
}

// -----

func.func @transpose_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm has 3 entries for rank 2}}
  %0 = plumb.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm is not a permutation of 0..1}}
  %0 = plumb.transpose %x {perm = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input and result element types differ: 'f32' vs 'i64'}}
  %0 = plumb.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xi64>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+1 {{concat needs at least one input}}
  %0 = plumb.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{concat axis 2 out of range for rank 2}}
  %0 = plumb.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_ranks(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{concat inputs have different ranks}}
  %0 = plumb.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_dims(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{concat inputs differ in dimension 1: 2x3 vs 2x4}}
  %0 = plumb.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_types(%x: tensor<2x3xf32>, %y: tensor<2x3xi64>) {
  // expected-error @+1 {{input and result element types differ: 'i64' vs 'f32'}}
  %0 = plumb.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @split_axis(%x: tensor<6xf32>) {
  // expected-error @+1 {{axis 1 out of range for rank 1}}
  %0:2 = plumb.split %x {axis = 1 : i64, sizes = array<i64: 3, 3>} : tensor<6xf32> -> tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @split_count(%x: tensor<6xf32>) {
  // expected-error @+1 {{has 3 sizes but 2 results}}
  %0:2 = plumb.split %x {axis = 0 : i64, sizes = array<i64: 2, 2, 2>} : tensor<6xf32> -> tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @split_negative(%x: tensor<6xf32>) {
  // expected-error @+1 {{split sizes must be >= 0}}
  %0:2 = plumb.split %x {axis = 0 : i64, sizes = array<i64: -1, 7>} : tensor<6xf32> -> tensor<1xf32>, tensor<7xf32>
  return
}

// -----

func.func @split_result(%x: tensor<6xf32>) {
  // expected-error @+1 {{result shape 3 differs from the inferred shape 2}}
  %0:2 = plumb.split %x {axis = 0 : i64, sizes = array<i64: 2, 4>} : tensor<6xf32> -> tensor<3xf32>, tensor<4xf32>
  return
}

// -----

func.func @split_type(%x: tensor<6xf32>) {
  // expected-error @+1 {{input and result element types differ: 'f32' vs 'i64'}}
  %0:2 = plumb.split %x {axis = 0 : i64, sizes = array<i64: 2, 4>} : tensor<6xf32> -> tensor<2xi64>, tensor<4xf32>
  return
}

// -----

func.func @split_total(%x: tensor<6xf32>) {
  // expected-error @+1 {{split sizes add up to 5, dimension 0 has 6}}
  %0:2 = plumb.split %x {axis = 0 : i64, sizes = array<i64: 2, 3>} : tensor<6xf32> -> tensor<2xf32>, tensor<3xf32>
  return
}

// -----

func.func @slice_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{slice needs one start and step per dimension (rank 2)}}
  %0 = plumb.slice %x {starts = array<i64: 0>, steps = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{slice step of dimension 1 is 0}}
  %0 = plumb.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{slice of dimension 1 (start 4, step 2, count 3) leaves the input size 8}}
  %0 = plumb.slice %x {starts = array<i64: 0, 4>, steps = array<i64: 1, 2>} : tensor<4x8xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{input and result element types differ: 'f32' vs 'i32'}}
  %0 = plumb.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x8xi32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{gather axis 2 out of range for rank 2}}
  %0 = plumb.gather %x, %i {axis = 2 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{result shape 4x2 differs from the inferred shape 2x8}}
  %0 = plumb.gather %x, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_type(%x: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{data and result element types differ: 'f32' vs 'i64'}}
  %0 = plumb.gather %x, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xi64>
  return
}

// -----

func.func @expand_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot broadcast 2x3 to 4x3}}
  %0 = plumb.expand %x : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @expand_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input and result element types differ: 'f32' vs 'i64'}}
  %0 = plumb.expand %x : tensor<2x3xf32> -> tensor<2x2x3xi64>
  return
}

// -----

func.func @pad_mode(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{mode must be constant, reflect or edge, got "wrap"}}
  %0 = plumb.pad %x {mode = "wrap", pads = array<i64: 0, 1, 0, 1>, value = 0.0 : f32} : tensor<2x3xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{pad value type 'i64' differs from element type 'f32'}}
  %0 = plumb.pad %x {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0 : i64} : tensor<2x3xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @pad_empty_edge(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{edge padding of an empty dimension}}
  %0 = plumb.pad %x {mode = "edge", pads = array<i64: 0, 1, 0, 1>, value = 0.0 : f32} : tensor<2x0xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_reflect(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reflect pads of dimension 1 must be smaller than its size 3}}
  %0 = plumb.pad %x {mode = "reflect", pads = array<i64: 0, 3, 0, 0>, value = 0.0 : f32} : tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected 4 pads, got 2}}
  %0 = plumb.pad %x {mode = "constant", pads = array<i64: 1, 1>, value = 0.0 : f32} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{pads must be >= 0}}
  %0 = plumb.pad %x {mode = "constant", pads = array<i64: 0, -1, 0, 0>, value = 0.0 : f32} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result shape 2x6 differs from the inferred shape 2x5}}
  %0 = plumb.pad %x {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0.0 : f32} : tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @tile_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected 2 repeats, got 1}}
  %0 = plumb.tile %x {repeats = array<i64: 2>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @tile_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{repeats must be >= 0}}
  %0 = plumb.tile %x {repeats = array<i64: -1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_overflow(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{tiled size overflows}}
  %0 = plumb.tile %x {repeats = array<i64: 9223372036854775807, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{resize changes the rank}}
  %0 = plumb.resize %x {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x1x2x2xf32> -> tensor<1x4x4xf32>
  return
}

// -----

func.func @resize_scales_count(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{expected 4 scales, got 2}}
  %0 = plumb.resize %x {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor", scales = array<f32: 2.0, 2.0>} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_scales_positive(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{scales must be positive}}
  %0 = plumb.resize %x {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 0.0, 2.0>} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_mode(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{mode must be nearest, linear or cubic, got "bicubic"}}
  %0 = plumb.resize %x {coordinate_transformation_mode = "asymmetric", mode = "bicubic", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_cubic_attrs(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{cubic resize needs cubic_coeff_a and exclude_outside}}
  %0 = plumb.resize %x {coordinate_transformation_mode = "asymmetric", mode = "cubic", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_cubic_attrs_on_linear(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{cubic_coeff_a and exclude_outside are only for mode cubic}}
  %0 = plumb.resize %x {coordinate_transformation_mode = "asymmetric", cubic_coeff_a = -0.75 : f32, exclude_outside = false, mode = "linear", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_ctm(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{unsupported coordinate_transformation_mode "tf_crop_and_resize"}}
  %0 = plumb.resize %x {coordinate_transformation_mode = "tf_crop_and_resize", mode = "nearest", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_nearest_mode(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{unsupported nearest_mode "round"}}
  %0 = plumb.resize %x {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "round", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @rnn_direction(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) {
  // expected-error @+1 {{direction must be forward, reverse or bidirectional, got "both"}}
  %0:3 = plumb.lstm %x, %w, %r {direction = "both", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_x_rank(%x: tensor<5x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) {
  // expected-error @+1 {{recurrent input X must be [seq, batch, input], got 5x3}}
  %0:3 = plumb.lstm %x, %w, %r {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_hidden_size(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) {
  // expected-error @+1 {{hidden_size must be >= 1}}
  %0:3 = plumb.lstm %x, %w, %r {direction = "forward", hidden_size = 0 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_w(%x: tensor<5x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x16x4xf32>) {
  // expected-error @+1 {{W must be 1x16x3, got 1x12x3}}
  %0:3 = plumb.lstm %x, %w, %r {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_r(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<2x16x4xf32>) {
  // expected-error @+1 {{R must be 1x16x4, got 2x16x4}}
  %0:3 = plumb.lstm %x, %w, %r {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<2x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_b(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{B must have shape 1x32, got 1x16}}
  %0:3 = plumb.lstm %x, %w, %r bias %b {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x16xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_initial_h(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>, %h: tensor<1x3x4xf32>) {
  // expected-error @+1 {{initial_h must have shape 1x2x4}}
  %0:3 = plumb.lstm %x, %w, %r initial_h %h {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x3x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @lstm_initial_c(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>, %h: tensor<2x2x4xf32>) {
  // expected-error @+1 {{initial_c must have shape 1x2x4}}
  %0:3 = plumb.lstm %x, %w, %r initial_c %h {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<2x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @lstm_peephole(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>, %p: tensor<1x16xf32>) {
  // expected-error @+1 {{P must have shape 1x12}}
  %0:3 = plumb.lstm %x, %w, %r peephole %p {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x16xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_y(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) {
  // expected-error @+1 {{result shape 5x2x4 differs from the inferred shape 5x1x2x4}}
  %0:3 = plumb.lstm %x, %w, %r {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @lstm_y_c(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) {
  // expected-error @+1 {{result shape 2x4 differs from the inferred shape 1x2x4}}
  %0:3 = plumb.lstm %x, %w, %r {direction = "forward", hidden_size = 4 : i64, input_forget = false} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @gru_y_h(%x: tensor<5x2x3xf32>, %w: tensor<2x12x3xf32>, %r: tensor<2x12x4xf32>) {
  // expected-error @+1 {{result shape 1x2x4 differs from the inferred shape 2x2x4}}
  %0:2 = plumb.gru %x, %w, %r {direction = "bidirectional", hidden_size = 4 : i64, linear_before_reset = false} : (tensor<5x2x3xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @if_condition(%c: tensor<2xi1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{condition must hold one element, got shape 2}}
  %0 = plumb.if %c : tensor<2xi1> -> tensor<2xf32> {
    plumb.yield %x : tensor<2xf32>
  } else {
    plumb.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @if_yield_types(%c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{branch yields types that differ from the results}}
  %0 = plumb.if %c : tensor<i1> -> tensor<2xf32> {
    plumb.yield %x : tensor<2xf32>
  } else {
    plumb.yield %y : tensor<3xf32>
  }
  return
}

// -----

func.func @if_terminator(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{region must end with plumb.yield}}
  %0 = plumb.if %c : tensor<i1> -> tensor<2xf32> {
    %1 = plumb.relu %x : tensor<2xf32>
  } else {
    plumb.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @yield_outside_if(%x: tensor<2xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'plumb.if, plumb.fused'}}
  plumb.yield %x : tensor<2xf32>
}

// -----

func.func @tree_keyword(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>) {
  // expected-error @+1 {{expected 'seq' or 'blocked <N>'}}
  %0 = plumb.matmul %x, %y {tree = #plumb.tree<pairwise>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @tree_block(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>) {
  // expected-error @+1 {{blocked tree needs a block size >= 1}}
  %0 = plumb.matmul %x, %y {tree = #plumb.tree<blocked 0>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @tree_block_missing(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>) {
  // expected-error @+1 {{expected integer value}}
  %0 = plumb.matmul %x, %y {tree = #plumb.tree<blocked>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @fused_single_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{body must hold a chain of at least two ops, it holds 1}}
  %r = plumb.fused -> tensor<2xf32> {
    %a = plumb.relu %x : tensor<2xf32>
    plumb.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @fused_wrong_yield_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{body must yield one value of the result type 'tensor<2xf32>'}}
  %r = plumb.fused -> tensor<2xf32> {
    %a = plumb.relu %x : tensor<2xf32>
    %b = plumb.reshape %a : tensor<2xf32> -> tensor<1x2xf32>
    plumb.yield %b : tensor<1x2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @fused_bad_head(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{cannot start a chain with 'plumb.reshape'}}
  %r = plumb.fused -> tensor<2x2xf32> {
    %a = plumb.reshape %x : tensor<4xf32> -> tensor<2x2xf32>
    %b = plumb.relu %a : tensor<2x2xf32>
    plumb.yield %b : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

func.func @fused_reduction_in_tail(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{op 1 of the chain, 'plumb.matmul', is not a fusible float32 elementwise op}}
  %r = plumb.fused -> tensor<2x2xf32> {
    %a = plumb.relu %x : tensor<2x2xf32>
    %b = plumb.matmul %a, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    plumb.yield %b : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

func.func @fused_broadcast_chain_value(%x: tensor<2xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{op 1 of the chain, 'plumb.add', must take the previous op's value as one operand of its result's shape}}
  %r = plumb.fused -> tensor<3x2xf32> {
    %a = plumb.relu %x : tensor<2xf32>
    %b = plumb.add %a, %y : (tensor<2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    plumb.yield %b : tensor<3x2xf32>
  }
  return %r : tensor<3x2xf32>
}

// -----

func.func @fused_not_a_chain(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{op 1 of the chain, 'plumb.neg', must take the previous op's value as one operand of its result's shape}}
  %r = plumb.fused -> tensor<2xf32> {
    %a = plumb.relu %x : tensor<2xf32>
    %b = plumb.neg %x : tensor<2xf32>
    plumb.yield %b : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @fused_value_used_twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the value of op 0 of the chain must have exactly one use}}
  %r = plumb.fused -> tensor<2xf32> {
    %a = plumb.relu %x : tensor<2xf32>
    %b = plumb.neg %a : tensor<2xf32>
    %c = plumb.add %b, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    plumb.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @fused_integer(%x: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{cannot start a chain with 'plumb.neg' (a float32 conv, matmul, gemm or elementwise op is needed)}}
  %r = plumb.fused -> tensor<2xi64> {
    %a = plumb.neg %x : tensor<2xi64>
    %b = plumb.abs %a : tensor<2xi64>
    plumb.yield %b : tensor<2xi64>
  }
  return %r : tensor<2xi64>
}

// -----

func.func @fused_no_yield(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{body must end with plumb.yield}}
  %r = "plumb.fused"() ({
    %a = plumb.relu %x : tensor<2xf32>
    %b = plumb.neg %a : tensor<2xf32>
  }) : () -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @layer_norm_two_results(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{has 2 results; expected 1, or 3 (output, mean, inverse standard deviation)}}
  %0:2 = plumb.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_stats_shape(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{mean and inverse standard deviation must have shape 2x1, got 2}}
  %0:3 = plumb.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @max_pool_indices_shape(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{indices must have the output's shape 1x1x2x2}}
  %0:2 = plumb.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>, tensor<1x1x4xi64>
  return
}

// -----

func.func @max_pool_column_major_without_indices(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{column_major_indices needs the indices result of a 2-D pool}}
  %0 = plumb.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, column_major_indices} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @scatter_nd_updates(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{updates must have shape 2x3 (indices[:-1] + data[k:]), got 2x4}}
  %0 = plumb.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_tuple(%d: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{index tuples of length 3 cannot index data of rank 2}}
  %0 = plumb.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_reduction(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{reduction 'sum' is not none, add, mul, max or min}}
  %0 = plumb.scatter_nd %d, %i, %u {reduction = "sum"} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_bool(%d: tensor<4xi1>, %i: tensor<2x1xi64>, %u: tensor<2xi1>) {
  // expected-error @+1 {{bool data takes reduction 'none' only}}
  %0 = plumb.scatter_nd %d, %i, %u {reduction = "max"} : (tensor<4xi1>, tensor<2x1xi64>, tensor<2xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @scatter_nd_types(%d: tensor<4xf32>, %i: tensor<2x1xi64>, %u: tensor<2xi64>) {
  // expected-error @+1 {{data and updates}}
  %0 = plumb.scatter_nd %d, %i, %u : (tensor<4xf32>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @scatter_nd_result(%d: tensor<4xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{result type must be data's type}}
  %0 = plumb.scatter_nd %d, %i, %u : (tensor<4xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @scatter_nd_rank(%d: tensor<f32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{data and indices must have rank >= 1}}
  %0 = plumb.scatter_nd %d, %i, %u : (tensor<f32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<f32>
  return
}

// -----

func.func @top_k_axis(%x: tensor<3x5xf32>) {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %v, %i = plumb.top_k %x {axis = 2 : i64, k = 2 : i64, largest = true} : tensor<3x5xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
  return
}

// -----

func.func @top_k_k(%x: tensor<3x5xf32>) {
  // expected-error @+1 {{k = 6 outside [0, 5] (the axis length)}}
  %v, %i = plumb.top_k %x {axis = 1 : i64, k = 6 : i64, largest = true} : tensor<3x5xf32> -> tensor<3x6xf32>, tensor<3x6xi64>
  return
}

// -----

func.func @top_k_shape(%x: tensor<3x5xf32>) {
  // expected-error @+1 {{result shape 3x3 differs from the inferred shape 3x2}}
  %v, %i = plumb.top_k %x {axis = 1 : i64, k = 2 : i64, largest = false} : tensor<3x5xf32> -> tensor<3x3xf32>, tensor<3x2xi64>
  return
}

// -----

func.func @grid_sample_rank(%x: tensor<2x4x5xf32>, %g: tensor<2x3x2xf32>) {
  // expected-error @+1 {{input must have rank 4 or 5 (N, C, [D,] H, W), got 2x4x5}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<2x4x5xf32>, tensor<2x3x2xf32>) -> tensor<2x4x3xf32>
  return
}

// -----

func.func @grid_sample_grid_rank(%x: tensor<1x2x4x5xf32>, %g: tensor<1x3x2xf32>) {
  // expected-error @+1 {{grid must have rank 4 like the input, got 1x3x2}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<1x2x4x5xf32>, tensor<1x3x2xf32>) -> tensor<1x2x3x2xf32>
  return
}

// -----

func.func @grid_sample_last_dim(%x: tensor<1x2x4x5xf32>, %g: tensor<1x3x6x3xf32>) {
  // expected-error @+1 {{grid's last dimension must be 2 (one coordinate per spatial dimension), got 3}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<1x2x4x5xf32>, tensor<1x3x6x3xf32>) -> tensor<1x2x3x6xf32>
  return
}

// -----

func.func @grid_sample_batch(%x: tensor<1x2x4x5xf32>, %g: tensor<2x3x6x2xf32>) {
  // expected-error @+1 {{grid batch 2 does not match the input batch 1}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<1x2x4x5xf32>, tensor<2x3x6x2xf32>) -> tensor<1x2x3x6xf32>
  return
}

// -----

func.func @grid_sample_result(%x: tensor<1x2x4x5xf32>, %g: tensor<1x3x6x2xf32>) {
  // expected-error @+1 {{result must have shape 1x2x3x6 (N, C, grid's spatial sizes), got 1x2x6x3}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>) -> tensor<1x2x6x3xf32>
  return
}

// -----

func.func @grid_sample_mode(%x: tensor<1x2x4x5xf32>, %g: tensor<1x3x6x2xf32>) {
  // expected-error @+1 {{mode must be linear, nearest or cubic, got "bilinear"}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "bilinear", padding_mode = "zeros"} : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>) -> tensor<1x2x3x6xf32>
  return
}

// -----

func.func @grid_sample_cubic_5d(%x: tensor<1x2x3x4x5xf32>, %g: tensor<1x2x3x4x3xf32>) {
  // expected-error @+1 {{cubic grid_sample needs a 4-D input}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "cubic", padding_mode = "zeros"} : (tensor<1x2x3x4x5xf32>, tensor<1x2x3x4x3xf32>) -> tensor<1x2x2x3x4xf32>
  return
}

// -----

func.func @grid_sample_padding(%x: tensor<1x2x4x5xf32>, %g: tensor<1x3x6x2xf32>) {
  // expected-error @+1 {{padding_mode must be zeros, border or reflection, got "wrap"}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "nearest", padding_mode = "wrap"} : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>) -> tensor<1x2x3x6xf32>
  return
}

// -----

func.func @grid_sample_empty_input(%x: tensor<1x2x0x5xf32>, %g: tensor<1x3x6x2xf32>) {
  // expected-error @+1 {{input spatial dimensions must be non-zero, got 1x2x0x5}}
  %0 = plumb.grid_sample %x, %g {align_corners = false, mode = "nearest", padding_mode = "border"} : (tensor<1x2x0x5xf32>, tensor<1x3x6x2xf32>) -> tensor<1x2x3x6xf32>
  return
}

// -----

func.func @rnn_activation_count(%x: tensor<5x2x3xf32>, %w: tensor<2x4x3xf32>, %r: tensor<2x4x4xf32>) {
  // expected-error @+1 {{needs one activation, activation_alpha and activation_beta per direction (2)}}
  %0:2 = plumb.rnn %x, %w, %r {activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>, activations = ["tanh"], direction = "bidirectional", hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  return
}

// -----

func.func @rnn_activation_name(%x: tensor<5x2x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>) {
  // expected-error @+1 {{activation 'affine' is not one of tanh, sigmoid, relu, leaky_relu, thresholded_relu, hard_sigmoid, elu, softsign, softplus}}
  %0:2 = plumb.rnn %x, %w, %r {activation_alpha = array<f32: 1.0>, activation_beta = array<f32: 0.0>, activations = ["affine"], direction = "forward", hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_w_shape(%x: tensor<5x2x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x4x4xf32>) {
  // expected-error @+1 {{W must be 1x4x3, got 1x8x3}}
  %0:2 = plumb.rnn %x, %w, %r {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["tanh"], direction = "forward", hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x8x3xf32>, tensor<1x4x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @dft_parts(%x: tensor<2x8x3xf32>) {
  // expected-error @+1 {{input must have rank >= 2 and a last dimension of 1 (real) or 2 (complex), got 2x8x3}}
  %0 = plumb.dft %x {axis = 1 : i64, inverse = false, length = 8 : i64, onesided = false} : (tensor<2x8x3xf32>) -> tensor<2x8x2xf32>
  return
}

// -----

func.func @dft_axis(%x: tensor<2x8x1xf32>) {
  // expected-error @+1 {{axis 2 is outside [0, 1] (the last dimension holds the parts)}}
  %0 = plumb.dft %x {axis = 2 : i64, inverse = false, length = 8 : i64, onesided = false} : (tensor<2x8x1xf32>) -> tensor<2x8x2xf32>
  return
}

// -----

func.func @dft_length(%x: tensor<2x8x1xf32>) {
  // expected-error @+1 {{length 0 is outside [1, 16777216]}}
  %0 = plumb.dft %x {axis = 1 : i64, inverse = false, length = 0 : i64, onesided = false} : (tensor<2x8x1xf32>) -> tensor<2x0x2xf32>
  return
}

// -----

func.func @dft_onesided_complex(%x: tensor<2x8x2xf32>) {
  // expected-error @+1 {{onesided needs a real input (last dimension 1)}}
  %0 = plumb.dft %x {axis = 1 : i64, inverse = false, length = 8 : i64, onesided = true} : (tensor<2x8x2xf32>) -> tensor<2x5x2xf32>
  return
}

// -----

func.func @dft_onesided_inverse(%x: tensor<2x8x1xf32>) {
  // expected-error @+1 {{onesided and inverse cannot both be set}}
  %0 = plumb.dft %x {axis = 1 : i64, inverse = true, length = 8 : i64, onesided = true} : (tensor<2x8x1xf32>) -> tensor<2x5x2xf32>
  return
}

// -----

func.func @dft_result(%x: tensor<2x8x1xf32>) {
  // expected-error @+1 {{result must have shape 2x5x2, got 2x8x2}}
  %0 = plumb.dft %x {axis = 1 : i64, inverse = false, length = 8 : i64, onesided = true} : (tensor<2x8x1xf32>) -> tensor<2x8x2xf32>
  return
}

// -----

func.func @stft_signal(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{signal must be (batch, length, 1 or 2), got 2x8}}
  %0 = plumb.stft %x {frame_length = 4 : i64, frame_step = 2 : i64, onesided = false} : (tensor<2x8xf32>) -> tensor<2x3x4x2xf32>
  return
}

// -----

func.func @stft_step(%x: tensor<2x8x1xf32>) {
  // expected-error @+1 {{frame_step must be positive, got 0}}
  %0 = plumb.stft %x {frame_length = 4 : i64, frame_step = 0 : i64, onesided = false} : (tensor<2x8x1xf32>) -> tensor<2x3x4x2xf32>
  return
}

// -----

func.func @stft_frame_length(%x: tensor<2x8x1xf32>) {
  // expected-error @+1 {{frame_length 9 is outside [1, 8]}}
  %0 = plumb.stft %x {frame_length = 9 : i64, frame_step = 2 : i64, onesided = false} : (tensor<2x8x1xf32>) -> tensor<2x1x9x2xf32>
  return
}

// -----

func.func @stft_window(%x: tensor<2x8x1xf32>, %w: tensor<5xf32>) {
  // expected-error @+1 {{window must have shape (4), got 5}}
  %0 = plumb.stft %x, %w {frame_length = 4 : i64, frame_step = 2 : i64, onesided = false} : (tensor<2x8x1xf32>, tensor<5xf32>) -> tensor<2x3x4x2xf32>
  return
}

// -----

func.func @stft_onesided_complex(%x: tensor<2x8x2xf32>) {
  // expected-error @+1 {{onesided needs a real signal (last dimension 1)}}
  %0 = plumb.stft %x {frame_length = 4 : i64, frame_step = 2 : i64, onesided = true} : (tensor<2x8x2xf32>) -> tensor<2x3x3x2xf32>
  return
}

// -----

func.func @stft_result(%x: tensor<2x8x1xf32>) {
  // expected-error @+1 {{result must have shape 2x3x3x2, got 2x3x4x2}}
  %0 = plumb.stft %x {frame_length = 4 : i64, frame_step = 2 : i64, onesided = true} : (tensor<2x8x1xf32>) -> tensor<2x3x4x2xf32>
  return
}
