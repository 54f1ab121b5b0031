//===- runtime/src/pool.cpp - Pooling kernels ----------------*- C++ -*-===//
//
// Part of Plumb. MaxPool / AveragePool / global pools; semantics in pool.h.
// Threads split over (n, c, output row); each output is computed by one
// sequential window walk in row-major kernel order.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/pool.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/tree.h"

#include "ops_internal.h"

#include <string.h>

#include <algorithm>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLUMB_POOL_X86 1
#include <immintrin.h>
#define PLUMB_POOL_AVX512 __attribute__((target("avx512f,avx2,fma")))
#else
#define PLUMB_POOL_X86 0
#endif

using namespace plumb::rt::ops;

namespace {


struct PoolGeom {
  int32_t sd;
  int64_t in[3], out[3], k[3], st[3], pb[3], pe[3], dil[3];
  int64_t inSize, outSize;
  // Innermost dim, per kernel tap k2: input offset off2 = k2*dil - pad and
  // the output range [lo2, hi2) whose position o2*stride + off2 is valid.
  std::vector<int64_t> off2, lo2, hi2;
};

int makeGeom(PoolGeom &g, int32_t sdims, const int64_t *in_spatial,
             const int64_t *out_spatial, const int64_t *kernel,
             const int64_t *strides, const int64_t *pads,
             const int64_t *dilations) {
  if (sdims < 1 || sdims > 3 || !in_spatial || !out_spatial || !kernel ||
      !strides || !pads)
    return PLUMB_RT_EINVAL;
  g.sd = sdims;
  g.inSize = g.outSize = 1;
  // Spatial dims are right-aligned in the 3 slots (slot 2 is always the
  // innermost, contiguous one); leading slots have extent 1.
  for (int32_t d = 0; d < 3; ++d) {
    const int32_t sdim = d - (3 - sdims);
    if (sdim >= 0) {
      g.in[d] = in_spatial[sdim];
      g.out[d] = out_spatial[sdim];
      g.k[d] = kernel[sdim];
      g.st[d] = strides[sdim];
      g.pb[d] = pads[sdim];
      g.pe[d] = pads[sdims + sdim];
      g.dil[d] = dilations ? dilations[sdim] : 1;
      if (g.in[d] < 0 || g.out[d] < 0 || g.k[d] < 1 || g.st[d] < 1 ||
          g.dil[d] < 1)
        return PLUMB_RT_EINVAL;
    } else {
      g.in[d] = g.out[d] = g.k[d] = g.st[d] = g.dil[d] = 1;
      g.pb[d] = g.pe[d] = 0;
    }
    g.inSize *= g.in[d];
    g.outSize *= g.out[d];
  }
  g.off2.resize((size_t)g.k[2]);
  g.lo2.resize((size_t)g.k[2]);
  g.hi2.resize((size_t)g.k[2]);
  for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
    const int64_t off = k2 * g.dil[2] - g.pb[2], st2 = g.st[2];
    int64_t lo = off >= 0 ? 0 : (-off + st2 - 1) / st2;
    int64_t hi = g.in[2] - 1 - off < 0 ? 0 : (g.in[2] - 1 - off) / st2 + 1;
    if (hi > g.out[2])
      hi = g.out[2];
    g.off2[(size_t)k2] = off;
    g.lo2[(size_t)k2] = lo;
    g.hi2[(size_t)k2] = hi < lo ? lo : hi;
  }
  return PLUMB_RT_OK;
}

/// Calls fn(offset_in_plane) for every valid window position of output
/// (o0, o1, o2) in row-major kernel order.
template <typename Fn>
inline void forWindow(const PoolGeom &g, int64_t o0, int64_t o1, int64_t o2,
                      Fn fn) {
  const int64_t b0 = o0 * g.st[0] - g.pb[0], b1 = o1 * g.st[1] - g.pb[1],
                b2 = o2 * g.st[2] - g.pb[2];
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
    const int64_t p0 = b0 + k0 * g.dil[0];
    if (p0 < 0 || p0 >= g.in[0])
      continue;
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
      const int64_t p1 = b1 + k1 * g.dil[1];
      if (p1 < 0 || p1 >= g.in[1])
        continue;
      const int64_t row = (p0 * g.in[1] + p1) * g.in[2];
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const int64_t p2 = b2 + k2 * g.dil[2];
        if (p2 < 0 || p2 >= g.in[2])
          continue;
        fn(row + p2);
      }
    }
  }
}

