//===- test/unit/runtime/pool_test.cpp - Pooling kernels -----*- C++ -*-===//
//
// Part of Plumb. MaxPool / AveragePool / global pools against ONNX examples,
// hand-computed values and a naive window walk; output-shape rules; threads.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/pool.h"
#include "plumb/runtime/threads.h"
#include "plumb/runtime/tree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {
std::vector<float> iota(size_t n, float start = 1.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + (float)i;
  return v;
}
} // namespace

TEST(Pool, OutputShapeRules) {
  int64_t in[] = {32, 32}, k[] = {2, 2}, s[] = {2, 2}, out[2];
  int64_t pads[] = {0, 0, 0, 0};
  ASSERT_EQ(plumb_rt_pool_output_shape(2, in, k, s, pads, nullptr,
                                       PLUMB_RT_AUTO_PAD_NOTSET, 0, out),
            0);
  EXPECT_EQ(out[0], 16);
  // ceil_mode: 5x5, k3, s2 -> floor 2, ceil 2 ((5-3)/2+1 = 2 both); 6x6 k3 s2:
  // floor 2, ceil 3.
  int64_t in6[] = {6, 6}, k3[] = {3, 3};
  ASSERT_EQ(plumb_rt_pool_output_shape(2, in6, k3, s, pads, nullptr, 0, 0, out),
            0);
  EXPECT_EQ(out[0], 2);
  ASSERT_EQ(plumb_rt_pool_output_shape(2, in6, k3, s, pads, nullptr, 0, 1, out),
            0);
  EXPECT_EQ(out[0], 3);
  // A last window that would start in the end padding is dropped:
  // in 4, k 2, s 2, pads (1, 1): span 4 -> ceil(4/2)+1 = 3, start 4 >= 4+1? no
  // -> 3; in 4, k 1, s 2, pads (0, 1): span 4 -> 3 windows, starts 0,2,4;
  // 4 >= 4 + 0 -> dropped -> 2.
  int64_t in4[] = {4}, k1[] = {1}, s2[] = {2}, p01[] = {0, 1};
  ASSERT_EQ(plumb_rt_pool_output_shape(1, in4, k1, s2, p01, nullptr, 0, 1, out),
            0);
  EXPECT_EQ(out[0], 2);
  // SAME_UPPER: in 5, k 3, s 2 -> out 3, total pad 2 -> (1, 1); in 4 k 3 s 1
  // -> out 4, total 2 -> (1,1); in 4 k 2 s 1 -> total 1 -> (0, 1) upper, (1,0)
  // lower.
  int64_t in5[] = {5}, k2[] = {2}, s1[] = {1}, p[2] = {0, 0};
  ASSERT_EQ(plumb_rt_pool_output_shape(1, in4, k2, s1, p, nullptr,
                                       PLUMB_RT_AUTO_PAD_SAME_UPPER, 0, out),
            0);
  EXPECT_EQ(out[0], 4);
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  ASSERT_EQ(plumb_rt_pool_output_shape(1, in4, k2, s1, p, nullptr,
                                       PLUMB_RT_AUTO_PAD_SAME_LOWER, 0, out),
            0);
  EXPECT_EQ(p[0], 1);
  EXPECT_EQ(p[1], 0);
  int64_t k3a[] = {3};
  ASSERT_EQ(plumb_rt_pool_output_shape(1, in5, k3a, s2, p, nullptr,
                                       PLUMB_RT_AUTO_PAD_VALID, 0, out),
            0);
  EXPECT_EQ(out[0], 2);
}

