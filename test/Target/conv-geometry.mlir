// Compiled convolutions give the interpreter's bits for every geometry:
// strides, dilations, asymmetric and large pads, groups with several output
// channels each, 1-D convolutions, windows wider than the input, 1x1 direct
// and depthwise. The emitted code calls the conv kernels without an
// epilogue (no conv is fused here).
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python -c "import numpy as np; r=np.random.RandomState(7); np.save('%t/in/input_0.npy', r.randn(2,4,7,9).astype(np.float32)); np.save('%t/in/input_1.npy', r.randn(1,4,11).astype(np.float32))"
// RUN: %plumb compile %s -o %t/b.plumb --target cpu --quiet > /dev/null
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --output-dir %t/compiled --threads 2 > %t/compiled.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --output-dir %t/interp > %t/interp.txt
// RUN: diff %t/compiled.txt %t/interp.txt
// RUN: for i in 0 1 2 3 4 5 6 7; do cmp %t/compiled/output_$i.npy %t/interp/output_$i.npy || exit 1; done
// RUN: sed -n "/^int32_t runPlanned/,/^}/p" %t/b.plumb/cpu/model.cpp | grep -c "rc = plumb_rt_conv2d(&kO[0-9]*, " | FileCheck %s --check-prefix=CONV2D
// CONV2D: 7
// RUN: sed -n "/^int32_t runPlanned/,/^}/p" %t/b.plumb/cpu/model.cpp | grep -c "rc = plumb_rt_conv1d(" | FileCheck %s --check-prefix=CONV1D
// CONV1D: 1
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<2x4x7x9xf32> {plumb.name = "x"}, %s: tensor<1x4x11xf32> {plumb.name = "s"})
      -> (tensor<2x6x4x5xf32>, tensor<2x6x2x3xf32>, tensor<2x6x9x4xf32>, tensor<2x4x7x9xf32>,
          tensor<2x6x7x9xf32>, tensor<2x4x7x9xf32>, tensor<1x3x6xf32>, tensor<2x6x1x1xf32>) {
    %w = plumb.constant dense<[0.5, -0.25, 0.125, 1.0, -1.5, 0.75, 0.2, -0.3, 0.9]> : tensor<9xf32>
    %w3 = plumb.reshape %w : tensor<9xf32> -> tensor<1x1x3x3xf32>
    %wa = plumb.expand %w3 : tensor<1x1x3x3xf32> -> tensor<6x4x3x3xf32>
    %wg = plumb.expand %w3 : tensor<1x1x3x3xf32> -> tensor<6x2x3x3xf32>
    %wd = plumb.expand %w3 : tensor<1x1x3x3xf32> -> tensor<4x1x3x3xf32>
    %w1 = plumb.constant dense<0.5> : tensor<6x4x1x1xf32>
    %wl = plumb.constant dense<[[[1.0, -2.0, 0.5]], [[0.25, 0.5, -1.0]], [[2.0, 1.0, -0.5]]]> : tensor<3x1x3xf32>
    %wl4 = plumb.expand %wl : tensor<3x1x3xf32> -> tensor<3x4x3xf32>
    %b = plumb.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6]> : tensor<6xf32>
    %wbig = plumb.constant dense<0.01> : tensor<6x4x7x9xf32>
    // stride 2, pads 1
    %0 = plumb.conv %x, %wa, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x7x9xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x4x5xf32>
    // dilation 2, stride (2, 3), asymmetric pads
    %1 = plumb.conv %x, %wa {dilations = array<i64: 2, 2>, group = 1 : i64, pads = array<i64: 0, 2, 1, 0>, strides = array<i64: 2, 3>} : (tensor<2x4x7x9xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x2x3xf32>
    // large asymmetric pads
    %2 = plumb.conv %x, %wa, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 0, 1, 0>, strides = array<i64: 1, 2>} : (tensor<2x4x7x9xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x9x4xf32>
    // depthwise: the kernel's path
    %3 = plumb.conv %x, %wd {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x7x9xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x7x9xf32>
    // 1x1 direct: the kernel's path
    %4 = plumb.conv %x, %w1, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x7x9xf32>, tensor<6x4x1x1xf32>, tensor<6xf32>) -> tensor<2x6x7x9xf32>
    // two groups of two input and two output channels
    %g = plumb.conv %x, %wg {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x7x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x7x9xf32>
    %5 = plumb.slice %g {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x6x7x9xf32> -> tensor<2x4x7x9xf32>
    // 1-D, stride 2, pads (2, 1)
    %6 = plumb.conv %s, %wl4 {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 2, 1>, strides = array<i64: 2>} : (tensor<1x4x11xf32>, tensor<3x4x3xf32>) -> tensor<1x3x6xf32>
    // the window covers the whole input
    %7 = plumb.conv %x, %wbig, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x7x9xf32>, tensor<6x4x7x9xf32>, tensor<6xf32>) -> tensor<2x6x1x1xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x6x4x5xf32>, tensor<2x6x2x3xf32>, tensor<2x6x9x4xf32>, tensor<2x4x7x9xf32>, tensor<2x6x7x9xf32>, tensor<2x4x7x9xf32>, tensor<1x3x6xf32>, tensor<2x6x1x1xf32>
  }
}
