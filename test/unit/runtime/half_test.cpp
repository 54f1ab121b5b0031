//===- test/unit/runtime/half_test.cpp - float16 / bfloat16 -----*- C++ -*-===//
//
// Part of Plumb. The float32 <-> float16 / bfloat16 conversions (half.h) and
// the round_f16 / round_bf16 kernels: every 2-byte value widens exactly and
// rounds back to itself; float32 values round to nearest even, against a
// float64 reference (the nearest multiple of the value's quantum), over a
// sweep of bit patterns that holds every half-way case of each exponent,
// subnormals, the overflow threshold and NaN.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

using namespace plumb::rt::half;

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

/// The float32 bits of x rounded to a binary format with `mant` fraction
/// bits, smallest normal exponent `emin` and largest finite value `max`,
/// computed in float64: the nearest multiple of the quantum 2^(e - mant),
/// ties to even (nearbyint under the default mode), |y| > max -> inf.
uint32_t reference(float x, int mant, int emin, double max) {
  if (std::isnan(x))
    return 0x7FC00000u;
  if (std::isinf(x) || x == 0)
    return bits(x);
  double d = x;
  int e = std::ilogb(d);
  if (e < emin)
    e = emin;
  double q = std::ldexp(1.0, e - mant);
  double y = std::nearbyint(d / q) * q; // d / q is exact: a power of two
  if (std::fabs(y) > max)
    y = std::copysign(INFINITY, d);
  if (y == 0)
    return bits(std::signbit(d) ? -0.0f : 0.0f);
  return bits(float(y));
}
uint32_t refF16(float x) { return reference(x, 10, -14, 65504.0); }
uint32_t refBf16(float x) {
  return reference(x, 7, -126, double(fbits(0x7F7F0000u)));
}

/// Bit patterns: every sign and exponent, the fraction bits around each
/// rounding boundary of `dropped` low bits (below, at and above half way,
/// odd and even kept parts), plus random patterns.
std::vector<uint32_t> sweep(int dropped) {
  std::vector<uint32_t> v;
  const uint32_t half = 1u << (dropped - 1), low = (1u << dropped) - 1;
  const uint32_t lows[] = {0,        1,        half - 1, half,
                           half + 1, low - 1,  low};
  std::mt19937 g(20);
  for (uint32_t se = 0; se < 512; ++se) // sign and exponent
    for (int k = 0; k < 64; ++k) {
      // kept fraction bits: the lowest patterns, the highest, random ones
      uint32_t keptBits = 23 - dropped;
      uint32_t kept = k < 8 ? uint32_t(k)
                      : k < 16
                          ? ((1u << keptBits) - 1 - uint32_t(k - 8))
                          : uint32_t(g()) & ((1u << keptBits) - 1);
      for (uint32_t l : lows)
        v.push_back(se << 23 | kept << dropped | l);
    }
  for (int i = 0; i < 1 << 20; ++i)
    v.push_back(uint32_t(g()));
  return v;
}

TEST(Half, EveryFloat16WidensExactlyAndRoundsToItself) {
  int nan = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    uint32_t f = f16ToF32Bits(uint16_t(h));
    bool isNaN = (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu);
    if (isNaN) {
      ++nan;
      EXPECT_EQ(f, 0x7FC00000u) << h;
      EXPECT_EQ(f32BitsToF16(f), 0x7E00u);
      continue;
    }
    // The value: sign * (implicit bit + fraction) * 2^exponent.
    int e = int(h >> 10 & 31), m = int(h & 1023);
    double want = e == 31 ? INFINITY
                  : e == 0 ? std::ldexp(double(m), -24)
                           : std::ldexp(double(1024 + m), e - 25);
    if (h & 0x8000u)
      want = -want;
    ASSERT_EQ(double(fbits(f)), want) << h;
    ASSERT_EQ(std::signbit(fbits(f)), bool(h & 0x8000u)) << h;
    ASSERT_EQ(f32BitsToF16(f), h) << h;
    ASSERT_EQ(bits(roundToF16(fbits(f))), f) << h;
  }
  EXPECT_EQ(nan, 2 * 1023);
}

TEST(Half, EveryBfloat16WidensExactlyAndRoundsToItself) {
  for (uint32_t h = 0; h < 65536; ++h) {
    uint32_t f = bf16ToF32Bits(uint16_t(h));
    bool isNaN = (h & 0x7F80u) == 0x7F80u && (h & 0x7Fu);
    if (isNaN) {
      EXPECT_EQ(f, 0x7FC00000u) << h;
      continue;
    }
    ASSERT_EQ(f, h << 16) << h;
    ASSERT_EQ(f32BitsToBf16(f), h) << h;
    ASSERT_EQ(bits(roundToBf16(fbits(f))), f) << h;
  }
}

TEST(Half, Float16RoundsToNearestEven) {
  std::vector<uint32_t> v = sweep(13);
  // The subnormal range drops more bits: its half-way points too.
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t m = 0; m < 4096; ++m) {
      // (2m + 1) halves of the quantum 2^-24, and the floats next to it
      float fx = std::ldexp(float(2 * m + 1), -25) * (sign ? -1.0f : 1.0f);
      v.push_back(bits(fx));
      v.push_back(bits(fx) + 1);
      v.push_back(bits(fx) - 1);
    }
  size_t checked = 0;
  for (uint32_t u : v) {
    float x = fbits(u);
    ASSERT_EQ(bits(roundToF16(x)), refF16(x)) << std::hex << u;
    ++checked;
  }
  EXPECT_GT(checked, size_t(1) << 20);
}