/// Number of window positions inside [-pb, in + pe) on every dim.
inline int64_t paddedCount(const PoolGeom &g, int64_t o0, int64_t o1,
                           int64_t o2) {
  const int64_t o[3] = {o0, o1, o2};
  int64_t cnt = 1;
  for (int32_t d = 0; d < 3; ++d) {
    const int64_t b = o[d] * g.st[d] - g.pb[d];
    int64_t c = 0;
    for (int64_t k = 0; k < g.k[d]; ++k) {
      const int64_t p = b + k * g.dil[d];
      if (p >= -g.pb[d] && p < g.in[d] + g.pe[d])
        ++c;
    }
    cnt *= c;
  }
  return cnt;
}

/// Row schedule: for the output row (plane, o0, o1) calls
/// step(acc, value) for every valid window position of every o2, iterating
/// the window (k0, k1, k2) in row-major order on the outside and o2 inside.
/// Each output therefore still sees its own valid positions in row-major
/// window order; only the interleaving across outputs differs from a
/// per-output walk. Also returns the valid count per o2 in `valid` (if set).
template <typename Acc, typename Step>
inline void rowWalk(const PoolGeom &g, const float *__restrict plane,
                    int64_t o0, int64_t o1, Acc *__restrict acc,
                    int64_t *valid, Step step) {
  const int64_t b0 = o0 * g.st[0] - g.pb[0], b1 = o1 * g.st[1] - g.pb[1];
  const int64_t out2 = g.out[2], st2 = g.st[2];
  int64_t v01 = 0;
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
    const int64_t p0 = b0 + k0 * g.dil[0];
    if (p0 < 0 || p0 >= g.in[0])
      continue;
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
      const int64_t p1 = b1 + k1 * g.dil[1];
      if (p1 < 0 || p1 >= g.in[1])
        continue;
      ++v01;
      const float *row = plane + (p0 * g.in[1] + p1) * g.in[2];
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        // p2 = o2 * st2 + off must lie in [0, in2): o2 in [lo, hi).
        const int64_t off = g.off2[(size_t)k2], lo = g.lo2[(size_t)k2],
                      hi = g.hi2[(size_t)k2];
        const float *__restrict r = row + off;
        if (st2 == 1) {
          for (int64_t o2 = lo; o2 < hi; ++o2)
            acc[o2] = step(acc[o2], r[o2]);
        } else if (st2 == 2) {
          for (int64_t o2 = lo; o2 < hi; ++o2)
            acc[o2] = step(acc[o2], r[2 * o2]);
        } else {
          for (int64_t o2 = lo; o2 < hi; ++o2)
            acc[o2] = step(acc[o2], r[o2 * st2]);
        }
      }
    }
  }
  if (valid) {
    for (int64_t o2 = 0; o2 < out2; ++o2) {
      int64_t c = 0;
      const int64_t b2 = o2 * st2 - g.pb[2];
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const int64_t p2 = b2 + k2 * g.dil[2];
        c += (p2 >= 0 && p2 < g.in[2]);
      }
      valid[o2] = c * v01;
    }
  }
}

/// Runs row(plane, o0, o1, out_index_of_o2_0) for every output row.
template <typename Fn> void forRows(const PoolGeom &g, int64_t planes, Fn fn) {
  const int64_t rows = planes * g.out[0] * g.out[1];
  parallelRange(rows, 1 + 256 / (g.out[2] * g.k[0] * g.k[1] * g.k[2] + 1),
                [&](int64_t lo, int64_t hi) {
                  std::vector<float> acc((size_t)g.out[2]);
                  std::vector<int64_t> cnt((size_t)g.out[2]);
                  static_assert(sizeof(float) == sizeof(int32_t), "");
                  for (int64_t r = lo; r < hi; ++r) {
                    const int64_t o1 = r % g.out[1];
                    const int64_t t = r / g.out[1];
                    const int64_t o0 = t % g.out[0];
                    const int64_t pl = t / g.out[0];
                    fn(pl, o0, o1, r * g.out[2], acc.data(), cnt.data());
                  }
                });
}

/// Runs fn(plane, o0, o1, o2, out_index) for every output, split over
/// (plane, o0, o1) rows.
template <typename Fn>
void forOutputs(const PoolGeom &g, int64_t planes, Fn fn) {
  const int64_t rows = planes * g.out[0] * g.out[1];
  parallelRange(rows, 1 + 256 / (g.out[2] * g.k[0] * g.k[1] * g.k[2] + 1),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t r = lo; r < hi; ++r) {
                    const int64_t o1 = r % g.out[1];
                    const int64_t t = r / g.out[1];
                    const int64_t o0 = t % g.out[0];
                    const int64_t pl = t / g.out[0];
                    for (int64_t o2 = 0; o2 < g.out[2]; ++o2)
                      fn(pl, o0, o1, o2, r * g.out[2] + o2);
                  }
                });
}

