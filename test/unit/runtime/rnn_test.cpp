//===- test/unit/runtime/rnn_test.cpp - LSTM, GRU, RNN kernels -*- C++ -*-===//
//
// Part of Plumb. LSTM / GRU / RNN against float64 implementations of the ONNX
// equations (tolerance), plus exact structural properties: reverse equals
// forward on the reversed sequence, bidirectional equals the two single
// directions, seq_lens equals running the shorter sequence alone, and the
// bits do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/rnn.h"
#include "plumb/runtime/threads.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

std::vector<float> rnd(size_t n, uint32_t seed, float s = 0.5f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-s, s);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(g);
  return v;
}

double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// float64 LSTM, one direction, forward, full lengths, no peephole.
void lstmRef(const std::vector<float> &X, const float *W, const float *R,
             const float *B, const float *P, int64_t S, int64_t Bn, int64_t I,
             int64_t H, std::vector<double> &Y, std::vector<double> &h,
             std::vector<double> &c) {
  h.assign((size_t)(Bn * H), 0.0);
  c.assign((size_t)(Bn * H), 0.0);
  Y.assign((size_t)(S * Bn * H), 0.0);
  for (int64_t t = 0; t < S; ++t)
    for (int64_t b = 0; b < Bn; ++b) {
      std::vector<double> g((size_t)(4 * H));
      for (int64_t r = 0; r < 4 * H; ++r) {
        double a = 0;
        for (int64_t i = 0; i < I; ++i)
          a += (double)X[(size_t)((t * Bn + b) * I + i)] * W[r * I + i];
        for (int64_t k = 0; k < H; ++k)
          a += h[(size_t)(b * H + k)] * R[r * H + k];
        if (B)
          a += (double)B[r] + B[4 * H + r];
        g[(size_t)r] = a;
      }
      for (int64_t j = 0; j < H; ++j) {
        double cp = c[(size_t)(b * H + j)];
        double ai = g[j], ao = g[H + j], af = g[2 * H + j], ac = g[3 * H + j];
        if (P) {
          ai += P[j] * cp;
          af += P[2 * H + j] * cp;
        }
        double ig = sig(ai), fg = sig(af), cg = std::tanh(ac);
        double cn = fg * cp + ig * cg;
        if (P)
          ao += P[H + j] * cn;
        double hn = sig(ao) * std::tanh(cn);
        c[(size_t)(b * H + j)] = cn;
        h[(size_t)(b * H + j)] = hn;
        Y[(size_t)((t * Bn + b) * H + j)] = hn;
      }
    }
}

/// float64 GRU, one direction, forward.
void gruRef(const std::vector<float> &X, const float *W, const float *R,
            const float *B, int64_t S, int64_t Bn, int64_t I, int64_t H,
            bool lbr, std::vector<double> &Y, std::vector<double> &h) {
  h.assign((size_t)(Bn * H), 0.0);
  Y.assign((size_t)(S * Bn * H), 0.0);
  for (int64_t t = 0; t < S; ++t)
    for (int64_t b = 0; b < Bn; ++b) {
      std::vector<double> xw((size_t)(3 * H)), hr((size_t)(3 * H));
      for (int64_t r = 0; r < 3 * H; ++r) {
        double a = 0, e = 0;
        for (int64_t i = 0; i < I; ++i)
          a += (double)X[(size_t)((t * Bn + b) * I + i)] * W[r * I + i];
        for (int64_t k = 0; k < H; ++k)
          e += h[(size_t)(b * H + k)] * R[r * H + k];
        xw[(size_t)r] = a;
        hr[(size_t)r] = e;
      }
      std::vector<double> z((size_t)H), rr((size_t)H), hn((size_t)H);
      for (int64_t j = 0; j < H; ++j) {
        z[j] = sig(xw[j] + hr[j] + (B ? B[j] + B[3 * H + j] : 0.0));
        rr[j] = sig(xw[H + j] + hr[H + j] + (B ? B[H + j] + B[4 * H + j] : 0.0));
      }
      for (int64_t j = 0; j < H; ++j) {
        double a;
        if (lbr) {
          a = xw[2 * H + j] +
              rr[j] * (hr[2 * H + j] + (B ? B[5 * H + j] : 0.0)) +
              (B ? B[2 * H + j] : 0.0);
        } else {
          double d = 0;
          for (int64_t k = 0; k < H; ++k)
            d += rr[k] * h[(size_t)(b * H + k)] * R[(2 * H + j) * H + k];
          a = xw[2 * H + j] + d + (B ? B[2 * H + j] + B[5 * H + j] : 0.0);
        }
        double hc = std::tanh(a);
        hn[j] = (1 - z[j]) * hc + z[j] * h[(size_t)(b * H + j)];
      }
      for (int64_t j = 0; j < H; ++j) {
        h[(size_t)(b * H + j)] = hn[j];
        Y[(size_t)((t * Bn + b) * H + j)] = hn[j];
      }
    }
}

