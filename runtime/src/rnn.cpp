//===- runtime/src/rnn.cpp - LSTM and GRU kernels ------------*- C++ -*-===//
//
// Part of Plumb. Semantics in rnn.h. The input projections X_t . W^T of all
// steps are computed first (independent dot trees, split over threads); the
// recurrence then runs step by step, each step split over batch x units.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/rnn.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/tree.h"

#include "ops_internal.h"

#include <string.h>
#include <vector>

using namespace plumb::rt::ops;
using plumb::rt::fma_rn;

namespace {

/// out[r] = treeDot(v, W + r * n, n, block) for r < rows. One-chunk trees
/// interleave 8 rows (same per-row sequence).
PLUMB_INLINE void dotRowsBody(const float *v, const float *W, int64_t rows,
                              int64_t n, int64_t block, float *out,
                              float *scratch) {
  const int64_t m = ::plumb::rt::treeChunks(n, block);
  int64_t r = 0;
  if (m == 1) {
    for (; r + 8 <= rows; r += 8) {
      float a[8];
      for (int q = 0; q < 8; ++q)
        a[q] = -0.0f;
      const float *w = W + r * n;
      for (int64_t i = 0; i < n; ++i)
        for (int q = 0; q < 8; ++q)
          a[q] = fma_rn(v[i], w[q * n + i], a[q]);
      for (int q = 0; q < 8; ++q)
        out[r + q] = a[q];
    }
  }
  for (; r < rows; ++r)
    out[r] = ::plumb::rt::treeDot(v, 1, W + r * n, 1, n, block, scratch);
}

PLUMB_OPS_TGT_FMA void dotRowsFma(const float *v, const float *W,
                                  int64_t rows, int64_t n, int64_t block,
                                  float *out, float *scratch) {
  dotRowsBody(v, W, rows, n, block, out, scratch);
}

/// Same bits with or without FMA hardware (see ops_internal.h).
void dotRows(const float *v, const float *W, int64_t rows, int64_t n,
             int64_t block, float *out, float *scratch) {
  if (cpuHasFma())
    dotRowsFma(v, W, rows, n, block, out, scratch);
  else
    dotRowsBody(v, W, rows, n, block, out, scratch);
}

inline float clipA(float a, float clip) {
  return clip > 0.0f ? minF(maxF(a, -clip), clip) : a;
}

struct Dims {
  int64_t seq, batch, in, hid, dirs, gates;
};

int checkCommon(const float *X, const float *W, const float *R,
                const int32_t *seq_lens, int64_t seq, int64_t batch,
                int64_t input, int64_t hidden, int32_t direction) {
  if (seq < 0 || batch < 0 || input < 0 || hidden < 0 ||
      direction < PLUMB_RT_RNN_FORWARD ||
      direction > PLUMB_RT_RNN_BIDIRECTIONAL)
    return PLUMB_RT_EINVAL;
  if ((seq * batch * input > 0 && !X) || (hidden > 0 && (!W || !R)))
    return PLUMB_RT_EINVAL;
  if (seq_lens)
    for (int64_t b = 0; b < batch; ++b)
      if (seq_lens[b] < 0 || seq_lens[b] > seq)
        return PLUMB_RT_EINVAL;
  return PLUMB_RT_OK;
}

/// Input projections for one direction: XW[(t * batch + b) * G + g].
void projectInputs(const float *X, const float *Wd, const Dims &d,
                   int64_t block, std::vector<float> &XW) {
  const int64_t G = d.gates * d.hid;
  XW.assign((size_t)(d.seq * d.batch * G), 0.0f);
  const int64_t m = ::plumb::rt::treeChunks(d.in, block);
  parallelRange(d.seq * d.batch, 1 + 4096 / (G * d.in + 1),
                [&](int64_t lo, int64_t hi) {
                  std::vector<float> scratch((size_t)m);
                  for (int64_t r = lo; r < hi; ++r)
                    dotRows(X + r * d.in, Wd, G, d.in, block,
                            XW.data() + r * G, scratch.data());
                });
}

/// Step index of iteration k for batch entry b (or -1 if not processed).
inline int64_t stepOf(bool reverse, int64_t k, int64_t len) {
  if (k >= len)
    return -1;
  return reverse ? len - 1 - k : k;
}

} // namespace

