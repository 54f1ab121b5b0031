//===- runtime/cuda/launchers.h - Argument checks and launches -*- C++ -*-===//
//
// Part of Plumb. The host side of every CUDA-twin entry point, written once
// as templates over an executor `Exec` with
//     template <class F> static int run(int64_t n, const F &f, cudaStream_t s);
//     template <class F> static int runChecked(int64_t n, F f, cudaStream_t s);
// that calls f(i) for every i in [0, n) — one CUDA thread per index for the
// real library (cuda_exec.cuh), a host loop for the emulation runner of
// test/determinism (so this file, device_ops.h and the whole index logic are
// tested bit for bit against the CPU kernels on machines without a GPU).
// Functors are plain structs with PLUMB_HD operator() (no extended lambdas).
// runChecked is for kernels whose errors depend on data (an index out of
// range): it points the functor's `int *flag` at a zeroed flag, runs it and
// returns PLUMB_RT_ERANGE when any call set the flag (it waits for the
// stream to read it).
// Argument checks mirror the CPU kernels so both return the same codes.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_CUDA_LAUNCHERS_H
#define PLUMB_RUNTIME_CUDA_LAUNCHERS_H

#include "device_ops.h"
#include "plumb_cuda.h"

#include "plumb/runtime/movement.h"

namespace plumb {
namespace cuda {

//===----------------------------------------------------------------------===//
// Functors.
//===----------------------------------------------------------------------===//

struct GemmF {
  GemmArgs g;
  PLUMB_INLINE void operator()(int64_t i) const {
    gemmElement(g, i / g.N, i % g.N);
  }
};

struct MatMulF { // batched: i over [batch, M, N]
  GemmArgs g;
  int64_t a_bs, b_bs;
  PLUMB_INLINE void operator()(int64_t i) const {
    const int64_t mn = g.M * g.N;
    const int64_t b = i / mn, r = i - b * mn;
    GemmArgs h = g;
    h.A = g.A + b * a_bs;
    h.B = g.B + b * b_bs;
    h.Y = g.Y + b * mn;
    gemmElement(h, r / g.N, r % g.N);
  }
};

struct ConvF {
  plumb_conv2d_params p;
  const float *X, *W, *bias;
  float *Y;
  int64_t block;
  int transposed;
  PLUMB_INLINE void operator()(int64_t i) const {
    if (transposed)
      convTranspose2dElement(p, X, W, bias, Y, block, i);
    else
      conv2dElement(p, X, W, bias, Y, block, i);
  }
};

struct ConvNdF {
  plumb_convnd_params p;
  const float *X, *W, *bias;
  float *Y;
  int64_t block;
  PLUMB_INLINE void operator()(int64_t i) const {
    convNdElement(p, X, W, bias, Y, block, i);
  }
};

struct ConvTransposeNdF {
  plumb_convnd_params p;
  const float *X, *W, *bias;
  float *Y;
  int64_t block;
  PLUMB_INLINE void operator()(int64_t i) const {
    convTransposeNdElement(p, X, W, bias, Y, block, i);
  }
};

struct UnaryF {
  const float *x;
  float *y;
  int32_t op;
  float alpha, beta;
  PLUMB_INLINE void operator()(int64_t i) const {
    y[i] = ops::unaryF32(op, x[i], alpha, beta);
  }
};

struct BinaryF {
  ops::BroadcastPlan plan;
  int32_t op;
  const float *a, *b;
  void *out;
  PLUMB_INLINE void operator()(int64_t i) const {
    binaryElement(plan, op, a, b, out, i);
  }
};

struct CastF {
  const float *x;
  void *y;
  int32_t to;
  PLUMB_INLINE void operator()(int64_t i) const { castF32Element(x, y, to, i); }
};

struct CastAnyF {
  const void *x;
  int32_t from;
  void *y;
  int32_t to;
  PLUMB_INLINE void operator()(int64_t i) const {
    castElement(x, from, y, to, i);
  }
};

struct ReduceF {
  ReduceLayout L;
  int32_t op;
  const float *x;
  float *y;
  int64_t block;
  PLUMB_INLINE void operator()(int64_t o) const {
    y[o] = reduceElement(L, op, x, block, o);
  }
};

struct ArgMaxF {
  const float *x;
  int64_t len, inner;
  int32_t is_min, last;
  int64_t *y;
  PLUMB_INLINE void operator()(int64_t o) const {
    y[o] = argmaxElement(x, len, inner, is_min, last, o);
  }
};

struct SoftmaxF {
  const float *x;
  float *y;
  int64_t len, inner, block;
  int32_t log;
  PLUMB_INLINE void operator()(int64_t r) const {
    softmaxRow(x, y, len, inner, log, block, r);
  }
};

struct MaxPoolF {
  PoolGeom g;
  const float *x;
  float *y;
  int64_t *indices;
  PLUMB_INLINE void operator()(int64_t i) const {
    maxpoolElement(g, x, y, indices, i);
  }
};

struct AvgPoolF {
  PoolGeom g;
  const float *x;
  float *y;
  int32_t includePad;
  PLUMB_INLINE void operator()(int64_t i) const {
    avgpoolElement(g, x, y, includePad, i);
  }
};

struct GlobalPoolF {
  const float *x;
  float *y;
  int64_t spatial, block;
  int32_t isMax;
  PLUMB_INLINE void operator()(int64_t r) const {
    globalPoolElement(x, spatial, isMax, y, block, r);
  }
};

struct BatchNormF {
  const float *x, *scale, *bias, *mean, *var;
  float *y;
  int64_t c, spatial;
  float eps;
  PLUMB_INLINE void operator()(int64_t i) const {
    batchnormElement(x, c, spatial, scale, bias, mean, var, eps, y, i);
  }
};

struct LayerNormF { // rows of d; instance norm: scale/bias stride 0 per channel
  const float *x, *scale, *bias;
  float *y, *meanOut, *invOut;
  int64_t d, c, block;
  float eps;
  int instance;
  PLUMB_INLINE void operator()(int64_t r) const {
    if (instance) {
      const int64_t k = r % c;
      normRow(x + r * d, d, scale + k, 0, bias + k, 0, eps, y + r * d, block,
              nullptr, nullptr);
    } else {
      normRow(x + r * d, d, scale, 1, bias, 1, eps, y + r * d, block,
              meanOut ? meanOut + r : nullptr, invOut ? invOut + r : nullptr);
    }
  }
};

struct ResizeF {
  ResizeArgs a;
  const float *x;
  float *y;
  PLUMB_INLINE void operator()(int64_t i) const { resizeElement(a, x, y, i); }
};

/// Cubic Resize: the taps of each dim from resize.h's resizeCubicTaps, the
/// value from resizeCubicValue (the CPU kernel's functions).
struct ResizeCubicF {
  ResizeArgs a;
  float cubicA;
  int32_t exclude;
  const float *x;
  float *y;
  PLUMB_INLINE void operator()(int64_t idx) const {
    int64_t ti[4 * PLUMB_RT_MAX_RANK];
    float tw[4 * PLUMB_RT_MAX_RANK];
    int32_t tn[PLUMB_RT_MAX_RANK];
    int64_t q = idx;
    for (int32_t d = a.rank - 1; d >= 0; --d) {
      const int64_t o = q % a.out[d];
      q /= a.out[d];
      tn[d] = ops::resizeCubicTaps(a.coord, o, a.in[d], a.out[d], a.scale[d],
                                   cubicA, exclude, &ti[4 * d], &tw[4 * d]);
    }
    y[idx] = ops::canon(ops::resizeCubicValue(x, a.rank, a.st, ti, tw, tn));
  }
};

/// DFT twiddle table entry j (signal.h's dftTwiddle).
struct DftTwiddleF {
  int64_t n;
  int32_t inverse;
  float *tw;
  PLUMB_INLINE void operator()(int64_t j) const {
    ops::dftTwiddle(j, n, inverse, &tw[2 * j], &tw[2 * j + 1]);
  }
};

/// One output of one DFT stage for transform i / cnt (signal.h's
/// dftStageValue; the last stage stores with dftStore).
struct DftStageF {
  ops::DftPlan g;
  int32_t s;
  int64_t cnt;
  const float *x, *w, *tw, *in;
  float *out, *y;
  PLUMB_INLINE void operator()(int64_t i) const {
    const int64_t t = i / cnt, k = i - t * cnt;
    const int64_t per = 2 * g.n;
    float re, im;
    ops::dftStageValue(g, s, tw, in ? in + t * per : nullptr, x, w, t, k, &re,
                       &im);
    if (s == g.stages - 1) {
      ops::dftStore(g, y, t, k, re, im);
    } else {
      out[t * per + 2 * k] = re;
      out[t * per + 2 * k + 1] = im;
    }
  }
};

/// GridSample: one output element from resize.h's gridSampleAt (the CPU
/// kernel's function).
struct GridSampleF {
  ops::GridSampleGeom g;
  int32_t align;
  const float *x, *grid;
  float *y;
  PLUMB_INLINE void operator()(int64_t idx) const {
    y[idx] = ops::gridSampleAt(g, align, x, grid, idx);
  }
};

//===----------------------------------------------------------------------===//
// Launchers.
//===----------------------------------------------------------------------===//

inline bool convParamsValid(const plumb_conv2d_params *p) {
  if (!p || p->N < 0 || p->Cin < 0 || p->H < 0 || p->W < 0 || p->Cout < 0 ||
      p->KH < 1 || p->KW < 1 || p->OH < 0 || p->OW < 0 || p->group < 1 ||
      p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 ||
      p->dilation_w < 1)
    return false;
  return p->Cin % p->group == 0 && p->Cout % p->group == 0;
}

inline int64_t convOutDim(int64_t in, int64_t k, int64_t s, int64_t d,
                          int64_t pb, int64_t pe) {
  const int64_t span = in + pb + pe - ((k - 1) * d + 1);
  return span < 0 ? 0 : span / s + 1;
}

template <class Exec>
int launchGemm(int64_t M, int64_t N, int64_t K, float alpha, const float *A,
               int64_t a_rs, int64_t a_cs, const float *B, int64_t b_rs,
               int64_t b_cs, float beta, const float *C, int64_t c_rs,
               int64_t c_cs, float *Y, int64_t ldy, int64_t block,
               cudaStream_t s) {
  if (M <= 0 || N <= 0)
    return PLUMB_RT_OK;
  GemmArgs g{M,    N,    K,    alpha, beta, A,   a_rs, a_cs,
             B,    b_rs, b_cs, C,     c_rs, c_cs, Y,   ldy,
             block < 0 ? 0 : block};
  return Exec::run(M * N, GemmF{g}, s);
}

template <class Exec>
int launchMatMulBatched(int64_t batch, int64_t M, int64_t N, int64_t K,
                        const float *A, int64_t a_bs, const float *B,
                        int64_t b_bs, float *Y, int64_t block,
                        cudaStream_t s) {
  if (batch <= 0 || M <= 0 || N <= 0)
    return PLUMB_RT_OK;
  GemmArgs g{M, N, K, 1.0f, 1.0f, A, K, 1, B, N, 1, nullptr, 0, 0, Y, N,
             block < 0 ? 0 : block};
  return Exec::run(batch * M * N, MatMulF{g, a_bs, b_bs}, s);
}

/// ONNX Gemm with plumb_rt_gemm's parameters: the strides come from the
/// geometry the host kernel uses (gemm.h gemmStrides).
template <class Exec>
int launchGemmOnnx(int64_t M, int64_t N, int64_t K, float alpha,
                   const float *A, int transA, const float *B, int transB,
                   float beta, const float *C, const int64_t *c_shape,
                   int c_rank, float *Y, int64_t block, cudaStream_t s) {
  const ::plumb::rt::GemmStrides g = ::plumb::rt::gemmStrides(
      M, N, K, transA, transB, C != nullptr, c_shape, c_rank);
  return launchGemm<Exec>(M, N, K, alpha, A, g.a_rs, g.a_cs, B, g.b_rs,
                          g.b_cs, beta, C, g.c_rs, g.c_cs, Y, N, block, s);
}

/// numpy MatMul with plumb_rt_matmul_f32's parameters: one batched launch
/// when the batch offsets are arithmetic sequences, else one per batch
/// (each output element's dot product is the same either way).
template <class Exec>
int launchMatMul(const float *A, const int64_t *a_shape, int32_t a_rank,
                 const float *B, const int64_t *b_shape, int32_t b_rank,
                 float *Y, int64_t block, cudaStream_t s) {
  ::plumb::rt::MatMulLayout L;
  if (!::plumb::rt::matmulLayout(L, a_shape, a_rank, b_shape, b_rank))
    return -1;
  int64_t a1 = 0, b1 = 0;
  if (L.batch > 1)
    ::plumb::rt::matmulBatchOffsets(L, 1, &a1, &b1);
  bool arithmetic = true;
  for (int64_t b = 0; b < L.batch && arithmetic; ++b) {
    int64_t ao, bo;
    ::plumb::rt::matmulBatchOffsets(L, b, &ao, &bo);
    arithmetic = ao == b * a1 && bo == b * b1;
  }
  if (arithmetic)
    return launchMatMulBatched<Exec>(L.batch, L.M, L.N, L.K, A, a1, B, b1, Y,
                                     block, s);
  for (int64_t b = 0; b < L.batch; ++b) {
    int64_t ao, bo;
    ::plumb::rt::matmulBatchOffsets(L, b, &ao, &bo);
    int rc = launchMatMulBatched<Exec>(1, L.M, L.N, L.K, A + ao, 0, B + bo, 0,
                                       Y + b * L.M * L.N, block, s);
    if (rc != PLUMB_RT_OK)
      return rc;
  }
  return PLUMB_RT_OK;
}

template <class Exec>
int launchConv(const plumb_conv2d_params *p, const float *X, const float *W,
               const float *bias, float *Y, int64_t block, bool transposed,
               cudaStream_t s) {
  if (!convParamsValid(p))
    return -1;
  if (!transposed &&
      (p->OH != convOutDim(p->H, p->KH, p->stride_h, p->dilation_h,
                           p->pad_top, p->pad_bottom) ||
       p->OW != convOutDim(p->W, p->KW, p->stride_w, p->dilation_w,
                           p->pad_left, p->pad_right)))
    return -1;
  const int64_t total = p->N * p->Cout * p->OH * p->OW;
  if (total == 0)
    return 0;
  return Exec::run(total,
                   ConvF{*p, X, W, bias, Y, block < 0 ? 0 : block,
                         transposed ? 1 : 0},
                   s);
}

inline bool convNdParamsValid(const plumb_convnd_params *p) {
  if (!p || p->spatial < 1 || p->spatial > PLUMB_CONV_MAX_SPATIAL || p->N < 0 ||
      p->Cin < 0 || p->Cout < 0 || p->group < 1 ||
      p->Cin % p->group != 0 || p->Cout % p->group != 0)
    return false;
  for (int64_t j = 0; j < p->spatial; ++j)
    if (p->in[j] < 0 || p->kernel[j] < 1 || p->out[j] < 0 ||
        p->stride[j] < 1 || p->dilation[j] < 1)
      return false;
  return true;
}

/// plumb_rt_conv_transpose_nd: 1 and 2 spatial dims take the 2-D path (as
/// on the host), more the N-d element function.
template <class Exec>
int launchConvTransposeNd(const plumb_convnd_params *p, const float *X,
                          const float *W, const float *bias, float *Y,
                          int64_t block, cudaStream_t s) {
  if (!convNdParamsValid(p))
    return -1;
  if (p->spatial <= 2) {
    const bool one = p->spatial == 1;
    const plumb_conv2d_params q = {
        p->N, p->Cin, one ? 1 : p->in[0], p->in[one ? 0 : 1], p->Cout,
        one ? 1 : p->kernel[0], p->kernel[one ? 0 : 1], one ? 1 : p->out[0],
        p->out[one ? 0 : 1], p->group, one ? 1 : p->stride[0],
        p->stride[one ? 0 : 1], one ? 1 : p->dilation[0],
        p->dilation[one ? 0 : 1], one ? 0 : p->pad_begin[0],
        p->pad_begin[one ? 0 : 1], one ? 0 : p->pad_end[0],
        p->pad_end[one ? 0 : 1]};
    return launchConv<Exec>(&q, X, W, bias, Y, block, true, s);
  }
  int64_t total = p->N * p->Cout;
  for (int64_t j = 0; j < p->spatial; ++j)
    total *= p->out[j];
  if (total == 0)
    return 0;
  return Exec::run(total,
                   ConvTransposeNdF{*p, X, W, bias, Y, block < 0 ? 0 : block},
                   s);
}

/// plumb_rt_conv_nd: 1 and 2 spatial dims take the 2-D path (as on the
/// host), more the N-d element function.
template <class Exec>
int launchConvNd(const plumb_convnd_params *p, const float *X, const float *W,
                 const float *bias, float *Y, int64_t block, cudaStream_t s) {
  if (!convNdParamsValid(p))
    return -1;
  for (int64_t j = 0; j < p->spatial; ++j)
    if (p->out[j] != convOutDim(p->in[j], p->kernel[j], p->stride[j],
                                p->dilation[j], p->pad_begin[j],
                                p->pad_end[j]))
      return -1;
  if (p->spatial <= 2) {
    const bool one = p->spatial == 1;
    const plumb_conv2d_params q = {
        p->N, p->Cin, one ? 1 : p->in[0], p->in[one ? 0 : 1], p->Cout,
        one ? 1 : p->kernel[0], p->kernel[one ? 0 : 1], one ? 1 : p->out[0],
        p->out[one ? 0 : 1], p->group, one ? 1 : p->stride[0],
        p->stride[one ? 0 : 1], one ? 1 : p->dilation[0],
        p->dilation[one ? 0 : 1], one ? 0 : p->pad_begin[0],
        p->pad_begin[one ? 0 : 1], one ? 0 : p->pad_end[0],
        p->pad_end[one ? 0 : 1]};
    return launchConv<Exec>(&q, X, W, bias, Y, block, false, s);
  }
  int64_t total = p->N * p->Cout;
  for (int64_t j = 0; j < p->spatial; ++j)
    total *= p->out[j];
  if (total == 0)
    return 0;
  return Exec::run(total, ConvNdF{*p, X, W, bias, Y, block < 0 ? 0 : block},
                   s);
}

template <class Exec>
int launchUnary(int32_t op, const float *x, float *y, int64_t n, float alpha,
                float beta, cudaStream_t s) {
  if (!ops::unaryF32Valid(op) || n < 0)
    return PLUMB_RT_EINVAL;
  if (n == 0)
    return PLUMB_RT_OK;
  return Exec::run(n, UnaryF{x, y, op, alpha, beta}, s);
}

template <class Exec>
int launchBinary(int32_t op, const float *a, const int64_t *a_shape,
                 int32_t a_rank, const float *b, const int64_t *b_shape,
                 int32_t b_rank, void *out, const int64_t *out_shape,
                 int32_t out_rank, cudaStream_t s) {
  if (!ops::binaryF32Valid(op))
    return PLUMB_RT_EINVAL;
  BinaryF f;
  const int64_t *shapes[2] = {a_shape, b_shape};
  const int32_t ranks[2] = {a_rank, b_rank};
  int rc = ops::makeBroadcastPlan(f.plan, 2, shapes, ranks, out_shape, out_rank);
  if (rc != PLUMB_RT_OK)
    return rc;
  if (f.plan.total == 0)
    return PLUMB_RT_OK;
  f.op = op;
  f.a = a;
  f.b = b;
  f.out = out;
  return Exec::run(f.plan.total, f, s);
}

template <class Exec>
int launchCast(const float *x, void *y, int32_t to, int64_t n,
               cudaStream_t s) {
  if (to < PLUMB_RT_F32 || to > PLUMB_RT_BOOL || n < 0)
    return PLUMB_RT_EINVAL;
  if (n == 0)
    return PLUMB_RT_OK;
  return Exec::run(n, CastF{x, y, to}, s);
}

/// plumb_rt_cast's conversions between every pair of element types.
template <class Exec>
int launchCastAny(const void *x, int32_t from, void *y, int32_t to, int64_t n,
                  cudaStream_t s) {
  if (from < PLUMB_RT_F32 || from > PLUMB_RT_BOOL || to < PLUMB_RT_F32 ||
      to > PLUMB_RT_BOOL || n < 0)
    return PLUMB_RT_EINVAL;
  if (n == 0)
    return PLUMB_RT_OK;
  return Exec::run(n, CastAnyF{x, from, y, to}, s);
}

template <class Exec>
int launchReduce(int32_t op, const float *x, const int64_t *shape,
                 int32_t rank, const int64_t *axes, int32_t n_axes, float *y,
                 int64_t block, cudaStream_t s) {
  ReduceF f;
  int64_t outputs = 0;
  int rc = makeReduceLayout(f.L, shape, rank, axes, n_axes, &outputs);
  if (rc != PLUMB_RT_OK)
    return rc;
  if (outputs == 0)
    return PLUMB_RT_OK;
  if (!reduceOpValid(op))
    return PLUMB_RT_EINVAL;
  f.op = op;
  f.x = x;
  f.y = y;
  f.block = block < 0 ? 0 : block;
  return Exec::run(outputs, f, s);
}

template <class Exec>
int launchArgMax(const float *x, const int64_t *shape, int32_t rank,
                 int32_t axis, int32_t is_min, int32_t last, int64_t *y,
                 cudaStream_t s) {
  if (rank < 1 || rank > PLUMB_RT_MAX_RANK || axis < 0 || axis >= rank)
    return PLUMB_RT_EINVAL;
  int64_t outer = 1, inner = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0)
      return PLUMB_RT_EINVAL;
    if (d < axis)
      outer *= shape[d];
    else if (d > axis)
      inner *= shape[d];
  }
  if (outer * inner == 0)
    return PLUMB_RT_OK;
  if (shape[axis] == 0)
    return PLUMB_RT_EINVAL;
  return Exec::run(outer * inner, ArgMaxF{x, shape[axis], inner, is_min, last, y},
                   s);
}

