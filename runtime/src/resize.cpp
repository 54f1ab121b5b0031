//===- runtime/src/resize.cpp - Resize kernel ----------------*- C++ -*-===//
//
// Part of Plumb. Nearest, n-linear and cubic Resize and GridSample;
// semantics in resize.h and docs/determinism.md. Per-dim
// tables (source indices and weights for every output index) are computed
// once; threads split the output rows.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/resize.h"
#include "plumb/runtime/elementwise.h"

#include "ops_internal.h"

#include <utility>
#include <vector>

using namespace plumb::rt::ops;

namespace {

struct DimTable {
  std::vector<int64_t> i0, i1;
  std::vector<float> l, w0;
};

/// Linear value for output multi-index `o` over dims [d, rank).
float lerpRec(const float *x, const DimTable *t, const int64_t *st,
              int32_t rank, int32_t d, const int64_t *o, int64_t base) {
  if (d == rank)
    return x[base];
  const int64_t k = o[d];
  const float l = t[d].l[(size_t)k];
  const float v0 =
      lerpRec(x, t, st, rank, d + 1, o, base + t[d].i0[(size_t)k] * st[d]);
  if (l == 0.0f)
    return v0;
  const float v1 =
      lerpRec(x, t, st, rank, d + 1, o, base + t[d].i1[(size_t)k] * st[d]);
  return (v0 * t[d].w0[(size_t)k]) + (v1 * l);
}

} // namespace

