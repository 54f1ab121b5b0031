//===- runtime/include/plumb/runtime/pool.h - Pooling ----------*- C++ -*-===//
//
// Part of Plumb. MaxPool, AveragePool (1-D, 2-D, 3-D), GlobalAveragePool,
// GlobalMaxPool on NC[D]HW / NCW float32 tensors.
//
// Window: for output position o (per spatial dim d) the window positions are
//   p_d = o_d * stride_d - pad_begin_d + k_d * dilation_d,  0 <= k_d < kernel_d,
// enumerated in row-major (k_0, k_1, ...) order. A position is *valid* when
// 0 <= p_d < in_d for every d.
//  * MaxPool: y = Max fold (elementwise.h Max: NaN propagates, +0 > -0) of the
//    valid positions from -inf; a window with no valid position gives -inf.
//    Optional Indices (int64): the flattened NCHW input index
//    ((n*C + c)*H + h)*W + w (storage_order 0) of the first valid position
//    whose value equals the result bitwise (the first NaN for a NaN result);
//    -1 for an empty window.
//  * AveragePool: s = sequential sum of the valid values in window order,
//    from -0.0 (acc = acc + v); y = s / (float)count where count = number of
//    valid positions (count_include_pad = 0) or number of positions with
//    -pad_begin_d <= p_d < in_d + pad_end_d for all d (count_include_pad = 1).
//    count = 0 gives NaN.
//  * GlobalAveragePool: y = treeSum(x[n, c, :], block) / (float)S, S = prod
//    of spatial dims. GlobalMaxPool: Max fold.
// pads holds 2 * sdims values: all begins, then all ends (ONNX order). The
// output spatial size is chosen by the caller (plumb_rt_pool_output_shape
// implements the ONNX rules); any output size is computed consistently.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_POOL_H
#define PLUMB_RUNTIME_POOL_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

enum plumb_rt_auto_pad {
  PLUMB_RT_AUTO_PAD_NOTSET = 0,
  PLUMB_RT_AUTO_PAD_VALID = 1,
  PLUMB_RT_AUTO_PAD_SAME_UPPER = 2,
  PLUMB_RT_AUTO_PAD_SAME_LOWER = 3,
};

#ifdef __cplusplus
extern "C" {
#endif

/// ONNX pooling output shape. For auto_pad NOTSET uses `pads` (read) and
///   out = floor_or_ceil((in + pb + pe - ((k - 1) * dil + 1)) / stride) + 1,
/// with ceil_mode additionally dropping a last window that would start at or
/// beyond in + pb (the PyTorch / onnxruntime rule). VALID: pads := 0 and
/// out = ceil((in - ((k-1)*dil+1) + 1) / stride). SAME_*: out = ceil(in /
/// stride), total pad = max((out-1)*stride + (k-1)*dil + 1 - in, 0), split
/// with the extra one at the end (UPPER) or beginning (LOWER); pads are
/// written. dilations may be null (all 1). Returns PLUMB_RT_OK / EINVAL.
int plumb_rt_pool_output_shape(int32_t sdims, const int64_t *in_spatial,
                               const int64_t *kernel, const int64_t *strides,
                               int64_t *pads, const int64_t *dilations,
                               int32_t auto_pad, int32_t ceil_mode,
                               int64_t *out_spatial);

/// MaxPool. x: [n, c, in_spatial...], y: [n, c, out_spatial...]. dilations
/// may be null (all 1). indices (same size as y) may be null.
int plumb_rt_maxpool_f32(const float *x, int64_t n, int64_t c, int32_t sdims,
                         const int64_t *in_spatial,
                         const int64_t *out_spatial, const int64_t *kernel,
                         const int64_t *strides, const int64_t *pads,
                         const int64_t *dilations, float *y,
                         int64_t *indices);

/// AveragePool (count_include_pad 0 or 1). dilations may be null.
int plumb_rt_avgpool_f32(const float *x, int64_t n, int64_t c, int32_t sdims,
                         const int64_t *in_spatial,
                         const int64_t *out_spatial, const int64_t *kernel,
                         const int64_t *strides, const int64_t *pads,
                         const int64_t *dilations, int32_t count_include_pad,
                         float *y);

/// GlobalAveragePool (is_max = 0) / GlobalMaxPool (is_max = 1) over `spatial`
/// contiguous values for each of nc rows.
int plumb_rt_global_pool_f32(const float *x, int64_t nc, int64_t spatial,
                             int32_t is_max, float *y, int64_t block);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_POOL_H
