//===- runtime/src/softmax.cpp - Softmax / LogSoftmax / Hardmax -*- C++ -*-===//
//
// Part of Plumb. Semantics in softmax.h. Each outer index is one contiguous
// (axis_len x inner) block: every pass is a loop over the inner lanes
// (vectorisable), exp runs through math.h's SIMD array kernel, and each lane
// performs exactly its own row's sequence.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/softmax.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/math_kernels.h"
#include "plumb/runtime/tree.h"

#include "ops_internal.h"

#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLUMB_SOFTMAX_X86 1
#include <immintrin.h>
#define PLUMB_TGT_AVX512 __attribute__((target("avx512f,avx2,fma")))
#else
#define PLUMB_SOFTMAX_X86 0
#endif

using namespace plumb::rt::ops;

namespace {

#if PLUMB_SOFTMAX_X86
bool rowsAvx512() {
  static const bool cpu = __builtin_cpu_supports("avx512f");
  return cpu && plumb_rt_math_active_isa() >= 3;
}

/// The Max fold of a row (maxF, which is order-free: NaN propagates as the
/// canonical NaN, +0 > -0), 16 lanes at a time, then across the lanes.
PLUMB_TGT_AVX512 float rowMaxAvx512(const float *x, int64_t n) {
  __m512 acc = _mm512_set1_ps(negInf());
  __mmask16 nan = 0;
  int64_t i = 0;
  auto step = [&](__m512 v) PLUMB_TGT_AVX512 {
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    const __mmask16 gt = _mm512_cmp_ps_mask(v, acc, _CMP_GT_OQ);
    const __mmask16 eq = _mm512_cmp_ps_mask(v, acc, _CMP_EQ_OQ);
    acc = _mm512_mask_blend_ps(gt, acc, v);
    acc = _mm512_castsi512_ps(_mm512_mask_and_epi32(
        _mm512_castps_si512(acc), eq, _mm512_castps_si512(acc),
        _mm512_castps_si512(v)));
  };
  for (; i + 16 <= n; i += 16)
    step(_mm512_loadu_ps(x + i));
  if (i < n) {
    const __mmask16 live = static_cast<__mmask16>((1u << (n - i)) - 1u);
    step(_mm512_mask_loadu_ps(_mm512_set1_ps(negInf()), live, x + i));
  }
  if (nan)
    return canonicalNaN();
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, acc);
  float m = lanes[0];
  for (int l = 1; l < 16; ++l)
    m = maxF(m, lanes[l]);
  return m;
}

/// y[i] = x[i] - m (one rounding each, as the scalar loop).
PLUMB_TGT_AVX512 void rowSubAvx512(const float *x, float m, float *y,
                                   int64_t n) {
  const __m512 mv = _mm512_set1_ps(m);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, _mm512_sub_ps(_mm512_loadu_ps(x + i), mv));
  for (; i < n; ++i)
    y[i] = x[i] - m;
}

/// y[i] = canon(y[i] / s) (div) or canon(y[i] - s) (log-softmax).
PLUMB_TGT_AVX512 void rowFinishAvx512(float *y, float s, int64_t n, bool div) {
  const __m512 sv = _mm512_set1_ps(s);
  const __m512 qnan = _mm512_set1_ps(canonicalNaN());
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(y + i);
    __m512 r = div ? _mm512_div_ps(v, sv) : _mm512_sub_ps(v, sv);
    r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), r, qnan);
    _mm512_storeu_ps(y + i, r);
  }
  for (; i < n; ++i)
    y[i] = canon(div ? y[i] / s : y[i] - s);
}
#endif

template <typename Comb>
inline void combineLanes(float *v, int64_t m, int64_t w, Comb comb) {
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
} // namespace

