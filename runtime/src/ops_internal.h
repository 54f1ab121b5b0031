//===- runtime/src/ops_internal.h - Shared helpers of the op kernels -*- C++ -*-===//
//
// Part of Plumb. Host-only helpers shared by the elementwise, reduction,
// pooling, normalisation, resize, RNN and movement kernels: the thread split
// (always over output elements) and small shape utilities.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_SRC_OPS_INTERNAL_H
#define PLUMB_RUNTIME_SRC_OPS_INTERNAL_H

#include "plumb/runtime/ops_status.h"
#include "plumb/runtime/threads.h"
#include "plumb/runtime/tree.h"

#include <stdint.h>

namespace plumb {
namespace rt {
namespace ops {

/// Splits [0, n) over the pool by output index. `grain` is the minimum work
/// per call. The split never changes any element's operation sequence.
template <typename Fn>
inline void parallelRange(int64_t n, int64_t grain, Fn &&fn) {
  if (n <= 0)
    return;
  if (grain < 1)
    grain = 1;
  if (n <= grain || plumb_rt_get_threads() <= 1) {
    fn(int64_t(0), n);
    return;
  }
  ::plumb::rt::parallelFor(0, n, grain,
                           [&](int64_t lo, int64_t hi) { fn(lo, hi); });
}

/// Product of dims[lo..hi).
inline int64_t prodDims(const int64_t *dims, int32_t lo, int32_t hi) {
  int64_t p = 1;
  for (int32_t i = lo; i < hi; ++i)
    p *= dims[i];
  return p;
}

inline bool validShape(const int64_t *dims, int32_t rank) {
  if (rank < 0 || (rank > 0 && !dims))
    return false;
  for (int32_t i = 0; i < rank; ++i)
    if (dims[i] < 0)
      return false;
  return true;
}

/// Maximum rows reduced together by multiTree.
constexpr int kMultiRows = 8;

/// x86-64 without -mfma compiles fmaf() as a libm call (correctly rounded,
/// but slow). Hot dot-product loops are therefore also compiled with
/// target("fma") and chosen at run time; both clones compute the same
/// correctly rounded fmaf, so the bits are identical.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLUMB_OPS_TGT_FMA __attribute__((target("fma")))
inline bool cpuHasFma() {
  static const bool v = __builtin_cpu_supports("fma");
  return v;
}
#else
#define PLUMB_OPS_TGT_FMA
inline bool cpuHasFma() { return false; }
#endif

/// Tree reductions of k <= 8 rows at once, bit-identical to tree.h's
/// treeSum (Dot = false: terms a[q][i]) / treeDot (Dot = true: terms
/// a[q][i] * b[q][i] fused). The k independent chunk chains are interleaved
/// for instruction-level parallelism; each row keeps its own sequence.
/// `scratch` holds k * treeChunks(n, block) floats.
template <bool Dot>
PLUMB_INLINE void multiTreeBody(int k, const float *const *a,
                                const float *const *b, int64_t n,
                                int64_t block, float *scratch, float *out) {
  const int64_t m = treeChunks(n, block);
  const int64_t bl = (m == 1) ? n : block;
  for (int64_t c = 0; c < m; ++c) {
    const int64_t lo = c * bl, hi = lo + bl < n ? lo + bl : n;
    float acc[kMultiRows];
    for (int q = 0; q < kMultiRows; ++q)
      acc[q] = -0.0f;
    if (k == kMultiRows) {
      for (int64_t i = lo; i < hi; ++i)
        for (int q = 0; q < kMultiRows; ++q)
          acc[q] = Dot ? fma_rn(a[q][i], b[q][i], acc[q]) : acc[q] + a[q][i];
    } else {
      for (int64_t i = lo; i < hi; ++i)
        for (int q = 0; q < k; ++q)
          acc[q] = Dot ? fma_rn(a[q][i], b[q][i], acc[q]) : acc[q] + a[q][i];
    }
    for (int q = 0; q < k; ++q)
      scratch[q * m + c] = acc[q];
  }
  for (int q = 0; q < k; ++q)
    out[q] = treeCombine(scratch + q * m, m);
}

PLUMB_OPS_TGT_FMA inline void multiTreeDotFma(int k, const float *const *a,
                                              const float *const *b, int64_t n,
                                              int64_t block, float *scratch,
                                              float *out) {
  multiTreeBody<true>(k, a, b, n, block, scratch, out);
}

template <bool Dot>
inline void multiTree(int k, const float *const *a, const float *const *b,
                      int64_t n, int64_t block, float *scratch, float *out) {
  if (Dot && cpuHasFma())
    multiTreeDotFma(k, a, b, n, block, scratch, out);
  else
    multiTreeBody<Dot>(k, a, b, n, block, scratch, out);
}

} // namespace ops
} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_SRC_OPS_INTERNAL_H
