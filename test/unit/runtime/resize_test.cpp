//===- test/unit/runtime/resize_test.cpp - Resize kernel -----*- C++ -*-===//
//
// Part of Plumb. Resize against the ONNX backend-test examples, the
// documented float32 formulas (bitwise) and thread invariance.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/resize.h"
#include "plumb/runtime/threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {
std::vector<float> resize(const std::vector<float> &x,
                          std::vector<int64_t> in, std::vector<int64_t> out,
                          const float *scales, int mode, int coord,
                          int nearest = PLUMB_RT_NEAREST_ROUND_PREFER_FLOOR) {
  int64_t n = 1;
  for (auto d : out)
    n *= d;
  std::vector<float> y((size_t)n);
  EXPECT_EQ(plumb_rt_resize_f32(x.data(), in.data(), (int)in.size(),
                                out.data(), scales, mode, coord, nearest,
                                y.data()),
            0);
  return y;
}
std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (float)(i + 1);
  return v;
}
} // namespace

TEST(Resize, OnnxNearestExamples) {
  std::vector<float> x = {1, 2, 3, 4};
  const float sc[] = {1, 1, 2, 3};
  auto y = resize(x, {1, 1, 2, 2}, {1, 1, 4, 6}, sc, PLUMB_RT_RESIZE_NEAREST,
                  PLUMB_RT_COORD_HALF_PIXEL);
  const float w[] = {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,
                     3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4};
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(y[i], w[i]) << i;
  std::vector<float> x8 = {1, 2, 3, 4, 5, 6, 7, 8};
  const float sd[] = {1, 1, 0.6f, 0.6f};
  y = resize(x8, {1, 1, 2, 4}, {1, 1, 1, 2}, sd, PLUMB_RT_RESIZE_NEAREST,
             PLUMB_RT_COORD_HALF_PIXEL);
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 3);
  auto x16 = iota(16);
  struct {
    int coord, nearest;
    int64_t map[8];
  } cases[] = {
      {PLUMB_RT_COORD_HALF_PIXEL, PLUMB_RT_NEAREST_CEIL, {0, 1, 1, 2, 2, 3, 3, 3}},
      {PLUMB_RT_COORD_ALIGN_CORNERS, PLUMB_RT_NEAREST_FLOOR,
       {0, 0, 0, 1, 1, 2, 2, 3}},
      {PLUMB_RT_COORD_ASYMMETRIC, PLUMB_RT_NEAREST_ROUND_PREFER_CEIL,
       {0, 1, 1, 2, 2, 3, 3, 3}},
      {PLUMB_RT_COORD_ASYMMETRIC, PLUMB_RT_NEAREST_ROUND_PREFER_FLOOR,
       {0, 0, 1, 1, 2, 2, 3, 3}},
  };
  for (auto &c : cases) {
    y = resize(x16, {1, 1, 4, 4}, {1, 1, 8, 8}, nullptr,
               PLUMB_RT_RESIZE_NEAREST, c.coord, c.nearest);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        ASSERT_EQ(y[i * 8 + j], x16[c.map[i] * 4 + c.map[j]])
            << c.coord << " " << c.nearest << " " << i << "," << j;
  }
}

