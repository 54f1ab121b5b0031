//===- runtime/include/plumb/runtime/math.h - Correctly rounded math -*- C++ -*-===//
//
// Part of Plumb. The scalar reference definition of every elementwise float32
// math function, written once for host and CUDA device (PLUMB_HD). No libm or
// libdevice function is called on any result path: only IEEE +, -, *, /,
// sqrt and bit manipulation.
//
// Method (see docs/math.md): each function is evaluated in binary64 with a
// relative error far below 2^-44 (analysed and measured: about 2^-50 or
// better), then rounded once to binary32 (round-to-nearest-even, subnormals
// kept). That single rounding equals the correctly rounded result unless the
// binary64 value lies within 2^-44 (relative) of a binary32 rounding midpoint;
// `nearMidpoint` detects exactly those rare inputs, and a per-function
// exception list (found by the exhaustive MPFR checker
// runtime/tools/plumb-check-math) supplies the correctly rounded result for the
// handful that would otherwise round the wrong way. Double arithmetic without
// contraction is bit-reproducible on every IEEE platform, so the result is a
// pure function of the input bits.
//
// Correctly rounded for all 2^32 inputs (exhaustive MPFR-checked runs, see
// docs/math.md): exp, log (5 exception entries), tanh, erf; sigmoid, gelu and
// gelu_tanh by the complete near-midpoint search (`plumb-check-math
// --flagged`) plus sampling; sqrt and reciprocal are single IEEE operations.
// pow: same method, sampled (2.3M inputs, all correctly rounded).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_MATH_H
#define PLUMB_RUNTIME_MATH_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/math_tables.h"

#include <stdint.h>

