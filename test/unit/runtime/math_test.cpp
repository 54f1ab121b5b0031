//===- test/unit/runtime/math_test.cpp - math.h tests ----------*- C++ -*-===//
//
// Part of Plumb. Tests of the correctly rounded elementwise math
// (plumb/runtime/math.h) and its C ABI array kernels: special values,
// hand-checked values, subnormals, canonical NaN stores, bit equality with
// MPFR's correctly rounded result on sampled inputs and on every exception
// list entry (when MPFR is available), pow's C99/ONNX special cases, and
// bit-identical array kernels at several thread counts.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/math.h"
#include "plumb/runtime/math_kernels.h"
#include "plumb/runtime/threads.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#if defined(PLUMB_HAVE_MPFR)
#include "math_ref.h"
#endif

namespace prt = plumb::rt;

namespace {

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float fromBits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}
constexpr uint32_t kCanonNaN = 0x7FC00000u;
const float kInf = INFINITY;

#define EXPECT_BITS(expr, want)                                                \
  EXPECT_EQ(bits(expr), (uint32_t)(want)) << #expr

TEST(MathTest, HandCheckedValues) {
  // Correctly rounded values (independently computed with MPFR / mpmath).
  EXPECT_BITS(prt::exp(1.0f), 0x402DF854u);        // 2.71828175
  EXPECT_BITS(prt::exp(-100.0f), 0x0000001Bu);     // subnormal 3.78e-44
  EXPECT_BITS(prt::exp(88.0f), 0x7EF882B7u);
  EXPECT_BITS(prt::log(2.0f), 0x3F317218u);        // 0.693147182
  EXPECT_BITS(prt::log(0x1p-149f), 0xC2CE8ED0u);   // -103.278931
  EXPECT_BITS(prt::tanh(0.5f), 0x3EEC9A9Fu);
  EXPECT_BITS(prt::sigmoid(1.0f), 0x3F3B26A8u);
  EXPECT_BITS(prt::sigmoid(-100.0f), 0x0000001Bu);
  EXPECT_BITS(prt::erf(1.0f), 0x3F57BB3Du);        // 0.842700779
  EXPECT_BITS(prt::erf(0x1p-140f), 0x00000242u);   // 2/sqrt(pi) x, subnormal
  EXPECT_BITS(prt::gelu(1.0f), 0x3F57625Fu);
  EXPECT_BITS(prt::gelu(-3.0f), 0xBB84B34Cu);
  EXPECT_BITS(prt::gelu(-14.0f), 0x8000004Eu);     // left tail, subnormal
  EXPECT_BITS(prt::gelu_tanh(1.0f), 0x3F57585Cu);
  EXPECT_BITS(prt::gelu_tanh(-3.0f), 0xBB6E6150u);
  EXPECT_BITS(prt::pow(2.0f, 0.5f), 0x3FB504F3u);
  EXPECT_BITS(prt::pow(10.0f, -3.0f), 0x3A83126Fu);
  EXPECT_BITS(prt::pow(4097.0f, 2.0f), 0x4B801000u); // exact midpoint, ties to even
  EXPECT_BITS(prt::pow(-2.0f, 3.0f), 0xC1000000u);
  EXPECT_BITS(prt::pow(1.0001f, 10000.0f), 0x402DFD7Eu);
  EXPECT_BITS(prt::sqrt(2.0f), 0x3FB504F3u);
  EXPECT_BITS(prt::reciprocal(3.0f), 0x3EAAAAABu);
}