extern "C" int plumb_rt_resize_f32(const float *x, const int64_t *in_shape,
                                   int32_t rank, const int64_t *out_shape,
                                   float const *scales, int32_t mode,
                                   int32_t coord_mode, int32_t nearest_mode,
                                   float *y) {
  if (rank < 1 || rank > PLUMB_RT_MAX_RANK || !validShape(in_shape, rank) ||
      !validShape(out_shape, rank))
    return PLUMB_RT_EINVAL;
  if (mode != PLUMB_RT_RESIZE_NEAREST && mode != PLUMB_RT_RESIZE_LINEAR)
    return PLUMB_RT_EINVAL;
  if (coord_mode < PLUMB_RT_COORD_HALF_PIXEL ||
      coord_mode > PLUMB_RT_COORD_TF_HALF_PIXEL_FOR_NN ||
      nearest_mode < PLUMB_RT_NEAREST_ROUND_PREFER_FLOOR ||
      nearest_mode > PLUMB_RT_NEAREST_CEIL)
    return PLUMB_RT_EINVAL;
  const int64_t total = prodDims(out_shape, 0, rank);
  if (total == 0)
    return PLUMB_RT_OK;
  for (int32_t d = 0; d < rank; ++d)
    if (in_shape[d] == 0)
      return PLUMB_RT_EINVAL;
  if (!x || !y)
    return PLUMB_RT_EINVAL;
  DimTable t[PLUMB_RT_MAX_RANK];
  int64_t st[PLUMB_RT_MAX_RANK];
  {
    int64_t s = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
      st[d] = s;
      s *= in_shape[d];
    }
  }
  for (int32_t d = 0; d < rank; ++d) {
    const int64_t in = in_shape[d], out = out_shape[d];
    const float scale = scales ? scales[d] : (float)out / (float)in;
    t[d].i0.resize((size_t)out);
    t[d].i1.resize((size_t)out);
    t[d].l.resize((size_t)out);
    t[d].w0.resize((size_t)out);
    const float hiF = (float)(in - 1);
    for (int64_t i = 0; i < out; ++i) {
      float c = resizeCoord(coord_mode, i, in, out, scale);
      int64_t i0, i1;
      float l = 0.0f;
      if (mode == PLUMB_RT_RESIZE_NEAREST) {
        float r;
        if (nearest_mode == PLUMB_RT_NEAREST_FLOOR) {
          r = floorF(c);
        } else if (nearest_mode == PLUMB_RT_NEAREST_CEIL) {
          r = ceilF(c);
        } else {
          const float f = floorF(c);
          const float frac = c - f;
          const bool up = nearest_mode == PLUMB_RT_NEAREST_ROUND_PREFER_CEIL
                              ? frac >= 0.5f
                              : frac > 0.5f;
          r = up ? f + 1.0f : f;
        }
        if (!(r >= 0.0f)) // also NaN
          r = 0.0f;
        if (r > hiF)
          r = hiF;
        i0 = i1 = (int64_t)r;
      } else {
        if (!(c >= 0.0f))
          c = 0.0f;
        if (c > hiF)
          c = hiF;
        const float f = floorF(c);
        i0 = (int64_t)f;
        i1 = i0 + 1 < in ? i0 + 1 : in - 1;
        l = c - f;
      }
      t[d].i0[(size_t)i] = i0;
      t[d].i1[(size_t)i] = i1;
      t[d].l[(size_t)i] = l;
      t[d].w0[(size_t)i] = 1.0f - l;
    }
  }
  const int32_t last = rank - 1;
  const int64_t inner = out_shape[last];
  const int64_t rows = total / inner;
  // Linear over the last two dims only (every outer dim keeps its size with
  // weight 0 everywhere, as NCHW upsampling has): per plane, each input row
  // the output rows read is interpolated along W once, then output rows
  // combine two such rows. The same values as lerpRec's recursion (each
  // row value is the same function of the same inputs, reused).
  bool planar = mode == PLUMB_RT_RESIZE_LINEAR && rank >= 2;
  for (int32_t d = 0; planar && d + 2 < rank; ++d)
    for (int64_t i = 0; planar && i < out_shape[d]; ++i)
      planar = in_shape[d] == out_shape[d] && t[d].l[(size_t)i] == 0.0f &&
               t[d].i0[(size_t)i] == i;
  if (planar) {
    const int64_t H = in_shape[rank - 2], W = in_shape[last];
    const int64_t OH = out_shape[rank - 2], OW = inner;
    const DimTable &th = t[rank - 2], &tw = t[last];
    const int64_t planes = total / (OH * OW);
    parallelRange(planes * OH, 1 + 4096 / OW, [&](int64_t lo, int64_t hi) {
      // Row cache: the W-interpolated input rows h0 and h1 of the current
      // output row, reused while consecutive output rows read them.
      std::vector<float> r0((size_t)OW), r1((size_t)OW);
      int64_t have0 = -1, have1 = -1, plane0 = -1;
      auto rowOf = [&](const float *xr, float *dst) {
        for (int64_t j = 0; j < OW; ++j) {
          const float a = xr[tw.i0[(size_t)j]];
          const float l = tw.l[(size_t)j];
          dst[j] = l == 0.0f ? a
                             : (a * tw.w0[(size_t)j]) + (xr[tw.i1[(size_t)j]] * l);
        }
      };
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t pl = r / OH, oh = r % OH;
        if (pl != plane0) {
          plane0 = pl;
          have0 = have1 = -1;
        }
        const float *xp = x + pl * H * W;
        const int64_t h0 = th.i0[(size_t)oh], h1 = th.i1[(size_t)oh];
        const float lh = th.l[(size_t)oh], wh = th.w0[(size_t)oh];
        if (have0 != h0) {
          if (have1 == h0) {
            std::swap(r0, r1);
            std::swap(have0, have1);
          } else {
            rowOf(xp + h0 * W, r0.data());
            have0 = h0;
          }
        }
        float *out = y + r * OW;
        if (lh == 0.0f) {
          for (int64_t j = 0; j < OW; ++j)
            out[j] = canon(r0[(size_t)j]);
          continue;
        }
        if (have1 != h1) {
          rowOf(xp + h1 * W, r1.data());
          have1 = h1;
        }
        for (int64_t j = 0; j < OW; ++j)
          out[j] = canon((r0[(size_t)j] * wh) + (r1[(size_t)j] * lh));
      }
    });
    return PLUMB_RT_OK;
  }
  parallelRange(rows, 1 + 4096 / inner, [&](int64_t lo, int64_t hi) {
    int64_t o[PLUMB_RT_MAX_RANK];
    for (int64_t r = lo; r < hi; ++r) {
      int64_t q = r;
      for (int32_t d = last - 1; d >= 0; --d) {
        o[d] = q % out_shape[d];
        q /= out_shape[d];
      }
      float *out = y + r * inner;
      if (mode == PLUMB_RT_RESIZE_NEAREST) {
        int64_t base = 0;
        for (int32_t d = 0; d < last; ++d)
          base += t[d].i0[(size_t)o[d]] * st[d];
        const int64_t *i0 = t[last].i0.data();
        for (int64_t j = 0; j < inner; ++j)
          out[j] = x[base + i0[j]];
      } else {
        for (int64_t j = 0; j < inner; ++j) {
          o[last] = j;
          out[j] = canon(lerpRec(x, t, st, rank, 0, o, 0));
        }
      }
    }
  });
  return PLUMB_RT_OK;
}