#if PLUMB_POOL_X86
//===----------------------------------------------------------------------===//
// 2-D MaxPool without indices, AVX-512. The Max fold equals the integer max
// of order keys (elementwise.h maxKey), and padding positions are skipped
// by the fold, which is the same as folding in maxKey(-inf) = the initial
// key. So each plane is converted once into a key image padded with that
// key, and every output is the integer max of its window's keys, 16
// outputs of a row at a time.
//===----------------------------------------------------------------------===//

PLUMB_POOL_AVX512 inline __m512i keysOf(__m512 v) {
  const __m512i s = _mm512_castps_si512(v);
  __m512i k = _mm512_xor_si512(
      s, _mm512_and_si512(_mm512_srai_epi32(s, 31),
                          _mm512_set1_epi32(0x7FFFFFFF)));
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_blend_epi32(nan, k, _mm512_set1_epi32(INT32_MAX));
}

PLUMB_POOL_AVX512 inline __m512 fromKeys(__m512i k) {
  const __mmask16 nan =
      _mm512_cmpeq_epi32_mask(k, _mm512_set1_epi32(INT32_MAX)) |
      _mm512_cmpeq_epi32_mask(k, _mm512_set1_epi32(INT32_MIN));
  __m512i b = _mm512_xor_si512(
      k, _mm512_and_si512(_mm512_srai_epi32(k, 31),
                          _mm512_set1_epi32(0x7FFFFFFF)));
  b = _mm512_mask_blend_epi32(
      nan, b, _mm512_set1_epi32(static_cast<int>(PLUMB_CANONICAL_NAN_BITS)));
  return _mm512_castsi512_ps(b);
}

PLUMB_POOL_AVX512 inline __m512i loadKeys(const int32_t *src, int64_t sw,
                                          __m512i idx2, __m512i idxS) {
  if (sw == 1)
    return _mm512_loadu_si512(src);
  if (sw == 2)
    return _mm512_permutex2var_epi32(_mm512_loadu_si512(src), idx2,
                                     _mm512_loadu_si512(src + 16));
  return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xFFFF, idxS,
                                     src, 4);
}

PLUMB_POOL_AVX512 void maxPool2dPlane(const PoolGeom &g, const float *x,
                                      float *y, int32_t *buf, int64_t Wp) {
  const int64_t H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const int64_t pl = g.pb[2], sw = g.st[2], dw = g.dil[2];
  const int32_t init = maxKey(negInf());
  for (int64_t ih = 0; ih < H; ++ih) {
    int32_t *d = buf + ih * Wp;
    const float *xr = x + ih * W;
    for (int64_t j = 0; j < pl; ++j)
      d[j] = init;
    int64_t j = 0;
    for (; j + 16 <= W; j += 16)
      _mm512_storeu_si512(d + pl + j, keysOf(_mm512_loadu_ps(xr + j)));
    for (; j < W; ++j)
      d[pl + j] = maxKey(xr[j]);
    for (int64_t q = pl + W; q < Wp; ++q)
      d[q] = init;
  }
  const __m512i idx2 = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i idxS = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(static_cast<int>(sw)));
  const __m512i vinit = _mm512_set1_epi32(init);
  const int32_t *rows[64];
  for (int64_t oh = 0; oh < OH; ++oh) {
    int nrows = 0;
    for (int64_t kh = 0; kh < g.k[1]; ++kh) {
      const int64_t ih = oh * g.st[1] - g.pb[1] + kh * g.dil[1];
      if (ih >= 0 && ih < H)
        rows[nrows++] = buf + ih * Wp;
    }
    float *yr = y + oh * OW;
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
      __m512i acc = vinit;
      for (int r = 0; r < nrows; ++r) {
        const int32_t *src = rows[r] + ow0 * sw;
        for (int64_t kw = 0; kw < g.k[2]; ++kw)
          acc = _mm512_max_epi32(acc, loadKeys(src + kw * dw, sw, idx2, idxS));
      }
      const int64_t lanes = std::min<int64_t>(16, OW - ow0);
      _mm512_mask_storeu_ps(yr + ow0, static_cast<__mmask16>((1u << lanes) - 1),
                            fromKeys(acc));
    }
  }
}

thread_local std::vector<int32_t> tlsPoolKeys;

