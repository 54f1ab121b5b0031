//===- runtime/cuda/device.cu - CUDA twin: device management ----*- CUDA -*-===//
//
// Part of Plumb. Thin wrappers over the CUDA runtime used by tests and tools
// (plumb_cuda.h), so callers need no CUDA headers.
//
//===----------------------------------------------------------------------===//
#include "plumb_cuda.h"

#include "observed_node.h"

#include <cuda_runtime.h>

#include <new>
#include <string.h>
#include <vector>

/// See plumb_cuda.h. Nodes are observed in batches: each node's results go
/// to the device area at once (one device-to-device copy per result, on the
/// model's stream); a batch (about kBatchBytes, or kBatchNodes nodes) then
/// costs one event, one download of its contiguous range and one host
/// callback, which calls the hook of each of its nodes in order (one
/// callback per node left mnist's traced run at +175% on an H200, batches
/// at +103%). Slots and batches are reused by the next run only, after
/// plumb_cuda_observer_wait.
struct plumb_cuda_observer {
  using Slot = plumb::cuda::ObservedNode;
  struct Batch {
    Slot *const *slots = nullptr; // its nodes' slots, in order
    size_t count = 0;
  };
  static constexpr size_t kBatchBytes = size_t(2) << 20;
  static constexpr size_t kBatchNodes = 32;
  char *dev = nullptr;  // device copies
  char *host = nullptr; // pinned host copies
  size_t bytes = 0;
  cudaStream_t copy = nullptr;
  cudaEvent_t ready = nullptr;
  std::vector<Slot> slots;
  std::vector<Slot *> order;  // this run's observed nodes, in order
  std::vector<Batch> batches; // this run's batches (reserved: stable)
  size_t pendingFirst = 0;    // first node of `order` not in a batch yet
  size_t lo = 0, hi = 0;      // its byte range in the areas
};

static void CUDART_CB plumbObserved(void *p) {
  auto *b = static_cast<plumb_cuda_observer::Batch *>(p);
  for (size_t i = 0; i < b->count; ++i)
    b->slots[i]->call();
}

static int plumbCudaStatus(cudaError_t e) {
  return e == cudaSuccess ? PLUMB_RT_OK : PLUMB_CUDA_ELAUNCH;
}

/// A failed observer call: its error must not be reported again by the next
/// launch check (cudaGetLastError) as the next kernel's.
static int plumbObserverFailed() {
  (void)cudaGetLastError();
  return PLUMB_CUDA_ELAUNCH;
}

