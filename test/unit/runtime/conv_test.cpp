//===- test/unit/runtime/conv_test.cpp - Conv determinism tests -*- C++ -*-===//
//
// Part of Plumb. Conv / ConvTranspose fast paths equal their scalar
// references bit for bit (shapes, groups, strides, dilations, pads, trees,
// threads, ISAs), and agree with naive float64 convolutions (a gather
// formulation for Conv, the classic scatter formulation for ConvTranspose).
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/conv.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/threads.h"

#include <gtest/gtest.h>

#include <math.h>
#include <string.h>

#include <atomic>
#include <limits>
#include <random>
#include <vector>

namespace {

uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

std::vector<float> randomVec(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(rng);
  return v;
}

struct Reset {
  ~Reset() {
    plumb_rt_set_threads(1);
    plumb_rt_gemm_set_isa(0);
  }
};

plumb_conv2d_params convParams(int64_t N, int64_t Cin, int64_t H, int64_t W,
                               int64_t Cout, int64_t KH, int64_t KW,
                               int64_t group, int64_t sh, int64_t sw,
                               int64_t dh, int64_t dw, int64_t pt, int64_t pl,
                               int64_t pb, int64_t pr) {
  plumb_conv2d_params p = {N,  Cin, H,  W,  Cout, KH, KW, 0,  0,
                           group, sh, sw, dh, dw,   pt, pl, pb, pr};
  p.OH = plumb_rt_conv_out_dim(H, KH, sh, dh, pt, pb);
  p.OW = plumb_rt_conv_out_dim(W, KW, sw, dw, pl, pr);
  return p;
}

/// Naive float64 conv (gather).
std::vector<double> convDouble(const plumb_conv2d_params &p,
                               const std::vector<float> &X,
                               const std::vector<float> &Wt,
                               const float *bias) {
  const int64_t Cg = p.Cin / p.group, Mg = p.Cout / p.group;
  std::vector<double> Y(p.N * p.Cout * p.OH * p.OW, 0.0);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t co = 0; co < p.Cout; ++co)
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          double s = bias ? bias[co] : 0.0;
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t kh = 0; kh < p.KH; ++kh)
              for (int64_t kw = 0; kw < p.KW; ++kw) {
                int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
                int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
                if (ih < 0 || ih >= p.H || iw < 0 || iw >= p.W)
                  continue;
                int64_t c = (co / Mg) * Cg + ci;
                s += static_cast<double>(
                         X[((n * p.Cin + c) * p.H + ih) * p.W + iw]) *
                     Wt[((co * Cg + ci) * p.KH + kh) * p.KW + kw];
              }
          Y[((n * p.Cout + co) * p.OH + oh) * p.OW + ow] = s;
        }
  return Y;
}

/// Naive float64 ConvTranspose (scatter: y[ih*s - pad + k*d] += x * w).
std::vector<double> convTransposeDouble(const plumb_conv2d_params &p,
                                        const std::vector<float> &X,
                                        const std::vector<float> &Wt,
                                        const float *bias) {
  const int64_t Cg = p.Cin / p.group, Mg = p.Cout / p.group;
  std::vector<double> Y(p.N * p.Cout * p.OH * p.OW, 0.0);
  for (int64_t n = 0; n < p.N; ++n) {
    for (int64_t co = 0; co < p.Cout; ++co)
      for (int64_t e = 0; e < p.OH * p.OW; ++e)
        Y[(n * p.Cout + co) * p.OH * p.OW + e] = bias ? bias[co] : 0.0;
    for (int64_t c = 0; c < p.Cin; ++c) {
      const int64_t g = c / Cg;
      for (int64_t ih = 0; ih < p.H; ++ih)
        for (int64_t iw = 0; iw < p.W; ++iw)
          for (int64_t m = 0; m < Mg; ++m)
            for (int64_t kh = 0; kh < p.KH; ++kh)
              for (int64_t kw = 0; kw < p.KW; ++kw) {
                int64_t oh = ih * p.stride_h - p.pad_top + kh * p.dilation_h;
                int64_t ow = iw * p.stride_w - p.pad_left + kw * p.dilation_w;
                if (oh < 0 || oh >= p.OH || ow < 0 || ow >= p.OW)
                  continue;
                Y[((n * p.Cout + g * Mg + m) * p.OH + oh) * p.OW + ow] +=
                    static_cast<double>(
                        X[((n * p.Cin + c) * p.H + ih) * p.W + iw]) *
                    Wt[((c * Mg + m) * p.KH + kh) * p.KW + kw];
              }
    }
  }
  return Y;
}

struct Shape {
  int64_t N, Cin, H, W, Cout, KH, KW, group, sh, sw, dh, dw, pt, pl, pb, pr;
};

