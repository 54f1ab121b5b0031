//===- test/unit/runtime/softmax_test.cpp - Softmax family ---*- C++ -*-===//
//
// Part of Plumb. Softmax / LogSoftmax / Hardmax against the documented scalar
// sequence (bitwise), float64 (tolerance), aliasing and thread invariance.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/math.h"
#include "plumb/runtime/math_kernels.h"
#include "plumb/runtime/softmax.h"
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

std::vector<float> randomFloats(size_t n, uint32_t seed, float s = 8.0f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-s, s);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(g);
  return v;
}

/// The documented per-row sequence.
void refRow(const float *x, int64_t n, int64_t stride, bool log, int64_t block,
            float *y) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i)
    m = x[i * stride] > m ? x[i * stride] : m;
  std::vector<float> e((size_t)n), s((size_t)n + 1);
  for (int64_t i = 0; i < n; ++i)
    e[(size_t)i] = plumb::rt::exp(x[i * stride] - m);
  float sum = plumb::rt::treeSum(e.data(), n, 1, block, s.data());
  for (int64_t i = 0; i < n; ++i)
    y[i * stride] = log ? (x[i * stride] - m) - plumb::rt::log(sum)
                        : e[(size_t)i] / sum;
}

} // namespace

TEST(Softmax, MatchesDocumentedSequenceAndFloat64) {
  struct C {
    int64_t outer, len, inner;
  } cases[] = {{1, 10, 1},  {11, 33, 1},  {3, 5, 70},   {2, 129, 3},
               {4, 1, 5},   {1, 1000, 1}, {5, 17, 64}, {2, 3, 130},
               {1, 7, 600}, {3, 5, 300}}; // lane-tiled (W = 256) path
  for (const C &c : cases) {
    auto x = randomFloats((size_t)(c.outer * c.len * c.inner), 5);
    std::vector<float> y(x.size()), r(x.size());
    for (int lg = 0; lg < 2; ++lg)
      for (int64_t block : {0, 1, 4, 16}) {
        ASSERT_EQ(plumb_rt_softmax_f32(x.data(), y.data(), c.outer, c.len,
                                       c.inner, lg, block),
                  0);
        for (int64_t o = 0; o < c.outer; ++o)
          for (int64_t j = 0; j < c.inner; ++j)
            refRow(x.data() + o * c.len * c.inner + j, c.len, c.inner, lg,
                   block, r.data() + o * c.len * c.inner + j);
        ASSERT_EQ(0, std::memcmp(y.data(), r.data(), y.size() * 4))
            << c.outer << "x" << c.len << "x" << c.inner << " log " << lg;
        // float64 reference.
        for (int64_t o = 0; o < c.outer; ++o)
          for (int64_t j = 0; j < c.inner; ++j) {
            const float *p = x.data() + o * c.len * c.inner + j;
            double m = -INFINITY, s = 0;
            for (int64_t i = 0; i < c.len; ++i)
              m = std::max(m, (double)p[i * c.inner]);
            for (int64_t i = 0; i < c.len; ++i)
              s += std::exp(p[i * c.inner] - m);
            for (int64_t i = 0; i < c.len; ++i) {
              double want = lg ? (p[i * c.inner] - m) - std::log(s)
                               : std::exp(p[i * c.inner] - m) / s;
              double got = y[(size_t)(o * c.len * c.inner + j + i * c.inner)];
              ASSERT_NEAR(got, want, 2e-6 * (1 + std::fabs(want)));
            }
          }
      }
  }
}

