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
// Cubic (plumb_rt_resize_cubic_f32): on every dim, c = the source coordinate
//   (not clamped), f = floor(c), r = c - f (exact). r == 0: the dim takes
//   sample clamp(f) alone. Otherwise four taps at f-1, f, f+1, f+2, each
//   index clamped to [0, in_d - 1] (edge samples repeat), with ONNX's
//   coefficients for A = cubic_coeff_a, every operation float32 in this order
//   (t = r + 1, s = 1 - r, u = s + 1; 5A, 8A, 4A are products A*5 etc.):
//     w0 = ((A*t - 5A)*t + 8A)*t - 4A      w1 = (((A+2)*r - (A+3))*r)*r + 1
//     w2 = (((A+2)*s - (A+3))*s)*s + 1     w3 = ((A*u - 5A)*u + 8A)*u - 4A
//   exclude_outside: taps whose unclamped index lies outside [0, in_d) get
//   weight 0 and the others are divided by ((w0 + w1) + w2) + w3.
//   Separable, innermost dim first: v = (((w0*v0) + (w1*v1)) + (w2*v2)) + (w3*v3).
//   NaN results are canonicalised.
// Not supported: antialias, tf_crop_and_resize (PLUMB_RT_EINVAL via the mode
// / coordinate codes).
// GridSample (plumb_rt_grid_sample_f32, the GridSample* functions below):
//   onnxruntime's float32 sequence, written out in docs/determinism.md
//   "GridSample": unnormalize, per-tap padding (zeros / border /
//   reflection), linear / nearest (round half to even) / cubic (A = -0.75)
//   weights and tap order; each output element computed alone.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_RESIZE_H
#define PLUMB_RUNTIME_RESIZE_H

#include "plumb/runtime/cast.h"
#include "plumb/runtime/config.h"
#include "plumb/runtime/elementwise.h"
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

/// GridSample (plumb_rt_grid_sample_f32): interpolation and padding modes.
enum plumb_rt_grid_mode {
  PLUMB_RT_GRID_LINEAR = 0,
  PLUMB_RT_GRID_NEAREST = 1,
  PLUMB_RT_GRID_CUBIC = 2,
};