template <class Exec>
int launchSoftmax(const float *x, float *y, int64_t outer, int64_t len,
                  int64_t inner, int32_t log, int64_t block, cudaStream_t s) {
  if (outer < 0 || len < 0 || inner < 0)
    return PLUMB_RT_EINVAL;
  if (outer * len * inner == 0)
    return PLUMB_RT_OK;
  return Exec::run(outer * inner,
                   SoftmaxF{x, y, len, inner, block < 0 ? 0 : block, log}, s);
}

template <class Exec>
int launchMaxPool(const float *x, int64_t n, int64_t c, int32_t sdims,
                  const int64_t *in, const int64_t *out, const int64_t *k,
                  const int64_t *st, const int64_t *pads, const int64_t *dil,
                  float *y, int64_t *indices, cudaStream_t s) {
  MaxPoolF f;
  int rc = makePoolGeom(f.g, sdims, in, out, k, st, pads, dil);
  if (rc != PLUMB_RT_OK || n < 0 || c < 0)
    return rc != PLUMB_RT_OK ? rc : PLUMB_RT_EINVAL;
  if (n * c * f.g.outSize == 0)
    return PLUMB_RT_OK;
  f.x = x;
  f.y = y;
  f.indices = indices;
  return Exec::run(n * c * f.g.outSize, f, s);
}