extern "C" int plumb_rt_lstm_f32(const float *X, const float *W,
                                 const float *R, const float *B,
                                 const int32_t *seq_lens,
                                 const float *initial_h,
                                 const float *initial_c, const float *P,
                                 int64_t seq, int64_t batch, int64_t input,
                                 int64_t hidden, int32_t direction, float clip,
                                 int32_t input_forget, float *Y, float *Y_h,
                                 float *Y_c, int64_t block) {
  int rc = checkCommon(X, W, R, seq_lens, seq, batch, input, hidden,
                       direction);
  if (rc != PLUMB_RT_OK)
    return rc;
  Dims d{seq, batch, input, hidden,
         direction == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1, 4};
  const int64_t H = hidden, G = 4 * H, Bn = batch;
  if (Y)
    for (int64_t i = 0; i < seq * d.dirs * Bn * H; ++i)
      Y[i] = 0.0f;
  std::vector<float> XW, hst((size_t)(Bn * H)), cst((size_t)(Bn * H)),
      gates((size_t)(Bn * G));
  const int64_t mh = ::plumb::rt::treeChunks(H, block);
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    const bool reverse = direction == PLUMB_RT_RNN_REVERSE || dir == 1;
    const float *Wd = W + dir * G * input, *Rd = R + dir * G * H;
    const float *Wb = B ? B + dir * 2 * G : nullptr;
    const float *Rb = B ? Wb + G : nullptr;
    const float *Pd = P ? P + dir * 3 * H : nullptr;
    projectInputs(X, Wd, d, block, XW);
    for (int64_t i = 0; i < Bn * H; ++i) {
      hst[(size_t)i] = initial_h ? initial_h[dir * Bn * H + i] : 0.0f;
      cst[(size_t)i] = initial_c ? initial_c[dir * Bn * H + i] : 0.0f;
    }
    for (int64_t k = 0; k < seq; ++k) {
      // Gate pre-activations (all but peephole / clip) for every active b.
      parallelRange(Bn * 4, 1 + 1024 / (H * H + 1), [&](int64_t lo,
                                                         int64_t hi) {
        std::vector<float> scratch((size_t)mh);
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t b = r / 4, gi = r % 4;
          const int64_t len = seq_lens ? seq_lens[b] : seq;
          const int64_t t = stepOf(reverse, k, len);
          if (t < 0)
            continue;
          float *a = gates.data() + b * G + gi * H;
          dotRows(hst.data() + b * H, Rd + gi * H * H, H, H, block, a,
                  scratch.data());
          const float *xw = XW.data() + (t * Bn + b) * G + gi * H;
          for (int64_t j = 0; j < H; ++j) {
            float v = xw[j] + a[j];
            if (B) {
              v = v + Wb[gi * H + j];
              v = v + Rb[gi * H + j];
            }
            a[j] = v;
          }
        }
      });
      // Cell update.
      for (int64_t b = 0; b < Bn; ++b) {
        const int64_t len = seq_lens ? seq_lens[b] : seq;
        const int64_t t = stepOf(reverse, k, len);
        if (t < 0)
          continue;
        const float *a = gates.data() + b * G;
        float *h = hst.data() + b * H, *c = cst.data() + b * H;
        for (int64_t j = 0; j < H; ++j) {
          float ai = a[j], ao = a[H + j], af = a[2 * H + j],
                ac = a[3 * H + j];
          const float cprev = c[j];
          if (Pd) {
            ai = ai + (Pd[j] * cprev);
            af = af + (Pd[2 * H + j] * cprev);
          }
          const float ig = ::plumb::rt::sigmoid(clipA(ai, clip));
          const float fg = input_forget
                               ? 1.0f - ig
                               : ::plumb::rt::sigmoid(clipA(af, clip));
          const float cg = ::plumb::rt::tanh(clipA(ac, clip));
          const float cn = (fg * cprev) + (ig * cg);
          if (Pd)
            ao = ao + (Pd[H + j] * cn);
          const float og = ::plumb::rt::sigmoid(clipA(ao, clip));
          const float hn = og * ::plumb::rt::tanh(cn);
          c[j] = canon(cn);
          h[j] = canon(hn);
          if (Y)
            Y[((t * d.dirs + dir) * Bn + b) * H + j] = h[j];
        }
      }
    }
    if (Y_h)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_h[dir * Bn * H + i] = hst[(size_t)i];
    if (Y_c)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_c[dir * Bn * H + i] = cst[(size_t)i];
  }
  return PLUMB_RT_OK;
}

