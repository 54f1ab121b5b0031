//===- runtime/include/plumb/runtime/math_trig.h - Trig and hyperbolic -*- C++ -*-===//
//
// Part of Plumb. The circular and hyperbolic functions of math.h, written
// once for host and CUDA device by the same method as the others (see
// math.h and docs/math.md): evaluate in binary64 with a relative error far
// below 2^-44, round once to binary32, and consult a per-function exception
// list only when the binary64 value lies within 2^-44 of a rounding midpoint.
// Included by math.h; not a header of its own.
//
//   sin cos tan    exact argument reduction x = k pi/2 + r for every float
//                  (2/pi to 288 bits, integer arithmetic), then sin r / cos r
//                  by polynomials in r^2 on |r| <= pi/4.
//   atan asin acos atan(t) = atan(j/64) + atan(u), u = (t - j/64)/(1 + t j/64),
//                  |u| <= 1/128 (a double-double table of atan(j/64));
//                  asin and acos through atan2 of (|x|, sqrt((1-|x|)(1+|x|))).
//   sinh cosh      from exp (expm1 for small |x|).
//   asinh acosh atanh  from log and log1p (log1p(u) = log(1+u) u / ((1+u) - 1)).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_MATH_TRIG_H
#define PLUMB_RUNTIME_MATH_TRIG_H

#ifndef PLUMB_MATH_ROUND
#error "math_trig.h is included by math.h"
#endif

// Exception lists (input bits -> correctly rounded output bits), found by
// `plumb-check-math --flagged FN` over all 2^32 inputs (docs/math.md).
#define PLUMB_MATH_SIN_EXCEPTIONS(X)                                        \
  X(0x46199998u, 0xBEB1FA5Du) /* sin(0x1.33333p+13) */                        \
  X(0xC6199998u, 0x3EB1FA5Du) /* sin(-0x1.33333p+13) */
#define PLUMB_MATH_COS_EXCEPTIONS(X)                                        \
  X(0x5F18B878u, 0x3F7F14BBu) /* cos(0x1.3170fp+63) */                        \
  X(0x6115CB11u, 0x3F78142Fu) /* cos(0x1.2b9622p+67) */                       \
  X(0xDF18B878u, 0x3F7F14BBu) /* cos(-0x1.3170fp+63) */                       \
  X(0xE115CB11u, 0x3F78142Fu) /* cos(-0x1.2b9622p+67) */
#define PLUMB_MATH_TAN_EXCEPTIONS(X)
#define PLUMB_MATH_ASIN_EXCEPTIONS(X)
#define PLUMB_MATH_ACOS_EXCEPTIONS(X)                                       \
  X(0x328885A3u, 0x3FC90FDBu) /* acos(0x1.110b46p-26) */                      \
  X(0x39826222u, 0x3FC907B5u) /* acos(0x1.04c444p-12) */
#define PLUMB_MATH_ATAN_EXCEPTIONS(X)                                       \
  X(0x3D8D6B23u, 0x3D8D31C3u) /* atan(0x1.1ad646p-4) */                       \
  X(0xBD8D6B23u, 0xBD8D31C3u) /* atan(-0x1.1ad646p-4) */
#define PLUMB_MATH_SINH_EXCEPTIONS(X)
#define PLUMB_MATH_COSH_EXCEPTIONS(X)
#define PLUMB_MATH_ASINH_EXCEPTIONS(X)                                      \
  X(0x4BDD65A5u, 0x418F034Bu) /* asinh(0x1.bacb4ap+24) */                     \
  X(0x655890D3u, 0x4254D1F9u) /* asinh(0x1.b121a6p+75) */                     \
  X(0x6EB1A8ECu, 0x42845A89u) /* asinh(0x1.6351d8p+94) */                     \
  X(0xCBDD65A5u, 0xC18F034Bu) /* asinh(-0x1.bacb4ap+24) */                    \
  X(0xE55890D3u, 0xC254D1F9u) /* asinh(-0x1.b121a6p+75) */                    \
  X(0xEEB1A8ECu, 0xC2845A89u) /* asinh(-0x1.6351d8p+94) */
