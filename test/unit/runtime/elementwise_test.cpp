//===- test/unit/runtime/elementwise_test.cpp - Elementwise kernels -*- C++ -*-===//
//
// Part of Plumb. Unary, broadcasting binary, Where, variadic and Cast kernels
// against hand-computed values, float64 references and naive index math;
// thread-count invariance of the bits.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/broadcast.h"
#include "plumb/runtime/cast.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/math.h"
#include "plumb/runtime/threads.h"

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
float fbits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
const float kNaNPayload = fbits(0xFFC12345u);

std::vector<float> randomFloats(size_t n, uint32_t seed, float lo = -4,
                                float hi = 4) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(g);
  return v;
}

float unary(int op, float x, float a = 0, float b = 0) {
  float y;
  EXPECT_EQ(plumb_rt_unary_f32(op, &x, &y, 1, a, b), PLUMB_RT_OK);
  return y;
}

float binary(int op, float a, float b) {
  float y;
  EXPECT_EQ(plumb_rt_binary_f32(op, &a, nullptr, 0, &b, nullptr, 0, &y,
                                nullptr, 0),
            PLUMB_RT_OK);
  return y;
}

/// Naive broadcast offset of output linear index i for an input shape.
int64_t naiveOffset(const std::vector<int64_t> &out,
                    const std::vector<int64_t> &in, int64_t i) {
  int64_t off = 0, stride = 1;
  const size_t r = out.size(), ri = in.size();
  for (size_t k = 0; k < r; ++k) {
    size_t d = r - 1 - k;
    int64_t idx = i % out[d];
    i /= out[d];
    if (k < ri) {
      int64_t dim = in[ri - 1 - k];
      if (dim != 1)
        off += idx * stride;
      stride *= dim;
    }
  }
  return off;
}

int64_t numel(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (auto d : s)
    n *= d;
  return n;
}

} // namespace

