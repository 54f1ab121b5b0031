//===- runtime/cuda/device.cu - CUDA twin: device management ----*- CUDA -*-===//
//
// Part of Plumb. Thin wrappers over the CUDA runtime used by tests and tools
// (plumb_cuda.h), so callers need no CUDA headers.
//
//===----------------------------------------------------------------------===//
#include "plumb_cuda.h"

#include <cuda_runtime.h>

#include <string.h>

static int plumbCudaStatus(cudaError_t e) {
  return e == cudaSuccess ? PLUMB_RT_OK : PLUMB_CUDA_ELAUNCH;
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

} // extern "C"