TEST(Resize, OnnxLinearExamples) {
  std::vector<float> x = {1, 2, 3, 4};
  const float sc[] = {1, 1, 2, 2};
  auto y = resize(x, {1, 1, 2, 2}, {1, 1, 4, 4}, sc, PLUMB_RT_RESIZE_LINEAR,
                  PLUMB_RT_COORD_HALF_PIXEL);
  const float w[] = {1,   1.25, 1.75, 2,   1.5, 1.75, 2.25, 2.5,
                     2.5, 2.75, 3.25, 3.5, 3,   3.25, 3.75, 4};
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(y[i], w[i]) << i;
  y = resize(x, {1, 1, 2, 2}, {1, 1, 4, 4}, sc, PLUMB_RT_RESIZE_LINEAR,
             PLUMB_RT_COORD_ALIGN_CORNERS);
  const double wa[] = {1, 1.3333333, 1.6666667, 2, 1.6666666, 2, 2.3333333,
                       2.6666667, 2.3333333, 2.6666665, 3, 3.3333333, 3,
                       3.3333333, 3.6666667, 4};
  for (int i = 0; i < 16; ++i)
    EXPECT_NEAR(y[i], wa[i], 1e-6) << i;
  std::vector<float> x8 = {1, 2, 3, 4, 5, 6, 7, 8};
  const float sd[] = {1, 1, 0.6f, 0.6f};
  y = resize(x8, {1, 1, 2, 4}, {1, 1, 1, 2}, sd, PLUMB_RT_RESIZE_LINEAR,
             PLUMB_RT_COORD_HALF_PIXEL);
  EXPECT_NEAR(y[0], 2.6666665, 1e-6);
  EXPECT_NEAR(y[1], 4.3333331, 1e-6);
  // pytorch_half_pixel with an output dim of 1 uses coordinate 0.
  y = resize(x8, {1, 1, 2, 4}, {1, 1, 1, 3}, nullptr, PLUMB_RT_RESIZE_LINEAR,
             PLUMB_RT_COORD_PYTORCH_HALF_PIXEL);
  EXPECT_NEAR(y[0], 1.1666666, 1e-6);
  EXPECT_NEAR(y[1], 2.5, 1e-6);
  EXPECT_NEAR(y[2], 3.8333333, 1e-6);
}

TEST(Resize, BilinearDocumentedFormulaBitwiseAndThreads) {
  std::mt19937 g(4);
  std::uniform_real_distribution<float> d(-1, 1);
  const int64_t N = 2, C = 3, H = 7, W = 9, OH = 12, OW = 5;
  std::vector<float> x((size_t)(N * C * H * W));
  for (auto &v : x)
    v = d(g);
  for (int coord : {PLUMB_RT_COORD_HALF_PIXEL, PLUMB_RT_COORD_ASYMMETRIC,
                    PLUMB_RT_COORD_ALIGN_CORNERS,
                    PLUMB_RT_COORD_PYTORCH_HALF_PIXEL}) {
    plumb_rt_set_threads(1);
    auto y = resize(x, {N, C, H, W}, {N, C, OH, OW}, nullptr,
                    PLUMB_RT_RESIZE_LINEAR, coord);
    auto axis = [&](int64_t i, int64_t in, int64_t out, int64_t &i0,
                    int64_t &i1, float &l) {
      float scale = (float)out / (float)in, c;
      float fi = (float)i;
      if (coord == PLUMB_RT_COORD_HALF_PIXEL ||
          coord == PLUMB_RT_COORD_PYTORCH_HALF_PIXEL)
        c = (fi + 0.5f) / scale - 0.5f;
      else if (coord == PLUMB_RT_COORD_ASYMMETRIC)
        c = fi / scale;
      else
        c = (fi * (float)(in - 1)) / (float)(out - 1);
      c = std::min(std::max(c, 0.0f), (float)(in - 1));
      i0 = (int64_t)std::floor(c);
      i1 = std::min(i0 + 1, in - 1);
      l = c - (float)i0;
    };
    for (int64_t p = 0; p < N * C; ++p)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          int64_t h0, h1, w0, w1;
          float lh, lw;
          axis(i, H, OH, h0, h1, lh);
          axis(j, W, OW, w0, w1, lw);
          const float *q = x.data() + p * H * W;
          auto row = [&](int64_t h) {
            float a = q[h * W + w0];
            if (lw == 0.0f)
              return a;
            return (a * (1.0f - lw)) + (q[h * W + w1] * lw);
          };
          float top = row(h0);
          float want =
              lh == 0.0f ? top : (top * (1.0f - lh)) + (row(h1) * lh);
          ASSERT_EQ(y[(size_t)((p * OH + i) * OW + j)], want)
              << coord << " " << i << "," << j;
        }
    for (int t : {2, 3, 8}) {
      plumb_rt_set_threads(t);
      auto z = resize(x, {N, C, H, W}, {N, C, OH, OW}, nullptr,
                      PLUMB_RT_RESIZE_LINEAR, coord);
      ASSERT_EQ(z, y);
    }
  }
  plumb_rt_set_threads(1);
  // 1-D linear.
  std::vector<float> v = {0, 10, 20};
  auto y1 = resize(v, {3}, {6}, nullptr, PLUMB_RT_RESIZE_LINEAR,
                   PLUMB_RT_COORD_HALF_PIXEL);
  const float w1[] = {0, 2.5f, 7.5f, 12.5f, 17.5f, 20};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(y1[i], w1[i]) << i;
  float bad[3];
  int64_t s3[] = {3}, s6[] = {6};
  EXPECT_EQ(plumb_rt_resize_f32(v.data(), s3, 1, s6, nullptr, 7, 0, 0, bad),
            PLUMB_RT_EINVAL);
}

