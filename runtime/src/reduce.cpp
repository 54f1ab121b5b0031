//===- runtime/src/reduce.cpp - Reduction kernels ------------*- C++ -*-===//
//
// Part of Plumb. Reduce* and ArgMax/ArgMin; exact semantics in reduce.h.
//
// Schedules (all bit-identical to the per-output reference of tree.h):
//  * The input is viewed as alternating kept / reduced dim groups. When the
//    innermost group is kept (extent `inner`, stride 1), tiles of up to 64
//    consecutive outputs are reduced together: for every chunk each lane j
//    accumulates its own terms in order (a plain loop over j the compiler
//    vectorises), then chunk vectors are combined by the same stride-halving.
//  * When the innermost group is reduced, one output is a strided sum; the
//    sequential chains of 8 chunks (or of 8 outputs for a one-chunk tree) are
//    interleaved for instruction-level parallelism.
//  * Fewer outputs than threads: the chunks of one output are computed in
//    parallel (the tree fixes them), then combined on one thread.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/reduce.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/tree.h"

#include "ops_internal.h"

#include <algorithm>
#include <vector>

using namespace plumb::rt::ops;
using plumb::rt::fma_rn;
using plumb::rt::treeChunks;

namespace {

constexpr int64_t kTile = 64;

struct Layout {
  int64_t outer = 1, inner = 1, n = 1, outputs = 1;
  int32_t nk = 0, nr = 0;
  int64_t kdims[PLUMB_RT_MAX_RANK], kstr[PLUMB_RT_MAX_RANK];
  int64_t rdims[PLUMB_RT_MAX_RANK], rstr[PLUMB_RT_MAX_RANK];
  std::vector<int64_t> table; // term offsets when nr > 1

  int64_t keptOff(int64_t o) const {
    int64_t off = 0;
    for (int32_t d = nk - 1; d >= 0; --d) {
      int64_t q = o / kdims[d];
      off += (o - q * kdims[d]) * kstr[d];
      o = q;
    }
    return off;
  }
  int64_t termOff(int64_t k) const {
    return nr == 1 ? k * rstr[0] : (nr == 0 ? 0 : table[k]);
  }
};

int makeLayout(Layout &L, const int64_t *shape, int32_t rank,
               const int64_t *axes, int32_t n_axes) {
  if (rank < 0 || rank > 64 || !validShape(shape, rank) || n_axes < 0 ||
      (n_axes > 0 && !axes))
    return PLUMB_RT_EINVAL;
  bool red[64] = {false};
  for (int32_t i = 0; i < n_axes; ++i) {
    if (axes[i] < 0 || axes[i] >= rank || red[axes[i]])
      return PLUMB_RT_EINVAL;
    red[axes[i]] = true;
  }
  // Groups of equal kind, size-1 dims dropped.
  int64_t gd[64], gs[64];
  bool gr[64];
  int32_t g = 0;
  int64_t stride = 1;
  int64_t st[64];
  for (int32_t d = rank - 1; d >= 0; --d) {
    st[d] = stride;
    stride *= shape[d];
  }
  L.n = 1;
  L.outputs = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (red[d])
      L.n *= shape[d];
    else
      L.outputs *= shape[d];
    if (shape[d] == 1)
      continue;
    if (g > 0 && gr[g - 1] == red[d]) {
      gd[g - 1] *= shape[d];
      gs[g - 1] = st[d];
      continue;
    }
    gd[g] = shape[d];
    gs[g] = st[d];
    gr[g] = red[d];
    ++g;
  }
  L.inner = 1;
  if (g > 0 && !gr[g - 1]) {
    L.inner = gd[g - 1];
    --g;
  }
  L.nk = L.nr = 0;
  for (int32_t i = 0; i < g; ++i) {
    if (L.nk >= PLUMB_RT_MAX_RANK || L.nr >= PLUMB_RT_MAX_RANK)
      return PLUMB_RT_ESHAPE;
    if (gr[i]) {
      L.rdims[L.nr] = gd[i];
      L.rstr[L.nr++] = gs[i];
    } else {
      L.kdims[L.nk] = gd[i];
      L.kstr[L.nk++] = gs[i];
    }
  }
  L.outer = L.inner == 0 ? 0 : L.outputs / (L.inner ? L.inner : 1);
  if (L.nr > 1 && L.n > 0) {
    L.table.resize((size_t)L.n);
    for (int64_t k = 0; k < L.n; ++k) {
      int64_t off = 0, q = k;
      for (int32_t d = L.nr - 1; d >= 0; --d) {
        int64_t r = q / L.rdims[d];
        off += (q - r * L.rdims[d]) * L.rstr[d];
        q = r;
      }
      L.table[(size_t)k] = off;
    }
  }
  return PLUMB_RT_OK;
}