namespace plumb {
namespace rt {
namespace mathdetail {

//===----------------------------------------------------------------------===//
// Bit casts and small helpers.
//===----------------------------------------------------------------------===//

PLUMB_INLINE uint32_t fbits(float x) {
#if defined(__CUDA_ARCH__)
  return (uint32_t)__float_as_uint(x);
#else
  uint32_t u;
  __builtin_memcpy(&u, &x, 4);
  return u;
#endif
}
PLUMB_INLINE float ffrom(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  __builtin_memcpy(&x, &u, 4);
  return x;
#endif
}
PLUMB_INLINE uint64_t dbits(double x) {
#if defined(__CUDA_ARCH__)
  return (uint64_t)__double_as_longlong(x);
#else
  uint64_t u;
  __builtin_memcpy(&u, &x, 8);
  return u;
#endif
}
PLUMB_INLINE double dfrom(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double((long long)u);
#else
  double x;
  __builtin_memcpy(&x, &u, 8);
  return x;
#endif
}

/// 2^k for -1022 <= k <= 1023 (exact).
PLUMB_INLINE double pow2i(int k) {
  return dfrom((uint64_t)(int64_t)(k + 1023) << 52);
}

/// Count leading / trailing zero bits of a nonzero 32-bit value.
PLUMB_INLINE int clz32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __clz((int)v);
#else
  return __builtin_clz(v);
#endif
}
PLUMB_INLINE int ctz32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __ffs((int)v) - 1;
#else
  return __builtin_ctz(v);
#endif
}

PLUMB_INLINE bool isNaNf(float x) { return (fbits(x) & 0x7FFFFFFFu) > 0x7F800000u; }

/// binary64 -> binary32, round to nearest even (a single IEEE conversion).
PLUMB_INLINE float toFloat(double x) {
#if defined(__CUDA_ARCH__)
  return __double2float_rn(x);
#else
  return (float)x;
#endif
}

/// True iff |y| lies within 2^-44 relative of a binary32 round-to-nearest
/// boundary (a midpoint between two adjacent binary32 values, including the
/// subnormal range, the underflow midpoint 2^-150 and the overflow threshold
/// (2 - 2^-24) * 2^127). Only for such y can a binary64 approximation with
/// relative error < 2^-44 round differently from the exact value.
PLUMB_INLINE bool nearMidpoint(double y) {
  uint64_t u = dbits(y) & 0x7FFFFFFFFFFFFFFFull;
  int e = (int)(u >> 52) - 1023;
  if (e < -151 || e > 127)
    return false; // Below 2^-151 rounds to 0, at/above 2^128 is inf: far from boundaries.
  uint64_t sig = (u & 0x000FFFFFFFFFFFFFull) | 0x0010000000000000ull;
  int sh = 29 + (e < -126 ? -126 - e : 0); // double bits below binary32 precision
  uint64_t low = sig & ((1ull << sh) - 1);
  uint64_t half = 1ull << (sh - 1);
  uint64_t d = low > half ? low - half : half - low;
  return d <= 256; // 256 double ulps of the binade = 2^-44 relative (at most).
}

/// True iff y is exactly a binary32 rounding midpoint.
PLUMB_INLINE bool exactMidpoint(double y) {
  uint64_t u = dbits(y) & 0x7FFFFFFFFFFFFFFFull;
  int e = (int)(u >> 52) - 1023;
  if (e < -151 || e > 127)
    return false;
  uint64_t sig = (u & 0x000FFFFFFFFFFFFFull) | 0x0010000000000000ull;
  int sh = 29 + (e < -126 ? -126 - e : 0);
  return (sig & ((1ull << sh) - 1)) == (1ull << (sh - 1));
}

/// Rounds hi + lo (|lo| <= ulp(hi)/2, the exact rounding error of a sum) to
/// binary32. When hi is exactly a midpoint the sign of lo decides, so the
/// pair rounds like the exact sum would.
PLUMB_INLINE float roundSticky(double hi, double lo) {
  if (lo != 0.0 && exactMidpoint(hi))
    hi = dfrom(dbits(hi) + (((lo > 0) == (hi > 0)) ? 1 : (uint64_t)-1));
  return toFloat(hi);
}

/// Test hook: the checker defines PLUMB_MATH_NEAR_HOOK() to learn which
/// inputs reach the near-midpoint path (`plumb-check-math --flagged`).
#if defined(PLUMB_MATH_NEAR_HOOK)
#define PLUMB_MATH_NOTE_NEAR() PLUMB_MATH_NEAR_HOOK()
#else
#define PLUMB_MATH_NOTE_NEAR() ((void)0)
#endif

/// Polynomial evaluation by Horner's rule, highest coefficient first in the
/// recurrence: c[0] + t*(c[1] + t*(... + t*c[n-1])). The order is part of the
/// definition.
PLUMB_INLINE double horner(const double *c, int n, double t) {
  double p = c[n - 1];
  for (int i = n - 2; i >= 0; --i)
    p = p * t + c[i];
  return p;
}

//===----------------------------------------------------------------------===//
// Coefficient tables. Device code needs __device__ storage, host code host
// storage; both are initialised from the same generated macro.
//===----------------------------------------------------------------------===//

#define PLUMB_MATH_DEFINE_TABLE(NAME, ...)                                     \
  static const double NAME##_host[] = __VA_ARGS__;                             \
  PLUMB_MATH_DEVICE_TABLE(NAME, __VA_ARGS__)
#if defined(__CUDACC__)
#define PLUMB_MATH_DEVICE_TABLE(NAME, ...) static __device__ const double NAME##_dev[] = __VA_ARGS__;
#else
#define PLUMB_MATH_DEVICE_TABLE(NAME, ...)
#endif
#if defined(__CUDA_ARCH__)
#define PLUMB_MATH_TABLE(NAME) NAME##_dev
#else
#define PLUMB_MATH_TABLE(NAME) NAME##_host
#endif

PLUMB_MATH_DEFINE_TABLE(kExpPoly, PLUMB_MATH_EXP_POLY)
PLUMB_MATH_DEFINE_TABLE(kExpm1Poly, PLUMB_MATH_EXPM1_POLY)
PLUMB_MATH_DEFINE_TABLE(kLogPoly, PLUMB_MATH_LOG_POLY)
PLUMB_MATH_DEFINE_TABLE(kErfSmallPoly, PLUMB_MATH_ERF_SMALL_POLY)
PLUMB_MATH_DEFINE_TABLE(kErfcxTable, PLUMB_MATH_ERFCX_TABLE)

constexpr int kExpPolyN = 12;
constexpr int kExpm1PolyN = 12;
constexpr int kLogPolyN = 9;
constexpr int kErfSmallPolyN = 11;
constexpr int kErfcxN = PLUMB_MATH_ERFCX_DEG + 1;

// ln2 = kLn2Hi + kLn2Lo, kLn2Hi has 42 significant bits so k * kLn2Hi is exact
// for |k| < 2^11.
constexpr double kLn2Hi = 0x1.62e42fefa3800p-1;
constexpr double kLn2Lo = 0x1.ef35793c76730p-45;
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kRoundMagic = 0x1.8p52; // x + magic - magic == nearest integer

//===----------------------------------------------------------------------===//
// binary64 cores.
//===----------------------------------------------------------------------===//

/// exp(xh + xl) for |xh| <= 700, |xl| <= 2^-40 |xh| (relative error < 2^-51).
/// k = nearest(xh / ln2); r = (xh - k ln2hi) - k ln2lo + xl, where the first
/// difference is exact (Sterbenz); exp(r) by the degree-11 polynomial; times 2^k.
PLUMB_INLINE double expCore(double xh, double xl) {
  double kd = xh * kInvLn2 + kRoundMagic;
  kd = kd - kRoundMagic;
  int k = (int)kd;
  double r = xh - kd * kLn2Hi;
  r = r - kd * kLn2Lo;
  r = r + xl;
  double p = horner(PLUMB_MATH_TABLE(kExpPoly), kExpPolyN, r);
  // Split the scale so 2^k stays a normal double even for k = -1030..1030.
  int k1 = k / 2;
  return (p * pow2i(k1)) * pow2i(k - k1);
}

/// expm1(u) for |u| <= ln2/2 (relative error < 2^-51).
PLUMB_INLINE double expm1Small(double u) {
  return u * horner(PLUMB_MATH_TABLE(kExpm1Poly), kExpm1PolyN, u);
}

/// log(x) for finite x > 0 as a double-double hi + lo with relative error
/// below about 2^-60. x = 2^e m, m in [sqrt(1/2), sqrt(2)); s = (m-1)/(m+1)
/// (both exact), s = sh + sl exactly-rounded to double-double via Veltkamp
/// splitting; log m = 2s + s^3 R(s^2).
PLUMB_INLINE void logCoreDD(double x, double *hi, double *lo) {
  uint64_t u = dbits(x);
  uint64_t mant = u & 0x000FFFFFFFFFFFFFull;
  // m in [1, 2) from the mantissa; if m > sqrt(2) use m/2 and e+1 (branch-free).
  int k = mant > 0x6A09E667F3BCDull ? 1 : 0; // 0x1.6a09e667f3bcdp+0 = sqrt(2)
  int e = (int)(u >> 52) - 1023 + k;
  double m = dfrom(mant | ((uint64_t)(1023 - k) << 52));
  double a = m - 1.0; // exact (Sterbenz)
  double b = m + 1.0; // exact: m has <= 24 significant bits for float inputs,
                      // <= 53 bits in general but b is then rounded (pow only uses floats).
  double rb = 1.0 / b; // independent of sh: the two divisions overlap
  double sh = a / b;
  // sl ~ (a - sh*b)/b with sh*b computed exactly by splitting sh (26+27
  // bits); sl is a correction of relative size 2^-53, so rem * (1/b) is
  // ample.
  double c = sh * 134217729.0; // 2^27 + 1
  double shh = c - (c - sh);
  double shl = sh - shh;
  double rem = ((a - shh * b) - shl * b);
  double sl = rem * rb;
  double z = sh * sh;
  double tail = sh * z * horner(PLUMB_MATH_TABLE(kLogPoly), kLogPolyN, z);
  double ed = (double)e;
  double t1 = ed * kLn2Hi; // exact
  double t2 = 2.0 * sh;    // exact
  // TwoSum(t1, t2).
  double s = t1 + t2;
  double bb = s - t1;
  double err = (t1 - (s - bb)) + (t2 - bb);
  double l = err + (2.0 * sl + (tail + ed * kLn2Lo));
  double h = s + l;
  *lo = l - (h - s);
  *hi = h;
}

/// log(x) in double for finite x > 0 (relative error below 2^-51): the same
/// reduction as logCoreDD with s rounded once (error 2^-53 relative), then
/// e*ln2hi + (2s + (s^3 R(s^2) + e*ln2lo)).
PLUMB_INLINE double logCore(double x) {
  uint64_t u = dbits(x);
  uint64_t mant = u & 0x000FFFFFFFFFFFFFull;
  // m in [1, 2) from the mantissa; if m > sqrt(2) use m/2 and e+1 (branch-free).
  int k = mant > 0x6A09E667F3BCDull ? 1 : 0; // 0x1.6a09e667f3bcdp+0 = sqrt(2)
  int e = (int)(u >> 52) - 1023 + k;
  double m = dfrom(mant | ((uint64_t)(1023 - k) << 52));
  double s = (m - 1.0) / (m + 1.0);
  double z = s * s;
  double tail = s * z * horner(PLUMB_MATH_TABLE(kLogPoly), kLogPolyN, z);
  double ed = (double)e;
  return ed * kLn2Hi + (2.0 * s + (tail + ed * kLn2Lo));
}

/// erfcx(z) = exp(z^2) erfc(z) for 0.5 <= z < 16 (relative error < 2^-51).
PLUMB_INLINE double erfcxCore(double z) {
  uint64_t u = dbits(z);
  int oct = (int)(u >> 52) - 1023; // -1 .. 3
  int j = (int)((u >> 49) & 7);
  int row = 8 * (oct + 1) + j;
  double w = pow2i(oct - 3);                          // sub-interval width
  double centre = pow2i(oct) + w * (double)j + 0.5 * w; // exact
  double t = z - centre;                              // exact (Sterbenz)
  return horner(PLUMB_MATH_TABLE(kErfcxTable) + row * kErfcxN, kErfcxN, t);
}

/// erf(x)/x for |x| <= 0.5, argument z = x^2.
PLUMB_INLINE double erfSmallQ(double z) {
  return horner(PLUMB_MATH_TABLE(kErfSmallPoly), kErfSmallPolyN, z);
}

} // namespace mathdetail