/// 2-D MaxPool (no indices) over `planes` planes; false if not applicable.
bool maxPool2dFast(const PoolGeom &g, const float *x, int64_t planes,
                   float *y) {
  static const bool ok = __builtin_cpu_supports("avx512f") &&
                         __builtin_cpu_supports("avx2");
  if (!ok || g.sd != 2 || g.k[1] > 64 || g.out[2] < 1)
    return false;
  const int64_t OWr = (g.out[2] + 15) / 16 * 16;
  const int64_t Wp =
      std::max(g.pb[2] + g.in[2],
               (OWr - 1) * g.st[2] + (g.k[2] - 1) * g.dil[2] + 1 + 32 * g.st[2]) +
      16;
  if (Wp > (int64_t(1) << 24))
    return false;
  parallelRange(planes, 1, [&](int64_t lo, int64_t hi) {
    std::vector<int32_t> &buf = tlsPoolKeys;
    if (buf.size() < static_cast<size_t>(g.in[1] * Wp))
      buf.resize(static_cast<size_t>(g.in[1] * Wp));
    for (int64_t pl = lo; pl < hi; ++pl)
      maxPool2dPlane(g, x + pl * g.inSize, y + pl * g.outSize, buf.data(), Wp);
  });
  return true;
}
#endif // PLUMB_POOL_X86

} // namespace

extern "C" {

int plumb_rt_pool_output_shape(int32_t sdims, const int64_t *in_spatial,
                               const int64_t *kernel, const int64_t *strides,
                               int64_t *pads, const int64_t *dilations,
                               int32_t auto_pad, int32_t ceil_mode,
                               int64_t *out_spatial) {
  if (sdims < 1 || sdims > 3 || !in_spatial || !kernel || !strides || !pads ||
      !out_spatial)
    return PLUMB_RT_EINVAL;
  for (int32_t d = 0; d < sdims; ++d) {
    const int64_t in = in_spatial[d], k = kernel[d], s = strides[d],
                  dil = dilations ? dilations[d] : 1;
    if (in < 0 || k < 1 || s < 1 || dil < 1)
      return PLUMB_RT_EINVAL;
    const int64_t ek = (k - 1) * dil + 1;
    int64_t out;
    switch (auto_pad) {
    case PLUMB_RT_AUTO_PAD_NOTSET: {
      const int64_t pb = pads[d], pe = pads[sdims + d];
      const int64_t span = in + pb + pe - ek;
      if (span < 0)
        return PLUMB_RT_EINVAL;
      out = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
      if (ceil_mode && (out - 1) * s >= in + pb)
        --out;
      break;
    }
    case PLUMB_RT_AUTO_PAD_VALID:
      pads[d] = pads[sdims + d] = 0;
      if (in < ek)
        return PLUMB_RT_EINVAL;
      out = (in - ek) / s + 1;
      break;
    case PLUMB_RT_AUTO_PAD_SAME_UPPER:
    case PLUMB_RT_AUTO_PAD_SAME_LOWER: {
      out = (in + s - 1) / s;
      int64_t total = (out - 1) * s + ek - in;
      if (total < 0)
        total = 0;
      const int64_t small = total / 2, big = total - small;
      pads[d] = auto_pad == PLUMB_RT_AUTO_PAD_SAME_UPPER ? small : big;
      pads[sdims + d] = total - pads[d];
      break;
    }
    default:
      return PLUMB_RT_EINVAL;
    }
    out_spatial[d] = out;
  }
  return PLUMB_RT_OK;
}

int plumb_rt_maxpool_f32(const float *x, int64_t n, int64_t c, int32_t sdims,
                         const int64_t *in_spatial,
                         const int64_t *out_spatial, const int64_t *kernel,
                         const int64_t *strides, const int64_t *pads,
                         const int64_t *dilations, float *y,
                         int64_t *indices) {
  PoolGeom g;
  int rc = makeGeom(g, sdims, in_spatial, out_spatial, kernel, strides, pads,
                    dilations);
  if (rc != PLUMB_RT_OK || n < 0 || c < 0)
    return rc != PLUMB_RT_OK ? rc : PLUMB_RT_EINVAL;
  if (n * c * g.outSize == 0)
    return PLUMB_RT_OK;
  if (!x || !y)
    return PLUMB_RT_EINVAL;
#if PLUMB_POOL_X86
  if (!indices && maxPool2dFast(g, x, n * c, y))
    return PLUMB_RT_OK;
#endif
  if (!indices) {
    forRows(g, n * c, [&](int64_t pl, int64_t o0, int64_t o1, int64_t oi,
                          float *, int64_t *cnt) {
      // Integer max of order keys == Max fold of the values (elementwise.h).
      int32_t *keys = reinterpret_cast<int32_t *>(cnt);
      const int32_t init = maxKey(negInf());
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2)
        keys[o2] = init;
      rowWalk(g, x + pl * g.inSize, o0, o1, keys, nullptr,
              [](int32_t a, float v) {
                const int32_t k = maxKey(v);
                return a > k ? a : k;
              });
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2)
        y[oi + o2] = fromKey(keys[o2]);
    });
    return PLUMB_RT_OK;
  }
  forOutputs(g, n * c, [&](int64_t pl, int64_t o0, int64_t o1, int64_t o2,
                           int64_t oi) {
    const float *plane = x + pl * g.inSize;
    float best = negInf();
    forWindow(g, o0, o1, o2, [&](int64_t off) { best = maxF(best, plane[off]); });
    y[oi] = best;
    if (indices) {
      const uint32_t want = bitsOf(best);
      int64_t idx = -1;
      forWindow(g, o0, o1, o2, [&](int64_t off) {
        if (idx < 0 && bitsOf(canon(plane[off])) == want)
          idx = off;
      });
      indices[oi] = idx < 0 ? -1 : pl * g.inSize + idx;
    }
  });
  return PLUMB_RT_OK;
}

