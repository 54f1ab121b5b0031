//===- runtime/src/indexing.cpp - Indexed writes (ScatterND) --*- C++ -*-===//
//
// Part of Plumb. ScatterND with reductions none/add/mul/max/min; see
// indexing.h for the exact order. The copy of data is split over threads;
// the updates are applied tuple after tuple, the elements of each slice
// split over threads (a split by element never reorders one element's
// updates).
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/indexing.h"

#include "ops_internal.h"

#include <string.h>

using namespace plumb::rt::ops;

namespace {

/// Elements per thread chunk of one slice (below it, one thread).
constexpr int64_t kSliceGrain = 1 << 14;

int64_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case PLUMB_RT_F32:
  case PLUMB_RT_I32:
    return 4;
  case PLUMB_RT_I64:
    return 8;
  case PLUMB_RT_BOOL:
    return 1;
  default:
    return 0;
  }
}

/// Applies every tuple's update slice in index order.
template <typename T, typename Combine>
void applyUpdates(const plumb::rt::GatherNdGeom &g, const void *indices,
                  const T *u, T *y, Combine combine) {
  const int64_t slice = g.slice;
  for (int64_t t = 0; t < g.tuples; ++t) {
    T *dst = y + plumb::rt::gatherNdOffset(g, indices, 0, t);
    const T *src = u + t * slice;
    parallelRange(slice, kSliceGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t j = lo; j < hi; ++j)
        dst[j] = combine(dst[j], src[j]);
    });
  }
}

template <typename T>
void moveUpdates(const plumb::rt::GatherNdGeom &g, const void *indices,
                 const T *u, T *y) {
  applyUpdates(g, indices, u, y, [](T, T b) { return b; });
}

} // namespace

extern "C" {

int plumb_rt_scatter_nd(const void *data, const int64_t *data_shape,
                        int32_t data_rank, const void *indices,
                        int32_t index_is_i32, const int64_t *idx_shape,
                        int32_t idx_rank, const void *updates,
                        int32_t reduction, int32_t dtype, void *y) {
  plumb::rt::GatherNdGeom g;
  const int64_t es = dtypeSize(dtype);
  if (es == 0 || reduction < PLUMB_RT_SCATTER_NONE ||
      reduction > PLUMB_RT_SCATTER_MIN ||
      (dtype == PLUMB_RT_BOOL && reduction != PLUMB_RT_SCATTER_NONE) ||
      !validShape(data_shape, data_rank) || !validShape(idx_shape, idx_rank) ||
      plumb::rt::makeScatterNdGeom(g, data_shape, data_rank, idx_shape,
                                   idx_rank, index_is_i32) != PLUMB_RT_OK)
    return PLUMB_RT_EINVAL;
  const int64_t total = g.dataBatch, updatesN = g.tuples * g.slice;
  if ((total > 0 && (!data || !y)) || (g.tuples > 0 && !indices) ||
      (updatesN > 0 && !updates))
    return PLUMB_RT_EINVAL;
  // Every index is checked before anything is combined.
  for (int64_t t = 0; t < g.tuples; ++t)
    if (plumb::rt::gatherNdOffset(g, indices, 0, t) < 0)
      return PLUMB_RT_ERANGE;
  if (total > 0 && data != y) {
    const char *s = static_cast<const char *>(data);
    char *d = static_cast<char *>(y);
    parallelRange(total * es, 1 << 20, [&](int64_t lo, int64_t hi) {
      memcpy(d + lo, s + lo, (size_t)(hi - lo));
    });
  }
  if (updatesN == 0)
    return PLUMB_RT_OK;
  const int32_t red = reduction;
  switch (dtype) {
  case PLUMB_RT_F32:
    applyUpdates(g, indices, static_cast<const float *>(updates),
                 static_cast<float *>(y), [red](float a, float b) {
                   return plumb::rt::scatterCombineF32(red, a, b);
                 });
    break;
  case PLUMB_RT_I64:
    applyUpdates(g, indices, static_cast<const int64_t *>(updates),
                 static_cast<int64_t *>(y), [red](int64_t a, int64_t b) {
                   return plumb::rt::scatterCombineInt<int64_t, uint64_t>(
                       red, a, b);
                 });
    break;
  case PLUMB_RT_I32:
    applyUpdates(g, indices, static_cast<const int32_t *>(updates),
                 static_cast<int32_t *>(y), [red](int32_t a, int32_t b) {
                   return plumb::rt::scatterCombineInt<int32_t, uint32_t>(
                       red, a, b);
                 });
    break;
  default:
    moveUpdates(g, indices, static_cast<const uint8_t *>(updates),
                static_cast<uint8_t *>(y));
    break;
  }
  return PLUMB_RT_OK;
}

} // extern "C"