TEST(Pool, MaxPoolOnnxExamples) {
  // maxpool_2d_pads: 5x5 iota, k 5, pads 2 -> each output = max of the
  // clipped 5x5 window.
  auto x = iota(25);
  int64_t in[] = {5, 5}, out[] = {5, 5}, k[] = {5, 5}, s[] = {1, 1},
          pads[] = {2, 2, 2, 2};
  std::vector<float> y(25);
  std::vector<int64_t> idx(25);
  ASSERT_EQ(plumb_rt_maxpool_f32(x.data(), 1, 1, 2, in, out, k, s, pads,
                                 nullptr, y.data(), idx.data()),
            0);
  const float want[] = {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25,
                        25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25};
  for (int i = 0; i < 25; ++i) {
    EXPECT_EQ(y[i], want[i]) << i;
    EXPECT_EQ(idx[i], (int64_t)want[i] - 1) << i;
  }
  // maxpool_2d_dilations: 4x4 iota, k 2, dilation 2 -> [[11,12],[15,16]].
  auto x4 = iota(16);
  int64_t in4[] = {4, 4}, o2[] = {2, 2}, k2[] = {2, 2}, d2[] = {2, 2},
          p0[] = {0, 0, 0, 0};
  float y4[4];
  ASSERT_EQ(plumb_rt_maxpool_f32(x4.data(), 1, 1, 2, in4, o2, k2, s, p0, d2,
                                 y4, nullptr),
            0);
  EXPECT_EQ(y4[0], 11);
  EXPECT_EQ(y4[1], 12);
  EXPECT_EQ(y4[2], 15);
  EXPECT_EQ(y4[3], 16);
  // maxpool_2d_ceil: 4x4 iota, k 3, s 2, ceil -> [[11,12],[15,16]].
  int64_t k3[] = {3, 3}, s2[] = {2, 2}, oc[2], pz[] = {0, 0, 0, 0};
  ASSERT_EQ(plumb_rt_pool_output_shape(2, in4, k3, s2, pz, nullptr, 0, 1, oc),
            0);
  ASSERT_EQ(oc[0], 2);
  ASSERT_EQ(plumb_rt_maxpool_f32(x4.data(), 1, 1, 2, in4, oc, k3, s2, pz,
                                 nullptr, y4, nullptr),
            0);
  EXPECT_EQ(y4[0], 11);
  EXPECT_EQ(y4[1], 12);
  EXPECT_EQ(y4[2], 15);
  EXPECT_EQ(y4[3], 16);
  // NaN and signed zero; Indices of the second plane include the plane
  // offset.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float z[] = {-0.0f, 0.0f, 1, nan, /**/ 5, 7, 7, 2};
  int64_t in1[] = {4}, ou1[] = {2}, kk[] = {2}, ss[] = {2}, pp[] = {0, 0};
  float zy[4];
  int64_t zi[4];
  ASSERT_EQ(plumb_rt_maxpool_f32(z, 1, 2, 1, in1, ou1, kk, ss, pp, nullptr, zy,
                                 zi),
            0);
  uint32_t b0;
  std::memcpy(&b0, &zy[0], 4);
  EXPECT_EQ(b0, 0u);
  EXPECT_EQ(zi[0], 1);
  std::memcpy(&b0, &zy[1], 4);
  EXPECT_EQ(b0, PLUMB_CANONICAL_NAN_BITS);
  EXPECT_EQ(zi[1], 3);
  EXPECT_EQ(zy[2], 7);
  EXPECT_EQ(zi[2], 5);
  EXPECT_EQ(zi[3], 6);
}

