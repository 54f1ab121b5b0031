//===- runtime/src/math_avx2.cpp - AVX2 schedules of math.h ----*- C++ -*-===//
//
// Part of Plumb. AVX2 loops for exp, sigmoid, tanh, erf, gelu and gelu_tanh
// that perform exactly
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
#include <cfloat>

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

struct ExpLane {
  PLUMB_AVX2 __m256d operator()(__m256d v) const { return expCore4(v); }
};

struct SigmoidLane {
  PLUMB_AVX2 __m256d operator()(__m256d v) const {
    __m256d e = expCore4(_mm256_sub_pd(_mm256_setzero_pd(), v)); // -(double)x
    return _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_add_pd(_mm256_set1_pd(1.0), e));
  }
};

struct TanhLane {
  // tanh|x| = em1 / (em1 + 2), em1 = u <= ln2/2 ? expm1Small(u) : exp(u) - 1,
  // u = 2|x|; both branches computed, the scalar choice selected per lane.
  PLUMB_AVX2 __m256d operator()(__m256d v) const {
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
  }
};

PLUMB_AVX2 void expF32(const float *x, float *y, int64_t n) {
  // Scalar: x > 89 -> inf, x < -104 -> 0, NaN: all handled by the scalar path.
  run8(x, y, n, -104.0f, 89.0f, ExpLane(), [](float v) { return ::plumb::rt::exp(v); });
}

PLUMB_AVX2 void sigmoidF32(const float *x, float *y, int64_t n) {
  // Vector lanes: the scalar general branch (|x| >= 2^-5, -110 <= x <= 40);
  // |x| < 2^-5 lanes are sent to the scalar function via the range trick:
  // they are detected separately below.
  int64_t i = 0;
  SigmoidLane lane4;
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
  TanhLane lane4;
  run8(x, y, n, -10.0f, 10.0f, lane4, [](float v) { return ::plumb::rt::tanh(v); });
}

/// erfcxCore on four lanes. Lanes outside [0.5, 16) (including NaN/inf)
/// are clamped into it so the table index stays in range; their results are
/// discarded by the caller (blend or scalar fallback).
PLUMB_AVX2 static inline __m256d erfcxCore4(__m256d z) {
  z = _mm256_max_pd(z, _mm256_set1_pd(0.5)); // NaN -> 0.5
  z = _mm256_min_pd(z, _mm256_set1_pd(15.5));
  __m256i u = _mm256_castpd_si256(z);
  __m256i oct = _mm256_sub_epi64(_mm256_srli_epi64(u, 52), _mm256_set1_epi64x(1023));
  __m256i j = _mm256_and_si256(_mm256_srli_epi64(u, 49), _mm256_set1_epi64x(7));
  __m256i row = _mm256_add_epi64(
      _mm256_slli_epi64(_mm256_add_epi64(oct, _mm256_set1_epi64x(1)), 3), j);
  const __m256i bias = _mm256_set1_epi64x(1023);
  __m256d w = _mm256_castsi256_pd(_mm256_slli_epi64(
      _mm256_add_epi64(_mm256_sub_epi64(oct, _mm256_set1_epi64x(3)), bias), 52));
  __m256d p2 = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(oct, bias), 52));
  // (double)j: j in 0..7 -> via 2^52 trick (exact).
  __m256d jd = _mm256_sub_pd(
      _mm256_castsi256_pd(_mm256_or_si256(j, _mm256_castpd_si256(_mm256_set1_pd(0x1p52)))),
      _mm256_set1_pd(0x1p52));
  __m256d centre = _mm256_add_pd(_mm256_add_pd(p2, _mm256_mul_pd(w, jd)),
                                 _mm256_mul_pd(_mm256_set1_pd(0.5), w));
  __m256d t = _mm256_sub_pd(z, centre);
  const double *tab = md::kErfcxTable_host;
  const int N = md::kErfcxN;
  __m256i base = _mm256_mul_epu32(row, _mm256_set1_epi64x(N)); // row * N (row < 2^32)
  __m256d p = _mm256_i64gather_pd(tab + (N - 1), base, 8);
  for (int i = N - 2; i >= 0; --i)
    p = _mm256_add_pd(_mm256_mul_pd(p, t), _mm256_i64gather_pd(tab + i, base, 8));
  return p;
}

/// erfSmallQ on four lanes.
PLUMB_AVX2 static inline __m256d erfSmallQ4(__m256d z) {
  const double *c = md::kErfSmallPoly_host;
  __m256d p = _mm256_set1_pd(c[md::kErfSmallPolyN - 1]);
  for (int i = md::kErfSmallPolyN - 2; i >= 0; --i)
    p = _mm256_add_pd(_mm256_mul_pd(p, z), _mm256_set1_pd(c[i]));
  return p;
}

PLUMB_AVX2 static inline __m256d negate4(__m256d v) {
  return _mm256_xor_pd(v, _mm256_set1_pd(-0.0));
}