/// Max (isMax) or Min fold of n contiguous floats through order keys
/// (elementwise.h): integer max/min of maxKey/minKey, exactly the maxF /
/// minF fold in any order (both are associative and commutative, -0 < +0,
/// NaN absorbing), so it vectorises.
template <bool isMax>
__attribute__((always_inline)) inline int32_t keyFold(const float *p,
                                                      int64_t n) {
  int32_t acc = isMax ? INT32_MIN : INT32_MAX;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = isMax ? maxKey(p[i]) : minKey(p[i]);
    acc = isMax ? (k > acc ? k : acc) : (k < acc ? k : acc);
  }
  return acc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) int32_t keyFoldMax512(const float *p,
                                                         int64_t n) {
  return keyFold<true>(p, n);
}
__attribute__((target("avx512f"))) int32_t keyFoldMin512(const float *p,
                                                         int64_t n) {
  return keyFold<false>(p, n);
}
#endif
int32_t keyFoldMaxBase(const float *p, int64_t n) { return keyFold<true>(p, n); }
int32_t keyFoldMinBase(const float *p, int64_t n) { return keyFold<false>(p, n); }

/// ReduceMax / ReduceMin whose every output reduces n contiguous floats
/// (the reduced dims are the trailing ones): key folds, split over the
/// threads by output, or by chunks of one output's terms.
void minMaxContiguous(bool isMax, const Layout &L, const float *x, float *y) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool has512 = __builtin_cpu_supports("avx512f");
  int32_t (*fold)(const float *, int64_t) =
      has512 ? (isMax ? keyFoldMax512 : keyFoldMin512)
             : (isMax ? keyFoldMaxBase : keyFoldMinBase);
#else
  int32_t (*fold)(const float *, int64_t) =
      isMax ? keyFoldMaxBase : keyFoldMinBase;
#endif
  const int64_t n = L.n;
  auto finish = [&](int32_t k) {
    // The empty-fold value of the tree form is -inf (max) / +inf (min).
    const int32_t init = isMax ? maxKey(negInf()) : minKey(posInf());
    const int32_t r = isMax ? (k > init ? k : init) : (k < init ? k : init);
    return canon(fromKey(r));
  };
  if (L.outputs == 1 && n >= (1 << 16) && plumb_rt_get_threads() > 1) {
    const int64_t chunk = 1 << 14, chunks = (n + chunk - 1) / chunk;
    std::vector<int32_t> part((size_t)chunks);
    parallelRange(chunks, 4, [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c)
        part[(size_t)c] =
            fold(x + c * chunk, std::min<int64_t>(chunk, n - c * chunk));
    });
    int32_t acc = part[0];
    for (int32_t k : part)
      acc = isMax ? std::max(acc, k) : std::min(acc, k);
    y[0] = finish(acc);
    return;
  }
  parallelRange(L.outputs, 1 + (1 << 16) / (n + 1), [&](int64_t lo,
                                                         int64_t hi) {
    for (int64_t o = lo; o < hi; ++o)
      y[o] = finish(fold(x + L.keptOff(o), n));
  });
}

/// Stride-halving combine of m vectors of width w (v[c*w + j]) with `comb`.
template <typename Comb>
inline void combineVec(float *v, int64_t m, int64_t w, Comb comb) {
  int64_t p = 1;
  while (p < m)
    p <<= 1;
  for (int64_t s = p >> 1; s >= 1; s >>= 1) {
    for (int64_t i = 0; i < s && i + s < m; ++i)
      for (int64_t j = 0; j < w; ++j)
        v[i * w + j] = comb(v[i * w + j], v[(i + s) * w + j]);
    if (m > s)
      m = s;
  }
}