const int64_t S = 6, Bn = 3, I = 5, H = 9;

} // namespace

TEST(Rnn, LstmMatchesFloat64) {
  auto X = rnd(S * Bn * I, 1, 1.0f);
  auto W = rnd(4 * H * I, 2), R = rnd(4 * H * H, 3), B = rnd(8 * H, 4),
       P = rnd(3 * H, 5);
  for (int usePeep = 0; usePeep < 2; ++usePeep)
    for (int64_t block : {0, 2}) {
      std::vector<float> Y(S * Bn * H), Yh(Bn * H), Yc(Bn * H);
      ASSERT_EQ(plumb_rt_lstm_f32(X.data(), W.data(), R.data(), B.data(),
                                  nullptr, nullptr, nullptr,
                                  usePeep ? P.data() : nullptr, S, Bn, I, H,
                                  PLUMB_RT_RNN_FORWARD, 0.0f, 0, Y.data(),
                                  Yh.data(), Yc.data(), block),
                0);
      std::vector<double> rY, rh, rc;
      lstmRef(X, W.data(), R.data(), B.data(), usePeep ? P.data() : nullptr, S,
              Bn, I, H, rY, rh, rc);
      for (size_t i = 0; i < Y.size(); ++i)
        ASSERT_NEAR(Y[i], rY[i], 1e-5) << i;
      for (size_t i = 0; i < Yh.size(); ++i) {
        ASSERT_EQ(Yh[i], Y[(S - 1) * Bn * H + i]);
        ASSERT_NEAR(Yc[i], rc[i], 1e-5);
      }
    }
}

TEST(Rnn, GruMatchesFloat64) {
  auto X = rnd(S * Bn * I, 11, 1.0f);
  auto W = rnd(3 * H * I, 12), R = rnd(3 * H * H, 13), B = rnd(6 * H, 14);
  for (int lbr = 0; lbr < 2; ++lbr)
    for (int useB = 0; useB < 2; ++useB) {
      std::vector<float> Y(S * Bn * H), Yh(Bn * H);
      ASSERT_EQ(plumb_rt_gru_f32(X.data(), W.data(), R.data(),
                                 useB ? B.data() : nullptr, nullptr, nullptr,
                                 S, Bn, I, H, PLUMB_RT_RNN_FORWARD, 0.0f, lbr,
                                 Y.data(), Yh.data(), 0),
                0);
      std::vector<double> rY, rh;
      gruRef(X, W.data(), R.data(), useB ? B.data() : nullptr, S, Bn, I, H,
             lbr, rY, rh);
      for (size_t i = 0; i < Y.size(); ++i)
        ASSERT_NEAR(Y[i], rY[i], 1e-5) << "lbr " << lbr << " i " << i;
      for (size_t i = 0; i < Yh.size(); ++i)
        ASSERT_EQ(Yh[i], Y[(S - 1) * Bn * H + i]);
    }
}

