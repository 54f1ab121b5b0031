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

/// k <= 8 consecutive normalised rows of d elements (sequence in norm.h):
/// y_i = ((d_i / sd) * scale_i) + bias_i, scale / bias advancing by
/// sstride / bstride (0 = one scalar for the row). The two tree reductions
/// of the rows are interleaved; each row keeps its own sequence. Writes
/// mean and 1/sd per row when asked.
void normRows(int k, const float *x, int64_t d, const float *scale,
              int64_t sstride, const float *bias, int64_t bstride, float eps,
              float *y, int64_t block, float *scratch, float *meanOut,
              float *invOut) {
  const float df = (float)d;
  const float *rx[kMultiRows], *ry[kMultiRows];
  float mean[kMultiRows], var[kMultiRows];
  for (int q = 0; q < k; ++q) {
    rx[q] = x + q * d;
    ry[q] = y + q * d;
  }
  multiTree<false>(k, rx, nullptr, d, block, scratch, mean);
  for (int q = 0; q < k; ++q) {
    mean[q] = mean[q] / df;
    const float *px = rx[q];
    float *py = y + q * d;
    for (int64_t i = 0; i < d; ++i)
      py[i] = px[i] - mean[q]; // deviations kept in y (x may alias y)
  }
  multiTree<true>(k, ry, ry, d, block, scratch, var);
  for (int q = 0; q < k; ++q) {
    const float sd = sqrtRn(var[q] / df + eps);
    float *py = y + q * d;
    if (bias) {
      for (int64_t i = 0; i < d; ++i) {
        float t = py[i] / sd;
        t = t * scale[i * sstride];
        py[i] = canon(t + bias[i * bstride]);
      }
    } else {
      for (int64_t i = 0; i < d; ++i) {
        float t = py[i] / sd;
        py[i] = canon(t * scale[i * sstride]);
      }
    }
    if (meanOut)
      meanOut[q] = canon(mean[q]);
    if (invOut)
      invOut[q] = canon(1.0f / sd);
  }
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
  parallelRange((outer + kMultiRows - 1) / kMultiRows, 1 + (1 << 12) / d,
                [&](int64_t lo, int64_t hi) {
    std::vector<float> scratch(
        (size_t)(kMultiRows * ::plumb::rt::treeChunks(d, block)));
    for (int64_t gi = lo; gi < hi; ++gi) {
      const int64_t r0 = gi * kMultiRows;
      const int k = (int)(outer - r0 < kMultiRows ? outer - r0 : kMultiRows);
      normRows(k, x + r0 * d, d, scale, 1, bias, 1, epsilon, y + r0 * d,
               block, scratch.data(), mean_out ? mean_out + r0 : nullptr,
               inv_std_out ? inv_std_out + r0 : nullptr);
    }
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
      normRows(1, x + r * spatial, spatial, scale + k, 0, bias + k, 0,
               epsilon, y + r * spatial, block, scratch.data(), nullptr,
               nullptr);
    }
  });
  return PLUMB_RT_OK;
}

} // extern "C"