/// The blocked tree for every output: chunks accumulate acc = step(acc, t)
/// from `init`, chunk results combine with `comb`, `fin` maps the result.
template <typename Step, typename Comb, typename Fin>
void reduceTree(const Layout &L, const float *x, float *y, int64_t block,
                float init, Step step, Comb comb, Fin fin) {
  const int64_t n = L.n;
  const int64_t m = treeChunks(n, block);
  const int64_t b = (m == 1) ? n : block;
  if (L.inner > 1) {
    // Lane tile width: up to 64, smaller when there are many chunks so the
    // chunk-result scratch (m x tile) stays <= 64K floats.
    int64_t T = (int64_t(1) << 16) / m;
    T = T < 1 ? 1 : (T > kTile ? kTile : T);
    const int64_t tilesPer = (L.inner + T - 1) / T;
    const int64_t items = L.outer * tilesPer;
    parallelRange(items, 1 + (1 << 14) / (n * T + 1),
                  [&](int64_t lo, int64_t hi) {
      std::vector<float> scratch((size_t)(m * T));
      float *v = scratch.data();
      for (int64_t it = lo; it < hi; ++it) {
        const int64_t o = it / tilesPer, j0 = (it - o * tilesPer) * T;
        const int64_t w = L.inner - j0 < T ? L.inner - j0 : T;
        const float *base = x + L.keptOff(o) + j0;
        for (int64_t c = 0; c < m; ++c) {
          float *a = v + c * w;
          for (int64_t j = 0; j < w; ++j)
            a[j] = init;
          const int64_t kend = (c + 1) * b < n ? (c + 1) * b : n;
          for (int64_t k = c * b; k < kend; ++k) {
            const float *p = base + L.termOff(k);
            for (int64_t j = 0; j < w; ++j)
              a[j] = step(a[j], p[j]);
          }
        }
        combineVec(v, m, w, comb);
        float *out = y + o * L.inner + j0;
        for (int64_t j = 0; j < w; ++j)
          out[j] = fin(v[j]);
      }
    });
    return;
  }
  // inner == 1: one strided reduction per output.
  const int64_t outs = L.outer;
  auto chunk = [&](const float *base, int64_t c) {
    float a = init;
    const int64_t kend = (c + 1) * b < n ? (c + 1) * b : n;
    for (int64_t k = c * b; k < kend; ++k)
      a = step(a, base[L.termOff(k)]);
    return a;
  };
  // Chunks of one output, 8 full chunks interleaved when the terms are
  // equally strided.
  auto chunks = [&](const float *base, int64_t c0, int64_t c1, float *v) {
    int64_t c = c0;
    if (L.nr == 1) {
      const int64_t rs = L.rstr[0];
      for (; c + 8 <= c1 && (c + 8) * b <= n; c += 8) {
        float a[8];
        for (int q = 0; q < 8; ++q)
          a[q] = init;
        const float *p = base + c * b * rs;
        for (int64_t i = 0; i < b; ++i)
          for (int q = 0; q < 8; ++q)
            a[q] = step(a[q], p[(q * b + i) * rs]);
        for (int q = 0; q < 8; ++q)
          v[c + q] = a[q];
      }
    }
    for (; c < c1; ++c)
      v[c] = chunk(base, c);
  };
  const int threads = plumb_rt_get_threads();
  if (m > 1 && outs < threads && m >= 16) {
    std::vector<float> v((size_t)m);
    for (int64_t o = 0; o < outs; ++o) {
      const float *base = x + L.keptOff(o);
      parallelRange(m, 8, [&](int64_t lo, int64_t hi) {
        chunks(base, lo, hi, v.data());
      });
      combineVec(v.data(), m, 1, comb);
      y[o] = fin(v[0]);
    }
    return;
  }
  parallelRange(outs, 1 + (1 << 14) / (n + 1), [&](int64_t lo, int64_t hi) {
    if (m == 1) {
      int64_t o = lo;
      for (; o + 8 <= hi; o += 8) {
        const float *bases[8];
        float a[8];
        for (int q = 0; q < 8; ++q) {
          bases[q] = x + L.keptOff(o + q);
          a[q] = init;
        }
        for (int64_t k = 0; k < n; ++k) {
          const int64_t off = L.termOff(k);
          for (int q = 0; q < 8; ++q)
            a[q] = step(a[q], bases[q][off]);
        }
        for (int q = 0; q < 8; ++q)
          y[o + q] = fin(a[q]);
      }
      for (; o < hi; ++o)
        y[o] = fin(chunk(x + L.keptOff(o), 0));
      return;
    }
    std::vector<float> v((size_t)m);
    for (int64_t o = lo; o < hi; ++o) {
      chunks(x + L.keptOff(o), 0, m, v.data());
      combineVec(v.data(), m, 1, comb);
      y[o] = fin(v[0]);
    }
  });
}

void fillF(float *y, int64_t n, float v) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = v;
}

