//===- runtime/include/plumb/runtime/conv.h - Deterministic conv -*- C++ -*-===//
//
// Part of Plumb. Conv and ConvTranspose (2-D; 1-D is 2-D with H = 1), NCHW
// data, ONNX weight layouts, under a blocked(block) tree (block 0 =
// sequential).
//
// Conv, output (n, co, oh, ow), group g = co / (Cout/group):
//   terms k = (ci, kh, kw) flattened with kw fastest, ci over the group's
//   Cin/group input channels: x * w with
//     x = X[n, g*Cin_g + ci, oh*sh - pt + kh*dh, ow*sw - pl + kw*dw], or +0.0
//         when that position lies in the padding (the term still participates:
//         acc = fmaf(+0.0, w, acc));
//     w = W[co, ci, kh, kw]                      (W is [Cout, Cin/group, KH, KW])
//   dot = treeDot of the terms under blocked(block); y = dot + bias[co]
//   (when bias is given); NaN results stored as 0x7FC00000.
//   OH = (H + pt + pb - ((KH-1)*dh + 1)) / sh + 1 (floor), same for OW.
//
// ConvTranspose, W is [Cin, Cout/group, KH, KW], output (n, co, oh, ow):
//   terms k = (ci, kh, kw) over the group's Cin/group channels, kw fastest,
//   ALL of them participate (uniform length Cin_g*KH*KW): term = x * w with
//     w = W[g*Cin_g + ci, co - g*Cout_g, kh, kw]
//     x = X[n, g*Cin_g + ci, ih, iw] when ih = (oh + pt - kh*dh) / sh is an
//         exact non-negative integer division with ih < H (likewise iw), else
//         +0.0.
//   dot under the tree, y = dot + bias[co]. Output dims are explicit
//   (ONNX: OH = sh*(H-1) + output_padding + (KH-1)*dh + 1 - pt - pb).
//
// ConvTranspose with any number d of spatial dims (plumb_convnd_params): the
//   same definition with the terms k = (ci, k_0, ..., k_{d-1}) flattened
//   with k_{d-1} fastest, x = X[n, g*Cin_g + ci, i_0, ..., i_{d-1}] when
//   every i_j = convTransposeInputPos(o_j, k_j, ...) hits, else +0.0. For
//   d = 2 that is the (ci, kh, kw) order above and for d = 1 the (ci, k)
//   order of conv_transpose1d, so those calls give the same bits.
//
// Conv with any number d of spatial dims (plumb_rt_conv_nd): terms
//   k = (ci, k_0, ..., k_{d-1}) flattened with k_{d-1} fastest,
//   x = X[n, g*Cin_g + ci, i_0, ..., i_{d-1}] with
//   i_j = convInputPos(o_j, k_j, ...), or +0.0 when any i_j lies in the
//   padding (the term still participates), w = W[co, ci, k_0, ..., k_{d-1}];
//   dot under the tree, y = dot + bias[co], NaN canonicalised. For d = 2
//   that is the (ci, kh, kw) order of conv2d and for d = 1 that of conv1d,
//   so those calls run the 2-D kernel (same bits).
//
// Fast paths (im2col + the GEMM microkernels, threads over output elements)
// reproduce the *_reference functions bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_CONV_H
#define PLUMB_RUNTIME_CONV_H

#include "plumb/runtime/config.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Convolution geometry shared by Conv and ConvTranspose.
typedef struct plumb_conv2d_params {
  int64_t N, Cin, H, W;   // input X [N, Cin, H, W]
  int64_t Cout, KH, KW;   // kernel
  int64_t OH, OW;         // output Y [N, Cout, OH, OW]
  int64_t group;          // >= 1, divides Cin and Cout
  int64_t stride_h, stride_w;
  int64_t dilation_h, dilation_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
} plumb_conv2d_params;

/// floor((in + pb + pe - ((k - 1) * d + 1)) / s) + 1: the Conv output size.
int64_t plumb_rt_conv_out_dim(int64_t in, int64_t k, int64_t stride,
                              int64_t dilation, int64_t pad_begin,
                              int64_t pad_end);