//===----------------------------------------------------------------------===//
// Exception lists (input bits -> correctly rounded output bits). Generated by
// `plumb-check-math --exhaustive FN`, which prints every input whose binary64
// approximation rounds the wrong way; 0 means "no exception".
//===----------------------------------------------------------------------===//
} // namespace rt
} // namespace plumb

#include "plumb/runtime/math_exceptions.h"

namespace plumb {
namespace rt {

/// Replaces any NaN by the canonical quiet NaN 0x7FC00000.
PLUMB_INLINE float canonicalize_nan(float x) {
  return mathdetail::isNaNf(x) ? mathdetail::ffrom(PLUMB_CANONICAL_NAN_BITS) : x;
}

#define PLUMB_MATH_ROUND(FN, XBITS, Y)                                         \
  do {                                                                         \
    if (mathdetail::nearMidpoint(Y)) {                                         \
      PLUMB_MATH_NOTE_NEAR();                                                  \
      uint32_t ex_ = mathdetail::FN##Exception(XBITS);                         \
      if (ex_ != 0)                                                            \
        return mathdetail::ffrom(ex_);                                         \
    }                                                                          \
    return mathdetail::toFloat(Y);                                             \
  } while (0)

/// e^x, correctly rounded. exp(-inf) = +0, exp(+inf) = +inf, NaN -> NaN.
PLUMB_HD inline float exp(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x))
    return canonicalize_nan(x);
  if (x > 89.0f)
    return ffrom(0x7F800000u);
  if (x < -104.0f)
    return 0.0f;
  double y = expCore((double)x, 0.0);
  PLUMB_MATH_ROUND(exp, b, y);
}