/// LogSumExp per output (reference schedule, parallel over outputs).
void logSumExp(const Layout &L, const float *x, float *y, int64_t block) {
  const int64_t n = L.n;
  const int64_t m = treeChunks(n, block);
  parallelRange(L.outputs, 1 + (1 << 12) / (n + 1), [&](int64_t lo,
                                                        int64_t hi) {
    std::vector<float> e((size_t)n), s((size_t)m);
    for (int64_t o = lo; o < hi; ++o) {
      const int64_t oo = o / L.inner, j = o - oo * L.inner;
      const float *base = x + L.keptOff(oo) + j;
      float mx = negInf();
      for (int64_t k = 0; k < n; ++k)
        mx = maxF(mx, base[L.termOff(k)]);
      if (mx != mx || mx == posInf() || mx == negInf()) {
        y[o] = canon(mx);
        continue;
      }
      for (int64_t k = 0; k < n; ++k)
        e[(size_t)k] = ::plumb::rt::exp(base[L.termOff(k)] - mx);
      float sum = ::plumb::rt::treeSum(e.data(), n, 1, block, s.data());
      y[o] = canon(mx + ::plumb::rt::log(sum));
    }
  });
}

} // namespace

extern "C" {

int plumb_rt_reduce_f32(int32_t op, const float *x, const int64_t *shape,
                        int32_t rank, const int64_t *axes, int32_t n_axes,
                        float *y, int64_t block) {
  Layout L;
  int rc = makeLayout(L, shape, rank, axes, n_axes);
  if (rc != PLUMB_RT_OK)
    return rc;
  if (L.outputs == 0)
    return PLUMB_RT_OK;
  if (!y || (L.n > 0 && !x))
    return PLUMB_RT_EINVAL;
  if (block < 0)
    block = 0;
  auto add = [](float a, float t) { return a + t; };
  auto mul = [](float a, float t) { return a * t; };
  auto fc = [](float v) { return canon(v); };
  if (L.n == 0) {
    float e;
    switch (op) {
    case PLUMB_RT_REDUCE_SUM:
    case PLUMB_RT_REDUCE_SUM_SQUARE:
    case PLUMB_RT_REDUCE_L1:
    case PLUMB_RT_REDUCE_L2:
      e = 0.0f;
      break;
    case PLUMB_RT_REDUCE_MEAN:
      e = canonicalNaN();
      break;
    case PLUMB_RT_REDUCE_PROD:
      e = 1.0f;
      break;
    case PLUMB_RT_REDUCE_MAX:
    case PLUMB_RT_REDUCE_LOG_SUM:
    case PLUMB_RT_REDUCE_LOG_SUM_EXP:
      e = negInf();
      break;
    case PLUMB_RT_REDUCE_MIN:
      e = posInf();
      break;
    default:
      return PLUMB_RT_EINVAL;
    }
    fillF(y, L.outputs, e);
    return PLUMB_RT_OK;
  }
  switch (op) {
  case PLUMB_RT_REDUCE_SUM:
    reduceTree(L, x, y, block, -0.0f, add, add, fc);
    return PLUMB_RT_OK;
  case PLUMB_RT_REDUCE_MEAN: {
    const float nf = (float)L.n;
    reduceTree(L, x, y, block, -0.0f, add, add,
               [nf](float v) { return canon(v / nf); });
    return PLUMB_RT_OK;
  }
  case PLUMB_RT_REDUCE_MAX:
  case PLUMB_RT_REDUCE_MIN:
    if (L.inner == 1 && L.nr == 1 && L.rstr[0] == 1) {
      minMaxContiguous(op == PLUMB_RT_REDUCE_MAX, L, x, y);
      return PLUMB_RT_OK;
    }
    if (op == PLUMB_RT_REDUCE_MAX)
      reduceTree(L, x, y, 0, negInf(),
                 [](float a, float t) { return maxF(a, t); }, add, fc);
    else
      reduceTree(L, x, y, 0, posInf(),
                 [](float a, float t) { return minF(a, t); }, add, fc);
    return PLUMB_RT_OK;
  case PLUMB_RT_REDUCE_PROD:
    reduceTree(L, x, y, block, 1.0f, mul, mul, fc);
    return PLUMB_RT_OK;
  case PLUMB_RT_REDUCE_SUM_SQUARE:
    reduceTree(L, x, y, block, -0.0f,
               [](float a, float t) { return fma_rn(t, t, a); }, add, fc);
    return PLUMB_RT_OK;
  case PLUMB_RT_REDUCE_L1:
    reduceTree(L, x, y, block, -0.0f,
               [](float a, float t) { return a + absF(t); }, add, fc);
    return PLUMB_RT_OK;
  case PLUMB_RT_REDUCE_L2:
    reduceTree(L, x, y, block, -0.0f,
               [](float a, float t) { return fma_rn(t, t, a); }, add,
               [](float v) { return canon(sqrtRn(v)); });
    return PLUMB_RT_OK;
  case PLUMB_RT_REDUCE_LOG_SUM:
    reduceTree(L, x, y, block, -0.0f, add, add,
               [](float v) { return canon(::plumb::rt::log(v)); });
    return PLUMB_RT_OK;
  case PLUMB_RT_REDUCE_LOG_SUM_EXP:
    logSumExp(L, x, y, block);
    return PLUMB_RT_OK;
  default:
    return PLUMB_RT_EINVAL;
  }
}

int plumb_rt_reduce_i64(int32_t op, const int64_t *x, const int64_t *shape,
                        int32_t rank, const int64_t *axes, int32_t n_axes,
                        int64_t *y) {
  Layout L;
  int rc = makeLayout(L, shape, rank, axes, n_axes);
  if (rc != PLUMB_RT_OK)
    return rc;
  if (L.outputs == 0)
    return PLUMB_RT_OK;
  if (!y || (L.n > 0 && !x))
    return PLUMB_RT_EINVAL;
  int64_t init;
  switch (op) {
  case PLUMB_RT_REDUCE_SUM:
  case PLUMB_RT_REDUCE_MEAN:
  case PLUMB_RT_REDUCE_SUM_SQUARE:
  case PLUMB_RT_REDUCE_L1:
    init = 0;
    break;
  case PLUMB_RT_REDUCE_PROD:
    init = 1;
    break;
  case PLUMB_RT_REDUCE_MAX:
    init = INT64_MIN;
    break;
  case PLUMB_RT_REDUCE_MIN:
    init = INT64_MAX;
    break;
  default:
    return PLUMB_RT_EINVAL;
  }
  const int64_t n = L.n;
  parallelRange(L.outputs, 1 + (1 << 14) / (n + 1), [&](int64_t lo,
                                                         int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) {
      const int64_t oo = o / L.inner, j = o - oo * L.inner;
      const int64_t *base = x + L.keptOff(oo) + j;
      int64_t a = init;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t t = base[L.termOff(k)];
        switch (op) {
        case PLUMB_RT_REDUCE_PROD:
          a = mulI(a, t);
          break;
        case PLUMB_RT_REDUCE_MAX:
          a = maxI(a, t);
          break;
        case PLUMB_RT_REDUCE_MIN:
          a = minI(a, t);
          break;
        case PLUMB_RT_REDUCE_SUM_SQUARE:
          a = addI(a, mulI(t, t));
          break;
        case PLUMB_RT_REDUCE_L1:
          a = addI(a, absI(t));
          break;
        default:
          a = addI(a, t);
          break;
        }
      }
      if (op == PLUMB_RT_REDUCE_MEAN)
        a = n > 0 ? divI(a, n) : 0;
      y[o] = a;
    }
  });
  return PLUMB_RT_OK;
}

} // extern "C"