struct ErfLane {
  PLUMB_AVX2 __m256d operator()(__m256d v) const {
    __m256d sign = _mm256_and_pd(v, _mm256_set1_pd(-0.0));
    __m256d a = _mm256_andnot_pd(_mm256_set1_pd(-0.0), v);
    __m256d small = _mm256_mul_pd(a, erfSmallQ4(_mm256_mul_pd(a, a)));
    __m256d z2 = _mm256_mul_pd(a, a);
    __m256d big = _mm256_sub_pd(_mm256_set1_pd(1.0),
                                _mm256_mul_pd(expCore4(negate4(z2)), erfcxCore4(a)));
    __m256d useSmall = _mm256_cmp_pd(a, _mm256_set1_pd(0.5), _CMP_LT_OQ);
    return _mm256_xor_pd(_mm256_blendv_pd(big, small, useSmall), sign);
  }
};

struct GeluLane {
  PLUMB_AVX2 __m256d operator()(__m256d xd) const {
    const __m256d kInvSqrt2 = _mm256_set1_pd(0x1.6a09e667f3bcdp-1);
    __m256d w = _mm256_mul_pd(xd, kInvSqrt2);
    // Small branch: h + c with h = x/2, c = h * (w * Q(w^2)).
    __m256d h = _mm256_mul_pd(_mm256_set1_pd(0.5), xd);
    __m256d c = _mm256_mul_pd(h, _mm256_mul_pd(w, erfSmallQ4(_mm256_mul_pd(w, w))));
    __m256d small = _mm256_add_pd(h, c);
    // Large branch: x * normalCdf(x).
    __m256d aw = _mm256_andnot_pd(_mm256_set1_pd(-0.0), w);
    __m256d e = expCore4(_mm256_mul_pd(negate4(_mm256_mul_pd(xd, xd)), _mm256_set1_pd(0.5)));
    __m256d q = _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.5), e), erfcxCore4(aw));
    __m256d wNeg = _mm256_cmp_pd(w, _mm256_setzero_pd(), _CMP_LT_OQ);
    __m256d cdf = _mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(1.0), q), q, wNeg);
    __m256d big = _mm256_mul_pd(xd, cdf);
    __m256d useSmall = _mm256_and_pd(_mm256_cmp_pd(w, _mm256_set1_pd(0.5), _CMP_LT_OQ),
                                     _mm256_cmp_pd(w, _mm256_set1_pd(-0.5), _CMP_GT_OQ));
    return _mm256_blendv_pd(big, small, useSmall);
  }
};

struct GeluTanhLane {
  PLUMB_AVX2 __m256d operator()(__m256d xd) const {
    const __m256d kS = _mm256_set1_pd(0x1.9884533d43651p-1);
    const __m256d kC = _mm256_set1_pd(0.044715);
    __m256d x3 = _mm256_mul_pd(_mm256_mul_pd(xd, xd), xd);
    __m256d v = _mm256_mul_pd(kS, _mm256_add_pd(xd, _mm256_mul_pd(kC, x3)));
    // Small branch (|x| < 2^-5).
    __m256d h = _mm256_mul_pd(_mm256_set1_pd(0.5), xd);
    __m256d v2 = _mm256_mul_pd(v, v);
    __m256d in = _mm256_add_pd(_mm256_set1_pd(2.0 / 15),
                               _mm256_mul_pd(v2, _mm256_set1_pd(-17.0 / 315)));
    in = _mm256_add_pd(_mm256_set1_pd(-1.0 / 3), _mm256_mul_pd(v2, in));
    in = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_mul_pd(v2, in));
    __m256d th = _mm256_mul_pd(v, in);
    __m256d small = _mm256_add_pd(h, _mm256_mul_pd(h, th));
    // Large branch.
    __m256d e = expCore4(_mm256_mul_pd(_mm256_set1_pd(-2.0), v));
    __m256d big = _mm256_div_pd(xd, _mm256_add_pd(_mm256_set1_pd(1.0), e));
    __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), xd);
    __m256d useSmall = _mm256_cmp_pd(ax, _mm256_set1_pd(0x1p-5), _CMP_LT_OQ);
    return _mm256_blendv_pd(big, small, useSmall);
  }
};

/// Shared 8-wide loop for lanes that also exclude x == +-0 (sent to scalar).
template <typename Lane4, typename Scalar>
PLUMB_AVX2 static inline void run8NonZero(const float *x, float *y, int64_t n, float lo,
                                          float hi, Lane4 lane4, Scalar scalar) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 xv = _mm256_loadu_ps(x + i);
    int bad = outOfRange(xv, lo, hi);
    bad |= _mm256_movemask_ps(_mm256_cmp_ps(xv, _mm256_setzero_ps(), _CMP_EQ_OQ));
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
          out[j] = scalar(x[i + j]);
    _mm256_storeu_ps(y + i, _mm256_loadu_ps(out));
  }
  for (; i < n; ++i)
    y[i] = scalar(x[i]);
}

PLUMB_AVX2 void erfF32(const float *x, float *y, int64_t n) {
  // Scalar: |x| >= 4 -> +-1; vector lanes |x| < 4 (float: |x| <= 3.9999998).
  run8(x, y, n, -0x1.fffffep+1f, 0x1.fffffep+1f, ErfLane(),
       [](float v) { return ::plumb::rt::erf(v); });
}