#define PLUMB_MATH_ACOSH_EXCEPTIONS(X)                                      \
  X(0x655890D3u, 0x4254D1F9u) /* acosh(0x1.b121a6p+75) */                     \
  X(0x6EB1A8ECu, 0x42845A89u) /* acosh(0x1.6351d8p+94) */
#define PLUMB_MATH_ATANH_EXCEPTIONS(X)

// Every function of this file, for tests that walk the exception lists:
// X(name, LIST).
#define PLUMB_MATH_TRIG_FUNCTIONS(X)                                           \
  X(sin, PLUMB_MATH_SIN_EXCEPTIONS)                                            \
  X(cos, PLUMB_MATH_COS_EXCEPTIONS)                                            \
  X(tan, PLUMB_MATH_TAN_EXCEPTIONS)                                            \
  X(asin, PLUMB_MATH_ASIN_EXCEPTIONS)                                          \
  X(acos, PLUMB_MATH_ACOS_EXCEPTIONS)                                          \
  X(atan, PLUMB_MATH_ATAN_EXCEPTIONS)                                          \
  X(sinh, PLUMB_MATH_SINH_EXCEPTIONS)                                          \
  X(cosh, PLUMB_MATH_COSH_EXCEPTIONS)                                          \
  X(asinh, PLUMB_MATH_ASINH_EXCEPTIONS)                                        \
  X(acosh, PLUMB_MATH_ACOSH_EXCEPTIONS)                                        \
  X(atanh, PLUMB_MATH_ATANH_EXCEPTIONS)

