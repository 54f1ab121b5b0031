//===- runtime/cuda/observed_node.h - One node of an observed run -*- C++ -*-===//
//
// Part of Plumb. What plumb_cuda_observe (plumb_cuda.h) keeps of a node until
// its hook is called behind the run, and the bounds check of its copies:
// shared by the CUDA twin (device.cu) and its host emulation
// (runtime/cuda/host_emulation.cpp), so both hand the hook the same
// views.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_CUDA_OBSERVED_NODE_H
#define PLUMB_RUNTIME_CUDA_OBSERVED_NODE_H

#include "plumb_cuda.h"

#include <vector>

namespace plumb {
namespace cuda {

/// Whether the copies of `results` all lie inside areas of `bytes`.
inline bool observedFit(const plumb_cuda_observed *results,
                        int32_t num_results, size_t bytes) {
  for (int32_t i = 0; i < num_results; ++i)
    if (results[i].offset > bytes ||
        results[i].bytes > bytes - results[i].offset)
      return false;
  return true;
}

/// A node's hook call, its views pointing at the copies in the host area.
struct ObservedNode {
  plumb_node_hook hook = nullptr;
  void *user = nullptr;
  int64_t node = 0;
  std::vector<plumb_tensor_view> views;

  void set(int64_t k, int32_t num_results, const plumb_cuda_observed *results,
           const plumb_tensor_view *v, plumb_node_hook h, void *u,
           char *hostArea) {
    hook = h;
    user = u;
    node = k;
    views.assign(v, v + num_results);
    for (int32_t i = 0; i < num_results; ++i)
      views[i].data = hostArea + results[i].offset;
  }
  void call() const {
    hook(user, node, (int32_t)views.size(), views.data());
  }
};

} // namespace cuda
} // namespace plumb

#endif // PLUMB_RUNTIME_CUDA_OBSERVED_NODE_H
