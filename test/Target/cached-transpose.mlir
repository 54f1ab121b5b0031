// A transpose of a weight read only by matmuls (a tied LM head: [V, D] ->
// [D, V]) is computed once into a buffer kept across runs; its users and
// the trace hook read that buffer. The bits are the interpreter's, run
// after run and at 3 threads, and the traced run's trace root is the
// interpreter's. A transpose of a weight that an elementwise op also
// reads, and a transpose of an input, run every time. (Smaller constant
// transposes are folded at compile time: plumb-fold-constants.)
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python -c "import numpy as np; r=np.random.RandomState(3); np.save('%t/in/input_0.npy', r.randn(1,7,300).astype(np.float32))"
// RUN: %plumb compile %s -o %t/b.plumb --target cpu --quiet > /dev/null
// RUN: grep -c "static PackedWeights cached_" %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=CACHED
// CACHED: 2
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --repeat 3 > %t/c1.txt
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --threads 3 --output-dir %t/c3 > %t/c3.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --output-dir %t/i > %t/i.txt
// RUN: diff <(grep ^output %t/c1.txt) %t/i.txt
// RUN: diff %t/c3.txt %t/i.txt
// RUN: for i in 0 1 2; do cmp %t/c3/output_$i.npy %t/i/output_$i.npy || exit 1; done
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --trace %t/tc --format json > %t/tc.json
// RUN: %plumb run %s --interpret --inputs-dir %t/in --trace %t/ti --format json > %t/ti.json
// RUN: %python -c "import json,sys; a=json.load(open('%t/tc/trace.json')); b=json.load(open('%t/ti/trace.json')); sys.exit(0 if a['root'] == b['root'] else 1)"
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<1x7x300xf32> {plumb.name = "x"})
      -> (tensor<1x7x400xf32>, tensor<400x300xf32>, tensor<300x7xf32>) {
    %e = plumb.constant dense<0.03125> : tensor<400x300xf32>
    %t = plumb.transpose %e {perm = array<i64: 1, 0>} : tensor<400x300xf32> -> tensor<300x400xf32>
    %y = plumb.matmul %x, %t {tree = #plumb.tree<blocked 32>} : (tensor<1x7x300xf32>, tensor<300x400xf32>) -> tensor<1x7x400xf32>
    %f = plumb.constant dense<-0.5> : tensor<300x400xf32>
    %u = plumb.transpose %f {perm = array<i64: 1, 0>} : tensor<300x400xf32> -> tensor<400x300xf32>
    %v = plumb.add %u, %u : (tensor<400x300xf32>, tensor<400x300xf32>) -> tensor<400x300xf32>
    %x2 = plumb.reshape %x : tensor<1x7x300xf32> -> tensor<7x300xf32>
    %w = plumb.transpose %x2 {perm = array<i64: 1, 0>} : tensor<7x300xf32> -> tensor<300x7xf32>
    return %y, %v, %w : tensor<1x7x400xf32>, tensor<400x300xf32>, tensor<300x7xf32>
  }
}