template <class Exec>
int launchAvgPool(const float *x, int64_t n, int64_t c, int32_t sdims,
                  const int64_t *in, const int64_t *out, const int64_t *k,
                  const int64_t *st, const int64_t *pads, const int64_t *dil,
                  int32_t includePad, float *y, cudaStream_t s) {
  AvgPoolF f;
  int rc = makePoolGeom(f.g, sdims, in, out, k, st, pads, dil);
  if (rc != PLUMB_RT_OK || n < 0 || c < 0)
    return rc != PLUMB_RT_OK ? rc : PLUMB_RT_EINVAL;
  if (n * c * f.g.outSize == 0)
    return PLUMB_RT_OK;
  f.x = x;
  f.y = y;
  f.includePad = includePad;
  return Exec::run(n * c * f.g.outSize, f, s);
}

template <class Exec>
int launchGlobalPool(const float *x, int64_t nc, int64_t spatial,
                     int32_t isMax, float *y, int64_t block, cudaStream_t s) {
  if (nc < 0 || spatial < 0)
    return PLUMB_RT_EINVAL;
  if (nc == 0)
    return PLUMB_RT_OK;
  return Exec::run(nc, GlobalPoolF{x, y, spatial, block < 0 ? 0 : block, isMax},
                   s);
}

template <class Exec>
int launchBatchNorm(const float *x, int64_t n, int64_t c, int64_t spatial,
                    const float *scale, const float *bias, const float *mean,
                    const float *var, float eps, float *y, cudaStream_t s) {
  if (n < 0 || c < 0 || spatial < 0)
    return PLUMB_RT_EINVAL;
  if (n * c * spatial == 0)
    return PLUMB_RT_OK;
  return Exec::run(n * c * spatial,
                   BatchNormF{x, scale, bias, mean, var, y, c, spatial, eps}, s);
}