TEST(Rnn, DirectionsSeqLensAndThreadsBitwise) {
  auto X = rnd(S * Bn * I, 21, 1.0f);
  auto W = rnd(2 * 4 * H * I, 22), R = rnd(2 * 4 * H * H, 23),
       B = rnd(2 * 8 * H, 24), h0 = rnd(2 * Bn * H, 25), c0 = rnd(2 * Bn * H, 26);
  auto Wg = rnd(2 * 3 * H * I, 27), Rg = rnd(2 * 3 * H * H, 28),
       Bg = rnd(2 * 6 * H, 29);
  // Reversed input sequence.
  std::vector<float> Xr(X.size());
  for (int64_t t = 0; t < S; ++t)
    std::memcpy(&Xr[(S - 1 - t) * Bn * I], &X[t * Bn * I], Bn * I * 4);
  for (int isGru = 0; isGru < 2; ++isGru) {
    auto run = [&](const std::vector<float> &x, const float *w, const float *r,
                   const float *b, const float *ih, const float *ic, int dir,
                   const int32_t *lens, std::vector<float> &Y,
                   std::vector<float> &Yh) {
      const int64_t dirs = dir == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1;
      Y.assign(S * dirs * Bn * H, -1.0f);
      Yh.assign(dirs * Bn * H, -1.0f);
      if (isGru)
        return plumb_rt_gru_f32(x.data(), w, r, b, lens, ih, S, Bn, I, H, dir,
                                3.0f, 1, Y.data(), Yh.data(), 4);
      std::vector<float> Yc(dirs * Bn * H);
      return plumb_rt_lstm_f32(x.data(), w, r, b, lens, ih, ic, nullptr, S,
                               Bn, I, H, dir, 3.0f, 0, Y.data(), Yh.data(),
                               Yc.data(), 4);
    };
    const float *w0 = isGru ? Wg.data() : W.data();
    const float *r0 = isGru ? Rg.data() : R.data();
    const float *b0 = isGru ? Bg.data() : B.data();
    const int64_t G = isGru ? 3 * H : 4 * H;
    const float *w1 = w0 + G * I, *r1 = r0 + G * H, *b1 = b0 + 2 * G;
    std::vector<float> Yf, Yhf, Yr, Yhr, Yb, Yhb, Yx, Yhx;
    plumb_rt_set_threads(1);
    ASSERT_EQ(run(X, w0, r0, b0, h0.data(), c0.data(), PLUMB_RT_RNN_FORWARD,
                  nullptr, Yf, Yhf),
              0);
    // Reverse on X == forward on reversed X (with direction-1 weights).
    ASSERT_EQ(run(X, w1, r1, b1, h0.data() + Bn * H, c0.data() + Bn * H,
                  PLUMB_RT_RNN_REVERSE, nullptr, Yr, Yhr),
              0);
    ASSERT_EQ(run(Xr, w1, r1, b1, h0.data() + Bn * H, c0.data() + Bn * H,
                  PLUMB_RT_RNN_FORWARD, nullptr, Yx, Yhx),
              0);
    ASSERT_EQ(Yhr, Yhx);
    for (int64_t t = 0; t < S; ++t)
      ASSERT_EQ(0, std::memcmp(&Yr[t * Bn * H], &Yx[(S - 1 - t) * Bn * H],
                               Bn * H * 4));
    // Bidirectional == [forward, reverse].
    ASSERT_EQ(run(X, w0, r0, b0, h0.data(), c0.data(),
                  PLUMB_RT_RNN_BIDIRECTIONAL, nullptr, Yb, Yhb),
              0);
    for (int64_t t = 0; t < S; ++t) {
      ASSERT_EQ(0, std::memcmp(&Yb[(t * 2 + 0) * Bn * H], &Yf[t * Bn * H],
                               Bn * H * 4));
      ASSERT_EQ(0, std::memcmp(&Yb[(t * 2 + 1) * Bn * H], &Yr[t * Bn * H],
                               Bn * H * 4));
    }
    ASSERT_EQ(0, std::memcmp(Yhb.data(), Yhf.data(), Bn * H * 4));
    ASSERT_EQ(0, std::memcmp(Yhb.data() + Bn * H, Yhr.data(), Bn * H * 4));
    // Threads.
    for (int t : {2, 3, 4, 8}) {
      plumb_rt_set_threads(t);
      std::vector<float> Yt, Yht;
      ASSERT_EQ(run(X, w0, r0, b0, h0.data(), c0.data(),
                    PLUMB_RT_RNN_BIDIRECTIONAL, nullptr, Yt, Yht),
                0);
      ASSERT_EQ(Yt, Yb);
      ASSERT_EQ(Yht, Yhb);
    }
    plumb_rt_set_threads(1);
    // seq_lens: batch entry 1 has length 2, entry 2 length 0 -> rows beyond
    // are zero, Y_h is the state after the processed steps.
    int32_t lens[] = {(int32_t)S, 2, 0};
    std::vector<float> Yl, Yhl;
    ASSERT_EQ(run(X, w0, r0, b0, h0.data(), c0.data(),
                  PLUMB_RT_RNN_BIDIRECTIONAL, lens, Yl, Yhl),
              0);
    for (int64_t t = 0; t < S; ++t)
      for (int64_t d = 0; d < 2; ++d)
        for (int64_t j = 0; j < H; ++j) {
          // Entry 0 is unaffected by the others.
          ASSERT_EQ(Yl[((t * 2 + d) * Bn + 0) * H + j],
                    Yb[((t * 2 + d) * Bn + 0) * H + j]);
          if (t >= 2)
            ASSERT_EQ(Yl[((t * 2 + d) * Bn + 1) * H + j], 0.0f);
          ASSERT_EQ(Yl[((t * 2 + d) * Bn + 2) * H + j], 0.0f);
        }
    for (int64_t j = 0; j < H; ++j) {
      ASSERT_EQ(Yhl[(0 * Bn + 2) * H + j], h0[(0 * Bn + 2) * H + j]);
      ASSERT_EQ(Yhl[(1 * Bn + 2) * H + j], h0[(1 * Bn + 2) * H + j]);
      // Forward entry 1 after 2 steps equals Y at t = 1; reverse entry 1 ends
      // at t = 0.
      ASSERT_EQ(Yhl[(0 * Bn + 1) * H + j], Yl[((1 * 2 + 0) * Bn + 1) * H + j]);
      ASSERT_EQ(Yhl[(1 * Bn + 1) * H + j], Yl[((0 * 2 + 1) * Bn + 1) * H + j]);
    }
  }
}