enum plumb_rt_grid_padding {
  PLUMB_RT_GRID_ZEROS = 0,
  PLUMB_RT_GRID_BORDER = 1,
  PLUMB_RT_GRID_REFLECTION = 2,
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

/// Cubic taps of output index i on one dim (the sequence above): writes
/// indices and weights, returns 1 (r == 0: idx[0] alone, weight unused) or 4.
PLUMB_INLINE int32_t resizeCubicTaps(int32_t coord, int64_t i, int64_t in,
                                     int64_t out, float scale, float A,
                                     int32_t exclude, int64_t *idx, float *w) {
  const float c = resizeCoord(coord, i, in, out, scale);
  const float f = floorF(c);
  const float r = c - f;
  // Coordinates are at most a few times the dim size, far inside int64.
  const int64_t fi = (int64_t)f;
  if (r == 0.0f) {
    idx[0] = fi < 0 ? 0 : (fi > in - 1 ? in - 1 : fi);
    w[0] = 1.0f;
    return 1;
  }
  const float a5 = A * 5.0f, a8 = A * 8.0f, a4 = A * 4.0f;
  const float a2 = A + 2.0f, a3 = A + 3.0f;
  const float t = r + 1.0f, s = 1.0f - r;
  const float u = s + 1.0f;
  w[0] = ((A * t - a5) * t + a8) * t - a4;
  w[1] = ((a2 * r - a3) * r) * r + 1.0f;
  w[2] = ((a2 * s - a3) * s) * s + 1.0f;
  w[3] = ((A * u - a5) * u + a8) * u - a4;
  for (int32_t k = 0; k < 4; ++k) {
    const int64_t j = fi - 1 + k;
    if (exclude && (j < 0 || j >= in))
      w[k] = 0.0f;
    idx[k] = j < 0 ? 0 : (j > in - 1 ? in - 1 : j);
  }
  if (exclude) {
    const float sum = ((w[0] + w[1]) + w[2]) + w[3];
    for (int32_t k = 0; k < 4; ++k)
      w[k] = w[k] / sum;
  }
  return 4;
}

/// One cubic output value from the per-dim taps of its output index:
/// idx/w hold 4 entries per dim (dim d at 4*d), n[d] taps (1 or 4), st the
/// input strides. The dims with 4 taps combine innermost first, each group
/// of four as (((w0*v0) + (w1*v1)) + (w2*v2)) + (w3*v3), evaluated in
/// lexicographic tap order with one partial sum per active dim.
PLUMB_INLINE float resizeCubicValue(const float *x, int32_t rank,
                                    const int64_t *st, const int64_t *idx,
                                    const float *w, const int32_t *n) {
  int32_t act[PLUMB_RT_MAX_RANK], na = 0;
  int64_t base = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (n[d] == 1)
      base += idx[4 * d] * st[d];
    else
      act[na++] = d;
  }
  if (na == 0)
    return x[base];
  int32_t digit[PLUMB_RT_MAX_RANK];
  float acc[PLUMB_RT_MAX_RANK];
  for (int32_t j = 0; j < na; ++j)
    digit[j] = 0;
  for (;;) {
    int64_t off = base;
    for (int32_t j = 0; j < na; ++j)
      off += idx[4 * act[j] + digit[j]] * st[act[j]];
    float v = x[off];
    // Fold v into the innermost partial; a completed group of four moves up.
    int32_t j = na - 1;
    for (;;) {
      const float p = w[4 * act[j] + digit[j]] * v;
      acc[j] = digit[j] == 0 ? p : acc[j] + p;
      if (digit[j] < 3 || j == 0)
        break;
      v = acc[j];
      --j;
    }
    // Advance the tap counter (innermost digit fastest).
    int32_t k = na - 1;
    while (k >= 0 && digit[k] == 3) {
      digit[k] = 0;
      --k;
    }
    if (k < 0)
      return acc[0];
    ++digit[k];
  }
}

//===--- GridSample (docs/determinism.md "GridSample") ----------------------===//

/// The geometry of one GridSample: k = 2 or 3 spatial dims, sizes in
/// (D,) H, W order; lo/hi the reflection borders of each dim.
struct GridSampleGeom {
  int32_t k, mode, pad;
  int64_t n, c;
  int64_t in[3], out[3];
  float lo[3], hi[3];
};

/// Fills g from the input and output shapes (rank k + 2); false when they do
/// not fit (rank, batch, channels, modes, an empty input dim).
PLUMB_INLINE bool gridSampleGeom(GridSampleGeom &g, const int64_t *x_shape,
                                 int32_t rank, const int64_t *out_shape,
                                 int32_t mode, int32_t pad, int32_t align) {
  if (rank != 4 && rank != 5)
    return false;
  if (mode < PLUMB_RT_GRID_LINEAR || mode > PLUMB_RT_GRID_CUBIC ||
      pad < PLUMB_RT_GRID_ZEROS || pad > PLUMB_RT_GRID_REFLECTION ||
      (mode == PLUMB_RT_GRID_CUBIC && rank != 4))
    return false;
  g.k = rank - 2;
  g.mode = mode;
  g.pad = pad;
  g.n = x_shape[0];
  g.c = x_shape[1];
  if (g.n < 0 || g.c < 0 || out_shape[0] != g.n || out_shape[1] != g.c)
    return false;
  for (int32_t d = 0; d < g.k; ++d) {
    g.in[d] = x_shape[2 + d];
    g.out[d] = out_shape[2 + d];
    if (g.in[d] < 1 || g.out[d] < 0)
      return false;
    const float l = castI64ToF32(g.in[d]);
    g.lo[d] = align ? 0.0f : -0.5f;
    g.hi[d] = align ? l - 1.0f : l - 0.5f;
  }
  return true;
}

/// Grid value -> source coordinate on a dim of size len.
PLUMB_INLINE float gridUnnormalize(float v, int64_t len, int32_t align) {
  if (align)
    return ((v + 1.0f) / 2.0f) * castI64ToF32(len - 1);
  return ((v + 1.0f) * castI64ToF32(len) - 1.0f) / 2.0f;
}

