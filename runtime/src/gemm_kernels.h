//===- runtime/src/gemm_kernels.h - GEMM microkernel table -----*- C++ -*-===//
//
// Part of Plumb. Internal interface between the GEMM driver (gemm.cpp) and
// the per-ISA register-blocked microkernels (gemm_kernels.cpp).
//
// A microkernel computes one MR x NR output tile over the full K range under
// the blocked(block) tree, from packed operands:
//   ap[k * MR + i] = A(row i of the tile, k)   (k = 0..K-1)
//   bp[k * NR + j] = B(k, column j of the tile)
// and writes the tree result (no epilogue) row-major to out[i * NR + j].
// For every lane it performs exactly the operations of treeDot: each chunk is
// accumulated from -0.0 with one fma per k in increasing k, and the chunk
// partials are combined in treeCombine's stride-halving order.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_SRC_GEMM_KERNELS_H
#define PLUMB_RUNTIME_SRC_GEMM_KERNELS_H

#include <stdint.h>

namespace plumb {
namespace rt {
namespace detail {

enum GemmIsa { kIsaAuto = 0, kIsaScalar = 1, kIsaAvx2 = 2, kIsaAvx512 = 3 };

struct GemmKernel {
  int isa;
  int mr, nr;
  /// `work` must hold gemmTileWorkFloats(kernel, K, block) floats.
  void (*tile)(const float *ap, const float *bp, int64_t K, int64_t block,
               float *out, float *work);
};

/// The kernel for `isa`, or nullptr when the CPU (or build) lacks it.
const GemmKernel *gemmKernelFor(int isa);

/// Single-row product for M == 1 problems (depthwise conv):
///   y[p] = treeDot_k(w[k], col[k * ld + p]) for p < P (no epilogue),
/// SIMD over p. `work` must hold 16 * treeChunks(K, block) floats.
using ColDotFn = void (*)(const float *w, const float *col, int64_t K,
                          int64_t P, int64_t ld, int64_t block, float *y,
                          float *work);
/// The best row-product kernel for `isa` (never null; scalar fallback).
ColDotFn colDotFor(int isa);

/// Scratch floats a tile call needs (tree partial stack).
int64_t gemmTileWorkFloats(const GemmKernel &k, int64_t K, int64_t block);

} // namespace detail
} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_SRC_GEMM_KERNELS_H