namespace {
std::vector<float> cubic(const std::vector<float> &x, std::vector<int64_t> in,
                         std::vector<int64_t> out, const float *scales,
                         int coord, float a = -0.75f, int exclude = 0) {
  int64_t n = 1;
  for (auto d : out)
    n *= d;
  std::vector<float> y((size_t)n);
  EXPECT_EQ(plumb_rt_resize_cubic_f32(x.data(), in.data(), (int)in.size(),
                                      out.data(), scales, coord, a, exclude,
                                      y.data()),
            0);
  return y;
}
} // namespace

// onnx/backend/test/case/node/resize.py: upsample_scales_cubic (A = -0.75,
// half_pixel), the first output row; align_corners and exclude_outside
// variants, whose expected values the backend tests' own data fix (the e2e
// node-test list runs them).
TEST(Resize, OnnxCubicExample) {
  const float sc[] = {1, 1, 2, 2};
  auto y = cubic(iota(16), {1, 1, 4, 4}, {1, 1, 8, 8}, sc,
                 PLUMB_RT_COORD_HALF_PIXEL);
  const double w[] = {0.47265625, 0.76953125, 1.24609375, 1.875,
                      2.28125,    2.91015625, 3.38671875, 3.68359375};
  for (int i = 0; i < 8; ++i)
    EXPECT_NEAR(y[i], w[i], 1e-6) << i;
  // A constant stays that constant up to the weights' rounding.
  std::vector<float> c(35, 2.5f);
  auto z = cubic(c, {5, 7}, {9, 4}, nullptr, PLUMB_RT_COORD_ASYMMETRIC, -0.5f,
                 1);
  for (float v : z)
    EXPECT_NEAR(v, 2.5f, 2e-6);
}

