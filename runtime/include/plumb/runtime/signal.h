//===- runtime/include/plumb/runtime/signal.h - DFT and STFT ----*- C++ -*-===//
//
// Part of Plumb. The discrete Fourier transform kernel of ONNX DFT and STFT
// (plumb_rt_dft_f32) and the PLUMB_INLINE functions its CPU kernel and its
// CUDA twin share: the plan (the factors of the length), the twiddle
// factors, the loads (zero padding, frames, window) and the value of one
// output of one stage. Both executors call exactly these functions for every
// element, so their bits are the same. The operation sequence, which is the
// contract (docs/determinism.md, "DFT and STFT"):
//
//   n = p_1 p_2 ... p_m, the prime factors of n in ascending order (m = 0
//   for n = 1, which is one stage of radix 1); P_d = p_1 ... p_d (P_0 = 1).
//   F_m[rho][0] = the loaded input element rho (rho < n).
//   For d = m, m-1, ..., 1 (the stages, in this order), L = n / P_(d-1):
//     F_(d-1)[s][K] = sum over r = 0 .. p_d - 1, in this order, of
//                     W^(((r K) mod L) P_(d-1)) * F_d[s + r P_(d-1)][K mod (L / p_d)]
//     for s < P_(d-1), K < L; the r = 0 term is F_d[s][K mod (L/p_d)] itself
//     (no multiplication), each later term is added to the running sum.
//   X[K] = F_0[0][K] (divided by n for the inverse), NaN canonicalised.
//   W^j = tw[j] = (cos, -+sin)(2 pi j / n), float32, from dftTwiddle.
//   A complex product (a, b) * (c, d) is ((a*c) - (b*d), (a*d) + (b*c)),
//   every operation one IEEE float32 operation (no FMA).
//
// Every output of a stage is a function of the previous stage alone, so the
// threads of the CPU kernel (whole transforms) and of the CUDA twin (one
// thread per output of a stage) change no bit.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_SIGNAL_H
#define PLUMB_RUNTIME_SIGNAL_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/math.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

/// Longest transform: every index j < n and n itself are exact in float32.
#define PLUMB_RT_DFT_MAX_LENGTH 16777216
/// Prime factors of a length <= 2^24 (24 twos at most).
#define PLUMB_RT_DFT_MAX_STAGES 24

