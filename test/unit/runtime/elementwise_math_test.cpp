//===- test/unit/runtime/elementwise_math_test.cpp - Issue 16 ops -*- C++ -*-===//
//
// Part of Plumb. The elementwise math ops of issue 16 (Celu, ThresholdedRelu,
// Shrink, Mish, Swish, float Mod with fmod = 1, the integer bitwise and shift
// codes) against their definitions: float fmod against the C library's fmod
// (exact in both) on random bit patterns and on every pair of specials, the
// activations against their operation sequences with math.h, the integer
// codes against the C++ operators.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/math.h"

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
const float kInf = std::numeric_limits<float>::infinity();

float unary(int32_t op, float x, float a = 0, float b = 0) {
  float y = 0;
  EXPECT_EQ(plumb_rt_unary_f32(op, &x, &y, 1, a, b), 0);
  return y;
}

float binary(int32_t op, float x, float y) {
  int64_t s[] = {1};
  float z = 0;
  EXPECT_EQ(plumb_rt_binary_f32(op, &x, s, 1, &y, s, 1, &z, s, 1), 0);
  return z;
}

/// C fmod as the reference, NaNs canonicalised.
uint32_t refFmod(float x, float y) {
  float r = std::fmod(x, y);
  return r != r ? PLUMB_CANONICAL_NAN_BITS : bits(r);
}

TEST(ElementwiseMath, FmodMatchesCOnRandomBits) {
  std::mt19937 rng(16);
  int64_t checked = 0;
  for (int i = 0; i < 2000000; ++i) {
    float x = fbits(rng()), y = fbits(rng());
    // Half of the pairs with close exponents (the long-division path).
    if (i & 1)
      y = fbits((bits(x) & 0xFF800000u) - ((rng() % 8) << 23) |
                (rng() & 0x807FFFFFu));
    ASSERT_EQ(bits(binary(PLUMB_RT_FMOD_F32, x, y)), refFmod(x, y))
        << std::hexfloat << x << " " << y;
    ++checked;
  }
  EXPECT_EQ(checked, 2000000);
}

TEST(ElementwiseMath, FmodSpecials) {
  const uint32_t sp[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
                         0x007FFFFFu, 0x00800000u, 0x3F800000u, 0xBF800000u,
                         0x3F800001u, 0x4B800001u, 0x7F7FFFFFu, 0xFF7FFFFFu,
                         0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC12345u,
                         0x40490FDBu, 0x3DCCCCCDu};
  for (uint32_t a : sp)
    for (uint32_t b : sp)
      EXPECT_EQ(bits(binary(PLUMB_RT_FMOD_F32, fbits(a), fbits(b))),
                refFmod(fbits(a), fbits(b)))
          << std::hex << a << " " << b;
  EXPECT_EQ(bits(binary(PLUMB_RT_FMOD_F32, -4.0f, 2.0f)), 0x80000000u);
  EXPECT_EQ(binary(PLUMB_RT_FMOD_F32, 7.5f, -2.0f), 1.5f);
}