// The contract's sequence (resize.h), written out for 2-D: taps and weights
// per dim, rows (W) combined first, then the row values (H); bitwise, and
// the same at every thread count.
TEST(Resize, BicubicDocumentedFormulaBitwiseAndThreads) {
  std::mt19937 g(11);
  std::uniform_real_distribution<float> d(-1, 1);
  const int64_t N = 2, C = 2, H = 6, W = 9, OH = 13, OW = 5;
  std::vector<float> x((size_t)(N * C * H * W));
  for (auto &v : x)
    v = d(g);
  for (int coord : {PLUMB_RT_COORD_HALF_PIXEL, PLUMB_RT_COORD_ASYMMETRIC,
                    PLUMB_RT_COORD_ALIGN_CORNERS,
                    PLUMB_RT_COORD_PYTORCH_HALF_PIXEL})
    for (int exclude : {0, 1})
      for (float A : {-0.75f, -0.5f}) {
        plumb_rt_set_threads(1);
        auto y = cubic(x, {N, C, H, W}, {N, C, OH, OW}, nullptr, coord, A,
                       exclude);
        auto taps = [&](int64_t i, int64_t in, int64_t out, int64_t *idx,
                        float *wt) {
          const float scale = (float)out / (float)in, fi = (float)i;
          float c;
          if (coord == PLUMB_RT_COORD_HALF_PIXEL)
            c = (fi + 0.5f) / scale - 0.5f;
          else if (coord == PLUMB_RT_COORD_PYTORCH_HALF_PIXEL)
            c = out > 1 ? (fi + 0.5f) / scale - 0.5f : 0.0f;
          else if (coord == PLUMB_RT_COORD_ASYMMETRIC)
            c = fi / scale;
          else
            c = out == 1 ? 0.0f : (fi * (float)(in - 1)) / (float)(out - 1);
          const float f = std::floor(c), r = c - f;
          const int64_t fl = (int64_t)f;
          auto clampi = [&](int64_t j) {
            return std::min(std::max(j, (int64_t)0), in - 1);
          };
          if (r == 0.0f) {
            idx[0] = clampi(fl);
            return 1;
          }
          auto far = [&](float t) {
            return ((A * t - A * 5.0f) * t + A * 8.0f) * t - A * 4.0f;
          };
          auto near = [&](float t) {
            return (((A + 2.0f) * t - (A + 3.0f)) * t) * t + 1.0f;
          };
          const float s = 1.0f - r;
          wt[0] = far(r + 1.0f);
          wt[1] = near(r);
          wt[2] = near(s);
          wt[3] = far(s + 1.0f);
          float sum = 0.0f;
          for (int k = 0; k < 4; ++k) {
            const int64_t j = fl - 1 + k;
            if (exclude && (j < 0 || j >= in))
              wt[k] = 0.0f;
            idx[k] = clampi(j);
            sum = k == 0 ? wt[0] : sum + wt[k];
          }
          if (exclude)
            for (int k = 0; k < 4; ++k)
              wt[k] = wt[k] / sum;
          return 4;
        };
        for (int64_t p = 0; p < N * C; ++p)
          for (int64_t i = 0; i < OH; ++i)
            for (int64_t j = 0; j < OW; ++j) {
              int64_t hi[4], wi[4];
              float hw[4], ww[4];
              const int nh = taps(i, H, OH, hi, hw);
              const int nw = taps(j, W, OW, wi, ww);
              const float *q = x.data() + p * H * W;
              auto row = [&](int64_t h) {
                if (nw == 1)
                  return q[h * W + wi[0]];
                float a = ww[0] * q[h * W + wi[0]];
                for (int k = 1; k < 4; ++k)
                  a = a + ww[k] * q[h * W + wi[k]];
                return a;
              };
              float want;
              if (nh == 1) {
                want = row(hi[0]);
              } else {
                want = hw[0] * row(hi[0]);
                for (int k = 1; k < 4; ++k)
                  want = want + hw[k] * row(hi[k]);
              }
              ASSERT_EQ(y[(size_t)((p * OH + i) * OW + j)], want)
                  << coord << " " << exclude << " " << A << " " << i << ","
                  << j;
            }
        for (int t : {2, 3}) {
          plumb_rt_set_threads(t);
          ASSERT_EQ(cubic(x, {N, C, H, W}, {N, C, OH, OW}, nullptr, coord, A,
                          exclude),
                    y);
        }
      }
  plumb_rt_set_threads(1);
  float bad[3];
  std::vector<float> v = {0, 10, 20};
  int64_t s3[] = {3}, s6[] = {6};
  EXPECT_EQ(plumb_rt_resize_cubic_f32(v.data(), s3, 1, s6, nullptr,
                                      PLUMB_RT_COORD_TF_HALF_PIXEL_FOR_NN,
                                      -0.75f, 0, bad),
            PLUMB_RT_EINVAL);
}