TEST(Pool, AveragePoolCountIncludePad) {
  // averagepool_2d_pads_count_include_pad: 5x5 iota, k 3, pads 2, s 1 ->
  // 7x7 output; corner = 1/9, count_include_pad=0 corner = 1.
  auto x = iota(25);
  int64_t in[] = {5, 5}, out[] = {7, 7}, k[] = {3, 3}, s[] = {1, 1},
          pads[] = {2, 2, 2, 2};
  std::vector<float> y(49);
  ASSERT_EQ(plumb_rt_avgpool_f32(x.data(), 1, 1, 2, in, out, k, s, pads,
                                 nullptr, 1, y.data()),
            0);
  EXPECT_EQ(y[0], 1.0f / 9.0f);
  EXPECT_EQ(y[1], 3.0f / 9.0f);                     // (1 + 2) / 9
  EXPECT_EQ(y[2 * 7 + 2], 63.0f / 9.0f);            // full window at (0,0)
  ASSERT_EQ(plumb_rt_avgpool_f32(x.data(), 1, 1, 2, in, out, k, s, pads,
                                 nullptr, 0, y.data()),
            0);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.5f);
  EXPECT_EQ(y[8], (((1.0f + 2.0f) + 6.0f) + 7.0f) / 4.0f);
  // Sum order is sequential row-major from -0.0: compare against a naive walk
  // on random data, 1-D/2-D/3-D with strides, pads, dilations.
  std::mt19937 g(3);
  std::uniform_real_distribution<float> d(-1, 1);
  struct C {
    int32_t sd;
    int64_t in[3], k[3], s[3], pad[6], dil[3];
  } cases[] = {{1, {20}, {4}, {3}, {1, 2}, {2}},
               {2, {9, 11}, {3, 2}, {2, 3}, {1, 0, 2, 1}, {1, 2}},
               {3, {5, 6, 7}, {2, 3, 2}, {1, 2, 2}, {1, 0, 1, 0, 1, 1}, {2, 1, 1}},
               // Wide rows: 16-lane blocks plus tails, strides 1 / 2 / 3.
               {2, {7, 40}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
               {2, {6, 53}, {2, 3}, {2, 2}, {0, 1, 1, 1}, {1, 2}},
               {2, {5, 70}, {3, 2}, {1, 3}, {1, 1, 0, 1}, {1, 1}}};
  for (const C &c : cases) {
    int64_t out[3];
    int64_t pads6[6];
    std::memcpy(pads6, c.pad, sizeof(pads6));
    ASSERT_EQ(plumb_rt_pool_output_shape(c.sd, c.in, c.k, c.s, pads6, c.dil, 0,
                                         0, out),
              0);
    int64_t insz = 1, outsz = 1;
    for (int i = 0; i < c.sd; ++i) {
      insz *= c.in[i];
      outsz *= out[i];
    }
    std::vector<float> xx((size_t)(2 * insz));
    for (auto &v : xx)
      v = d(g);
    for (int cip = 0; cip < 2; ++cip) {
      std::vector<float> yy((size_t)(2 * outsz)), ym((size_t)(2 * outsz));
      ASSERT_EQ(plumb_rt_avgpool_f32(xx.data(), 2, 1, c.sd, c.in, out, c.k,
                                     c.s, c.pad, c.dil, cip, yy.data()),
                0);
      ASSERT_EQ(plumb_rt_maxpool_f32(xx.data(), 1, 2, c.sd, c.in, out, c.k,
                                     c.s, c.pad, c.dil, ym.data(), nullptr),
                0);
      for (int64_t pl = 0; pl < 2; ++pl)
        for (int64_t o = 0; o < outsz; ++o) {
          int64_t oi[3] = {0, 0, 0}, q = o;
          for (int dd = c.sd - 1; dd >= 0; --dd) {
            oi[dd] = q % out[dd];
            q /= out[dd];
          }
          float sum = -0.0f, mx = -INFINITY;
          int64_t valid = 0, padded = 1;
          for (int dd = 0; dd < c.sd; ++dd) {
            int64_t cnt = 0;
            for (int64_t kk = 0; kk < c.k[dd]; ++kk) {
              int64_t p = oi[dd] * c.s[dd] - c.pad[dd] + kk * c.dil[dd];
              if (p >= -c.pad[dd] && p < c.in[dd] + c.pad[c.sd + dd])
                ++cnt;
            }
            padded *= cnt;
          }
          int64_t kn = 1;
          for (int dd = 0; dd < c.sd; ++dd)
            kn *= c.k[dd];
          for (int64_t kw = 0; kw < kn; ++kw) {
            int64_t ki[3] = {0, 0, 0}, r = kw;
            for (int dd = c.sd - 1; dd >= 0; --dd) {
              ki[dd] = r % c.k[dd];
              r /= c.k[dd];
            }
            int64_t off = 0;
            bool ok = true;
            for (int dd = 0; dd < c.sd; ++dd) {
              int64_t p = oi[dd] * c.s[dd] - c.pad[dd] + ki[dd] * c.dil[dd];
              if (p < 0 || p >= c.in[dd])
                ok = false;
              off = off * c.in[dd] + p;
            }
            if (!ok)
              continue;
            float v = xx[(size_t)(pl * insz + off)];
            sum = sum + v;
            mx = v > mx ? v : mx;
            ++valid;
          }
          float want = sum / (float)(cip ? padded : valid);
          ASSERT_EQ(yy[(size_t)(pl * outsz + o)], want);
          ASSERT_EQ(ym[(size_t)(pl * outsz + o)], mx);
        }
    }
  }
}

