//===- runtime/include/plumb/runtime/resize.h - Resize ---------*- C++ -*-===//
//
// Part of Plumb. ONNX Resize (opsets 10..18 subset) with mode nearest or
// linear (n-linear over every dim: bilinear on NCHW when N and C keep their
// size, 1-D linear, ...). All coordinate arithmetic is float32:
//
// Scale of dim d: scales[d] when given, else (float)out_d / (float)in_d
// (sizes input: the caller passes scales = null).
// Source coordinate of output index i (float32 ops, left to right):
//   half_pixel:          ((float)i + 0.5f) / scale - 0.5f
//   pytorch_half_pixel:  out_d > 1 ? ((float)i + 0.5f) / scale - 0.5f : 0.0f
//   asymmetric:          (float)i / scale
//   align_corners:       out_d == 1 ? 0.0f
//                        : ((float)i * (float)(in_d - 1)) / (float)(out_d - 1)
//   tf_half_pixel_for_nn: ((float)i + 0.5f) / scale
// Nearest: r = rounding of the coordinate x by nearest_mode
//   round_prefer_floor: f = floor(x); x - f > 0.5 ? f + 1 : f
//   round_prefer_ceil:  f = floor(x); x - f >= 0.5 ? f + 1 : f
//   floor: floor(x);  ceil: ceil(x)
// then clamped to [0, in_d - 1]; y = x[r_0, r_1, ...] (bits moved).
// Linear: x clamped to [0, in_d - 1] (max then min), i0 = floor(x),
//   i1 = min(i0 + 1, in_d - 1), l = x - (float)i0 (exact), w0 = 1.0f - l.
//   Interpolation is separable, innermost dim first: for a dim with l == 0
//   the value is the i0 sample's value; otherwise v = (v(i0) * w0) + (v(i1) * l)
//   (two rounded products, one rounded sum). Outer dims combine the values of
//   inner dims the same way. NaN results are canonicalised.
// Not supported: cubic, antialias, exclude_outside, tf_crop_and_resize
// (these return PLUMB_RT_EINVAL via the mode / coordinate codes).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_RESIZE_H
#define PLUMB_RUNTIME_RESIZE_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

enum plumb_rt_resize_mode {
  PLUMB_RT_RESIZE_NEAREST = 0,
  PLUMB_RT_RESIZE_LINEAR = 1,
};

enum plumb_rt_resize_coord {
  PLUMB_RT_COORD_HALF_PIXEL = 0,
  PLUMB_RT_COORD_PYTORCH_HALF_PIXEL = 1,
  PLUMB_RT_COORD_ASYMMETRIC = 2,
  PLUMB_RT_COORD_ALIGN_CORNERS = 3,
  PLUMB_RT_COORD_TF_HALF_PIXEL_FOR_NN = 4,
};

enum plumb_rt_resize_nearest {
  PLUMB_RT_NEAREST_ROUND_PREFER_FLOOR = 0,
  PLUMB_RT_NEAREST_ROUND_PREFER_CEIL = 1,
  PLUMB_RT_NEAREST_FLOOR = 2,
  PLUMB_RT_NEAREST_CEIL = 3,
};

#ifdef __cplusplus
namespace plumb {
namespace rt {
namespace ops {
/// Source coordinate (float32) of output index i on one dim (see above).
PLUMB_INLINE float resizeCoord(int32_t coord, int64_t i, int64_t in,
                               int64_t out, float scale) {
  const float fi = (float)i;
  switch (coord) {
  case PLUMB_RT_COORD_HALF_PIXEL:
    return (fi + 0.5f) / scale - 0.5f;
  case PLUMB_RT_COORD_PYTORCH_HALF_PIXEL:
    return out > 1 ? (fi + 0.5f) / scale - 0.5f : 0.0f;
  case PLUMB_RT_COORD_ASYMMETRIC:
    return fi / scale;
  case PLUMB_RT_COORD_ALIGN_CORNERS:
    return out == 1 ? 0.0f : (fi * (float)(in - 1)) / (float)(out - 1);
  default: // PLUMB_RT_COORD_TF_HALF_PIXEL_FOR_NN
    return (fi + 0.5f) / scale;
  }
}
} // namespace ops
} // namespace rt
} // namespace plumb
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Resize x (in_shape, rank <= 8) to y (out_shape). scales: rank floats or
/// null (derived from the shapes). Returns PLUMB_RT_OK or PLUMB_RT_EINVAL.
int plumb_rt_resize_f32(const float *x, const int64_t *in_shape, int32_t rank,
                        const int64_t *out_shape, const float *scales,
                        int32_t mode, int32_t coord_mode, int32_t nearest_mode,
                        float *y);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_RESIZE_H