namespace {
uint32_t gsBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// docs/determinism.md "GridSample", transcribed: one float32 operation at a
// time, with std::floor / std::nearbyint (round half to even) / std::abs.
struct GsRef {
  int mode, pad, align, k;
  int64_t in[3];
  float lo(int d) const { return align ? 0.0f : -0.5f; }
  float hi(int d) const {
    return align ? (float)in[d] - 1.0f : (float)in[d] - 0.5f;
  }
  float unnorm(float g, int64_t L) const {
    if (align)
      return ((g + 1.0f) / 2.0f) * (float)(L - 1);
    return ((g + 1.0f) * (float)L - 1.0f) / 2.0f;
  }
  int64_t tap(int d, int64_t i) const {
    const int64_t L = in[d];
    if (pad == PLUMB_RT_GRID_ZEROS)
      return i >= 0 && i < L ? i : -1;
    if (pad == PLUMB_RT_GRID_BORDER)
      return std::min(std::max(i, (int64_t)0), L - 1);
    float v = (float)i;
    const float l = lo(d), h = hi(d), range = h - l;
    if (v < l || v > h) {
      const float dx = v < l ? l - v : v - h;
      const float n = std::floor(dx / range);
      const float r = dx - n * range;
      const bool even = ((int64_t)n % 2) == 0;
      v = v < l ? (even ? l + r : h - r) : (even ? h - r : l + r);
    }
    return std::min(std::max((int64_t)v, (int64_t)0), L - 1);
  }
  float pix(const float *x, const int64_t *t) const {
    int64_t off = 0;
    for (int d = 0; d < k; ++d) {
      if (t[d] < 0)
        return 0.0f;
      off = off * in[d] + t[d];
    }
    return x[off];
  }
  static void cubicW(float t, float *w) {
    const float A = -0.75f;
    t = std::abs(t);
    const float u1 = t + 1.0f, s = 1.0f - t, u2 = 2.0f - t;
    w[0] = ((A * u1 - A * 5.0f) * u1 + A * 8.0f) * u1 - A * 4.0f;
    w[1] = (((A + 2.0f) * t - (A + 3.0f)) * t) * t + 1.0f;
    w[2] = (((A + 2.0f) * s - (A + 3.0f)) * s) * s + 1.0f;
    w[3] = ((A * u2 - A * 5.0f) * u2 + A * 8.0f) * u2 - A * 4.0f;
  }
  // gp: x first; dims of c, t: (D,) H, W.
  float value(const float *x, const float *gp) const {
    float c[3];
    for (int d = 0; d < k; ++d)
      c[d] = unnorm(gp[k - 1 - d], in[d]);
    int64_t t[3];
    if (mode == PLUMB_RT_GRID_NEAREST) {
      for (int d = 0; d < k; ++d)
        t[d] = tap(d, (int64_t)std::nearbyint(c[d]));
      return pix(x, t);
    }
    if (mode == PLUMB_RT_GRID_LINEAR) {
      int64_t f[3];
      float w1[3], w2[3];
      for (int d = 0; d < k; ++d) {
        const float fl = std::floor(c[d]);
        f[d] = (int64_t)fl;
        w1[d] = (fl + 1.0f) - c[d];
        w2[d] = c[d] - fl;
      }
      const int yd = k - 2, xd = k - 1;
      auto plane = [&]() {
        float r[2];
        for (int a = 0; a < 2; ++a) {
          t[yd] = tap(yd, f[yd] + a);
          t[xd] = tap(xd, f[xd]);
          const float p0 = pix(x, t);
          t[xd] = tap(xd, f[xd] + 1);
          const float p1 = pix(x, t);
          r[a] = w1[xd] * p0 + w2[xd] * p1;
        }
        return w1[yd] * r[0] + w2[yd] * r[1];
      };
      if (k == 2)
        return plane();
      t[0] = tap(0, f[0]);
      const float v0 = plane();
      t[0] = tap(0, f[0] + 1);
      const float v1 = plane();
      return w1[0] * v0 + w2[0] * v1;
    }
    float wy[4], wx[4];
    const float fy = std::floor(c[0]), fx = std::floor(c[1]);
    cubicW((c[0] - (fy - 1.0f)) - 1.0f, wy);
    cubicW((c[1] - (fx - 1.0f)) - 1.0f, wx);
    float v[4];
    for (int h = 0; h < 4; ++h) {
      t[0] = tap(0, (int64_t)fy - 1 + h);
      float row[4];
      for (int q = 0; q < 4; ++q) {
        t[1] = tap(1, (int64_t)fx - 1 + q);
        row[q] = pix(x, t);
      }
      v[h] = ((wx[0] * row[0] + wx[1] * row[1]) + wx[2] * row[2]) + wx[3] * row[3];
    }
    return ((wy[0] * v[0] + wy[1] * v[1]) + wy[2] * v[2]) + wy[3] * v[3];
  }
};

std::vector<float> gridSample(const std::vector<float> &x,
                              std::vector<int64_t> in, const std::vector<float> &g,
                              std::vector<int64_t> out, int mode, int pad,
                              int align) {
  int64_t n = 1;
  for (auto d : out)
    n *= d;
  std::vector<float> y((size_t)n);
  EXPECT_EQ(plumb_rt_grid_sample_f32(x.data(), in.data(), (int)in.size(),
                                     g.data(), out.data(), mode, pad, align,
                                     y.data()),
            0);
  return y;
}
} // namespace