namespace plumb {
namespace rt {
namespace mathdetail {

#define PLUMB_MATH_EXCEPTION_CASE(x, y)                                        \
  case x:                                                                      \
    return y;
#define PLUMB_MATH_DEFINE_EXCEPTION_FN(NAME, LIST)                             \
  PLUMB_HD inline uint32_t NAME##Exception(uint32_t x) {                       \
    switch (x) {                                                               \
      LIST(PLUMB_MATH_EXCEPTION_CASE)                                          \
    default:                                                                   \
      return 0;                                                                \
    }                                                                          \
  }
PLUMB_MATH_TRIG_FUNCTIONS(PLUMB_MATH_DEFINE_EXCEPTION_FN)
#undef PLUMB_MATH_DEFINE_EXCEPTION_FN
#undef PLUMB_MATH_EXCEPTION_CASE

PLUMB_MATH_DEFINE_TABLE(kSinPoly, PLUMB_MATH_SIN_POLY)
PLUMB_MATH_DEFINE_TABLE(kCosPoly, PLUMB_MATH_COS_POLY)
PLUMB_MATH_DEFINE_TABLE(kAtanTable, PLUMB_MATH_ATAN_TABLE)
constexpr int kSinPolyN = 10;
constexpr int kCosPolyN = 10;

static const uint32_t kTwoOverPi_host[] = PLUMB_MATH_TWO_OVER_PI_BITS;
#if defined(__CUDACC__)
static __device__ const uint32_t kTwoOverPi_dev[] = PLUMB_MATH_TWO_OVER_PI_BITS;
#endif

PLUMB_INLINE uint32_t twoOverPiWord(int k) {
#if defined(__CUDA_ARCH__)
  return kTwoOverPi_dev[k];
#else
  return kTwoOverPi_host[k];
#endif
}

/// Count leading zero bits of a nonzero 64-bit value.
PLUMB_INLINE int clz64(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __clzll((long long)v);
#else
  return __builtin_clzll(v);
#endif
}

/// IEEE binary64 square root (one correctly rounded operation).
PLUMB_INLINE double sqrtD(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return __builtin_sqrt(x);
#endif
}

/// uint64 -> binary64, round to nearest even, from two exact halves.
PLUMB_INLINE double u64ToDouble(uint64_t v) {
  return (double)(uint32_t)(v >> 32) * 4294967296.0 + (double)(uint32_t)v;
}

/// Reduces a finite float ax >= pi/4 (given as its bits) exactly:
/// ax = (4n + q) pi/2 + r with |r| <= pi/4 (a binary64 with relative error
/// below 2^-51); returns q in 0..3 and stores r.
///
/// ax = M 2^E with the integer significand M < 2^24. With 2/pi = sum b_i 2^-i,
/// ax 2/pi mod 4 only needs b_(E-1) .. : the 128 bits W = b_(E-1) .. b_(E+126)
/// give ax 2/pi = M W 2^-126 (mod 4) with an error below M 2^-126 < 2^-102,
/// and M W mod 2^128 is computed exactly in 32-bit limbs.
PLUMB_INLINE int reduceHalfPi(uint32_t axBits, double *r) {
  uint32_t m = (axBits & 0x7FFFFFu) | 0x800000u;
  int e = (int)(axBits >> 23) - 150; // ax = m 2^e, e >= -24 here
  int p = e - 1 + 31;                // bit position of b_(e-1) in the padded table
  int w0 = p >> 5, o = p & 31;
  uint32_t a[5];
  for (int i = 0; i < 5; ++i)
    a[i] = twoOverPiWord(w0 + i);
  uint32_t w[4];
  for (int i = 0; i < 4; ++i)
    w[i] = (uint32_t)(((((uint64_t)a[i] << 32) | a[i + 1]) << o) >> 32);
  // M * W mod 2^128, limbs most significant first.
  uint32_t prod[4];
  uint64_t carry = 0;
  for (int i = 3; i >= 0; --i) {
    uint64_t t = (uint64_t)m * w[i] + carry;
    prod[i] = (uint32_t)t;
    carry = t >> 32;
  }
  int q = (int)(prod[0] >> 30);
  // The fraction in quarter turns as a 128-bit fixed-point number F / 2^128.
  uint64_t hi = ((uint64_t)(prod[0] << 2) << 32) | ((uint64_t)prod[1] << 2) | (prod[2] >> 30);
  uint64_t lo = ((uint64_t)(prod[2] << 2) << 32) | ((uint64_t)prod[3] << 2);
  bool neg = (hi >> 63) != 0;
  if (neg) { // fraction >= 1/2: r = (fraction - 1) pi/2, next quadrant
    q = (q + 1) & 3;
    hi = ~hi;
    lo = ~lo + 1;
    if (lo == 0)
      hi += 1;
  }
  int shift;
  uint64_t top;
  if (hi != 0) {
    int lz = clz64(hi);
    top = lz ? (hi << lz) | (lo >> (64 - lz)) : hi;
    shift = 64 + lz;
  } else if (lo != 0) {
    int lz = clz64(lo);
    top = lo << lz;
    shift = 128 + lz;
  } else {
    *r = 0.0;
    return q;
  }
  double f = u64ToDouble(top) * pow2i(-shift); // exact scaling (shift <= 191)
  double v = f * PLUMB_MATH_PIO2_HI;
  *r = neg ? -v : v;
  return q;
}

/// sin r and cos r for |r| <= pi/4 (relative error below 2^-51).
PLUMB_INLINE double sinPoly(double r) {
  return r * horner(PLUMB_MATH_TABLE(kSinPoly), kSinPolyN, r * r);
}
PLUMB_INLINE double cosPoly(double r) {
  return horner(PLUMB_MATH_TABLE(kCosPoly), kCosPolyN, r * r);
}

/// Quadrant and reduced argument of a finite float's magnitude.
PLUMB_INLINE int reduceTrig(uint32_t axBits, double *r) {
  if (axBits < 0x3F490FDBu) { // |x| < pi/4 (0x3F490FDB is pi/4 rounded up)
    *r = (double)ffrom(axBits);
    return 0;
  }
  return reduceHalfPi(axBits, r);
}

/// atan(t) for 0 <= t <= 1 (t a binary64, relative error below 2^-51).
PLUMB_INLINE double atanUnit(double t) {
  double jd = t * 64.0 + kRoundMagic;
  jd = jd - kRoundMagic; // nearest integer, 0..64
  int j = (int)jd;
  double c = jd * 0x1p-6;
  double u = (t - c) / (1.0 + t * c); // t - c exact (Sterbenz, or c = 0)
  double z = u * u;
  // atan(u) = u (1 - z/3 + z^2/5 - z^3/7 + z^4/9), |u| <= 1/128: error < 2^-70.
  double pu = u * (1.0 + z * (-1.0 / 3 + z * (1.0 / 5 + z * (-1.0 / 7 + z * (1.0 / 9)))));
  const double *tab = PLUMB_MATH_TABLE(kAtanTable);
  return tab[2 * j] + (tab[2 * j + 1] + pu);
}

/// atan2(y, x) for finite y, x >= 0 not both 0, in [0, pi/2].
PLUMB_INLINE double atan2Pos(double y, double x) {
  if (y <= x)
    return atanUnit(y / x);
  return PLUMB_MATH_PIO2_HI - (atanUnit(x / y) - PLUMB_MATH_PIO2_LO);
}

/// log(1 + u) for u >= 0 (relative error a few 2^-53).
PLUMB_INLINE double log1pPos(double u) {
  double w = 1.0 + u;
  if (w == 1.0)
    return u;
  return logCore(w) * (u / (w - 1.0));
}

} // namespace mathdetail

/// sin x, correctly rounded. sin(+-0) = +-0; sin(+-inf) = NaN.
PLUMB_HD inline float sin(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x), ab = b & 0x7FFFFFFFu;
  if (ab >= 0x7F800000u)
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  double r;
  int q = reduceTrig(ab, &r);
  double y = (q & 1) ? cosPoly(r) : sinPoly(r);
  if (q & 2)
    y = -y;
  if (b >> 31)
    y = -y;
  PLUMB_MATH_ROUND(sin, b, y);
}