const Shape kShapes[] = {
    {1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {2, 4, 8, 8, 6, 3, 3, 2, 2, 2, 1, 1, 1, 0, 1, 2},
    {1, 6, 7, 10, 6, 3, 2, 6, 1, 2, 2, 1, 2, 1, 0, 1}, // depthwise, dilated
    {1, 8, 6, 6, 16, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}, // 1x1 direct
    {1, 5, 1, 17, 7, 1, 4, 1, 1, 3, 1, 2, 0, 3, 0, 1}, // 1-D
    {1, 16, 12, 12, 20, 5, 5, 4, 1, 1, 1, 1, 2, 2, 2, 2},
    {1, 64, 10, 10, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // K = 576
    {2, 8, 9, 37, 8, 3, 3, 8, 1, 1, 1, 1, 1, 1, 1, 1},    // depthwise, s1
    {1, 4, 6, 50, 4, 2, 3, 4, 1, 3, 1, 2, 0, 2, 1, 1},    // depthwise, sw 3
    {1, 3, 5, 40, 3, 5, 5, 3, 2, 2, 1, 1, 2, 2, 2, 2},    // depthwise 5x5 s2
    {1, 12, 70, 1, 14, 5, 1, 1, 1, 1, 1, 1, 1, 0, 2, 0},  // OW = 1 (1-D on H)
    {2, 6, 41, 3, 9, 3, 3, 1, 2, 3, 2, 1, 2, 1, 1, 0},    // OW = 1, strided
};

TEST(Conv, ThreadedLayerMatchesReferenceBitwise) {
  // A ResNet-like 3x3 layer, 29M multiply-adds: the GEMM splits over threads.
  Reset reset;
  std::mt19937 rng(31);
  auto p = convParams(1, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
  auto X = randomVec(p.N * p.Cin * p.H * p.W, rng);
  auto Wt = randomVec(p.Cout * p.Cin * 9, rng), bias = randomVec(p.Cout, rng);
  const size_t outN = p.Cout * p.OH * p.OW;
  for (int64_t block : {0, 64}) {
    std::vector<float> ref(outN), y(outN);
    plumb_rt_conv2d_reference(&p, X.data(), Wt.data(), bias.data(), ref.data(),
                              block);
    for (int t : {1, 2, 3, 8}) {
      plumb_rt_set_threads(t);
      plumb_rt_conv2d(&p, X.data(), Wt.data(), bias.data(), y.data(), block);
      for (size_t i = 0; i < outN; ++i)
        ASSERT_EQ(bits(ref[i]), bits(y[i])) << i << " t=" << t;
    }
  }
}

TEST(Conv, FastPathMatchesReferenceBitwiseAndFloat64) {
  Reset reset;
  std::mt19937 rng(21);
  double worst = 0;
  for (const Shape &s : kShapes) {
    auto p = convParams(s.N, s.Cin, s.H, s.W, s.Cout, s.KH, s.KW, s.group,
                        s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, s.pb, s.pr);
    auto X = randomVec(p.N * p.Cin * p.H * p.W, rng);
    auto Wt = randomVec(p.Cout * (p.Cin / p.group) * p.KH * p.KW, rng);
    auto bias = randomVec(p.Cout, rng);
    const size_t outN = p.N * p.Cout * p.OH * p.OW;
    const int64_t K = (p.Cin / p.group) * p.KH * p.KW;
    for (int withBias = 0; withBias < 2; ++withBias) {
      const float *b = withBias ? bias.data() : nullptr;
      auto exact = convDouble(p, X, Wt, b);
      for (int64_t block : {0, 1, 7, 64, 256}) {
        std::vector<float> ref(outN), y(outN);
        ASSERT_EQ(plumb_rt_conv2d_reference(&p, X.data(), Wt.data(), b,
                                            ref.data(), block),
                  0);
        for (size_t i = 0; i < outN; ++i) {
          double err = fabs(ref[i] - exact[i]);
          worst = std::max(worst, err);
          // |x|, |w| <= 1: loose forward-error bound growing with K.
          ASSERT_LT(err, 1e-5 * (1.0 + K / 64.0)) << i;
        }
        for (int isa : {1, 0})
          for (int t : {1, 2, 3, 4, 8}) {
            plumb_rt_gemm_set_isa(isa);
            plumb_rt_set_threads(t);
            std::fill(y.begin(), y.end(), 7.0f);
            ASSERT_EQ(plumb_rt_conv2d(&p, X.data(), Wt.data(), b, y.data(),
                                      block),
                      0);
            for (size_t i = 0; i < outN; ++i)
              ASSERT_EQ(bits(ref[i]), bits(y[i]))
                  << "i=" << i << " block=" << block << " t=" << t
                  << " isa=" << isa << " Cin=" << s.Cin;
          }
      }
    }
  }
  printf("conv worst abs error vs float64: %.3g\n", worst);
}

/// Epilogue test context: checks every call against the reference output
/// (the value must be final when passed), counts each element, then applies
/// relu in place.
struct EpRecorder {
  const float *ref = nullptr;
  float *Y = nullptr;
  int64_t Cout = 0, P = 0, N = 0;
  std::vector<std::atomic<int>> seen;
  std::atomic<int> badRange{0}, badValue{0}, calls{0};
  EpRecorder(const float *r, float *y, int64_t n, int64_t cout, int64_t p)
      : ref(r), Y(y), Cout(cout), P(p), N(n),
        seen(static_cast<size_t>(n * cout * p)) {
    for (auto &a : seen)
      a.store(0);
  }
  static void fn(void *vctx, float *y, int64_t n, int64_t co, int64_t begin,
                 int64_t count) {
    EpRecorder &c = *static_cast<EpRecorder *>(vctx);
    c.calls.fetch_add(1);
    if (n < 0 || n >= c.N || co < 0 || co >= c.Cout || begin < 0 ||
        count < 1 || begin + count > c.P ||
        y != c.Y + (n * c.Cout + co) * c.P + begin) {
      c.badRange.fetch_add(1);
      return;
    }
    for (int64_t e = 0; e < count; ++e) {
      const int64_t i = (n * c.Cout + co) * c.P + begin + e;
      c.seen[static_cast<size_t>(i)].fetch_add(1);
      if (bits(y[e]) != bits(c.ref[i]))
        c.badValue.fetch_add(1);
      if (y[e] < 0.0f)
        y[e] = 0.0f; // relu; NaN stays (canonical)
    }
  }
};

float reluRef(float v) { return v < 0.0f ? 0.0f : v; }

TEST(ConvEpilogue, EveryElementOnceFinalValuesThreaded) {
  Reset reset;
  std::mt19937 rng(77);
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.push_back({1, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  shapes.push_back({2, 32, 20, 20, 32, 3, 3, 32, 2, 2, 1, 1, 1, 1, 1, 1});
  for (const Shape &s : shapes) {
    auto p = convParams(s.N, s.Cin, s.H, s.W, s.Cout, s.KH, s.KW, s.group,
                        s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, s.pb, s.pr);
    auto X = randomVec(p.N * p.Cin * p.H * p.W, rng);
    auto Wt = randomVec(p.Cout * (p.Cin / p.group) * p.KH * p.KW, rng);
    auto bias = randomVec(p.Cout, rng);
    const int64_t P = p.OH * p.OW;
    const size_t outN = p.N * p.Cout * P;
    for (int withBias = 0; withBias < 2; ++withBias)
      for (int64_t block : {0, 7, 256}) {
        const float *b = withBias ? bias.data() : nullptr;
        std::vector<float> ref(outN);
        ASSERT_EQ(plumb_rt_conv2d_reference(&p, X.data(), Wt.data(), b,
                                            ref.data(), block),
                  0);
        for (int isa : {1, 0})
          for (int t : {1, 2, 3, 8}) {
            plumb_rt_gemm_set_isa(isa);
            plumb_rt_set_threads(t);
            std::vector<float> y(outN, 7.0f);
            EpRecorder rec(ref.data(), y.data(), p.N, p.Cout, P);
            const plumb_rt_epilogue ep = {EpRecorder::fn, &rec};
            ASSERT_EQ(plumb_rt_conv2d_ep(&p, X.data(), Wt.data(), b, y.data(),
                                         block, &ep),
                      0);
            EXPECT_EQ(rec.badRange.load(), 0);
            EXPECT_EQ(rec.badValue.load(), 0)
                << "block=" << block << " t=" << t << " isa=" << isa;
            EXPECT_GT(rec.calls.load(), 0);
            for (size_t i = 0; i < outN; ++i) {
              ASSERT_EQ(rec.seen[i].load(), 1) << "i=" << i << " t=" << t;
              ASSERT_EQ(bits(reluRef(ref[i])), bits(y[i])) << i;
            }
          }
      }
  }
}

TEST(ConvEpilogue, NullEpilogueAndConv1d) {
  Reset reset;
  std::mt19937 rng(5);
  auto p = convParams(1, 8, 9, 13, 12, 3, 3, 1, 1, 2, 1, 1, 1, 1, 1, 1);
  auto X = randomVec(p.N * p.Cin * p.H * p.W, rng);
  auto Wt = randomVec(p.Cout * p.Cin * 9, rng), bias = randomVec(p.Cout, rng);
  const size_t outN = p.Cout * p.OH * p.OW;
  std::vector<float> ref(outN), y(outN), y2(outN);
  plumb_rt_conv2d_reference(&p, X.data(), Wt.data(), bias.data(), ref.data(),
                            0);
  const plumb_rt_epilogue none = {nullptr, nullptr};
  ASSERT_EQ(plumb_rt_conv2d_ep(&p, X.data(), Wt.data(), bias.data(), y.data(),
                               0, nullptr),
            0);
  ASSERT_EQ(plumb_rt_conv2d_ep(&p, X.data(), Wt.data(), bias.data(),
                               y2.data(), 0, &none),
            0);
  for (size_t i = 0; i < outN; ++i) {
    ASSERT_EQ(bits(ref[i]), bits(y[i]));
    ASSERT_EQ(bits(ref[i]), bits(y2[i]));
  }
  // Rejected parameters: -1 and no epilogue call.
  auto bad = p;
  bad.OH += 1;
  EpRecorder none2(ref.data(), y.data(), 1, p.Cout, p.OH * p.OW);
  const plumb_rt_epilogue rec0 = {EpRecorder::fn, &none2};
  EXPECT_EQ(plumb_rt_conv2d_ep(&bad, X.data(), Wt.data(), nullptr, y.data(), 0,
                               &rec0),
            -1);
  EXPECT_EQ(none2.calls.load(), 0);

  // Conv1d: N = 2, groups of 2, stride 2, dilation 2, block 3, 2 threads.
  const int64_t N = 2, Cin = 4, L = 41, Cout = 6, Kk = 5;
  auto X1 = randomVec(N * Cin * L, rng), W1 = randomVec(Cout * 2 * Kk, rng),
       b1 = randomVec(Cout, rng);
  const int64_t OL = plumb_rt_conv_out_dim(L, Kk, 2, 2, 3, 1);
  std::vector<float> r1(N * Cout * OL), o1(N * Cout * OL);
  auto p1 = convParams(N, Cin, 1, L, Cout, 1, Kk, 2, 1, 2, 1, 2, 0, 3, 0, 1);
  plumb_rt_conv2d_reference(&p1, X1.data(), W1.data(), b1.data(), r1.data(),
                            3);
  for (int t : {1, 2}) {
    plumb_rt_set_threads(t);
    EpRecorder rec(r1.data(), o1.data(), N, Cout, OL);
    const plumb_rt_epilogue ep = {EpRecorder::fn, &rec};
    ASSERT_EQ(plumb_rt_conv1d_ep(N, Cin, L, Cout, Kk, 2, 2, 2, 3, 1, X1.data(),
                                 W1.data(), b1.data(), o1.data(), 3, &ep),
              0);
    EXPECT_EQ(rec.badRange.load(), 0);
    EXPECT_EQ(rec.badValue.load(), 0);
    for (size_t i = 0; i < r1.size(); ++i) {
      ASSERT_EQ(rec.seen[i].load(), 1) << i;
      ASSERT_EQ(bits(reluRef(r1[i])), bits(o1[i])) << i;
    }
  }
}

TEST(Conv, Conv1dEqualsConv2dWithUnitHeight) {
  std::mt19937 rng(4);
  const int64_t N = 2, Cin = 4, L = 23, Cout = 6, K = 5;
  auto X = randomVec(N * Cin * L, rng), Wt = randomVec(Cout * 2 * K, rng),
       bias = randomVec(Cout, rng);
  const int64_t OL = plumb_rt_conv_out_dim(L, K, 2, 2, 3, 1);
  std::vector<float> y(N * Cout * OL), ref(N * Cout * OL);
  ASSERT_EQ(plumb_rt_conv1d(N, Cin, L, Cout, K, 2, 2, 2, 3, 1, X.data(),
                            Wt.data(), bias.data(), y.data(), 3),
            0);
  auto p = convParams(N, Cin, 1, L, Cout, 1, K, 2, 1, 2, 1, 2, 0, 3, 0, 1);
  ASSERT_EQ(p.OW, OL);
  plumb_rt_conv2d_reference(&p, X.data(), Wt.data(), bias.data(), ref.data(),
                            3);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_EQ(bits(ref[i]), bits(y[i]));
}

TEST(Conv, PaddingTermsParticipate) {
  // 1x1 input, 3x3 kernel, pad 1: output (0,0) sees 8 padding terms and x.
  // All-negative weights: fmaf(+0, w<0, -0.0) = -0.0 stays -0.0; x = 0 too,
  // so y = -0.0. One positive weight on a padding tap makes it +0.0.
  auto p = convParams(1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
  ASSERT_EQ(p.OH, 1);
  float x = 0.0f, y = 1.0f;
  std::vector<float> w(9, -1.0f);
  plumb_rt_conv2d(&p, &x, w.data(), nullptr, &y, 0);
  EXPECT_EQ(bits(y), 0x80000000u);
  w[0] = 2.0f;
  plumb_rt_conv2d(&p, &x, w.data(), nullptr, &y, 0);
  EXPECT_EQ(bits(y), 0x00000000u);
  // An infinite weight on a padding tap gives 0 * inf = NaN, canonical.
  w[0] = -INFINITY;
  plumb_rt_conv2d(&p, &x, w.data(), nullptr, &y, 0);
  EXPECT_EQ(bits(y), 0x7FC00000u);
}

TEST(Conv, RejectsInconsistentParams) {
  auto p = convParams(1, 3, 5, 5, 4, 3, 3, 2, 1, 1, 1, 1, 0, 0, 0, 0);
  float d[256] = {};
  EXPECT_EQ(plumb_rt_conv2d(&p, d, d, nullptr, d, 0), -1); // 3 % 2 != 0
  p = convParams(1, 2, 5, 5, 4, 3, 3, 1, 1, 1, 1, 1, 0, 0, 0, 0);
  p.OH += 1;
  EXPECT_EQ(plumb_rt_conv2d(&p, d, d, nullptr, d, 0), -1);
}

// Depthwise convs (group == Cin == Cout) run the channel-blocked AVX-512
// kernel (16 channels per vector; the row kernel only for very long rows),
// the AVX2 / scalar row products below AVX-512: every ISA, thread count,
// tree and epilogue must give plumb_rt_conv2d_reference's bits. Shapes
// cover channel counts around multiples of 16, odd and tiny planes,
// 1x1 to 7x7 and non-square kernels, strides 1-3, dilation, asymmetric and
// over-wide padding; inputs and weights include -0.0, infinities and NaN.
TEST(ConvDepthwise, MatchesReferenceBitwiseEveryIsaThreadsEpilogue) {
  Reset reset;
  std::mt19937 rng(1919);
  std::vector<Shape> shapes = {
      {1, 96, 14, 14, 96, 3, 3, 96, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 40, 7, 7, 40, 7, 7, 40, 1, 1, 1, 1, 3, 3, 3, 3},
      {2, 17, 13, 11, 17, 5, 5, 17, 2, 2, 1, 1, 2, 2, 2, 2},
      {1, 33, 15, 9, 33, 3, 3, 33, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 16, 56, 56, 16, 3, 3, 16, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 5, 57, 45, 5, 3, 3, 5, 2, 2, 1, 1, 1, 1, 0, 0},
      {1, 20, 9, 10, 20, 3, 5, 20, 1, 2, 2, 1, 2, 0, 2, 3},
      {1, 18, 8, 8, 18, 2, 3, 18, 3, 1, 1, 3, 0, 2, 1, 4},
      {1, 31, 1, 1, 31, 3, 3, 31, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 16, 3, 4, 16, 1, 1, 16, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 24, 6, 6, 24, 1, 1, 24, 2, 2, 1, 1, 0, 0, 0, 0},
      {1, 9, 4, 5, 9, 7, 7, 9, 1, 1, 1, 1, 5, 6, 4, 7}, // pads beyond the plane
      {1, 12, 1, 70, 12, 1, 7, 12, 1, 3, 1, 2, 0, 4, 0, 5}, // 1-D
      {1, 24, 8, 8, 24, 9, 9, 24, 1, 1, 1, 1, 4, 4, 4, 4},   // EdgeNeXt 9x9
      {1, 36, 11, 17, 36, 9, 9, 36, 2, 2, 1, 1, 4, 4, 4, 4},
      {1, 16, 12, 30, 16, 3, 5, 16, 2, 1, 2, 1, 2, 2, 2, 2},
  };
  for (int i = 0; i < 20; ++i) {
    std::uniform_int_distribution<int> c(1, 50), hw(1, 30), k(1, 7), s(1, 3),
        d(1, 2), pd(0, 3), n(1, 2);
    Shape sh{};
    sh.N = n(rng), sh.Cin = sh.Cout = sh.group = c(rng);
    sh.H = hw(rng), sh.W = hw(rng), sh.KH = k(rng), sh.KW = k(rng);
    sh.sh = s(rng), sh.sw = s(rng), sh.dh = d(rng), sh.dw = d(rng);
    sh.pt = pd(rng), sh.pl = pd(rng), sh.pb = pd(rng), sh.pr = pd(rng);
    auto p = convParams(sh.N, sh.Cin, sh.H, sh.W, sh.Cout, sh.KH, sh.KW,
                        sh.group, sh.sh, sh.sw, sh.dh, sh.dw, sh.pt, sh.pl,
                        sh.pb, sh.pr);
    if (p.OH < 1 || p.OW < 1) {
      --i;
      continue;
    }
    shapes.push_back(sh);
  }
  int checked = 0;
  for (const Shape &s : shapes) {
    auto p = convParams(s.N, s.Cin, s.H, s.W, s.Cout, s.KH, s.KW, s.group,
                        s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, s.pb, s.pr);
    ASSERT_GE(p.OH, 1);
    ASSERT_GE(p.OW, 1);
    auto X = randomVec(p.N * p.Cin * p.H * p.W, rng);
    auto Wt = randomVec(p.Cout * p.KH * p.KW, rng);
    auto bias = randomVec(p.Cout, rng);
    // Signed zeros everywhere, an infinite weight (NaN on padding taps) and
    // a NaN input in some planes.
    for (size_t e = 0; e < X.size(); e += 7)
      X[e] = (e / 7) % 2 ? -0.0f : 0.0f;
    for (size_t e = 3; e < Wt.size(); e += 11)
      Wt[e] = -0.0f;
    if (Wt.size() > 20)
      Wt[17] = INFINITY;
    if (X.size() > 40)
      X[X.size() / 2] = NAN;
    bias[0] = -0.0f;
    const int64_t P = p.OH * p.OW;
    const size_t outN = p.N * p.Cout * P;
    for (int withBias = 0; withBias < 2; ++withBias)
      for (int64_t block : {0, 1, 4, 256}) {
        const float *b = withBias ? bias.data() : nullptr;
        std::vector<float> ref(outN);
        ASSERT_EQ(plumb_rt_conv2d_reference(&p, X.data(), Wt.data(), b,
                                            ref.data(), block),
                  0);
        for (int isa : {3, 2, 1})
          for (int t : {1, 2, 3})
            for (int withEp = 0; withEp < 2; ++withEp) {
              plumb_rt_gemm_set_isa(isa);
              plumb_rt_set_threads(t);
              std::vector<float> y(outN, 7.0f);
              EpRecorder rec(ref.data(), y.data(), p.N, p.Cout, P);
              const plumb_rt_epilogue ep = {EpRecorder::fn, &rec};
              ASSERT_EQ(plumb_rt_conv2d_ep(&p, X.data(), Wt.data(), b,
                                           y.data(), block,
                                           withEp ? &ep : nullptr),
                        0);
              const char *what = withEp ? "relu epilogue" : "plain";
              for (size_t i = 0; i < outN; ++i) {
                const float want = withEp ? reluRef(ref[i]) : ref[i];
                ASSERT_EQ(bits(want), bits(y[i]))
                    << what << " i=" << i << " C=" << s.Cin << " " << s.H
                    << "x" << s.W << " k=" << s.KH << "x" << s.KW
                    << " s=" << s.sh << "," << s.sw << " d=" << s.dh << ","
                    << s.dw << " block=" << block << " isa=" << isa
                    << " t=" << t << " bias=" << withBias;
                if (withEp) {
                  ASSERT_EQ(rec.seen[i].load(), 1) << i;
                }
              }
              EXPECT_EQ(rec.badRange.load(), 0);
              EXPECT_EQ(rec.badValue.load(), 0);
              ++checked;
            }
      }
  }
  EXPECT_EQ(checked, static_cast<int>(shapes.size()) * 2 * 4 * 3 * 3 * 2);
}

// A depthwise 1-D conv whose padded row is too long for the channel-blocked
// kernel's per-thread buffer runs the row kernel; same bits.
TEST(ConvDepthwise, VeryLongRowMatchesReference) {
  Reset reset;
  std::mt19937 rng(2);
  const int64_t C = 3, L = 70000, K = 5;
  auto p = convParams(1, C, 1, L, C, 1, K, C, 1, 1, 1, 1, 0, 2, 0, 2);
  auto X = randomVec(C * L, rng), Wt = randomVec(C * K, rng),
       bias = randomVec(C, rng);
  std::vector<float> ref(C * p.OW), y(C * p.OW);
  plumb_rt_conv2d_reference(&p, X.data(), Wt.data(), bias.data(), ref.data(),
                            256);
  for (int t : {1, 2}) {
    plumb_rt_set_threads(t);
    ASSERT_EQ(plumb_rt_conv2d(&p, X.data(), Wt.data(), bias.data(), y.data(),
                              256),
              0);
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_EQ(bits(ref[i]), bits(y[i])) << i << " t=" << t;
  }
}

TEST(ConvTranspose, MatchesReferenceAndScatterFloat64) {
  Reset reset;
  std::mt19937 rng(8);
  struct T {
    int64_t N, Cin, H, W, Cout, KH, KW, group, sh, sw, dh, dw, pt, pl, pb,
        pr, opad;
  };
  const T cases[] = {
      {1, 3, 4, 5, 2, 3, 3, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1},
      {2, 4, 3, 3, 6, 2, 3, 2, 1, 3, 2, 1, 0, 1, 0, 0, 0},
      {1, 8, 5, 5, 8, 4, 4, 1, 2, 2, 1, 1, 1, 1, 1, 1, 0},
      {1, 2, 1, 9, 4, 1, 5, 2, 1, 2, 1, 1, 0, 2, 0, 1, 1}, // 1-D
  };
  for (const T &c : cases) {
    plumb_conv2d_params p = {c.N,  c.Cin, c.H,  c.W,  c.Cout, c.KH,
                             c.KW, 0,     0,    c.group, c.sh, c.sw,
                             c.dh, c.dw,  c.pt, c.pl, c.pb,   c.pr};
    p.OH = c.sh * (c.H - 1) + (c.H > 1 ? c.opad : 0) + (c.KH - 1) * c.dh + 1 -
           c.pt - c.pb;
    p.OW = c.sw * (c.W - 1) + c.opad + (c.KW - 1) * c.dw + 1 - c.pl - c.pr;
    auto X = randomVec(p.N * p.Cin * p.H * p.W, rng);
    auto Wt = randomVec(p.Cin * (p.Cout / p.group) * p.KH * p.KW, rng);
    auto bias = randomVec(p.Cout, rng);
    auto exact = convTransposeDouble(p, X, Wt, bias.data());
    const size_t outN = p.N * p.Cout * p.OH * p.OW;
    for (int64_t block : {0, 1, 7, 64}) {
      std::vector<float> ref(outN), y(outN);
      ASSERT_EQ(plumb_rt_conv_transpose2d_reference(
                    &p, X.data(), Wt.data(), bias.data(), ref.data(), block),
                0);
      for (size_t i = 0; i < outN; ++i)
        ASSERT_NEAR(ref[i], exact[i], 1e-5) << i;
      for (int t : {1, 2, 3, 8}) {
        plumb_rt_set_threads(t);
        ASSERT_EQ(plumb_rt_conv_transpose2d(&p, X.data(), Wt.data(),
                                            bias.data(), y.data(), block),
                  0);
        for (size_t i = 0; i < outN; ++i)
          ASSERT_EQ(bits(ref[i]), bits(y[i])) << i << " t=" << t;
      }
    }
    if (p.H == 1) {
      std::vector<float> y1(outN), ref(outN);
      plumb_rt_conv_transpose2d_reference(&p, X.data(), Wt.data(),
                                          bias.data(), ref.data(), 5);
      ASSERT_EQ(plumb_rt_conv_transpose1d(p.N, p.Cin, p.W, p.Cout, p.KW, p.OW,
                                          p.group, p.stride_w, p.dilation_w,
                                          p.pad_left, p.pad_right, X.data(),
                                          Wt.data(), bias.data(), y1.data(), 5),
                0);
      for (size_t i = 0; i < outN; ++i)
        ASSERT_EQ(bits(ref[i]), bits(y1[i]));
    }
  }
}

/// An N-d ConvTranspose geometry; out[j] from output_padding opad.
plumb_convnd_params ndParams(int64_t N, int64_t Cin, int64_t Cout,
                             int64_t group, std::vector<int64_t> in,
                             std::vector<int64_t> k, std::vector<int64_t> s,
                             std::vector<int64_t> d, std::vector<int64_t> pb,
                             std::vector<int64_t> pe, int64_t opad) {
  plumb_convnd_params p{};
  p.N = N, p.Cin = Cin, p.Cout = Cout, p.group = group;
  p.spatial = (int64_t)in.size();
  for (size_t j = 0; j < in.size(); ++j) {
    p.in[j] = in[j], p.kernel[j] = k[j], p.stride[j] = s[j];
    p.dilation[j] = d[j], p.pad_begin[j] = pb[j], p.pad_end[j] = pe[j];
    p.out[j] = s[j] * (in[j] - 1) + opad + (k[j] - 1) * d[j] + 1 - pb[j] - pe[j];
  }
  return p;
}

int64_t ndOutCount(const plumb_convnd_params &p) {
  int64_t n = p.N * p.Cout;
  for (int64_t j = 0; j < p.spatial; ++j)
    n *= p.out[j];
  return n;
}

/// Naive float64 N-d ConvTranspose (scatter).
std::vector<double> convTransposeNdDouble(const plumb_convnd_params &p,
                                          const std::vector<float> &X,
                                          const std::vector<float> &Wt,
                                          const float *bias) {
  const int64_t d = p.spatial, Cg = p.Cin / p.group, Mg = p.Cout / p.group;
  int64_t IN = 1, KK = 1, P = 1;
  for (int64_t j = 0; j < d; ++j)
    IN *= p.in[j], KK *= p.kernel[j], P *= p.out[j];
  std::vector<double> Y(ndOutCount(p), 0.0);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t co = 0; co < p.Cout; ++co)
      for (int64_t e = 0; e < P; ++e)
        Y[(n * p.Cout + co) * P + e] = bias ? bias[co] : 0.0;
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t c = 0; c < p.Cin; ++c)
      for (int64_t i = 0; i < IN; ++i)
        for (int64_t m = 0; m < Mg; ++m)
          for (int64_t t = 0; t < KK; ++t) {
            int64_t off = 0, ri = i, rt = t, stride = 1;
            bool ok = true;
            for (int64_t j = d - 1; j >= 0; --j) {
              const int64_t ij = ri % p.in[j], kj = rt % p.kernel[j];
              ri /= p.in[j], rt /= p.kernel[j];
              const int64_t o =
                  ij * p.stride[j] - p.pad_begin[j] + kj * p.dilation[j];
              ok = ok && o >= 0 && o < p.out[j];
              off += o * stride;
              stride *= p.out[j];
            }
            if (!ok)
              continue;
            Y[(n * p.Cout + (c / Cg) * Mg + m) * P + off] +=
                static_cast<double>(X[(n * p.Cin + c) * IN + i]) *
                Wt[(c * Mg + m) * KK + t];
          }
  return Y;
}

TEST(ConvTransposeNd, MatchesReferenceAndScatterFloat64) {
  Reset reset;
  std::mt19937 rng(11);
  const plumb_convnd_params cases[] = {
      // 3-D: ONNX's test_convtranspose_3d geometry, then strides, dilations,
      // asymmetric pads, groups and output_padding.
      ndParams(1, 1, 2, 1, {3, 4, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1},
               {0, 0, 0}, {0, 0, 0}, 0),
      ndParams(2, 4, 6, 2, {3, 2, 4}, {2, 3, 2}, {2, 1, 3}, {1, 2, 1},
               {1, 0, 1}, {0, 1, 2}, 1),
      ndParams(1, 3, 3, 3, {4, 3, 3}, {3, 2, 2}, {1, 2, 2}, {2, 1, 1},
               {2, 1, 0}, {1, 0, 1}, 0), // depthwise
      // 4-D.
      ndParams(1, 2, 2, 1, {2, 3, 2, 3}, {2, 2, 1, 2}, {2, 1, 1, 2},
               {1, 1, 1, 1}, {0, 1, 0, 0}, {1, 0, 0, 1}, 0),
  };
  for (const plumb_convnd_params &p : cases) {
    int64_t IN = 1, KK = 1;
    for (int64_t j = 0; j < p.spatial; ++j)
      IN *= p.in[j], KK *= p.kernel[j];
    auto X = randomVec(p.N * p.Cin * IN, rng);
    auto Wt = randomVec(p.Cin * (p.Cout / p.group) * KK, rng);
    auto bias = randomVec(p.Cout, rng);
    auto exact = convTransposeNdDouble(p, X, Wt, bias.data());
    const size_t outN = ndOutCount(p);
    for (int64_t block : {0, 1, 7, 64}) {
      std::vector<float> ref(outN), y(outN), nb(outN);
      ASSERT_EQ(plumb_rt_conv_transpose_nd_reference(
                    &p, X.data(), Wt.data(), bias.data(), ref.data(), block),
                0);
      for (size_t i = 0; i < outN; ++i)
        ASSERT_NEAR(ref[i], exact[i], 1e-5) << i;
      for (int t : {1, 3, 8}) {
        plumb_rt_set_threads(t);
        ASSERT_EQ(plumb_rt_conv_transpose_nd(&p, X.data(), Wt.data(),
                                             bias.data(), y.data(), block),
                  0);
        for (size_t i = 0; i < outN; ++i)
          ASSERT_EQ(bits(ref[i]), bits(y[i])) << i << " t=" << t;
      }
      ASSERT_EQ(plumb_rt_conv_transpose_nd(&p, X.data(), Wt.data(), nullptr,
                                           nb.data(), block),
                0);
      std::vector<float> nbRef(outN);
      plumb_rt_conv_transpose_nd_reference(&p, X.data(), Wt.data(), nullptr,
                                           nbRef.data(), block);
      for (size_t i = 0; i < outN; ++i)
        ASSERT_EQ(bits(nbRef[i]), bits(nb[i])) << i;
    }
  }
}

// The N-d definition with 1 or 2 spatial dims is the 1-D / 2-D one: the same
// bits as plumb_rt_conv_transpose1d / 2d, from the N-d reference too.
TEST(ConvTransposeNd, OneAndTwoDimsAreThe2dKernel) {
  Reset reset;
  std::mt19937 rng(12);
  plumb_convnd_params p2 = ndParams(2, 4, 6, 2, {5, 6}, {4, 3}, {1, 3},
                                    {2, 1}, {0, 1}, {1, 0}, 0);
  plumb_conv2d_params q2 = {2, 4, 5, 6, 6, 4, 3, p2.out[0], p2.out[1],
                            2, 1, 3, 2, 1, 0, 1, 1, 0};
  plumb_convnd_params p1 =
      ndParams(1, 5, 3, 1, {17}, {4}, {2}, {1}, {1}, {1}, 1);
  for (int k = 0; k < 2; ++k) {
    const plumb_convnd_params &p = k ? p1 : p2;
    int64_t IN = 1, KK = 1;
    for (int64_t j = 0; j < p.spatial; ++j)
      IN *= p.in[j], KK *= p.kernel[j];
    auto X = randomVec(p.N * p.Cin * IN, rng);
    auto Wt = randomVec(p.Cin * (p.Cout / p.group) * KK, rng);
    auto bias = randomVec(p.Cout, rng);
    const size_t outN = ndOutCount(p);
    std::vector<float> nd(outN), ref(outN), old(outN);
    ASSERT_EQ(plumb_rt_conv_transpose_nd(&p, X.data(), Wt.data(), bias.data(),
                                         nd.data(), 9),
              0);
    ASSERT_EQ(plumb_rt_conv_transpose_nd_reference(
                  &p, X.data(), Wt.data(), bias.data(), ref.data(), 9),
              0);
    if (k)
      ASSERT_EQ(plumb_rt_conv_transpose1d(1, 5, 17, 3, 4, p.out[0], 1, 2, 1,
                                          1, 1, X.data(), Wt.data(),
                                          bias.data(), old.data(), 9),
                0);
    else
      ASSERT_EQ(plumb_rt_conv_transpose2d(&q2, X.data(), Wt.data(),
                                          bias.data(), old.data(), 9),
                0);
    for (size_t i = 0; i < outN; ++i) {
      ASSERT_EQ(bits(old[i]), bits(nd[i])) << i;
      ASSERT_EQ(bits(old[i]), bits(ref[i])) << i;
    }
  }
}

TEST(ConvTransposeNd, RejectsBadParams) {
  float d[64] = {};
  plumb_convnd_params p = ndParams(1, 2, 2, 1, {2, 2, 2}, {1, 1, 1},
                                   {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0},
                                   0);
  p.spatial = 0;
  EXPECT_EQ(plumb_rt_conv_transpose_nd(&p, d, d, nullptr, d, 0), -1);
  p.spatial = PLUMB_CONV_MAX_SPATIAL + 1;
  EXPECT_EQ(plumb_rt_conv_transpose_nd(&p, d, d, nullptr, d, 0), -1);
  p.spatial = 3;
  p.group = 2;
  p.Cin = 3; // 3 % 2 != 0
  EXPECT_EQ(plumb_rt_conv_transpose_nd_reference(&p, d, d, nullptr, d, 0),
            -1);
  p.Cin = 2;
  p.stride[2] = 0;
  EXPECT_EQ(plumb_rt_conv_transpose_nd(&p, d, d, nullptr, d, 0), -1);
}

} // namespace

/// An N-d Conv geometry; out[j] from plumb_rt_conv_out_dim.
plumb_convnd_params convNdParams(int64_t N, int64_t Cin, int64_t Cout,
                                 int64_t group, std::vector<int64_t> in,
                                 std::vector<int64_t> k,
                                 std::vector<int64_t> s,
                                 std::vector<int64_t> d,
                                 std::vector<int64_t> pb,
                                 std::vector<int64_t> pe) {
  plumb_convnd_params p = ndParams(N, Cin, Cout, group, in, k, s, d, pb, pe, 0);
  for (size_t j = 0; j < in.size(); ++j)
    p.out[j] = plumb_rt_conv_out_dim(in[j], k[j], s[j], d[j], pb[j], pe[j]);
  return p;
}

/// Naive float64 N-d Conv (padding reads 0).
std::vector<double> convNdDouble(const plumb_convnd_params &p,
                                 const std::vector<float> &X,
                                 const std::vector<float> &Wt,
                                 const float *bias) {
  const int64_t d = p.spatial, Cg = p.Cin / p.group, Mg = p.Cout / p.group;
  int64_t IN = 1, KK = 1, P = 1;
  for (int64_t j = 0; j < d; ++j)
    IN *= p.in[j], KK *= p.kernel[j], P *= p.out[j];
  std::vector<double> Y(ndOutCount(p), 0.0);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t co = 0; co < p.Cout; ++co)
      for (int64_t e = 0; e < P; ++e) {
        double acc = bias ? bias[co] : 0.0;
        for (int64_t ci = 0; ci < Cg; ++ci)
          for (int64_t t = 0; t < KK; ++t) {
            int64_t off = 0, stride = 1, re = e, rt = t;
            bool ok = true;
            for (int64_t j = d - 1; j >= 0; --j) {
              const int64_t oj = re % p.out[j], kj = rt % p.kernel[j];
              re /= p.out[j], rt /= p.kernel[j];
              const int64_t i =
                  oj * p.stride[j] - p.pad_begin[j] + kj * p.dilation[j];
              ok = ok && i >= 0 && i < p.in[j];
              off += i * stride;
              stride *= p.in[j];
            }
            if (ok)
              acc += static_cast<double>(
                         X[(n * p.Cin + (co / Mg) * Cg + ci) * IN + off]) *
                     Wt[(co * Cg + ci) * KK + t];
          }
        Y[(n * p.Cout + co) * P + e] = acc;
      }
  return Y;
}

TEST(ConvNd, MatchesReferenceAndFloat64) {
  Reset reset;
  std::mt19937 rng(21);
  const plumb_convnd_params cases[] = {
      // 3-D: plain, then strides, dilations, asymmetric pads and groups.
      convNdParams(1, 2, 3, 1, {5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1},
                   {1, 1, 1}, {1, 1, 1}),
      convNdParams(2, 4, 6, 2, {6, 7, 8}, {3, 2, 3}, {2, 1, 2}, {1, 2, 1},
                   {1, 0, 1}, {0, 1, 2}),
      convNdParams(1, 3, 3, 3, {4, 5, 3}, {3, 2, 2}, {1, 2, 2}, {2, 1, 1},
                   {2, 1, 0}, {1, 0, 1}), // depthwise
      // Pads wider than the kernel: outputs whose terms are all padding
      // (+0.0 * w summed from -0.0: the sign follows the weights).
      convNdParams(1, 2, 4, 2, {2, 3, 2}, {1, 2, 1}, {1, 1, 1}, {1, 1, 1},
                   {2, 3, 1}, {1, 2, 2}),
      // Rows wider than a 32-column sliver, stride 2 along W and 1 along
      // it: several runs per sliver (the implicit 3-D packer's paths).
      convNdParams(1, 3, 13, 1, {3, 5, 70}, {3, 3, 3}, {1, 2, 2}, {1, 1, 1},
                   {1, 1, 1}, {1, 1, 1}),
      convNdParams(1, 2, 5, 1, {4, 3, 45}, {1, 3, 5}, {2, 1, 1}, {1, 1, 2},
                   {0, 1, 3}, {1, 2, 4}),
      // 4-D.
      convNdParams(1, 2, 2, 1, {3, 3, 2, 4}, {2, 2, 1, 2}, {1, 2, 1, 2},
                   {1, 1, 1, 1}, {0, 1, 0, 0}, {1, 0, 0, 1}),
  };
  for (const plumb_convnd_params &p : cases) {
    int64_t IN = 1, KK = 1;
    for (int64_t j = 0; j < p.spatial; ++j)
      IN *= p.in[j], KK *= p.kernel[j];
    auto X = randomVec(p.N * p.Cin * IN, rng);
    auto Wt = randomVec(p.Cout * (p.Cin / p.group) * KK, rng);
    auto bias = randomVec(p.Cout, rng);
    auto exact = convNdDouble(p, X, Wt, bias.data());
    auto exactNb = convNdDouble(p, X, Wt, nullptr);
    const size_t outN = ndOutCount(p);
    for (int64_t block : {0, 1, 7, 64}) {
      std::vector<float> ref(outN), y(outN), nb(outN), nbRef(outN);
      ASSERT_EQ(plumb_rt_conv_nd_reference(&p, X.data(), Wt.data(),
                                           bias.data(), ref.data(), block),
                0);
      ASSERT_EQ(plumb_rt_conv_nd_reference(&p, X.data(), Wt.data(), nullptr,
                                           nbRef.data(), block),
                0);
      for (size_t i = 0; i < outN; ++i) {
        ASSERT_NEAR(ref[i], exact[i], 1e-5) << i;
        ASSERT_NEAR(nbRef[i], exactNb[i], 1e-5) << i;
      }
      for (int t : {1, 3, 8}) {
        plumb_rt_set_threads(t);
        ASSERT_EQ(plumb_rt_conv_nd(&p, X.data(), Wt.data(), bias.data(),
                                   y.data(), block),
                  0);
        for (size_t i = 0; i < outN; ++i)
          ASSERT_EQ(bits(ref[i]), bits(y[i])) << i << " t=" << t;
        ASSERT_EQ(plumb_rt_conv_nd(&p, X.data(), Wt.data(), nullptr,
                                   nb.data(), block),
                  0);
        for (size_t i = 0; i < outN; ++i)
          ASSERT_EQ(bits(nbRef[i]), bits(nb[i])) << i << " t=" << t;
      }
    }
  }
}

// All-padding outputs without a bias: -0.0 when every weight is negative
// (fma(+0.0, w < 0, -0.0) stays -0.0), +0.0 otherwise -- as the 2-D kernel.
TEST(ConvNd, PaddingSignedZeros) {
  Reset reset;
  plumb_convnd_params p = convNdParams(1, 1, 2, 1, {1, 1, 1}, {1, 1, 1},
                                       {1, 1, 1}, {1, 1, 1}, {1, 0, 0},
                                       {0, 0, 0});
  const float X[1] = {3.0f}, Wt[2] = {-1.0f, 2.0f};
  float y[4], ref[4];
  ASSERT_EQ(plumb_rt_conv_nd(&p, X, Wt, nullptr, y, 0), 0);
  ASSERT_EQ(plumb_rt_conv_nd_reference(&p, X, Wt, nullptr, ref, 0), 0);
  // Output [1, 2, 2, 1, 1]: position 0 is padding, 1 reads X.
  EXPECT_EQ(bits(y[0]), bits(-0.0f));
  EXPECT_EQ(y[1], -3.0f);
  EXPECT_EQ(bits(y[2]), bits(0.0f));
  EXPECT_EQ(y[3], 6.0f);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(bits(ref[i]), bits(y[i])) << i;
}

// The N-d definition with 1 or 2 spatial dims is the 1-D / 2-D one: the same
// bits as plumb_rt_conv1d / conv2d, from the N-d reference too.
TEST(ConvNd, OneAndTwoDimsAreThe2dKernel) {
  Reset reset;
  std::mt19937 rng(22);
  plumb_convnd_params p2 = convNdParams(2, 4, 6, 2, {9, 8}, {4, 3}, {1, 3},
                                        {2, 1}, {0, 1}, {1, 0});
  plumb_conv2d_params q2 = {2, 4, 9, 8, 6, 4, 3, p2.out[0], p2.out[1],
                            2, 1, 3, 2, 1, 0, 1, 1, 0};
  plumb_convnd_params p1 =
      convNdParams(1, 5, 3, 1, {17}, {4}, {2}, {1}, {1}, {1});
  for (int k = 0; k < 2; ++k) {
    const plumb_convnd_params &p = k ? p1 : p2;
    int64_t IN = 1, KK = 1;
    for (int64_t j = 0; j < p.spatial; ++j)
      IN *= p.in[j], KK *= p.kernel[j];
    auto X = randomVec(p.N * p.Cin * IN, rng);
    auto Wt = randomVec(p.Cout * (p.Cin / p.group) * KK, rng);
    auto bias = randomVec(p.Cout, rng);
    const size_t outN = ndOutCount(p);
    for (int64_t block : {0, 5}) {
      std::vector<float> nd(outN), ref(outN), old(outN);
      ASSERT_EQ(plumb_rt_conv_nd(&p, X.data(), Wt.data(), bias.data(),
                                 nd.data(), block),
                0);
      ASSERT_EQ(plumb_rt_conv_nd_reference(&p, X.data(), Wt.data(),
                                           bias.data(), ref.data(), block),
                0);
      if (k)
        ASSERT_EQ(plumb_rt_conv1d(1, 5, 17, 3, 4, 1, 2, 1, 1, 1, X.data(),
                                  Wt.data(), bias.data(), old.data(), block),
                  0);
      else
        ASSERT_EQ(plumb_rt_conv2d(&q2, X.data(), Wt.data(), bias.data(),
                                  old.data(), block),
                  0);
      for (size_t i = 0; i < outN; ++i) {
        ASSERT_EQ(bits(old[i]), bits(nd[i])) << i;
        ASSERT_EQ(bits(old[i]), bits(ref[i])) << i;
      }
    }
  }
}

// The epilogue of plumb_rt_conv_nd_ep sees every finished output once, in
// ranges within one plane of prod(out) elements.
TEST(ConvNd, EpilogueSeesEveryOutputOnce) {
  Reset reset;
  std::mt19937 rng(23);
  plumb_convnd_params p = convNdParams(2, 4, 6, 2, {5, 6, 7}, {3, 2, 3},
                                       {2, 1, 2}, {1, 2, 1}, {1, 0, 1},
                                       {0, 1, 2});
  const int64_t P = p.out[0] * p.out[1] * p.out[2];
  auto X = randomVec(p.N * p.Cin * 5 * 6 * 7, rng);
  auto Wt = randomVec(p.Cout * 2 * 18, rng);
  auto bias = randomVec(p.Cout, rng);
  const size_t outN = ndOutCount(p);
  struct Seen {
    std::vector<std::atomic<int>> count;
    std::vector<float> value;
    const float *Y;
    int64_t Cout, P;
    std::atomic<bool> bad{false};
  };
  Seen s{std::vector<std::atomic<int>>(outN), std::vector<float>(outN),
         nullptr, p.Cout, P};
  std::vector<float> y(outN), ref(outN);
  s.Y = y.data();
  plumb_rt_epilogue ep = {
      [](void *ctx, float *v, int64_t n, int64_t co, int64_t begin,
         int64_t count) {
        Seen &s = *static_cast<Seen *>(ctx);
        const int64_t base = (n * s.Cout + co) * s.P + begin;
        if (v != s.Y + base || begin < 0 || begin + count > s.P)
          s.bad = true;
        for (int64_t i = 0; i < count; ++i) {
          s.count[base + i]++;
          s.value[base + i] = v[i];
          v[i] = v[i] * 2.0f;
        }
      },
      &s};
  for (int t : {1, 4}) {
    plumb_rt_set_threads(t);
    for (auto &c : s.count)
      c = 0;
    ASSERT_EQ(plumb_rt_conv_nd_ep(&p, X.data(), Wt.data(), bias.data(),
                                  y.data(), 3, &ep),
              0);
    ASSERT_EQ(plumb_rt_conv_nd_reference(&p, X.data(), Wt.data(), bias.data(),
                                         ref.data(), 3),
              0);
    EXPECT_FALSE(s.bad);
    for (size_t i = 0; i < outN; ++i) {
      ASSERT_EQ(s.count[i].load(), 1) << i;
      ASSERT_EQ(bits(s.value[i]), bits(ref[i])) << i;
      ASSERT_EQ(bits(y[i]), bits(ref[i] * 2.0f)) << i;
    }
  }
}

TEST(ConvNd, RejectsBadParams) {
  float d[64] = {};
  plumb_convnd_params p = convNdParams(1, 2, 2, 1, {2, 2, 2}, {1, 1, 1},
                                       {1, 1, 1}, {1, 1, 1}, {0, 0, 0},
                                       {0, 0, 0});
  p.out[1] = 3; // not the conv output size
  EXPECT_EQ(plumb_rt_conv_nd(&p, d, d, nullptr, d, 0), -1);
  EXPECT_EQ(plumb_rt_conv_nd_reference(&p, d, d, nullptr, d, 0), -1);
  p.out[1] = 2;
  p.spatial = PLUMB_CONV_MAX_SPATIAL + 1;
  EXPECT_EQ(plumb_rt_conv_nd(&p, d, d, nullptr, d, 0), -1);
  p.spatial = 3;
  p.group = 2;
  p.Cin = 3;
  EXPECT_EQ(plumb_rt_conv_nd(&p, d, d, nullptr, d, 0), -1);
  p.Cin = 2;
  p.dilation[0] = 0;
  bool called = false;
  plumb_rt_epilogue ep = {
      [](void *c, float *, int64_t, int64_t, int64_t, int64_t) {
        *static_cast<bool *>(c) = true;
      },
      &called};
  EXPECT_EQ(plumb_rt_conv_nd_ep(&p, d, d, nullptr, d, 0, &ep), -1);
  EXPECT_FALSE(called);
}

// The direct ConvTranspose (AVX-512, groups of at most 4 output channels:
// 16 output columns per vector) and the column-matrix GEMM paths give the
// reference's bits: upsampling heads (k2 s2, Cout 1, 4 and 16), rows wider
// than 16 and not a multiple of it, padding, output_padding, dilation,
// groups, multi-chunk trees, and specials (-0.0 and infinite weights, a NaN
// input), at every ISA and thread count.
TEST(ConvTranspose, DirectMatchesReferenceBitwiseEveryIsaAndThreads) {
  Reset reset;
  std::mt19937 rng(21);
  struct T {
    int64_t N, Cin, H, W, Cout, KH, KW, group, sh, sw, dh, dw, pt, pl, pb,
        pr, opad;
  };
  const T cases[] = {
      {1, 16, 9, 21, 1, 2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, 0},  // DBNet head
      {1, 16, 7, 13, 16, 2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, 0},  // GEMM path
      {1, 8, 7, 37, 4, 2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, 0},
      {1, 6, 5, 11, 6, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1},   // 2 groups of 3
      {2, 5, 6, 19, 19, 3, 3, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // 3 tiles
      {1, 6, 4, 33, 4, 4, 4, 2, 2, 2, 1, 1, 1, 1, 1, 1, 0},   // groups
      {1, 3, 5, 8, 2, 3, 2, 1, 1, 3, 2, 2, 2, 0, 1, 1, 0},    // dilation
      {1, 40, 3, 17, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0},  // K = 360
      {1, 2, 1, 40, 3, 1, 5, 1, 1, 3, 1, 1, 0, 2, 0, 1, 2},   // 1-D
  };
  for (const T &c : cases) {
    plumb_conv2d_params p = {c.N,  c.Cin, c.H,  c.W,  c.Cout, c.KH,
                             c.KW, 0,     0,    c.group, c.sh, c.sw,
                             c.dh, c.dw,  c.pt, c.pl, c.pb,   c.pr};
    p.OH = c.sh * (c.H - 1) + (c.H > 1 ? c.opad : 0) + (c.KH - 1) * c.dh + 1 -
           c.pt - c.pb;
    p.OW = c.sw * (c.W - 1) + c.opad + (c.KW - 1) * c.dw + 1 - c.pl - c.pr;
    auto X = randomVec(p.N * p.Cin * p.H * p.W, rng);
    auto Wt = randomVec(p.Cin * (p.Cout / p.group) * p.KH * p.KW, rng);
    auto bias = randomVec(p.Cout, rng);
    for (int special = 0; special < 2; ++special) {
      if (special) {
        Wt[0] = -0.0f;
        Wt[Wt.size() / 2] = std::numeric_limits<float>::infinity();
        X[X.size() / 3] = std::numeric_limits<float>::quiet_NaN();
      }
      const size_t outN = p.N * p.Cout * p.OH * p.OW;
      for (int64_t block : {0, 4, 256}) {
        for (const float *b : {(const float *)bias.data(), (const float *)nullptr}) {
          std::vector<float> ref(outN), y(outN);
          ASSERT_EQ(plumb_rt_conv_transpose2d_reference(
                        &p, X.data(), Wt.data(), b, ref.data(), block),
                    0);
          for (int isa : {3, 2, 1})
            for (int t : {1, 2, 3}) {
              plumb_rt_gemm_set_isa(isa);
              plumb_rt_set_threads(t);
              std::fill(y.begin(), y.end(), 7.0f);
              ASSERT_EQ(plumb_rt_conv_transpose2d(&p, X.data(), Wt.data(), b,
                                                  y.data(), block),
                        0);
              for (size_t i = 0; i < outN; ++i)
                ASSERT_EQ(bits(ref[i]), bits(y[i]))
                    << i << " isa=" << isa << " t=" << t << " block=" << block
                    << " special=" << special;
            }
          plumb_rt_gemm_set_isa(0);
        }
      }
    }
  }
}
