// RUN: plumb-opt %s -split-input-file -plumb-print-kernel-calls -verify-diagnostics | FileCheck %s
// The kernel-call form of each op family: the calls the interpreter runs and
// the emitters print, with every shape, attribute and tree as an argument.

// CHECK-LABEL: op plumb.relu
// CHECK-NEXT: plumb_rt_unary_f32(PLUMB_RT_RELU, %in0:f32, %out0:f32, 6, 0x00000000, 0x00000000)
// CHECK-LABEL: op plumb.hard_sigmoid
// CHECK-NEXT: plumb_rt_unary_f32(PLUMB_RT_HARD_SIGMOID, %in0:f32, %out0:f32, 6, 0x3E800000, 0x3F400000)
// CHECK-LABEL: op plumb.hard_swish
// CHECK-NEXT: plumb_rt_unary_f32(PLUMB_RT_HARD_SWISH, %in0:f32, %out0:f32, 6, 0x00000000, 0x00000000)
// CHECK-LABEL: op plumb.neg
// CHECK-NEXT: plumb_rt_unary_i64(PLUMB_RT_NEG, %in0:i64, %out0:i64, 4, INT64_MIN, INT64_MAX)
// CHECK-LABEL: op plumb.not
// CHECK-NEXT: plumb_rt_not_bool(%in0:bool, %out0:bool, 4)
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi64>, %b: tensor<4xi1>) {
  %0 = plumb.relu %x : tensor<2x3xf32>
  %1 = plumb.hard_sigmoid %x {alpha = 0.25 : f32, beta = 0.75 : f32} : tensor<2x3xf32>
  %2 = plumb.hard_swish %x : tensor<2x3xf32>
  %3 = plumb.neg %i : tensor<4xi64>
  %4 = plumb.not %b : tensor<4xi1>
  return
}

// -----

