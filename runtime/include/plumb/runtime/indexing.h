//===- runtime/include/plumb/runtime/indexing.h - Scatter -------*- C++ -*-===//
//
// Part of Plumb. Indexed writes: ScatterND (ONNX), which also carries
// ScatterElements and Scatter (the importer turns their indices into full
// coordinate tuples).
//
// Exact semantics. y starts as a copy of data. Then the index tuples are
// taken one after another in row-major order of idx_shape[:-1]; tuple n
// names the slice data[tuple n] (prod(data_shape[k:]) elements, k the tuple
// length), and each element y_j of that slice is combined with the element
// u_j of update slice n:
//  * NONE: y_j = u_j (bits moved; with repeated tuples the last one wins)
//  * ADD:  y_j = canon(y_j + u_j)        (int: two's complement wraparound)
//  * MUL:  y_j = canon(y_j * u_j)        (int: wraparound)
//  * MAX:  y_j = Max(y_j, u_j), MIN: Min (elementwise.h: NaN propagates,
//          +0 > -0; int: the plain max / min)
// so with repeated tuples every element sees its updates in index order,
// one IEEE operation at a time (no tree, no contraction). Threads split the
// elements of a slice, never the tuples, so the order holds at any thread
// count. Negative indices count from the end; an index outside [-dim, dim)
// returns PLUMB_RT_ERANGE before anything is combined (y then unspecified).
// Bool data takes NONE only.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_INDEXING_H
#define PLUMB_RUNTIME_INDEXING_H

#include "plumb/runtime/cast.h"
#include "plumb/runtime/config.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/movement.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

/// Reductions of plumb_rt_scatter_nd.
enum plumb_rt_scatter_reduction {
  PLUMB_RT_SCATTER_NONE = 0,
  PLUMB_RT_SCATTER_ADD = 1,
  PLUMB_RT_SCATTER_MUL = 2,
  PLUMB_RT_SCATTER_MAX = 3,
  PLUMB_RT_SCATTER_MIN = 4,
};

#ifdef __cplusplus
extern "C" {
#endif

/// ScatterND: `data` (dtype PLUMB_RT_F32/I64/I32/BOOL, shape data_shape of
/// rank r >= 1), `indices` (int64, or int32 when index_is_i32) of shape
/// idx_shape (rank q >= 1, last dimension k in [1, r]), `updates` of shape
/// idx_shape[:-1] + data_shape[k:]; y has data's shape. See above.
int plumb_rt_scatter_nd(const void *data, const int64_t *data_shape,
                        int32_t data_rank, const void *indices,
                        int32_t index_is_i32, const int64_t *idx_shape,
                        int32_t idx_rank, const void *updates,
                        int32_t reduction, int32_t dtype, void *y);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
namespace plumb {
namespace rt {

/// ScatterND geometry: GatherND's with no batch dimensions (the tuples,
/// their length, the slice each names and the strides of the indexed
/// dimensions), so gatherNdOffset(g, indices, 0, t) is the element offset
/// of tuple t's slice in y, or -1 when an index is out of range.
PLUMB_INLINE int makeScatterNdGeom(GatherNdGeom &g, const int64_t *data_shape,
                                   int32_t r, const int64_t *idx_shape,
                                   int32_t q, int32_t index_is_i32) {
  return makeGatherNdGeom(g, data_shape, r, idx_shape, q, 0, index_is_i32);
}

/// The combination of one element with one update (float).
PLUMB_INLINE float scatterCombineF32(int32_t reduction, float y, float u) {
  switch (reduction) {
  case PLUMB_RT_SCATTER_ADD:
    return ops::canon(y + u);
  case PLUMB_RT_SCATTER_MUL:
    return ops::canon(y * u);
  case PLUMB_RT_SCATTER_MAX:
    return ops::maxF(y, u);
  case PLUMB_RT_SCATTER_MIN:
    return ops::minF(y, u);
  default:
    return u;
  }
}

/// The combination of one element with one update (int32/int64: add and
/// mul wrap, computed on the unsigned type).
template <typename T, typename U>
PLUMB_INLINE T scatterCombineInt(int32_t reduction, T y, T u) {
  switch (reduction) {
  case PLUMB_RT_SCATTER_ADD:
    return (T)(U)((U)y + (U)u);
  case PLUMB_RT_SCATTER_MUL:
    return (T)(U)((U)y * (U)u);
  case PLUMB_RT_SCATTER_MAX:
    return y > u ? y : u;
  case PLUMB_RT_SCATTER_MIN:
    return y < u ? y : u;
  default:
    return u;
  }
}

} // namespace rt
} // namespace plumb
#endif

#endif // PLUMB_RUNTIME_INDEXING_H