/// An integral float as an index, saturated at +-2^40 (far outside any dim).
PLUMB_INLINE int64_t gridIndex(float f) {
  if (f < -1099511627776.0f)
    return -1099511627776LL;
  if (f > 1099511627776.0f)
    return 1099511627776LL;
  return (int64_t)f;
}

/// Reflects v into [lo, hi] by the near border until inside.
PLUMB_INLINE float gridReflect(float v, float lo, float hi) {
  const float range = hi - lo;
  float dx;
  if (v < lo)
    dx = lo - v;
  else if (v > hi)
    dx = v - hi;
  else
    return v;
  if (range == 0.0f)
    return lo;
  const float q = floorF(dx / range);
  const bool even = !(q < 16777216.0f) || ((int64_t)q & 1) == 0;
  const float r = dx - q * range;
  if (v < lo)
    return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

/// The padded index of integer tap i on dim d: [0, in) or -1 (a zero).
PLUMB_INLINE int64_t gridTap(const GridSampleGeom &g, int32_t d, int64_t i) {
  const int64_t len = g.in[d];
  if (g.pad == PLUMB_RT_GRID_ZEROS)
    return i >= 0 && i < len ? i : -1;
  if (g.pad == PLUMB_RT_GRID_BORDER)
    return i < 0 ? 0 : (i > len - 1 ? len - 1 : i);
  const float v = gridReflect(castI64ToF32(i), g.lo[d], g.hi[d]);
  if (!(v > 0.0f))
    return 0;
  const int64_t j = v < castI64ToF32(len) ? (int64_t)v : len - 1;
  return j > len - 1 ? len - 1 : j;
}

/// The sample at padded taps t[0..k) of one (n, c) plane (+0 where a tap
/// is -1).
PLUMB_INLINE float gridPixel(const GridSampleGeom &g, const float *x,
                             const int64_t *t) {
  int64_t off = 0, st = 1;
  for (int32_t d = g.k - 1; d >= 0; --d) {
    if (t[d] < 0)
      return 0.0f;
    off += t[d] * st;
    st *= g.in[d];
  }
  return x[off];
}

/// Keys' cubic weights (A = -0.75) of the four taps at distance t.
PLUMB_INLINE void gridCubicWeights(float t, float *w) {
  const float A = -0.75f;
  t = absF(t);
  const float u1 = t + 1.0f, s = 1.0f - t, u2 = 2.0f - t;
  w[0] = ((A * u1 - (-3.75f)) * u1 + (-6.0f)) * u1 - (-3.0f);
  w[1] = ((1.25f * t - 2.25f) * t) * t + 1.0f;
  w[2] = ((1.25f * s - 2.25f) * s) * s + 1.0f;
  w[3] = ((A * u2 - (-3.75f)) * u2 + (-6.0f)) * u2 - (-3.0f);
}

/// The bilinear value over the two innermost dims (y, x) with the outer
/// taps already in t: (wy1 * ((wx1 * p00) + (wx2 * p01))) + (wy2 * (...)).
PLUMB_INLINE float gridLinearPlane(const GridSampleGeom &g, const float *x,
                                   int64_t *t, const int64_t *i0,
                                   const float *w1, const float *w2) {
  const int32_t yd = g.k - 2, xd = g.k - 1;
  float r[2];
  for (int32_t a = 0; a < 2; ++a) {
    t[yd] = gridTap(g, yd, i0[yd] + a);
    t[xd] = gridTap(g, xd, i0[xd]);
    const float p0 = gridPixel(g, x, t);
    t[xd] = gridTap(g, xd, i0[xd] + 1);
    const float p1 = gridPixel(g, x, t);
    r[a] = (w1[xd] * p0) + (w2[xd] * p1);
  }
  return (w1[yd] * r[0]) + (w2[yd] * r[1]);
}

/// One output value: x is the (n, c) plane, gp the grid point (k floats,
/// x first).
PLUMB_INLINE float gridSampleValue(const GridSampleGeom &g, int32_t align,
                                   const float *x, const float *gp) {
  float c[3];
  for (int32_t d = 0; d < g.k; ++d) {
    c[d] = gridUnnormalize(gp[g.k - 1 - d], g.in[d], align);
    if (isNaN(c[d]))
      return canonicalNaN();
  }
  int64_t t[3];
  if (g.mode == PLUMB_RT_GRID_NEAREST) {
    for (int32_t d = 0; d < g.k; ++d)
      t[d] = gridTap(g, d, gridIndex(roundEvenF(c[d])));
    return canon(gridPixel(g, x, t));
  }
  if (g.mode == PLUMB_RT_GRID_LINEAR) {
    int64_t i0[3];
    float w1[3], w2[3];
    for (int32_t d = 0; d < g.k; ++d) {
      const float f = floorF(c[d]);
      i0[d] = gridIndex(f);
      w1[d] = (f + 1.0f) - c[d];
      w2[d] = c[d] - f;
    }
    if (g.k == 2)
      return canon(gridLinearPlane(g, x, t, i0, w1, w2));
    t[0] = gridTap(g, 0, i0[0]);
    const float v0 = gridLinearPlane(g, x, t, i0, w1, w2);
    t[0] = gridTap(g, 0, i0[0] + 1);
    const float v1 = gridLinearPlane(g, x, t, i0, w1, w2);
    return canon((w1[0] * v0) + (w2[0] * v1));
  }
  // Cubic (k == 2).
  int64_t b[2];
  float w[2][4];
  for (int32_t d = 0; d < 2; ++d) {
    const float f = floorF(c[d]);
    b[d] = gridIndex(f) - 1;
    gridCubicWeights((c[d] - (f - 1.0f)) - 1.0f, w[d]);
  }
  float v[4];
  for (int32_t h = 0; h < 4; ++h) {
    t[0] = gridTap(g, 0, b[0] + h);
    float acc = 0.0f;
    for (int32_t q = 0; q < 4; ++q) {
      t[1] = gridTap(g, 1, b[1] + q);
      const float p = w[1][q] * gridPixel(g, x, t);
      acc = q == 0 ? p : acc + p;
    }
    v[h] = acc;
  }
  return canon((((w[0][0] * v[0]) + (w[0][1] * v[1])) + (w[0][2] * v[2])) +
               (w[0][3] * v[3]));
}

/// Output element idx (row-major over N, C, spatial out) of GridSample.
PLUMB_INLINE float gridSampleAt(const GridSampleGeom &g, int32_t align,
                                const float *x, const float *grid,
                                int64_t idx) {
  int64_t q = idx, sp = 0, spOut = 1, spIn = 1;
  for (int32_t d = 0; d < g.k; ++d) {
    spOut *= g.out[d];
    spIn *= g.in[d];
  }
  sp = q % spOut;
  q /= spOut;
  const int64_t nc = q, n = nc / (g.c > 0 ? g.c : 1);
  return gridSampleValue(g, align, x + nc * spIn,
                         grid + (n * spOut + sp) * g.k);
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

/// Cubic Resize of x (in_shape, rank <= 8) to y (out_shape) with
/// coefficient cubic_a and exclude_outside (0/1); scales as above.
int plumb_rt_resize_cubic_f32(const float *x, const int64_t *in_shape,
                              int32_t rank, const int64_t *out_shape,
                              const float *scales, int32_t coord_mode,
                              float cubic_a, int32_t exclude_outside,
                              float *y);

/// GridSample of x (x_shape: N, C, [D,] H, W; rank 4 or 5) at grid (N,
/// out_shape[2..], rank - 2) into y (out_shape: N, C, out spatial...).
/// mode: plumb_rt_grid_mode (cubic: rank 4 only); padding_mode:
/// plumb_rt_grid_padding; align_corners 0/1. Returns PLUMB_RT_OK or
/// PLUMB_RT_EINVAL.
int plumb_rt_grid_sample_f32(const float *x, const int64_t *x_shape,
                             int32_t rank, const float *grid,
                             const int64_t *out_shape, int32_t mode,
                             int32_t padding_mode, int32_t align_corners,
                             float *y);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_RESIZE_H
