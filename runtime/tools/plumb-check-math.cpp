//===- runtime/tools/plumb-check-math.cpp - MPFR checker for math.h -------===//
//
// Part of Plumb. Verifies plumb/runtime/math.h against MPFR.
//
//   plumb-check-math --exhaustive FN [--threads T] [--stride S] [--mpfr-only]
//       Every binary32 input (or every S-th). Each result is compared bitwise
//       with the correctly rounded value. By default a fast filter decides
//       most inputs: an 80-bit long double evaluation Y (glibc expl/logl/...);
//       whenever Y lies within 2^-40 (relative) of a binary32 rounding
//       boundary, MPFR decides. Away from boundaries, the correct rounding of
//       the exact value equals that of Y as long as Y's error is below 2^-40
//       relative (glibc's 80-bit functions are accurate to a few 2^-64 ulps,
//       i.e. ~2^20 times better). --mpfr-only asks MPFR for every input.
//       Prints every mismatch as an exception-list line for
//       math_exceptions.h, the mismatch count and the max ulp error; exits 1
//       on any mismatch of a function declared correctly rounded (or any
//       error >= 1 ulp for the others).
//   plumb-check-math --sample N FN [--seed S]
//       N random inputs (uniform bits, plus uniform in a function-specific
//       interesting range) and the known hard cases (0, +-subnormals, +-inf,
//       NaN, overflow/underflow thresholds, near 1, ...), all against MPFR.
//   plumb-check-math --all-sampled [N]
//       --sample N (default 100000) for every function (CI).
//   plumb-check-math --flagged FN
//       Fast hard-case finder: MPFR only for the inputs that reach math.h's
//       near-midpoint path; prints the exception-list lines.
//   plumb-check-math --vector-identity FN [--isa N]
//       The array kernel (SIMD/threaded schedule) vs the scalar function,
//       bitwise, over all 2^32 inputs. --isa: plumb_rt_math_set_isa (1
//       scalar, 2 AVX2, 3 AVX-512; default the best the CPU has).
//       FN may be pow3 or pow2: plumb_rt_pow_scalar_f32(x, 3 or 2) vs pow.
//   plumb-check-math --pow-cube-identity [--threads T]
//       pow(x, 3)'s double-double cube vs pow's general path
//       (mathdetail::powGeneral), bitwise, over all 2^32 inputs.
//
//===----------------------------------------------------------------------===//
#include "math_ref.h"

// Learn which inputs take math.h's near-midpoint path (results unchanged).
static thread_local bool gNearHit = false;
#define PLUMB_MATH_NEAR_HOOK() (gNearHit = true)
#include "plumb/runtime/math.h"
#include "plumb/runtime/math_kernels.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace plumb::mathref;
namespace prt = plumb::rt;

namespace {

float ours(Fn fn, float x, float y) {
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
  case Fn::Pow: return prt::pow(x, y);
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
  }
  return 0.0f;
}

/// 80-bit filter value (independent of math.h: glibc long double functions).
long double filterValue(Fn fn, float xf) {
  long double x = xf;
  switch (fn) {
  case Fn::Exp: return expl(x);
  case Fn::Log: return logl(x);
  case Fn::Tanh: return tanhl(x);
  case Fn::Sigmoid: return 1.0L / (1.0L + expl(-x));
  case Fn::Erf: return erfl(x);
  case Fn::Sqrt: return sqrtl(x);
  case Fn::Reciprocal: return 1.0L / x;
  case Fn::Gelu: return 0.5L * x * erfcl(-x / sqrtl(2.0L));
  case Fn::GeluTanh: {
    long double v = sqrtl(2.0L / 3.14159265358979323846264338327950288L) *
                    (x + 0.044715L * x * x * x);
    return x / (1.0L + expl(-2.0L * v));
  }
  case Fn::Pow: break;
  case Fn::Sin: return sinl(x);
  case Fn::Cos: return cosl(x);
  case Fn::Tan: return tanl(x);
  case Fn::Asin: return asinl(x);
  case Fn::Acos: return acosl(x);
  case Fn::Atan: return atanl(x);
  case Fn::Sinh: return sinhl(x);
  case Fn::Cosh: return coshl(x);
  case Fn::Asinh: return asinhl(x);
  case Fn::Acosh: return acoshl(x);
  case Fn::Atanh: return atanhl(x);
  }
  return 0.0L;
}

