//===- runtime/include/plumb/runtime/broadcast.h - Numpy broadcasting -*- C++ -*-===//
//
// Part of Plumb. Index math of numpy-style broadcasting, written once for host
// and CUDA. A BroadcastPlan describes an output of rank <= 8 and up to three
// inputs by their element strides over the output dims (stride 0 on a
// broadcast dim). Adjacent dims that are contiguous for every operand are
// coalesced, so the common cases (same shape, scalar operand, row/column
// vector) reduce to rank 1 or 2. Broadcasting moves no arithmetic: the
// per-element op applied to out[i] sees exactly the operands numpy would.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_BROADCAST_H
#define PLUMB_RUNTIME_BROADCAST_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

namespace plumb {
namespace rt {
namespace ops {

constexpr int kMaxBroadcastInputs = 3;

struct BroadcastPlan {
  int32_t rank;   ///< coalesced rank (>= 1)
  int32_t inputs; ///< number of inputs (1..3)
  int64_t total;  ///< number of output elements
  int64_t dims[PLUMB_RT_MAX_RANK];
  int64_t strides[kMaxBroadcastInputs][PLUMB_RT_MAX_RANK];
};

/// Builds the plan. shapes[k] has ranks[k] <= out_rank dims, right-aligned
/// against out_shape; each must equal the output dim or be 1. Returns
/// PLUMB_RT_OK or PLUMB_RT_ESHAPE / PLUMB_RT_EINVAL.
PLUMB_INLINE int makeBroadcastPlan(BroadcastPlan &p, int32_t n_inputs,
                                   const int64_t *const *shapes,
                                   const int32_t *ranks,
                                   const int64_t *out_shape,
                                   int32_t out_rank) {
  if (n_inputs < 1 || n_inputs > kMaxBroadcastInputs || out_rank < 0 ||
      out_rank > PLUMB_RT_MAX_RANK)
    return PLUMB_RT_ESHAPE;
  p.inputs = n_inputs;
  p.total = 1;
  int64_t dims[PLUMB_RT_MAX_RANK];
  int64_t strides[kMaxBroadcastInputs][PLUMB_RT_MAX_RANK];
  for (int32_t d = 0; d < out_rank; ++d) {
    if (out_shape[d] < 0)
      return PLUMB_RT_ESHAPE;
    dims[d] = out_shape[d];
    p.total *= out_shape[d];
  }
  for (int32_t k = 0; k < n_inputs; ++k) {
    int32_t r = ranks[k];
    if (r < 0 || r > out_rank)
      return PLUMB_RT_ESHAPE;
    int64_t s = 1;
    for (int32_t d = out_rank - 1; d >= 0; --d) {
      int32_t id = d - (out_rank - r);
      if (id < 0) {
        strides[k][d] = 0;
        continue;
      }
      int64_t dim = shapes[k][id];
      if (dim == out_shape[d] && dim != 1) {
        strides[k][d] = s;
      } else if (dim == 1) {
        strides[k][d] = 0;
      } else {
        return PLUMB_RT_ESHAPE;
      }
      s *= dim;
    }
  }
  // Drop size-1 output dims, then coalesce: dim d merges into d+1 when for
  // every input strides[d] == strides[d+1] * dims[d+1].
  int32_t r = 0;
  for (int32_t d = 0; d < out_rank; ++d) {
    if (dims[d] == 1)
      continue;
    if (r > 0) {
      bool merge = true;
      for (int32_t k = 0; k < n_inputs; ++k)
        if (p.strides[k][r - 1] != strides[k][d] * dims[d])
          merge = false;
      if (merge) {
        p.dims[r - 1] *= dims[d];
        for (int32_t k = 0; k < n_inputs; ++k)
          p.strides[k][r - 1] = strides[k][d];
        continue;
      }
    }
    p.dims[r] = dims[d];
    for (int32_t k = 0; k < n_inputs; ++k)
      p.strides[k][r] = strides[k][d];
    ++r;
  }
  if (r == 0) {
    p.dims[0] = 1;
    for (int32_t k = 0; k < n_inputs; ++k)
      p.strides[k][0] = 0;
    r = 1;
  }
  p.rank = r;
  return PLUMB_RT_OK;
}

/// Offset of input k for the output element with linear index `i`.
PLUMB_INLINE int64_t broadcastOffset(const BroadcastPlan &p, int32_t k,
                                     int64_t i) {
  int64_t off = 0;
  for (int32_t d = p.rank - 1; d >= 0; --d) {
    int64_t q = i / p.dims[d];
    off += (i - q * p.dims[d]) * p.strides[k][d];
    i = q;
  }
  return off;
}

/// Host/device driver: calls run(out_begin, count, off[0..inputs), inner[..])
/// for maximal runs of [begin, end) along the innermost coalesced dim, where
/// input k's elements are at off[k] + j * inner[k] for j < count.
template <typename Fn>
PLUMB_INLINE void forEachBroadcastRun(const BroadcastPlan &p, int64_t begin,
                                      int64_t end, Fn &&run) {
  if (begin >= end)
    return;
  const int32_t last = p.rank - 1;
  const int64_t inner = p.dims[last];
  int64_t idx[PLUMB_RT_MAX_RANK];
  int64_t off[kMaxBroadcastInputs] = {0, 0, 0};
  int64_t istr[kMaxBroadcastInputs] = {0, 0, 0};
  {
    int64_t i = begin;
    for (int32_t d = last; d >= 0; --d) {
      int64_t q = i / p.dims[d];
      idx[d] = i - q * p.dims[d];
      i = q;
    }
    for (int32_t k = 0; k < p.inputs; ++k) {
      istr[k] = p.strides[k][last];
      for (int32_t d = 0; d <= last; ++d)
        off[k] += idx[d] * p.strides[k][d];
    }
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t count = inner - idx[last];
    if (count > end - pos)
      count = end - pos;
    run(pos, count, off, istr);
    pos += count;
    if (pos >= end)
      break;
    // Advance the odometer to the start of the next run.
    for (int32_t k = 0; k < p.inputs; ++k)
      off[k] += count * istr[k];
    idx[last] += count;
    for (int32_t d = last; d > 0 && idx[d] == p.dims[d]; --d) {
      idx[d] = 0;
      idx[d - 1] += 1;
      for (int32_t k = 0; k < p.inputs; ++k)
        off[k] += p.strides[k][d - 1] - p.dims[d] * p.strides[k][d];
    }
  }
}

} // namespace ops
} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_BROADCAST_H