TEST(Elementwise, UnaryHandValues) {
  EXPECT_EQ(bits(unary(PLUMB_RT_NEG, 0.0f)), 0x80000000u);
  EXPECT_EQ(bits(unary(PLUMB_RT_ABS, -0.0f)), 0u);
  EXPECT_EQ(bits(unary(PLUMB_RT_NEG, kNaNPayload)), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(unary(PLUMB_RT_ABS, -3.5f), 3.5f);
  EXPECT_EQ(bits(unary(PLUMB_RT_RELU, -0.0f)), 0u);
  EXPECT_EQ(bits(unary(PLUMB_RT_RELU, -2.0f)), 0u);
  EXPECT_EQ(unary(PLUMB_RT_RELU, 2.5f), 2.5f);
  EXPECT_EQ(bits(unary(PLUMB_RT_RELU, kNaNPayload)), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(unary(PLUMB_RT_LEAKY_RELU, -2.0f, 0.1f), -2.0f * 0.1f);
  EXPECT_EQ(bits(unary(PLUMB_RT_LEAKY_RELU, -0.0f, 0.1f)), 0x80000000u);
  EXPECT_EQ(unary(PLUMB_RT_CLIP, 5.0f, -1.0f, 2.0f), 2.0f);
  EXPECT_EQ(unary(PLUMB_RT_CLIP, -5.0f, -1.0f, 2.0f), -1.0f);
  EXPECT_EQ(unary(PLUMB_RT_CLIP, 0.5f, -1.0f, 2.0f), 0.5f);
  EXPECT_EQ(unary(PLUMB_RT_CLIP, 0.5f, 3.0f, 2.0f), 2.0f); // lo > hi -> hi
  EXPECT_EQ(unary(PLUMB_RT_CLIP, 0.5f, -kInf, kInf), 0.5f);
  EXPECT_EQ(bits(unary(PLUMB_RT_CLIP, kNaN, -1.0f, 1.0f)),
            PLUMB_CANONICAL_NAN_BITS);
  // HardSigmoid: t = alpha * x + beta (two roundings) clamped to [0, 1].
  EXPECT_EQ(unary(PLUMB_RT_HARD_SIGMOID, 1.0f, 0.2f, 0.5f), 0.2f * 1.0f + 0.5f);
  EXPECT_EQ(unary(PLUMB_RT_HARD_SIGMOID, 10.0f, 0.2f, 0.5f), 1.0f);
  EXPECT_EQ(bits(unary(PLUMB_RT_HARD_SIGMOID, -10.0f, 0.2f, 0.5f)), 0u);
  EXPECT_EQ(unary(PLUMB_RT_RECIPROCAL, 4.0f), 0.25f);
  EXPECT_EQ(unary(PLUMB_RT_RECIPROCAL, -0.0f), -kInf);
  EXPECT_EQ(unary(PLUMB_RT_SQRT, 2.0f), (float)std::sqrt(2.0));
  EXPECT_EQ(bits(unary(PLUMB_RT_SQRT, -1.0f)), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(bits(unary(PLUMB_RT_SQRT, -0.0f)), 0x80000000u);
  EXPECT_EQ(bits(unary(PLUMB_RT_LOG, -1.0f)), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(unary(PLUMB_RT_EXP, 0.0f), 1.0f);
  EXPECT_EQ(unary(PLUMB_RT_IDENTITY, 1.5f), 1.5f);
  EXPECT_EQ(bits(unary(PLUMB_RT_IDENTITY, kNaNPayload)),
            PLUMB_CANONICAL_NAN_BITS);
  float x = 1, y;
  EXPECT_EQ(plumb_rt_unary_f32(999, &x, &y, 1, 0, 0), PLUMB_RT_EINVAL);
}

TEST(Elementwise, TranscendentalsUseMathH) {
  auto v = randomFloats(4000, 7, -12, 12);
  // Specials inside SIMD blocks and in the tail.
  const uint32_t specials[] = {0xFFC12345u, 0x00000123u, 0xFF800000u,
                               0x7F800000u, 0x7F7FFFFFu, 0xFF7FFFFFu,
                               0x80000000u, 0x00000000u, 0x42B20000u,
                               0xC2CE0000u, 0x807FFFFFu};
  for (size_t i = 0; i < sizeof(specials) / 4; ++i) {
    v[i * 13 + 3] = fbits(specials[i]);
    v.push_back(fbits(specials[i]));
  }
  std::vector<float> y(v.size());
  struct Case {
    int op;
    float (*f)(float);
  } cases[] = {
      {PLUMB_RT_EXP, [](float a) { return plumb::rt::exp(a); }},
      {PLUMB_RT_LOG, [](float a) { return plumb::rt::log(a); }},
      {PLUMB_RT_TANH, [](float a) { return plumb::rt::tanh(a); }},
      {PLUMB_RT_SIGMOID, [](float a) { return plumb::rt::sigmoid(a); }},
      {PLUMB_RT_ERF, [](float a) { return plumb::rt::erf(a); }},
      {PLUMB_RT_GELU, [](float a) { return plumb::rt::gelu(a); }},
      {PLUMB_RT_GELU_TANH, [](float a) { return plumb::rt::gelu_tanh(a); }},
  };
  for (const Case &c : cases) {
    ASSERT_EQ(plumb_rt_unary_f32(c.op, v.data(), y.data(), (int64_t)v.size(),
                                 0, 0),
              PLUMB_RT_OK);
    for (size_t i = 0; i < v.size(); ++i) {
      float want = c.f(v[i]);
      if (want != want)
        want = fbits(PLUMB_CANONICAL_NAN_BITS);
      ASSERT_EQ(bits(y[i]), bits(want)) << "op " << c.op << " x " << v[i];
    }
  }
  // Spot values against float64 (correctly rounded functions).
  EXPECT_EQ(unary(PLUMB_RT_EXP, 1.0f), (float)std::exp(1.0));
  EXPECT_EQ(unary(PLUMB_RT_TANH, 0.5f), (float)std::tanh(0.5));
  EXPECT_NEAR(unary(PLUMB_RT_GELU, 1.0f), 0.8413447460685429, 1e-7);
}

TEST(Elementwise, RoundingSignActivations) {
  struct {
    float x, fl, ce, ro;
  } r[] = {{2.5f, 2, 3, 2},      {3.5f, 3, 4, 4},     {-2.5f, -3, -2, -2},
           {-0.3f, -1, -0.0f, -0.0f}, {0.5f, 0, 1, 0}, {-0.5f, -1, -0.0f, -0.0f},
           {1.5f, 1, 2, 2},      {8388609.0f, 8388609.0f, 8388609.0f, 8388609.0f},
           {-0.0f, -0.0f, -0.0f, -0.0f}, {0.49999997f, 0, 1, 0}, {-kInf, -kInf, -kInf, -kInf}};
  for (auto &c : r) {
    EXPECT_EQ(bits(unary(PLUMB_RT_FLOOR, c.x)), bits(c.fl)) << c.x;
    EXPECT_EQ(bits(unary(PLUMB_RT_CEIL, c.x)), bits(c.ce)) << c.x;
    EXPECT_EQ(bits(unary(PLUMB_RT_ROUND, c.x)), bits(c.ro)) << c.x;
    EXPECT_EQ(bits(unary(PLUMB_RT_FLOOR, c.x)), bits(std::floor(c.x)));
    EXPECT_EQ(bits(unary(PLUMB_RT_CEIL, c.x)), bits(std::ceil(c.x)));
    EXPECT_EQ(bits(unary(PLUMB_RT_ROUND, c.x)), bits(std::nearbyint(c.x)));
  }
  // Exhaustive-ish comparison with libm (test only) on random values.
  auto v = randomFloats(20000, 3, -100, 100);
  for (float x : v) {
    ASSERT_EQ(bits(unary(PLUMB_RT_FLOOR, x)), bits(std::floor(x)));
    ASSERT_EQ(bits(unary(PLUMB_RT_ROUND, x)), bits(std::nearbyint(x)));
  }
  EXPECT_EQ(bits(unary(PLUMB_RT_ROUND, kNaNPayload)), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(unary(PLUMB_RT_SIGN, -3.0f), -1.0f);
  EXPECT_EQ(unary(PLUMB_RT_SIGN, 1e-40f), 1.0f);
  EXPECT_EQ(bits(unary(PLUMB_RT_SIGN, -0.0f)), 0x80000000u);
  EXPECT_EQ(unary(PLUMB_RT_SOFTSIGN, 3.0f), 3.0f / 4.0f);
  EXPECT_EQ(unary(PLUMB_RT_SOFTPLUS, 0.0f), plumb::rt::log(2.0f));
  EXPECT_EQ(unary(PLUMB_RT_ELU, 2.0f, 0.7f), 2.0f);
  EXPECT_EQ(unary(PLUMB_RT_ELU, -1.0f, 0.7f),
            0.7f * (plumb::rt::exp(-1.0f) - 1.0f));
  EXPECT_EQ(unary(PLUMB_RT_SELU, 2.0f, 1.67326f, 1.0507f), 1.0507f * 2.0f);
  EXPECT_EQ(unary(PLUMB_RT_SELU, -1.0f, 1.67326f, 1.0507f),
            1.0507f * ((1.67326f * plumb::rt::exp(-1.0f)) - 1.67326f));
  EXPECT_NEAR(unary(PLUMB_RT_SOFTPLUS, 3.0f), std::log1p(std::exp(3.0)), 1e-6);
  // PRelu with a per-channel slope broadcast over [2, 3, 2].
  float x[12], slope[3] = {0.1f, 0.2f, 0.3f}, y[12];
  for (int i = 0; i < 12; ++i)
    x[i] = (float)(i - 6);
  int64_t xs[] = {2, 3, 2}, ss[] = {3, 1};
  ASSERT_EQ(plumb_rt_binary_f32(PLUMB_RT_PRELU, x, xs, 3, slope, ss, 2, y, xs,
                                3),
            0);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(y[i], x[i] < 0 ? slope[(i / 2) % 3] * x[i] : x[i]) << i;
}

TEST(Elementwise, MaxMinSignedZeroAndNaN) {
  EXPECT_EQ(bits(binary(PLUMB_RT_MAX, 0.0f, -0.0f)), 0u);
  EXPECT_EQ(bits(binary(PLUMB_RT_MAX, -0.0f, 0.0f)), 0u);
  EXPECT_EQ(bits(binary(PLUMB_RT_MIN, 0.0f, -0.0f)), 0x80000000u);
  EXPECT_EQ(bits(binary(PLUMB_RT_MIN, -0.0f, 0.0f)), 0x80000000u);
  EXPECT_EQ(bits(binary(PLUMB_RT_MAX, kNaNPayload, 1.0f)),
            PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(bits(binary(PLUMB_RT_MIN, 1.0f, kNaNPayload)),
            PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(binary(PLUMB_RT_MAX, -1.0f, -kInf), -1.0f);
  EXPECT_EQ(bits(binary(PLUMB_RT_ADD, kInf, -kInf)), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(bits(binary(PLUMB_RT_DIV, 0.0f, 0.0f)), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(binary(PLUMB_RT_DIV, 1.0f, 3.0f), 1.0f / 3.0f);
  // Subnormals are kept (no FTZ/DAZ).
  EXPECT_EQ(bits(binary(PLUMB_RT_MUL, fbits(0x00800000u), 0.5f)), 0x00400000u);
  EXPECT_EQ(bits(binary(PLUMB_RT_ADD, fbits(1u), fbits(1u))), 2u);
  EXPECT_EQ(binary(PLUMB_RT_POW, 2.0f, 10.0f), 1024.0f);
  EXPECT_EQ(binary(PLUMB_RT_POW, -2.0f, 3.0f), -8.0f);
  EXPECT_EQ(bits(binary(PLUMB_RT_POW, -2.0f, 0.5f)), PLUMB_CANONICAL_NAN_BITS);
}

TEST(Elementwise, BinaryBroadcastMatchesNaive) {
  struct Shapes {
    std::vector<int64_t> a, b, out;
  } cases[] = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
      {{2, 3, 4}, {}, {2, 3, 4}},
      {{}, {5}, {5}},
      {{2, 3, 4}, {4}, {2, 3, 4}},
      {{2, 1, 4}, {3, 1}, {2, 3, 4}},
      {{1, 3, 1}, {2, 1, 5}, {2, 3, 5}},
      {{4, 1}, {1, 7}, {4, 7}},
      {{2, 0, 3}, {3}, {2, 0, 3}},
      {{1, 2, 1, 3, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1, 2, 1}, {2, 2, 2, 3, 2, 2, 2, 2}},
      {{3, 1, 1, 1}, {1, 1, 1, 1}, {3, 1, 1, 1}},
  };
  const int fops[] = {PLUMB_RT_ADD, PLUMB_RT_SUB, PLUMB_RT_MUL, PLUMB_RT_DIV,
                      PLUMB_RT_MAX, PLUMB_RT_MIN, PLUMB_RT_POW};
  for (const Shapes &s : cases) {
    auto a = randomFloats((size_t)numel(s.a), 1, 0.5f, 3.0f);
    auto b = randomFloats((size_t)numel(s.b), 2, 0.5f, 3.0f);
    const int64_t n = numel(s.out);
    std::vector<float> y((size_t)n);
    std::vector<uint8_t> yb((size_t)n);
    for (int op : fops) {
      ASSERT_EQ(plumb_rt_binary_f32(op, a.data(), s.a.data(), (int)s.a.size(),
                                    b.data(), s.b.data(), (int)s.b.size(),
                                    y.data(), s.out.data(), (int)s.out.size()),
                PLUMB_RT_OK);
      for (int64_t i = 0; i < n; ++i) {
        float av = a[(size_t)naiveOffset(s.out, s.a, i)];
        float bv = b[(size_t)naiveOffset(s.out, s.b, i)];
        float want = op == PLUMB_RT_ADD   ? av + bv
                     : op == PLUMB_RT_SUB ? av - bv
                     : op == PLUMB_RT_MUL ? av * bv
                     : op == PLUMB_RT_DIV ? av / bv
                     : op == PLUMB_RT_MAX ? (av > bv ? av : bv)
                     : op == PLUMB_RT_MIN ? (av < bv ? av : bv)
                                          : plumb::rt::pow(av, bv);
        ASSERT_EQ(bits(y[(size_t)i]), bits(want)) << "op " << op << " i " << i;
      }
    }
    for (int op : {PLUMB_RT_LESS, PLUMB_RT_GREATER_OR_EQUAL, PLUMB_RT_EQUAL}) {
      ASSERT_EQ(plumb_rt_binary_f32(op, a.data(), s.a.data(), (int)s.a.size(),
                                    b.data(), s.b.data(), (int)s.b.size(),
                                    yb.data(), s.out.data(), (int)s.out.size()),
                PLUMB_RT_OK);
      for (int64_t i = 0; i < n; ++i) {
        float av = a[(size_t)naiveOffset(s.out, s.a, i)];
        float bv = b[(size_t)naiveOffset(s.out, s.b, i)];
        bool want = op == PLUMB_RT_LESS ? av < bv
                    : op == PLUMB_RT_EQUAL ? av == bv
                                           : av >= bv;
        ASSERT_EQ(yb[(size_t)i], want ? 1 : 0);
      }
    }
  }
}

// x ** 3 with a scalar exponent (gelu's tanh form as exported) takes the
// contiguous cube kernel: the same bits as pow per element.
TEST(Elementwise, PowByScalarThreeMatchesPow) {
  auto a = randomFloats(1003, 7, -60.0f, 60.0f);
  a[0] = 0.0f, a[1] = -0.0f, a[2] = INFINITY, a[3] = -INFINITY, a[4] = NAN, a[5] = 1e13f;
  a[6] = 1e-14f, a[7] = -3e-13f;
  const float three = 3.0f;
  const int64_t shape[] = {17, 59}, one[] = {1, 1};
  std::vector<float> y(a.size());
  for (int br : {0, 2}) {
    ASSERT_EQ(plumb_rt_binary_f32(PLUMB_RT_POW, a.data(), shape, 2, &three, one, br, y.data(),
                                  shape, 2),
              PLUMB_RT_OK);
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_EQ(bits(y[i]), bits(plumb::rt::canonicalize_nan(plumb::rt::pow(a[i], 3.0f))))
          << "x=" << a[i];
  }
}

TEST(Elementwise, BroadcastShapeErrors) {
  int64_t a[] = {2, 3}, b[] = {4}, out[8];
  EXPECT_EQ(plumb_rt_broadcast_shape(a, 2, b, 1, out), PLUMB_RT_ESHAPE);
  int64_t c[] = {3, 1, 1};
  ASSERT_EQ(plumb_rt_broadcast_shape(a, 2, c, 3, out), 3);
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 2);
  EXPECT_EQ(out[2], 3);
  float x[6] = {0}, y[4] = {0}, z[6];
  int64_t wrong[] = {2, 3};
  EXPECT_EQ(plumb_rt_binary_f32(PLUMB_RT_ADD, x, a, 2, y, b, 1, z, wrong, 2),
            PLUMB_RT_ESHAPE);
}

TEST(Elementwise, IntegerSemantics) {
  auto bi = [](int op, int64_t a, int64_t b) {
    int64_t y;
    EXPECT_EQ(plumb_rt_binary_i64(op, &a, nullptr, 0, &b, nullptr, 0, &y,
                                  nullptr, 0),
              PLUMB_RT_OK);
    return y;
  };
  const int64_t mn = std::numeric_limits<int64_t>::min(),
                mx = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(bi(PLUMB_RT_ADD, mx, 1), mn);
  EXPECT_EQ(bi(PLUMB_RT_MUL, mx, 2), -2);
  EXPECT_EQ(bi(PLUMB_RT_DIV, -7, 2), -3);
  EXPECT_EQ(bi(PLUMB_RT_DIV, 7, -2), -3);
  EXPECT_EQ(bi(PLUMB_RT_DIV, 7, 0), 0);
  EXPECT_EQ(bi(PLUMB_RT_DIV, mn, -1), mn);
  EXPECT_EQ(bi(PLUMB_RT_POW, 3, 4), 81);
  EXPECT_EQ(bi(PLUMB_RT_POW, 2, 64), 0);
  EXPECT_EQ(bi(PLUMB_RT_POW, -1, -3), -1);
  EXPECT_EQ(bi(PLUMB_RT_POW, 2, -1), 0);
  EXPECT_EQ(bi(PLUMB_RT_MAX, -5, 3), 3);
  EXPECT_EQ(bi(PLUMB_RT_SUB, mn, 1), mx);
  // ONNX Mod examples: fmod = 0 -> sign of divisor; fmod = 1 -> dividend.
  const int64_t ma[] = {-4, 7, 5, 4, -7, 8}, mb[] = {2, -3, 8, -2, 3, -5};
  const int64_t wmod[] = {0, -2, 5, 0, 2, -2}, wfmod[] = {0, 1, 5, 0, -1, 3};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(bi(PLUMB_RT_MOD, ma[i], mb[i]), wmod[i]) << i;
    EXPECT_EQ(bi(PLUMB_RT_FMOD, ma[i], mb[i]), wfmod[i]) << i;
  }
  EXPECT_EQ(bi(PLUMB_RT_MOD, 5, 0), 0);
  EXPECT_EQ(bi(PLUMB_RT_MOD, mn, -1), 0);
  int32_t a32 = std::numeric_limits<int32_t>::max(), b32 = 1, y32;
  ASSERT_EQ(plumb_rt_binary_i32(PLUMB_RT_ADD, &a32, nullptr, 0, &b32, nullptr,
                                0, &y32, nullptr, 0),
            PLUMB_RT_OK);
  EXPECT_EQ(y32, std::numeric_limits<int32_t>::min());
  int64_t ua[] = {mn, -3, 0, 7}, uy[4];
  ASSERT_EQ(plumb_rt_unary_i64(PLUMB_RT_ABS, ua, uy, 4, 0, 0), PLUMB_RT_OK);
  EXPECT_EQ(uy[0], mn);
  EXPECT_EQ(uy[1], 3);
  ASSERT_EQ(plumb_rt_unary_i64(PLUMB_RT_CLIP, ua, uy, 4, -1, 5), PLUMB_RT_OK);
  EXPECT_EQ(uy[0], -1);
  EXPECT_EQ(uy[3], 5);
  ASSERT_EQ(plumb_rt_unary_i64(PLUMB_RT_NEG, ua, uy, 4, 0, 0), PLUMB_RT_OK);
  EXPECT_EQ(uy[0], mn);
  EXPECT_EQ(uy[3], -7);
  // Integer comparisons broadcast too.
  int64_t sa[] = {2, 3}, sb[] = {3};
  int64_t va[] = {1, 5, 9, 2, 6, 7}, vb[] = {2, 5, 8};
  uint8_t yb[6];
  ASSERT_EQ(plumb_rt_binary_i64(PLUMB_RT_GREATER, va, sa, 2, vb, sb, 1, yb, sa,
                                2),
            PLUMB_RT_OK);
  const uint8_t want[] = {0, 0, 1, 0, 1, 0};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(yb[i], want[i]);
}

// Integer Pow (ONNX Pow with an integer base and exponent): the exact power
// wrapped to the width, by broadcasting; negative exponents give 1 / +-1 / 0.
TEST(Elementwise, IntegerPow) {
  const int32_t a[] = {3, -2, 2, 0, -1, 7, 1, -1, 0, INT32_MIN, 2};
  const int32_t e[] = {4, 3, -1, -2, -3, 20, -5, -4, 0, 1, 31};
  const int32_t want[] = {81, -8, 0, 0, -1, -1199696159, 1, 1, 1, INT32_MIN,
                          INT32_MIN};
  int32_t y[11];
  const int64_t shp[] = {11};
  ASSERT_EQ(plumb_rt_binary_i32(PLUMB_RT_POW, a, shp, 1, e, shp, 1, y, shp, 1),
            PLUMB_RT_OK);
  for (int i = 0; i < 11; ++i)
    EXPECT_EQ(y[i], want[i]) << i;
  // int64, broadcast exponent column against a base row.
  const int64_t b64[] = {3, -2, 5}, e64[] = {41, 63};
  const int64_t bs[] = {1, 3}, es[] = {2, 1}, ys[] = {2, 3};
  int64_t y64[6];
  ASSERT_EQ(plumb_rt_binary_i64(PLUMB_RT_POW, b64, bs, 2, e64, es, 2, y64, ys,
                                2),
            PLUMB_RT_OK);
  // 3^41 mod 2^64, (-2)^41 = -2^41, 5^41 mod 2^64; then ^63.
  const int64_t want64[] = {-420491770248316829LL, -2199023255552LL,
                            -3400437902937568539LL, -3237885987332494933LL,
                            INT64_MIN, -5790225837517463603LL};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(y64[i], want64[i]) << i;
}

TEST(Elementwise, BoolOps) {
  uint8_t a[] = {0, 0, 1, 1}, b[] = {0, 2, 0, 1}, y[4];
  int64_t s[] = {4};
  ASSERT_EQ(plumb_rt_binary_bool(PLUMB_RT_AND, a, s, 1, b, s, 1, y, s, 1), 0);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{0, 0, 0, 1}));
  ASSERT_EQ(plumb_rt_binary_bool(PLUMB_RT_OR, a, s, 1, b, s, 1, y, s, 1), 0);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{0, 1, 1, 1}));
  ASSERT_EQ(plumb_rt_binary_bool(PLUMB_RT_XOR, a, s, 1, b, s, 1, y, s, 1), 0);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{0, 1, 1, 0}));
  ASSERT_EQ(plumb_rt_not_bool(b, y, 4), 0);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{1, 0, 1, 0}));
}

