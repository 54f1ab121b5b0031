//===- runtime/include/plumb/runtime/tree.h - Fixed reduction trees -*- C++ -*-===//
//
// Part of Plumb. The reference definition of every reduction tree, written once
// for host and device. A tree is `blocked(B)`: the n terms, in the order the op
// defines, are split into chunks of B consecutive terms; each chunk is summed
// sequentially from -0.0 (products with fmaf); the m = ceil(n/B) chunk results
// are padded with -0.0 to the next power of two P >= m and combined by
// stride-halving: for s = P/2 .. 1: v[i] = v[i] + v[i+s] for i < s. B == 0
// means one chunk ("sequential"). Fast paths elsewhere must reproduce these
// functions bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_TREE_H
#define PLUMB_RUNTIME_TREE_H

#include "plumb/runtime/config.h"

#include <stdint.h>

#if !defined(__CUDACC__)
#include <math.h> // fmaf only: correctly rounded by C99, never a transcendental.
#endif

namespace plumb {
namespace rt {

/// Maximum number of chunks combined on the stack by the reference helpers;
/// larger reductions use the streaming combiner below (same result).
constexpr int64_t kTreeMaxLevels = 64;

PLUMB_INLINE float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return fmaf(a, b, c);
#endif
}

/// Number of chunks of a blocked(B) tree over n terms (B == 0: one chunk).
PLUMB_INLINE int64_t treeChunks(int64_t n, int64_t block) {
  if (block <= 0 || block >= n)
    return 1;
  return (n + block - 1) / block;
}

/// Combines the chunk results v[0..m) by stride-halving over the -0.0-padded
/// power-of-two array, in place. Returns -0.0 for m == 0.
PLUMB_INLINE float treeCombine(float *v, int64_t m) {
  if (m <= 0)
    return -0.0f;
  int64_t p = 1;
  while (p < m)
    p <<= 1;
  // Elements [m, p) are implicitly -0.0: v[i] + -0.0 == v[i], so for each
  // level only pairs with both members < current length need an addition.
  for (int64_t s = p >> 1; s >= 1; s >>= 1) {
    for (int64_t i = 0; i < s; ++i) {
      if (i + s < m)
        v[i] = v[i] + v[i + s];
    }
    if (m > s)
      m = s;
  }
  return v[0];
}

/// Reference sum of x[0], x[stride], ... (n terms) under blocked(block).
/// `scratch` must hold treeChunks(n, block) floats.
PLUMB_INLINE float treeSum(const float *x, int64_t n, int64_t stride,
                           int64_t block, float *scratch) {
  int64_t m = treeChunks(n, block);
  int64_t b = (m == 1) ? n : block;
  for (int64_t c = 0; c < m; ++c) {
    float acc = -0.0f;
    int64_t lo = c * b, hi = lo + b < n ? lo + b : n;
    for (int64_t i = lo; i < hi; ++i)
      acc = acc + x[i * stride];
    scratch[c] = acc;
  }
  return treeCombine(scratch, m);
}

/// Reference dot product sum_i a[i*sa] * b[i*sb] under blocked(block): each
/// chunk accumulates acc = fmaf(a_i, b_i, acc) from -0.0.
PLUMB_INLINE float treeDot(const float *a, int64_t sa, const float *b,
                           int64_t sb, int64_t n, int64_t block,
                           float *scratch) {
  int64_t m = treeChunks(n, block);
  int64_t bl = (m == 1) ? n : block;
  for (int64_t c = 0; c < m; ++c) {
    float acc = -0.0f;
    int64_t lo = c * bl, hi = lo + bl < n ? lo + bl : n;
    for (int64_t i = lo; i < hi; ++i)
      acc = fma_rn(a[i * sa], b[i * sb], acc);
    scratch[c] = acc;
  }
  return treeCombine(scratch, m);
}

} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_TREE_H