extern "C" int plumb_rt_softmax_f32(const float *x, float *y, int64_t outer,
                                    int64_t axis_len, int64_t inner,
                                    int32_t log_softmax, int64_t block) {
  if (outer < 0 || axis_len < 0 || inner < 0)
    return PLUMB_RT_EINVAL;
  if (outer * axis_len * inner == 0)
    return PLUMB_RT_OK;
  if (!x || !y)
    return PLUMB_RT_EINVAL;
  const int64_t n = axis_len;
  const int64_t m = plumb::rt::treeChunks(n, block);
  const int64_t b = (m == 1) ? n : block;
  if (inner == 1) {
    // Contiguous rows: groups of 8 rows so that the max folds and the tree
    // sums of different rows interleave (each row keeps its own sequence).
    const int64_t groups = (outer + kMultiRows - 1) / kMultiRows;
    parallelRange(groups, 1 + (1 << 11) / n, [&](int64_t lo, int64_t hi) {
      std::vector<float> e(log_softmax ? (size_t)(kMultiRows * n) : 0);
      std::vector<float> scratch((size_t)(kMultiRows * m));
      for (int64_t gi = lo; gi < hi; ++gi) {
        const int64_t r0 = gi * kMultiRows;
        const int k = (int)(outer - r0 < kMultiRows ? outer - r0 : kMultiRows);
        float mx[kMultiRows], sum[kMultiRows];
        const float *rows[kMultiRows];
        for (int q = 0; q < kMultiRows; ++q)
          mx[q] = negInf();
#if PLUMB_SOFTMAX_X86
        if (rowsAvx512()) {
          // Row by row, 16 lanes at a time: the same values as below.
          for (int q = 0; q < k; ++q) {
            const float *px = x + (r0 + q) * n;
            float *py = y + (r0 + q) * n;
            mx[q] = rowMaxAvx512(px, n);
            rowSubAvx512(px, mx[q], py, n);
            float *pe = log_softmax ? e.data() + q * n : py;
            plumb_rt_exp_f32(py, pe, n);
            rows[q] = pe;
          }
          multiTree<false>(k, rows, nullptr, n, block, scratch.data(), sum);
          for (int q = 0; q < k; ++q)
            rowFinishAvx512(y + (r0 + q) * n,
                            log_softmax ? ::plumb::rt::log(sum[q]) : sum[q],
                            n, !log_softmax);
          continue;
        }
#endif
        if (k == kMultiRows) {
          for (int64_t i = 0; i < n; ++i)
            for (int q = 0; q < kMultiRows; ++q)
              mx[q] = maxF(mx[q], x[(r0 + q) * n + i]);
        } else {
          for (int q = 0; q < k; ++q)
            for (int64_t i = 0; i < n; ++i)
              mx[q] = maxF(mx[q], x[(r0 + q) * n + i]);
        }
        for (int q = 0; q < k; ++q) {
          const float *px = x + (r0 + q) * n;
          float *py = y + (r0 + q) * n;
          for (int64_t i = 0; i < n; ++i)
            py[i] = px[i] - mx[q];
          float *pe = log_softmax ? e.data() + q * n : py;
          plumb_rt_exp_f32(py, pe, n);
          rows[q] = pe;
        }
        multiTree<false>(k, rows, nullptr, n, block, scratch.data(), sum);
        for (int q = 0; q < k; ++q) {
          float *py = y + (r0 + q) * n;
          if (log_softmax) {
            const float ls = ::plumb::rt::log(sum[q]);
            for (int64_t i = 0; i < n; ++i)
              py[i] = canon(py[i] - ls);
          } else {
            const float s = sum[q];
            for (int64_t i = 0; i < n; ++i)
              py[i] = canon(py[i] / s);
          }
        }
      }
    });
    return PLUMB_RT_OK;
  }
  const int64_t len = n * inner; // one (axis, inner) block per outer index
  // Work items: (outer index, lane tile). Whole blocks when there are enough
  // outer indices for the threads, else tiles of 256 lanes.
  const int threads = plumb_rt_get_threads();
  const int64_t W = (outer >= 2 * threads || inner <= 256) ? inner : 256;
  const int64_t tiles = (inner + W - 1) / W;
  parallelRange(outer * tiles, 1 + (1 << 14) / (n * W), [&](int64_t lo,
                                                            int64_t hi) {
    std::vector<float> mx((size_t)W), v((size_t)(m * W));
    std::vector<float> e(log_softmax ? (size_t)(n * W) : 0);
    for (int64_t it = lo; it < hi; ++it) {
      const int64_t o = it / tiles, j0 = (it - o * tiles) * W;
      const int64_t w = inner - j0 < W ? inner - j0 : W;
      const float *px = x + o * len + j0;
      float *py = y + o * len + j0;
      for (int64_t j = 0; j < w; ++j)
        mx[(size_t)j] = negInf();
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < w; ++j)
          mx[(size_t)j] = maxF(mx[(size_t)j], px[i * inner + j]);
      // d_i = x_i - m into y (x may alias y: each element is read before it
      // is overwritten), then e_i = exp(d_i) with math.h's array kernel:
      // in place for Softmax, into a scratch block (row stride w) for
      // LogSoftmax.
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < w; ++j)
          py[i * inner + j] = px[i * inner + j] - mx[(size_t)j];
      float *pe = log_softmax ? e.data() : py;
      const int64_t es = log_softmax ? w : inner; // row stride of e
      if (w == inner)
        plumb_rt_exp_f32(py, pe, len);
      else
        for (int64_t i = 0; i < n; ++i)
          plumb_rt_exp_f32(py + i * inner, pe + i * es, w);
      // Per-lane blocked tree over the axis.
      for (int64_t c = 0; c < m; ++c) {
        float *a = v.data() + c * w;
        for (int64_t j = 0; j < w; ++j)
          a[j] = -0.0f;
        const int64_t kend = (c + 1) * b < n ? (c + 1) * b : n;
        for (int64_t i = c * b; i < kend; ++i)
          for (int64_t j = 0; j < w; ++j)
            a[j] = a[j] + pe[i * es + j];
      }
      combineLanes(v.data(), m, w, [](float p, float q) { return p + q; });
      if (log_softmax) {
        for (int64_t j = 0; j < w; ++j)
          v[(size_t)j] = ::plumb::rt::log(v[(size_t)j]);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < w; ++j)
            py[i * inner + j] = canon(py[i * inner + j] - v[(size_t)j]);
      } else {
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < w; ++j)
            py[i * inner + j] = canon(py[i * inner + j] / v[(size_t)j]);
      }
    }
  });
  return PLUMB_RT_OK;
}

extern "C" int plumb_rt_hardmax_f32(const float *x, float *y, int64_t outer,
                                    int64_t axis_len, int64_t inner) {
  if (outer < 0 || axis_len < 0 || inner < 0)
    return PLUMB_RT_EINVAL;
  if (outer * axis_len * inner == 0)
    return PLUMB_RT_OK;
  if (!x || !y)
    return PLUMB_RT_EINVAL;
  parallelRange(outer * inner, 1 + 4096 / axis_len, [&](int64_t lo,
                                                          int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t o = r / inner, j = r - o * inner;
      const float *p = x + o * axis_len * inner + j;
      float *q = y + o * axis_len * inner + j;
      int64_t bi = 0;
      float best = p[0];
      for (int64_t i = 1; i < axis_len; ++i) {
        const float v = p[i * inner];
        if (best != best)
          break;
        if (v != v || v > best) {
          best = v;
          bi = i;
        }
      }
      for (int64_t i = 0; i < axis_len; ++i)
        q[i * inner] = i == bi ? 1.0f : 0.0f;
    }
  });
  return PLUMB_RT_OK;
}
