//===- test/unit/runtime/reduce_test.cpp - Reduction kernels -*- C++ -*-===//
//
// Part of Plumb. Every fast path of plumb_rt_reduce_f32 must equal, bit for
// bit, tree.h's reference applied to the terms gathered in row-major order of
// the reduced axes; plus float64 sanity, empty/NaN cases, ArgMax rules and
// thread-count invariance.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/math.h"
#include "plumb/runtime/reduce.h"
#include "plumb/runtime/threads.h"
#include "plumb/runtime/tree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
const float kInf = std::numeric_limits<float>::infinity();

std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(g);
  return v;
}

/// Terms of every output, in row-major order of the reduced axes.
std::vector<std::vector<float>> gatherTerms(const std::vector<float> &x,
                                            const std::vector<int64_t> &shape,
                                            const std::vector<int64_t> &axes) {
  const size_t r = shape.size();
  std::vector<bool> red(r, false);
  for (auto a : axes)
    red[(size_t)a] = true;
  int64_t outs = 1, n = 1;
  for (size_t d = 0; d < r; ++d)
    (red[d] ? n : outs) *= shape[d];
  std::vector<std::vector<float>> terms((size_t)outs);
  std::vector<int64_t> idx(r, 0);
  int64_t total = 1;
  for (auto d : shape)
    total *= d;
  for (int64_t i = 0; i < total; ++i) {
    int64_t q = i;
    for (size_t d = r; d-- > 0;) {
      idx[d] = q % shape[d];
      q /= shape[d];
    }
    int64_t o = 0;
    for (size_t d = 0; d < r; ++d)
      if (!red[d])
        o = o * shape[d] + idx[d];
    // Row-major enumeration of the whole tensor visits the terms of each
    // output in row-major order of the reduced axes.
    terms[(size_t)o].push_back(x[(size_t)i]);
  }
  (void)n;
  return terms;
}

float refSum(const std::vector<float> &t, int64_t block) {
  std::vector<float> s((size_t)plumb::rt::treeChunks((int64_t)t.size(), block) + 1);
  return plumb::rt::treeSum(t.data(), (int64_t)t.size(), 1, block, s.data());
}

float refDot(const std::vector<float> &t, int64_t block) {
  std::vector<float> s((size_t)plumb::rt::treeChunks((int64_t)t.size(), block) + 1);
  return plumb::rt::treeDot(t.data(), 1, t.data(), 1, (int64_t)t.size(), block,
                            s.data());
}

/// Product tree written out independently: chunks from 1.0, padding 1.0.
float refProd(const std::vector<float> &t, int64_t block) {
  const int64_t n = (int64_t)t.size();
  const int64_t m = plumb::rt::treeChunks(n, block);
  const int64_t b = m == 1 ? n : block;
  int64_t p = 1;
  while (p < m)
    p <<= 1;
  std::vector<float> v((size_t)p, 1.0f);
  for (int64_t c = 0; c < m; ++c) {
    float a = 1.0f;
    for (int64_t i = c * b; i < std::min(n, (c + 1) * b); ++i)
      a = a * t[(size_t)i];
    v[(size_t)c] = a;
  }
  for (int64_t s = p / 2; s >= 1; s /= 2)
    for (int64_t i = 0; i < s; ++i)
      v[(size_t)i] = v[(size_t)i] * v[(size_t)(i + s)];
  return v[0];
}

struct Case {
  std::vector<int64_t> shape, axes;
};

const Case kCases[] = {
    {{6, 7}, {1}},         {{6, 7}, {0}},          {{6, 7}, {0, 1}},
    {{3, 40, 5}, {1}},     {{3, 4, 5, 6}, {1, 3}}, {{3, 4, 5, 6}, {0, 2}},
    {{3, 4, 5, 6}, {2, 3}}, {{2, 3, 130}, {0, 1}}, {{5, 1, 3}, {1}},
    {{4, 100}, {1}},       {{100, 70}, {0}},       {{1000}, {0}},
    {{2, 3, 4}, {}},       {{9, 17, 3}, {2, 0}},   {{3, 1, 1, 2}, {1, 2}},
};

} // namespace