// The kernel against the transcription above, bit for bit, for every mode,
// padding and align_corners in 2-D (and linear / nearest in 3-D), with grid
// points inside and outside [-1, 1] and on exact pixel centres and halves;
// the same bits at 1, 2 and 3 threads (the outputs have enough rows to be
// split).
TEST(GridSample, DocumentedFormulaBitwiseAndThreads) {
  std::mt19937 gen(23);
  std::uniform_real_distribution<float> d(-1, 1), e(-1.7f, 1.7f);
  for (int k : {2, 3}) {
    const int64_t N = 2, C = 3;
    std::vector<int64_t> in = k == 2 ? std::vector<int64_t>{N, C, 5, 7}
                                     : std::vector<int64_t>{N, C, 3, 4, 5};
    std::vector<int64_t> out = k == 2 ? std::vector<int64_t>{N, C, 40, 37}
                                      : std::vector<int64_t>{N, C, 6, 8, 30};
    int64_t nx = 1, pts = N;
    for (auto v : in)
      nx *= v;
    for (size_t i = 2; i < out.size(); ++i)
      pts *= out[i];
    std::vector<float> x((size_t)nx), g((size_t)(pts * k));
    for (auto &v : x)
      v = d(gen);
    for (auto &v : g)
      v = e(gen);
    // Exact points: the corners, the centre, a half-pixel tie.
    const float exact[] = {-1.0f, 1.0f, 0.0f, 0.2f, -0.6f, 1.5f};
    for (size_t i = 0; i < 6 * (size_t)k && i < g.size(); ++i)
      g[i] = exact[(i / k) % 6];
    for (int mode : {PLUMB_RT_GRID_LINEAR, PLUMB_RT_GRID_NEAREST,
                     PLUMB_RT_GRID_CUBIC}) {
      if (mode == PLUMB_RT_GRID_CUBIC && k == 3)
        continue;
      for (int pad : {PLUMB_RT_GRID_ZEROS, PLUMB_RT_GRID_BORDER,
                      PLUMB_RT_GRID_REFLECTION})
        for (int align : {0, 1}) {
          plumb_rt_set_threads(1);
          auto y = gridSample(x, in, g, out, mode, pad, align);
          GsRef r{mode, pad, align, k, {in[2], in[3], k == 3 ? in[4] : 0}};
          const int64_t spIn = nx / (N * C), spOut = pts / N;
          for (int64_t nc = 0; nc < N * C; ++nc)
            for (int64_t p = 0; p < spOut; ++p) {
              const float want =
                  r.value(x.data() + nc * spIn,
                          g.data() + ((nc / C) * spOut + p) * k);
              ASSERT_EQ(gsBits(y[(size_t)(nc * spOut + p)]), gsBits(want))
                  << "k " << k << " mode " << mode << " pad " << pad
                  << " align " << align << " at " << nc << "," << p;
            }
          for (int t : {2, 3}) {
            plumb_rt_set_threads(t);
            ASSERT_EQ(gridSample(x, in, g, out, mode, pad, align), y);
          }
        }
    }
  }
  plumb_rt_set_threads(1);
}