TEST(MathTest, SpecialValues) {
  const float nan = fromBits(0x7FA00001u); // signalling-pattern NaN input
  const float nnan = fromBits(0xFFC12345u);
  for (float n : {nan, nnan}) {
    EXPECT_BITS(prt::exp(n), kCanonNaN);
    EXPECT_BITS(prt::log(n), kCanonNaN);
    EXPECT_BITS(prt::tanh(n), kCanonNaN);
    EXPECT_BITS(prt::sigmoid(n), kCanonNaN);
    EXPECT_BITS(prt::erf(n), kCanonNaN);
    EXPECT_BITS(prt::sqrt(n), kCanonNaN);
    EXPECT_BITS(prt::reciprocal(n), kCanonNaN);
    EXPECT_BITS(prt::gelu(n), kCanonNaN);
    EXPECT_BITS(prt::gelu_tanh(n), kCanonNaN);
    EXPECT_BITS(prt::pow(n, 2.0f), kCanonNaN);
    EXPECT_BITS(prt::pow(2.0f, n), kCanonNaN);
    EXPECT_BITS(prt::canonicalize_nan(n), kCanonNaN);
  }
  EXPECT_BITS(prt::canonicalize_nan(-1.5f), bits(-1.5f));
  EXPECT_BITS(prt::exp(0.0f), bits(1.0f));
  EXPECT_BITS(prt::exp(-0.0f), bits(1.0f));
  EXPECT_BITS(prt::exp(kInf), bits(kInf));
  EXPECT_BITS(prt::exp(-kInf), 0u);
  EXPECT_BITS(prt::exp(89.0f), bits(kInf));
  EXPECT_BITS(prt::exp(-104.0f), 0u);
  EXPECT_BITS(prt::log(1.0f), 0u);
  EXPECT_BITS(prt::log(0.0f), bits(-kInf));
  EXPECT_BITS(prt::log(-0.0f), bits(-kInf));
  EXPECT_BITS(prt::log(-1.0f), kCanonNaN);
  EXPECT_BITS(prt::log(-kInf), kCanonNaN);
  EXPECT_BITS(prt::log(kInf), bits(kInf));
  EXPECT_BITS(prt::tanh(0.0f), 0u);
  EXPECT_BITS(prt::tanh(-0.0f), 0x80000000u);
  EXPECT_BITS(prt::tanh(kInf), bits(1.0f));
  EXPECT_BITS(prt::tanh(-kInf), bits(-1.0f));
  EXPECT_BITS(prt::sigmoid(0.0f), bits(0.5f));
  EXPECT_BITS(prt::sigmoid(kInf), bits(1.0f));
  EXPECT_BITS(prt::sigmoid(-kInf), 0u);
  EXPECT_BITS(prt::erf(0.0f), 0u);
  EXPECT_BITS(prt::erf(-0.0f), 0x80000000u);
  EXPECT_BITS(prt::erf(kInf), bits(1.0f));
  EXPECT_BITS(prt::erf(-kInf), bits(-1.0f));
  EXPECT_BITS(prt::sqrt(-0.0f), 0x80000000u);
  EXPECT_BITS(prt::sqrt(-1.0f), kCanonNaN);
  EXPECT_BITS(prt::sqrt(kInf), bits(kInf));
  EXPECT_BITS(prt::reciprocal(0.0f), bits(kInf));
  EXPECT_BITS(prt::reciprocal(-0.0f), bits(-kInf));
  EXPECT_BITS(prt::reciprocal(kInf), 0u);
  EXPECT_BITS(prt::gelu(0.0f), 0u);
  EXPECT_BITS(prt::gelu(-0.0f), 0x80000000u);
  EXPECT_BITS(prt::gelu(kInf), bits(kInf));
  EXPECT_BITS(prt::gelu(-kInf), 0x80000000u); // the limit, -0
  EXPECT_BITS(prt::gelu_tanh(-0.0f), 0x80000000u);
  EXPECT_BITS(prt::gelu_tanh(kInf), bits(kInf));
  EXPECT_BITS(prt::gelu_tanh(-kInf), 0x80000000u);
}

