//===- runtime/src/softmax.cpp - Softmax / LogSoftmax / Hardmax -*- C++ -*-===//
//
// Part of Plumb. Semantics in softmax.h. Rows are processed in tiles of up to
// 64 adjacent `inner` positions so that every pass is a loop over the tile
// lanes (vectorisable); each lane performs exactly its own row's sequence.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/softmax.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/tree.h"

#include "ops_internal.h"

#include <vector>

using namespace plumb::rt::ops;

namespace {
constexpr int64_t kTile = 64;

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
  const int64_t tilesPer = (inner + kTile - 1) / kTile;
  parallelRange(outer * tilesPer, 1 + (1 << 13) / (n * (inner < kTile ? inner : kTile)),
                [&](int64_t lo, int64_t hi) {
    std::vector<float> buf((size_t)(kTile * (m + 1)));
    float *mx = buf.data();
    float *v = buf.data() + kTile;
    for (int64_t it = lo; it < hi; ++it) {
      const int64_t o = it / tilesPer, j0 = (it - o * tilesPer) * kTile;
      const int64_t w = inner - j0 < kTile ? inner - j0 : kTile;
      const float *px = x + o * n * inner + j0;
      float *py = y + o * n * inner + j0;
      for (int64_t j = 0; j < w; ++j)
        mx[j] = negInf();
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < w; ++j)
          mx[j] = maxF(mx[j], px[i * inner + j]);
      // Softmax keeps e_i in y (x may alias y: each e_i overwrites only its
      // own x_i after reading it). LogSoftmax recomputes nothing from y: it
      // sums e_i on the fly and later reads x again.
      if (!log_softmax)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < w; ++j)
            py[i * inner + j] = ::plumb::rt::exp(px[i * inner + j] - mx[j]);
      for (int64_t c = 0; c < m; ++c) {
        float *a = v + c * w;
        for (int64_t j = 0; j < w; ++j)
          a[j] = -0.0f;
        const int64_t kend = (c + 1) * b < n ? (c + 1) * b : n;
        if (log_softmax) {
          for (int64_t i = c * b; i < kend; ++i)
            for (int64_t j = 0; j < w; ++j)
              a[j] = a[j] + ::plumb::rt::exp(px[i * inner + j] - mx[j]);
        } else {
          for (int64_t i = c * b; i < kend; ++i)
            for (int64_t j = 0; j < w; ++j)
              a[j] = a[j] + py[i * inner + j];
        }
      }
      combineLanes(v, m, w, [](float p, float q) { return p + q; });
      if (log_softmax) {
        for (int64_t j = 0; j < w; ++j)
          v[j] = ::plumb::rt::log(v[j]);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < w; ++j)
            py[i * inner + j] = canon((px[i * inner + j] - mx[j]) - v[j]);
      } else {
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < w; ++j)
            py[i * inner + j] = canon(py[i * inner + j] / v[j]);
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
