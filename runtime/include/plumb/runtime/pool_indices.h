//===- runtime/include/plumb/runtime/pool_indices.h - MaxPool Indices -*- C++ -*-===//
//
// Part of Plumb. plumb_rt_maxpool_f32 writes ONNX MaxPool's Indices in row-major
// order (storage_order 0): ((n*C + c)*H + h)*W + w. storage_order 1 numbers
// the positions of each (n, c) plane column by column: (n*C + c)*H*W + w*H + h.
// This converts the first into the second in place (-1, an empty window,
// stays -1). Integers only: no rounding anywhere.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_POOL_INDICES_H
#define PLUMB_RUNTIME_POOL_INDICES_H

#include "plumb/runtime/config.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Rewrites `count` row-major indices of an input with spatial dims H x W
/// (2-D pools) into column-major ones. Returns 0, or -1 when H or W < 1.
int plumb_rt_pool_indices_column_major(int64_t *indices, int64_t count,
                                       int64_t H, int64_t W);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // PLUMB_RUNTIME_POOL_INDICES_H