template <class Exec>
int launchLayerNorm(const float *x, int64_t outer, int64_t d,
                    const float *scale, const float *bias, float eps, float *y,
                    float *meanOut, float *invOut, int64_t block,
                    cudaStream_t s) {
  if (outer < 0 || d < 0)
    return PLUMB_RT_EINVAL;
  if (outer == 0)
    return PLUMB_RT_OK;
  return Exec::run(outer,
                   LayerNormF{x, scale, bias, y, meanOut, invOut, d, 1,
                              block < 0 ? 0 : block, eps, 0},
                   s);
}

template <class Exec>
int launchInstanceNorm(const float *x, int64_t n, int64_t c, int64_t spatial,
                       const float *scale, const float *bias, float eps,
                       float *y, int64_t block, cudaStream_t s) {
  if (n < 0 || c < 0 || spatial < 0)
    return PLUMB_RT_EINVAL;
  if (n * c * spatial == 0)
    return PLUMB_RT_OK;
  return Exec::run(n * c,
                   LayerNormF{x, scale, bias, y, nullptr, nullptr, spatial, c,
                              block < 0 ? 0 : block, eps, 1},
                   s);
}

/// The shape part of ResizeArgs (sizes, input strides, scales) and the
/// output size in *total; PLUMB_RT_EINVAL for a bad shape.
inline int resizeGeometry(ResizeArgs &a, const int64_t *in_shape, int32_t rank,
                          const int64_t *out_shape, const float *scales,
                          int64_t *total) {
  a.rank = rank;
  *total = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (in_shape[d] < 0 || out_shape[d] < 0)
      return PLUMB_RT_EINVAL;
    *total *= out_shape[d];
  }
  if (*total == 0)
    return PLUMB_RT_OK;
  int64_t st = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    if (in_shape[d] == 0)
      return PLUMB_RT_EINVAL;
    a.in[d] = in_shape[d];
    a.out[d] = out_shape[d];
    a.st[d] = st;
    st *= in_shape[d];
    a.scale[d] = scales ? scales[d]
                        : ops::castI64ToF32(out_shape[d]) /
                              ops::castI64ToF32(in_shape[d]);
  }
  return PLUMB_RT_OK;
}

