//===- test/unit/runtime/norm_test.cpp - Normalisation kernels -*- C++ -*-===//
//
// Part of Plumb. BatchNormalization / LayerNormalization /
// InstanceNormalization: bitwise against the documented sequence, float64
// tolerance, thread invariance.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/norm.h"
#include "plumb/runtime/threads.h"
#include "plumb/runtime/tree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {
std::vector<float> randomFloats(size_t n, uint32_t seed, float lo = -3,
                                float hi = 3) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(g);
  return v;
}
} // namespace

TEST(Norm, BatchNormExactSequence) {
  const int64_t n = 2, c = 3, s = 5;
  auto x = randomFloats(n * c * s, 1);
  auto scale = randomFloats(c, 2), bias = randomFloats(c, 3),
       mean = randomFloats(c, 4), var = randomFloats(c, 5, 0.1f, 2.0f);
  std::vector<float> y(x.size());
  const float eps = 1e-5f;
  ASSERT_EQ(plumb_rt_batchnorm_f32(x.data(), n, c, s, scale.data(), bias.data(),
                                   mean.data(), var.data(), eps, y.data()),
            0);
  for (int64_t i = 0; i < n * c * s; ++i) {
    const int64_t k = (i / s) % c;
    float sd = std::sqrt(var[k] + eps);
    float t = x[i] - mean[k];
    t = t / sd;
    t = t * scale[k];
    float want = t + bias[k];
    ASSERT_EQ(y[i], want);
    double d = (x[i] - (double)mean[k]) / std::sqrt((double)var[k] + eps) *
                   scale[k] +
               bias[k];
    ASSERT_NEAR(y[i], d, 1e-5);
  }
}

TEST(Norm, LayerNormExactSequenceAndOutputs) {
  for (int64_t d : {1, 7, 64, 300}) {
    for (int64_t block : {0, 4, 32}) {
      const int64_t outer = 11; // one 8-row group + 3
      auto x = randomFloats(outer * d, (uint32_t)d);
      auto scale = randomFloats(d, 9), bias = randomFloats(d, 10);
      std::vector<float> y(x.size()), mo(outer), io(outer);
      const float eps = 1e-5f;
      ASSERT_EQ(plumb_rt_layernorm_f32(x.data(), outer, d, scale.data(),
                                       bias.data(), eps, y.data(), mo.data(),
                                       io.data(), block),
                0);
      std::vector<float> sc((size_t)d + 1), dev((size_t)d);
      for (int64_t r = 0; r < outer; ++r) {
        const float *p = x.data() + r * d;
        float mean = plumb::rt::treeSum(p, d, 1, block, sc.data()) / (float)d;
        for (int64_t i = 0; i < d; ++i)
          dev[i] = p[i] - mean;
        float var = plumb::rt::treeDot(dev.data(), 1, dev.data(), 1, d, block,
                                       sc.data()) /
                    (float)d;
        float sd = std::sqrt(var + eps);
        EXPECT_EQ(mo[r], mean);
        EXPECT_EQ(io[r], 1.0f / sd);
        double dm = 0, dv = 0;
        for (int64_t i = 0; i < d; ++i)
          dm += p[i];
        dm /= d;
        for (int64_t i = 0; i < d; ++i)
          dv += (p[i] - dm) * (p[i] - dm);
        dv /= d;
        for (int64_t i = 0; i < d; ++i) {
          float t = dev[i] / sd;
          t = t * scale[i];
          ASSERT_EQ(y[r * d + i], t + bias[i]);
          double want = (p[i] - dm) / std::sqrt(dv + eps) * scale[i] + bias[i];
          ASSERT_NEAR(y[r * d + i], want, 2e-5 * (1 + std::fabs(want)));
        }
      }
      // No bias, in place, threads.
      std::vector<float> ref(x.size());
      plumb_rt_set_threads(1);
      ASSERT_EQ(plumb_rt_layernorm_f32(x.data(), outer, d, scale.data(),
                                       nullptr, eps, ref.data(), nullptr,
                                       nullptr, block),
                0);
      for (int t : {2, 3, 4, 8}) {
        plumb_rt_set_threads(t);
        std::vector<float> z(x);
        ASSERT_EQ(plumb_rt_layernorm_f32(z.data(), outer, d, scale.data(),
                                         nullptr, eps, z.data(), nullptr,
                                         nullptr, block),
                  0);
        ASSERT_EQ(0, std::memcmp(z.data(), ref.data(), z.size() * 4));
      }
      plumb_rt_set_threads(1);
    }
  }
}

TEST(Norm, InstanceNormMatchesLayerNormPerChannel) {
  const int64_t n = 2, c = 3, s = 50;
  auto x = randomFloats(n * c * s, 21);
  auto scale = randomFloats(c, 22), bias = randomFloats(c, 23);
  std::vector<float> y(x.size()), r(x.size());
  ASSERT_EQ(plumb_rt_instancenorm_f32(x.data(), n, c, s, scale.data(),
                                      bias.data(), 1e-5f, y.data(), 16),
            0);
  for (int64_t row = 0; row < n * c; ++row) {
    std::vector<float> sv((size_t)s, scale[row % c]), bv((size_t)s, bias[row % c]);
    ASSERT_EQ(plumb_rt_layernorm_f32(x.data() + row * s, 1, s, sv.data(),
                                     bv.data(), 1e-5f, r.data() + row * s,
                                     nullptr, nullptr, 16),
              0);
  }
  EXPECT_EQ(0, std::memcmp(y.data(), r.data(), y.size() * 4));
}
