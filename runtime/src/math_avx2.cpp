//===- runtime/src/math_avx2.cpp - AVX2 schedules of math.h ----*- C++ -*-===//
//
// Part of Plumb. AVX2 loops for exp, sigmoid and tanh that perform exactly
// the binary64 operations of the scalar reference in math.h, four lanes at a
// time (same constants, same operation order, no FMA: the target attribute
// enables AVX2 only, and -ffp-contract=off forbids contraction). Any lane
// that the scalar code would treat specially (NaN or out-of-range input, a
// result in the binary32 subnormal range, a result near a rounding midpoint,
// the small-|x| branches) is recomputed by the scalar function, so every
// output is bit-identical to the scalar reference; `plumb-check-math
// --vector-identity FN` verifies this over all 2^32 inputs.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/math.h"

#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace plumb {
namespace rt {
namespace mathavx2 {

namespace md = ::plumb::rt::mathdetail;

#define PLUMB_AVX2 __attribute__((target("avx2")))

/// expCore(x, 0.0) on four lanes; also returns k's validity implicitly (the
/// caller restricts inputs so that |x| <= 230).
PLUMB_AVX2 static inline __m256d expCore4(__m256d x) {
  const __m256d magic = _mm256_set1_pd(md::kRoundMagic);
  __m256d kd = _mm256_add_pd(_mm256_mul_pd(x, _mm256_set1_pd(md::kInvLn2)), magic);
  kd = _mm256_sub_pd(kd, magic);
  __m256d r = _mm256_sub_pd(x, _mm256_mul_pd(kd, _mm256_set1_pd(md::kLn2Hi)));
  r = _mm256_sub_pd(r, _mm256_mul_pd(kd, _mm256_set1_pd(md::kLn2Lo)));
  r = _mm256_add_pd(r, _mm256_set1_pd(0.0)); // the scalar code's "+ xl", xl = 0
  const double *c = md::kExpPoly_host;
  __m256d p = _mm256_set1_pd(c[md::kExpPolyN - 1]);
  for (int i = md::kExpPolyN - 2; i >= 0; --i)
    p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(c[i]));
  // k (exact integer in kd), k1 = k / 2 truncating toward zero, k2 = k - k1.
  __m128i k = _mm256_cvtpd_epi32(kd);
  __m128i k1 = _mm_srai_epi32(_mm_add_epi32(k, _mm_srli_epi32(k, 31)), 1);
  __m128i k2 = _mm_sub_epi32(k, k1);
  const __m256i bias = _mm256_set1_epi64x(1023);
  __m256d s1 = _mm256_castsi256_pd(
      _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(k1), bias), 52));
  __m256d s2 = _mm256_castsi256_pd(
      _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(k2), bias), 52));
  return _mm256_mul_pd(_mm256_mul_pd(p, s1), s2);
}

/// All-ones lanes where y must go to the scalar path: |y| below 2^-126 (the
/// binary32 subnormal range, where the scalar midpoint test differs) or a
/// normal-range y within 256 double ulps of a binary32 midpoint (the scalar
/// nearMidpoint condition, which may consult the exception list).
PLUMB_AVX2 static inline __m256i needsScalar(__m256d y) {
  __m256i u = _mm256_and_si256(_mm256_castpd_si256(y), _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  __m256i small = _mm256_cmpgt_epi64(_mm256_set1_epi64x(0x3810000000000000ll), u); // < 2^-126
  __m256i low = _mm256_and_si256(u, _mm256_set1_epi64x((1ll << 29) - 1));
  __m256i d = _mm256_sub_epi64(low, _mm256_set1_epi64x(1ll << 28));
  // |d| <= 256  <=>  d + 256 in [0, 512]  <=>  !(d + 256 > 512) && !(d + 256 < 0)
  __m256i dd = _mm256_add_epi64(d, _mm256_set1_epi64x(256));
  __m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(dd, _mm256_set1_epi64x(512)),
                                _mm256_cmpgt_epi64(_mm256_setzero_si256(), dd));
  __m256i near = _mm256_andnot_si256(out, _mm256_set1_epi64x(-1));
  return _mm256_or_si256(small, near);
}

/// Mask (8 lanes as a bitmask) of inputs outside [lo, hi] or NaN.
PLUMB_AVX2 static inline int outOfRange(__m256 x, float lo, float hi) {
  __m256 okLo = _mm256_cmp_ps(x, _mm256_set1_ps(lo), _CMP_GE_OQ);
  __m256 okHi = _mm256_cmp_ps(x, _mm256_set1_ps(hi), _CMP_LE_OQ);
  return (~_mm256_movemask_ps(_mm256_and_ps(okLo, okHi))) & 0xFF;
}

