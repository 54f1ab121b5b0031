//===- runtime/cuda/cuda_exec.cuh - The CUDA executor -----------*- CUDA -*-===//
//
// Part of Plumb. CudaExec::run launches one CUDA thread per output index
// (grid-stride loop) calling the functor; each index runs exactly the
// per-element sequence of device_ops.h. Threads never share a reduction, so
// results do not depend on the launch geometry.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_CUDA_CUDA_EXEC_CUH
#define PLUMB_RUNTIME_CUDA_CUDA_EXEC_CUH

#include "launchers.h"

#include <cuda_runtime.h>

namespace plumb {
namespace cuda {

template <class F> __global__ void forEachKernel(int64_t n, F f) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += step)
    f(i);
}

struct CudaExec {
  static constexpr int kThreads = 128;
  template <class F> static int run(int64_t n, const F &f, cudaStream_t s) {
    int64_t blocks = (n + kThreads - 1) / kThreads;
    if (blocks > (1 << 20))
      blocks = 1 << 20;
    forEachKernel<F><<<(unsigned)blocks, kThreads, 0, s>>>(n, f);
    return cudaGetLastError() == cudaSuccess ? PLUMB_RT_OK : PLUMB_CUDA_ELAUNCH;
  }
  /// A device flag per host thread, zeroed before the run and read after it
  /// (the read waits for the stream).
  template <class F> static int runChecked(int64_t n, F f, cudaStream_t s) {
    thread_local int *flag = nullptr;
    if (!flag && cudaMalloc((void **)&flag, sizeof(int)) != cudaSuccess) {
      flag = nullptr;
      return PLUMB_CUDA_ELAUNCH;
    }
    if (cudaMemsetAsync(flag, 0, sizeof(int), s) != cudaSuccess)
      return PLUMB_CUDA_ELAUNCH;
    f.flag = flag;
    int rc = run(n, f, s);
    if (rc != PLUMB_RT_OK)
      return rc;
    int host = 0;
    if (cudaMemcpyAsync(&host, flag, sizeof(int), cudaMemcpyDeviceToHost, s) !=
            cudaSuccess ||
        cudaStreamSynchronize(s) != cudaSuccess)
      return PLUMB_CUDA_ELAUNCH;
    return host ? PLUMB_RT_ERANGE : PLUMB_RT_OK;
  }
};

} // namespace cuda
} // namespace plumb

#define PLUMB_CUDA_EXEC ::plumb::cuda::CudaExec

#endif // PLUMB_RUNTIME_CUDA_CUDA_EXEC_CUH