TEST(Half, Bfloat16RoundsToNearestEven) {
  for (uint32_t u : sweep(16)) {
    float x = fbits(u);
    ASSERT_EQ(bits(roundToBf16(x)), refBf16(x)) << std::hex << u;
  }
}

TEST(Half, Float16Cases) {
  // Half way between 65504 and 2^16 is the overflow threshold.
  EXPECT_EQ(roundToF16(65504.0f), 65504.0f);
  EXPECT_EQ(roundToF16(std::nextafter(65520.0f, 0.0f)), 65504.0f);
  EXPECT_EQ(roundToF16(65520.0f), INFINITY);
  EXPECT_EQ(roundToF16(-65520.0f), -INFINITY);
  EXPECT_EQ(roundToF16(INFINITY), INFINITY);
  EXPECT_EQ(f32BitsToF16(bits(65520.0f)), 0x7C00u);
  // Ties to even: 1 + 2^-11 is half way between 1 and 1 + 2^-10.
  EXPECT_EQ(roundToF16(1.0f + std::ldexp(1.0f, -11)), 1.0f);
  EXPECT_EQ(roundToF16(1.0f + 3 * std::ldexp(1.0f, -11)),
            1.0f + std::ldexp(1.0f, -9));
  // Subnormals are kept: multiples of 2^-24.
  EXPECT_EQ(roundToF16(std::ldexp(1.0f, -24)), std::ldexp(1.0f, -24));
  EXPECT_EQ(roundToF16(std::ldexp(1.0f, -25)), 0.0f); // tie to 0 (even)
  EXPECT_EQ(roundToF16(std::ldexp(3.0f, -25)), std::ldexp(1.0f, -23));
  EXPECT_EQ(roundToF16(std::ldexp(5.0f, -26)), std::ldexp(1.0f, -24));
  EXPECT_EQ(f32BitsToF16(bits(std::ldexp(1.0f, -24))), 0x0001u);
  EXPECT_EQ(f32BitsToF16(bits(std::ldexp(1023.0f, -24))), 0x03FFu);
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(f32BitsToF16(bits(std::ldexp(2047.0f, -25))), 0x0400u);
  EXPECT_EQ(bits(roundToF16(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(roundToF16(-std::ldexp(1.0f, -30))), 0x80000000u);
  EXPECT_EQ(bits(roundToF16(fbits(0xFFC12345u))), 0x7FC00000u);
  EXPECT_EQ(bits(roundToF16(fbits(0x7F800001u))), 0x7FC00000u);
  EXPECT_EQ(f16ToF32Bits(0x7E01u), 0x7FC00000u);
  EXPECT_EQ(f16ToF32Bits(0xFC00u), 0xFF800000u);
}

TEST(Half, Bfloat16Cases) {
  const float maxBf16 = fbits(0x7F7F0000u);
  EXPECT_EQ(roundToBf16(maxBf16), maxBf16);
  EXPECT_EQ(roundToBf16(fbits(0x7F7F7FFFu)), maxBf16);
  EXPECT_EQ(roundToBf16(fbits(0x7F7F8000u)), INFINITY); // tie, odd -> up
  EXPECT_EQ(roundToBf16(fbits(0xFF7FFFFFu)), -INFINITY);
  EXPECT_EQ(bits(roundToBf16(fbits(0x3F808000u))), 0x3F800000u); // tie, even
  EXPECT_EQ(bits(roundToBf16(fbits(0x3F818000u))), 0x3F820000u); // tie, odd
  EXPECT_EQ(bits(roundToBf16(fbits(0x00008000u))), 0x00000000u); // subnormal
  EXPECT_EQ(bits(roundToBf16(fbits(0x00018000u))), 0x00020000u);
  EXPECT_EQ(bits(roundToBf16(fbits(0x007FFFFFu))), 0x00800000u);
  EXPECT_EQ(bits(roundToBf16(fbits(0xFFC12345u))), 0x7FC00000u);
  EXPECT_EQ(f32BitsToBf16(0x7F800001u), 0x7FC0u);
}

TEST(Half, KernelsMatchTheScalarFunctions) {
  std::vector<uint32_t> v = sweep(13);
  std::vector<float> x(v.size()), y(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    x[i] = fbits(v[i]);
  ASSERT_EQ(plumb_rt_unary_f32(PLUMB_RT_ROUND_F16, x.data(), y.data(),
                               int64_t(x.size()), 0, 0),
            PLUMB_RT_OK);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(bits(y[i]), bits(roundToF16(x[i]))) << std::hex << v[i];
  ASSERT_EQ(plumb_rt_unary_f32(PLUMB_RT_ROUND_BF16, x.data(), y.data(),
                               int64_t(x.size()), 0, 0),
            PLUMB_RT_OK);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(bits(y[i]), bits(roundToBf16(x[i]))) << std::hex << v[i];
}

} // namespace