template <class Exec>
int launchResize(const float *x, const int64_t *in_shape, int32_t rank,
                 const int64_t *out_shape, const float *scales, int32_t mode,
                 int32_t coord, int32_t nearest, float *y, cudaStream_t s) {
  if (rank < 1 || rank > PLUMB_RT_MAX_RANK)
    return PLUMB_RT_EINVAL;
  if (mode != PLUMB_RT_RESIZE_NEAREST && mode != PLUMB_RT_RESIZE_LINEAR)
    return PLUMB_RT_EINVAL;
  if (coord < PLUMB_RT_COORD_HALF_PIXEL ||
      coord > PLUMB_RT_COORD_TF_HALF_PIXEL_FOR_NN ||
      nearest < PLUMB_RT_NEAREST_ROUND_PREFER_FLOOR ||
      nearest > PLUMB_RT_NEAREST_CEIL)
    return PLUMB_RT_EINVAL;
  ResizeF f;
  f.a.mode = mode;
  f.a.coord = coord;
  f.a.nearest = nearest;
  int64_t total;
  const int rc = resizeGeometry(f.a, in_shape, rank, out_shape, scales, &total);
  if (rc != PLUMB_RT_OK || total == 0)
    return rc;
  f.x = x;
  f.y = y;
  return Exec::run(total, f, s);
}