// DynamicQuantizeLSTM (plumb_rt_lstm_dq_f32 and its packed form).

#include "plumb/runtime/gemm.h"
#include "plumb/runtime/math_kernels.h"

namespace {

std::vector<int32_t> rndInt(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto &x : v)
    x = d(g);
  return v;
}

/// DynamicQuantizeLinear as rnn.h documents it (the importer's sequence).
void dqRef(const float *x, int64_t n, std::vector<int32_t> &q, float &s,
           int32_t &z) {
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  s = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float zf =
      std::nearbyint(std::min(std::max(0.0f - lo / s, 0.0f), 255.0f));
  z = (int32_t)zf;
  q.resize((size_t)n);
  for (int64_t i = 0; i < n; ++i)
    q[(size_t)i] = (int32_t)std::nearbyint(
                       std::min(std::max(x[i] / s, 0.0f - zf), 255.0f - zf)) +
                   z;
}

struct ResetIsa {
  ~ResetIsa() {
    plumb_rt_set_threads(1);
    plumb_rt_gemm_set_isa(0);
  }
};

} // namespace

// One step from a zero state: the quantized H is all zeros, so the gate
// pre-activations are exactly float(sum (q - qz)(w - wz[g])) * (qs * ws[g]),
// then + Wb, + Rb; the cell as rnn.h writes it. Every output bit is checked
// on every ISA and thread count (G = 84 is not a multiple of the 16-column
// blocks, K = 37 is odd).
TEST(Rnn, LstmDqOneStepMatchesDocumentedFormula) {
  ResetIsa reset;
  const int64_t Bn = 2, I = 37, H = 21, G = 4 * H;
  auto X = rnd(Bn * I, 41, 1.5f);
  auto W = rndInt(I * G, 42, -128, 127), R = rndInt(H * G, 43, -128, 127);
  auto wz = rndInt(G, 44, -9, 9);
  auto ws = rnd(G, 45, 0.02f), rs = rnd(1, 46, 0.02f), B = rnd(2 * G, 47);
  std::vector<int32_t> q;
  float xs;
  int32_t xz;
  dqRef(X.data(), Bn * I, q, xs, xz);
  std::vector<float> wantH((size_t)(Bn * H)), wantC((size_t)(Bn * H));
  for (int64_t b = 0; b < Bn; ++b) {
    std::vector<float> a((size_t)G);
    for (int64_t g = 0; g < G; ++g) {
      int32_t acc = 0;
      for (int64_t k = 0; k < I; ++k)
        acc += (q[(size_t)(b * I + k)] - xz) * (W[(size_t)(k * G + g)] - wz[(size_t)g]);
      const float xw = (float)acc * (xs * ws[(size_t)g]);
      const float hr = (float)0 * (1.0f * rs[0]);
      float v = xw + hr;
      v = v + B[(size_t)g];
      v = v + B[(size_t)(G + g)];
      a[(size_t)g] = v;
    }
    plumb_rt_sigmoid_f32(a.data(), a.data(), 3 * H);
    plumb_rt_tanh_f32(a.data() + 3 * H, a.data() + 3 * H, H);
    std::vector<float> cn((size_t)H), tc((size_t)H);
    for (int64_t j = 0; j < H; ++j)
      cn[(size_t)j] = (a[(size_t)(2 * H + j)] * 0.0f) +
                      (a[(size_t)j] * a[(size_t)(3 * H + j)]);
    plumb_rt_tanh_f32(cn.data(), tc.data(), H);
    for (int64_t j = 0; j < H; ++j) {
      wantC[(size_t)(b * H + j)] = cn[(size_t)j];
      wantH[(size_t)(b * H + j)] = a[(size_t)(H + j)] * tc[(size_t)j];
    }
  }
  for (int isa : {3, 2, 1})
    for (int t : {1, 2, 3}) {
      plumb_rt_gemm_set_isa(isa);
      plumb_rt_set_threads(t);
      std::vector<float> Y((size_t)(Bn * H)), Yh((size_t)(Bn * H)),
          Yc((size_t)(Bn * H));
      ASSERT_EQ(plumb_rt_lstm_dq_f32(X.data(), W.data(), ws.data(), wz.data(),
                                     1, R.data(), rs.data(), nullptr, 0,
                                     B.data(), nullptr, nullptr, nullptr, 1,
                                     Bn, I, H, PLUMB_RT_RNN_FORWARD, 0.0f, 0,
                                     Y.data(), Yh.data(), Yc.data()),
                0);
      ASSERT_EQ(0, std::memcmp(Yh.data(), wantH.data(), wantH.size() * 4))
          << "isa " << isa << " threads " << t;
      ASSERT_EQ(0, std::memcmp(Yc.data(), wantC.data(), wantC.size() * 4));
      ASSERT_EQ(0, std::memcmp(Y.data(), wantH.data(), wantH.size() * 4));
    }
}

