// Fused chains whose head is elementwise compile runs of two or more ops
// with a per-element form into one loop over the result (lib/Target/Cpp/
// Epilogue.cpp, buildFlatChain; plumb_rt_elementwise_apply splits it over
// the threads) and give the interpreter's bits, which runs the chains op by
// op: a quantize-like chain with constant and run-time scalars (the
// scalars are copied before the loop), a chain broken by tanh (which keeps
// its array kernel) into [mul] tanh [add, mul, max], and a chain whose head
// broadcasts (the head op by op, the two ops after it a loop), and a chain
// with a batch norm (per channel: no flat form, op by op). 3 x 5000 elements cross the 4096-element chunks;
// the input holds NaNs, infs, signed zeros, subnormals and huge values; 1
// and 2 threads, and traced runs.
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python -c "import numpy as np; r=np.random.RandomState(4); x=(r.randn(3,5000)*3).astype(np.float32); f=x.reshape(-1); f[:8]=[np.nan,np.inf,-np.inf,-0.0,0.0,1e-40,-3e38,3e38]; np.save('%t/in/input_0.npy', x); np.save('%t/in/input_1.npy', np.array(0.37, np.float32)); np.save('%t/in/input_2.npy', r.randn(3,5000).astype(np.float32)); np.save('%t/in/input_3.npy', r.randn(1,5000).astype(np.float32)); np.save('%t/in/input_4.npy', r.randn(2,3,4,5).astype(np.float32))"
// RUN: %plumb compile %s -o %t/b.plumb --target cpu --quiet > /dev/null
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --output-dir %t/c1 > %t/c1.txt
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --output-dir %t/c2 --threads 2 > %t/c2.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --output-dir %t/interp > %t/interp.txt
// RUN: %plumb run %s --no-canonicalize --interpret --inputs-dir %t/in --output-dir %t/unfused > %t/unfused.txt
// RUN: diff %t/c1.txt %t/interp.txt
// RUN: diff %t/c2.txt %t/interp.txt
// RUN: diff %t/unfused.txt %t/interp.txt
// RUN: for i in 0 1 2 3; do cmp %t/c1/output_$i.npy %t/interp/output_$i.npy || exit 1; cmp %t/c2/output_$i.npy %t/interp/output_$i.npy || exit 1; done
// Three loop functions (named by node and first chain index): the whole
// quantize chain, the run after tanh, the run after the broadcasting head.
// RUN: grep "^PLUMB_ELEMENTWISE void plumb_chain_" %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=NAMES
// NAMES-COUNT-3: PLUMB_ELEMENTWISE void plumb_chain_
// NAMES-NOT: plumb_chain_
// RUN: grep -c "^PLUMB_ELEMENTWISE void plumb_chain_[0-9]*_0(" %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=HEAD
// HEAD: 1
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --trace %t/tc --threads 2 | sed "s/, written to .*//" > %t/tc.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --trace %t/ti | sed "s/, written to .*//" > %t/ti.txt
// RUN: diff %t/tc.txt %t/ti.txt
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<3x5000xf32> {plumb.name = "x"}, %s: tensor<f32> {plumb.name = "s"},
                  %y: tensor<3x5000xf32> {plumb.name = "y"}, %r: tensor<1x5000xf32> {plumb.name = "r"},
                  %z: tensor<2x3x4x5xf32> {plumb.name = "z"})
      -> (tensor<3x5000xf32>, tensor<3x5000xf32>, tensor<3x5000xf32>, tensor<2x3x4x5xf32>) {
    %lo = plumb.constant dense<-7.0> : tensor<f32>
    %hi = plumb.constant dense<248.0> : tensor<f32>
    %magic = plumb.constant dense<8388608.0> : tensor<f32>
    %k = plumb.constant dense<0.75> : tensor<f32>

    // x / s, clamp, round by the 2^23 trick (a run-time scalar and constants)
    %q0 = plumb.div %x, %s : (tensor<3x5000xf32>, tensor<f32>) -> tensor<3x5000xf32>
    %q1 = plumb.max %q0, %lo : (tensor<3x5000xf32>, tensor<f32>) -> tensor<3x5000xf32>
    %q2 = plumb.min %q1, %hi : (tensor<3x5000xf32>, tensor<f32>) -> tensor<3x5000xf32>
    %q3 = plumb.add %q2, %magic : (tensor<3x5000xf32>, tensor<f32>) -> tensor<3x5000xf32>
    %q4 = plumb.sub %q3, %magic : (tensor<3x5000xf32>, tensor<f32>) -> tensor<3x5000xf32>

    // x * k, tanh, + y, * y, max with x
    %t0 = plumb.mul %x, %k : (tensor<3x5000xf32>, tensor<f32>) -> tensor<3x5000xf32>
    %t1 = plumb.tanh %t0 : tensor<3x5000xf32>
    %t2 = plumb.add %t1, %y : (tensor<3x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>
    %t3 = plumb.mul %y, %t2 : (tensor<3x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>
    %t4 = plumb.max %t3, %x : (tensor<3x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>

    // a broadcasting head: op by op
    %b0 = plumb.add %r, %y : (tensor<1x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>
    %b1 = plumb.mul %b0, %k : (tensor<3x5000xf32>, tensor<f32>) -> tensor<3x5000xf32>
    %b2 = plumb.sub %b1, %y : (tensor<3x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>

    // an elementwise head, then a batch norm and relu
    %bs = plumb.constant dense<[0.5, -1.5, 2.0]> : tensor<3xf32>
    %bb = plumb.constant dense<[0.1, 0.2, -0.3]> : tensor<3xf32>
    %bm = plumb.constant dense<[1.0, -1.0, 0.25]> : tensor<3xf32>
    %bv = plumb.constant dense<[0.5, 2.0, 0.0]> : tensor<3xf32>
    %n0 = plumb.add %z, %z : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
    %n1 = plumb.batch_norm %n0, %bs, %bb, %bm, %bv {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
    %n2 = plumb.relu %n1 : tensor<2x3x4x5xf32>
    return %q4, %t4, %b2, %n2 : tensor<3x5000xf32>, tensor<3x5000xf32>, tensor<3x5000xf32>, tensor<2x3x4x5xf32>
  }
}