TEST(Reduce, SumMeanProdMatchTreeReference) {
  for (const Case &c : kCases) {
    int64_t total = 1;
    for (auto d : c.shape)
      total *= d;
    auto x = randomFloats((size_t)total, (uint32_t)total);
    auto terms = gatherTerms(x, c.shape, c.axes);
    std::vector<float> y(terms.size());
    for (int64_t block : {0, 1, 2, 3, 7, 8, 64}) {
      struct {
        int op;
      } ops[] = {{PLUMB_RT_REDUCE_SUM}, {PLUMB_RT_REDUCE_MEAN},
                 {PLUMB_RT_REDUCE_PROD}, {PLUMB_RT_REDUCE_SUM_SQUARE},
                 {PLUMB_RT_REDUCE_L1}, {PLUMB_RT_REDUCE_L2},
                 {PLUMB_RT_REDUCE_MAX}, {PLUMB_RT_REDUCE_MIN},
                 {PLUMB_RT_REDUCE_LOG_SUM_EXP}};
      for (auto op : ops) {
        ASSERT_EQ(plumb_rt_reduce_f32(op.op, x.data(), c.shape.data(),
                                      (int)c.shape.size(), c.axes.data(),
                                      (int)c.axes.size(), y.data(), block),
                  PLUMB_RT_OK);
        for (size_t o = 0; o < terms.size(); ++o) {
          const auto &t = terms[o];
          float want;
          switch (op.op) {
          case PLUMB_RT_REDUCE_SUM:
            want = refSum(t, block);
            break;
          case PLUMB_RT_REDUCE_MEAN:
            want = refSum(t, block) / (float)t.size();
            break;
          case PLUMB_RT_REDUCE_PROD:
            want = refProd(t, block);
            break;
          case PLUMB_RT_REDUCE_SUM_SQUARE:
            want = refDot(t, block);
            break;
          case PLUMB_RT_REDUCE_L2:
            want = std::sqrt(refDot(t, block));
            break;
          case PLUMB_RT_REDUCE_L1: {
            std::vector<float> a(t);
            for (auto &v : a)
              v = std::fabs(v);
            want = refSum(a, block);
            break;
          }
          case PLUMB_RT_REDUCE_MAX:
            want = -kInf;
            for (float v : t)
              want = v > want ? v : want;
            break;
          case PLUMB_RT_REDUCE_MIN:
            want = kInf;
            for (float v : t)
              want = v < want ? v : want;
            break;
          default: { // log-sum-exp
            float m = -kInf;
            for (float v : t)
              m = v > m ? v : m;
            std::vector<float> e(t.size());
            for (size_t k = 0; k < t.size(); ++k)
              e[k] = plumb::rt::exp(t[k] - m);
            want = m + plumb::rt::log(refSum(e, block));
          }
          }
          ASSERT_EQ(bits(y[o]), bits(want))
              << "op " << op.op << " block " << block << " out " << o
              << " case rank " << c.shape.size();
        }
      }
      // float64 sanity of the sum.
      ASSERT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_SUM, x.data(),
                                    c.shape.data(), (int)c.shape.size(),
                                    c.axes.data(), (int)c.axes.size(),
                                    y.data(), block),
                0);
      for (size_t o = 0; o < terms.size(); ++o) {
        double s = 0;
        for (float v : terms[o])
          s += v;
        ASSERT_NEAR(y[o], s, 1e-5 * (double)terms[o].size() + 1e-6);
      }
    }
  }
}