int plumb_rt_avgpool_f32(const float *x, int64_t n, int64_t c, int32_t sdims,
                         const int64_t *in_spatial,
                         const int64_t *out_spatial, const int64_t *kernel,
                         const int64_t *strides, const int64_t *pads,
                         const int64_t *dilations, int32_t count_include_pad,
                         float *y) {
  PoolGeom g;
  int rc = makeGeom(g, sdims, in_spatial, out_spatial, kernel, strides, pads,
                    dilations);
  if (rc != PLUMB_RT_OK || n < 0 || c < 0)
    return rc != PLUMB_RT_OK ? rc : PLUMB_RT_EINVAL;
  if (n * c * g.outSize == 0)
    return PLUMB_RT_OK;
  if (!x || !y)
    return PLUMB_RT_EINVAL;
  forRows(g, n * c, [&](int64_t pl, int64_t o0, int64_t o1, int64_t oi,
                        float *acc, int64_t *valid) {
    for (int64_t o2 = 0; o2 < g.out[2]; ++o2)
      acc[o2] = -0.0f;
    rowWalk(g, x + pl * g.inSize, o0, o1, acc, valid,
            [](float a, float v) { return a + v; });
    for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
      const int64_t cnt =
          count_include_pad ? paddedCount(g, o0, o1, o2) : valid[o2];
      y[oi + o2] = canon(acc[o2] / (float)cnt);
    }
  });
  return PLUMB_RT_OK;
}

int plumb_rt_global_pool_f32(const float *x, int64_t nc, int64_t spatial,
                             int32_t is_max, float *y, int64_t block) {
  if (nc < 0 || spatial < 0)
    return PLUMB_RT_EINVAL;
  if (nc == 0)
    return PLUMB_RT_OK;
  if (!y || (spatial > 0 && !x))
    return PLUMB_RT_EINVAL;
  const int64_t m = ::plumb::rt::treeChunks(spatial, block);
  const float sf = (float)spatial;
  const int64_t groups = (nc + kMultiRows - 1) / kMultiRows;
  parallelRange(groups, 1 + (1 << 12) / (spatial + 1), [&](int64_t lo,
                                                            int64_t hi) {
    std::vector<float> scratch((size_t)(kMultiRows * m));
    for (int64_t gi = lo; gi < hi; ++gi) {
      const int64_t r0 = gi * kMultiRows;
      const int k = (int)(nc - r0 < kMultiRows ? nc - r0 : kMultiRows);
      if (is_max) {
        for (int q = 0; q < k; ++q) {
          const float *p = x + (r0 + q) * spatial;
          float b = negInf();
          for (int64_t i = 0; i < spatial; ++i)
            b = maxF(b, p[i]);
          y[r0 + q] = b;
        }
        continue;
      }
      if (spatial == 0) {
        for (int q = 0; q < k; ++q)
          y[r0 + q] = canonicalNaN();
        continue;
      }
      const float *rows[kMultiRows];
      float s[kMultiRows];
      for (int q = 0; q < k; ++q)
        rows[q] = x + (r0 + q) * spatial;
      multiTree<false>(k, rows, nullptr, spatial, block, scratch.data(), s);
      for (int q = 0; q < k; ++q)
        y[r0 + q] = canon(s[q] / sf);
    }
  });
  return PLUMB_RT_OK;
}

} // extern "C"