// Many steps, both directions, per-tensor and per-column scales, with and
// without zero points: the packed form and the one-call form give the same
// bits on every ISA and thread count; a weight whose difference from its
// zero point is not 8-bit is refused.
TEST(Rnn, LstmDqPackedSchedulesBitwise) {
  ResetIsa reset;
  const int64_t S = 9, Bn = 3, I = 45, H = 33, G = 4 * H;
  auto X = rnd(S * Bn * I, 51, 2.0f);
  auto W = rndInt(2 * I * G, 52, 0, 255), R = rndInt(2 * H * G, 53, 0, 255);
  // Without zero points the values are centred (-128..127: the 8-bit form);
  // with them, W - wz spans about -150..155 (the 16-bit form).
  auto wz = rndInt(2 * G, 54, 100, 150), rz = rndInt(2, 55, 120, 130);
  auto ws = rnd(2 * G, 56, 0.01f), rs = rnd(2, 57, 0.01f);
  auto B = rnd(2 * 2 * G, 58), h0 = rnd(2 * Bn * H, 59), c0 = rnd(2 * Bn * H, 60);
  for (int perCol = 0; perCol < 2; ++perCol)
    for (int zp = 0; zp < 2; ++zp) {
      std::vector<int32_t> Wv = W, Rv = R;
      if (!zp)
        for (auto *v : {&Wv, &Rv})
          for (auto &x : *v)
            x -= 128;
      const int32_t *wzp = zp ? wz.data() : nullptr;
      const int32_t *rzp = zp ? rz.data() : nullptr;
      std::vector<float> Y0, Yh0, Yc0;
      for (int isa : {1, 2, 3})
        for (int t : {1, 2, 3})
          for (int packedForm = 0; packedForm < 3; ++packedForm) {
            plumb_rt_gemm_set_isa(isa);
            plumb_rt_set_threads(t);
            std::vector<float> Y((size_t)(S * 2 * Bn * H)),
                Yh((size_t)(2 * Bn * H)), Yc((size_t)(2 * Bn * H));
            int rc;
            if (packedForm) {
              const int64_t bytes = plumb_rt_lstm_dq_packed_size(
                  I, H, PLUMB_RT_RNN_BIDIRECTIONAL);
              ASSERT_GT(bytes, 0);
              std::vector<int16_t> pk((size_t)bytes / 2);
              // Form 2 packs for the widest ISA (the 8-bit form where the
              // CPU has VNNI and the weights fit) and runs on this one.
              if (packedForm == 2)
                plumb_rt_gemm_set_isa(3);
              ASSERT_EQ(plumb_rt_lstm_dq_pack(Wv.data(), wzp, perCol,
                                              Rv.data(), rzp, 0, I, H,
                                              PLUMB_RT_RNN_BIDIRECTIONAL,
                                              pk.data()),
                        0);
              plumb_rt_gemm_set_isa(isa);
              rc = plumb_rt_lstm_dq_packed_f32(
                  X.data(), pk.data(), ws.data(), perCol, rs.data(), 0,
                  B.data(), h0.data(), c0.data(), nullptr, S, Bn, I, H,
                  PLUMB_RT_RNN_BIDIRECTIONAL, 0.0f, 0, Y.data(), Yh.data(),
                  Yc.data());
            } else {
              rc = plumb_rt_lstm_dq_f32(
                  X.data(), Wv.data(), ws.data(), wzp, perCol, Rv.data(),
                  rs.data(), rzp, 0, B.data(), h0.data(), c0.data(), nullptr,
                  S, Bn, I, H, PLUMB_RT_RNN_BIDIRECTIONAL, 0.0f, 0, Y.data(),
                  Yh.data(), Yc.data());
            }
            ASSERT_EQ(rc, 0);
            if (Y0.empty()) {
              Y0 = Y, Yh0 = Yh, Yc0 = Yc;
              continue;
            }
            ASSERT_EQ(0, std::memcmp(Y.data(), Y0.data(), Y.size() * 4))
                << "perCol " << perCol << " zp " << zp << " isa " << isa
                << " threads " << t << " packed " << packedForm;
            ASSERT_EQ(0, std::memcmp(Yh.data(), Yh0.data(), Yh.size() * 4));
            ASSERT_EQ(0, std::memcmp(Yc.data(), Yc0.data(), Yc.size() * 4));
          }
      // The outputs moved away from the initial state (the test is live).
      ASSERT_NE(0, std::memcmp(Yh0.data(), h0.data(), Yh0.size() * 4));
    }
  // 200 - (-100) is not an 8-bit difference.
  std::vector<int32_t> Wbad(I * G, 200), zbad(1, -100);
  std::vector<int16_t> pk((size_t)plumb_rt_lstm_dq_packed_size(I, H, 0) / 2);
  EXPECT_EQ(plumb_rt_lstm_dq_pack(Wbad.data(), zbad.data(), 0, R.data(),
                                  nullptr, 0, I, H, PLUMB_RT_RNN_FORWARD,
                                  pk.data()),
            PLUMB_RT_EINVAL);
  EXPECT_EQ(plumb_rt_lstm_dq_packed_size(40000, H, 0), -1);
}