extern "C" {

int plumb_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

int plumb_cuda_device_name(char *buf, size_t len) {
  int dev = 0;
  cudaDeviceProp prop;
  if (len == 0 || cudaGetDevice(&dev) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
    return PLUMB_CUDA_ELAUNCH;
  strncpy(buf, prop.name, len - 1);
  buf[len - 1] = 0;
  return PLUMB_RT_OK;
}

int plumb_cuda_alloc(void **ptr, size_t bytes) {
  return plumbCudaStatus(cudaMalloc(ptr, bytes ? bytes : 1));
}
int plumb_cuda_free(void *ptr) { return plumbCudaStatus(cudaFree(ptr)); }
int plumb_cuda_upload(void *dst, const void *src, size_t bytes) {
  return plumbCudaStatus(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
int plumb_cuda_download(void *dst, const void *src, size_t bytes) {
  return plumbCudaStatus(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
int plumb_cuda_memset(void *dst, int value, size_t bytes) {
  return plumbCudaStatus(cudaMemset(dst, value, bytes));
}
int plumb_cuda_synchronize(cudaStream_t stream) {
  return plumbCudaStatus(cudaStreamSynchronize(stream));
}
int plumb_cuda_copy(const void *x, void *y, int64_t nbytes,
                    cudaStream_t stream) {
  if (nbytes < 0)
    return PLUMB_RT_EINVAL;
  if (nbytes == 0 || x == y)
    return PLUMB_RT_OK;
  return plumbCudaStatus(cudaMemcpyAsync(y, x, (size_t)nbytes,
                                         cudaMemcpyDeviceToDevice, stream));
}

int plumb_cuda_observer_create(plumb_cuda_observer **out, size_t bytes,
                               int64_t num_nodes) {
  *out = nullptr;
  auto *o = new (std::nothrow) plumb_cuda_observer();
  if (!o || num_nodes < 0)
    return PLUMB_CUDA_ELAUNCH;
  o->bytes = bytes;
  o->slots.resize((size_t)num_nodes);
  o->order.reserve((size_t)num_nodes);
  o->batches.reserve((size_t)num_nodes); // at most one per node: stable
  if (cudaMalloc((void **)&o->dev, bytes ? bytes : 1) != cudaSuccess ||
      cudaMallocHost((void **)&o->host, bytes ? bytes : 1) != cudaSuccess ||
      cudaStreamCreateWithFlags(&o->copy, cudaStreamNonBlocking) !=
          cudaSuccess ||
      cudaEventCreateWithFlags(&o->ready, cudaEventDisableTiming) !=
          cudaSuccess) {
    (void)cudaGetLastError();
    plumb_cuda_observer_destroy(o);
    return PLUMB_CUDA_ELAUNCH;
  }
  *out = o;
  return PLUMB_RT_OK;
}

void plumb_cuda_observer_destroy(plumb_cuda_observer *o) {
  if (!o)
    return;
  if (o->copy) {
    cudaStreamSynchronize(o->copy);
    cudaStreamDestroy(o->copy);
  }
  if (o->ready)
    cudaEventDestroy(o->ready);
  if (o->dev)
    cudaFree(o->dev);
  if (o->host)
    cudaFreeHost(o->host);
  delete o;
}

/// Queues the pending nodes as one batch: download, then their hooks.
static int plumbObserverFlush(plumb_cuda_observer *o) {
  size_t n = o->order.size() - o->pendingFirst;
  if (n == 0)
    return PLUMB_RT_OK;
  if (o->batches.size() == o->batches.capacity())
    return PLUMB_CUDA_ELAUNCH; // cannot happen: one node at least per batch
  // `order` never reallocates (reserved for every node), so the batch can
  // hold a pointer into it while later nodes are appended.
  o->batches.push_back({o->order.data() + o->pendingFirst, n});
  o->pendingFirst = o->order.size();
  if (cudaEventRecord(o->ready, 0) != cudaSuccess ||
      cudaStreamWaitEvent(o->copy, o->ready, 0) != cudaSuccess)
    return plumbObserverFailed();
  if (o->hi > o->lo &&
      cudaMemcpyAsync(o->host + o->lo, o->dev + o->lo, o->hi - o->lo,
                      cudaMemcpyDeviceToHost, o->copy) != cudaSuccess)
    return plumbObserverFailed();
  o->lo = o->hi;
  if (cudaLaunchHostFunc(o->copy, plumbObserved, &o->batches.back()) !=
      cudaSuccess)
    return plumbObserverFailed();
  return PLUMB_RT_OK;
}

int plumb_cuda_observe(plumb_cuda_observer *o, int64_t node,
                       int32_t num_results, const plumb_cuda_observed *results,
                       const plumb_tensor_view *views, plumb_node_hook hook,
                       void *user) {
  if (!o || node < 0 || (size_t)node >= o->slots.size() || num_results < 0 ||
      o->order.size() == o->order.capacity())
    return PLUMB_CUDA_ELAUNCH;
  if (!plumb::cuda::observedFit(results, num_results, o->bytes))
    return PLUMB_CUDA_ELAUNCH;
  // A batch's results are one contiguous range: offsets only grow.
  for (int32_t i = 0; i < num_results; ++i)
    if (results[i].offset < o->hi)
      return PLUMB_CUDA_ELAUNCH;
  if (o->pendingFirst == o->order.size() && num_results > 0)
    o->lo = o->hi = results[0].offset;
  // The device copy on the model's (default) stream: ordered after the
  // node, before any later node overwrites its buffers.
  for (int32_t i = 0; i < num_results; ++i) {
    if (results[i].bytes &&
        cudaMemcpyAsync(o->dev + results[i].offset, results[i].device,
                        results[i].bytes, cudaMemcpyDeviceToDevice,
                        0) != cudaSuccess)
      return plumbObserverFailed();
    o->hi = results[i].offset + results[i].bytes;
  }
  plumb_cuda_observer::Slot &s = o->slots[(size_t)node];
  s.set(node, num_results, results, views, hook, user, o->host);
  o->order.push_back(&s);
  if (o->hi - o->lo >= plumb_cuda_observer::kBatchBytes ||
      o->order.size() - o->pendingFirst >= plumb_cuda_observer::kBatchNodes)
    return plumbObserverFlush(o);
  return PLUMB_RT_OK;
}

int plumb_cuda_observer_wait(plumb_cuda_observer *o) {
  if (!o)
    return PLUMB_CUDA_ELAUNCH;
  int rc = plumbObserverFlush(o);
  cudaError_t e = cudaStreamSynchronize(o->copy);
  if (e != cudaSuccess)
    (void)cudaGetLastError();
  // The run is over: the next one starts with empty batches.
  o->order.clear();
  o->batches.clear();
  o->pendingFirst = 0;
  o->lo = o->hi = 0;
  return rc != PLUMB_RT_OK ? rc : plumbCudaStatus(e);
}

} // extern "C"