PLUMB_AVX2 void geluF32(const float *x, float *y, int64_t n) {
  run8NonZero(x, y, n, -20.0f, 10.0f, GeluLane(), [](float v) { return ::plumb::rt::gelu(v); });
}

PLUMB_AVX2 void geluTanhF32(const float *x, float *y, int64_t n) {
  run8NonZero(x, y, n, -11.0f, 10.0f, GeluTanhLane(),
              [](float v) { return ::plumb::rt::gelu_tanh(v); });
}

bool available() { return __builtin_cpu_supports("avx2"); }

} // namespace mathavx2

//===----------------------------------------------------------------------===//
// AVX-512F schedule of tanh: the same binary64 operations as TanhLane /
// expCore4 (and the scalar tanh) on eight lanes, no FMA (-ffp-contract=off;
// only explicit mul/add/sub/div intrinsics). |x| > 10 lanes give +-1 in the
// vector path exactly as the scalar code; NaN lanes and every lane the
// scalar code could treat specially (needsScalar) use the scalar function.
//===----------------------------------------------------------------------===//
// GCC 12 flags the intrinsics' internal undefined vectors (false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
namespace mathavx512 {

namespace md = ::plumb::rt::mathdetail;

#define PLUMB_AVX512 __attribute__((target("avx512f,avx512dq,avx2")))

PLUMB_AVX512 static inline __m512d expCore8(__m512d x) {
  const __m512d magic = _mm512_set1_pd(md::kRoundMagic);
  __m512d kd = _mm512_add_pd(_mm512_mul_pd(x, _mm512_set1_pd(md::kInvLn2)), magic);
  kd = _mm512_sub_pd(kd, magic);
  __m512d r = _mm512_sub_pd(x, _mm512_mul_pd(kd, _mm512_set1_pd(md::kLn2Hi)));
  r = _mm512_sub_pd(r, _mm512_mul_pd(kd, _mm512_set1_pd(md::kLn2Lo)));
  r = _mm512_add_pd(r, _mm512_set1_pd(0.0));
  const double *c = md::kExpPoly_host;
  __m512d p = _mm512_set1_pd(c[md::kExpPolyN - 1]);
  for (int i = md::kExpPolyN - 2; i >= 0; --i)
    p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(c[i]));
  __m256i k = _mm512_cvtpd_epi32(kd);
  __m256i k1 = _mm256_srai_epi32(_mm256_add_epi32(k, _mm256_srli_epi32(k, 31)), 1);
  __m256i k2 = _mm256_sub_epi32(k, k1);
  const __m512i bias = _mm512_set1_epi64(1023);
  __m512d s1 = _mm512_castsi512_pd(
      _mm512_slli_epi64(_mm512_add_epi64(_mm512_cvtepi32_epi64(k1), bias), 52));
  __m512d s2 = _mm512_castsi512_pd(
      _mm512_slli_epi64(_mm512_add_epi64(_mm512_cvtepi32_epi64(k2), bias), 52));
  return _mm512_mul_pd(_mm512_mul_pd(p, s1), s2);
}

/// needsScalar of the AVX2 code, as a lane mask.
PLUMB_AVX512 static inline __mmask8 needsScalar8(__m512d y) {
  __m512i u = _mm512_and_si512(_mm512_castpd_si512(y),
                               _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFll));
  __mmask8 small = _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(0x3810000000000000ll), u);
  __m512i low = _mm512_and_si512(u, _mm512_set1_epi64((1ll << 29) - 1));
  __m512i dd = _mm512_add_epi64(_mm512_sub_epi64(low, _mm512_set1_epi64(1ll << 28)),
                                _mm512_set1_epi64(256));
  __mmask8 out = _mm512_cmpgt_epi64_mask(dd, _mm512_set1_epi64(512)) |
                 _mm512_cmpgt_epi64_mask(_mm512_setzero_si512(), dd);
  return small | static_cast<__mmask8>(~out);
}

PLUMB_AVX512 static inline __m512d tanh8(__m512d v) {
  const __m512d nz = _mm512_set1_pd(-0.0);
  __m512i sign = _mm512_and_si512(_mm512_castpd_si512(v), _mm512_castpd_si512(nz));
  __m512d a = _mm512_castsi512_pd(
      _mm512_andnot_si512(_mm512_castpd_si512(nz), _mm512_castpd_si512(v)));
  __m512d u = _mm512_mul_pd(_mm512_set1_pd(2.0), a);
  const __mmask8 useSmall =
      _mm512_cmp_pd_mask(u, _mm512_set1_pd(0.34657359027997264), _CMP_LE_OQ);
  __m512d small = _mm512_setzero_pd(), big = _mm512_setzero_pd();
  if (useSmall) {
    const double *c = md::kExpm1Poly_host;
    __m512d p = _mm512_set1_pd(c[md::kExpm1PolyN - 1]);
    for (int i = md::kExpm1PolyN - 2; i >= 0; --i)
      p = _mm512_add_pd(_mm512_mul_pd(p, u), _mm512_set1_pd(c[i]));
    small = _mm512_mul_pd(u, p);
  }
  if (useSmall != 0xFF)
    big = _mm512_sub_pd(expCore8(u), _mm512_set1_pd(1.0));
  __m512d em1 = _mm512_mask_blend_pd(useSmall, big, small);
  __m512d t = _mm512_div_pd(em1, _mm512_add_pd(em1, _mm512_set1_pd(2.0)));
  return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(t), sign));
}