TEST(Pool, MaxPoolSignedZerosAndNaNWide) {
  // 2 x 37 plane of -0.0 with +0.0 at column 10 and a NaN at column 30:
  // k 1x3, stride 1, pad 1. Windows touching column 10 give +0.0, those
  // touching 30 the canonical NaN, all others -0.0.
  std::vector<float> x(2 * 37, -0.0f), y(2 * 37, 5.0f);
  x[10] = 0.0f;
  uint32_t qnan = 0xFFC12345u;
  std::memcpy(&x[37 + 30], &qnan, 4);
  const int64_t in[2] = {2, 37}, out[2] = {2, 37}, k[2] = {1, 3},
                st[2] = {1, 1}, pads[4] = {0, 1, 0, 1};
  ASSERT_EQ(plumb_rt_maxpool_f32(x.data(), 1, 1, 2, in, out, k, st, pads,
                                 nullptr, y.data(), nullptr),
            0);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 37; ++c) {
      uint32_t b;
      std::memcpy(&b, &y[r * 37 + c], 4);
      uint32_t want = 0x80000000u;
      if (r == 0 && c >= 9 && c <= 11)
        want = 0u;
      if (r == 1 && c >= 29 && c <= 31)
        want = 0x7FC00000u;
      ASSERT_EQ(b, want) << r << "," << c;
    }
}

TEST(Pool, GlobalPoolsAndThreads) {
  std::mt19937 g(8);
  std::uniform_real_distribution<float> d(-1, 1);
  const int64_t nc = 37, sp = 1031;
  std::vector<float> x((size_t)(nc * sp));
  for (auto &v : x)
    v = d(g);
  std::vector<float> ref(nc), y(nc), mx(nc), sc(sp);
  for (int64_t block : {0, 16}) {
    for (int64_t r = 0; r < nc; ++r)
      ref[r] = plumb::rt::treeSum(x.data() + r * sp, sp, 1, block, sc.data()) /
               (float)sp;
    for (int t : {1, 2, 3, 4, 8}) {
      plumb_rt_set_threads(t);
      ASSERT_EQ(plumb_rt_global_pool_f32(x.data(), nc, sp, 0, y.data(), block),
                0);
      ASSERT_EQ(0, std::memcmp(y.data(), ref.data(), nc * 4));
    }
  }
  plumb_rt_set_threads(1);
  ASSERT_EQ(plumb_rt_global_pool_f32(x.data(), nc, sp, 1, mx.data(), 0), 0);
  for (int64_t r = 0; r < nc; ++r) {
    float m = -INFINITY;
    for (int64_t i = 0; i < sp; ++i)
      m = std::max(m, x[r * sp + i]);
    EXPECT_EQ(mx[r], m);
  }
  // Threaded MaxPool equals single-threaded.
  int64_t in[] = {64, 64}, out[] = {32, 32}, k[] = {3, 3}, s[] = {2, 2},
          pads[] = {1, 1, 1, 1};
  std::vector<float> xp(8 * 64 * 64), r1(8 * 32 * 32), r2(r1.size());
  for (auto &v : xp)
    v = d(g);
  ASSERT_EQ(plumb_rt_avgpool_f32(xp.data(), 2, 4, 2, in, out, k, s, pads,
                                 nullptr, 0, r1.data()),
            0);
  for (int t : {2, 3, 8}) {
    plumb_rt_set_threads(t);
    ASSERT_EQ(plumb_rt_avgpool_f32(xp.data(), 2, 4, 2, in, out, k, s, pads,
                                   nullptr, 0, r2.data()),
              0);
    ASSERT_EQ(r1, r2);
  }
  plumb_rt_set_threads(1);
}