/// Natural logarithm, correctly rounded. log(+-0) = -inf, log(x<0) = NaN,
/// log(+inf) = +inf, log(1) = +0.
PLUMB_HD inline float log(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x) || ((b & 0x80000000u) != 0 && (b & 0x7FFFFFFFu) != 0))
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  if ((b & 0x7FFFFFFFu) == 0)
    return ffrom(0xFF800000u);
  if (b == 0x7F800000u)
    return x;
  double y = logCore((double)x);
  PLUMB_MATH_ROUND(log, b, y);
}

/// Hyperbolic tangent, correctly rounded. tanh(+-0) = +-0, tanh(+-inf) = +-1.
/// tanh|x| = expm1(2|x|) / (expm1(2|x|) + 2), expm1 by polynomial for
/// 2|x| <= ln2/2, else exp(2|x|) - 1.
PLUMB_HD inline float tanh(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x))
    return canonicalize_nan(x);
  bool neg = (b >> 31) != 0;
  float ax = ffrom(b & 0x7FFFFFFFu);
  if (ax > 10.0f) // 1 - tanh(10) < 2^-27: rounds to 1.
    return neg ? -1.0f : 1.0f;
  double u = 2.0 * (double)ax;
  double em1 = u <= 0.34657359027997264 ? expm1Small(u) : expCore(u, 0.0) - 1.0;
  double t = em1 / (em1 + 2.0);
  if (neg)
    t = -t;
  PLUMB_MATH_ROUND(tanh, b, t);
}