TEST(MathTest, PowSpecialCases) {
  const float nan = fromBits(kCanonNaN);
  // C99 Annex F (followed by numpy and the ONNX reference).
  EXPECT_BITS(prt::pow(nan, 0.0f), bits(1.0f));
  EXPECT_BITS(prt::pow(nan, -0.0f), bits(1.0f));
  EXPECT_BITS(prt::pow(1.0f, nan), bits(1.0f));
  EXPECT_BITS(prt::pow(1.0f, kInf), bits(1.0f));
  EXPECT_BITS(prt::pow(-1.0f, kInf), bits(1.0f));
  EXPECT_BITS(prt::pow(-1.0f, -kInf), bits(1.0f));
  EXPECT_BITS(prt::pow(0.0f, -3.0f), bits(kInf));
  EXPECT_BITS(prt::pow(-0.0f, -3.0f), bits(-kInf));
  EXPECT_BITS(prt::pow(-0.0f, -2.0f), bits(kInf));
  EXPECT_BITS(prt::pow(-0.0f, -0.5f), bits(kInf));
  EXPECT_BITS(prt::pow(-0.0f, 3.0f), 0x80000000u);
  EXPECT_BITS(prt::pow(-0.0f, 2.0f), 0u);
  EXPECT_BITS(prt::pow(-0.0f, 0.5f), 0u);
  EXPECT_BITS(prt::pow(0.5f, kInf), 0u);
  EXPECT_BITS(prt::pow(0.5f, -kInf), bits(kInf));
  EXPECT_BITS(prt::pow(2.0f, kInf), bits(kInf));
  EXPECT_BITS(prt::pow(-2.0f, -kInf), 0u);
  EXPECT_BITS(prt::pow(-kInf, -3.0f), 0x80000000u);
  EXPECT_BITS(prt::pow(-kInf, -2.0f), 0u);
  EXPECT_BITS(prt::pow(-kInf, 3.0f), bits(-kInf));
  EXPECT_BITS(prt::pow(-kInf, 2.5f), bits(kInf));
  EXPECT_BITS(prt::pow(kInf, -1.0f), 0u);
  EXPECT_BITS(prt::pow(kInf, 0.5f), bits(kInf));
  EXPECT_BITS(prt::pow(-2.0f, 0.5f), kCanonNaN); // negative base, non-integer
  EXPECT_BITS(prt::pow(-2.0f, 2.0f), bits(4.0f));
  EXPECT_BITS(prt::pow(-2.0f, -1.0f), bits(-0.5f));
  EXPECT_BITS(prt::pow(-3.0f, 16777216.0f), bits(kInf)); // even (|y| >= 2^24)
  EXPECT_BITS(prt::pow(-1.0f, 16777217.0f), bits(1.0f)); // 16777217f == 2^24: even
  EXPECT_BITS(prt::pow(-1.0f, 8388609.0f), bits(-1.0f)); // odd
  EXPECT_BITS(prt::pow(2.0f, 128.0f), bits(kInf));
  EXPECT_BITS(prt::pow(2.0f, -149.0f), 1u);
  EXPECT_BITS(prt::pow(2.0f, -150.0f), 0u); // exact midpoint 2^-150 ties to 0
  EXPECT_BITS(prt::pow(2.0f, -151.0f), 0u);
  EXPECT_BITS(prt::pow(3.0f, 2.0f), bits(9.0f));
}

TEST(MathTest, Subnormals) {
  // tanh, erf, sigmoid-1/2 and gelu of subnormals: no flush to zero.
  const float tiny = fromBits(1); // 2^-149
  EXPECT_BITS(prt::tanh(tiny), 1u);
  EXPECT_BITS(prt::tanh(-tiny), 0x80000001u);
  EXPECT_BITS(prt::erf(tiny), 1u);           // 1.128 * 2^-149 -> 2^-149
  EXPECT_BITS(prt::erf(fromBits(2)), 2u);    // 2.26 -> 2
  EXPECT_BITS(prt::erf(fromBits(4)), 5u);    // 4.51 -> 5
  EXPECT_BITS(prt::gelu(tiny), 1u);          // 2^-150 + tiny: rounds up
  EXPECT_BITS(prt::gelu(-tiny), 0x80000000u); // -2^-150 + tiny: rounds to -0
  EXPECT_BITS(prt::gelu_tanh(tiny), 1u);
  EXPECT_BITS(prt::exp(-103.0f), 0x00000001u); // 2^-149 * 0.92
  EXPECT_BITS(prt::exp(-87.5f), 0x006CB2BCu);  // subnormal range
  EXPECT_BITS(prt::log(fromBits(0x00400000u)), 0xC2B00F34u); // log(2^-127)
  EXPECT_BITS(prt::reciprocal(0x1p127f), 0x00400000u);
  EXPECT_BITS(prt::sqrt(tiny), 0x1A3504F3u); // 2^-74.5
}

#if defined(PLUMB_HAVE_MPFR)
using plumb::mathref::Fn;