TEST(Reduce, EmptyAndSpecialValues) {
  int64_t shape[] = {3, 0}, axes[] = {1};
  // Room for the largest result below (no axes over 2 x 2: four values).
  float y[4];
  struct {
    int op;
    uint32_t want;
  } empties[] = {{PLUMB_RT_REDUCE_SUM, 0x00000000u},
                 {PLUMB_RT_REDUCE_MEAN, PLUMB_CANONICAL_NAN_BITS},
                 {PLUMB_RT_REDUCE_PROD, 0x3F800000u},
                 {PLUMB_RT_REDUCE_MAX, 0xFF800000u},
                 {PLUMB_RT_REDUCE_MIN, 0x7F800000u},
                 {PLUMB_RT_REDUCE_L2, 0x00000000u},
                 {PLUMB_RT_REDUCE_LOG_SUM_EXP, 0xFF800000u}};
  for (auto e : empties) {
    ASSERT_EQ(plumb_rt_reduce_f32(e.op, nullptr, shape, 2, axes, 1, y, 0), 0);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(bits(y[i]), e.want) << e.op;
  }
  // Sum of -0.0 terms stays -0.0; NaN propagates canonically; +0 > -0.
  float z[] = {-0.0f, -0.0f, -0.0f, 0.0f};
  int64_t s1[] = {4}, a1[] = {0};
  ASSERT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_SUM, z, s1, 1, a1, 1, y, 0), 0);
  EXPECT_EQ(bits(y[0]), 0u);
  int64_t s3[] = {3};
  ASSERT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_SUM, z, s3, 1, a1, 1, y, 0), 0);
  EXPECT_EQ(bits(y[0]), 0x80000000u);
  ASSERT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_MAX, z, s1, 1, a1, 1, y, 0), 0);
  EXPECT_EQ(bits(y[0]), 0u);
  ASSERT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_MIN, z, s1, 1, a1, 1, y, 0), 0);
  EXPECT_EQ(bits(y[0]), 0x80000000u);
  float n[] = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f, -kInf};
  for (int op : {PLUMB_RT_REDUCE_SUM, PLUMB_RT_REDUCE_MAX, PLUMB_RT_REDUCE_MIN,
                 PLUMB_RT_REDUCE_PROD, PLUMB_RT_REDUCE_LOG_SUM_EXP}) {
    ASSERT_EQ(plumb_rt_reduce_f32(op, n, s1, 1, a1, 1, y, 2), 0);
    EXPECT_EQ(bits(y[0]), PLUMB_CANONICAL_NAN_BITS) << op;
  }
  // LogSumExp of [0, 0] = log 2; of a row with +inf = +inf.
  float l[] = {0.0f, 0.0f, kInf, 1.0f};
  int64_t s22[] = {2, 2};
  ASSERT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_LOG_SUM_EXP, l, s22, 2, a1 + 0,
                                0, y, 0),
            0); // no axes: identity-like per element
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], kInf);
  EXPECT_EQ(y[3], 1.0f);
  int64_t ax1[] = {1};
  ASSERT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_LOG_SUM_EXP, l, s22, 2, ax1, 1,
                                y, 0),
            0);
  EXPECT_EQ(y[0], plumb::rt::log(2.0f));
  EXPECT_EQ(y[1], kInf);
  int64_t dup[] = {1, 1};
  EXPECT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_SUM, l, s22, 2, dup, 2, y, 0),
            PLUMB_RT_EINVAL);
}

TEST(Reduce, IntegerReductions) {
  int64_t x[] = {1, -2, 3, 4, 5, INT64_MAX};
  int64_t shape[] = {2, 3}, ax[] = {1}, y[2];
  ASSERT_EQ(plumb_rt_reduce_i64(PLUMB_RT_REDUCE_SUM, x, shape, 2, ax, 1, y), 0);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], (int64_t)((uint64_t)9 + (uint64_t)INT64_MAX));
  ASSERT_EQ(plumb_rt_reduce_i64(PLUMB_RT_REDUCE_PROD, x, shape, 2, ax, 1, y), 0);
  EXPECT_EQ(y[0], -6);
  ASSERT_EQ(plumb_rt_reduce_i64(PLUMB_RT_REDUCE_MEAN, x, shape, 2, ax, 1, y), 0);
  EXPECT_EQ(y[0], 0); // 2 / 3 truncates
  int64_t ax0[] = {0};
  int64_t y3[3];
  ASSERT_EQ(plumb_rt_reduce_i64(PLUMB_RT_REDUCE_MIN, x, shape, 2, ax0, 1, y3),
            0);
  EXPECT_EQ(y3[0], 1);
  EXPECT_EQ(y3[1], -2);
  EXPECT_EQ(y3[2], 3);
}

TEST(Reduce, ArgMaxRules) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float x[] = {1, 3, 3, 2, /**/ 0.0f, -0.0f, 5, nan, /**/ nan, 1, nan, 9};
  int64_t shape[] = {3, 4};
  int64_t y[3];
  ASSERT_EQ(plumb_rt_argmax_f32(x, shape, 2, 1, 0, 0, y), 0);
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 3); // NaN beats everything
  EXPECT_EQ(y[2], 0); // first NaN
  ASSERT_EQ(plumb_rt_argmax_f32(x, shape, 2, 1, 0, 1, y), 0);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[2], 2); // last NaN
  ASSERT_EQ(plumb_rt_argmax_f32(x, shape, 2, 1, 1, 0, y), 0);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 3); // NaN also wins ArgMin
  float z[] = {0.0f, -0.0f};
  int64_t zs[] = {2};
  ASSERT_EQ(plumb_rt_argmax_f32(z, zs, 1, 0, 1, 0, y), 0);
  EXPECT_EQ(y[0], 0); // -0 ties +0
  // Axis 0 of a 3x4 tensor (inner stride path): four results.
  int64_t y4[4];
  ASSERT_EQ(plumb_rt_argmax_f32(x, shape, 2, 0, 0, 0, y4), 0);
  EXPECT_EQ(y4[0], 2);
  EXPECT_EQ(y4[1], 0);
  EXPECT_EQ(y4[2], 2);
  EXPECT_EQ(y4[3], 1);
  int64_t xi[] = {4, 9, 9, 1};
  int64_t is[] = {4};
  ASSERT_EQ(plumb_rt_argmax_i64(xi, is, 1, 0, 0, 1, y), 0);
  EXPECT_EQ(y[0], 2);
}