/// Logistic sigmoid 1 / (1 + e^-x), correctly rounded as a function of x.
/// sigmoid(-inf) = +0, sigmoid(+inf) = 1.
PLUMB_HD inline float sigmoid(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x))
    return canonicalize_nan(x);
  if (x > 40.0f) // 1 - sigmoid(40) < 2^-57: rounds to 1.
    return 1.0f;
  if (x < -110.0f) // sigmoid(-110) < 2^-158: rounds to +0.
    return 0.0f;
  if ((b & 0x7FFFFFFFu) < 0x3D000000u) { // |x| < 2^-5
    // sigmoid(x) = 1/2 + x/4 - x^3/48 + x^5/480 - 17 x^7/80640 + 31 x^9/1451520
    // - ...; 1/2 + x/4 is exact for |x| >= 2^-30 and often a binary32
    // midpoint, so the small odd tail is kept as a separate term and decides.
    double xd = (double)x, z = xd * xd;
    double c = xd * z * (-1.0 / 48 + z * (1.0 / 480 + z * (-17.0 / 80640 + z * (31.0 / 1451520))));
    double h = 0.5 + 0.25 * xd;
    double y = h + c;
    double lo = c - (y - h);
    if (nearMidpoint(y)) {
      PLUMB_MATH_NOTE_NEAR();
      uint32_t ex = sigmoidException(b);
      if (ex != 0)
        return ffrom(ex);
    }
    return roundSticky(y, lo);
  }
  double e = expCore(-(double)x, 0.0);
  double y = 1.0 / (1.0 + e);
  PLUMB_MATH_ROUND(sigmoid, b, y);
}

/// Error function, correctly rounded. |x| < 0.5: x * Q(x^2); otherwise
/// erf|x| = 1 - exp(-x^2) erfcx(|x|) (x^2 exact in binary64); |x| >= 4: +-1.
PLUMB_HD inline float erf(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x))
    return canonicalize_nan(x);
  bool neg = (b >> 31) != 0;
  float ax = ffrom(b & 0x7FFFFFFFu);
  if (ax >= 4.0f) // erfc(4) < 2^-27: rounds to 1.
    return neg ? -1.0f : 1.0f;
  double a = (double)ax;
  double y;
  if (ax < 0.5f) {
    y = a * erfSmallQ(a * a);
  } else {
    double z2 = a * a; // exact (48 bits)
    y = 1.0 - expCore(-z2, 0.0) * erfcxCore(a);
  }
  if (neg)
    y = -y;
  PLUMB_MATH_ROUND(erf, b, y);
}

/// IEEE square root (correctly rounded by the hardware instruction).
PLUMB_HD inline float sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return canonicalize_nan(__fsqrt_rn(x));
#else
  return canonicalize_nan(__builtin_sqrtf(x));
