//===- runtime/include/plumb/runtime/softmax.h - Softmax family -*- C++ -*-===//
//
// Part of Plumb. Softmax and LogSoftmax over the middle dim of an
// (outer, axis_len, inner) view of a row-major tensor:
//  * opset >= 13, axis a: outer = prod(shape[:a]), axis_len = shape[a],
//    inner = prod(shape[a+1:]).
//  * opset < 13 (2-D coercion at a): outer = prod(shape[:a]),
//    axis_len = prod(shape[a:]), inner = 1.
// Exact per-row sequence (row = the axis_len values at fixed (outer, inner)):
//   m   = Max fold from -inf in index order (NaN propagates; order-free);
//   d_i = x_i - m;  e_i = exp(d_i)          (plumb::rt::exp, correctly rounded)
//   s   = treeSum(e, block)                 (tree.h, blocked(block))
//   Softmax:    y_i = e_i / s
//   LogSoftmax: y_i = d_i - log(s)          (plumb::rt::log)
// NaN results are canonicalised. A row of all -inf gives NaN (d = -inf - -inf);
// a row containing +inf gives NaN for every element.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_SOFTMAX_H
#define PLUMB_RUNTIME_SOFTMAX_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Softmax (log_softmax == 0) or LogSoftmax (log_softmax != 0). x and y may
/// alias exactly. Returns PLUMB_RT_OK or PLUMB_RT_EINVAL.
int plumb_rt_softmax_f32(const float *x, float *y, int64_t outer,
                         int64_t axis_len, int64_t inner, int32_t log_softmax,
                         int64_t block);

/// Hardmax: y_i = 1 at the first index of the row maximum (first NaN if
/// any), 0 elsewhere. Same (outer, axis_len, inner) view.
int plumb_rt_hardmax_f32(const float *x, float *y, int64_t outer,
                         int64_t axis_len, int64_t inner);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_SOFTMAX_H
