//===- runtime/src/signal.cpp - DFT kernel ---------------------*- C++ -*-===//
//
// Part of Plumb. plumb_rt_dft_f32, the host kernel of ONNX DFT and STFT:
// the twiddle table, then every transform's stages with signal.h's
// per-output arithmetic (the CUDA twin calls dftStageValue, whose terms this
// file's loops compute in the same order); semantics in signal.h and
// docs/determinism.md ("DFT and STFT"). Threads split whole transforms;
// each output is computed alone, so the split changes no bit.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/signal.h"

#include "ops_internal.h"

#include <vector>

using namespace plumb::rt::ops;

namespace {

/// One transform on the host: the loads into a (2n floats), then every
/// stage from buffer to buffer (a, b, a, ...), the last one stored into y.
/// Each output is computed exactly as dftStageValue computes it (the same
/// terms, products and sums in the same order); the loops walk (sigma, K)
/// directly instead of dividing the output index.
void transformOne(const DftPlan &g, const float *tw, const float *x,
                  const float *w, int64_t t, float *a, float *b, float *y) {
  const int64_t n = g.n;
  const int64_t i = t % g.inner, q = t / g.inner;
  const int64_t f = q % g.frames, o = q / g.frames;
  for (int64_t pos = 0; pos < n; ++pos)
    dftLoadAt(g, x, w, o, f, i, pos, &a[2 * pos], &a[2 * pos + 1]);
  float *in = a, *out = b;
  for (int32_t s = 0; s < g.stages; ++s) {
    const int64_t p = g.radix[s], P = g.span[s];
    const int64_t L = n / P, Lsub = L / p;
    const bool last = s == g.stages - 1;
    const int64_t kEnd = last ? g.nOut : L;
    for (int64_t sigma = 0; sigma < P; ++sigma) {
      int64_t Ks = 0; // K mod Lsub
      if (p == 2 && !last) {
        // Radix 2: the one term r = 1 has (1 K) mod L = K (K < L).
        const float *in1 = in + 2 * ((sigma + P) * Lsub);
        const float *in0 = in + 2 * (sigma * Lsub);
        float *o2 = out + 2 * (sigma * L);
        for (int64_t K = 0; K < L; ++K) {
          const float wr = tw[2 * K * P], wi = tw[2 * K * P + 1];
          const float *f0 = in0 + 2 * Ks, *f1 = in1 + 2 * Ks;
          const float pr = (wr * f1[0]) - (wi * f1[1]);
          const float pi = (wr * f1[1]) + (wi * f1[0]);
          o2[2 * K] = f0[0] + pr;
          o2[2 * K + 1] = f0[1] + pi;
          if (++Ks == Lsub)
            Ks = 0;
        }
        continue;
      }
      for (int64_t K = 0; K < kEnd; ++K) {
        const float *f0 = in + 2 * (sigma * Lsub + Ks);
        float are = f0[0], aim = f0[1];
        int64_t jr = 0;
        for (int64_t r = 1; r < p; ++r) {
          jr += K;
          if (jr >= L)
            jr -= L;
          const int64_t j = jr * P;
          const float wr = tw[2 * j], wi = tw[2 * j + 1];
          const float *fr = in + 2 * ((sigma + r * P) * Lsub + Ks);
          const float pr = (wr * fr[0]) - (wi * fr[1]);
          const float pi = (wr * fr[1]) + (wi * fr[0]);
          are = are + pr;
          aim = aim + pi;
        }
        if (last) {
          dftStore(g, y, t, K, are, aim);
        } else {
          out[2 * (sigma * L + K)] = are;
          out[2 * (sigma * L + K) + 1] = aim;
        }
        if (++Ks == Lsub)
          Ks = 0;
      }
    }
    float *tmp = in;
    in = out;
    out = tmp;
  }
}

} // namespace

extern "C" int plumb_rt_dft_f32(const float *x, const float *window,
                                int64_t outer, int64_t len, int64_t inner,
                                int32_t complex_in, int64_t n, int64_t n_out,
                                int32_t inverse, int64_t frames, int64_t step,
                                float *scratch, float *y) {
  DftPlan g;
  if (!dftPlan(g, outer, len, inner, complex_in, n, n_out, inverse, frames,
               step))
    return PLUMB_RT_EINVAL;
  if (g.transforms == 0 || n_out == 0)
    return PLUMB_RT_OK;
  if ((!x && len > 0) || !scratch || !y)
    return PLUMB_RT_EINVAL;
  float *tw = scratch;
  for (int64_t j = 0; j < n; ++j)
    dftTwiddle(j, n, inverse, &tw[2 * j], &tw[2 * j + 1]);
  // Work of one transform: about n * (sum of the radices) complex terms.
  int64_t terms = 0;
  for (int32_t s = 0; s < g.stages; ++s)
    terms += n * g.radix[s];
  // The host keeps a transform's stages in two buffers of its own (2n floats
  // each, cache resident); the scratch's stage buffers are the CUDA twin's.
  parallelRange(g.transforms, 1 + 65536 / (terms + 1),
                [&](int64_t lo, int64_t hi) {
    // The second buffer starts 64 bytes past a multiple of 4 KiB from the
    // first (power-of-two lengths would otherwise alias loads and stores).
    const int64_t gap = 2 * n + 16;
    std::vector<float> buf((size_t)(gap + 2 * n));
    for (int64_t t = lo; t < hi; ++t)
      transformOne(g, tw, x, window, t, buf.data(), buf.data() + gap, y);
  });
  return PLUMB_RT_OK;
}
