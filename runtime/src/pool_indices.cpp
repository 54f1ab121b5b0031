//===- runtime/src/pool_indices.cpp - MaxPool Indices storage order -------===//
//
// Part of Plumb. See plumb/runtime/pool_indices.h.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/pool_indices.h"

extern "C" int plumb_rt_pool_indices_column_major(int64_t *indices,
                                                  int64_t count, int64_t H,
                                                  int64_t W) {
  if (H < 1 || W < 1 || count < 0 || (count > 0 && !indices))
    return -1;
  const int64_t plane = H * W;
  for (int64_t i = 0; i < count; ++i) {
    int64_t v = indices[i];
    if (v < 0)
      continue;
    int64_t p = v / plane, r = v % plane;
    indices[i] = p * plane + (r % W) * H + r / W;
  }
  return 0;
}