#endif
}

/// IEEE reciprocal 1/x (one correctly rounded division).
PLUMB_HD inline float reciprocal(float x) {
#if defined(__CUDA_ARCH__)
  return canonicalize_nan(__fdiv_rn(1.0f, x));
#else
  return canonicalize_nan(1.0f / x);
#endif
}

namespace mathdetail {
/// Phi(x) = P(N(0,1) <= x) = erfc(-x/sqrt2)/2 in binary64 with relative error
/// ~2^-50 for all x >= -20 (uses x^2/2, exact, in the exponential).
PLUMB_INLINE double normalCdf(double x) {
  const double kInvSqrt2 = 0x1.6a09e667f3bcdp-1;
  double w = x * kInvSqrt2;
  double aw = w < 0 ? -w : w;
  if (aw < 0.5)
    return 0.5 + 0.5 * (w * erfSmallQ(w * w));
  double q = 0.5 * expCore(-(x * x) * 0.5, 0.0) * erfcxCore(aw); // erfc(|w|)/2
  return w < 0 ? q : 1.0 - q;
}
} // namespace mathdetail

/// GELU, exact (erf) form: gelu(x) = x * Phi(x) = 0.5 x (1 + erf(x/sqrt2)),
/// evaluated as x * Phi(x) in binary64 (Phi through erfc for x < 0, so the
/// left tail keeps full relative accuracy) and rounded once. gelu(+inf) = inf,
/// gelu(-inf) = -0 (the limit).
PLUMB_HD inline float gelu(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x))
    return canonicalize_nan(x);
  if (x == 0.0f)
    return x; // +-0
  if (x > 10.0f) // 1 - Phi(10) < 2^-75: rounds to x.
    return x;
  if (x < -20.0f) // |gelu(-20)| < 2^-290: rounds to -0.
    return -0.0f;
  double xd = (double)x;
  const double kInvSqrt2 = 0x1.6a09e667f3bcdp-1;
  double w = xd * kInvSqrt2;
  if (w < 0.5 && w > -0.5) {
    // gelu = x/2 + (x/2) erf(x/sqrt2): x/2 is exact and, for tiny x, a
    // binary32 midpoint; the second term is kept separate and decides.
    double h = 0.5 * xd;
    double c = h * (w * erfSmallQ(w * w));
    double y = h + c;
    double lo = c - (y - h);
    if (nearMidpoint(y)) {
      PLUMB_MATH_NOTE_NEAR();
      uint32_t ex = geluException(b);
      if (ex != 0)
        return ffrom(ex);
    }
    return roundSticky(y, lo);
  }
  double y = xd * normalCdf(xd);
  PLUMB_MATH_ROUND(gelu, b, y);
}

/// GELU, tanh approximation (ONNX Gelu approximate="tanh"):
///   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  ==  x / (1 + e^(-2v)),
///   v = sqrt(2/pi) (x + 0.044715 x^3),
/// evaluated in binary64 in the second (cancellation-free) form and rounded once.
PLUMB_HD inline float gelu_tanh(float x) {
  using namespace mathdetail;
  uint32_t b = fbits(x);
  if (isNaNf(x))
    return canonicalize_nan(x);
  if (x == 0.0f)
    return x; // +-0
  if (x > 10.0f) // e^(-2v) < 2^-100: rounds to x.
    return x;
  if (x < -11.0f) // |result| < 11 e^-112 < 2^-150: rounds to -0.
    return -0.0f;
  const double kS = 0x1.9884533d43651p-1; // sqrt(2/pi)
  const double kC = 0.044715;
  double xd = (double)x;
  double x3 = xd * xd * xd;
  double v = kS * (xd + kC * x3);
  if ((b & 0x7FFFFFFFu) < 0x3D000000u) { // |x| < 2^-5
    // x/2 + (x/2) tanh(v), tanh(v) = v - v^3/3 + 2v^5/15 - 17v^7/315 + ...
    // (|v| < 0.025): x/2 exact, the second term kept separate (see gelu).
    double h = 0.5 * xd;
    double v2 = v * v;
    double th = v * (1.0 + v2 * (-1.0 / 3 + v2 * (2.0 / 15 + v2 * (-17.0 / 315))));
    double c = h * th;
    double y = h + c;
    double lo = c - (y - h);
    if (nearMidpoint(y)) {
      PLUMB_MATH_NOTE_NEAR();
      uint32_t ex = gelu_tanhException(b);
      if (ex != 0)
        return ffrom(ex);
    }
    return roundSticky(y, lo);
  }
  double y = xd / (1.0 + expCore(-2.0 * v, 0.0));
  PLUMB_MATH_ROUND(gelu_tanh, b, y);
}

