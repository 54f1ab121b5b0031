//===- test/unit/runtime/signal_test.cpp - DFT kernel ----------*- C++ -*-===//
//
// Part of Plumb. plumb_rt_dft_f32 against a direct DFT in long double
// (forward and inverse, real and complex, prime and composite lengths,
// padding, truncation, onesided, strided axes, STFT frames with a window),
// the documented recurrence transcribed here (bitwise), the twiddle factors
// against long double cos / sin, exact cases, thread invariance, NaNs and
// argument errors.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/signal.h"
#include "plumb/runtime/threads.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

namespace {

using plumb::rt::ops::DftPlan;
using plumb::rt::ops::dftPlan;
using plumb::rt::ops::dftScratchFloats;
using plumb::rt::ops::dftTwiddle;
using cld = std::complex<long double>;

struct Dft {
  int64_t outer = 1, len = 0, inner = 1;
  bool complexIn = false;
  int64_t n = 0, nOut = 0;
  bool inverse = false;
  int64_t frames = 1, step = 0;
};

/// Runs the kernel; y has outer * frames * nOut * inner * 2 floats.
std::vector<float> run(const Dft &d, const std::vector<float> &x,
                       const float *window = nullptr, int *rc = nullptr) {
  const int64_t t = d.outer * d.frames * d.inner;
  std::vector<float> scratch((size_t)dftScratchFloats(t, d.n));
  std::vector<float> y((size_t)(t * d.nOut * 2), -7.0f);
  int r = plumb_rt_dft_f32(x.data(), window, d.outer, d.len, d.inner,
                           d.complexIn ? 1 : 0, d.n, d.nOut, d.inverse ? 1 : 0,
                           d.frames, d.step, scratch.data(), y.data());
  if (rc)
    *rc = r;
  else
    EXPECT_EQ(r, PLUMB_RT_OK);
  return y;
}

std::vector<float> uniform(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float &f : v)
    f = u(g);
  return v;
}

/// Direct DFT of one row in long double: X[k] = sum_j x[j] e^(-+2 pi i jk/n)
/// (1/n for the inverse), the angle reduced exactly as (jk mod n) / n.
std::vector<cld> reference(const std::vector<cld> &x, int64_t n, bool inv) {
  const long double tau = 6.283185307179586476925286766559005768L;
  std::vector<cld> w((size_t)n);
  for (int64_t j = 0; j < n; ++j) {
    const long double a = tau * (long double)j / (long double)n;
    w[(size_t)j] = cld(cosl(a), inv ? sinl(a) : -sinl(a));
  }
  std::vector<cld> X((size_t)n);
  for (int64_t k = 0; k < n; ++k) {
    cld acc = 0;
    for (int64_t j = 0; j < (int64_t)x.size() && j < n; ++j)
      acc += x[(size_t)j] * w[(size_t)((j * k) % n)];
    X[(size_t)k] = inv ? acc / (long double)n : acc;
  }
  return X;
}

/// The row (o, f, i) of d's input as complex numbers (windowed).
std::vector<cld> row(const Dft &d, const std::vector<float> &x,
                     const float *w, int64_t o, int64_t f, int64_t i) {
  std::vector<cld> r;
  for (int64_t p = 0; p < d.n; ++p) {
    const int64_t src = f * d.step + p;
    if (src >= d.len) {
      r.push_back(0);
      continue;
    }
    const int64_t at = (o * d.len + src) * d.inner + i;
    float re = d.complexIn ? x[(size_t)(2 * at)] : x[(size_t)at];
    float im = d.complexIn ? x[(size_t)(2 * at + 1)] : 0.0f;
    if (w) {
      re = re * w[p];
      if (d.complexIn)
        im = im * w[p];
    }
    r.push_back(cld(re, im));
  }
  return r;
}

int32_t stages(int64_t n) { return plumb::rt::ops::dftStageCount(n); }