/// If the 80-bit value decides the binary32 rounding with margin 2^-40,
/// stores the result and returns true.
bool filterDecides(Fn fn, float x, float *out) {
  if (std::isnan(x)) { // NaN in, canonical NaN out (the contract)
    *out = floatOf(0x7FC00000u);
    return true;
  }
  if ((fn == Fn::Gelu || fn == Fn::GeluTanh) && (std::isinf(x) || x == 0.0f))
    return false;
  if (std::isinf(x) || x == 0.0f)
    return false; // special inputs: MPFR decides
  long double y = filterValue(fn, x);
  // Results outside the long double range are far outside binary32's, and
  // NaN results (log of a negative, ...) are domain errors: both certain.
  if (std::isnan(y)) {
    *out = floatOf(0x7FC00000u);
    return true;
  }
  if (std::isinf(y) || y == 0.0L) {
    *out = (float)y;
    return true;
  }
  const long double tol = 0x1p-40L;
  float f = (float)y; // one IEEE rounding
  long double ay = fabsl(y);
  float af = fabsf(f);
  long double lo, hi;
  if (std::isinf(f)) {
    lo = (long double)FLT_MAX + 0x1p103L; // overflow boundary
    return fabsl(ay - lo) > tol * lo ? (*out = f, true) : false;
  }
  float below = af == 0.0f ? 0.0f : nextafterf(af, 0.0f);
  float above = nextafterf(af, INFINITY);
  lo = ((long double)af + (long double)below) / 2;
  long double upper = std::isinf(above) ? (long double)FLT_MAX + 0x1p103L
                                        : ((long double)af + (long double)above) / 2;
  hi = upper;
  if (fabsl(ay - lo) <= tol * ay || fabsl(ay - hi) <= tol * ay)
    return false;
  *out = f;
  return true;
}

bool sameResult(float a, float b) { return bitsOf(a) == bitsOf(b); }

struct Stats {
  std::atomic<uint64_t> done{0}, mismatches{0}, mpfrCalls{0}, badNaN{0};
  std::mutex mu;
  double maxUlp = 0;
  uint32_t worstX = 0;
  std::vector<std::pair<uint32_t, uint32_t>> cases; // x -> correct
};

