//===- runtime/src/norm.cpp - Normalisation kernels ----------*- C++ -*-===//
//
// Part of Plumb. BatchNormalization, LayerNormalization,
// InstanceNormalization; exact sequences in norm.h. Rows are independent and
// split over threads; inside a row the order is fixed by the tree.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/norm.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/tree.h"

#include "ops_internal.h"

#include <vector>

using namespace plumb::rt::ops;

namespace {

/// One normalised row: y_i = ((d_i / sd) * scale_i) + bias_i where scale and
/// bias advance by sstride (0 = scalar per row). Writes mean and 1/sd.
void normRow(const float *x, int64_t d, const float *scale, int64_t sstride,
             const float *bias, int64_t bstride, float eps, float *y,
             int64_t block, float *scratch, float *meanOut, float *invOut) {
  const float df = (float)d;
  const float mean = ::plumb::rt::treeSum(x, d, 1, block, scratch) / df;
  for (int64_t i = 0; i < d; ++i)
    y[i] = x[i] - mean; // deviations kept in y (x may alias y)
  const float var = ::plumb::rt::treeDot(y, 1, y, 1, d, block, scratch) / df;
  const float sd = sqrtRn(var + eps);
  if (bias) {
    for (int64_t i = 0; i < d; ++i) {
      float t = y[i] / sd;
      t = t * scale[i * sstride];
      y[i] = canon(t + bias[i * bstride]);
    }
  } else {
    for (int64_t i = 0; i < d; ++i) {
      float t = y[i] / sd;
      y[i] = canon(t * scale[i * sstride]);
    }
  }
  if (meanOut)
    *meanOut = canon(mean);
  if (invOut)
    *invOut = canon(1.0f / sd);
}

} // namespace

extern "C" {

int plumb_rt_batchnorm_f32(const float *x, int64_t n, int64_t c,
                           int64_t spatial, const float *scale,
                           const float *bias, const float *mean,
                           const float *var, float epsilon, float *y) {
  if (n < 0 || c < 0 || spatial < 0)
    return PLUMB_RT_EINVAL;
  if (n * c * spatial == 0)
    return PLUMB_RT_OK;
  if (!x || !y || !scale || !bias || !mean || !var)
    return PLUMB_RT_EINVAL;
  std::vector<float> sd((size_t)c);
  for (int64_t k = 0; k < c; ++k)
    sd[(size_t)k] = sqrtRn(var[k] + epsilon);
  parallelRange(n * c, 1 + (1 << 15) / spatial, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t k = r % c;
      const float mk = mean[k], sk = sd[(size_t)k], gk = scale[k],
                  bk = bias[k];
      const float *px = x + r * spatial;
      float *py = y + r * spatial;
      for (int64_t i = 0; i < spatial; ++i) {
        float t = px[i] - mk;
        t = t / sk;
        t = t * gk;
        py[i] = canon(t + bk);
      }
    }
  });
  return PLUMB_RT_OK;
}

int plumb_rt_layernorm_f32(const float *x, int64_t outer, int64_t d,
                           const float *scale, const float *bias,
                           float epsilon, float *y, float *mean_out,
                           float *inv_std_out, int64_t block) {
  if (outer < 0 || d < 0)
    return PLUMB_RT_EINVAL;
  if (outer == 0)
    return PLUMB_RT_OK;
  if (d == 0) {
    for (int64_t r = 0; r < outer; ++r) {
      if (mean_out)
        mean_out[r] = canonicalNaN();
      if (inv_std_out)
        inv_std_out[r] = canonicalNaN();
    }
    return PLUMB_RT_OK;
  }
  if (!x || !y || !scale)
    return PLUMB_RT_EINVAL;
  const int64_t m = ::plumb::rt::treeChunks(d, block);
  parallelRange(outer, 1 + (1 << 14) / d, [&](int64_t lo, int64_t hi) {
    std::vector<float> scratch((size_t)m);
    for (int64_t r = lo; r < hi; ++r)
      normRow(x + r * d, d, scale, 1, bias, 1, epsilon, y + r * d, block,
              scratch.data(), mean_out ? mean_out + r : nullptr,
              inv_std_out ? inv_std_out + r : nullptr);
  });
  return PLUMB_RT_OK;
}

int plumb_rt_instancenorm_f32(const float *x, int64_t n, int64_t c,
                              int64_t spatial, const float *scale,
                              const float *bias, float epsilon, float *y,
                              int64_t block) {
  if (n < 0 || c < 0 || spatial < 0)
    return PLUMB_RT_EINVAL;
  if (n * c * spatial == 0)
    return PLUMB_RT_OK;
  if (!x || !y || !scale || !bias)
    return PLUMB_RT_EINVAL;
  const int64_t m = ::plumb::rt::treeChunks(spatial, block);
  parallelRange(n * c, 1 + (1 << 14) / spatial, [&](int64_t lo, int64_t hi) {
    std::vector<float> scratch((size_t)m);
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t k = r % c;
      normRow(x + r * spatial, spatial, scale + k, 0, bias + k, 0, epsilon,
              y + r * spatial, block, scratch.data(), nullptr, nullptr);
    }
  });
  return PLUMB_RT_OK;
}

} // extern "C"