/// Checks every transform of y against the long double reference: the error
/// of every bin within 2 * 2^-24 * (sum of the radices + 1) * ||row||_2
/// (a forward transform; the inverse divides the bound by n too).
void checkAgainstReference(const Dft &d, const std::vector<float> &x,
                           const std::vector<float> &y,
                           const float *w = nullptr) {
  DftPlan g;
  ASSERT_TRUE(dftPlan(g, d.outer, d.len, d.inner, d.complexIn, d.n, d.nOut,
                      d.inverse, d.frames, d.step));
  long double radices = 1;
  for (int32_t s = 0; s < g.stages; ++s)
    radices += g.radix[s];
  for (int64_t o = 0; o < d.outer; ++o)
    for (int64_t f = 0; f < d.frames; ++f)
      for (int64_t i = 0; i < d.inner; ++i) {
        std::vector<cld> r = row(d, x, w, o, f, i);
        long double norm = 0;
        for (const cld &v : r)
          norm += std::norm(v);
        norm = sqrtl(norm);
        const long double tol =
            2.0L * ldexpl(1.0L, -24) * radices * norm / (d.inverse ? d.n : 1) +
            1e-30L;
        std::vector<cld> X = reference(r, d.n, d.inverse);
        for (int64_t k = 0; k < d.nOut; ++k) {
          const int64_t at = ((o * d.frames + f) * d.nOut + k) * d.inner + i;
          const cld got(y[(size_t)(2 * at)], y[(size_t)(2 * at + 1)]);
          ASSERT_LE(std::abs(got - X[(size_t)k]), tol)
              << "n " << d.n << " bin " << k << " row " << o << "," << f << ","
              << i << (d.inverse ? " inverse" : "")
              << (d.complexIn ? " complex" : " real");
        }
      }
}

} // namespace

TEST(Dft, MatchesLongDoubleReference) {
  plumb_rt_set_threads(1);
  uint32_t seed = 1;
  for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 17, 25, 30, 49, 64,
                    97, 100, 128, 210, 256, 400, 401, 512, 1000, 1024}) {
    for (int c = 0; c < 2; ++c)
      for (int inv = 0; inv < 2; ++inv) {
        Dft d;
        d.outer = 3;
        d.len = n;
        d.complexIn = c;
        d.n = n;
        d.nOut = n;
        d.inverse = inv;
        std::vector<float> x =
            uniform((size_t)(d.outer * n * (c ? 2 : 1)), seed++);
        checkAgainstReference(d, x, run(d, x));
      }
  }
}

TEST(Dft, PadTruncateOnesidedStrided) {
  plumb_rt_set_threads(1);
  // [2, 5, 3, 1] real along axis 1 (inner 3) and [2, 6, 4, 2] complex.
  for (int64_t n : {1, 4, 5, 8, 9, 16}) {
    Dft d;
    d.outer = 2;
    d.len = 5;
    d.inner = 3;
    d.n = n;
    for (bool onesided : {false, true}) {
      d.nOut = onesided ? n / 2 + 1 : n;
      std::vector<float> x = uniform(30, (uint32_t)(100 + n));
      checkAgainstReference(d, x, run(d, x));
    }
    Dft c = d;
    c.len = 6;
    c.inner = 4;
    c.complexIn = true;
    c.nOut = n;
    for (bool inv : {false, true}) {
      c.inverse = inv;
      std::vector<float> x = uniform(2 * 6 * 4 * 2, (uint32_t)(200 + n));
      checkAgainstReference(c, x, run(c, x));
    }
  }
}

TEST(Dft, StftFramesWithWindow) {
  plumb_rt_set_threads(1);
  for (int64_t L : {12, 16, 25}) {
    Dft d;
    d.outer = 2;
    d.len = 60;
    d.n = L;
    d.step = 7;
    d.frames = (60 - L) / 7 + 1;
    d.nOut = L / 2 + 1;
    std::vector<float> x = uniform(120, (uint32_t)L);
    std::vector<float> w = uniform((size_t)L, (uint32_t)(L + 50));
    checkAgainstReference(d, x, run(d, x, w.data()), w.data());
    checkAgainstReference(d, x, run(d, x));
    Dft c = d;
    c.complexIn = true;
    c.nOut = L;
    std::vector<float> xc = uniform(240, (uint32_t)(L + 99));
    checkAgainstReference(c, xc, run(c, xc, w.data()), w.data());
  }
}