int runExhaustive(const FnInfo &fi, int threads, uint64_t stride, bool mpfrOnly) {
  const uint64_t total = 1ull << 32;
  const uint64_t chunk = 1ull << 20; // inputs per work item (before stride)
  std::atomic<uint64_t> next{0};
  Stats st;
  bool mpfrTls = mpfr_buildopt_tls_p() != 0;
  std::mutex mpfrMu;
  auto t0 = std::chrono::steady_clock::now();
  auto worker = [&]() {
    for (;;) {
      uint64_t start = next.fetch_add(chunk);
      if (start >= total)
        return;
      uint64_t end = std::min(total, start + chunk);
      uint64_t first = (start + stride - 1) / stride * stride;
      for (uint64_t i = first; i < end; i += stride) {
        uint32_t xb = (uint32_t)i;
        float x = floatOf(xb);
        float got = ours(fi.fn, x, 0.0f);
        float want;
        if (mpfrOnly || !filterDecides(fi.fn, x, &want)) {
          st.mpfrCalls++;
          if (mpfrTls) {
            want = reference(fi.fn, x);
          } else {
            std::lock_guard<std::mutex> g(mpfrMu);
            want = reference(fi.fn, x);
          }
        }
        if (std::isnan(got) && bitsOf(got) != 0x7FC00000u)
          st.badNaN++;
        st.done.fetch_add(1, std::memory_order_relaxed);
        if (!sameResult(got, want)) {
          double u;
          if (mpfrTls) {
            u = ulpError(fi.fn, x, 0.0f, got);
          } else {
            std::lock_guard<std::mutex> g(mpfrMu);
            u = ulpError(fi.fn, x, 0.0f, got);
          }
          st.mismatches++;
          std::lock_guard<std::mutex> g(st.mu);
          if (u > st.maxUlp) {
            st.maxUlp = u;
            st.worstX = xb;
          }
          st.cases.push_back({xb, bitsOf(want)});
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  uint64_t expected = total / stride;
  for (int tick = 1;; ++tick) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    uint64_t d = st.done.load();
    if (d < expected && tick % 50 != 0)
      continue;
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "\r[%s] %.2f%%  %.0fs elapsed, ~%.0fs left, mismatches %llu  ",
                 fi.name, 100.0 * d / expected, el,
                 d ? el * (double)(expected - d) / d : 0.0,
                 (unsigned long long)st.mismatches.load());
    if (next.load() >= total && d >= expected)
      break;
    if (d >= expected)
      break;
  }
  for (auto &th : pool)
    th.join();
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "\n");
  std::sort(st.cases.begin(), st.cases.end());
  size_t shown = 0;
  for (auto &c : st.cases) {
    if (shown++ >= 2000)
      break;
    std::printf("  X(0x%08Xu, 0x%08Xu) /* %s(%a) */ \\\n", c.first, c.second, fi.name,
                (double)floatOf(c.first));
  }
  std::printf("%s: exhaustive%s%s: %llu inputs, %llu mismatches, %llu non-canonical NaNs, "
              "max ulp error %.4g (x=0x%08X), %llu MPFR calls, %.1f s, %d threads\n",
              fi.name, stride > 1 ? " (strided)" : "", mpfrOnly ? " mpfr-only" : "",
              (unsigned long long)st.done.load(), (unsigned long long)st.mismatches.load(),
              (unsigned long long)st.badNaN.load(), st.maxUlp, st.worstX,
              (unsigned long long)st.mpfrCalls.load(), el, threads);
  bool fail = st.badNaN.load() != 0 ||
              (fi.correctlyRounded ? st.mismatches.load() != 0 : st.maxUlp >= 1.0);
  return fail ? 1 : 0;
}

std::vector<float> hardCases(Fn fn) {
  std::vector<float> v = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN,
                          floatOf(0x7F800001u), floatOf(0xFFC12345u),
                          1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, FLT_MAX, -FLT_MAX,
                          FLT_MIN, -FLT_MIN, floatOf(1), floatOf(0x80000001u),
                          floatOf(0x007FFFFFu), floatOf(0x807FFFFFu), floatOf(0x00400000u),
                          1e-30f, -1e-30f, 1e-8f, -1e-8f, 3.0f, -3.0f, 10.0f, -10.0f};
  auto around = [&](float c, int k) {
    uint32_t b = bitsOf(c);
    for (int i = -k; i <= k; ++i)
      v.push_back(floatOf(b + (uint32_t)i));
  };
  switch (fn) {
  case Fn::Exp:
    around(88.72283f, 20); around(-87.33654f, 20); around(-103.97208f, 20);
    around(-103.2789f, 20); around(89.0f, 3); around(-104.0f, 3); around(0x1p-24f, 5);
    around(-0x1p-25f, 5);
    break;
  case Fn::Log:
    around(1.0f, 200); around(0.70710677f, 10); around(1.4142135f, 10);
    around(2.7182817f, 10);
    break;
  case Fn::Tanh:
    around(9.01091f, 50); around(10.0f, 5); around(0.1732868f, 10); around(0x1p-12f, 10);
    around(-9.01091f, 50);
    break;
  case Fn::Sigmoid:
    around(17.32868f, 50); around(-103.2789f, 20); around(-88.72283f, 10); around(40.0f, 3);
    around(-110.0f, 3);
    break;
  case Fn::Erf:
    around(3.9192059f, 50); around(0.5f, 10); around(4.0f, 5); around(-0.5f, 10);
    around(0x1p-126f, 5);
    break;
  case Fn::Gelu:
    around(-14.5f, 50); around(5.4f, 20); around(0.7071068f, 5); around(-20.0f, 3);
    around(10.0f, 3); around(-0.7071068f, 5);
    break;
  case Fn::GeluTanh:
    around(-10.8f, 50); around(-11.0f, 3); around(10.0f, 3); around(5.0f, 5);
    break;
  default:
    break;
  }
  return v;
}