TEST(Elementwise, WhereBroadcast) {
  uint8_t c[] = {1, 0, 1};
  int64_t cs[] = {1, 3};
  float x[] = {1, 2, 3, 4, 5, 6};
  int64_t xs[] = {2, 3};
  float y = -1;
  float out[6];
  int64_t os[] = {2, 3};
  ASSERT_EQ(plumb_rt_where(c, cs, 2, x, xs, 2, &y, nullptr, 0, out, os, 2, 4),
            PLUMB_RT_OK);
  const float want[] = {1, -1, 3, 4, -1, 6};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out[i], want[i]);
  int64_t xi[] = {10, 20, 30}, yi[] = {-1, -2, -3}, oi[3];
  int64_t s3[] = {3};
  ASSERT_EQ(plumb_rt_where(c, s3, 1, xi, s3, 1, yi, s3, 1, oi, s3, 1, 8), 0);
  EXPECT_EQ(oi[0], 10);
  EXPECT_EQ(oi[1], -2);
  EXPECT_EQ(oi[2], 30);
}

TEST(Elementwise, VariadicLeftToRight) {
  // (1e8 + 1) + -1e8 = 0 in float, 1e8 + (1 + -1e8) = 0 too; pick a case where
  // order matters: (a + b) + c with a = 1, b = 1e8, c = -1e8 gives 0, whereas
  // a + (b + c) gives 1.
  float a = 1.0f, b = 1e8f, c[2] = {-1e8f, 5.0f};
  int64_t cs[] = {2};
  const float *ins[] = {&a, &b, c};
  const int64_t *shapes[] = {nullptr, nullptr, cs};
  int32_t ranks[] = {0, 0, 1};
  float out[2];
  ASSERT_EQ(plumb_rt_variadic_f32(PLUMB_RT_ADD, 3, ins, shapes, ranks, out, cs,
                                  1),
            PLUMB_RT_OK);
  EXPECT_EQ(out[0], (1.0f + 1e8f) + -1e8f);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], (1.0f + 1e8f) + 5.0f);
  ASSERT_EQ(plumb_rt_variadic_f32(PLUMB_RT_MEAN, 3, ins, shapes, ranks, out, cs,
                                  1),
            PLUMB_RT_OK);
  EXPECT_EQ(out[1], ((1.0f + 1e8f) + 5.0f) / 3.0f);
  float n1 = kNaNPayload;
  const float *ins2[] = {c, &n1};
  const int64_t *shapes2[] = {cs, nullptr};
  int32_t ranks2[] = {1, 0};
  ASSERT_EQ(plumb_rt_variadic_f32(PLUMB_RT_MAX, 2, ins2, shapes2, ranks2, out,
                                  cs, 1),
            PLUMB_RT_OK);
  EXPECT_EQ(bits(out[0]), PLUMB_CANONICAL_NAN_BITS);
  const float *ins3[] = {c};
  ASSERT_EQ(plumb_rt_variadic_f32(PLUMB_RT_MIN, 1, ins3, shapes2, ranks2, out,
                                  cs, 1),
            PLUMB_RT_OK);
  EXPECT_EQ(out[0], c[0]);
  int64_t i1[] = {5, 7}, i2 = 3, io[2];
  const int64_t *iins[] = {i1, &i2};
  ASSERT_EQ(plumb_rt_variadic_i64(PLUMB_RT_MIN, 2, iins, shapes2, ranks2, io,
                                  cs, 1),
            PLUMB_RT_OK);
  EXPECT_EQ(io[0], 3);
  EXPECT_EQ(io[1], 3);
}