namespace mathdetail {
/// 0 if y (a float) is not an integer, 1 if an even integer, 2 if odd.
PLUMB_INLINE int floatIntKind(float y) {
  uint32_t b = fbits(y) & 0x7FFFFFFFu;
  if (b >= 0x7F800000u)
    return 0;
  if (b >= 0x4B800000u) // |y| >= 2^24: even integer
    return 1;
  if (b < 0x3F800000u) // |y| < 1 (y != 0 handled by the caller)
    return b == 0 ? 1 : 0;
  int e = (int)(b >> 23) - 127; // 0..23
  uint32_t m = (b & 0x7FFFFFu) | 0x800000u;
  int fracBits = 23 - e;
  if (fracBits > 0 && (m & ((1u << fracBits) - 1)) != 0)
    return 0;
  return ((m >> fracBits) & 1u) ? 2 : 1;
}
} // namespace mathdetail

namespace mathdetail {
/// pow's general path for finite nonzero x != 1 and finite nonzero y
/// (negative x only with integer y): exact binary powering when |x|^y is
/// exact in binary64, else exp(y log|x|) in double-double.
PLUMB_INLINE float powGeneral(float x, float y) {
  uint32_t bx = fbits(x), by = fbits(y);
  uint32_t ax = bx & 0x7FFFFFFFu, ay = by & 0x7FFFFFFFu;
  bool xneg = (bx >> 31) != 0, yneg = (by >> 31) != 0;
  int yk = floatIntKind(y);
  bool rneg = xneg && yk == 2;
  double axd = (double)ffrom(ax);
  // Exact path: positive integer y with |x|^y exact in binary64.
  if (yk != 0 && !yneg && ay <= 0x42800000u) { // 1 <= y <= 64
    int n = (int)ffrom(ay);
    uint32_t sig = (ax >= 0x00800000u) ? ((ax & 0x7FFFFFu) | 0x800000u) : ax;
    // Significant bits of the odd part of the significand (sig != 0).
    int bitsN = 32 - clz32(sig) - ctz32(sig);
    double l2 = (double)((int)(ax >> 23) - 127); // rough log2|x| (>= -127)
    if (bitsN * n <= 53 && l2 * n < 900.0 && l2 * n > -900.0) {
      double p = 1.0, base = axd;
      int k = n;
      while (k) { // every partial product is exact (<= 53 significant bits)
        if (k & 1)
          p = p * base;
        k >>= 1;
        if (k)
          base = base * base;
      }
      float r = toFloat(p);
      return rneg ? -r : r;
    }
  }
  double lh, ll;
  logCoreDD(axd, &lh, &ll);
  double yd = (double)ffrom(ay);
  if (yneg)
    yd = -yd;
  double v0 = yd * lh;
  double res;
  if (v0 > 200.0) {
    res = 1e300 * 1e300; // +inf
  } else if (v0 < -200.0) {
    res = 0.0;
  } else {
    // y * (lh + ll) as a double-double: lh split 26+27 bits, y has 24 bits,
    // so both partial products are exact.
    double c = lh * 134217729.0;
    double lhh = c - (c - lh);
    double lhl = lh - lhh;
    double p1 = yd * lhh, p2 = yd * lhl;
    double s = p1 + p2;
    double bb = s - p1;
    double err = (p1 - (s - bb)) + (p2 - bb);
    double tl = err + yd * ll;
    double vh = s + tl;
    double vl = tl - (vh - s);
    res = expCore(vh, vl);
  }
  if (rneg)
    res = -res;
  if (nearMidpoint(res)) {
    PLUMB_MATH_NOTE_NEAR();
    uint32_t ex = powException(bx, by);
    if (ex != 0)
      return ffrom(ex);
  }
  return toFloat(res);
}

/// x^3 correctly rounded, for finite x. x*x is exact in binary64 (48
/// significant bits); x^2 * x is formed exactly as a double-double (x^2
/// split 26+27 bits, each partial product exact, the two summed by TwoSum)
/// and rounded once (roundSticky). Equal, bit for bit, to powGeneral(x, 3)
/// on all 2^32 inputs (`plumb-check-math --pow-cube-identity`).
PLUMB_INLINE float cube(float x) {
  double xd = (double)x;
  double x2 = xd * xd;
  double c = x2 * 134217729.0;
  double hi = c - (c - x2);
  double lo = x2 - hi;
  double p1 = hi * xd, p2 = lo * xd;
  double s = p1 + p2;
  double bb = s - p1;
  double err = (p1 - (s - bb)) + (p2 - bb);
  return roundSticky(s, err);
}
} // namespace mathdetail