TEST(Softmax, AliasingSpecialValuesThreads) {
  auto x = randomFloats(6 * 50 * 9, 3);
  std::vector<float> ref(x.size());
  for (int lg = 0; lg < 2; ++lg) {
    plumb_rt_set_threads(1);
    ASSERT_EQ(plumb_rt_softmax_f32(x.data(), ref.data(), 6, 50, 9, lg, 8), 0);
    std::vector<float> inplace(x);
    ASSERT_EQ(plumb_rt_softmax_f32(inplace.data(), inplace.data(), 6, 50, 9,
                                   lg, 8),
              0);
    EXPECT_EQ(0, std::memcmp(inplace.data(), ref.data(), ref.size() * 4));
    for (int t : {2, 3, 4, 8}) {
      plumb_rt_set_threads(t);
      std::vector<float> y(x.size());
      ASSERT_EQ(plumb_rt_softmax_f32(x.data(), y.data(), 6, 50, 9, lg, 8), 0);
      ASSERT_EQ(0, std::memcmp(y.data(), ref.data(), ref.size() * 4));
    }
  }
  // Shapes whose lane tiling depends on the thread count (W = inner for one
  // thread, 256-lane tiles for more): same bits.
  auto z = randomFloats(3 * 11 * 600, 4);
  for (int lg = 0; lg < 2; ++lg) {
    plumb_rt_set_threads(1);
    std::vector<float> r1(z.size()), rt(z.size());
    ASSERT_EQ(plumb_rt_softmax_f32(z.data(), r1.data(), 3, 11, 600, lg, 4), 0);
    for (int t : {2, 3, 4, 8}) {
      plumb_rt_set_threads(t);
      ASSERT_EQ(plumb_rt_softmax_f32(z.data(), rt.data(), 3, 11, 600, lg, 4),
                0);
      ASSERT_EQ(0, std::memcmp(r1.data(), rt.data(), r1.size() * 4));
    }
  }
  plumb_rt_set_threads(1);
  const float inf = std::numeric_limits<float>::infinity();
  float a[] = {-inf, -inf, 1.0f, -inf, 0.0f, 0.0f};
  float y[6];
  ASSERT_EQ(plumb_rt_softmax_f32(a, y, 3, 2, 1, 0, 0), 0);
  EXPECT_EQ(bits(y[0]), PLUMB_CANONICAL_NAN_BITS); // all -inf row
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(bits(y[3]), 0u);
  EXPECT_EQ(y[4], 0.5f);
  ASSERT_EQ(plumb_rt_softmax_f32(a, y, 3, 2, 1, 1, 0), 0);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], -inf);
  EXPECT_EQ(y[4], -plumb::rt::log(2.0f));
}

TEST(Softmax, Hardmax) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float x[] = {3, 1, 3, 2, /**/ 0, nan, 5, nan};
  float y[8];
  ASSERT_EQ(plumb_rt_hardmax_f32(x, y, 2, 4, 1), 0);
  const float w[] = {1, 0, 0, 0, 0, 1, 0, 0};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], w[i]) << i;
}

// The vector row passes (AVX-512 where the CPU has it) and the scalar ones
// give the same bits, on row lengths around the 16-lane width and rows with
// NaN, infinities and signed zeros (the Max fold's order-free cases).
TEST(Softmax, VectorRowsMatchScalar) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(0, 9);
  for (int64_t n : {1, 5, 15, 16, 17, 31, 33, 197, 1000}) {
    const int64_t rows = 11; // one full group of 8 and a partial one
    auto x = randomFloats(rows * n, 100 + static_cast<int>(n));
    for (int64_t r = 0; r < rows; ++r) {
      float *row = x.data() + r * n;
      switch (r) {
      case 1: row[pick(rng) % n] = nan; break;
      case 2: row[pick(rng) % n] = inf; break;
      case 3: for (int64_t i = 0; i < n; ++i) row[i] = -inf; break;
      case 4: for (int64_t i = 0; i < n; ++i) row[i] = (i % 2) ? 0.0f : -0.0f; break;
      case 5: for (int64_t i = 0; i < n; ++i) row[i] = -0.0f; break;
      case 6: row[n - 1] = 80.0f; break;
      default: break;
      }
    }
    for (int lg = 0; lg < 2; ++lg)
      for (int64_t block : {0, 4, 64}) {
        std::vector<float> vec(x.size()), sc(x.size());
        plumb_rt_math_set_isa(0);
        ASSERT_EQ(plumb_rt_softmax_f32(x.data(), vec.data(), rows, n, 1, lg,
                                       block), 0);
        plumb_rt_math_set_isa(1);
        ASSERT_EQ(plumb_rt_softmax_f32(x.data(), sc.data(), rows, n, 1, lg,
                                       block), 0);
        plumb_rt_math_set_isa(0);
        for (size_t i = 0; i < x.size(); ++i)
          ASSERT_EQ(bits(vec[i]), bits(sc[i]))
              << "n " << n << " log " << lg << " block " << block << " at "
              << i;
      }
  }
}