PLUMB_AVX512 void tanhF32(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  const __m512 lo = _mm512_set1_ps(-10.0f), hi = _mm512_set1_ps(10.0f);
  for (; i + 16 <= n; i += 16) {
    const __m512 xv = _mm512_loadu_ps(x + i);
    const __mmask16 in = _mm512_cmp_ps_mask(xv, lo, _CMP_GE_OQ) &
                         _mm512_cmp_ps_mask(xv, hi, _CMP_LE_OQ);
    const __mmask16 nan = _mm512_cmp_ps_mask(xv, xv, _CMP_UNORD_Q);
    const __m512 one = _mm512_castsi512_ps(_mm512_or_si512(
        _mm512_and_si512(_mm512_castps_si512(xv), _mm512_set1_epi32(INT32_MIN)),
        _mm512_set1_epi32(0x3F800000)));
    if (in == 0 && nan == 0) { // all saturated
      _mm512_storeu_ps(y + i, one);
      continue;
    }
    __m512d a = _mm512_cvtps_pd(_mm512_castps512_ps256(xv));
    __m512d b = _mm512_cvtps_pd(_mm256_castpd_ps(
        _mm512_extractf64x4_pd(_mm512_castps_pd(xv), 1)));
    __m512d ya = tanh8(a), yb = tanh8(b);
    unsigned bad = static_cast<unsigned>(needsScalar8(ya)) |
                   (static_cast<unsigned>(needsScalar8(yb)) << 8);
    bad = (bad & in) | nan;
    __m512 out = _mm512_castpd_ps(_mm512_insertf64x4(
        _mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(ya))),
        _mm256_castps_pd(_mm512_cvtpd_ps(yb)), 1));
    // |x| > 10 (not NaN): +-1, as the scalar code.
    const __mmask16 sat = static_cast<__mmask16>(~in & ~nan);
    out = _mm512_mask_blend_ps(sat, out, one);
    if (bad) {
      alignas(64) float tmp[16];
      _mm512_store_ps(tmp, out);
      for (int j = 0; j < 16; ++j)
        if (bad & (1u << j))
          tmp[j] = ::plumb::rt::tanh(x[i + j]);
      out = _mm512_load_ps(tmp);
    }
    _mm512_storeu_ps(y + i, out);
  }
  for (; i < n; ++i)
    y[i] = ::plumb::rt::tanh(x[i]);
}

//===----------------------------------------------------------------------===//
// AVX-512F schedules of exp, sigmoid, erf, gelu and gelu_tanh. The same
// binary64 operations as the scalar functions, eight lanes per vector, two
// vectors (sixteen floats) per step. Two things make them faster than the
// AVX2 schedules without changing a bit:
//  - a branch of the scalar function (erf's |x| < 1/2 polynomial or its
//    erfc form, ...) is evaluated only when some live lane takes it;
//  - erfcx's coefficients come from a transposed copy of the table
//    (kErfcxT[i][row], the same doubles) by in-register permutes, one per
//    block of 16 rows that the live lanes use, instead of gathers.
// Lanes the scalar code treats specially (NaN, out of range, the small-|x|
// forms that round with a sticky term, results near a binary32 midpoint
// or below 2^-126) are recomputed by the scalar function, as in AVX2.
//===----------------------------------------------------------------------===//

constexpr int kErfcxRows = 40; // oct -1..3, 8 sub-intervals each
constexpr int kErfcxRowsPadded = 48;
struct ErfcxTransposed {
  alignas(64) double c[md::kErfcxN][kErfcxRowsPadded];
  ErfcxTransposed() {
    for (int i = 0; i < md::kErfcxN; ++i)
      for (int r = 0; r < kErfcxRowsPadded; ++r)
        c[i][r] = r < kErfcxRows ? md::kErfcxTable_host[r * md::kErfcxN + i] : 0.0;
  }
};
static const ErfcxTransposed kErfcxT;

PLUMB_AVX512 static inline __m512d negate8(__m512d v) {
  return _mm512_castsi512_pd(
      _mm512_xor_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(INT64_MIN)));
}
PLUMB_AVX512 static inline __m512d abs8(__m512d v) {
  return _mm512_castsi512_pd(
      _mm512_and_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(INT64_MAX)));
}

/// erfSmallQ on eight lanes.
PLUMB_AVX512 static inline __m512d erfSmallQ8(__m512d z) {
  const double *c = md::kErfSmallPoly_host;
  __m512d p = _mm512_set1_pd(c[md::kErfSmallPolyN - 1]);
  for (int i = md::kErfSmallPolyN - 2; i >= 0; --i)
    p = _mm512_add_pd(_mm512_mul_pd(p, z), _mm512_set1_pd(c[i]));
  return p;
}

