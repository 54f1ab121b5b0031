// A fused chain that starts with a matmul and the add of a bias along the
// last axis runs, compiled, as one plumb_rt_gemm_strided with the bias as
// its C (row stride 0) and gives the interpreter's bits (which runs the
// matmul, then the add), at 1 and 3 threads: a rank-4 activation with a
// [N] bias and a mul after it, the bias as the add's first operand and as
// [1, 1, N], a residual of the result's shape (C with row stride N), NaN
// and -0 in the activation, a tree of several chunks. A
// bias that varies along another axis ([3, 1, N]) and a one-row product
// (the packed GEMV) keep their own kernels. The weight is packed once for
// the GEMM kernel (plumb_rt_gemm_pack_b), so every product of at least two
// rows calls plumb_rt_gemm_strided_packed_b: four with the bias or residual
// as C, the one before the [3, 1, N] add and a Gemm (transB, alpha, beta,
// a [1, N] C), in each of the library's two plans (untraced and traced).
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python -c "import numpy as np; r=np.random.RandomState(7); x=r.randn(1,3,5,300).astype(np.float32); x[0,0,0,3]=np.nan; x[0,1,2,4]=-0.0; np.save('%t/in/input_0.npy', x); np.save('%t/in/input_1.npy', r.randn(1,300).astype(np.float32))"
// RUN: %plumb compile %s -o %t/b.plumb --target cpu --quiet > /dev/null
// RUN: grep -c "plumb_rt_gemm_strided\(_packed_b\)\?(" %t/b.plumb/cpu/model.cpp | FileCheck %s --check-prefix=CALLS
// CALLS: 12
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in > %t/c1.txt
// RUN: %plumb run %t/b.plumb --inputs-dir %t/in --threads 3 --output-dir %t/c3 > %t/c3.txt
// RUN: %plumb run %s --interpret --inputs-dir %t/in --output-dir %t/i > %t/i.txt
// RUN: diff <(grep ^output %t/c1.txt) %t/i.txt
// RUN: diff %t/c3.txt %t/i.txt
// RUN: for i in 0 1 2 3 4 5 6; do cmp %t/c3/output_$i.npy %t/i/output_$i.npy || exit 1; done
module attributes {plumb.contract = "plumb-det-v1"} {
  func.func @main(%x: tensor<1x3x5x300xf32> {plumb.name = "x"}, %r: tensor<1x300xf32> {plumb.name = "r"})
      -> (tensor<1x3x5x40xf32>, tensor<1x3x5x40xf32>, tensor<1x3x5x40xf32>, tensor<1x3x5x40xf32>, tensor<1x40xf32>, tensor<1x3x5x40xf32>, tensor<15x40xf32>) {
    %w = plumb.constant dense<0.0625> : tensor<300x40xf32>
    %b = plumb.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, -0.0]> : tensor<40xf32>
    %b3 = plumb.reshape %b : tensor<40xf32> -> tensor<1x1x40xf32>
    %half = plumb.constant dense<0.5> : tensor<f32>
    %m0 = plumb.matmul %x, %w {tree = #plumb.tree<blocked 64>} : (tensor<1x3x5x300xf32>, tensor<300x40xf32>) -> tensor<1x3x5x40xf32>
    %a0 = plumb.add %m0, %b : (tensor<1x3x5x40xf32>, tensor<40xf32>) -> tensor<1x3x5x40xf32>
    %y0 = plumb.mul %a0, %half : (tensor<1x3x5x40xf32>, tensor<f32>) -> tensor<1x3x5x40xf32>
    %m1 = plumb.matmul %x, %w {tree = #plumb.tree<blocked 256>} : (tensor<1x3x5x300xf32>, tensor<300x40xf32>) -> tensor<1x3x5x40xf32>
    %y1 = plumb.add %b, %m1 : (tensor<40xf32>, tensor<1x3x5x40xf32>) -> tensor<1x3x5x40xf32>
    %m2 = plumb.matmul %x, %w : (tensor<1x3x5x300xf32>, tensor<300x40xf32>) -> tensor<1x3x5x40xf32>
    %y2 = plumb.add %m2, %b3 : (tensor<1x3x5x40xf32>, tensor<1x1x40xf32>) -> tensor<1x3x5x40xf32>
    %c3 = plumb.constant dense<[[[0.5]], [[-1.5]], [[2.5]]]> : tensor<3x1x1xf32>
    %cb = plumb.mul %c3, %b3 : (tensor<3x1x1xf32>, tensor<1x1x40xf32>) -> tensor<3x1x40xf32>
    %m3 = plumb.matmul %x, %w {tree = #plumb.tree<blocked 128>} : (tensor<1x3x5x300xf32>, tensor<300x40xf32>) -> tensor<1x3x5x40xf32>
    %y3 = plumb.add %m3, %cb : (tensor<1x3x5x40xf32>, tensor<3x1x40xf32>) -> tensor<1x3x5x40xf32>
    %m4 = plumb.matmul %r, %w : (tensor<1x300xf32>, tensor<300x40xf32>) -> tensor<1x40xf32>
    %y4 = plumb.add %m4, %b : (tensor<1x40xf32>, tensor<40xf32>) -> tensor<1x40xf32>
    %m5 = plumb.matmul %x, %w {tree = #plumb.tree<blocked 32>} : (tensor<1x3x5x300xf32>, tensor<300x40xf32>) -> tensor<1x3x5x40xf32>
    %y5 = plumb.add %m5, %y0 : (tensor<1x3x5x40xf32>, tensor<1x3x5x40xf32>) -> tensor<1x3x5x40xf32>
    %x2 = plumb.reshape %x : tensor<1x3x5x300xf32> -> tensor<15x300xf32>
    %wt = plumb.constant dense<-0.125> : tensor<40x300xf32>
    %cg = plumb.reshape %b : tensor<40xf32> -> tensor<1x40xf32>
    %y6 = plumb.gemm %x2, %wt, %cg {alpha = 0.5 : f32, beta = -2.0 : f32, trans_a = false, trans_b = true, tree = #plumb.tree<blocked 64>} : (tensor<15x300xf32>, tensor<40x300xf32>, tensor<1x40xf32>) -> tensor<15x40xf32>
    return %y0, %y1, %y2, %y3, %y4, %y5, %y6 : tensor<1x3x5x40xf32>, tensor<1x3x5x40xf32>, tensor<1x3x5x40xf32>, tensor<1x3x5x40xf32>, tensor<1x40xf32>, tensor<1x3x5x40xf32>, tensor<15x40xf32>
  }
}