namespace {
/// The recurrence of docs/determinism.md ("DFT and STFT"), transcribed as a
/// recursion: X = DFT_n(x) splits by the smallest prime p of n into the p
/// sub-sequences x[r + p j], transforms each (the same recursion, twiddles
/// tw[p * ...]) and sums X[K] = Y_0[K mod n/p] + sum_{r >= 1}
/// tw[((r K) mod n) * span] * Y_r[K mod n/p] from r = 1 up.
std::vector<std::complex<float>>
documented(const std::vector<std::complex<float>> &x, int64_t span,
           const std::vector<float> &tw) {
  const int64_t n = (int64_t)x.size();
  if (n == 1)
    return x;
  int64_t p = 2;
  while (n % p != 0 && p * p <= n)
    ++p;
  if (n % p != 0)
    p = n;
  const int64_t m = n / p;
  std::vector<std::vector<std::complex<float>>> Y;
  for (int64_t r = 0; r < p; ++r) {
    std::vector<std::complex<float>> sub;
    for (int64_t j = 0; j < m; ++j)
      sub.push_back(x[(size_t)(r + p * j)]);
    Y.push_back(documented(sub, span * p, tw));
  }
  std::vector<std::complex<float>> X((size_t)n);
  for (int64_t K = 0; K < n; ++K) {
    float re = Y[0][(size_t)(K % m)].real(), im = Y[0][(size_t)(K % m)].imag();
    for (int64_t r = 1; r < p; ++r) {
      const int64_t j = ((r * K) % n) * span;
      const float wr = tw[(size_t)(2 * j)], wi = tw[(size_t)(2 * j + 1)];
      const float fr = Y[(size_t)r][(size_t)(K % m)].real(),
                  fi = Y[(size_t)r][(size_t)(K % m)].imag();
      const float pr = (wr * fr) - (wi * fi);
      const float pi = (wr * fi) + (wi * fr);
      re = re + pr;
      im = im + pi;
    }
    X[(size_t)K] = {re, im};
  }
  return X;
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
} // namespace

TEST(Dft, DocumentedRecurrenceBitwiseAndThreads) {
  for (int64_t n : {1, 2, 6, 12, 15, 16, 27, 60, 97, 400, 512}) {
    for (int inv = 0; inv < 2; ++inv) {
      Dft d;
      d.outer = 37;
      d.len = n;
      d.complexIn = true;
      d.n = n;
      d.nOut = n;
      d.inverse = inv;
      std::vector<float> x = uniform((size_t)(37 * n * 2), (uint32_t)(n + inv));
      plumb_rt_set_threads(1);
      std::vector<float> y1 = run(d, x);
      std::vector<float> tw((size_t)(2 * n));
      for (int64_t j = 0; j < n; ++j)
        dftTwiddle(j, n, inv, &tw[(size_t)(2 * j)], &tw[(size_t)(2 * j + 1)]);
      for (int64_t o = 0; o < d.outer; ++o) {
        std::vector<std::complex<float>> r;
        for (int64_t j = 0; j < n; ++j)
          r.push_back({x[(size_t)(2 * (o * n + j))],
                       x[(size_t)(2 * (o * n + j) + 1)]});
        std::vector<std::complex<float>> X = documented(r, 1, tw);
        for (int64_t k = 0; k < n; ++k) {
          float re = X[(size_t)k].real(), im = X[(size_t)k].imag();
          if (inv) {
            re = re / (float)n;
            im = im / (float)n;
          }
          ASSERT_EQ(bitsOf(y1[(size_t)(2 * (o * n + k))]), bitsOf(re))
              << "n " << n << " row " << o << " bin " << k;
          ASSERT_EQ(bitsOf(y1[(size_t)(2 * (o * n + k) + 1)]), bitsOf(im))
              << "n " << n << " row " << o << " bin " << k;
        }
      }
      for (int threads : {2, 3}) {
        plumb_rt_set_threads(threads);
        std::vector<float> yt = run(d, x);
        EXPECT_EQ(std::memcmp(y1.data(), yt.data(), y1.size() * 4), 0)
            << "n " << n << " threads " << threads;
      }
      plumb_rt_set_threads(1);
    }
  }
}

TEST(Dft, TwiddlesAreCorrectlyRoundedAndSymmetric) {
  const long double tau = 6.283185307179586476925286766559005768L;
  for (int64_t n : {1, 3, 4, 5, 7, 8, 10, 12, 16, 100, 400, 401, 512, 1000,
                    1024, 4096}) {
    for (int64_t j = 0; j < n; ++j) {
      float re, im, cr, ci;
      dftTwiddle(j, n, 0, &re, &im);
      dftTwiddle(j, n, 1, &cr, &ci);
      const long double a = tau * (long double)j / (long double)n;
      if ((4 * j) % n == 0) {
        // Quarter turns are exact: (1, 0), (0, -1), (-1, 0), (0, 1).
        const int64_t q = 4 * j / n;
        EXPECT_EQ(re, q == 0 ? 1.0f : (q == 2 ? -1.0f : 0.0f));
        EXPECT_EQ(im, q == 1 ? -1.0f : (q == 3 ? 1.0f : 0.0f));
      } else {
        // The nearest floats of cos and -sin (the long double values are
        // far closer than the 2^-44 relative margin of every twiddle).
        EXPECT_EQ(re, (float)cosl(a)) << "n " << n << " j " << j;
        EXPECT_EQ(im, (float)-sinl(a)) << "n " << n << " j " << j;
      }
      EXPECT_EQ(bitsOf(cr), bitsOf(re));
      EXPECT_EQ(bitsOf(ci), bitsOf(-im));
      if (j > 0) { // W^(n-j) is the conjugate of W^j (zeros up to sign)
        float sr, si;
        dftTwiddle(n - j, n, 0, &sr, &si);
        EXPECT_EQ(sr, re) << "n " << n << " j " << j;
        EXPECT_EQ(si, -im) << "n " << n << " j " << j;
      }
    }
  }
}

TEST(Dft, ExactCases) {
  plumb_rt_set_threads(1);
  // An impulse transforms to ones; a constant of a power-of-two length to
  // (n, 0, 0, ...) exactly; the DC bin of a ramp is its exact sum; a real
  // input's DC and (even n) Nyquist bins have an imaginary part of 0.
  for (int64_t n : {8, 12, 400, 512}) {
    Dft d;
    d.len = n;
    d.n = n;
    d.nOut = n;
    std::vector<float> imp((size_t)n, 0.0f);
    imp[0] = 1.0f;
    std::vector<float> y = run(d, imp);
    for (int64_t k = 0; k < n; ++k) {
      EXPECT_EQ(y[(size_t)(2 * k)], 1.0f);
      EXPECT_EQ(y[(size_t)(2 * k + 1)], 0.0f);
    }
    std::vector<float> ramp((size_t)n);
    for (int64_t j = 0; j < n; ++j)
      ramp[(size_t)j] = (float)j;
    y = run(d, ramp);
    EXPECT_EQ(y[0], (float)(n * (n - 1) / 2));
    EXPECT_EQ(y[1], 0.0f);
    EXPECT_EQ(y[(size_t)(2 * (n / 2) + 1)], 0.0f);
    std::vector<float> r = uniform((size_t)n, (uint32_t)n);
    y = run(d, r);
    EXPECT_EQ(y[1], 0.0f);
    EXPECT_EQ(y[(size_t)(2 * (n / 2) + 1)], 0.0f);
  }
  Dft d;
  d.len = 512;
  d.n = 512;
  d.nOut = 512;
  std::vector<float> ones(512, 1.0f);
  std::vector<float> y = run(d, ones);
  EXPECT_EQ(y[0], 512.0f);
  for (size_t k = 2; k < y.size(); ++k)
    EXPECT_EQ(y[k], 0.0f) << k;
}

TEST(Dft, NaNsAreCanonicalAndErrors) {
  plumb_rt_set_threads(1);
  Dft d;
  d.len = 10;
  d.n = 10;
  d.nOut = 10;
  std::vector<float> x = uniform(10, 5);
  uint32_t nanBits = 0x7FA00001u; // a signalling NaN with a payload
  std::memcpy(&x[3], &nanBits, 4);
  std::vector<float> y = run(d, x);
  for (float v : y)
    EXPECT_EQ(bitsOf(v), 0x7FC00000u);
  // Infinity: x[0] is never multiplied (it is the r = 0 term of every
  // stage), so every bin's real part is inf and its imaginary part finite;
  // an inf elsewhere meets inf * 0 in some product: canonical NaNs.
  x = uniform(10, 6);
  x[0] = INFINITY;
  y = run(d, x);
  for (int64_t k = 0; k < 10; ++k) {
    EXPECT_EQ(y[(size_t)(2 * k)], INFINITY);
    EXPECT_TRUE(std::isfinite(y[(size_t)(2 * k + 1)]));
  }
  x[0] = 0.5f;
  x[1] = INFINITY;
  y = run(d, x);
  int nans = 0;
  for (float v : y)
    if (v != v) {
      ++nans;
      EXPECT_EQ(bitsOf(v), 0x7FC00000u);
    }
  EXPECT_GT(nans, 0);

  std::vector<float> s(64), out(64);
  auto call = [&](int64_t outer, int64_t len, int64_t inner, int32_t c,
                  int64_t n, int64_t nOut, int32_t inv, int64_t frames,
                  int64_t step) {
    return plumb_rt_dft_f32(x.data(), nullptr, outer, len, inner, c, n, nOut,
                            inv, frames, step, s.data(), out.data());
  };
  EXPECT_EQ(call(1, 10, 1, 0, 0, 0, 0, 1, 0), PLUMB_RT_EINVAL); // n = 0
  EXPECT_EQ(call(1, 10, 1, 0, 4, 5, 0, 1, 0), PLUMB_RT_EINVAL); // nOut > n
  EXPECT_EQ(call(1, 10, 1, 2, 4, 4, 0, 1, 0), PLUMB_RT_EINVAL); // complex 2
  EXPECT_EQ(call(1, 10, 1, 0, 4, 4, 3, 1, 0), PLUMB_RT_EINVAL); // inverse 3
  EXPECT_EQ(call(-1, 10, 1, 0, 4, 4, 0, 1, 0), PLUMB_RT_EINVAL);
  EXPECT_EQ(call(1, 10, 1, 0, PLUMB_RT_DFT_MAX_LENGTH + 1, 1, 0, 1, 0),
            PLUMB_RT_EINVAL);
  EXPECT_EQ(plumb_rt_dft_f32(x.data(), nullptr, 1, 10, 1, 0, 4, 4, 0, 1, 0,
                             nullptr, out.data()),
            PLUMB_RT_EINVAL);
  // No transforms (an empty batch): nothing is written.
  EXPECT_EQ(call(0, 10, 1, 0, 4, 4, 0, 1, 0), PLUMB_RT_OK);
}

TEST(Dft, StageCountsAndScratch) {
  EXPECT_EQ(plumb::rt::ops::dftStageCount(1), 1);
  EXPECT_EQ(plumb::rt::ops::dftStageCount(97), 1);
  EXPECT_EQ(plumb::rt::ops::dftStageCount(400), 6);
  EXPECT_EQ(plumb::rt::ops::dftStageCount(512), 9);
  EXPECT_EQ(plumb::rt::ops::dftStageCount(PLUMB_RT_DFT_MAX_LENGTH), 24);
  EXPECT_EQ(dftScratchFloats(10, 97), 194);
  EXPECT_EQ(dftScratchFloats(10, 6), 12 + 10 * 12);
  EXPECT_EQ(dftScratchFloats(10, 8), 16 + 2 * 10 * 16);
  DftPlan g;
  ASSERT_TRUE(dftPlan(g, 1, 400, 1, 0, 400, 201, 0, 1, 0));
  // Stage 0 has the largest prime; spans P_(d-1) fall to 1.
  const int64_t radix[] = {5, 5, 2, 2, 2, 2}, span[] = {80, 16, 8, 4, 2, 1};
  ASSERT_EQ(g.stages, 6);
  for (int s = 0; s < 6; ++s) {
    EXPECT_EQ(g.radix[s], radix[s]);
    EXPECT_EQ(g.span[s], span[s]);
  }
}