extern "C" int plumb_rt_resize_cubic_f32(const float *x,
                                         const int64_t *in_shape, int32_t rank,
                                         const int64_t *out_shape,
                                         const float *scales,
                                         int32_t coord_mode, float cubic_a,
                                         int32_t exclude_outside, float *y) {
  if (rank < 1 || rank > PLUMB_RT_MAX_RANK || !validShape(in_shape, rank) ||
      !validShape(out_shape, rank))
    return PLUMB_RT_EINVAL;
  if (coord_mode < PLUMB_RT_COORD_HALF_PIXEL ||
      coord_mode > PLUMB_RT_COORD_ALIGN_CORNERS)
    return PLUMB_RT_EINVAL;
  const int64_t total = prodDims(out_shape, 0, rank);
  if (total == 0)
    return PLUMB_RT_OK;
  for (int32_t d = 0; d < rank; ++d)
    if (in_shape[d] == 0)
      return PLUMB_RT_EINVAL;
  if (!x || !y)
    return PLUMB_RT_EINVAL;
  int64_t st[PLUMB_RT_MAX_RANK];
  {
    int64_t s = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
      st[d] = s;
      s *= in_shape[d];
    }
  }
  // Per dim and output index: 4 indices, 4 weights, the tap count.
  std::vector<int64_t> idx[PLUMB_RT_MAX_RANK];
  std::vector<float> w[PLUMB_RT_MAX_RANK];
  std::vector<int32_t> n[PLUMB_RT_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d) {
    const int64_t in = in_shape[d], out = out_shape[d];
    const float scale = scales ? scales[d] : (float)out / (float)in;
    idx[d].assign((size_t)out * 4, 0);
    w[d].assign((size_t)out * 4, 0.0f);
    n[d].resize((size_t)out);
    for (int64_t i = 0; i < out; ++i)
      n[d][(size_t)i] = resizeCubicTaps(coord_mode, i, in, out, scale, cubic_a,
                                        exclude_outside != 0,
                                        &idx[d][(size_t)i * 4],
                                        &w[d][(size_t)i * 4]);
  }
  const int32_t last = rank - 1;
  const int64_t inner = out_shape[last];
  const int64_t rows = total / inner;
  parallelRange(rows, 1 + 1024 / inner, [&](int64_t lo, int64_t hi) {
    int64_t o[PLUMB_RT_MAX_RANK];
    int64_t ti[4 * PLUMB_RT_MAX_RANK];
    float tw[4 * PLUMB_RT_MAX_RANK];
    int32_t tn[PLUMB_RT_MAX_RANK];
    for (int64_t r = lo; r < hi; ++r) {
      int64_t q = r;
      for (int32_t d = last - 1; d >= 0; --d) {
        o[d] = q % out_shape[d];
        q /= out_shape[d];
      }
      for (int32_t d = 0; d < last; ++d) {
        const size_t k = (size_t)o[d];
        tn[d] = n[d][k];
        for (int32_t j = 0; j < 4; ++j) {
          ti[4 * d + j] = idx[d][k * 4 + (size_t)j];
          tw[4 * d + j] = w[d][k * 4 + (size_t)j];
        }
      }
      float *out = y + r * inner;
      for (int64_t jo = 0; jo < inner; ++jo) {
        const size_t k = (size_t)jo;
        tn[last] = n[last][k];
        for (int32_t j = 0; j < 4; ++j) {
          ti[4 * last + j] = idx[last][k * 4 + (size_t)j];
          tw[4 * last + j] = w[last][k * 4 + (size_t)j];
        }
        out[jo] = canon(resizeCubicValue(x, rank, st, ti, tw, tn));
      }
    }
  });
  return PLUMB_RT_OK;
}

extern "C" int plumb_rt_grid_sample_f32(const float *x, const int64_t *x_shape,
                                        int32_t rank, const float *grid,
                                        const int64_t *out_shape, int32_t mode,
                                        int32_t padding_mode,
                                        int32_t align_corners, float *y) {
  if (rank != 4 && rank != 5)
    return PLUMB_RT_EINVAL;
  if (!validShape(x_shape, rank) || !validShape(out_shape, rank))
    return PLUMB_RT_EINVAL;
  GridSampleGeom g;
  if (!gridSampleGeom(g, x_shape, rank, out_shape, mode, padding_mode,
                      align_corners))
    return PLUMB_RT_EINVAL;
  const int64_t total = prodDims(out_shape, 0, rank);
  if (total == 0)
    return PLUMB_RT_OK;
  if (!x || !grid || !y)
    return PLUMB_RT_EINVAL;
  const int32_t align = align_corners != 0;
  // Threads split the output rows (N * C * [Do *] Ho rows of Wo elements);
  // every element is computed alone, so the split changes no bit.
  const int64_t inner = out_shape[rank - 1];
  const int64_t rows = total / inner;
  parallelRange(rows, 1 + 1024 / inner, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r)
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t idx = r * inner + j;
        y[idx] = gridSampleAt(g, align, x, grid, idx);
      }
  });
  return PLUMB_RT_OK;
}