TEST(Elementwise, ThreadCountInvariance) {
  std::vector<int64_t> as = {37, 129, 61}, bs = {129, 1};
  auto a = randomFloats((size_t)numel(as), 11);
  auto b = randomFloats((size_t)numel(bs), 12);
  std::vector<float> ref((size_t)numel(as)), y(ref.size());
  std::vector<float> uref(a.size()), uy(a.size());
  plumb_rt_set_threads(1);
  ASSERT_EQ(plumb_rt_binary_f32(PLUMB_RT_DIV, a.data(), as.data(), 3, b.data(),
                                bs.data(), 2, ref.data(), as.data(), 3),
            0);
  ASSERT_EQ(plumb_rt_unary_f32(PLUMB_RT_GELU, a.data(), uref.data(),
                               (int64_t)a.size(), 0, 0),
            0);
  for (int t : {2, 3, 4, 8}) {
    plumb_rt_set_threads(t);
    ASSERT_EQ(plumb_rt_binary_f32(PLUMB_RT_DIV, a.data(), as.data(), 3,
                                  b.data(), bs.data(), 2, y.data(), as.data(),
                                  3),
              0);
    ASSERT_EQ(plumb_rt_unary_f32(PLUMB_RT_GELU, a.data(), uy.data(),
                                 (int64_t)a.size(), 0, 0),
              0);
    ASSERT_EQ(0, std::memcmp(ref.data(), y.data(), ref.size() * 4)) << t;
    ASSERT_EQ(0, std::memcmp(uref.data(), uy.data(), uref.size() * 4)) << t;
  }
  plumb_rt_set_threads(1);
}