namespace {

template <typename T, typename IsNaN>
int argReduce(const T *x, const int64_t *shape, int32_t rank, int32_t axis,
              int32_t is_min, int32_t last, int64_t *y, IsNaN nanOf) {
  if (!validShape(shape, rank) || rank < 1 || axis < 0 || axis >= rank)
    return PLUMB_RT_EINVAL;
  const int64_t outer = prodDims(shape, 0, axis), len = shape[axis],
                inner = prodDims(shape, axis + 1, rank);
  if (outer * inner == 0)
    return PLUMB_RT_OK;
  if (len == 0 || !x || !y)
    return PLUMB_RT_EINVAL;
  parallelRange(outer * inner, 1 + (1 << 14) / len, [&](int64_t lo,
                                                         int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) {
      const int64_t oo = o / inner, j = o - oo * inner;
      const T *p = x + oo * len * inner + j;
      T best = p[0];
      bool bestNaN = nanOf(best);
      int64_t bi = 0;
      for (int64_t k = 1; k < len; ++k) {
        const T v = p[k * inner];
        const bool vNaN = nanOf(v);
        bool take;
        if (bestNaN)
          take = last && vNaN;
        else if (vNaN)
          take = true;
        else if (v == best)
          take = last != 0;
        else
          take = is_min ? (v < best) : (v > best);
        if (take) {
          best = v;
          bestNaN = vNaN;
          bi = k;
        }
      }
      y[o] = bi;
    }
  });
  return PLUMB_RT_OK;
}

} // namespace