/// pow(x, y) with C99 Annex F / IEEE 754 pow special cases (which ONNX Pow and
/// numpy follow): pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN; a negative
/// finite base with a non-integer exponent gives NaN; a negative base with an
/// integer exponent gives (-1)^y |x|^y. |x|^y = exp(y log|x|) with log as a
/// double-double and y * log exact to ~2^-60; positive integer y whose power is
/// exact in binary64 is computed exactly (so exact cases, including midpoints,
/// round correctly). Not exhaustively verifiable; see docs/math.md.
PLUMB_HD inline float pow(float x, float y) {
  using namespace mathdetail;
  uint32_t bx = fbits(x), by = fbits(y);
  uint32_t ax = bx & 0x7FFFFFFFu, ay = by & 0x7FFFFFFFu;
  if (ay == 0 || bx == 0x3F800000u)
    return 1.0f;
  if (isNaNf(x) || isNaNf(y))
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  bool xneg = (bx >> 31) != 0, yneg = (by >> 31) != 0;
  int yk = floatIntKind(y);
  const float kInf = ffrom(0x7F800000u);
  if (ay == 0x7F800000u) { // y = +-inf
    if (ax == 0x3F800000u)
      return 1.0f; // pow(-1, +-inf)
    bool big = ax > 0x3F800000u;
    return (big != yneg) ? kInf : 0.0f;
  }
  if (ax == 0) { // x = +-0
    bool odd = yk == 2;
    if (yneg)
      return (odd && xneg) ? -kInf : kInf;
    return (odd && xneg) ? -0.0f : 0.0f;
  }
  if (ax == 0x7F800000u) { // x = +-inf
    bool odd = yk == 2;
    float r = yneg ? 0.0f : kInf;
    return (odd && xneg) ? -r : r;
  }
  if (xneg && yk == 0)
    return ffrom(PLUMB_CANONICAL_NAN_BITS);
  // Common exponents with a direct correctly rounded form (x is finite and
  // nonzero here; a negative x has an integer y).
  if (by == 0x40000000u) { // y = 2: the binary64 square is exact
    double xd = (double)x;
    return toFloat(xd * xd);
  }
  if (by == 0x3F800000u) // y = 1
    return x;
  if (by == 0xBF800000u) // y = -1: one IEEE division
    return reciprocal(x);
  if (by == 0x3F000000u) // y = 1/2 (x > 0 here): IEEE sqrt
    return sqrt(x);
  if (by == 0x40400000u) // y = 3 (gelu's tanh form): exact double-double cube
    return cube(x);
  return powGeneral(x, y);
}

} // namespace rt
} // namespace plumb

// sin cos tan asin acos atan sinh cosh asinh acosh atanh (same method).
#include "plumb/runtime/math_trig.h"

#undef PLUMB_MATH_ROUND

#endif // PLUMB_RUNTIME_MATH_H