/// erfcxCore on eight lanes; only the lanes in `live` need a result (the
/// others are clamped into [0.5, 15.5] and may use any row's coefficients).
PLUMB_AVX512 static inline __m512d erfcxCore8(__m512d z, __mmask8 live) {
  z = _mm512_max_pd(z, _mm512_set1_pd(0.5)); // NaN -> 0.5
  z = _mm512_min_pd(z, _mm512_set1_pd(15.5));
  __m512i u = _mm512_castpd_si512(z);
  __m512i oct = _mm512_sub_epi64(_mm512_srli_epi64(u, 52), _mm512_set1_epi64(1023));
  __m512i j = _mm512_and_si512(_mm512_srli_epi64(u, 49), _mm512_set1_epi64(7));
  __m512i row = _mm512_add_epi64(
      _mm512_slli_epi64(_mm512_add_epi64(oct, _mm512_set1_epi64(1)), 3), j);
  const __m512i bias = _mm512_set1_epi64(1023);
  __m512d w = _mm512_castsi512_pd(_mm512_slli_epi64(
      _mm512_add_epi64(_mm512_sub_epi64(oct, _mm512_set1_epi64(3)), bias), 52));
  __m512d p2 = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(oct, bias), 52));
  __m512d jd = _mm512_sub_pd(
      _mm512_castsi512_pd(_mm512_or_si512(j, _mm512_castpd_si512(_mm512_set1_pd(0x1p52)))),
      _mm512_set1_pd(0x1p52));
  __m512d centre = _mm512_add_pd(_mm512_add_pd(p2, _mm512_mul_pd(w, jd)),
                                 _mm512_mul_pd(_mm512_set1_pd(0.5), w));
  __m512d t = _mm512_sub_pd(z, centre);
  const int N = md::kErfcxN;
  // Which 16-row blocks the live lanes use (rows 0..39: blocks 0, 1, 2).
  const __m512i blkIdx = _mm512_srli_epi64(row, 4);
  const __mmask8 in1 = _mm512_cmpeq_epi64_mask(blkIdx, _mm512_set1_epi64(1));
  const __mmask8 in2 = _mm512_cmpeq_epi64_mask(blkIdx, _mm512_set1_epi64(2));
  const __mmask8 in0 = static_cast<__mmask8>(~(in1 | in2));
  const bool use0 = (in0 & live) != 0, use1 = (in1 & live) != 0, use2 = (in2 & live) != 0;
  const __m512i idx = _mm512_and_si512(row, _mm512_set1_epi64(15));
  // Coefficient i of each lane's row: one in-register permute per block
  // used, merged by block (the same doubles as the scalar table lookup).
  auto coef = [&](int i) PLUMB_AVX512 {
    const double *r = kErfcxT.c[i];
    __m512d c = _mm512_setzero_pd();
    if (use0)
      c = _mm512_permutex2var_pd(_mm512_load_pd(r), idx, _mm512_load_pd(r + 8));
    if (use1)
      c = _mm512_mask_mov_pd(
          c, in1, _mm512_permutex2var_pd(_mm512_load_pd(r + 16), idx, _mm512_load_pd(r + 24)));
    if (use2)
      c = _mm512_mask_mov_pd(
          c, in2, _mm512_permutex2var_pd(_mm512_load_pd(r + 32), idx, _mm512_load_pd(r + 40)));
    return c;
  };
  __m512d p = coef(N - 1);
  for (int i = N - 2; i >= 0; --i)
    p = _mm512_add_pd(_mm512_mul_pd(p, t), coef(i));
  return p;
}