// A 4x4 image of 1..16 at eight grid points (zeros, align_corners 0): the
// bits onnxruntime 1.23 gives for each mode. Nearest rounds half to even:
// grid 0 is source coordinate 1.5 -> 2 (value 11), -0.5 is 0.5 -> 0 (1).
// A grid point with a NaN coordinate gives the canonical NaN; bad
// arguments are refused.
TEST(GridSample, OnnxruntimeValuesNaNAndErrors) {
  std::vector<float> x = iota(16);
  std::vector<float> g = {-1.0f, -1.0f, -0.5f, -0.5f, -0.2f, -0.2f, 0.0f, 0.0f,
                          0.0f,  0.0f,  -0.2f, -0.2f, 0.5f,  0.5f,  1.0f, 1.0f};
  const uint32_t want[3][8] = {
      {0x3E800000, 0x40600000, 0x40D00000, 0x41080000, 0x41080000, 0x40D00000,
       0x41580000, 0x40800000},
      {0x3F800000, 0x3F800000, 0x40C00000, 0x41300000, 0x41300000, 0x40C00000,
       0x41300000, 0x00000000},
      {0x3C800000, 0x405AC000, 0x40D5C298, 0x41080000, 0x41080000, 0x40D5C298,
       0x41875A00, 0x40878000}};
  for (int mode : {0, 1, 2}) {
    auto y = gridSample(x, {1, 1, 4, 4}, g, {1, 1, 2, 4}, mode,
                        PLUMB_RT_GRID_ZEROS, 0);
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(gsBits(y[i]), want[mode][i]) << mode << " " << i;
  }
  std::vector<float> gn = {std::nanf(""), 0.0f};
  for (int mode : {0, 1, 2}) {
    auto z = gridSample(x, {1, 1, 4, 4}, gn, {1, 1, 1, 1}, mode,
                        PLUMB_RT_GRID_BORDER, 0);
    EXPECT_EQ(gsBits(z[0]), 0x7FC00000u) << mode;
  }
  float out[4];
  int64_t s4[] = {1, 1, 4, 4}, o4[] = {1, 1, 1, 1}, o5[] = {1, 1, 1, 1, 1},
          s5[] = {1, 1, 2, 2, 2}, bad[] = {2, 1, 1, 1};
  EXPECT_EQ(plumb_rt_grid_sample_f32(x.data(), s4, 4, g.data(), bad, 0, 0, 0,
                                     out),
            PLUMB_RT_EINVAL); // batch differs
  EXPECT_EQ(plumb_rt_grid_sample_f32(x.data(), s4, 4, g.data(), o4, 3, 0, 0,
                                     out),
            PLUMB_RT_EINVAL); // mode
  EXPECT_EQ(plumb_rt_grid_sample_f32(x.data(), s4, 4, g.data(), o4, 0, 3, 0,
                                     out),
            PLUMB_RT_EINVAL); // padding
  EXPECT_EQ(plumb_rt_grid_sample_f32(x.data(), s5, 5, g.data(), o5,
                                     PLUMB_RT_GRID_CUBIC, 0, 0, out),
            PLUMB_RT_EINVAL); // cubic is 4-D only
  EXPECT_EQ(plumb_rt_grid_sample_f32(x.data(), s4, 3, g.data(), o4, 0, 0, 0,
                                     out),
            PLUMB_RT_EINVAL); // rank
}