TEST(ElementwiseMath, ActivationSequences) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-30.0f, 30.0f);
  for (int i = 0; i < 20000; ++i) {
    const float x = d(rng);
    float t = x / 1.5f;
    t = plumb::rt::exp(t);
    t = t - 1.0f;
    EXPECT_EQ(bits(unary(PLUMB_RT_CELU, x, 1.5f)),
              bits(x >= 0 ? x : 1.5f * t));
    EXPECT_EQ(bits(unary(PLUMB_RT_THRESHOLDED_RELU, x, 0.75f)),
              bits(x > 0.75f ? x : 0.0f));
    EXPECT_EQ(bits(unary(PLUMB_RT_SHRINK, x, 0.25f, 1.0f)),
              bits(x < -1.0f ? x + 0.25f : (x > 1.0f ? x - 0.25f : 0.0f)));
    float m = plumb::rt::exp(x);
    m = m + 1.0f;
    m = plumb::rt::log(m);
    m = plumb::rt::tanh(m);
    EXPECT_EQ(bits(unary(PLUMB_RT_MISH, x)), bits(x * m));
    const float s = plumb::rt::sigmoid(0.5f * x);
    EXPECT_EQ(bits(unary(PLUMB_RT_SWISH, x, 0.5f)), bits(x * s));
    // Against the real-number definitions (float64), within the roundings.
    const double xd = x;
    EXPECT_NEAR(unary(PLUMB_RT_SWISH, x, 0.5f), xd / (1 + std::exp(-0.5 * xd)),
                1e-6 * std::fabs(xd) + 1e-30);
  }
  EXPECT_EQ(bits(unary(PLUMB_RT_CELU, -0.0f, 1.0f)), 0x80000000u);
  EXPECT_EQ(bits(unary(PLUMB_RT_THRESHOLDED_RELU, fbits(0x7FC00000u), 1.0f)),
            0u);
  EXPECT_EQ(bits(unary(PLUMB_RT_SHRINK, fbits(0x7FC00000u), 0.0f, 0.5f)), 0u);
  EXPECT_EQ(unary(PLUMB_RT_MISH, 100.0f), 100.0f);
  EXPECT_EQ(unary(PLUMB_RT_MISH, kInf), kInf);
  EXPECT_EQ(bits(unary(PLUMB_RT_MISH, -kInf)), PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(bits(unary(PLUMB_RT_SWISH, -kInf, 1.0f)), PLUMB_CANONICAL_NAN_BITS);
}

template <typename T, typename F>
void checkIntBinary(int32_t (*kernel)(int32_t, const T *, const int64_t *,
                                      int32_t, const T *, const int64_t *,
                                      int32_t, void *, const int64_t *,
                                      int32_t),
                    int32_t op, F ref) {
  std::vector<T> a, b;
  const T vals[] = {0, 1, -1, 5, -6, 63, 64, 31, 32,
                    std::numeric_limits<T>::min(),
                    std::numeric_limits<T>::max(), (T)0x5A5A5A5A};
  for (T x : vals)
    for (T y : vals)
      a.push_back(x), b.push_back(y);
  std::vector<T> z(a.size());
  int64_t s[] = {(int64_t)a.size()};
  ASSERT_EQ(kernel(op, a.data(), s, 1, b.data(), s, 1, z.data(), s, 1), 0);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(z[i], ref(a[i], b[i])) << op << " " << a[i] << " " << b[i];
}

template <typename T, typename U> void checkIntOps(
    int32_t (*kernel)(int32_t, const T *, const int64_t *, int32_t, const T *,
                      const int64_t *, int32_t, void *, const int64_t *,
                      int32_t)) {
  const T w = (T)(8 * sizeof(T));
  checkIntBinary<T>(kernel, PLUMB_RT_BIT_AND, [](T x, T y) { return T(x & y); });
  checkIntBinary<T>(kernel, PLUMB_RT_BIT_OR, [](T x, T y) { return T(x | y); });
  checkIntBinary<T>(kernel, PLUMB_RT_BIT_XOR, [](T x, T y) { return T(x ^ y); });
  checkIntBinary<T>(kernel, PLUMB_RT_SHIFT_LEFT, [w](T x, T y) {
    return y < 0 || y >= w ? T(0) : T((U)x << (U)y);
  });
  checkIntBinary<T>(kernel, PLUMB_RT_SHIFT_RIGHT, [w](T x, T y) {
    return y < 0 || y >= w ? T(0) : T((U)x >> (U)y);
  });
}

TEST(ElementwiseMath, IntegerBitwiseAndShifts) {
  checkIntOps<int64_t, uint64_t>(plumb_rt_binary_i64);
  checkIntOps<int32_t, uint32_t>(plumb_rt_binary_i32);
}

} // namespace
