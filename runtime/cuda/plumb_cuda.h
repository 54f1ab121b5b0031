//===- runtime/cuda/plumb_cuda.h - C ABI of the CUDA twin ------*- C++ -*-===//
//
// Part of Plumb. The CUDA twin of the CPU kernel library: same operations,
// same parameters, same result bits (contract plumb-det-v1), on device
// pointers, asynchronously on `stream`. Every function returns PLUMB_RT_OK
// (0), a PLUMB_RT_E* code for invalid arguments (nothing launched), or
// PLUMB_CUDA_ELAUNCH when the launch failed. Host-side arrays (shapes, axes,
// parameter structs) are read before the function returns.
//
// Built by runtime/cuda/CMakeLists.txt (PLUMB_ENABLE_CUDA=ON) as the static
// library plumb_runtime_cuda. This header needs no CUDA headers.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_CUDA_PLUMB_CUDA_H
#define PLUMB_RUNTIME_CUDA_PLUMB_CUDA_H

#include "plumb/runtime/conv.h"
#include "plumb/runtime/model_abi.h"
#include "plumb/runtime/ops_status.h"

#include <stddef.h>
#include <stdint.h>

/// Same definition as CUDA's driver_types.h (a redeclaration is harmless).
typedef struct CUstream_st *cudaStream_t;

/// A CUDA API call (launch, allocation, copy) failed.
#define PLUMB_CUDA_ELAUNCH (-10)