template <class Exec>
int launchResizeCubic(const float *x, const int64_t *in_shape, int32_t rank,
                      const int64_t *out_shape, const float *scales,
                      int32_t coord, float cubic_a, int32_t exclude, float *y,
                      cudaStream_t s) {
  if (rank < 1 || rank > PLUMB_RT_MAX_RANK)
    return PLUMB_RT_EINVAL;
  if (coord < PLUMB_RT_COORD_HALF_PIXEL || coord > PLUMB_RT_COORD_ALIGN_CORNERS)
    return PLUMB_RT_EINVAL;
  ResizeCubicF f;
  f.a.mode = PLUMB_RT_RESIZE_LINEAR; // unused by the cubic functor
  f.a.coord = coord;
  f.a.nearest = 0;
  f.cubicA = cubic_a;
  f.exclude = exclude != 0;
  int64_t total;
  const int rc = resizeGeometry(f.a, in_shape, rank, out_shape, scales, &total);
  if (rc != PLUMB_RT_OK || total == 0)
    return rc;
  f.x = x;
  f.y = y;
  return Exec::run(total, f, s);
}

template <class Exec>
int launchGridSample(const float *x, const int64_t *x_shape, int32_t rank,
                     const float *grid, const int64_t *out_shape, int32_t mode,
                     int32_t pad, int32_t align, float *y, cudaStream_t s) {
  if (rank != 4 && rank != 5)
    return PLUMB_RT_EINVAL;
  for (int32_t d = 0; d < rank; ++d)
    if (x_shape[d] < 0 || out_shape[d] < 0)
      return PLUMB_RT_EINVAL;
  GridSampleF f;
  if (!ops::gridSampleGeom(f.g, x_shape, rank, out_shape, mode, pad, align))
    return PLUMB_RT_EINVAL;
  int64_t total = 1;
  for (int32_t d = 0; d < rank; ++d)
    total *= out_shape[d];
  if (total == 0)
    return PLUMB_RT_OK;
  f.align = align != 0;
  f.x = x;
  f.grid = grid;
  f.y = y;
  return Exec::run(total, f, s);
}

