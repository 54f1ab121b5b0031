//===- runtime/src/ops_internal.h - Shared helpers of the op kernels -*- C++ -*-===//
//
// Part of Plumb. Host-only helpers shared by the elementwise, reduction,
// pooling, normalisation, resize, RNN and movement kernels: the thread split
// (always over output elements) and small shape utilities.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_SRC_OPS_INTERNAL_H
#define PLUMB_RUNTIME_SRC_OPS_INTERNAL_H

#include "plumb/runtime/ops_status.h"
#include "plumb/runtime/threads.h"

#include <stdint.h>

namespace plumb {
namespace rt {
namespace ops {

/// Splits [0, n) over the pool by output index. `grain` is the minimum work
/// per call. The split never changes any element's operation sequence.
template <typename Fn>
inline void parallelRange(int64_t n, int64_t grain, Fn &&fn) {
  if (n <= 0)
    return;
  if (grain < 1)
    grain = 1;
  if (n <= grain || plumb_rt_get_threads() <= 1) {
    fn(int64_t(0), n);
    return;
  }
  ::plumb::rt::parallelFor(0, n, grain,
                           [&](int64_t lo, int64_t hi) { fn(lo, hi); });
}

/// Product of dims[lo..hi).
inline int64_t prodDims(const int64_t *dims, int32_t lo, int32_t hi) {
  int64_t p = 1;
  for (int32_t i = lo; i < hi; ++i)
    p *= dims[i];
  return p;
}

inline bool validShape(const int64_t *dims, int32_t rank) {
  if (rank < 0 || (rank > 0 && !dims))
    return false;
  for (int32_t i = 0; i < rank; ++i)
    if (dims[i] < 0)
      return false;
  return true;
}

} // namespace ops
} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_SRC_OPS_INTERNAL_H