/// Conv2d. p->OH / p->OW must equal plumb_rt_conv_out_dim(...). bias may be
/// NULL. Returns 0, or -1 on inconsistent parameters (nothing written).
int plumb_rt_conv2d(const plumb_conv2d_params *p, const float *X,
                    const float *Wt, const float *bias, float *Y,
                    int64_t block);
int plumb_rt_conv2d_reference(const plumb_conv2d_params *p, const float *X,
                              const float *Wt, const float *bias, float *Y,
                              int64_t block);

/// Conv1d: X [N, Cin, L], W [Cout, Cin/group, K], Y [N, Cout, OL] with
/// OL = plumb_rt_conv_out_dim(L, K, stride, dilation, pad_begin, pad_end).
/// Identical to conv2d with H = KH = 1.
int plumb_rt_conv1d(int64_t N, int64_t Cin, int64_t L, int64_t Cout,
                    int64_t K, int64_t group, int64_t stride,
                    int64_t dilation, int64_t pad_begin, int64_t pad_end,
                    const float *X, const float *Wt, const float *bias,
                    float *Y, int64_t block);

/// Epilogue for conv kernels: called on finished outputs so that following
/// elementwise work can run while the data is hot in cache.
/// y = Y + ((n * Cout + co) * OH * OW + begin): `count` consecutive outputs
/// of plane (n, co). Every output element is passed exactly once, after its
/// final value (dot, + bias, NaN canonicalised) is stored. fn may rewrite
/// the values in place. Calls may come concurrently from several threads,
/// always for disjoint ranges. NULL epilogue = none.
typedef void (*plumb_rt_epilogue_fn)(void *ctx, float *y, int64_t n,
                                     int64_t co, int64_t begin, int64_t count);
typedef struct plumb_rt_epilogue {
  plumb_rt_epilogue_fn fn;
  void *ctx;
} plumb_rt_epilogue;

/// Runs `fn` over y[0, count) in disjoint ranges split over the threads:
/// fn(ctx, y + begin, 0, 0, begin, n) (a fused elementwise chain's
/// per-element loop; the split changes no element's operations).
void plumb_rt_elementwise_apply(plumb_rt_epilogue_fn fn, void *ctx, float *y,
                                int64_t count);

/// plumb_rt_conv2d / plumb_rt_conv1d with an epilogue (`ep` may be NULL, as
/// may ep->fn: no epilogue). The epilogue runs on finished ranges (a GEMM
/// M block's rows over up to 8 column slivers, a depthwise task's block of
/// output rows of one channel, or a small conv's output row) while the
/// outputs are still in cache; ranges never cross a plane. Output values
/// before the epilogue are exactly those of
/// plumb_rt_conv2d; nothing is called when parameters are rejected (-1).
int plumb_rt_conv2d_ep(const plumb_conv2d_params *p, const float *X,
                       const float *Wt, const float *bias, float *Y,
                       int64_t block, const plumb_rt_epilogue *ep);
int plumb_rt_conv1d_ep(int64_t N, int64_t Cin, int64_t L, int64_t Cout,
                       int64_t K, int64_t group, int64_t stride,
                       int64_t dilation, int64_t pad_begin, int64_t pad_end,
                       const float *X, const float *Wt, const float *bias,
                       float *Y, int64_t block, const plumb_rt_epilogue *ep);

/// ConvTranspose2d (see above). W is [Cin, Cout/group, KH, KW].
int plumb_rt_conv_transpose2d(const plumb_conv2d_params *p, const float *X,
                              const float *Wt, const float *bias, float *Y,
                              int64_t block);
int plumb_rt_conv_transpose2d_reference(const plumb_conv2d_params *p,
                                        const float *X, const float *Wt,
                                        const float *bias, float *Y,
                                        int64_t block);