// Broadcast shapes and ranks are literals; comparisons write bools; a sum of
// two is the binary kernel, of three the variadic one.
// CHECK-LABEL: op plumb.add
// CHECK-NEXT: plumb_rt_binary_f32(PLUMB_RT_ADD, %in0:f32, [2, 3], 2, %in1:f32, [3], 1, %out0:raw, [2, 3], 2)
// CHECK-LABEL: op plumb.less
// CHECK-NEXT: plumb_rt_binary_i32(PLUMB_RT_LESS, %in0:i32, [2, 1], 2, %in1:i32, [3], 1, %out0:raw, [2, 3], 2)
// CHECK-LABEL: op plumb.sum
// CHECK-NEXT: plumb_rt_binary_f32(PLUMB_RT_ADD, %in0:f32, [2, 3], 2, %in1:f32, [3], 1, %out0:raw, [2, 3], 2)
// CHECK-LABEL: op plumb.max
// CHECK-NEXT: plumb_rt_variadic_f32(PLUMB_RT_MAX, 3, {%in0:f32, %in1:f32, %in2:f32}, {[2, 3], [3], [2, 3]}, [2, 1, 2], %out0:f32, [2, 3], 2)
func.func @broadcast(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<2x1xi32>, %j: tensor<3xi32>) {
  %0 = plumb.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = plumb.less %i, %j : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %2 = plumb.sum %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = plumb.max %x, %y, %x : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// The reduction tree is an argument (the default policy, 256, without one).
// CHECK-LABEL: op plumb.matmul
// CHECK-NEXT: plumb_rt_matmul_f32(%in0:f32, [2, 4, 8], 3, %in1:f32, [8, 5], 2, %out0:f32, 64)
// CHECK-LABEL: op plumb.matmul_integer
// CHECK-NEXT: plumb_rt_matmul_i32(%in0:i32, [2, 4, 8], 3, %in1:i32, [8, 5], 2, %out0:i32)
// CHECK-LABEL: op plumb.gemm
// CHECK-NEXT: plumb_rt_gemm(1, 5, 8, 0x3F800000, %in0:f32, 0, %in1:f32, 1, 0x3F800000, %in2:f32, [5], 1, %out0:f32, 256)
// CHECK-LABEL: op plumb.conv
// CHECK-NEXT: plumb_rt_conv2d(&plumb_conv2d_params{1, 2, 5, 5, 4, 3, 3, 3, 3, 1, 1, 1, 1, 1, 0, 0, 0, 0}, %in0:f32, %in1:f32, null, %out0:f32, 16)
func.func @contractions(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>, %v: tensor<1x8xf32>, %w: tensor<5x8xf32>, %c: tensor<5xf32>, %x: tensor<1x2x5x5xf32>, %k: tensor<4x2x3x3xf32>, %ia: tensor<2x4x8xi32>, %ib: tensor<8x5xi32>) {
  %0 = plumb.matmul %a, %b {tree = #plumb.tree<blocked 64>} : (tensor<2x4x8xf32>, tensor<8x5xf32>) -> tensor<2x4x5xf32>
  %3 = plumb.matmul_integer %ia, %ib : (tensor<2x4x8xi32>, tensor<8x5xi32>) -> tensor<2x4x5xi32>
  %1 = plumb.gemm %v, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<1x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<1x5xf32>
  %2 = plumb.conv %x, %k {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, tree = #plumb.tree<blocked 16>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

// A layer_norm whose scale needs broadcasting expands it into a scratch
// buffer first; one of the normalised shape is read in place.
// CHECK-LABEL: op plumb.layer_norm
// CHECK-NEXT: scratch 0: 32 bytes
// CHECK-NEXT: plumb_rt_expand(%in1:raw, [1], 1, %scratch0:f32, [8], 1, 4)
// CHECK-NEXT: plumb_rt_layernorm_f32(%in0:f32, 4, 8, %scratch0:f32, %in2:f32, 0x3727C5AC, %out0:f32, null, null, 256)
func.func @layer_norm(%x: tensor<1x4x8xf32>, %s: tensor<1xf32>, %b: tensor<8xf32>) {
  %0 = plumb.layer_norm %x, %s, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x4x8xf32>, tensor<1xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  return
}

// -----

// Data movement passes element sizes, not types; gather is range-checked.
// CHECK-LABEL: op plumb.reshape
// CHECK-NEXT: plumb_rt_copy(%in0:raw, %out0:raw, 48)
// CHECK-LABEL: op plumb.gather
// CHECK-NEXT: plumb_rt_gather(%in0:raw, [5, 3], 2, 0, %in1:raw, 0, 2, %out0:raw, 4) range-checked
// CHECK-LABEL: op plumb.gather_nd
// CHECK-NEXT: plumb_rt_gather_nd(%in0:raw, [5, 3], 2, %in1:raw, 0, [2, 1], 2, 0, %out0:raw, 4) range-checked
// CHECK-LABEL: op plumb.pad
// CHECK-NEXT: plumb_rt_pad(%in0:raw, [2, 3], 2, [0, 0, 1, 1], PLUMB_RT_PAD_CONSTANT, &0x000000003F800000, %out0:raw, 4)
func.func @movement(%x: tensor<2x6xi32>, %d: tensor<5x3xf32>, %i: tensor<2xi64>, %j: tensor<2x1xi64>, %p: tensor<2x3xf32>) {
  %0 = plumb.reshape %x : tensor<2x6xi32> -> tensor<12xi32>
  %1 = plumb.gather %d, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %n = plumb.gather_nd %d, %j : (tensor<5x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  %2 = plumb.pad %p {mode = "constant", pads = array<i64: 0, 0, 1, 1>, value = 1.0 : f32} : tensor<2x3xf32> -> tensor<3x4xf32>
  return
}

// -----

// plumb.fused chains lower op by op; an op without a kernel for its types is
// an error at the op.
func.func @unsupported(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{reductions of int32 are not supported by the kernels}}
  %0 = plumb.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xi32> -> tensor<2xi32>
  return
}

// -----

// scatter_nd: one range-checked call with the reduction code and the
// element type (plumb_rt_dtype).
// CHECK-LABEL: op plumb.scatter_nd
// CHECK-NEXT: plumb_rt_scatter_nd(%in0:raw, [4, 3], 2, %in1:raw, 0, [2, 1], 2, %in2:raw, PLUMB_RT_SCATTER_NONE, 1, %out0:raw) range-checked
// CHECK-LABEL: op plumb.scatter_nd
// CHECK-NEXT: plumb_rt_scatter_nd(%in0:raw, [4, 3], 2, %in1:raw, 1, [2, 2], 2, %in2:raw, PLUMB_RT_SCATTER_MAX, 2, %out0:raw) range-checked
func.func @scatter(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>, %e: tensor<4x3xi64>, %j: tensor<2x2xi32>, %v: tensor<2xi64>) {
  %0 = plumb.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = plumb.scatter_nd %e, %j, %v {reduction = "max"} : (tensor<4x3xi64>, tensor<2x2xi32>, tensor<2xi64>) -> tensor<4x3xi64>
  return
}

// -----

// grid_sample: the input's shape and rank, the grid, the result shape, the
// mode and padding codes and align_corners.
// CHECK-LABEL: op plumb.grid_sample
// CHECK-NEXT: plumb_rt_grid_sample_f32(%in0:f32, [1, 3, 4, 4], 4, %in1:f32, [1, 3, 2, 3], PLUMB_RT_GRID_CUBIC, PLUMB_RT_GRID_REFLECTION, 1, %out0:f32)
// CHECK-LABEL: op plumb.grid_sample
// CHECK-NEXT: plumb_rt_grid_sample_f32(%in0:f32, [1, 2, 3, 4, 5], 5, %in1:f32, [1, 2, 2, 2, 2], PLUMB_RT_GRID_NEAREST, PLUMB_RT_GRID_BORDER, 0, %out0:f32)
func.func @grid_sample(%x: tensor<1x3x4x4xf32>, %g: tensor<1x2x3x2xf32>, %v: tensor<1x2x3x4x5xf32>, %h: tensor<1x2x2x2x3xf32>) {
  %0 = plumb.grid_sample %x, %g {align_corners = true, mode = "cubic", padding_mode = "reflection"} : (tensor<1x3x4x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  %1 = plumb.grid_sample %v, %h {align_corners = false, mode = "nearest", padding_mode = "border"} : (tensor<1x2x3x4x5xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  return
}

// -----

// rnn: bias, seq_lens (always null), initial_h, the sizes, direction, clip,
// then each direction's activation code with its alpha and beta (a single
// direction repeats its own in the unused second slot), the results and
// the tree block.
// CHECK-LABEL: op plumb.rnn
// CHECK-NEXT: plumb_rt_rnn_f32(%in0:f32, %in1:f32, %in2:f32, %in3:f32, null, null, 5, 2, 3, 4, PLUMB_RT_RNN_BIDIRECTIONAL, 0x40000000, PLUMB_RT_LEAKY_RELU, 0x3E800000, 0x00000000, PLUMB_RT_SIGMOID, 0x00000000, 0x00000000, %out0:f32, %out1:f32, 2)
// CHECK-LABEL: op plumb.rnn
// CHECK-NEXT: plumb_rt_rnn_f32(%in0:f32, %in1:f32, %in2:f32, null, null, %in3:f32, 5, 2, 3, 4, PLUMB_RT_RNN_REVERSE, 0x00000000, PLUMB_RT_RELU, 0x00000000, 0x00000000, PLUMB_RT_RELU, 0x00000000, 0x00000000, %out0:f32, %out1:f32, 256)
func.func @rnn(%x: tensor<5x2x3xf32>, %w: tensor<2x4x3xf32>, %r: tensor<2x4x4xf32>, %b: tensor<2x8xf32>, %w1: tensor<1x4x3xf32>, %r1: tensor<1x4x4xf32>, %h1: tensor<1x2x4xf32>) {
  %0:2 = plumb.rnn %x, %w, %r bias %b {activation_alpha = array<f32: 0.25, 0.0>, activation_beta = array<f32: 0.0, 0.0>, activations = ["leaky_relu", "sigmoid"], clip = 2.0 : f32, direction = "bidirectional", hidden_size = 4 : i64, tree = #plumb.tree<blocked 2>} : (tensor<5x2x3xf32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>, tensor<2x8xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  %1:2 = plumb.rnn %x, %w1, %r1 initial_h %h1 {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["relu"], direction = "reverse", hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// dft / stft: one plumb_rt_dft_f32 call: input, window (null without),
// outer, len, inner, complex, n, bins, inverse, frames, step, the scratch
// buffer (2n twiddle floats, then one stage buffer of transforms * 2n
// floats for two stages, two for three or more) and the result: 6
// transforms of 8 (3 stages) 16 + 2*6*16 floats = 832 bytes; 7 is prime (one
// stage) 14 floats; 15 frames of 16 (4 stages) 32 + 2*15*32 = 992 floats.
// CHECK-LABEL: op plumb.dft
// CHECK-NEXT: scratch 0: 832 bytes
// CHECK-NEXT: plumb_rt_dft_f32(%in0:f32, null, 2, 5, 3, 1, 8, 8, 1, 1, 0, %scratch0:f32, %out0:f32)
// CHECK-LABEL: op plumb.dft
// CHECK-NEXT: scratch 0: 56 bytes
// CHECK-NEXT: plumb_rt_dft_f32(%in0:f32, null, 4, 7, 1, 0, 7, 4, 0, 1, 0, %scratch0:f32, %out0:f32)
// CHECK-LABEL: op plumb.stft
// CHECK-NEXT: scratch 0: 3968 bytes
// CHECK-NEXT: plumb_rt_dft_f32(%in0:f32, %in1:f32, 1, 128, 1, 0, 16, 9, 0, 15, 8, %scratch0:f32, %out0:f32)
// CHECK-LABEL: op plumb.stft
// CHECK-NEXT: scratch 0: 40 bytes
// CHECK-NEXT: plumb_rt_dft_f32(%in0:f32, null, 2, 11, 1, 1, 5, 5, 0, 3, 3, %scratch0:f32, %out0:f32)
func.func @signal(%c: tensor<2x5x3x2xf32>, %p: tensor<4x7x1xf32>, %s: tensor<1x128x1xf32>, %w: tensor<16xf32>, %sc: tensor<2x11x2xf32>) {
  %0 = plumb.dft %c {axis = 1 : i64, inverse = true, length = 8 : i64, onesided = false} : (tensor<2x5x3x2xf32>) -> tensor<2x8x3x2xf32>
  %1 = plumb.dft %p {axis = 1 : i64, inverse = false, length = 7 : i64, onesided = true} : (tensor<4x7x1xf32>) -> tensor<4x4x2xf32>
  %2 = plumb.stft %s, %w {frame_length = 16 : i64, frame_step = 8 : i64, onesided = true} : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  %3 = plumb.stft %sc {frame_length = 5 : i64, frame_step = 3 : i64, onesided = false} : (tensor<2x11x2xf32>) -> tensor<2x3x5x2xf32>
  return
}