std::pair<float, float> interestingRange(Fn fn) {
  switch (fn) {
  case Fn::Exp: return {-104.0f, 89.0f};
  case Fn::Log: return {0.0f, 4.0f};
  case Fn::Tanh: return {-10.0f, 10.0f};
  case Fn::Sigmoid: return {-110.0f, 40.0f};
  case Fn::Erf: return {-4.0f, 4.0f};
  case Fn::Gelu: return {-15.0f, 10.0f};
  case Fn::GeluTanh: return {-11.0f, 10.0f};
  case Fn::Asin: case Fn::Acos: case Fn::Atanh: return {-1.0f, 1.0f};
  case Fn::Acosh: return {1.0f, 100.0f};
  case Fn::Sinh: case Fn::Cosh: return {-90.0f, 90.0f};
  default: return {-100.0f, 100.0f};
  }
}

int runSample(const FnInfo &fi, uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  uint64_t mism = 0, badNaN = 0, count = 0;
  double maxUlp = 0;
  float worstX = 0, worstY = 0;
  auto check = [&](float x, float y) {
    float got = ours(fi.fn, x, y);
    float want = reference(fi.fn, x, y);
    ++count;
    if (std::isnan(got) && bitsOf(got) != 0x7FC00000u)
      ++badNaN;
    if (!sameResult(got, want)) {
      ++mism;
      double u = ulpError(fi.fn, x, y, got);
      if (u > maxUlp) {
        maxUlp = u;
        worstX = x;
        worstY = y;
      }
      if (mism <= 20) {
        if (fi.unary)
          std::printf("  mismatch %s(%a): got 0x%08X want 0x%08X (%.4g ulp)\n", fi.name,
                      (double)x, bitsOf(got), bitsOf(want), u);
        else
          std::printf("  mismatch %s(%a, %a): got 0x%08X want 0x%08X (%.4g ulp)\n", fi.name,
                      (double)x, (double)y, bitsOf(got), bitsOf(want), u);
      }
    }
  };
  if (fi.unary) {
    for (float h : hardCases(fi.fn))
      check(h, 0.0f);
    auto r = interestingRange(fi.fn);
    std::uniform_real_distribution<float> ud(r.first, r.second);
    for (uint64_t i = 0; i < n; ++i)
      check(i % 2 ? floatOf((uint32_t)rng()) : ud(rng), 0.0f);
  } else {
    // pow: special-value grid, then several random families.
    std::vector<float> sp = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f,
                             INFINITY, -INFINITY, NAN, 0.25f, 4097.0f, 66049.0f, 1e-40f,
                             -1e-40f, FLT_MAX, FLT_MIN, 1.5f, -1.5f, 0.3f, 127.0f, -127.0f,
                             1.0000001f, 0.99999994f, 149.0f, -149.0f, 1e10f, -1e10f, 16777217.0f};
    for (float a : sp)
      for (float b : sp)
        check(a, b);
    std::uniform_real_distribution<float> ux(0.0f, 10.0f), uy(-30.0f, 30.0f), un(0.9f, 1.1f),
        ubig(-3000.0f, 3000.0f);
    for (uint64_t i = 0; i < n; ++i) {
      switch (i % 5) {
      case 0: check(floatOf((uint32_t)rng()), floatOf((uint32_t)rng())); break;
      case 1: check(ux(rng), uy(rng)); break;
      case 2: check(-ux(rng), (float)(int)uy(rng)); break;
      case 3: check(un(rng), ubig(rng)); break;
      case 4: check((float)(int)(ux(rng) * 100), (float)(int)(uy(rng) / 3)); break;
      }
    }
  }
  std::printf("%s: sampled %llu inputs, %llu mismatches (not correctly rounded), %llu "
              "non-canonical NaNs, max ulp error %.4g at x=%a y=%a\n",
              fi.name, (unsigned long long)count, (unsigned long long)mism,
              (unsigned long long)badNaN, maxUlp, (double)worstX, (double)worstY);
  bool fail = badNaN != 0 || (fi.correctlyRounded ? mism != 0 : maxUlp >= 1.0);
  return fail ? 1 : 0;
}