/// cos x, correctly rounded. cos(+-0) = 1; cos(+-inf) = NaN.
PLUMB_HD inline float cos(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x), ab = b & 0x7FFFFFFFu;
  if (ab >= 0x7F800000u)
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  double r;
  int q = reduceTrig(ab, &r);
  double y = (q & 1) ? sinPoly(r) : cosPoly(r);
  if (((q + 1) & 2) != 0) // quadrants 1 and 2 are negative
    y = -y;
  PLUMB_MATH_ROUND(cos, b, y);
}

/// tan x, correctly rounded. tan(+-0) = +-0; tan(+-inf) = NaN. (No float is
/// close enough to an odd multiple of pi/2 for the result to overflow.)
PLUMB_HD inline float tan(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x), ab = b & 0x7FFFFFFFu;
  if (ab >= 0x7F800000u)
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  double r;
  int q = reduceTrig(ab, &r);
  double s = sinPoly(r), c = cosPoly(r);
  double y = (q & 1) ? -c / s : s / c;
  if (b >> 31)
    y = -y;
  PLUMB_MATH_ROUND(tan, b, y);
}

/// atan x, correctly rounded. atan(+-0) = +-0, atan(+-inf) = +-pi/2 (rounded).
PLUMB_HD inline float atan(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x), ab = b & 0x7FFFFFFFu;
  if (isNaNf(x))
    return canonicalize_nan(x);
  double y;
  if (ab == 0x7F800000u)
    y = PLUMB_MATH_PIO2_HI;
  else
    y = atan2Pos((double)ffrom(ab), 1.0);
  if (b >> 31)
    y = -y;
  PLUMB_MATH_ROUND(atan, b, y);
}

/// asin x, correctly rounded; NaN for |x| > 1.
PLUMB_HD inline float asin(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x), ab = b & 0x7FFFFFFFu;
  if (isNaNf(x) || ab > 0x3F800000u)
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  double a = (double)ffrom(ab);
  double y = atan2Pos(a, sqrtD((1.0 - a) * (1.0 + a)));
  if (b >> 31)
    y = -y;
  PLUMB_MATH_ROUND(asin, b, y);
}