/// The 16-float driver: `lane(v, live)` gives the binary64 results of the
/// eight lanes of v (only `live` lanes matter); `special(xv)` the lanes
/// sent to `scalar` whatever their result; `fixed(xv, &m)` the lanes m
/// whose result the scalar function gives without computing (+-1 for a
/// saturated erf, ...) and those results.
template <typename Lane8, typename Special, typename Fixed, typename Scalar>
PLUMB_AVX512 static inline void run16(const float *x, float *y, int64_t n, Lane8 lane,
                                      Special special, Fixed fixed, Scalar scalar) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 xv = _mm512_loadu_ps(x + i);
    __mmask16 fm = 0;
    const __m512 fv = fixed(xv, &fm);
    const unsigned sp = special(xv) & ~static_cast<unsigned>(fm);
    if (fm == 0xFFFFu) { // every lane fixed
      _mm512_storeu_ps(y + i, fv);
      continue;
    }
    __m512d a = _mm512_cvtps_pd(_mm512_castps512_ps256(xv));
    __m512d b = _mm512_cvtps_pd(
        _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(xv), 1)));
    const unsigned dead = sp | fm;
    const __mmask8 la = static_cast<__mmask8>(~dead & 0xFF);
    const __mmask8 lb = static_cast<__mmask8>((~dead >> 8) & 0xFF);
    __m512d ya = la ? lane(a, la) : _mm512_setzero_pd();
    __m512d yb = lb ? lane(b, lb) : _mm512_setzero_pd();
    unsigned bad = static_cast<unsigned>(needsScalar8(ya)) |
                   (static_cast<unsigned>(needsScalar8(yb)) << 8);
    bad = (bad & ~static_cast<unsigned>(fm)) | sp;
    __m512 out = _mm512_castpd_ps(_mm512_insertf64x4(
        _mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(ya))),
        _mm256_castps_pd(_mm512_cvtpd_ps(yb)), 1));
    out = _mm512_mask_blend_ps(fm, out, fv);
    if (bad & 0xFFFF) {
      alignas(64) float tmp[16];
      _mm512_store_ps(tmp, out);
      for (int k = 0; k < 16; ++k)
        if (bad & (1u << k))
          tmp[k] = scalar(x[i + k]);
      out = _mm512_load_ps(tmp);
    }
    _mm512_storeu_ps(y + i, out);
  }
  if (i < n) { // the tail through the vector body (padded with zeros)
    alignas(64) float tx[16] = {0}, ty[16];
    const int64_t rem = n - i;
    for (int64_t k = 0; k < rem; ++k)
      tx[k] = x[i + k];
    run16(tx, ty, 16, lane, special, fixed, scalar);
    for (int64_t k = 0; k < rem; ++k)
      y[i + k] = ty[k];
  }
}

/// Lanes outside [lo, hi] or NaN.
PLUMB_AVX512 static inline unsigned outside16(__m512 xv, float lo, float hi) {
  const __mmask16 in = _mm512_cmp_ps_mask(xv, _mm512_set1_ps(lo), _CMP_GE_OQ) &
                       _mm512_cmp_ps_mask(xv, _mm512_set1_ps(hi), _CMP_LE_OQ);
  return static_cast<unsigned>(static_cast<__mmask16>(~in));
}
/// Lanes with |x| < t (t > 0).
PLUMB_AVX512 static inline unsigned absBelow16(__m512 xv, float t) {
  const __m512 ax = _mm512_castsi512_ps(
      _mm512_and_si512(_mm512_castps_si512(xv), _mm512_set1_epi32(0x7FFFFFFF)));
  return static_cast<unsigned>(_mm512_cmp_ps_mask(ax, _mm512_set1_ps(t), _CMP_LT_OQ));
}

/// exp(t) in binary64 for t in [-104, 112] (the vector ranges of exp,
/// sigmoid and gelu_tanh), to
/// well within the 256 binary64 ulps that needsScalar8 leaves between a
/// result and a binary32 rounding boundary (a few ulps: 2^(k/16) from a
/// table, |r| <= ln2/32 and a degree-7 Taylor polynomial, truncation below
/// 2^-59). Only those vector lanes use it: a lane whose value could
/// round otherwise than the exact one goes to the scalar function, so the
/// binary32 results are the correctly rounded ones either way (checked over
/// all 2^32 inputs: plumb-check-math --vector-identity exp, sigmoid,
/// gelu_tanh).
PLUMB_AVX512 static inline __m512d expTable8(__m512d t) {
  const __m512d magic = _mm512_set1_pd(md::kRoundMagic);
  __m512d kd = _mm512_add_pd(_mm512_mul_pd(t, _mm512_set1_pd(0x1.71547652b82fep+4)), magic);
  kd = _mm512_sub_pd(kd, magic);
  // ln2/16 = hi + lo; hi has 14 trailing zero bits, so kd * hi is exact.
  __m512d r = _mm512_sub_pd(t, _mm512_mul_pd(kd, _mm512_set1_pd(0x1.62e42fefa4000p-5)));
  r = _mm512_sub_pd(r, _mm512_mul_pd(kd, _mm512_set1_pd(-0x1.8432a1b0e2634p-47)));
  __m512d p = _mm512_set1_pd(0x1.a01a01a01a01ap-13);
  p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(0x1.6c16c16c16c17p-10));
  p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(0x1.1111111111111p-7));
  p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(0x1.5555555555555p-5));
  p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(0x1.5555555555555p-3));
  p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(0.5));
  p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(1.0));
  p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(1.0));
  const __m512i k = _mm512_cvtepi32_epi64(_mm512_cvtpd_epi32(kd));
  const __m512d lo8 = _mm512_setr_pd(0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0,
                                     0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
                                     0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0,
                                     0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0);
  const __m512d hi8 = _mm512_setr_pd(0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0,
                                     0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
                                     0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0,
                                     0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0);
  const __m512i j = _mm512_and_si512(k, _mm512_set1_epi64(15));
  const __m512d tab = _mm512_permutex2var_pd(lo8, j, hi8);
  // 2^(k >> 4): k >> 4 in [-151, 162] here, a normal binary64 scale.
  const __m512i e = _mm512_srai_epi64(k, 4);
  const __m512d scale = _mm512_castsi512_pd(
      _mm512_slli_epi64(_mm512_add_epi64(e, _mm512_set1_epi64(1023)), 52));
  return _mm512_mul_pd(_mm512_mul_pd(p, tab), scale);
}