float ours(Fn fn, float x) {
  switch (fn) {
  case Fn::Exp: return prt::exp(x);
  case Fn::Log: return prt::log(x);
  case Fn::Tanh: return prt::tanh(x);
  case Fn::Sigmoid: return prt::sigmoid(x);
  case Fn::Erf: return prt::erf(x);
  case Fn::Sqrt: return prt::sqrt(x);
  case Fn::Reciprocal: return prt::reciprocal(x);
  case Fn::Gelu: return prt::gelu(x);
  case Fn::GeluTanh: return prt::gelu_tanh(x);
  case Fn::Sin: return prt::sin(x);
  case Fn::Cos: return prt::cos(x);
  case Fn::Tan: return prt::tan(x);
  case Fn::Asin: return prt::asin(x);
  case Fn::Acos: return prt::acos(x);
  case Fn::Atan: return prt::atan(x);
  case Fn::Sinh: return prt::sinh(x);
  case Fn::Cosh: return prt::cosh(x);
  case Fn::Asinh: return prt::asinh(x);
  case Fn::Acosh: return prt::acosh(x);
  case Fn::Atanh: return prt::atanh(x);
  default: return 0.0f;
  }
}

/// The checker's enum value of a math_trig.h function name.
Fn trigFn(const char *name) { return plumb::mathref::findFn(name)->fn; }

struct RangeCase {
  Fn fn;
  const char *name;
  float lo, hi;
};

void PrintTo(const RangeCase &c, std::ostream *os) { *os << c.name; }

class MathMpfrTest : public ::testing::TestWithParam<RangeCase> {};

/// Bitwise equality with MPFR's correctly rounded result on 6000 inputs:
/// uniform bit patterns (all binades, NaNs, infinities) and uniform values in
/// the function's non-trivial range, plus neighbourhoods of thresholds.
TEST_P(MathMpfrTest, CorrectlyRoundedSampled) {
  const RangeCase &c = GetParam();
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> ud(c.lo, c.hi);
  int bad = 0;
  auto check = [&](float x) {
    float want = plumb::mathref::reference(c.fn, x);
    float got = ours(c.fn, x);
    if (bits(got) != bits(want) && ++bad <= 10)
      ADD_FAILURE() << c.name << "(" << std::hexfloat << x << ") = 0x" << std::hex
                    << bits(got) << ", MPFR 0x" << bits(want);
  };
  for (int i = 0; i < 3000; ++i) {
    check(fromBits(rng()));
    check(ud(rng));
  }
  // Around powers of two and the interval edges of the piecewise code.
  for (float p : {0.5f, 1.0f, 2.0f, 4.0f, 0x1p-5f, 0x1p-24f, 0x1p-126f, c.lo, c.hi})
    for (int d = -4; d <= 4; ++d) {
      check(fromBits(bits(p) + d));
      check(fromBits(bits(-p) + d));
    }
  EXPECT_EQ(bad, 0);
}

INSTANTIATE_TEST_SUITE_P(
    All, MathMpfrTest,
    ::testing::Values(RangeCase{Fn::Exp, "exp", -104.0f, 89.0f},
                      RangeCase{Fn::Log, "log", 0.0f, 8.0f},
                      RangeCase{Fn::Tanh, "tanh", -10.0f, 10.0f},
                      RangeCase{Fn::Sigmoid, "sigmoid", -110.0f, 40.0f},
                      RangeCase{Fn::Erf, "erf", -4.0f, 4.0f},
                      RangeCase{Fn::Sqrt, "sqrt", 0.0f, 100.0f},
                      RangeCase{Fn::Reciprocal, "reciprocal", -100.0f, 100.0f},
                      RangeCase{Fn::Gelu, "gelu", -15.0f, 10.0f},
                      RangeCase{Fn::GeluTanh, "gelu_tanh", -11.0f, 10.0f},
                      RangeCase{Fn::Sin, "sin", -10.0f, 10.0f},
                      RangeCase{Fn::Cos, "cos", -10.0f, 10.0f},
                      RangeCase{Fn::Tan, "tan", -10.0f, 10.0f},
                      RangeCase{Fn::Asin, "asin", -1.0f, 1.0f},
                      RangeCase{Fn::Acos, "acos", -1.0f, 1.0f},
                      RangeCase{Fn::Atan, "atan", -20.0f, 20.0f},
                      RangeCase{Fn::Sinh, "sinh", -90.0f, 90.0f},
                      RangeCase{Fn::Cosh, "cosh", -90.0f, 90.0f},
                      RangeCase{Fn::Asinh, "asinh", -100.0f, 100.0f},
                      RangeCase{Fn::Acosh, "acosh", 1.0f, 100.0f},
                      RangeCase{Fn::Atanh, "atanh", -1.0f, 1.0f}),
    [](const ::testing::TestParamInfo<RangeCase> &i) { return std::string(i.param.name); });

