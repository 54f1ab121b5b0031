// A GEMV whose weights are constant runs, compiled, through a copy of the
// weights packed once (plumb_rt_gemv_pack, then plumb_rt_gemv_packed), and
// gives the interpreter's bits (which runs plumb_rt_gemm / matmul_f32), at 1
// and 3 threads, over repeated runs (the packed copy is reused): Gemm with
// transB, a C per column and alpha/beta, and a MatMul with a [1, 1, K]
// operand; a tree of several chunks. A product with a non-constant B is not
// repacked.
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python -c "import numpy as np; r=np.random.RandomState(5); x=r.randn(1,300).astype(np.float32); x[0,3]=np.nan; x[0,4]=-0.0; np.save('%t/in/input_0.npy', x); np.save('%t/in/input_1.npy', r.randn(300,40).astype(np.float32))"
// RUN: %plumb compile %s -o %t/b.plumb --target cpu --quiet > /dev/null
// RUN: grep -c "rc = plumb_rt_gemv_packed(" %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=CALLS
// CALLS: 4
// RUN: grep -c "rc = plumb_rt_gemm(\|rc = plumb_rt_matmul_f32(" %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=PLAIN
// PLAIN: 2
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --repeat 3 > %t/c1.txt
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --threads 3 --output-dir %t/c3 > %t/c3.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --output-dir %t/i > %t/i.txt
// RUN: diff <(grep ^output %t/c1.txt) %t/i.txt
// RUN: diff %t/c3.txt %t/i.txt
// RUN: for i in 0 1 2; do cmp %t/c3/output_$i.npy %t/i/output_$i.npy || exit 1; done
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<1x300xf32> {plumb.name = "x"}, %m: tensor<300x40xf32> {plumb.name = "m"})
      -> (tensor<1x64xf32>, tensor<1x1x48xf32>, tensor<1x40xf32>) {
    %w = plumb.constant dense<0.125> : tensor<64x300xf32>
    %c = plumb.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<1x64xf32>
    %0 = plumb.gemm %x, %w, %c {alpha = 0.5 : f32, beta = -2.0 : f32, trans_a = false, trans_b = true, tree = #plumb.tree<blocked 64>} : (tensor<1x300xf32>, tensor<64x300xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
    %x3 = plumb.reshape %x : tensor<1x300xf32> -> tensor<1x1x300xf32>
    %v = plumb.constant dense<-0.25> : tensor<300x48xf32>
    %1 = plumb.matmul %x3, %v {tree = #plumb.tree<blocked 256>} : (tensor<1x1x300xf32>, tensor<300x48xf32>) -> tensor<1x1x48xf32>
    %2 = plumb.matmul %x, %m : (tensor<1x300xf32>, tensor<300x40xf32>) -> tensor<1x40xf32>
    return %0, %1, %2 : tensor<1x64xf32>, tensor<1x1x48xf32>, tensor<1x40xf32>
  }
}