/// DFT / STFT: the twiddle table, then one launch per stage over every
/// output of every transform (stage s reads stage s - 1's buffer in
/// scratch, the last one writes y), in stream order.
template <class Exec>
int launchDft(const float *x, const float *window, int64_t outer, int64_t len,
              int64_t inner, int32_t complex_in, int64_t n, int64_t n_out,
              int32_t inverse, int64_t frames, int64_t step, float *scratch,
              float *y, cudaStream_t s) {
  DftStageF f;
  if (!ops::dftPlan(f.g, outer, len, inner, complex_in, n, n_out, inverse,
                    frames, step))
    return PLUMB_RT_EINVAL;
  if (f.g.transforms == 0 || n_out == 0)
    return PLUMB_RT_OK;
  if ((!x && len > 0) || !scratch || !y)
    return PLUMB_RT_EINVAL;
  DftTwiddleF tf;
  tf.n = n;
  tf.inverse = inverse;
  tf.tw = scratch;
  int rc = Exec::run(n, tf, s);
  if (rc != PLUMB_RT_OK)
    return rc;
  const int64_t per = 2 * n;
  const int32_t m = f.g.stages;
  float *buf[2] = {m >= 2 ? scratch + per : nullptr,
                   m >= 3 ? scratch + per + f.g.transforms * per : nullptr};
  f.x = x;
  f.w = window;
  f.tw = scratch;
  f.y = y;
  for (int32_t st = 0; st < m; ++st) {
    f.s = st;
    f.cnt = ops::dftStageOutputs(f.g, st);
    f.in = st == 0 ? nullptr : buf[(st - 1) & 1];
    f.out = st == m - 1 ? nullptr : buf[st & 1];
    rc = Exec::run(f.g.transforms * f.cnt, f, s);
    if (rc != PLUMB_RT_OK)
      return rc;
  }
  return PLUMB_RT_OK;
}