/// acos x, correctly rounded; NaN for |x| > 1. acos(1) = +0.
PLUMB_HD inline float acos(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x), ab = b & 0x7FFFFFFFu;
  if (isNaNf(x) || ab > 0x3F800000u)
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  double a = (double)ffrom(ab);
  double y = atan2Pos(sqrtD((1.0 - a) * (1.0 + a)), a);
  if (b >> 31) // acos(-a) = pi - acos(a) >= pi/2: no cancellation
    y = PLUMB_MATH_PI_HI - (y - PLUMB_MATH_PI_LO);
  PLUMB_MATH_ROUND(acos, b, y);
}

/// sinh x, correctly rounded; overflows to +-inf.
PLUMB_HD inline float sinh(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x))
    return canonicalize_nan(x);
  float ax = ffrom(b & 0x7FFFFFFFu);
  if (ax > 90.0f) // sinh(90) > 2^128
    return ffrom((b & 0x80000000u) | 0x7F800000u);
  double a = (double)ax, y;
  if (a <= 0.34657359027997264) { // ln2/2: expm1 by its polynomial
    double em1 = expm1Small(a);
    y = 0.5 * (em1 + em1 / (em1 + 1.0));
  } else {
    double e = expCore(a, 0.0);
    y = 0.5 * (e - 1.0 / e);
  }
  if (b >> 31)
    y = -y;
  PLUMB_MATH_ROUND(sinh, b, y);
}

/// cosh x, correctly rounded; overflows to +inf.
PLUMB_HD inline float cosh(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x))
    return canonicalize_nan(x);
  float ax = ffrom(b & 0x7FFFFFFFu);
  if (ax > 90.0f)
    return ffrom(0x7F800000u);
  double e = expCore((double)ax, 0.0);
  double y = 0.5 * (e + 1.0 / e);
  PLUMB_MATH_ROUND(cosh, b, y);
}

/// asinh x, correctly rounded. asinh(+-inf) = +-inf.
PLUMB_HD inline float asinh(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x), ab = b & 0x7FFFFFFFu;
  if (isNaNf(x))
    return canonicalize_nan(x);
  if (ab == 0x7F800000u)
    return x;
  double a = (double)ffrom(ab), y;
  double a2 = a * a; // exact
  if (a < 0.5)
    y = log1pPos(a + a2 / (1.0 + sqrtD(1.0 + a2)));
  else
    y = logCore(a + sqrtD(a2 + 1.0));
  if (b >> 31)
    y = -y;
  PLUMB_MATH_ROUND(asinh, b, y);
}

/// acosh x, correctly rounded; NaN for x < 1, acosh(1) = +0, acosh(inf) = inf.
PLUMB_HD inline float acosh(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x) || x < 1.0f)
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  if (b == 0x7F800000u)
    return x;
  double a = (double)x, y;
  if (a < 2.0) {
    double d = a - 1.0; // exact
    y = log1pPos(d + sqrtD(d * (a + 1.0)));
  } else {
    y = logCore(a + sqrtD(a * a - 1.0)); // a * a exact
  }
  PLUMB_MATH_ROUND(acosh, b, y);
}

/// atanh x, correctly rounded; NaN for |x| > 1, atanh(+-1) = +-inf.
PLUMB_HD inline float atanh(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x), ab = b & 0x7FFFFFFFu;
  if (isNaNf(x) || ab > 0x3F800000u)
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  if (ab == 0x3F800000u)
    return ffrom((b & 0x80000000u) | 0x7F800000u);
  double a = (double)ffrom(ab);
  double y = 0.5 * log1pPos(2.0 * a / (1.0 - a));
  if (b >> 31)
    y = -y;
  PLUMB_MATH_ROUND(atanh, b, y);
}

} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_MATH_TRIG_H