TEST(Cast, Semantics) {
  float f[] = {1.9f, -1.9f, kNaN, kInf, -kInf, 3e9f, -3e9f, -0.0f, 1e19f};
  int64_t i64[9];
  int32_t i32[9];
  uint8_t b[9];
  ASSERT_EQ(plumb_rt_cast(f, PLUMB_RT_F32, i64, PLUMB_RT_I64, 9), 0);
  const int64_t w64[] = {1, -1, 0, INT64_MAX, INT64_MIN, 3000000000LL,
                         -3000000000LL, 0, INT64_MAX};
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(i64[i], w64[i]) << i;
  ASSERT_EQ(plumb_rt_cast(f, PLUMB_RT_F32, i32, PLUMB_RT_I32, 9), 0);
  const int32_t w32[] = {1, -1, 0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN,
                         0, INT32_MAX};
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(i32[i], w32[i]) << i;
  ASSERT_EQ(plumb_rt_cast(f, PLUMB_RT_F32, b, PLUMB_RT_BOOL, 9), 0);
  const uint8_t wb[] = {1, 1, 1, 1, 1, 1, 1, 0, 1};
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(b[i], wb[i]) << i;
  // int64 -> f32 rounds to nearest even: 2^24 + 1 -> 2^24, 2^24 + 3 -> 2^24+4.
  int64_t iv[] = {16777217, 16777219, -16777217, INT64_MAX};
  float fo[4];
  ASSERT_EQ(plumb_rt_cast(iv, PLUMB_RT_I64, fo, PLUMB_RT_F32, 4), 0);
  EXPECT_EQ(fo[0], 16777216.0f);
  EXPECT_EQ(fo[1], 16777220.0f);
  EXPECT_EQ(fo[2], -16777216.0f);
  EXPECT_EQ(fo[3], 9223372036854775808.0f);
  int64_t big[] = {0x1FFFFFFFFLL, -1};
  int32_t lo[2];
  ASSERT_EQ(plumb_rt_cast(big, PLUMB_RT_I64, lo, PLUMB_RT_I32, 2), 0);
  EXPECT_EQ(lo[0], -1);
  EXPECT_EQ(lo[1], -1);
  uint8_t bb[] = {0, 7};
  float bf[2];
  ASSERT_EQ(plumb_rt_cast(bb, PLUMB_RT_BOOL, bf, PLUMB_RT_F32, 2), 0);
  EXPECT_EQ(bf[0], 0.0f);
  EXPECT_EQ(bf[1], 1.0f);
  float nanIn = kNaNPayload, nanOut;
  ASSERT_EQ(plumb_rt_cast(&nanIn, PLUMB_RT_F32, &nanOut, PLUMB_RT_F32, 1), 0);
  EXPECT_EQ(bits(nanOut), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(plumb_rt_cast(f, 99, b, PLUMB_RT_BOOL, 1), PLUMB_RT_EINVAL);
}

// The vectorised float32 -> int32 cast gives castF32ToI32's value for every
// bit pattern class: random bits (NaN payloads, infinities, subnormals,
// huge values), the values either side of +-2^31, and signed zeros; 1-3
// threads over a range longer than a thread's share.
TEST(Cast, F32ToI32VectorMatchesScalar) {
  std::mt19937 g(29);
  std::vector<float> x(200003);
  for (size_t i = 0; i < x.size(); ++i) {
    const uint32_t u = (uint32_t)g();
    float f;
    std::memcpy(&f, &u, 4);
    x[i] = (i % 3 == 0) ? f : (float)((int64_t)(g() % 6000000000ULL) - 3000000000LL);
  }
  const float edges[] = {2147483648.0f, 2147483520.0f, -2147483648.0f,
                         -2147483904.0f, -0.0f, 0.0f, 0.99999994f, -0.99999994f,
                         kNaN, -kNaN, kInf, -kInf};
  for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); ++i)
    x[i * 7] = edges[i];
  std::vector<int32_t> want(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    want[i] = plumb::rt::ops::castF32ToI32(x[i]);
  for (int t : {1, 2, 3}) {
    plumb_rt_set_threads(t);
    std::vector<int32_t> y(x.size(), 7);
    ASSERT_EQ(plumb_rt_cast(x.data(), PLUMB_RT_F32, y.data(), PLUMB_RT_I32,
                            (int64_t)x.size()),
              0);
    ASSERT_EQ(y, want) << t;
  }
  plumb_rt_set_threads(1);
}