/// Hard-case finder: runs FN over all 2^32 inputs and asks MPFR only about
/// those whose binary64 value lies within 2^-44 of a rounding boundary (math.h's
/// nearMidpoint path). Given math.h's error bound (< 2^-50, far below 2^-44),
/// every input that could round the wrong way is among them, so the printed
/// mismatches are the complete exception list. Minutes instead of hours; the
/// full --exhaustive run is the independent confirmation.
int runFlagged(const FnInfo &fi) {
  uint64_t flagged = 0, mism = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < (1ull << 32); ++i) {
    float x = floatOf((uint32_t)i);
    gNearHit = false;
    float got = ours(fi.fn, x, 0.0f);
    if (!gNearHit)
      continue;
    ++flagged;
    float want = reference(fi.fn, x);
    if (!sameResult(got, want)) {
      ++mism;
      std::printf("  X(0x%08Xu, 0x%08Xu) /* %s(%a) */ \\\n", (uint32_t)i, bitsOf(want), fi.name,
                  (double)x);
    }
  }
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: flagged %llu of 2^32 inputs near a midpoint, %llu round wrongly without "
              "an exception entry, %.1f s\n",
              fi.name, (unsigned long long)flagged, (unsigned long long)mism, el);
  return mism ? 1 : 0;
}

/// Compares the C ABI array kernel (the SIMD / threaded schedule) with the
/// scalar reference function bitwise over all 2^32 inputs.
/// An array kernel vs its scalar function, bitwise, over all 2^32 inputs.
template <typename Kernel, typename Scalar>
int vectorIdentity(const char *name, Kernel k, Scalar scalar) {
  const uint64_t chunk = 1u << 20;
  std::vector<float> x(chunk), y(chunk);
  uint64_t diff = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t start = 0; start < (1ull << 32); start += chunk) {
    for (uint64_t i = 0; i < chunk; ++i)
      x[i] = floatOf((uint32_t)(start + i));
    k(x.data(), y.data(), (int64_t)chunk);
    for (uint64_t i = 0; i < chunk; ++i) {
      uint32_t want = bitsOf(scalar(x[i]));
      if (bitsOf(y[i]) != want && ++diff <= 20)
        std::printf("  differs at x=0x%08X: kernel 0x%08X scalar 0x%08X\n",
                    (uint32_t)(start + i), bitsOf(y[i]), want);
    }
  }
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: array kernel vs scalar over all 2^32 inputs: %llu differences, %.1f s\n",
              name, (unsigned long long)diff, el);
  return diff ? 1 : 0;
}

int runVectorIdentity(const FnInfo &fi) {
  typedef void (*Kernel)(const float *, float *, int64_t);
  Kernel k = nullptr;
  switch (fi.fn) {
  case Fn::Exp: k = plumb_rt_exp_f32; break;
  case Fn::Log: k = plumb_rt_log_f32; break;
  case Fn::Tanh: k = plumb_rt_tanh_f32; break;
  case Fn::Sigmoid: k = plumb_rt_sigmoid_f32; break;
  case Fn::Erf: k = plumb_rt_erf_f32; break;
  case Fn::Sqrt: k = plumb_rt_sqrt_f32; break;
  case Fn::Reciprocal: k = plumb_rt_reciprocal_f32; break;
  case Fn::Gelu: k = plumb_rt_gelu_f32; break;
  case Fn::GeluTanh: k = plumb_rt_gelu_tanh_f32; break;
  default: return 2;
  }
  return vectorIdentity(fi.name, k, [&](float v) { return ours(fi.fn, v, 0.0f); });
}

/// plumb_rt_pow_scalar_f32(x, e) (its SIMD cube / square schedules) vs
/// pow(x, e), e = 3 or 2.
int runPowIntIdentity(float e) {
  return vectorIdentity(
      e == 3.0f ? "pow3" : "pow2",
      [e](const float *x, float *y, int64_t n) { plumb_rt_pow_scalar_f32(x, e, y, n); },
      [e](float v) { return prt::canonicalize_nan(prt::pow(v, e)); });
}

