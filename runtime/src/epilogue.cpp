//===- runtime/src/epilogue.cpp - Flat per-element loops -----------------===//
//
// Part of Plumb. plumb_rt_elementwise_apply (conv.h): a generated
// per-element function over a flat range, split over the threads.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/conv.h"

#include "ops_internal.h"

using namespace plumb::rt::ops;

extern "C" void plumb_rt_elementwise_apply(plumb_rt_epilogue_fn fn, void *ctx,
                                           float *y, int64_t count) {
  if (!fn || count <= 0)
    return;
  // Chunks of 4096 elements (16 KiB, in cache for the whole chain).
  constexpr int64_t kChunk = 4096;
  const int64_t chunks = (count + kChunk - 1) / kChunk;
  parallelRange(chunks, 8, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      const int64_t b = c * kChunk;
      const int64_t n = count - b < kChunk ? count - b : kChunk;
      fn(ctx, y + b, 0, 0, b, n);
    }
  });
}