#ifdef __cplusplus
extern "C" {
#endif

//===--- Device management (thin wrappers, used by tests and tools) -------===//

/// Number of CUDA devices (0 when none or no driver).
int plumb_cuda_device_count(void);
/// Name of the current device into buf (NUL-terminated).
int plumb_cuda_device_name(char *buf, size_t len);
int plumb_cuda_alloc(void **ptr, size_t bytes);
int plumb_cuda_free(void *ptr);
int plumb_cuda_upload(void *dst, const void *src, size_t bytes);
int plumb_cuda_download(void *dst, const void *src, size_t bytes);
int plumb_cuda_memset(void *dst, int value, size_t bytes);
int plumb_cuda_synchronize(cudaStream_t stream);
/// plumb_rt_copy on the device (device to device, on `stream`).
int plumb_cuda_copy(const void *x, void *y, int64_t nbytes,
                    cudaStream_t stream);

/// Observing a run from behind (plumb_model_run_observed, model_abi.h). An
/// observer owns a device area and a pinned host area of `bytes` each, a
/// copy stream and one callback slot per node. plumb_cuda_observe copies a
/// node's results into the device area on the default stream (ordered
/// before anything later overwrites them), then, on the copy stream and
/// behind the run, to the host area, and calls `hook` there with views of
/// the host copies (from a CUDA callback thread, in the order of the
/// observe calls; the hook must not call CUDA). The copies stay until the
/// next run overwrites them; plumb_cuda_observer_wait returns once every
/// hook call queued so far has returned.
typedef struct plumb_cuda_observer plumb_cuda_observer;
typedef struct plumb_cuda_observed {
  const void *device; ///< the result on the device
  size_t offset;      ///< where its copies go in the observer's areas
  size_t bytes;
} plumb_cuda_observed;
int plumb_cuda_observer_create(plumb_cuda_observer **out, size_t bytes,
                               int64_t num_nodes);
void plumb_cuda_observer_destroy(plumb_cuda_observer *o);
/// `results` and `views` (data ignored) describe node `node`'s results.
int plumb_cuda_observe(plumb_cuda_observer *o, int64_t node,
                       int32_t num_results, const plumb_cuda_observed *results,
                       const plumb_tensor_view *views, plumb_node_hook hook,
                       void *user);
int plumb_cuda_observer_wait(plumb_cuda_observer *o);

//===--- GEMM / MatMul (gemm.h) -------------------------------------------===//

/// plumb_rt_gemm_strided on the device.
int plumb_cuda_gemm_strided(int64_t M, int64_t N, int64_t K, float alpha,
                            const float *A, int64_t a_rs, int64_t a_cs,
                            const float *B, int64_t b_rs, int64_t b_cs,
                            float beta, const float *C, int64_t c_rs,
                            int64_t c_cs, float *Y, int64_t ldy, int64_t block,
                            cudaStream_t stream);
/// plumb_rt_gemm on the device.
int plumb_cuda_gemm(int64_t M, int64_t N, int64_t K, float alpha,
                    const float *A, int transA, const float *B, int transB,
                    float beta, const float *C, const int64_t *c_shape,
                    int c_rank, float *Y, int64_t block, cudaStream_t stream);
/// plumb_rt_matmul_f32 on the device.
int plumb_cuda_matmul_f32(const float *A, const int64_t *a_shape,
                          int32_t a_rank, const float *B,
                          const int64_t *b_shape, int32_t b_rank, float *Y,
                          int64_t block, cudaStream_t stream);
/// plumb_rt_matmul_batched on the device.
int plumb_cuda_matmul_batched(int64_t batch, int64_t M, int64_t N, int64_t K,
                              const float *A, int64_t a_bs, const float *B,
                              int64_t b_bs, float *Y, int64_t block,
                              cudaStream_t stream);

//===--- Conv (conv.h) ----------------------------------------------------===//

int plumb_cuda_conv2d(const plumb_conv2d_params *p, const float *X,
                      const float *Wt, const float *bias, float *Y,
                      int64_t block, cudaStream_t stream);
int plumb_cuda_conv1d(int64_t N, int64_t Cin, int64_t L, int64_t Cout,
                      int64_t K, int64_t group, int64_t stride,
                      int64_t dilation, int64_t pad_begin, int64_t pad_end,
                      const float *X, const float *Wt, const float *bias,
                      float *Y, int64_t block, cudaStream_t stream);
int plumb_cuda_conv_transpose2d(const plumb_conv2d_params *p, const float *X,
                                const float *Wt, const float *bias, float *Y,
                                int64_t block, cudaStream_t stream);
int plumb_cuda_conv_transpose1d(int64_t N, int64_t Cin, int64_t L,
                                int64_t Cout, int64_t K, int64_t OL,
                                int64_t group, int64_t stride,
                                int64_t dilation, int64_t pad_begin,
                                int64_t pad_end, const float *X,
                                const float *Wt, const float *bias, float *Y,
                                int64_t block, cudaStream_t stream);
/// plumb_rt_conv_nd on the device.
int plumb_cuda_conv_nd(const plumb_convnd_params *p, const float *X,
                       const float *Wt, const float *bias, float *Y,
                       int64_t block, cudaStream_t stream);
/// plumb_rt_conv_transpose_nd on the device.
int plumb_cuda_conv_transpose_nd(const plumb_convnd_params *p, const float *X,
                                 const float *Wt, const float *bias, float *Y,
                                 int64_t block, cudaStream_t stream);

//===--- Elementwise (elementwise.h, math_kernels.h, cast.h) ---------------===//

int plumb_cuda_unary_f32(int32_t op, const float *x, float *y, int64_t n,
                         float alpha, float beta, cudaStream_t stream);
/// Broadcast binary op; shapes are host arrays. Comparison ops write uint8.
int plumb_cuda_binary_f32(int32_t op, const float *a, const int64_t *a_shape,
                          int32_t a_rank, const float *b,
                          const int64_t *b_shape, int32_t b_rank, void *out,
                          const int64_t *out_shape, int32_t out_rank,
                          cudaStream_t stream);
/// Cast float32 -> plumb_rt_dtype `to` (F32, I64, I32, BOOL).
int plumb_cuda_cast_f32(const float *x, void *y, int32_t to, int64_t n,
                        cudaStream_t stream);
/// plumb_rt_cast on the device (every pair of element types).
int plumb_cuda_cast(const void *x, int32_t from, void *y, int32_t to,
                    int64_t n, cudaStream_t stream);

//===--- Reductions, softmax (reduce.h, softmax.h) ------------------------===//

int plumb_cuda_reduce_f32(int32_t op, const float *x, const int64_t *shape,
                          int32_t rank, const int64_t *axes, int32_t n_axes,
                          float *y, int64_t block, cudaStream_t stream);
int plumb_cuda_argmax_f32(const float *x, const int64_t *shape, int32_t rank,
                          int32_t axis, int32_t is_min,
                          int32_t select_last_index, int64_t *y,
                          cudaStream_t stream);
int plumb_cuda_softmax_f32(const float *x, float *y, int64_t outer,
                           int64_t axis_len, int64_t inner,
                           int32_t log_softmax, int64_t block,
                           cudaStream_t stream);

//===--- Pooling (pool.h) -------------------------------------------------===//

int plumb_cuda_maxpool_f32(const float *x, int64_t n, int64_t c, int32_t sdims,
                           const int64_t *in_spatial,
                           const int64_t *out_spatial, const int64_t *kernel,
                           const int64_t *strides, const int64_t *pads,
                           const int64_t *dilations, float *y,
                           int64_t *indices, cudaStream_t stream);
int plumb_cuda_avgpool_f32(const float *x, int64_t n, int64_t c, int32_t sdims,
                           const int64_t *in_spatial,
                           const int64_t *out_spatial, const int64_t *kernel,
                           const int64_t *strides, const int64_t *pads,
                           const int64_t *dilations, int32_t count_include_pad,
                           float *y, cudaStream_t stream);
int plumb_cuda_global_pool_f32(const float *x, int64_t nc, int64_t spatial,
                               int32_t is_max, float *y, int64_t block,
                               cudaStream_t stream);

//===--- Normalisation (norm.h) -------------------------------------------===//

int plumb_cuda_batchnorm_f32(const float *x, int64_t n, int64_t c,
                             int64_t spatial, const float *scale,
                             const float *bias, const float *mean,
                             const float *var, float epsilon, float *y,
                             cudaStream_t stream);
int plumb_cuda_layernorm_f32(const float *x, int64_t outer, int64_t d,
                             const float *scale, const float *bias,
                             float epsilon, float *y, float *mean_out,
                             float *inv_std_out, int64_t block,
                             cudaStream_t stream);
int plumb_cuda_instancenorm_f32(const float *x, int64_t n, int64_t c,
                                int64_t spatial, const float *scale,
                                const float *bias, float epsilon, float *y,
                                int64_t block, cudaStream_t stream);

//===--- Resize (resize.h) ------------------------------------------------===//

int plumb_cuda_resize_f32(const float *x, const int64_t *in_shape,
                          int32_t rank, const int64_t *out_shape,
                          const float *scales, int32_t mode,
                          int32_t coord_mode, int32_t nearest_mode, float *y,
                          cudaStream_t stream);
int plumb_cuda_resize_cubic_f32(const float *x, const int64_t *in_shape,
                                int32_t rank, const int64_t *out_shape,
                                const float *scales, int32_t coord_mode,
                                float cubic_a, int32_t exclude_outside,
                                float *y, cudaStream_t stream);
int plumb_cuda_grid_sample_f32(const float *x, const int64_t *x_shape,
                               int32_t rank, const float *grid,
                               const int64_t *out_shape, int32_t mode,
                               int32_t padding_mode, int32_t align_corners,
                               float *y, cudaStream_t stream);

//===--- Fourier transforms (signal.h) -------------------------------------===//

int plumb_cuda_dft_f32(const float *x, const float *window, int64_t outer,
                       int64_t len, int64_t inner, int32_t complex_in,
                       int64_t n, int64_t n_out, int32_t inverse,
                       int64_t frames, int64_t step, float *scratch, float *y,
                       cudaStream_t stream);

//===--- Data movement (movement.h) ----------------------------------------===//

/// plumb_rt_gather_nd on the device; PLUMB_RT_ERANGE (after waiting for the
/// stream) when an index is out of range.
int plumb_cuda_gather_nd(const void *data, const int64_t *data_shape,
                         int32_t data_rank, const void *indices,
                         int32_t index_is_i32, const int64_t *idx_shape,
                         int32_t idx_rank, int32_t batch_dims, void *y,
                         int64_t elem_size, cudaStream_t stream);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // PLUMB_RUNTIME_CUDA_PLUMB_CUDA_H
