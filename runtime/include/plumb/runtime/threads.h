//===- runtime/include/plumb/runtime/threads.h - Thread pool ---*- C++ -*-===//
//
// Part of Plumb. A small persistent thread pool shared by every kernel.
//
// Determinism rule: threads only ever split work by *output elements*. Each
// output element is computed by exactly one thread with exactly the same
// operation sequence it would have single-threaded, so results never depend
// on the thread count or on how the range is partitioned.
//
// The thread count is the only global setting of the runtime. Default: 1.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_THREADS_H
#define PLUMB_RUNTIME_THREADS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Sets the number of threads kernels may use (n < 1 is treated as 1). The
/// calling thread counts as one of them. Not to be called concurrently with a
/// running kernel.
void plumb_rt_set_threads(int n);

/// The current thread count (>= 1).
int plumb_rt_get_threads(void);

#ifdef __cplusplus
} // extern "C"

#include <functional>

namespace plumb {
namespace rt {

/// Calls fn(lo, hi) on disjoint sub-ranges that exactly cover [begin, end),
/// each at least `grain` long (except possibly the last), possibly in
/// parallel on the pool. Returns when all calls have returned. The split is a
/// static contiguous partition, but callers must not depend on it: every
/// index must be processed identically whichever sub-range holds it.
/// Nested calls (from inside fn) run serially on the calling thread, as do
/// calls made while another thread is using the pool.
void parallelFor(int64_t begin, int64_t end, int64_t grain,
                 const std::function<void(int64_t, int64_t)> &fn);

/// Index of the calling thread within the current parallelFor (0 for the
/// caller / serial execution). Useful for per-thread scratch buffers.
int currentThreadIndex();

} // namespace rt
} // namespace plumb
#endif

#endif // PLUMB_RUNTIME_THREADS_H