TEST(Reduce, ThreadCountInvarianceAllSchedules) {
  struct C {
    std::vector<int64_t> shape, axes;
    int64_t block;
  } cases[] = {{{64, 300, 17}, {1}, 16},   // tiled inner path
               {{300, 513}, {1}, 0},       // 8-output interleave
               {{300, 513}, {1}, 32},      // 8-chunk interleave
               {{1, 200000}, {1}, 64},     // chunk-parallel single output
               {{2, 100003}, {1}, 1000},   // chunk-parallel, partial chunk
               {{40, 30, 20}, {0, 2}, 8},  // offset-table path
               {{70000, 3}, {0}, 1}};      // many chunks: narrow lane tiles
  for (const C &c : cases) {
    int64_t total = 1;
    for (auto d : c.shape)
      total *= d;
    auto x = randomFloats((size_t)total, 99);
    auto terms = gatherTerms(x, c.shape, c.axes);
    std::vector<float> ref(terms.size()), y(terms.size());
    for (size_t o = 0; o < terms.size(); ++o)
      ref[o] = refSum(terms[o], c.block);
    for (int t : {1, 2, 3, 4, 8}) {
      plumb_rt_set_threads(t);
      ASSERT_EQ(plumb_rt_reduce_f32(PLUMB_RT_REDUCE_SUM, x.data(),
                                    c.shape.data(), (int)c.shape.size(),
                                    c.axes.data(), (int)c.axes.size(),
                                    y.data(), c.block),
                0);
      ASSERT_EQ(0, std::memcmp(ref.data(), y.data(), ref.size() * 4))
          << "threads " << t;
    }
  }
  plumb_rt_set_threads(1);
}

// ReduceMax / ReduceMin over trailing dims fold order keys (vectorised, a
// long row split over threads): the same bits as the sequential maxF /
// minF fold, with planted signed zeros, infinities and NaNs, whole-tensor
// and per-row, at 1-3 threads.
TEST(Reduce, MinMaxKeyFoldMatchesSequentialFold) {
  const int64_t rows = 3, cols = 70001;
  auto x = randomFloats((size_t)(rows * cols), 91);
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<float> v = x;
    if (variant >= 1) // every value a zero of either sign
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = (i % 3) ? 0.0f : -0.0f;
    if (variant == 2)
      v[123457] = -kInf, v[5] = kInf;
    if (variant == 3)
      v[140001] = std::numeric_limits<float>::quiet_NaN();
    for (int op : {PLUMB_RT_REDUCE_MAX, PLUMB_RT_REDUCE_MIN}) {
      const bool isMax = op == PLUMB_RT_REDUCE_MAX;
      auto seq = [&](int64_t lo, int64_t hi) {
        float a = isMax ? -kInf : kInf;
        for (int64_t i = lo; i < hi; ++i)
          a = isMax ? plumb::rt::ops::maxF(a, v[(size_t)i])
                    : plumb::rt::ops::minF(a, v[(size_t)i]);
        return plumb::rt::ops::canon(a);
      };
      const float whole = seq(0, rows * cols);
      float rowWant[rows];
      for (int64_t r = 0; r < rows; ++r)
        rowWant[r] = seq(r * cols, (r + 1) * cols);
      for (int t : {1, 2, 3}) {
        plumb_rt_set_threads(t);
        int64_t shape[] = {rows, cols}, all[] = {0, 1}, last[] = {1};
        float y[rows];
        ASSERT_EQ(plumb_rt_reduce_f32(op, v.data(), shape, 2, all, 2, y, 0),
                  0);
        EXPECT_EQ(bits(y[0]), bits(whole))
            << "op " << op << " variant " << variant << " threads " << t;
        ASSERT_EQ(plumb_rt_reduce_f32(op, v.data(), shape, 2, last, 1, y, 0),
                  0);
        for (int64_t r = 0; r < rows; ++r)
          EXPECT_EQ(bits(y[r]), bits(rowWant[r])) << "row " << r;
      }
      plumb_rt_set_threads(1);
    }
  }
}