/// Every exception-list entry is MPFR's correctly rounded result, and the
/// function returns it.
TEST(MathTest, ExceptionListsMatchMpfr) {
  int n = 0;
#define PLUMB_CHECK_EXC(FNENUM, FN)                                            \
  [&](uint32_t x, uint32_t y) {                                                \
    ++n;                                                                       \
    EXPECT_EQ(bits(plumb::mathref::reference(FNENUM, fromBits(x))), y) << #FN; \
    EXPECT_EQ(bits(prt::FN(fromBits(x))), y) << #FN;                           \
  }
  auto exp_ = PLUMB_CHECK_EXC(Fn::Exp, exp);
  auto log_ = PLUMB_CHECK_EXC(Fn::Log, log);
  auto tanh_ = PLUMB_CHECK_EXC(Fn::Tanh, tanh);
  auto sigmoid_ = PLUMB_CHECK_EXC(Fn::Sigmoid, sigmoid);
  auto erf_ = PLUMB_CHECK_EXC(Fn::Erf, erf);
  auto gelu_ = PLUMB_CHECK_EXC(Fn::Gelu, gelu);
  auto gelu_tanh_ = PLUMB_CHECK_EXC(Fn::GeluTanh, gelu_tanh);
#define X_EXP(x, y) exp_(x, y);
#define X_LOG(x, y) log_(x, y);
#define X_TANH(x, y) tanh_(x, y);
#define X_SIGMOID(x, y) sigmoid_(x, y);
#define X_ERF(x, y) erf_(x, y);
#define X_GELU(x, y) gelu_(x, y);
#define X_GELU_TANH(x, y) gelu_tanh_(x, y);
  PLUMB_MATH_EXP_EXCEPTIONS(X_EXP)
  PLUMB_MATH_LOG_EXCEPTIONS(X_LOG)
  PLUMB_MATH_TANH_EXCEPTIONS(X_TANH)
  PLUMB_MATH_SIGMOID_EXCEPTIONS(X_SIGMOID)
  PLUMB_MATH_ERF_EXCEPTIONS(X_ERF)
  PLUMB_MATH_GELU_EXCEPTIONS(X_GELU)
  PLUMB_MATH_GELU_TANH_EXCEPTIONS(X_GELU_TANH)
  (void)exp_, (void)log_, (void)tanh_, (void)sigmoid_, (void)erf_, (void)gelu_,
      (void)gelu_tanh_;
  // The circular and hyperbolic functions (math_trig.h).
#define PLUMB_TRIG_CALL(x, y) check(x, y);
#define PLUMB_CHECK_TRIG_LIST(NAME, LIST)                                      \
  {                                                                            \
    auto check = PLUMB_CHECK_EXC(trigFn(#NAME), NAME);                         \
    (void)check;                                                               \
    LIST(PLUMB_TRIG_CALL)                                                      \
  }
  PLUMB_MATH_TRIG_FUNCTIONS(PLUMB_CHECK_TRIG_LIST)
#undef PLUMB_CHECK_TRIG_LIST
#undef PLUMB_TRIG_CALL
  RecordProperty("exceptions", n);
}

/// Hard-case families of sigmoid and gelu near 1/2 and x/2 (exact binary32
/// midpoints plus a tiny odd term), exhaustively over their small domain.
TEST(MathTest, MidpointFamilies) {
  int bad = 0;
  for (int e = -30; e <= -5; ++e)
    for (int m = 1; m < 64; m += 2) {
      for (float s : {1.0f, -1.0f}) {
        float x = s * std::ldexp((float)m, e); // few significant bits
        for (Fn fn : {Fn::Sigmoid, Fn::Gelu, Fn::GeluTanh, Fn::Exp, Fn::Tanh, Fn::Erf}) {
          float want = plumb::mathref::reference(fn, x);
          if (bits(ours(fn, x)) != bits(want) && ++bad <= 10)
            ADD_FAILURE() << (int)fn << " x=" << std::hexfloat << x;
        }
      }
    }
  EXPECT_EQ(bad, 0);
}

/// pow: bitwise equality with MPFR on sampled families (the sampled set is
/// fixed by the seed; docs/math.md reports the large-sample figures).
TEST(MathTest, PowSampledAgainstMpfr) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> ux(0.0f, 10.0f), uy(-30.0f, 30.0f), un(0.9f, 1.1f),
      ubig(-3000.0f, 3000.0f);
  int bad = 0;
  for (int i = 0; i < 4000; ++i) {
    float x, y;
    switch (i % 5) {
    case 0: x = fromBits(rng()); y = fromBits(rng()); break;
    case 1: x = ux(rng); y = uy(rng); break;
    case 2: x = -ux(rng); y = (float)(int)uy(rng); break;
    case 3: x = un(rng); y = ubig(rng); break;
    default: x = (float)(int)(ux(rng) * 100); y = (float)(int)(uy(rng) / 3); break;
    }
    float want = plumb::mathref::reference(Fn::Pow, x, y);
    float got = prt::pow(x, y);
    if (bits(got) != bits(want) && ++bad <= 10)
      ADD_FAILURE() << "pow(" << std::hexfloat << x << ", " << y << ")";
  }
  EXPECT_EQ(bad, 0);
}
#endif // PLUMB_HAVE_MPFR

/// The array kernels equal the scalar functions bit for bit, store canonical
/// NaNs, allow x == y, and do not depend on the thread count.
TEST(MathTest, ArrayKernelsMatchScalarAtAnyThreadCount) {
  const int64_t n = 100003;
  std::mt19937 rng(7);
  std::vector<float> x(n), e(n);
  std::uniform_real_distribution<float> ud(-20.0f, 20.0f);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = (i % 3 == 0) ? fromBits(rng()) : ud(rng);
    e[i] = (i % 2 == 0) ? ud(rng) : (float)(int)ud(rng);
  }
  x[5] = fromBits(0x7F800001u);
  x[6] = fromBits(0xFFFFFFFFu);
  typedef void (*Kernel)(const float *, float *, int64_t);
  struct K {
    Kernel k;
    float (*f)(float);
  };
  const K ks[] = {{plumb_rt_exp_f32, [](float v) { return prt::exp(v); }},
                  {plumb_rt_log_f32, [](float v) { return prt::log(v); }},
                  {plumb_rt_tanh_f32, [](float v) { return prt::tanh(v); }},
                  {plumb_rt_sigmoid_f32, [](float v) { return prt::sigmoid(v); }},
                  {plumb_rt_erf_f32, [](float v) { return prt::erf(v); }},
                  {plumb_rt_sqrt_f32, [](float v) { return prt::sqrt(v); }},
                  {plumb_rt_reciprocal_f32, [](float v) { return prt::reciprocal(v); }},
                  {plumb_rt_gelu_f32, [](float v) { return prt::gelu(v); }},
                  {plumb_rt_gelu_tanh_f32, [](float v) { return prt::gelu_tanh(v); }},
                  {plumb_rt_canonicalize_nan_f32, [](float v) { return prt::canonicalize_nan(v); }},
                  {[](const float *a, float *b, int64_t m) { plumb_rt_pow_scalar_f32(a, 1.5f, b, m); },
                   [](float v) { return prt::pow(v, 1.5f); }}};
  int saved = plumb_rt_get_threads();
  for (const K &k : ks) {
    std::vector<float> ref(n);
    for (int64_t i = 0; i < n; ++i)
      ref[i] = k.f(x[i]);
    for (int t : {1, 2, 3, 8}) {
      plumb_rt_set_threads(t);
      std::vector<float> y(n);
      k.k(x.data(), y.data(), n);
      std::vector<float> inplace = x;
      k.k(inplace.data(), inplace.data(), n);
      ASSERT_EQ(0, std::memcmp(y.data(), ref.data(), n * sizeof(float))) << "threads " << t;
      ASSERT_EQ(0, std::memcmp(inplace.data(), ref.data(), n * sizeof(float)));
      for (int64_t i = 0; i < n; ++i) {
        if (std::isnan(y[i]))
          ASSERT_EQ(bits(y[i]), kCanonNaN);
      }
    }
  }
  for (int t : {1, 3}) {
    plumb_rt_set_threads(t);
    std::vector<float> y(n);
    plumb_rt_pow_f32(x.data(), e.data(), y.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(bits(y[i]), bits(prt::pow(x[i], e[i])));
  }
  plumb_rt_set_threads(saved);
}

// Every schedule (scalar, AVX2, AVX-512; the ones this CPU lacks fall back
// below) gives the scalar function's bits on inputs that exercise the
// vector code's branch skipping: runs where every lane takes one branch of
// erf/gelu (|x| small, |x| large), mixed runs, values near the vector
// ranges' edges, and specials, at lengths that leave a scalar tail.
TEST(MathTest, EverySimdScheduleMatchesScalar) {
  std::mt19937 rng(11);
  std::vector<float> x;
  auto push = [&](auto dist, int count) {
    for (int i = 0; i < count; ++i)
      x.push_back(dist(rng));
  };
  push(std::normal_distribution<float>(0.0f, 1.0f), 4096);
  push(std::normal_distribution<float>(0.0f, 3.0f), 4096);
  push(std::uniform_real_distribution<float>(-0.3f, 0.3f), 512);   // all small
  push(std::uniform_real_distribution<float>(0.75f, 3.9f), 512);   // all big
  push(std::uniform_real_distribution<float>(-3.9f, -0.75f), 512); // all big, negative
  push(std::uniform_real_distribution<float>(-120.0f, 100.0f), 1024);
  for (float edge : {-104.0f, 89.0f, -110.0f, 40.0f, 0x1p-5f, -0x1p-5f, 4.0f, -4.0f,
                     0x1.fffffep+1f, -20.0f, 10.0f, -11.0f, 0.5f, 0.7071068f, 0.0f, -0.0f})
    for (float dir : {-INFINITY, INFINITY}) {
      float v = edge;
      for (int k = 0; k < 8; ++k, v = std::nextafter(v, dir))
        x.push_back(v);
    }
  for (uint32_t b : {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x7F800001u, 0x00000001u, 0x80000001u,
                     0x007FFFFFu, 0x00800000u})
    x.push_back(fromBits(b));
  for (int i = 0; i < 2048; ++i)
    x.push_back(fromBits(rng()));
  // pow(x, 3) near overflow (cube root of FLT_MAX ~ 6.98e12) and the
  // subnormal range (cube root of 2^-126 ~ 2.2e-13).
  for (float c : {6.9814e12f, 2.2737e-13f, 1.1e-15f, 4097.0f, 1.0f, -1.0f})
    for (float dir : {-INFINITY, INFINITY}) {
      float v = c;
      for (int k = 0; k < 8; ++k, v = std::nextafter(v, dir))
        x.push_back(v), x.push_back(-v);
    }
  x.push_back(0.25f); // a tail of odd length
  const int64_t n = (int64_t)x.size();
  typedef void (*Kernel)(const float *, float *, int64_t);
  struct K {
    const char *name;
    Kernel k;
    float (*f)(float);
  };
  const K ks[] = {{"exp", plumb_rt_exp_f32, [](float v) { return prt::exp(v); }},
                  {"tanh", plumb_rt_tanh_f32, [](float v) { return prt::tanh(v); }},
                  {"sigmoid", plumb_rt_sigmoid_f32, [](float v) { return prt::sigmoid(v); }},
                  {"erf", plumb_rt_erf_f32, [](float v) { return prt::erf(v); }},
                  {"gelu", plumb_rt_gelu_f32, [](float v) { return prt::gelu(v); }},
                  {"gelu_tanh", plumb_rt_gelu_tanh_f32, [](float v) { return prt::gelu_tanh(v); }},
                  {"pow3",
                   [](const float *a, float *b, int64_t m) { plumb_rt_pow_scalar_f32(a, 3.0f, b, m); },
                   [](float v) { return prt::canonicalize_nan(prt::pow(v, 3.0f)); }},
                  {"pow2",
                   [](const float *a, float *b, int64_t m) { plumb_rt_pow_scalar_f32(a, 2.0f, b, m); },
                   [](float v) { return prt::canonicalize_nan(prt::pow(v, 2.0f)); }}};
  for (const K &k : ks) {
    std::vector<float> ref(n);
    for (int64_t i = 0; i < n; ++i)
      ref[i] = k.f(x[i]);
    for (int isa : {1, 2, 3}) {
      plumb_rt_math_set_isa(isa);
      EXPECT_LE(plumb_rt_math_active_isa(), isa);
      for (int64_t len : {n, n - 1, (int64_t)17, (int64_t)15}) {
        std::vector<float> y(len);
        k.k(x.data(), y.data(), len);
        for (int64_t i = 0; i < len; ++i)
          ASSERT_EQ(bits(y[i]), bits(ref[i]))
              << k.name << " isa " << isa << " x=" << x[i] << " (0x" << std::hex << bits(x[i])
              << ")";
      }
    }
  }
  plumb_rt_math_set_isa(0);
}

} // namespace