PLUMB_AVX512 void expF32(const float *x, float *y, int64_t n) {
  run16(
      x, y, n, [](__m512d v, __mmask8) PLUMB_AVX512 { return expTable8(v); },
      [](__m512 xv) PLUMB_AVX512 { return outside16(xv, -104.0f, 89.0f); },
      [](__m512, __mmask16 *m) PLUMB_AVX512 { *m = 0; return _mm512_setzero_ps(); },
      [](float v) PLUMB_AVX512 { return ::plumb::rt::exp(v); });
}

PLUMB_AVX512 void sigmoidF32(const float *x, float *y, int64_t n) {
  run16(
      x, y, n,
      [](__m512d v, __mmask8) PLUMB_AVX512 {
        __m512d e = expTable8(negate8(v));
        return _mm512_div_pd(_mm512_set1_pd(1.0), _mm512_add_pd(_mm512_set1_pd(1.0), e));
      },
      // |x| < 2^-5 (the scalar code's series) needs no scalar lane here: the
      // table form is as accurate there (checked over all inputs).
      [](__m512 xv) PLUMB_AVX512 { return outside16(xv, -110.0f, 40.0f); },
      [](__m512, __mmask16 *m) PLUMB_AVX512 { *m = 0; return _mm512_setzero_ps(); },
      [](float v) PLUMB_AVX512 { return ::plumb::rt::sigmoid(v); });
}

PLUMB_AVX512 void erfF32(const float *x, float *y, int64_t n) {
  run16(
      x, y, n,
      [](__m512d v, __mmask8 live) PLUMB_AVX512 {
        __m512d a = abs8(v);
        const __mmask8 useSmall =
            _mm512_cmp_pd_mask(a, _mm512_set1_pd(0.5), _CMP_LT_OQ) & live;
        const __mmask8 useBig = static_cast<__mmask8>(~useSmall & live);
        __m512d small = _mm512_setzero_pd(), big = _mm512_setzero_pd();
        if (useSmall)
          small = _mm512_mul_pd(a, erfSmallQ8(_mm512_mul_pd(a, a)));
        if (useBig) {
          __m512d z2 = _mm512_mul_pd(a, a);
          big = _mm512_sub_pd(_mm512_set1_pd(1.0),
                              _mm512_mul_pd(expCore8(negate8(z2)), erfcxCore8(a, useBig)));
        }
        __m512d r = _mm512_mask_blend_pd(useSmall, big, small);
        return _mm512_castsi512_pd(_mm512_xor_si512(
            _mm512_castpd_si512(r),
            _mm512_and_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(INT64_MIN))));
      },
      // |x| >= 4 gives +-1 in the scalar code (float: |x| <= 3.9999998 here).
      [](__m512 xv) PLUMB_AVX512 { return outside16(xv, -0x1.fffffep+1f, 0x1.fffffep+1f); },
      [](__m512 xv, __mmask16 *m) PLUMB_AVX512 { // |x| >= 4: +-1 (NaN is not fixed)
        const __m512 ax = _mm512_castsi512_ps(
            _mm512_and_si512(_mm512_castps_si512(xv), _mm512_set1_epi32(0x7FFFFFFF)));
        *m = _mm512_cmp_ps_mask(ax, _mm512_set1_ps(4.0f), _CMP_GE_OQ);
        return _mm512_castsi512_ps(_mm512_or_si512(
            _mm512_and_si512(_mm512_castps_si512(xv), _mm512_set1_epi32(INT32_MIN)),
            _mm512_set1_epi32(0x3F800000)));
      },
      [](float v) PLUMB_AVX512 { return ::plumb::rt::erf(v); });
}