//===----------------------------------------------------------------------===//
// Data movement with indices.
//===----------------------------------------------------------------------===//

/// Copies one element of `bytes` (1, 2, 4 or 8) bytes: bits, no arithmetic.
PLUMB_INLINE void copyElement(char *dst, const char *src, int64_t bytes) {
  switch (bytes) {
  case 1:
    *dst = *src;
    return;
  case 2:
    *reinterpret_cast<uint16_t *>(dst) = *reinterpret_cast<const uint16_t *>(src);
    return;
  case 4:
    *reinterpret_cast<uint32_t *>(dst) = *reinterpret_cast<const uint32_t *>(src);
    return;
  default:
    *reinterpret_cast<uint64_t *>(dst) = *reinterpret_cast<const uint64_t *>(src);
    return;
  }
}

struct GatherNdF { // i over the output elements
  ::plumb::rt::GatherNdGeom g;
  const char *data;
  const void *indices;
  char *y;
  int64_t esize;
  int *flag; // set by Exec::runChecked; 1 = an index out of range
  PLUMB_INLINE void operator()(int64_t i) const {
    const int64_t row = i / g.slice, s = i - row * g.slice;
    const int64_t off =
        ::plumb::rt::gatherNdOffset(g, indices, row / g.tuples, row % g.tuples);
    if (off < 0) {
      *flag = 1;
      return;
    }
    copyElement(y + i * esize, data + (off + s) * esize, esize);
  }
};

template <class Exec>
int launchGatherNd(const void *data, const int64_t *data_shape,
                   int32_t data_rank, const void *indices,
                   int32_t index_is_i32, const int64_t *idx_shape,
                   int32_t idx_rank, int32_t batch_dims, void *y,
                   int64_t elem_size, cudaStream_t s) {
  GatherNdF f;
  if ((elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) ||
      ::plumb::rt::makeGatherNdGeom(f.g, data_shape, data_rank, idx_shape,
                                    idx_rank, batch_dims,
                                    index_is_i32) != PLUMB_RT_OK)
    return PLUMB_RT_EINVAL;
  const int64_t total = f.g.batches * f.g.tuples * f.g.slice;
  if (total == 0)
    return PLUMB_RT_OK;
  f.data = static_cast<const char *>(data);
  f.indices = indices;
  f.y = static_cast<char *>(y);
  f.esize = elem_size;
  return Exec::runChecked(total, f, s);
}

} // namespace cuda
} // namespace plumb

#endif // PLUMB_RUNTIME_CUDA_LAUNCHERS_H
