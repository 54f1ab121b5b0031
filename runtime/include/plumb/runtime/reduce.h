//===- runtime/include/plumb/runtime/reduce.h - Reductions -----*- C++ -*-===//
//
// Part of Plumb. ReduceSum/Mean/Prod/Max/Min/SumSquare/L1/L2/LogSum/
// LogSumExp over a set of axes, and ArgMax/ArgMin over one axis.
//
// Exact semantics. For each output element the n terms t_0..t_{n-1} are the
// input elements it reduces, in row-major order of the reduced axes (the
// kept coordinates fixed). `block` is the blocked(B) tree of tree.h
// (0 = sequential).
//  * SUM:        treeSum(t, block).                   Empty (n = 0): +0.0.
//  * MEAN:       s = treeSum(t, block); y = s / (float)n (RNE conversion of n,
//                IEEE division).                       Empty: NaN.
//  * SUM_SQUARE: treeDot(t, t, block): chunks accumulate acc = fmaf(t, t, acc)
//                from -0.0, chunk results combined by the +-tree.  Empty: +0.0.
//  * L1:         treeSum(|t|, block).                  Empty: +0.0.
//  * L2:         sqrt(treeDot(t, t, block)) (IEEE sqrt). Empty: +0.0.
//  * LOG_SUM:    log(treeSum(t, block)).               Empty: -inf.
//  * LOG_SUM_EXP: m = Max of t; if m is +-inf or NaN, y = m (NaN canonical);
//                else e_k = exp(t_k - m), y = m + log(treeSum(e, block)).
//                Empty: -inf.
//  * PROD:       the product tree: same blocked(B) shape, each chunk
//                accumulated acc = acc * t from +1.0, the m chunk products
//                padded with +1.0 to a power of two and combined by
//                stride-halving with *. (x * 1.0 == x for every non-NaN x, so
//                the padding never changes a bit.)   Empty: +1.0.
//  * MAX / MIN:  fold with Max/Min of elementwise.h (NaN propagates,
//                +0 > -0); order-free, so no tree applies. Empty: -inf / +inf.
// All float results are NaN-canonicalised. keepdims does not change the
// row-major output data, only its shape, so the kernel does not take it.
// Axes are normalised by the caller (0 <= axis < rank, no duplicates; any
// order — the term order is always the row-major order of the reduced axes).
// The caller resolves ONNX's empty-axes rules: n_axes == 0 here means
// "reduce nothing" (each output is the reduction of its single element).
// Threads split outputs; with fewer outputs than threads the chunks of a
// blocked tree are computed in parallel (the tree fixes that split).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_REDUCE_H
#define PLUMB_RUNTIME_REDUCE_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

enum plumb_rt_reduce_op {
  PLUMB_RT_REDUCE_SUM = 0,
  PLUMB_RT_REDUCE_MEAN = 1,
  PLUMB_RT_REDUCE_MAX = 2,
  PLUMB_RT_REDUCE_MIN = 3,
  PLUMB_RT_REDUCE_PROD = 4,
  PLUMB_RT_REDUCE_SUM_SQUARE = 5,
  PLUMB_RT_REDUCE_L1 = 6,
  PLUMB_RT_REDUCE_L2 = 7,
  PLUMB_RT_REDUCE_LOG_SUM = 8,
  PLUMB_RT_REDUCE_LOG_SUM_EXP = 9,
};

#ifdef __cplusplus
extern "C" {
#endif

/// Reduces x (shape[0..rank)) over axes[0..n_axes) into y (the kept dims in
/// order). Returns PLUMB_RT_OK or an error code.
int plumb_rt_reduce_f32(int32_t op, const float *x, const int64_t *shape,
                        int32_t rank, const int64_t *axes, int32_t n_axes,
                        float *y, int64_t block);

/// Integer reductions (SUM, MEAN, PROD, MAX, MIN; SUM_SQUARE; L1) with two's
/// complement wraparound (order-free). MEAN = truncating sum / n; empty
/// SUM/L1/SUM_SQUARE = 0, PROD = 1, MAX = INT64_MIN, MIN = INT64_MAX, MEAN = 0.
int plumb_rt_reduce_i64(int32_t op, const int64_t *x, const int64_t *shape,
                        int32_t rank, const int64_t *axes, int32_t n_axes,
                        int64_t *y);

/// ArgMax (is_min = 0) / ArgMin (is_min = 1) over `axis`, int64 output with
/// the axis removed (keepdims only changes the shape). Ties: the first index,
/// or the last when select_last_index != 0. NaN counts as larger than any
/// number for ArgMax and smaller than any for ArgMin (numpy: the first NaN
/// wins); -0 and +0 tie. Empty axis: PLUMB_RT_EINVAL.
int plumb_rt_argmax_f32(const float *x, const int64_t *shape, int32_t rank,
                        int32_t axis, int32_t is_min, int32_t select_last_index,
                        int64_t *y);
int plumb_rt_argmax_i64(const int64_t *x, const int64_t *shape, int32_t rank,
                        int32_t axis, int32_t is_min, int32_t select_last_index,
                        int64_t *y);
int plumb_rt_argmax_i32(const int32_t *x, const int64_t *shape, int32_t rank,
                        int32_t axis, int32_t is_min, int32_t select_last_index,
                        int64_t *y);

/// TopK along `axis`: the first k elements of each slice in the order
/// "larger first" (largest != 0) or "smaller first", with their int64
/// indices; `values` and `indices` have the input's shape with the axis
/// length k. The order is total, so the result is independent of the
/// selection algorithm: NaN counts as larger than every number in both modes,
/// equal values (-0 and +0 too) keep index order. NaN values are stored
/// canonical. k < 0 or k > the axis length: PLUMB_RT_EINVAL.
int plumb_rt_topk_f32(const float *x, const int64_t *shape, int32_t rank,
                      int32_t axis, int64_t k, int32_t largest, float *values,
                      int64_t *indices);
int plumb_rt_topk_i64(const int64_t *x, const int64_t *shape, int32_t rank,
                      int32_t axis, int64_t k, int32_t largest,
                      int64_t *values, int64_t *indices);
int plumb_rt_topk_i32(const int32_t *x, const int64_t *shape, int32_t rank,
                      int32_t axis, int64_t k, int32_t largest,
                      int32_t *values, int64_t *indices);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_REDUCE_H