PLUMB_AVX512 void geluF32(const float *x, float *y, int64_t n) {
  run16(
      x, y, n,
      [](__m512d xd, __mmask8 live) PLUMB_AVX512 {
        const __m512d kInvSqrt2 = _mm512_set1_pd(0x1.6a09e667f3bcdp-1);
        __m512d w = _mm512_mul_pd(xd, kInvSqrt2);
        __m512d aw = abs8(w);
        const __mmask8 useSmall =
            _mm512_cmp_pd_mask(aw, _mm512_set1_pd(0.5), _CMP_LT_OQ) & live;
        const __mmask8 useBig = static_cast<__mmask8>(~useSmall & live);
        __m512d small = _mm512_setzero_pd(), big = _mm512_setzero_pd();
        if (useSmall) { // h + c, h = x/2, c = h * (w * Q(w^2))
          __m512d h = _mm512_mul_pd(_mm512_set1_pd(0.5), xd);
          __m512d c = _mm512_mul_pd(h, _mm512_mul_pd(w, erfSmallQ8(_mm512_mul_pd(w, w))));
          small = _mm512_add_pd(h, c);
        }
        if (useBig) { // x * normalCdf(x)
          __m512d e = expCore8(_mm512_mul_pd(negate8(_mm512_mul_pd(xd, xd)), _mm512_set1_pd(0.5)));
          __m512d q = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(0.5), e), erfcxCore8(aw, useBig));
          const __mmask8 wNeg = _mm512_cmp_pd_mask(w, _mm512_setzero_pd(), _CMP_LT_OQ);
          __m512d cdf = _mm512_mask_blend_pd(wNeg, _mm512_sub_pd(_mm512_set1_pd(1.0), q), q);
          big = _mm512_mul_pd(xd, cdf);
        }
        return _mm512_mask_blend_pd(useSmall, big, small);
      },
      [](__m512 xv) PLUMB_AVX512 {
        return outside16(xv, -20.0f, 10.0f) |
               static_cast<unsigned>(_mm512_cmp_ps_mask(xv, _mm512_setzero_ps(), _CMP_EQ_OQ));
      },
      [](__m512 xv, __mmask16 *m) PLUMB_AVX512 { // x > 10 or +-0: x; x < -20: -0
        const __mmask16 big = _mm512_cmp_ps_mask(xv, _mm512_set1_ps(10.0f), _CMP_GT_OQ) |
                              _mm512_cmp_ps_mask(xv, _mm512_setzero_ps(), _CMP_EQ_OQ);
        const __mmask16 neg = _mm512_cmp_ps_mask(xv, _mm512_set1_ps(-20.0f), _CMP_LT_OQ);
        *m = big | neg;
        return _mm512_mask_blend_ps(big, _mm512_set1_ps(-0.0f), xv);
      },
      [](float v) PLUMB_AVX512 { return ::plumb::rt::gelu(v); });
}

PLUMB_AVX512 void geluTanhF32(const float *x, float *y, int64_t n) {
  run16(
      x, y, n,
      [](__m512d xd, __mmask8 live) PLUMB_AVX512 {
        const __m512d kS = _mm512_set1_pd(0x1.9884533d43651p-1);
        const __m512d kC = _mm512_set1_pd(0.044715);
        __m512d x3 = _mm512_mul_pd(_mm512_mul_pd(xd, xd), xd);
        __m512d v = _mm512_mul_pd(kS, _mm512_add_pd(xd, _mm512_mul_pd(kC, x3)));
        __m512d e = expTable8(_mm512_mul_pd(_mm512_set1_pd(-2.0), v));
        (void)live;
        return _mm512_div_pd(xd, _mm512_add_pd(_mm512_set1_pd(1.0), e));
      },
      // |x| < 2^-5 (the scalar code's sticky small form) stays in the
      // vector lanes, as for sigmoid; zero gives +-0 here too.
      [](__m512 xv) PLUMB_AVX512 { return outside16(xv, -11.0f, 10.0f); },
      [](__m512, __mmask16 *m) PLUMB_AVX512 { *m = 0; return _mm512_setzero_ps(); },
      [](float v) PLUMB_AVX512 { return ::plumb::rt::gelu_tanh(v); });
}

/// pow(x, 3) (math.h mathdetail::cube) on eight lanes: the same exact
/// double-double x^2 * x, without its error term. The driver sends every
/// result roundSticky could move (near a binary32 midpoint) or below the
/// normal range to the scalar function, as for the other functions.
PLUMB_AVX512 static inline __m512d cube8(__m512d xd) {
  __m512d x2 = _mm512_mul_pd(xd, xd);
  __m512d c = _mm512_mul_pd(x2, _mm512_set1_pd(134217729.0));
  __m512d hi = _mm512_sub_pd(c, _mm512_sub_pd(c, x2));
  __m512d lo = _mm512_sub_pd(x2, hi);
  return _mm512_add_pd(_mm512_mul_pd(hi, xd), _mm512_mul_pd(lo, xd));
}

PLUMB_AVX512 void cubeF32(const float *x, float *y, int64_t n) {
  run16(
      x, y, n, [](__m512d v, __mmask8) PLUMB_AVX512 { return cube8(v); },
      // Infinities and NaN: pow's special cases.
      [](__m512 xv) PLUMB_AVX512 { return outside16(xv, -FLT_MAX, FLT_MAX); },
      [](__m512, __mmask16 *m) PLUMB_AVX512 { *m = 0; return _mm512_setzero_ps(); },
      [](float v) PLUMB_AVX512 { return ::plumb::rt::canonicalize_nan(::plumb::rt::pow(v, 3.0f)); });
}

bool available() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx2");
}

} // namespace mathavx512
#pragma GCC diagnostic pop
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
void erfF32(const float *, float *, int64_t) {}
void geluF32(const float *, float *, int64_t) {}
void geluTanhF32(const float *, float *, int64_t) {}
} // namespace mathavx2
namespace mathavx512 {
bool available() { return false; }
void tanhF32(const float *, float *, int64_t) {}
void expF32(const float *, float *, int64_t) {}
void sigmoidF32(const float *, float *, int64_t) {}
void erfF32(const float *, float *, int64_t) {}
void geluF32(const float *, float *, int64_t) {}
void geluTanhF32(const float *, float *, int64_t) {}
void cubeF32(const float *, float *, int64_t) {}
} // namespace mathavx512
} // namespace rt
} // namespace plumb

#endif