namespace {

/// float64 RNN, one direction, forward, full lengths; f is the activation.
template <typename Fn>
void rnnRef(const std::vector<float> &X, const float *W, const float *R,
            const float *B, const float *h0, int64_t S_, int64_t Bn_,
            int64_t I_, int64_t H_, Fn f, std::vector<double> &Y) {
  std::vector<double> h((size_t)(Bn_ * H_), 0.0);
  if (h0)
    for (size_t i = 0; i < h.size(); ++i)
      h[i] = h0[i];
  Y.assign((size_t)(S_ * Bn_ * H_), 0.0);
  for (int64_t t = 0; t < S_; ++t) {
    std::vector<double> hn(h.size());
    for (int64_t b = 0; b < Bn_; ++b)
      for (int64_t j = 0; j < H_; ++j) {
        double a = 0;
        for (int64_t i = 0; i < I_; ++i)
          a += (double)X[(size_t)((t * Bn_ + b) * I_ + i)] * W[j * I_ + i];
        for (int64_t k = 0; k < H_; ++k)
          a += h[(size_t)(b * H_ + k)] * R[j * H_ + k];
        if (B)
          a += (double)B[j] + B[H_ + j];
        hn[(size_t)(b * H_ + j)] = f(a);
      }
    h = hn;
    for (size_t i = 0; i < h.size(); ++i)
      Y[(size_t)(t * Bn_ * H_) + i] = h[i];
  }
}

} // namespace

