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
  /// Optional: the same tile with A unpacked, row i of the tile at
  /// a[i * lda + k] (all MR rows must exist). Null when not provided.
  void (*tileDirect)(const float *a, int64_t lda, const float *bp, int64_t K,
                     int64_t block, float *out, float *work);
  /// Optional: `tile` for a partial tile of which only the first `rows`
  /// (< mr) rows are wanted; out is written with row stride nr for those
  /// rows (same operations per lane). Null when not provided.
  void (*tileRows)(const float *ap, const float *bp, int64_t K, int64_t block,
                   float *out, float *work, int rows) = nullptr;
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

//===----------------------------------------------------------------------===//
// The GEMM driver (gemm.cpp), shared by Gemm/MatMul and Conv.
//===----------------------------------------------------------------------===//

/// Per-element epilogue of the driver (gemm.h): y = alpha * dot (alpha != 1),
/// y = y + (beta * C[m * c_rs + n * c_cs]) when C, NaN canonicalised.
struct GemmEpilogue {
  float alpha, beta;
  const float *C;
  int64_t c_rs, c_cs;
};

/// Produces the B operand sliver by sliver: fn(ctx, n0, cols, K, nr, d)
/// writes B(k, n0 + j) to d[k * nr + j] for k < K, j < cols, and +0.0 for
/// cols <= j < nr. Called concurrently for different slivers.
struct GemmBPacker {
  void (*fn)(const void *ctx, int64_t n0, int64_t cols, int64_t K, int nr,
             float *d);
  const void *ctx;
  /// Every sliver already packed (sliver s at all + s * nr * max(K, 1)),
  /// valid when the active kernel's nr and this K are allNr and allK;
  /// otherwise fn packs as usual.
  const float *all = nullptr;
  int allNr = 0;
  int64_t allK = -1;
};

/// Called once for every finished row segment Y[m, n0 .. n0 + count), after
/// its final values are stored (`y` points at Y[m, n0]); possibly
/// concurrently, always for disjoint segments.
struct GemmRowHook {
  void (*fn)(void *ctx, int64_t m, int64_t n0, int64_t count, float *y);
  void *ctx;
};

/// Y[m, n] (row stride ldy) = epilogue(treeDot_k(A(m, k), B(k, n))) with A
/// element (m, k) at A[m * a_rs + k * a_cs]. `hook` may be null.
void gemmDriver(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                int64_t a_cs, const GemmBPacker &b, const GemmEpilogue &epi,
                float *Y, int64_t ldy, int64_t block, const GemmRowHook *hook);

/// The packer of a plain strided matrix B (element (k, n) at
/// B[k * b_rs + n * b_cs]); ctx points at a GemmMatrixB.
struct GemmMatrixB {
  const float *B;
  int64_t b_rs, b_cs;
};
void packMatrixB(const void *ctx, int64_t n0, int64_t cols, int64_t K, int nr,
                 float *d);

} // namespace detail
} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_SRC_GEMM_KERNELS_H