extern "C" int plumb_rt_gru_f32(const float *X, const float *W, const float *R,
                                const float *B, const int32_t *seq_lens,
                                const float *initial_h, int64_t seq,
                                int64_t batch, int64_t input, int64_t hidden,
                                int32_t direction, float clip,
                                int32_t linear_before_reset, float *Y,
                                float *Y_h, int64_t block) {
  int rc = checkCommon(X, W, R, seq_lens, seq, batch, input, hidden,
                       direction);
  if (rc != PLUMB_RT_OK)
    return rc;
  Dims d{seq, batch, input, hidden,
         direction == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1, 3};
  const int64_t H = hidden, G = 3 * H, Bn = batch;
  if (Y)
    for (int64_t i = 0; i < seq * d.dirs * Bn * H; ++i)
      Y[i] = 0.0f;
  std::vector<float> XW, hst((size_t)(Bn * H)), gates((size_t)(Bn * G)),
      rh((size_t)(Bn * H));
  const int64_t mh = ::plumb::rt::treeChunks(H, block);
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    const bool reverse = direction == PLUMB_RT_RNN_REVERSE || dir == 1;
    const float *Wd = W + dir * G * input, *Rd = R + dir * G * H;
    const float *Wb = B ? B + dir * 2 * G : nullptr;
    const float *Rb = B ? Wb + G : nullptr;
    projectInputs(X, Wd, d, block, XW);
    for (int64_t i = 0; i < Bn * H; ++i)
      hst[(size_t)i] = initial_h ? initial_h[dir * Bn * H + i] : 0.0f;
    auto active = [&](int64_t b, int64_t k) {
      const int64_t len = seq_lens ? seq_lens[b] : seq;
      return stepOf(reverse, k, len);
    };
    for (int64_t k = 0; k < seq; ++k) {
      // Phase 1: z and r gates (a_z, a_r -> activations), and for
      // linear_before_reset the raw H . R_h^T.
      parallelRange(Bn * 3, 1 + 1024 / (H * H + 1), [&](int64_t lo,
                                                         int64_t hi) {
        std::vector<float> scratch((size_t)mh);
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t b = r / 3, gi = r % 3;
          const int64_t t = active(b, k);
          if (t < 0 || (gi == 2 && !linear_before_reset))
            continue;
          float *a = gates.data() + b * G + gi * H;
          dotRows(hst.data() + b * H, Rd + gi * H * H, H, H, block, a,
                  scratch.data());
          if (gi == 2)
            continue; // combined in phase 2
          const float *xw = XW.data() + (t * Bn + b) * G + gi * H;
          for (int64_t j = 0; j < H; ++j) {
            float v = xw[j] + a[j];
            if (B) {
              v = v + Wb[gi * H + j];
              v = v + Rb[gi * H + j];
            }
            a[j] = ::plumb::rt::sigmoid(clipA(v, clip));
          }
        }
      });
      // Phase 2: candidate and new state.
      parallelRange(Bn, 1 + 1024 / (H * H + 1), [&](int64_t lo, int64_t hi) {
        std::vector<float> scratch((size_t)mh);
        for (int64_t b = lo; b < hi; ++b) {
          const int64_t t = active(b, k);
          if (t < 0)
            continue;
          float *z = gates.data() + b * G, *rg = z + H, *ah = z + 2 * H;
          const float *hp = hst.data() + b * H;
          const float *xw = XW.data() + (t * Bn + b) * G + 2 * H;
          if (!linear_before_reset) {
            float *v = rh.data() + b * H;
            for (int64_t j = 0; j < H; ++j)
              v[j] = rg[j] * hp[j];
            dotRows(v, Rd + 2 * H * H, H, H, block, ah, scratch.data());
            for (int64_t j = 0; j < H; ++j) {
              float a = xw[j] + ah[j];
              if (B) {
                a = a + Wb[2 * H + j];
                a = a + Rb[2 * H + j];
              }
              ah[j] = a;
            }
          } else {
            for (int64_t j = 0; j < H; ++j) {
              float tt = ah[j];
              if (B)
                tt = tt + Rb[2 * H + j];
              tt = rg[j] * tt;
              float a = xw[j] + tt;
              if (B)
                a = a + Wb[2 * H + j];
              ah[j] = a;
            }
          }
        }
      });
      for (int64_t b = 0; b < Bn; ++b) {
        const int64_t t = active(b, k);
        if (t < 0)
          continue;
        const float *z = gates.data() + b * G, *ah = z + 2 * H;
        float *h = hst.data() + b * H;
        for (int64_t j = 0; j < H; ++j) {
          const float hc = ::plumb::rt::tanh(clipA(ah[j], clip));
          const float u = (1.0f - z[j]) * hc;
          const float hn = u + (z[j] * h[j]);
          h[j] = canon(hn);
          if (Y)
            Y[((t * d.dirs + dir) * Bn + b) * H + j] = h[j];
        }
      }
    }
    if (Y_h)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_h[dir * Bn * H + i] = hst[(size_t)i];
  }
  return PLUMB_RT_OK;
}
