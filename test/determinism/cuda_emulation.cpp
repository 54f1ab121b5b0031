//===- test/determinism/cuda_emulation.cpp - CUDA twin on the host -*- C++ -*-===//
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

#include <stdlib.h>
#include <string.h>

namespace {
struct HostExec {
  template <class F> static int run(int64_t n, const F &f, cudaStream_t) {
    for (int64_t i = 0; i < n; ++i)
      f(i);
    return PLUMB_RT_OK;
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
} // extern "C"