extern "C" int plumb_rt_argmax_f32(const float *x, const int64_t *shape,
                                   int32_t rank, int32_t axis, int32_t is_min,
                                   int32_t select_last_index, int64_t *y) {
  return argReduce(x, shape, rank, axis, is_min, select_last_index, y,
                   [](float v) { return v != v; });
}

extern "C" int plumb_rt_argmax_i64(const int64_t *x, const int64_t *shape,
                                   int32_t rank, int32_t axis, int32_t is_min,
                                   int32_t select_last_index, int64_t *y) {
  return argReduce(x, shape, rank, axis, is_min, select_last_index, y,
                   [](int64_t) { return false; });
}

extern "C" int plumb_rt_argmax_i32(const int32_t *x, const int64_t *shape,
                                   int32_t rank, int32_t axis, int32_t is_min,
                                   int32_t select_last_index, int64_t *y) {
  return argReduce(x, shape, rank, axis, is_min, select_last_index, y,
                   [](int32_t) { return false; });
}

namespace {

/// TopK on one slice at a time: indices 0..len-1 partially sorted by a
/// strict total order (value order, NaN above every number, ties by index),
/// so any correct selection gives the same k indices in the same order.
template <typename T, typename IsNaN, typename Canon>
int topK(const T *x, const int64_t *shape, int32_t rank, int32_t axis,
         int64_t k, int32_t largest, T *values, int64_t *indices, IsNaN nanOf,
         Canon canon) {
  if (!validShape(shape, rank) || rank < 1 || axis < 0 || axis >= rank)
    return PLUMB_RT_EINVAL;
  const int64_t outer = prodDims(shape, 0, axis), len = shape[axis],
                inner = prodDims(shape, axis + 1, rank);
  if (k < 0 || k > len)
    return PLUMB_RT_EINVAL;
  if (outer * inner == 0 || k == 0)
    return PLUMB_RT_OK;
  if (!x || !values || !indices)
    return PLUMB_RT_EINVAL;
  parallelRange(outer * inner, 1 + (1 << 14) / len, [&](int64_t lo,
                                                         int64_t hi) {
    std::vector<int64_t> idx((size_t)len);
    for (int64_t o = lo; o < hi; ++o) {
      const int64_t oo = o / inner, j = o - oo * inner;
      const T *p = x + oo * len * inner + j;
      // before(a, b): element a comes first.
      auto before = [&](int64_t a, int64_t b) {
        const T va = p[a * inner], vb = p[b * inner];
        const bool na = nanOf(va), nb = nanOf(vb);
        if (na || nb) {
          if (na && nb)
            return a < b;
          return largest ? na : nb;
        }
        if (va == vb)
          return a < b;
        return largest ? va > vb : va < vb;
      };
      for (int64_t i = 0; i < len; ++i)
        idx[(size_t)i] = i;
      std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), before);
      T *vo = values + oo * k * inner + j;
      int64_t *io = indices + oo * k * inner + j;
      for (int64_t i = 0; i < k; ++i) {
        vo[i * inner] = canon(p[idx[(size_t)i] * inner]);
        io[i * inner] = idx[(size_t)i];
      }
    }
  });
  return PLUMB_RT_OK;
}

} // namespace

extern "C" int plumb_rt_topk_f32(const float *x, const int64_t *shape,
                                 int32_t rank, int32_t axis, int64_t k,
                                 int32_t largest, float *values,
                                 int64_t *indices) {
  return topK(x, shape, rank, axis, k, largest, values, indices,
              [](float v) { return v != v; },
              [](float v) { return plumb::rt::canonicalize_nan(v); });
}

extern "C" int plumb_rt_topk_i64(const int64_t *x, const int64_t *shape,
                                 int32_t rank, int32_t axis, int64_t k,
                                 int32_t largest, int64_t *values,
                                 int64_t *indices) {
  return topK(x, shape, rank, axis, k, largest, values, indices,
              [](int64_t) { return false; }, [](int64_t v) { return v; });
}

extern "C" int plumb_rt_topk_i32(const int32_t *x, const int64_t *shape,
                                 int32_t rank, int32_t axis, int64_t k,
                                 int32_t largest, int32_t *values,
                                 int64_t *indices) {
  return topK(x, shape, rank, axis, k, largest, values, indices,
              [](int32_t) { return false; }, [](int32_t v) { return v; });
}