TEST(Rnn, RnnMatchesFloat64) {
  auto X = rnd(S * Bn * I, 31, 1.0f);
  auto W = rnd(H * I, 32), R = rnd(H * H, 33), B = rnd(2 * H, 34),
       h0 = rnd(Bn * H, 35);
  struct Act {
    int32_t code;
    float alpha;
    double (*f)(double);
  };
  const Act acts[] = {
      {PLUMB_RT_TANH, 0.0f, [](double a) { return std::tanh(a); }},
      {PLUMB_RT_SIGMOID, 0.0f, [](double a) { return sig(a); }},
      {PLUMB_RT_RELU, 0.0f, [](double a) { return a > 0 ? a : 0.0; }},
      {PLUMB_RT_LEAKY_RELU, 0.125f,
       [](double a) { return a >= 0 ? a : 0.125 * a; }}};
  for (const Act &act : acts)
    for (int useB = 0; useB < 2; ++useB)
      for (int64_t block : {0, 2}) {
        std::vector<float> Y(S * Bn * H), Yh(Bn * H);
        ASSERT_EQ(plumb_rt_rnn_f32(X.data(), W.data(), R.data(),
                                   useB ? B.data() : nullptr, nullptr,
                                   h0.data(), S, Bn, I, H,
                                   PLUMB_RT_RNN_FORWARD, 0.0f, act.code,
                                   act.alpha, 0.0f, PLUMB_RT_TANH, 0.0f, 0.0f,
                                   Y.data(), Yh.data(), block),
                  0);
        std::vector<double> rY;
        rnnRef(X, W.data(), R.data(), useB ? B.data() : nullptr, h0.data(), S,
               Bn, I, H, act.f, rY);
        for (size_t i = 0; i < Y.size(); ++i)
          ASSERT_NEAR(Y[i], rY[i], 1e-5) << "act " << act.code << " i " << i;
        for (size_t i = 0; i < Yh.size(); ++i)
          ASSERT_EQ(Yh[i], Y[(S - 1) * Bn * H + i]);
      }
  // Clip bounds the pre-activation: relu(clip(a)) <= clip.
  std::vector<float> Y(S * Bn * H), Yh(Bn * H);
  ASSERT_EQ(plumb_rt_rnn_f32(X.data(), W.data(), R.data(), B.data(), nullptr,
                             nullptr, S, Bn, I, H, PLUMB_RT_RNN_FORWARD, 0.25f,
                             PLUMB_RT_RELU, 0.0f, 0.0f, PLUMB_RT_RELU, 0.0f,
                             0.0f, Y.data(), Yh.data(), 0),
            0);
  float hi = 0.0f;
  for (float v : Y)
    hi = v > hi ? v : hi;
  EXPECT_EQ(hi, 0.25f);
  // An unknown activation code is refused.
  EXPECT_EQ(plumb_rt_rnn_f32(X.data(), W.data(), R.data(), B.data(), nullptr,
                             nullptr, S, Bn, I, H, PLUMB_RT_RNN_FORWARD, 0.0f,
                             9999, 0.0f, 0.0f, PLUMB_RT_TANH, 0.0f, 0.0f,
                             Y.data(), Yh.data(), 0),
            PLUMB_RT_EINVAL);
}