template <typename Lane4, typename Scalar>
PLUMB_AVX2 static inline void run8(const float *x, float *y, int64_t n, float lo, float hi,
                                   Lane4 lane4, Scalar scalar) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 xv = _mm256_loadu_ps(x + i);
    int bad = outOfRange(xv, lo, hi);
    __m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(xv));
    __m256d b = _mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1));
    __m256d ya = lane4(a), yb = lane4(b);
    bad |= _mm256_movemask_pd(_mm256_castsi256_pd(needsScalar(ya)));
    bad |= _mm256_movemask_pd(_mm256_castsi256_pd(needsScalar(yb))) << 4;
    __m128 fa = _mm256_cvtpd_ps(ya), fb = _mm256_cvtpd_ps(yb);
    float out[8];
    _mm_storeu_ps(out, fa);
    _mm_storeu_ps(out + 4, fb);
    if (bad) {
      for (int j = 0; j < 8; ++j)
        if (bad & (1 << j))
          out[j] = scalar(x[i + j]);
    }
    // Loaded before storing, so x == y aliasing is fine.
    _mm256_storeu_ps(y + i, _mm256_loadu_ps(out));
  }
  for (; i < n; ++i)
    y[i] = scalar(x[i]);
}

PLUMB_AVX2 void expF32(const float *x, float *y, int64_t n) {
  // Scalar: x > 89 -> inf, x < -104 -> 0, NaN: all handled by the scalar path.
  run8(x, y, n, -104.0f, 89.0f, [](__m256d v) PLUMB_AVX2 { return expCore4(v); },
       [](float v) { return ::plumb::rt::exp(v); });
}

PLUMB_AVX2 void sigmoidF32(const float *x, float *y, int64_t n) {
  // Vector lanes: the scalar general branch (|x| >= 2^-5, -110 <= x <= 40);
  // |x| < 2^-5 lanes are sent to the scalar function via the range trick:
  // they are detected separately below.
  int64_t i = 0;
  auto lane4 = [](__m256d v) PLUMB_AVX2 {
    __m256d e = expCore4(_mm256_sub_pd(_mm256_setzero_pd(), v)); // -(double)x
    return _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_add_pd(_mm256_set1_pd(1.0), e));
  };
  for (; i + 8 <= n; i += 8) {
    __m256 xv = _mm256_loadu_ps(x + i);
    int bad = outOfRange(xv, -110.0f, 40.0f);
    __m256 ax = _mm256_and_ps(xv, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)));
    bad |= _mm256_movemask_ps(_mm256_cmp_ps(ax, _mm256_set1_ps(0x1p-5f), _CMP_LT_OQ));
    __m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(xv));
    __m256d b = _mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1));
    __m256d ya = lane4(a), yb = lane4(b);
    bad |= _mm256_movemask_pd(_mm256_castsi256_pd(needsScalar(ya)));
    bad |= _mm256_movemask_pd(_mm256_castsi256_pd(needsScalar(yb))) << 4;
    float out[8];
    _mm_storeu_ps(out, _mm256_cvtpd_ps(ya));
    _mm_storeu_ps(out + 4, _mm256_cvtpd_ps(yb));
    if (bad)
      for (int j = 0; j < 8; ++j)
        if (bad & (1 << j))
          out[j] = ::plumb::rt::sigmoid(x[i + j]);
    _mm256_storeu_ps(y + i, _mm256_loadu_ps(out));
  }
  for (; i < n; ++i)
    y[i] = ::plumb::rt::sigmoid(x[i]);
}

PLUMB_AVX2 void tanhF32(const float *x, float *y, int64_t n) {
  // tanh|x| = em1 / (em1 + 2), em1 = u <= ln2/2 ? expm1Small(u) : exp(u) - 1,
  // u = 2|x|; both branches computed, the scalar choice selected per lane.
  auto lane4 = [](__m256d v) PLUMB_AVX2 {
    __m256d sign = _mm256_and_pd(v, _mm256_set1_pd(-0.0));
    __m256d a = _mm256_andnot_pd(_mm256_set1_pd(-0.0), v);
    __m256d u = _mm256_mul_pd(_mm256_set1_pd(2.0), a);
    const double *c = md::kExpm1Poly_host;
    __m256d p = _mm256_set1_pd(c[md::kExpm1PolyN - 1]);
    for (int i = md::kExpm1PolyN - 2; i >= 0; --i)
      p = _mm256_add_pd(_mm256_mul_pd(p, u), _mm256_set1_pd(c[i]));
    __m256d small = _mm256_mul_pd(u, p);
    __m256d big = _mm256_sub_pd(expCore4(u), _mm256_set1_pd(1.0));
    __m256d useSmall = _mm256_cmp_pd(u, _mm256_set1_pd(0.34657359027997264), _CMP_LE_OQ);
    __m256d em1 = _mm256_blendv_pd(big, small, useSmall);
    __m256d t = _mm256_div_pd(em1, _mm256_add_pd(em1, _mm256_set1_pd(2.0)));
    return _mm256_xor_pd(t, sign); // t = -t for negative x (t >= 0 here)
  };
  run8(x, y, n, -10.0f, 10.0f, lane4, [](float v) { return ::plumb::rt::tanh(v); });
}

bool available() { return __builtin_cpu_supports("avx2"); }

} // namespace mathavx2
} // namespace rt
} // namespace plumb

#else

namespace plumb {
namespace rt {
namespace mathavx2 {
bool available() { return false; }
void expF32(const float *, float *, int64_t) {}
void sigmoidF32(const float *, float *, int64_t) {}
void tanhF32(const float *, float *, int64_t) {}
} // namespace mathavx2
} // namespace rt
} // namespace plumb

#endif