int runPowCubeIdentity(int threads) {
  std::atomic<uint64_t> diff{0};
  std::mutex mu;
  auto t0 = std::chrono::steady_clock::now();
  auto work = [&](uint32_t part) {
    for (uint64_t u = part; u < (1ull << 32); u += (uint64_t)threads) {
      const float x = floatOf((uint32_t)u);
      const uint32_t ax = (uint32_t)u & 0x7FFFFFFFu;
      if (ax == 0 || ax >= 0x7F800000u || (uint32_t)u == 0x3F800000u)
        continue; // zeros, infinities, NaN and 1 are pow's special cases
      const uint32_t fast = bitsOf(prt::pow(x, 3.0f));
      const uint32_t general = bitsOf(prt::mathdetail::powGeneral(x, 3.0f));
      if (fast != general && ++diff <= 20) {
        std::lock_guard<std::mutex> g(mu);
        std::printf("  differs at x=0x%08X: cube 0x%08X general 0x%08X\n", (uint32_t)u, fast,
                    general);
      }
    }
  };
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back(work, (uint32_t)t);
  for (auto &t : ts)
    t.join();
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("pow(x, 3): cube vs general path over all 2^32 inputs: %llu differences, %.1f s\n",
              (unsigned long long)diff.load(), el);
  return diff ? 1 : 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: plumb-check-math --exhaustive FN [--threads T] [--stride S] "
               "[--mpfr-only]\n"
               "       plumb-check-math --sample N FN [--seed S]\n"
               "       plumb-check-math --all-sampled [N]\n"
               "       plumb-check-math --vector-identity FN [--isa N]\n"
               "       plumb-check-math --pow-cube-identity [--threads T]\n"
               "       plumb-check-math --flagged FN\n"
               "       plumb-check-math --list\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  if (a.empty())
    return usage();
  int threads = 1;
  uint64_t stride = 1, seed = 12345;
  bool mpfrOnly = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == "--threads" && i + 1 < a.size())
      threads = std::max(1, std::atoi(a[i + 1].c_str()));
    if (a[i] == "--stride" && i + 1 < a.size())
      stride = std::max<uint64_t>(1, std::strtoull(a[i + 1].c_str(), nullptr, 0));
    if (a[i] == "--seed" && i + 1 < a.size())
      seed = std::strtoull(a[i + 1].c_str(), nullptr, 0);
    if (a[i] == "--mpfr-only")
      mpfrOnly = true;
  }
  if (a[0] == "--list") {
    int n;
    const FnInfo *t = fnTable(&n);
    for (int i = 0; i < n; ++i)
      std::printf("%s%s\n", t[i].name, t[i].correctlyRounded ? " (correctly rounded)" : "");
    return 0;
  }
  if (a[0] == "--exhaustive" && a.size() >= 2) {
    const FnInfo *fi = findFn(a[1]);
    if (!fi || !fi->unary) {
      std::fprintf(stderr, "unknown or non-unary function '%s'\n", a[1].c_str());
      return 2;
    }
    return runExhaustive(*fi, threads, stride, mpfrOnly);
  }
  if (a[0] == "--flagged" && a.size() >= 2) {
    const FnInfo *fi = findFn(a[1]);
    if (!fi || !fi->unary)
      return usage();
    return runFlagged(*fi);
  }
  if (a[0] == "--vector-identity" && a.size() >= 2 && (a[1] == "pow3" || a[1] == "pow2")) {
    for (size_t i = 2; i + 1 < a.size(); ++i)
      if (a[i] == "--isa")
        plumb_rt_math_set_isa(std::atoi(a[i + 1].c_str()));
    return runPowIntIdentity(a[1] == "pow3" ? 3.0f : 2.0f);
  }
  if (a[0] == "--vector-identity" && a.size() >= 2) {
    const FnInfo *fi = findFn(a[1]);
    if (!fi || !fi->unary)
      return usage();
    for (size_t i = 2; i + 1 < a.size(); ++i)
      if (a[i] == "--isa")
        plumb_rt_math_set_isa(std::atoi(a[i + 1].c_str()));
    std::printf("schedule: isa %d\n", plumb_rt_math_active_isa());
    return runVectorIdentity(*fi);
  }
  if (a[0] == "--pow-cube-identity")
    return runPowCubeIdentity(threads);
  if (a[0] == "--sample" && a.size() >= 3) {
    const FnInfo *fi = findFn(a[2]);
    if (!fi) {
      std::fprintf(stderr, "unknown function '%s'\n", a[2].c_str());
      return 2;
    }
    return runSample(*fi, std::strtoull(a[1].c_str(), nullptr, 0), seed);
  }
  if (a[0] == "--all-sampled") {
    uint64_t n = a.size() >= 2 && a[1][0] != '-' ? std::strtoull(a[1].c_str(), nullptr, 0)
                                                 : 100000;
    int nf, rc = 0;
    const FnInfo *t = fnTable(&nf);
    for (int i = 0; i < nf; ++i)
      rc |= runSample(t[i], n, seed);
    return rc;
  }
  return usage();
}