TEST(Rnn, RnnDirectionsSeqLensAndThreadsBitwise) {
  // H = 150: two gate blocks (of 128 units) per batch entry, a partial
  // last one among them.
  const int64_t Hs = 150;
  auto X = rnd(S * Bn * I, 41, 1.0f);
  auto W = rnd(2 * Hs * I, 42), R = rnd(2 * Hs * Hs, 43, 0.2f),
       B = rnd(2 * 2 * Hs, 44), h0 = rnd(2 * Bn * Hs, 45);
  std::vector<float> Xr(X.size());
  for (int64_t t = 0; t < S; ++t)
    std::memcpy(&Xr[(S - 1 - t) * Bn * I], &X[t * Bn * I], Bn * I * 4);
  auto run = [&](const std::vector<float> &x, const float *w, const float *r,
                 const float *b, const float *ih, int dir, int32_t a0,
                 int32_t a1, const int32_t *lens, std::vector<float> &Y,
                 std::vector<float> &Yh) {
    const int64_t dirs = dir == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1;
    Y.assign(S * dirs * Bn * Hs, -1.0f);
    Yh.assign(dirs * Bn * Hs, -1.0f);
    return plumb_rt_rnn_f32(x.data(), w, r, b, lens, ih, S, Bn, I, Hs, dir,
                            0.0f, a0, 0.0f, 0.0f, a1, 0.0f, 0.0f, Y.data(),
                            Yh.data(), 8);
  };
  const float *w1 = W.data() + Hs * I, *r1 = R.data() + Hs * Hs,
              *b1 = B.data() + 2 * Hs, *h1 = h0.data() + Bn * Hs;
  plumb_rt_set_threads(1);
  std::vector<float> Yf, Yhf, Yr, Yhr, Yx, Yhx, Yb, Yhb;
  ASSERT_EQ(run(X, W.data(), R.data(), B.data(), h0.data(),
                PLUMB_RT_RNN_FORWARD, PLUMB_RT_RELU, PLUMB_RT_TANH, nullptr, Yf,
                Yhf),
            0);
  // Reverse takes direction 0's activation slot (act0).
  ASSERT_EQ(run(X, w1, r1, b1, h1, PLUMB_RT_RNN_REVERSE, PLUMB_RT_TANH,
                PLUMB_RT_RELU, nullptr, Yr, Yhr),
            0);
  ASSERT_EQ(run(Xr, w1, r1, b1, h1, PLUMB_RT_RNN_FORWARD, PLUMB_RT_TANH,
                PLUMB_RT_RELU, nullptr, Yx, Yhx),
            0);
  ASSERT_EQ(Yhr, Yhx);
  for (int64_t t = 0; t < S; ++t)
    ASSERT_EQ(0, std::memcmp(&Yr[t * Bn * Hs], &Yx[(S - 1 - t) * Bn * Hs],
                             Bn * Hs * 4));
  // Bidirectional (relu forward, tanh reverse) == the two directions.
  ASSERT_EQ(run(X, W.data(), R.data(), B.data(), h0.data(),
                PLUMB_RT_RNN_BIDIRECTIONAL, PLUMB_RT_RELU, PLUMB_RT_TANH,
                nullptr, Yb, Yhb),
            0);
  for (int64_t t = 0; t < S; ++t) {
    ASSERT_EQ(0, std::memcmp(&Yb[(t * 2 + 0) * Bn * Hs], &Yf[t * Bn * Hs],
                             Bn * Hs * 4));
    ASSERT_EQ(0, std::memcmp(&Yb[(t * 2 + 1) * Bn * Hs], &Yr[t * Bn * Hs],
                             Bn * Hs * 4));
  }
  ASSERT_EQ(0, std::memcmp(Yhb.data(), Yhf.data(), Bn * Hs * 4));
  ASSERT_EQ(0, std::memcmp(Yhb.data() + Bn * Hs, Yhr.data(), Bn * Hs * 4));
  for (int t : {2, 3, 4, 8}) {
    plumb_rt_set_threads(t);
    std::vector<float> Yt, Yht;
    ASSERT_EQ(run(X, W.data(), R.data(), B.data(), h0.data(),
                  PLUMB_RT_RNN_BIDIRECTIONAL, PLUMB_RT_RELU, PLUMB_RT_TANH,
                  nullptr, Yt, Yht),
              0);
    ASSERT_EQ(Yt, Yb) << t << " threads";
    ASSERT_EQ(Yht, Yhb) << t << " threads";
  }
  plumb_rt_set_threads(1);
  // seq_lens {S, 2, 0}: entry 0 unchanged, later rows zero, Y_h the state
  // after the processed steps (the initial state for length 0).
  int32_t lens[] = {(int32_t)S, 2, 0};
  std::vector<float> Yl, Yhl;
  ASSERT_EQ(run(X, W.data(), R.data(), B.data(), h0.data(),
                PLUMB_RT_RNN_BIDIRECTIONAL, PLUMB_RT_RELU, PLUMB_RT_TANH, lens,
                Yl, Yhl),
            0);
  for (int64_t t = 0; t < S; ++t)
    for (int64_t d = 0; d < 2; ++d)
      for (int64_t j = 0; j < Hs; ++j) {
        ASSERT_EQ(Yl[((t * 2 + d) * Bn + 0) * Hs + j],
                  Yb[((t * 2 + d) * Bn + 0) * Hs + j]);
        if (t >= 2)
          ASSERT_EQ(Yl[((t * 2 + d) * Bn + 1) * Hs + j], 0.0f);
        ASSERT_EQ(Yl[((t * 2 + d) * Bn + 2) * Hs + j], 0.0f);
      }
  for (int64_t j = 0; j < Hs; ++j) {
    ASSERT_EQ(Yhl[(0 * Bn + 2) * Hs + j], h0[(0 * Bn + 2) * Hs + j]);
    ASSERT_EQ(Yhl[(1 * Bn + 2) * Hs + j], h0[(1 * Bn + 2) * Hs + j]);
    ASSERT_EQ(Yhl[(0 * Bn + 1) * Hs + j],
              Yl[((1 * 2 + 0) * Bn + 1) * Hs + j]);
    ASSERT_EQ(Yhl[(1 * Bn + 1) * Hs + j],
              Yl[((0 * 2 + 1) * Bn + 1) * Hs + j]);
  }
}
