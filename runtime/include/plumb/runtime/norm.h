//===- runtime/include/plumb/runtime/norm.h - Normalisations -*- C++ -*-===//
//
// Part of Plumb. BatchNormalization (inference), LayerNormalization and
// InstanceNormalization. Exact operation sequences (float32, no contraction):
//
// BatchNormalization, x of shape [N, C, D1, ...] (rank >= 2), per channel c:
//   sd_c = sqrt(var_c + eps)                        (IEEE add, IEEE sqrt)
//   y    = (((x - mean_c) / sd_c) * scale_c) + bias_c
// (four rounded operations per element, in that order; sd_c is computed
// once per channel, which yields the same bits as per element).
//
// LayerNormalization over the last D = prod(shape[axis:]) elements of each of
// the `outer` rows (scale/bias given as full D-element arrays: the caller
// expands any broadcast; bias may be null = no addition):
//   mean = treeSum(x, block) / (float)D
//   d_i  = x_i - mean
//   var  = treeDot(d, d, block) / (float)D          (fmaf chunks, tree.h)
//   sd   = sqrt(var + eps)
//   y_i  = ((d_i / sd) * scale_i) + bias_i
//   Mean output = mean; InvStdDev output = 1.0f / sd.
//
// InstanceNormalization, x [N, C, spatial...]: per (n, c) exactly the
// LayerNormalization sequence over the S = prod(spatial) values, with scalar
// scale_c / bias_c.
//
// NaN results are canonicalised (an empty D gives NaN mean; outputs empty).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_NORM_H
#define PLUMB_RUNTIME_NORM_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// BatchNormalization inference. x and y: n * c * spatial floats.
int plumb_rt_batchnorm_f32(const float *x, int64_t n, int64_t c,
                           int64_t spatial, const float *scale,
                           const float *bias, const float *mean,
                           const float *var, float epsilon, float *y);

/// LayerNormalization: `outer` rows of `d` elements. mean_out and
/// inv_std_out (outer floats each) may be null. x and y may alias exactly.
int plumb_rt_layernorm_f32(const float *x, int64_t outer, int64_t d,
                           const float *scale, const float *bias,
                           float epsilon, float *y, float *mean_out,
                           float *inv_std_out, int64_t block);

/// InstanceNormalization: x [n, c, spatial]; scale/bias: c floats.
int plumb_rt_instancenorm_f32(const float *x, int64_t n, int64_t c,
                              int64_t spatial, const float *scale,
                              const float *bias, float epsilon, float *y,
                              int64_t block);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_NORM_H
