//===- runtime/src/gemv.h - Dot products of one vector, packed weights -*- C++ -*-===//
//
// Part of Plumb. out[g] = treeDot(v, W[g, :], n, block) for many rows g at
// once, from W packed once into panels of kPanel rows, k-major inside a
// panel (packTransposed): for a fixed k the terms of consecutive outputs are
// contiguous, so each vector lane runs exactly its own output's reference
// sequence (tree.h: each chunk acc = fmaf(v[k], W[g][k], acc) from -0.0 in
// increasing k, chunks combined by treeCombine's stride-halving additions).
// Vectorising across outputs never changes an output's operations. Used by
// the recurrences (rnn.cpp) and the packed GEMV entry points (gemm.h).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_SRC_GEMV_H
#define PLUMB_RUNTIME_SRC_GEMV_H

#include <stdint.h>
#include <vector>

namespace plumb {
namespace rt {
namespace detail {

/// Outputs per panel of the packed weights (8 AVX-512 vectors).
constexpr int64_t kPanel = 128;

/// Floats of the packed form of `rows` x `n`.
inline int64_t packedFloats(int64_t rows, int64_t n) {
  return (rows + kPanel - 1) / kPanel * n * kPanel;
}

/// Packs W (element (g, k) at W[g * g_s + k * k_s]) into `WT`
/// (packedFloats(rows, n) floats): WT[(p * n + k) * kPanel + j] = W(p *
/// kPanel + j, k), +0.0 past the last row.
void packPanels(const float *W, int64_t g_s, int64_t k_s, int64_t rows,
                int64_t n, float *WT);
/// packPanels of a row-major W [rows x n] into a vector.
void packTransposed(const float *W, int64_t rows, int64_t n,
                    std::vector<float> &WT);

/// out[g] = treeDot(v, W[g, :], n, block) for g in [g0, g1), from WT (the
/// packed W [rows x n]); only those outputs are written. `partials` holds
/// treeChunks(n, block) * kPanel floats.
void packedDots(const float *v, const float *WT, int64_t rows, int64_t n,
                int64_t block, int64_t g0, int64_t g1, float *out,
                float *partials);

} // namespace detail
} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_SRC_GEMV_H
