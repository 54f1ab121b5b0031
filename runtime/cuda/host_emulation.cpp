//===- runtime/cuda/host_emulation.cpp - CUDA twin on the host --*- C++ -*-===//
//
// Part of Plumb. Implements the C ABI of runtime/cuda/plumb_cuda.h on the
// host: the same launchers (launchers.h) and per-element functions
// (device_ops.h) the .cu files compile, driven by HostExec (a plain loop over
// the output indices) instead of a CUDA grid, with "device memory" in host
// RAM. Linked into plumb-gpu-check-emu, it checks the CUDA twin's arithmetic,
// index logic and tree evaluation order bit for bit against the CPU kernels
// on machines without a GPU. (What it cannot check: the nvcc code
// generation itself, which scripts/check-ptx audits, and the real device.)
//
//===----------------------------------------------------------------------===//
#include "launchers.h"
#include "observed_node.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>

/// The observer (plumb_cuda.h) on the host: the copies are made at once
/// (the device's copies are ordered the same way) and the hook is called
/// behind the run from a worker thread, in order, as the CUDA callback
/// thread calls it.
struct plumb_cuda_observer {
  using Slot = plumb::cuda::ObservedNode;
  std::vector<char> host;
  std::vector<Slot> slots;
  std::mutex mu;
  std::condition_variable work, idle;
  std::deque<Slot *> queue;
  size_t busy = 0; // queued or being called
  bool stop = false;
  std::thread worker;

  void loop() {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      work.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty())
        return;
      Slot *s = queue.front();
      queue.pop_front();
      lock.unlock();
      s->call();
      lock.lock();
      if (--busy == 0)
        idle.notify_all();
    }
  }
};

namespace {
struct HostExec {
  template <class F> static int run(int64_t n, const F &f, cudaStream_t) {
    for (int64_t i = 0; i < n; ++i)
      f(i);
    return PLUMB_RT_OK;
  }
  template <class F> static int runChecked(int64_t n, F f, cudaStream_t s) {
    int flag = 0;
    f.flag = &flag;
    run(n, f, s);
    return flag ? PLUMB_RT_ERANGE : PLUMB_RT_OK;
  }
};
} // namespace

#define PLUMB_CUDA_EXEC HostExec
#define PLUMB_ABI_GEMM
#define PLUMB_ABI_CONV
#define PLUMB_ABI_ELEMENTWISE
#define PLUMB_ABI_REDUCE
#define PLUMB_ABI_POOL
#define PLUMB_ABI_NORM
#define PLUMB_ABI_RESIZE
#define PLUMB_ABI_MOVEMENT
#define PLUMB_ABI_SIGNAL
#include "abi.inc"

extern "C" {
int plumb_cuda_device_count(void) { return 1; }
int plumb_cuda_device_name(char *buf, size_t len) {
  strncpy(buf, "host emulation of the CUDA twin", len - 1);
  buf[len - 1] = 0;
  return PLUMB_RT_OK;
}
int plumb_cuda_alloc(void **ptr, size_t bytes) {
  *ptr = malloc(bytes ? bytes : 1);
  return *ptr ? PLUMB_RT_OK : PLUMB_CUDA_ELAUNCH;
}
int plumb_cuda_free(void *ptr) {
  free(ptr);
  return PLUMB_RT_OK;
}
int plumb_cuda_upload(void *dst, const void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return PLUMB_RT_OK;
}
int plumb_cuda_download(void *dst, const void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return PLUMB_RT_OK;
}
int plumb_cuda_memset(void *dst, int value, size_t bytes) {
  memset(dst, value, bytes);
  return PLUMB_RT_OK;
}
int plumb_cuda_synchronize(cudaStream_t) { return PLUMB_RT_OK; }
int plumb_cuda_copy(const void *x, void *y, int64_t nbytes, cudaStream_t) {
  if (nbytes < 0)
    return PLUMB_RT_EINVAL;
  if (nbytes > 0 && x != y)
    memmove(y, x, (size_t)nbytes);
  return PLUMB_RT_OK;
}

int plumb_cuda_observer_create(plumb_cuda_observer **out, size_t bytes,
                               int64_t num_nodes) {
  *out = nullptr;
  if (num_nodes < 0)
    return PLUMB_CUDA_ELAUNCH;
  auto *o = new (std::nothrow) plumb_cuda_observer();
  if (!o)
    return PLUMB_CUDA_ELAUNCH;
  o->host.resize(bytes ? bytes : 1);
  o->slots.resize((size_t)num_nodes);
  o->worker = std::thread([o] { o->loop(); });
  *out = o;
  return PLUMB_RT_OK;
}

void plumb_cuda_observer_destroy(plumb_cuda_observer *o) {
  if (!o)
    return;
  {
    std::lock_guard<std::mutex> lock(o->mu);
    o->stop = true;
  }
  o->work.notify_all();
  o->worker.join();
  delete o;
}

int plumb_cuda_observe(plumb_cuda_observer *o, int64_t node,
                       int32_t num_results, const plumb_cuda_observed *results,
                       const plumb_tensor_view *views, plumb_node_hook hook,
                       void *user) {
  if (!o || node < 0 || (size_t)node >= o->slots.size() || num_results < 0)
    return PLUMB_CUDA_ELAUNCH;
  if (!plumb::cuda::observedFit(results, num_results, o->host.size()))
    return PLUMB_CUDA_ELAUNCH;
  plumb_cuda_observer::Slot &s = o->slots[(size_t)node];
  std::lock_guard<std::mutex> lock(o->mu);
  for (int32_t i = 0; i < num_results; ++i)
    memcpy(o->host.data() + results[i].offset, results[i].device,
           results[i].bytes);
  s.set(node, num_results, results, views, hook, user, o->host.data());
  o->queue.push_back(&s);
  ++o->busy;
  o->work.notify_one();
  return PLUMB_RT_OK;
}

int plumb_cuda_observer_wait(plumb_cuda_observer *o) {
  if (!o)
    return PLUMB_CUDA_ELAUNCH;
  std::unique_lock<std::mutex> lock(o->mu);
  o->idle.wait(lock, [&] { return o->busy == 0; });
  return PLUMB_RT_OK;
}
} // extern "C"