/// ConvTranspose1d: X [N, Cin, L], W [Cin, Cout/group, K], Y [N, Cout, OL].
int plumb_rt_conv_transpose1d(int64_t N, int64_t Cin, int64_t L,
                              int64_t Cout, int64_t K, int64_t OL,
                              int64_t group, int64_t stride, int64_t dilation,
                              int64_t pad_begin, int64_t pad_end,
                              const float *X, const float *Wt,
                              const float *bias, float *Y, int64_t block);

/// Most spatial dims of plumb_convnd_params.
#define PLUMB_CONV_MAX_SPATIAL 8

/// N-d convolution geometry: X [N, Cin, in...], Y [N, Cout, out...], kernel
/// dims kernel[0..spatial). Only the first `spatial` entries of each array
/// are read.
typedef struct plumb_convnd_params {
  int64_t N, Cin, Cout, group;
  int64_t spatial; // 1 .. PLUMB_CONV_MAX_SPATIAL
  int64_t in[PLUMB_CONV_MAX_SPATIAL], kernel[PLUMB_CONV_MAX_SPATIAL];
  int64_t out[PLUMB_CONV_MAX_SPATIAL], stride[PLUMB_CONV_MAX_SPATIAL];
  int64_t dilation[PLUMB_CONV_MAX_SPATIAL];
  int64_t pad_begin[PLUMB_CONV_MAX_SPATIAL], pad_end[PLUMB_CONV_MAX_SPATIAL];
} plumb_convnd_params;

/// ConvTranspose over p->spatial dims (see above). W is
/// [Cin, Cout/group, kernel...]. 1 and 2 spatial dims run the 2-D kernel.
/// Returns 0, or -1 on inconsistent parameters (nothing written).
int plumb_rt_conv_transpose_nd(const plumb_convnd_params *p, const float *X,
                               const float *Wt, const float *bias, float *Y,
                               int64_t block);
int plumb_rt_conv_transpose_nd_reference(const plumb_convnd_params *p,
                                         const float *X, const float *Wt,
                                         const float *bias, float *Y,
                                         int64_t block);

/// Conv over p->spatial dims (see above). W is [Cout, Cin/group, kernel...];
/// p->out[j] must equal plumb_rt_conv_out_dim(...) for every j. 1 and 2
/// spatial dims run the 2-D kernel. The epilogue (may be NULL) sees planes
/// of prod(out) elements, as plumb_rt_conv2d_ep's. Returns 0, or -1 on
/// inconsistent parameters (nothing written, nothing called).
int plumb_rt_conv_nd(const plumb_convnd_params *p, const float *X,
                     const float *Wt, const float *bias, float *Y,
                     int64_t block);
int plumb_rt_conv_nd_ep(const plumb_convnd_params *p, const float *X,
                        const float *Wt, const float *bias, float *Y,
                        int64_t block, const plumb_rt_epilogue *ep);
int plumb_rt_conv_nd_reference(const plumb_convnd_params *p, const float *X,
                               const float *Wt, const float *bias, float *Y,
                               int64_t block);

#ifdef __cplusplus
} // extern "C"

namespace plumb {
namespace rt {

/// Conv: input row (or column) hit by output position o and kernel tap k, or
/// -1 when it falls into the padding (the term's x is then +0.0).
PLUMB_INLINE int64_t convInputPos(int64_t o, int64_t k, int64_t stride,
                                  int64_t dilation, int64_t padBegin,
                                  int64_t in) {
  int64_t i = o * stride - padBegin + k * dilation;
  return (i >= 0 && i < in) ? i : -1;
}

/// ConvTranspose: input position feeding output position o through tap k,
/// or -1 when no input position does (non-integer or out of range).
PLUMB_INLINE int64_t convTransposeInputPos(int64_t o, int64_t k,
                                           int64_t stride, int64_t dilation,
                                           int64_t padBegin, int64_t in) {
  int64_t num = o + padBegin - k * dilation;
  if (num < 0 || num % stride != 0)
    return -1;
  int64_t i = num / stride;
  return i < in ? i : -1;
}

} // namespace rt
} // namespace plumb
#endif

#endif // PLUMB_RUNTIME_CONV_H
