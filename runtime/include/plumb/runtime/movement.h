//===- runtime/include/plumb/runtime/movement.h - Data movement -*- C++ -*-===//
//
// Part of Plumb. Data movement kernels: Transpose, Concat, Split, Slice,
// Gather, Expand, Pad, Tile, copy, Range and ConstantOfShape fill. Except for
// Range these move bits and perform no arithmetic, so they work for any
// element type given its size in bytes (`elem_size`: any size >= 1; 1, 2, 4
// and 8 take word-sized fast paths). NaN payloads are moved unchanged (a
// float NaN stored by any Plumb kernel is already canonical).
//
// All tensors are row-major contiguous. Axes are already normalised to
// [0, rank) by the caller. Ranks are at most 8 (PLUMB_RT_MAX_RANK).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_MOVEMENT_H
#define PLUMB_RUNTIME_MOVEMENT_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

/// Pad modes for plumb_rt_pad.
enum plumb_rt_pad_mode {
  PLUMB_RT_PAD_CONSTANT = 0,
  PLUMB_RT_PAD_REFLECT = 1,
  PLUMB_RT_PAD_EDGE = 2,
  PLUMB_RT_PAD_WRAP = 3,
};

#ifdef __cplusplus
extern "C" {
#endif

/// Copies nbytes from x to y (Identity). Overlap is not allowed.
int plumb_rt_copy(const void *x, void *y, int64_t nbytes);

/// ConstantOfShape / fill: writes n copies of the elem_size bytes at `value`.
int plumb_rt_fill(void *y, int64_t n, const void *value, int64_t elem_size);

/// Transpose: y has dims shape[perm[0]], ..., shape[perm[rank-1]] and
/// y[i_0, ..., i_{r-1}] = x[j] where j_{perm[k]} = i_k.
int plumb_rt_transpose(const void *x, const int64_t *shape, int32_t rank,
                       const int32_t *perm, void *y, int64_t elem_size);

/// Concat of `count` inputs along `axis`; inputs[k] has shapes[k] (all of
/// rank `rank`, equal except on axis). y has the summed axis length.
int plumb_rt_concat(const void *const *inputs, const int64_t *const *shapes,
                    int32_t count, int32_t rank, int32_t axis, void *y,
                    int64_t elem_size);

/// Split x along axis into `count` outputs of lengths sizes[k] (summing to
/// shape[axis]).
int plumb_rt_split(const void *x, const int64_t *shape, int32_t rank,
                   int32_t axis, int32_t count, const int64_t *sizes,
                   void *const *outputs, int64_t elem_size);

/// Normalises ONNX Slice arguments (any of starts/ends negative or out of
/// range, axes possibly negative, steps nonzero; steps may be null = all 1)
/// into per-dim start/step/out_dim arrays of length rank (dims not named by
/// axes get start 0, step 1, full length). Follows the ONNX clamping rules:
/// negative starts/ends get dim added; step > 0 clamps both to [0, dim];
/// step < 0 clamps starts to [0, dim - 1] and ends to [-1, dim - 1].
/// Returns PLUMB_RT_OK or PLUMB_RT_EINVAL (step 0, bad axis, repeated axis).
int plumb_rt_slice_normalize(const int64_t *shape, int32_t rank,
                             const int64_t *starts, const int64_t *ends,
                             const int64_t *axes, const int64_t *steps,
                             int32_t n_axes, int64_t *out_start,
                             int64_t *out_step, int64_t *out_shape);

/// Slice with normalised per-dim arguments: y[i] = x[start_d + i_d * step_d]
/// for every dim d; y has dims out_shape. Every addressed element must be in
/// range (as guaranteed by plumb_rt_slice_normalize).
int plumb_rt_slice(const void *x, const int64_t *shape, int32_t rank,
                   const int64_t *start, const int64_t *step,
                   const int64_t *out_shape, void *y, int64_t elem_size);

/// Gather along axis with `n_indices` indices (flattened index tensor; the
/// output shape is shape[:axis] + index_shape + shape[axis+1:], i.e. rows of
/// n_indices). indices are int64 (index_is_i32 == 0) or int32. Negative
/// indices count from the end; anything outside [-dim, dim) returns
/// PLUMB_RT_ERANGE (output then unspecified).
int plumb_rt_gather(const void *x, const int64_t *shape, int32_t rank,
                    int32_t axis, const void *indices, int32_t index_is_i32,
                    int64_t n_indices, void *y, int64_t elem_size);

/// GatherND (ONNX): `indices` (int64, or int32 when index_is_i32) of shape
/// idx_shape (rank q >= 1) whose last dimension k indexes data dimensions
/// [b, b + k), b = batch_dims (the first b dims of data and indices are
/// equal). The result has shape idx_shape[:-1] + data_shape[b + k:]: its
/// slice n of batch i is data[i][tuple n], a run of prod(data_shape[b + k:])
/// elements. Negative indices count from the end; an index outside
/// [-dim, dim) returns PLUMB_RT_ERANGE (output then unspecified).
int plumb_rt_gather_nd(const void *data, const int64_t *data_shape,
                       int32_t data_rank, const void *indices,
                       int32_t index_is_i32, const int64_t *idx_shape,
                       int32_t idx_rank, int32_t batch_dims, void *y,
                       int64_t elem_size);

/// Expand: numpy broadcast of x (shape/rank) to out_shape/out_rank.
int plumb_rt_expand(const void *x, const int64_t *shape, int32_t rank,
                    void *y, const int64_t *out_shape, int32_t out_rank,
                    int64_t elem_size);

/// Pad. pads has 2*rank entries in ONNX order (all begins, then all ends);
/// negative pads crop. y has dims shape[d] + pads[d] + pads[rank + d].
/// Output element at index o_d reads input index i_d = o_d - pads[d]:
///  constant: value (elem_size bytes at `value`; null means all-zero bits)
///            when any i_d is outside [0, shape[d]);
///  reflect:  i < 0 -> -i, i >= n -> 2(n-1) - i, repeated until inside
///            (n == 1 -> 0);
///  edge:     clamp to [0, n-1];
///  wrap:     i mod n (non-negative).
/// A non-constant mode on a dim of length 0 with nonzero output is EINVAL.
int plumb_rt_pad(const void *x, const int64_t *shape, int32_t rank,
                 const int64_t *pads, int32_t mode, const void *value, void *y,
                 int64_t elem_size);

/// Tile: y has dims shape[d] * repeats[d]; y[o] = x[o_d mod shape[d]].
int plumb_rt_tile(const void *x, const int64_t *shape, int32_t rank,
                  const int64_t *repeats, void *y, int64_t elem_size);

/// Range element counts: max(ceil((limit - start) / delta), 0). For f32 the
/// subtraction, division and ceil are float32 operations (ONNX spec);
/// returns -1 for delta == 0 or a non-finite quotient.
int64_t plumb_rt_range_count_f32(float start, float limit, float delta);
int64_t plumb_rt_range_count_i64(int64_t start, int64_t limit, int64_t delta);

/// Range: y[0] = start, y[i] = y[i-1] + delta (float: accumulated, as the
/// ONNX spec's loop and onnxruntime do; int64: wraparound). n elements.
int plumb_rt_range_f32(float start, float delta, int64_t n, float *y);
int plumb_rt_range_i64(int64_t start, int64_t delta, int64_t n, int64_t *y);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
namespace plumb {
namespace rt {

/// GatherND geometry (plumb_rt_gather_nd), shared by the host kernel and its
/// CUDA twin: `batches` x `tuples` index tuples of `k` entries, each naming
/// a slice of `slice` elements; a batch of data is `dataBatch` elements;
/// tuple entry j indexes a dim of size dims[j] whose step is strides[j]
/// slices.
struct GatherNdGeom {
  int64_t batches, tuples, k, slice, dataBatch;
  int64_t dims[PLUMB_RT_MAX_RANK], strides[PLUMB_RT_MAX_RANK];
  int32_t indexIsI32;
};

/// Fills `g`; PLUMB_RT_EINVAL for ranks, batch dims or a tuple length that
/// do not fit the shapes.
PLUMB_INLINE int makeGatherNdGeom(GatherNdGeom &g, const int64_t *data_shape,
                                  int32_t r, const int64_t *idx_shape,
                                  int32_t q, int32_t b, int32_t index_is_i32) {
  if (r < 1 || q < 1 || r > PLUMB_RT_MAX_RANK || q > PLUMB_RT_MAX_RANK ||
      b < 0 || b >= q || b >= r)
    return PLUMB_RT_EINVAL;
  const int64_t k = idx_shape[q - 1];
  if (k < 1 || k > r - b)
    return PLUMB_RT_EINVAL;
  g.batches = 1;
  for (int32_t d = 0; d < b; ++d) {
    if (data_shape[d] != idx_shape[d] || data_shape[d] < 0)
      return PLUMB_RT_EINVAL;
    g.batches *= data_shape[d];
  }
  g.tuples = 1;
  for (int32_t d = b; d < q - 1; ++d)
    g.tuples *= idx_shape[d];
  g.k = k;
  g.slice = 1;
  for (int32_t d = b + (int32_t)k; d < r; ++d)
    g.slice *= data_shape[d];
  int64_t step = 1;
  for (int32_t j = (int32_t)k - 1; j >= 0; --j) {
    g.dims[j] = data_shape[b + j];
    g.strides[j] = step;
    step *= g.dims[j];
  }
  g.dataBatch = step * g.slice;
  g.indexIsI32 = index_is_i32;
  return PLUMB_RT_OK;
}

/// The element offset into data of tuple t of batch bi, or -1 when an index
/// is out of range.
PLUMB_INLINE int64_t gatherNdOffset(const GatherNdGeom &g, const void *indices,
                                    int64_t bi, int64_t t) {
  const int64_t first = (bi * g.tuples + t) * g.k;
  int64_t off = 0;
  for (int64_t j = 0; j < g.k; ++j) {
    int64_t v = g.indexIsI32 ? static_cast<const int32_t *>(indices)[first + j]
                             : static_cast<const int64_t *>(indices)[first + j];
    if (v < 0)
      v += g.dims[j];
    if (v < 0 || v >= g.dims[j])
      return -1;
    off += v * g.strides[j];
  }
  return bi * g.dataBatch + off * g.slice;
}

} // namespace rt
} // namespace plumb
#endif

#endif // PLUMB_RUNTIME_MOVEMENT_H
