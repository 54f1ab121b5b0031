// Fused conv chains compiled with per-element epilogues (lib/Target/Cpp/
// Epilogue.cpp) give the interpreter's bits, which runs the same chains op
// by op: batch norm, per-channel and scalar operands on either side,
// per-element operands, the variadic sum/max/min with the chain value in
// any position (position 1 cannot run in place: the result goes to its own
// buffer), every unary step the epilogue knows, 1-D convs, and a chain it
// does not know (tanh), which stays op by op. The input holds NaNs, infs,
// signed zeros, subnormals and huge values; 1 and 2 threads.
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python -c "import numpy as np; r=np.random.RandomState(3); x=r.randn(1,4,6,6).astype(np.float32); f=x.reshape(-1); f[:8]=[np.nan,np.inf,-np.inf,-0.0,0.0,1e-40,-3e38,3e38]; np.save('%t/in/input_0.npy', x); s=r.randn(1,4,11).astype(np.float32); s[0,0,0]=np.nan; np.save('%t/in/input_1.npy', s)"
// RUN: %plumb compile %s -o %t/b.plumb --target cpu --quiet > /dev/null
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --output-dir %t/c1 > %t/c1.txt
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --output-dir %t/c2 --threads 2 > %t/c2.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --output-dir %t/interp > %t/interp.txt
// RUN: %plumb run %s --no-canonicalize --interpret --inputs-dir %t/in --output-dir %t/unfused > %t/unfused.txt
// RUN: diff %t/c1.txt %t/interp.txt
// RUN: diff %t/c2.txt %t/interp.txt
// RUN: diff %t/unfused.txt %t/interp.txt
// RUN: for i in 0 1 2 3 4 5 6; do cmp %t/c1/output_$i.npy %t/interp/output_$i.npy || exit 1; cmp %t/c2/output_$i.npy %t/interp/output_$i.npy || exit 1; done
// Six chains run as epilogues (function clones per vector width), the tanh
// chain op by op.
// RUN: grep -c "^PLUMB_ELEMENTWISE void plumb_epilogue_" %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=EPI
// EPI: 6
// RUN: sed -n "/^int32_t runPlanned/,/^}/p" %t/b.plumb/cpu/model.cpp | grep -c "// op by op: 'plumb.tanh' has no per-element form" | FileCheck %s --check-prefix=BYOP
// BYOP: 1
// RUN: grep -c "float \*const dst = " %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=DST
// DST: 1
// Traced runs use the second plan (each node's results kept in place for a
// few more nodes and hashed there, fences before later nodes): the same
// outputs and trace root as the interpreter.
// RUN: grep -c "^int32_t runTraced\|^PLUMB_EXPORT int32_t plumb_model_run_traced(" %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=TRACED
// TRACED: 2
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --trace %t/tc --threads 2 | sed "s/, written to .*//" > %t/tc.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --trace %t/ti | sed "s/, written to .*//" > %t/ti.txt
// RUN: diff %t/tc.txt %t/ti.txt
// RUN: FileCheck %s --check-prefix=ROOT < %t/tc.txt
// ROOT: trace: 7 nodes, root {{[0-9a-f]{64}$}}
// RUN: %plumb cost %s | FileCheck %s --check-prefix=NODES
// NODES: nodes       7
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<1x4x6x6xf32> {plumb.name = "x"}, %s: tensor<1x4x11xf32> {plumb.name = "s"})
      -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>,
          tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x3x9xf32>) {
    %w = plumb.constant dense<[0.5, -0.25, 0.125, 1.0, -1.5, 0.75, 0.2, -0.3, 0.9]> : tensor<9xf32>
    %w3 = plumb.reshape %w : tensor<9xf32> -> tensor<1x1x3x3xf32>
    %wa = plumb.expand %w3 : tensor<1x1x3x3xf32> -> tensor<4x4x3x3xf32>
    %b0 = plumb.constant dense<[0.1, -0.2, 0.3, -0.4]> : tensor<4xf32>
    %b1 = plumb.constant dense<[1.1, -1.2, 1.3, -1.4]> : tensor<4xf32>
    %b2 = plumb.constant dense<[2.1, -2.2, 2.3, -2.4]> : tensor<4xf32>
    %b3 = plumb.constant dense<[3.1, -3.2, 3.3, -3.4]> : tensor<4xf32>
    %b4 = plumb.constant dense<[4.1, -4.2, 4.3, -4.4]> : tensor<4xf32>
    %b5 = plumb.constant dense<[5.1, -5.2, 5.3, -5.4]> : tensor<4xf32>
    %var = plumb.constant dense<[0.5, 2.0, 0.0, 1.0e-30]> : tensor<4xf32>
    %pc = plumb.constant dense<[[[0.5]], [[-0.5]], [[2.0]], [[0.0]]]> : tensor<4x1x1xf32>
    %k = plumb.constant dense<3.0> : tensor<f32>
    %wl = plumb.constant dense<[[[1.0, -2.0, 0.5]], [[0.25, 0.5, -1.0]], [[2.0, 1.0, -0.5]]]> : tensor<3x1x3xf32>
    %wl4 = plumb.expand %wl : tensor<3x1x3xf32> -> tensor<3x4x3xf32>

    // conv, batch norm, relu
    %c0 = plumb.conv %x, %wa, %b0 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %n0 = plumb.batch_norm %c0, %b1, %b2, %b3, %var {epsilon = 1.0e-05 : f32} : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %r0 = plumb.relu %n0 : tensor<1x4x6x6xf32>

    // conv, per-channel add, leaky relu
    %c1 = plumb.conv %x, %wa, %b1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %a1 = plumb.add %c1, %pc : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
    %r1 = plumb.leaky_relu %a1 {alpha = 0.1 : f32} : tensor<1x4x6x6xf32>

    // conv, residual sum with the chain value second, clip
    %c2 = plumb.conv %x, %wa, %b2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %s2 = plumb.sum %x, %c2 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %r2 = plumb.clip %s2 {min = -1.0 : f32, max = 1.0 : f32} : tensor<1x4x6x6xf32>

    // conv, then scalar, per-channel (lhs) and per-element operands
    %c3 = plumb.conv %x, %wa, %b3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %m3 = plumb.mul %c3, %k : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
    %d3 = plumb.sub %pc, %m3 : (tensor<4x1x1xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %q3 = plumb.div %d3, %x : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %x3 = plumb.max %q3, %x : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %y3 = plumb.min %x3, %pc : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
    %z3 = plumb.neg %y3 : tensor<1x4x6x6xf32>
    %v3 = plumb.abs %z3 : tensor<1x4x6x6xf32>
    %h3 = plumb.hard_sigmoid %v3 {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<1x4x6x6xf32>

    // conv, reciprocal, sqrt
    %c4 = plumb.conv %x, %wa, %b4 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %i4 = plumb.reciprocal %c4 : tensor<1x4x6x6xf32>
    %q4 = plumb.sqrt %i4 : tensor<1x4x6x6xf32>

    // conv, tanh: no per-element form in the epilogue, op by op
    %c5 = plumb.conv %x, %wa, %b5 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %t5 = plumb.tanh %c5 : tensor<1x4x6x6xf32>

    // 1-D conv, relu
    %c6 = plumb.conv %s, %wl4 {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x4x11xf32>, tensor<3x4x3xf32>) -> tensor<1x3x9xf32>
    %r6 = plumb.relu %c6 : tensor<1x3x9xf32>

    return %r0, %r1, %r2, %h3, %q4, %t5, %r6 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x3x9xf32>
  }
}