#ifdef __cplusplus
namespace plumb {
namespace rt {
namespace ops {

/// One DFT kernel call: `transforms` transforms of length n, each reading
/// `len` input positions (zero beyond) and writing nOut bins. The input is
/// [outer, len, inner, comp] (comp 2 for a complex input, else 1); transform
/// t = (o * frames + f) * inner + i reads positions f * step + pos of its
/// row (o, i), pos < n; the output is [outer, frames, nOut, inner, 2].
/// Stage s (s = 0 runs first) has radix radix[s] and span[s] = P_(d-1) for
/// d = stages - s.
struct DftPlan {
  int64_t outer, len, inner, n, nOut, frames, step, transforms;
  int32_t complexIn, inverse, stages;
  int64_t radix[PLUMB_RT_DFT_MAX_STAGES], span[PLUMB_RT_DFT_MAX_STAGES];
};

/// The number of stages of a transform of length n in [1, 2^24]: its prime
/// factors with multiplicity, and 1 for n = 1.
PLUMB_INLINE int32_t dftStageCount(int64_t n) {
  if (n <= 1)
    return 1;
  int32_t m = 0;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      n /= p;
      ++m;
    }
  return n > 1 ? m + 1 : m;
}

/// Floats of scratch a call needs: the twiddle table (2n) and one or two
/// stage buffers of transforms * 2n when there are more than one or two
/// stages (a one-stage transform reads the input and writes the output).
PLUMB_INLINE int64_t dftScratchFloats(int64_t transforms, int64_t n) {
  const int32_t m = dftStageCount(n);
  const int64_t buffers = m >= 3 ? 2 : (m == 2 ? 1 : 0);
  return 2 * n + buffers * transforms * 2 * n;
}

/// Fills g; false when the arguments do not describe a transform (negative
/// sizes, n outside [1, 2^24], nOut > n, flags other than 0/1, sizes whose
/// products overflow).
PLUMB_INLINE bool dftPlan(DftPlan &g, int64_t outer, int64_t len,
                          int64_t inner, int32_t complexIn, int64_t n,
                          int64_t nOut, int32_t inverse, int64_t frames,
                          int64_t step) {
  if (outer < 0 || len < 0 || inner < 0 || frames < 0 || step < 0 ||
      n < 1 || n > PLUMB_RT_DFT_MAX_LENGTH || nOut < 0 || nOut > n ||
      (complexIn != 0 && complexIn != 1) || (inverse != 0 && inverse != 1))
    return false;
  const int64_t lim = (int64_t)1 << 40;
  if (outer > lim || len > lim || inner > lim || frames > lim || step > lim)
    return false;
  int64_t t = outer;
  if (t != 0 && frames > lim / t)
    return false;
  t *= frames;
  if (t != 0 && inner > lim / t)
    return false;
  t *= inner;
  // The stage buffers hold t * 2n floats.
  if (t != 0 && n > lim / t)
    return false;
  g.outer = outer;
  g.len = len;
  g.inner = inner;
  g.n = n;
  g.nOut = nOut;
  g.frames = frames;
  g.step = step;
  g.transforms = t;
  g.complexIn = complexIn;
  g.inverse = inverse;
  // Ascending prime factors p_1 <= ... <= p_m; stage s is d = m - s.
  int64_t fac[PLUMB_RT_DFT_MAX_STAGES];
  int32_t m = 0;
  int64_t r = n;
  for (int64_t p = 2; p * p <= r; ++p)
    while (r % p == 0) {
      fac[m++] = p;
      r /= p;
    }
  if (r > 1 || m == 0)
    fac[m++] = r;
  g.stages = m;
  int64_t span = n;
  for (int32_t s = 0; s < m; ++s) {
    const int64_t p = fac[m - 1 - s];
    span /= p;
    g.radix[s] = p;
    g.span[s] = span;
  }
  return true;
}

/// Twiddle factor j (0 <= j < n) as two float32s: (cos, sin)(2 pi j / n)
/// with the sine negated for the forward transform. 4j = q n + r gives the
/// quadrant q and the angle r/n quarter turns in it; the cosine and sine of
/// at most an eighth of a turn come from the binary64 polynomials of the
/// runtime's sin and cos (math_trig.h) on phi = (r/n) * pi/2 (or of the
/// complement (n-r)/n, swapping them), and each value is rounded to float32
/// once. Multiples of a quarter turn are exact (0, +-1).
PLUMB_INLINE void dftTwiddle(int64_t j, int64_t n, int32_t inverse,
                             float *re, float *im) {
  using namespace ::plumb::rt::mathdetail;
  const int64_t m4 = 4 * j;
  const int64_t q = m4 / n, r = m4 - q * n;
  double c = 1.0, s = 0.0;
  if (r != 0) {
    if (2 * r <= n) {
      const double phi = ((double)r / (double)n) * PLUMB_MATH_PIO2_HI;
      c = cosPoly(phi);
      s = sinPoly(phi);
    } else {
      const double psi = ((double)(n - r) / (double)n) * PLUMB_MATH_PIO2_HI;
      c = sinPoly(psi);
      s = cosPoly(psi);
    }
  }
  double cr, sr;
  switch (q & 3) {
  case 0:
    cr = c;
    sr = s;
    break;
  case 1:
    cr = -s;
    sr = c;
    break;
  case 2:
    cr = -c;
    sr = -s;
    break;
  default:
    cr = s;
    sr = -c;
    break;
  }
  *re = (float)cr;
  *im = inverse ? (float)sr : -(float)sr;
}

/// Input element pos (< n) of row (o, i), frame f, windowed: (x * w[pos])
/// for each part (a real input's imaginary part is +0, not multiplied);
/// zero beyond the input's `len` positions.
PLUMB_INLINE void dftLoadAt(const DftPlan &g, const float *x, const float *w,
                            int64_t o, int64_t f, int64_t i, int64_t pos,
                            float *re, float *im) {
  const int64_t src = f * g.step + pos;
  if (src >= g.len) {
    *re = 0.0f;
    *im = 0.0f;
    return;
  }
  const int64_t at = (o * g.len + src) * g.inner + i;
  float a, b = 0.0f;
  if (g.complexIn) {
    a = x[2 * at];
    b = x[2 * at + 1];
    if (w) {
      const float v = w[pos];
      a = a * v;
      b = b * v;
    }
  } else {
    a = x[at];
    if (w)
      a = a * w[pos];
  }
  *re = a;
  *im = b;
}

/// Input element pos of transform t = (o * frames + f) * inner + i.
PLUMB_INLINE void dftLoad(const DftPlan &g, const float *x, const float *w,
                          int64_t t, int64_t pos, float *re, float *im) {
  const int64_t i = t % g.inner, q = t / g.inner;
  dftLoadAt(g, x, w, q / g.frames, q % g.frames, i, pos, re, im);
}

/// Outputs of stage s per transform: n, or nOut for the last stage.
PLUMB_INLINE int64_t dftStageOutputs(const DftPlan &g, int32_t s) {
  return s == g.stages - 1 ? g.nOut : g.n;
}

/// Output idx = sigma * L + K of stage s of transform t (before the inverse's
/// division): the sum in the header comment. `in` is the previous stage's
/// buffer of this transform (2n floats, element sigma * L' + K' of F_d at
/// 2 (rho * (L/p) + K')), unused by stage 0, which loads the input.
PLUMB_INLINE void dftStageValue(const DftPlan &g, int32_t s, const float *tw,
                                const float *in, const float *x,
                                const float *w, int64_t t, int64_t idx,
                                float *ore, float *oim) {
  const int64_t p = g.radix[s], P = g.span[s];
  const int64_t L = g.n / P, Lsub = L / p;
  const int64_t sigma = idx / L, K = idx - sigma * L;
  const int64_t Ks = K % Lsub;
  float are = 0.0f, aim = 0.0f;
  int64_t jr = 0; // (r * K) mod L
  for (int64_t r = 0; r < p; ++r) {
    const int64_t rho = sigma + r * P;
    float fr, fi;
    if (s == 0) {
      dftLoad(g, x, w, t, rho, &fr, &fi);
    } else {
      const int64_t at = 2 * (rho * Lsub + Ks);
      fr = in[at];
      fi = in[at + 1];
    }
    if (r == 0) {
      are = fr;
      aim = fi;
      continue;
    }
    jr += K;
    if (jr >= L)
      jr -= L;
    const int64_t j = jr * P;
    const float wr = tw[2 * j], wi = tw[2 * j + 1];
    const float pr = (wr * fr) - (wi * fi);
    const float pi = (wr * fi) + (wi * fr);
    are = are + pr;
    aim = aim + pi;
  }
  *ore = are;
  *oim = aim;
}

/// Stores output K (< nOut) of the last stage for transform t: the inverse
/// divides each part by n (one IEEE division), NaNs become canonical.
PLUMB_INLINE void dftStore(const DftPlan &g, float *y, int64_t t, int64_t K,
                           float re, float im) {
  if (g.inverse) {
    const float nf = (float)g.n;
    re = re / nf;
    im = im / nf;
  }
  const int64_t i = t % g.inner, q = t / g.inner;
  const int64_t at = (q * g.nOut + K) * g.inner + i;
  y[2 * at] = canon(re);
  y[2 * at + 1] = canon(im);
}

} // namespace ops
} // namespace rt
} // namespace plumb
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The DFT of x ([outer, len, inner, complex_in ? 2 : 1]) along its second
/// dimension, `frames` frames of each row at a stride of `step` positions
/// (STFT; 1 and 0 for DFT), each multiplied by window[0..n) when window is
/// not null, zero-padded or truncated to n, into y ([outer, frames, n_out,
/// inner, 2], the first n_out bins; n_out <= n). inverse: e^(+2 pi i jk/n)
/// and the division by n. scratch: dftScratchFloats(outer * frames * inner,
/// n) floats. Returns PLUMB_RT_OK or PLUMB_RT_EINVAL.
int plumb_rt_dft_f32(const float *x, const float *window, int64_t outer,
                     int64_t len, int64_t inner, int32_t complex_in, int64_t n,
                     int64_t n_out, int32_t inverse, int64_t frames,
                     int64_t step, float *scratch, float *y);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_SIGNAL_H
