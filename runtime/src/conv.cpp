//===- runtime/src/conv.cpp - Deterministic Conv / ConvTranspose -*- C++ -*-===//
//
// Part of Plumb. Conv and ConvTranspose as (implicit-zero) im2col + the
// deterministic GEMM. For each (image n, group g):
//   col[k][p], k = (ci, kh, kw) (kw fastest), p = oh * OW + ow, holds the
//   term's x value (+0.0 for padding / non-hitting taps),
//   Y[n, g*Cout_g + m, p] = treeDot_k(Wg[m][k], col[k][p]) + bias[g*Cout_g+m]
// which is exactly the per-element definition in conv.h, so the GEMM fast
// path (whatever its schedule) reproduces the scalar references bit for bit.
// With AVX-512, depthwise convs run a direct kernel with lanes over 16
// channels and group-1 convs with few output channels one with lanes over
// 16 output columns; both evaluate that same per-element sequence.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/conv.h"

#include "gemm_kernels.h"

#include "plumb/runtime/gemm.h"
#include "plumb/runtime/threads.h"
#include "plumb/runtime/tree.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLUMB_CONV_X86 1
#include <immintrin.h>
#define PLUMB_TGT_AVX512 __attribute__((target("avx512f,avx2,fma")))
#else
#define PLUMB_CONV_X86 0
#endif

#include <algorithm>
#include <vector>

using namespace plumb::rt;

namespace {

bool validParams(const plumb_conv2d_params *p) {
  if (!p || p->N < 0 || p->Cin < 0 || p->H < 0 || p->W < 0 || p->Cout < 0 ||
      p->KH < 1 || p->KW < 1 || p->OH < 0 || p->OW < 0 || p->group < 1 ||
      p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 ||
      p->dilation_w < 1)
    return false;
  return p->Cin % p->group == 0 && p->Cout % p->group == 0;
}

/// Fills col [K][P] for image n, group g. transpose selects the
/// ConvTranspose tap mapping.
void im2col(const plumb_conv2d_params &p, const float *X, int64_t n,
            int64_t g, bool transpose, float *col) {
  const int64_t Cg = p.Cin / p.group, KK = p.KH * p.KW, P = p.OH * p.OW;
  const int64_t K = Cg * KK;
  const float *Xg = X + (n * p.Cin + g * Cg) * p.H * p.W;
  parallelFor(0, K, std::max<int64_t>(1, 16384 / std::max<int64_t>(P, 1)),
              [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> iwOf(p.OW);
    for (int64_t k = lo; k < hi; ++k) {
      const int64_t ci = k / KK, kh = (k % KK) / p.KW, kw = k % p.KW;
      const float *xc = Xg + ci * p.H * p.W;
      float *dst = col + k * P;
      for (int64_t ow = 0; ow < p.OW; ++ow)
        iwOf[ow] = transpose ? convTransposeInputPos(ow, kw, p.stride_w,
                                                     p.dilation_w, p.pad_left,
                                                     p.W)
                             : convInputPos(ow, kw, p.stride_w, p.dilation_w,
                                            p.pad_left, p.W);
      for (int64_t oh = 0; oh < p.OH; ++oh) {
        const int64_t ih =
            transpose ? convTransposeInputPos(oh, kh, p.stride_h, p.dilation_h,
                                              p.pad_top, p.H)
                      : convInputPos(oh, kh, p.stride_h, p.dilation_h,
                                     p.pad_top, p.H);
        float *d = dst + oh * p.OW;
        if (ih < 0) {
          for (int64_t ow = 0; ow < p.OW; ++ow)
            d[ow] = 0.0f;
          continue;
        }
        const float *xr = xc + ih * p.W;
        for (int64_t ow = 0; ow < p.OW; ++ow)
          d[ow] = iwOf[ow] < 0 ? 0.0f : xr[iwOf[ow]];
      }
    }
  });
}

/// Valid output columns per kw of a forward conv along its last dimension
/// (0 <= ow * sw + kw * dw - pad < W): [lo[kw], hi[kw]).
void validColumns(int64_t W, int64_t OW, int64_t KW, int64_t sw, int64_t dw,
                  int64_t pad, std::vector<int64_t> &lo,
                  std::vector<int64_t> &hi) {
  lo.assign(KW, 0);
  hi.assign(KW, 0);
  for (int64_t kw = 0; kw < KW; ++kw) {
    const int64_t off = kw * dw - pad;
    const int64_t l = off >= 0 ? 0 : (-off + sw - 1) / sw;
    const int64_t h = W - 1 - off < 0 ? 0 : (W - 1 - off) / sw + 1;
    lo[kw] = std::min(l, OW);
    hi[kw] = std::max(lo[kw], std::min(h, OW));
  }
}

/// Implicit im2col: packs columns [n0, n0 + cols) of the (never built)
/// column matrix col[k][p] of one (image, group) straight from X.
struct ConvPackCtx {
  const plumb_conv2d_params *p;
  const float *Xg; // first input channel of the group in image n
  int64_t Cg;
  const int64_t *owLo, *owHi; // per kw: valid ow range [lo, hi)
};

/// One run of a sliver row: dr[t] = X row value for output column
/// ow0 + t where lo <= t < hi (xr[(ow0 + t) * sw]), +0.0 for the other
/// t < len (padding and non-hitting taps).
struct CopyRunScalar {
  void operator()(float *dr, const float *xr, int64_t ow0, int64_t len,
                  int64_t lo, int64_t hi, int64_t sw) const {
    int64_t t = 0;
    for (; t < lo; ++t)
      dr[t] = 0.0f;
    if (sw == 1) {
      const float *src = xr + ow0;
      for (; t < hi; ++t)
        dr[t] = src[t];
    } else {
      for (; t < hi; ++t)
        dr[t] = xr[(ow0 + t) * sw];
    }
    for (; t < len; ++t)
      dr[t] = 0.0f;
  }
};

template <class CopyRun>
__attribute__((always_inline)) inline void
packConvBImpl(const void *vctx, int64_t n0, int64_t cols, int64_t K, int nrw,
              float *d, const CopyRun &copyRun) {
  const ConvPackCtx &c = *static_cast<const ConvPackCtx *>(vctx);
  const plumb_conv2d_params &p = *c.p;
  if (p.OW == 1) {
    // One output column (a 1-D conv along H): the sliver's lanes are the
    // consecutive output rows oh = n0 + j; per tap a strided column copy.
    const int64_t HW = p.H * p.W, rs = p.stride_h * p.W;
    int64_t k = 0;
    for (int64_t ci = 0; ci < c.Cg && k < K; ++ci) {
      const float *xc = c.Xg + ci * HW;
      for (int64_t kh = 0; kh < p.KH; ++kh) {
        // ih = (n0 + j) * sh + off in [0, H)  <=>  j in [jlo, jhi).
        const int64_t off = n0 * p.stride_h - p.pad_top + kh * p.dilation_h;
        const int64_t sh = p.stride_h;
        int64_t jlo = off >= 0 ? 0 : (-off + sh - 1) / sh;
        int64_t jhi = p.H - 1 - off < 0 ? 0 : (p.H - 1 - off) / sh + 1;
        jlo = std::min(jlo, cols);
        jhi = std::max(jlo, std::min(jhi, cols));
        for (int64_t kw = 0; kw < p.KW; ++kw, ++k) {
          float *dk = d + k * nrw;
          const int64_t iw = kw * p.dilation_w - p.pad_left;
          int64_t j = 0;
          if (iw >= 0 && iw < p.W) {
            for (; j < jlo; ++j)
              dk[j] = 0.0f;
            const float *src = xc + (off + jlo * sh) * p.W + iw;
            for (; j < jhi; ++j)
              dk[j] = src[(j - jlo) * rs];
          }
          for (; j < nrw; ++j)
            dk[j] = 0.0f;
        }
      }
    }
    return;
  }
  struct Run {
    int64_t j0, len, oh, ow0;
  } runs[64];
  int nruns = 0;
  for (int64_t j = 0; j < cols;) {
    const int64_t e = n0 + j, oh = e / p.OW, ow0 = e % p.OW;
    const int64_t len = std::min<int64_t>(cols - j, p.OW - ow0);
    runs[nruns++] = {j, len, oh, ow0};
    j += len;
  }
  const int64_t HW = p.H * p.W, sw = p.stride_w;
  int64_t k = 0;
  for (int64_t ci = 0; ci < c.Cg && k < K; ++ci) {
    const float *xc = c.Xg + ci * HW;
    for (int64_t kh = 0; kh < p.KH; ++kh)
      for (int64_t kw = 0; kw < p.KW; ++kw, ++k) {
        float *dk = d + k * nrw;
        const int64_t off = kw * p.dilation_w - p.pad_left;
        for (int r = 0; r < nruns; ++r) {
          const Run &ru = runs[r];
          float *dr = dk + ru.j0;
          const int64_t ih = ru.oh * p.stride_h - p.pad_top + kh * p.dilation_h;
          if (ih < 0 || ih >= p.H) {
            for (int64_t t = 0; t < ru.len; ++t)
              dr[t] = 0.0f;
            continue;
          }
          const float *xr = xc + ih * p.W + off;
          const int64_t lo =
              std::min(ru.len, std::max<int64_t>(0, c.owLo[kw] - ru.ow0));
          const int64_t hi =
              std::max(lo, std::min(ru.len, c.owHi[kw] - ru.ow0));
          copyRun(dr, xr, ru.ow0, ru.len, lo, hi, sw);
        }
        for (int64_t j = cols; j < nrw; ++j)
          dk[j] = 0.0f;
      }
  }
}

void packConvB(const void *vctx, int64_t n0, int64_t cols, int64_t K, int nrw,
               float *d) {
  packConvBImpl(vctx, n0, cols, K, nrw, d, CopyRunScalar());
}

#if PLUMB_CONV_X86
// GCC 12 flags the masked intrinsics' internal undefined vectors (false
// positive), as below.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/// CopyRunScalar with 16-lane masked loads and stores (the same values:
/// masked-off lanes load +0.0 and never touch memory). Stride 2 loads the
/// 32 floats a vector's taps span and keeps the even ones; other strides
/// copy lane by lane.
struct CopyRunAvx512 {
  __attribute__((target("avx512f,avx2,fma,bmi2"))) void
  operator()(float *dr, const float *xr, int64_t ow0, int64_t len, int64_t lo,
             int64_t hi, int64_t sw) const {
    if (sw != 1 && sw != 2) {
      CopyRunScalar()(dr, xr, ow0, len, lo, hi, sw);
      return;
    }
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                           20, 22, 24, 26, 28, 30);
    for (int64_t t0 = 0; t0 < len; t0 += 16) {
      const int64_t n = std::min<int64_t>(16, len - t0);
      const __mmask16 store = static_cast<__mmask16>((1u << n) - 1u);
      const int64_t a = std::max<int64_t>(0, lo - t0);
      const int64_t b = std::min<int64_t>(n, hi - t0);
      const uint32_t valid =
          b > a ? ((1u << b) - 1u) & ~((1u << a) - 1u) : 0u;
      __m512 v;
      if (sw == 1) {
        v = _mm512_maskz_loadu_ps(static_cast<__mmask16>(valid),
                                  xr + ow0 + t0);
      } else {
        // Lane t's tap is float 2t of the 32 starting at (ow0 + t0) * 2.
        const uint32_t spread = _pdep_u32(valid, 0x55555555u);
        const float *src = xr + (ow0 + t0) * 2;
        const __m512 l = _mm512_maskz_loadu_ps(
            static_cast<__mmask16>(spread & 0xffffu), src);
        const __m512 h = _mm512_maskz_loadu_ps(
            static_cast<__mmask16>(spread >> 16), src + 16);
        v = _mm512_permutex2var_ps(l, even, h);
      }
      _mm512_mask_storeu_ps(dr + t0, store, v);
    }
  }
};

__attribute__((target("avx512f,avx2,fma,bmi2"))) void
packConvBAvx512(const void *vctx, int64_t n0, int64_t cols, int64_t K,
                int nrw, float *d) {
  packConvBImpl(vctx, n0, cols, K, nrw, d, CopyRunAvx512());
}
#pragma GCC diagnostic pop
#endif

#if PLUMB_CONV_X86
//===----------------------------------------------------------------------===//
// Direct depthwise conv (one input and one output channel per group),
// AVX-512: lanes over 16 consecutive ow of one output row. Every lane runs
// exactly treeDot's sequence over the terms k = (kh, kw) in order: per
// chunk acc = fma(w[k], x, acc) from -0.0 with x = +0.0 for padding (read
// from a zero-padded copy of the plane), chunk partials combined by
// treeCombine's stride-halving; then y = dot + bias, NaN canonicalised.
//===----------------------------------------------------------------------===//

struct DwGeom {
  int64_t H, W, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl;
  int64_t Wp; // padded row length (floats)
  int64_t K, block, m, bl;
};

/// Geometry of a direct conv with K terms per output (depthwise: KH*KW;
/// group 1: Cin*KH*KW): the padded row length and the tree's chunks.
DwGeom dwGeom(const plumb_conv2d_params &p, int64_t K, int64_t block) {
  DwGeom g;
  g.H = p.H, g.W = p.W, g.OH = p.OH, g.OW = p.OW, g.KH = p.KH, g.KW = p.KW;
  g.sh = p.stride_h, g.sw = p.stride_w, g.dh = p.dilation_h;
  g.dw = p.dilation_w, g.pt = p.pad_top, g.pl = p.pad_left;
  const int64_t owR = (p.OW + 15) / 16 * 16;
  g.Wp = std::max(p.pad_left + p.W,
                  (owR - 1) * g.sw + (p.KW - 1) * g.dw + 1 + 32 * g.sw) + 16;
  g.K = K;
  g.block = block < 0 ? 0 : block;
  g.m = treeChunks(g.K, g.block);
  g.bl = g.m == 1 ? g.K : g.block;
  return g;
}

/// Copies `rows` input rows of width W into rows of Wp floats, pad_left
/// zeros before and zeros after.
void padRows(const float *src, int64_t rows, int64_t W, int64_t padLeft,
             int64_t Wp, float *dst) {
  for (int64_t r = 0; r < rows; ++r) {
    float *d = dst + r * Wp;
    std::fill(d, d + padLeft, 0.0f);
    memcpy(d + padLeft, src + r * W, sizeof(float) * W);
    std::fill(d + padLeft + W, d + Wp, 0.0f);
  }
}


/// Loads the 16 inputs of lanes ow0..ow0+15 for tap offset `src` (already
/// at ow0 * sw + kw * dw in the padded row).
PLUMB_TGT_AVX512 inline __m512 dwLoad(const float *src, int64_t sw,
                                      __m512i idx2, __m512i idxS) {
  if (sw == 1)
    return _mm512_loadu_ps(src);
  if (sw == 2)
    return _mm512_permutex2var_ps(_mm512_loadu_ps(src), idx2,
                                  _mm512_loadu_ps(src + 16));
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xFFFF, idxS, src, 4);
}

/// treeCombine over the m chunk vectors at work (16 floats each): stride-
/// halving, padding skipped; the result is in the first.
PLUMB_TGT_AVX512 inline __m512 combineChunks(float *work, int64_t m) {
  int64_t p = 1;
  while (p < m)
    p <<= 1;
  for (int64_t s = p >> 1; s >= 1; s >>= 1) {
    for (int64_t i = 0; i < s; ++i)
      if (i + s < m)
        _mm512_storeu_ps(work + i * 16,
                         _mm512_add_ps(_mm512_loadu_ps(work + i * 16),
                                       _mm512_loadu_ps(work + (i + s) * 16)));
    if (m > s)
      m = s;
  }
  return _mm512_loadu_ps(work);
}

/// One output row oh of one plane. rows[kh] points at the padded input row
/// (or a zero row), already offset so that index (ow*sw + kw*dw) is the tap.
PLUMB_TGT_AVX512 void dwRow(const DwGeom &g, const float *const *rows,
                            const float *w, float bv, bool hasBias, float *y,
                            float *work) {
  const __m512i idx2 = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i idxS = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(static_cast<int>(g.sw)));
  const __m512 nz = _mm512_set1_ps(-0.0f);
  const __m512 canon = _mm512_castsi512_ps(
      _mm512_set1_epi32(static_cast<int>(PLUMB_CANONICAL_NAN_BITS)));
  const __m512 vb = _mm512_set1_ps(bv);
  for (int64_t ow0 = 0; ow0 < g.OW; ow0 += 16) {
    const int64_t base = ow0 * g.sw;
    __m512 dot;
    if (g.m == 1) {
      __m512 acc = nz;
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const float *r = rows[kh] + base;
        const float *wk = w + kh * g.KW;
        for (int64_t kw = 0; kw < g.KW; ++kw)
          acc = _mm512_fmadd_ps(_mm512_set1_ps(wk[kw]),
                                dwLoad(r + kw * g.dw, g.sw, idx2, idxS), acc);
      }
      dot = acc;
    } else {
      for (int64_t c = 0; c < g.m; ++c) {
        __m512 acc = nz;
        const int64_t hi = std::min(g.K, (c + 1) * g.bl);
        for (int64_t k = c * g.bl; k < hi; ++k) {
          const int64_t kh = k / g.KW, kw = k % g.KW;
          acc = _mm512_fmadd_ps(
              _mm512_set1_ps(w[k]),
              dwLoad(rows[kh] + base + kw * g.dw, g.sw, idx2, idxS), acc);
        }
        _mm512_storeu_ps(work + c * 16, acc);
      }
      dot = combineChunks(work, g.m);
    }
    __m512 v = hasBias ? _mm512_add_ps(dot, vb) : dot;
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    v = _mm512_mask_blend_ps(nan, v, canon);
    const int64_t lanes = std::min<int64_t>(16, g.OW - ow0);
    _mm512_mask_storeu_ps(y + ow0, static_cast<__mmask16>((1u << lanes) - 1),
                          v);
  }
}

thread_local std::vector<float> tlsDwPlane, tlsDwWork;

/// Depthwise conv over all planes; returns false when not applicable.
bool depthwiseDirect(const plumb_conv2d_params &p, const float *X,
                     const float *Wt, const float *bias, float *Y,
                     int64_t block, const plumb_rt_epilogue *ep) {
  if (p.Cin != p.group || p.Cout != p.group ||
      plumb_rt_gemm_active_isa() < detail::kIsaAvx512 || p.OW < 1 ||
      p.OH < 1)
    return false;
  const DwGeom g = dwGeom(p, p.KH * p.KW, block);
  if (g.Wp > (int64_t(1) << 24))
    return false;
  const int64_t planes = p.N * p.group, P = p.OH * p.OW;
  parallelFor(0, planes, 1, [&](int64_t lo, int64_t hi) {
    std::vector<float> &buf = tlsDwPlane;
    const size_t need = static_cast<size_t>((p.H + 1) * g.Wp);
    if (buf.size() < need)
      buf.resize(need);
    std::vector<float> &work = tlsDwWork;
    if (work.size() < static_cast<size_t>(16 * g.m))
      work.resize(static_cast<size_t>(16 * g.m));
    float *zero = buf.data() + p.H * g.Wp;
    std::fill(zero, zero + g.Wp, 0.0f);
    std::vector<const float *> rows(static_cast<size_t>(p.KH));
    for (int64_t pl = lo; pl < hi; ++pl) {
      const int64_t n = pl / p.group, c = pl % p.group;
      padRows(X + pl * p.H * p.W, p.H, p.W, p.pad_left, g.Wp, buf.data());
      const float *w = Wt + c * g.K;
      float *yp = Y + pl * P;
      for (int64_t oh = 0; oh < p.OH; ++oh) {
        for (int64_t kh = 0; kh < p.KH; ++kh) {
          const int64_t ih = oh * g.sh - g.pt + kh * g.dh;
          rows[kh] = (ih < 0 || ih >= p.H) ? zero : buf.data() + ih * g.Wp;
        }
        dwRow(g, rows.data(), w, bias ? bias[c] : 0.0f, bias != nullptr,
              yp + oh * p.OW, work.data());
        if (ep)
          ep->fn(ep->ctx, yp + oh * p.OW, n, c, oh * p.OW, p.OW);
      }
    }
  });
  return true;
}

// GCC 12 flags the shuffle intrinsics' internal undefined vectors (false
// positive), as in math_avx2.cpp.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
//===----------------------------------------------------------------------===//
// Channel-blocked direct depthwise conv, AVX-512: lanes over 16 channels of
// one output position, so small planes (7x7, 14x14) fill every lane. Per
// task (image, block of 16 channels, range of output rows) the needed input
// rows are transposed into T[row][col][16 channels] with +0.0 for padding;
// each output position then runs, per lane, exactly dwRow's sequence: per
// chunk of the terms k = (kh, kw) acc = fma(w[k], x, acc) from -0.0, chunk
// partials combined by treeCombine's stride-halving, + bias, NaN
// canonicalised. Up to 8 positions of a row are in flight (independent
// accumulators); the results are transposed back into the NCHW planes.
//===----------------------------------------------------------------------===//

/// In-register transpose of the 16x16 block r[row][lane] (r[i] lane j
/// becomes r[j] lane i).
PLUMB_TGT_AVX512 inline void transpose16(__m512 *r) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    u[4 * i + 0] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  // u[4i + j] lane L holds column 4L + j of rows 4i..4i+3.
  for (int j = 0; j < 4; ++j) {
    const __m512 a0 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
    const __m512 a1 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
    const __m512 b0 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
    const __m512 b1 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
    r[j] = _mm512_shuffle_f32x4(a0, b0, 0x88);
    r[8 + j] = _mm512_shuffle_f32x4(a0, b0, 0xDD);
    r[4 + j] = _mm512_shuffle_f32x4(a1, b1, 0x88);
    r[12 + j] = _mm512_shuffle_f32x4(a1, b1, 0xDD);
  }
}

/// v[c] = the mk lanes of row c (rows `stride` floats apart) for c < nc,
/// zero for the other rows.
PLUMB_TGT_AVX512 inline void loadRows16(const float *src, int64_t stride,
                                        int64_t nc, __mmask16 mk, __m512 *v) {
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c)
    v[c] = c < nc ? _mm512_maskz_loadu_ps(mk, src + c * stride)
                  : _mm512_setzero_ps();
}

/// treeCombine over m chunk vectors spaced `stride` floats apart.
PLUMB_TGT_AVX512 inline __m512 combineStrided(float *work, int64_t m,
                                              int64_t stride) {
  int64_t p = 1;
  while (p < m)
    p <<= 1;
  for (int64_t s = p >> 1; s >= 1; s >>= 1) {
    for (int64_t i = 0; i < s; ++i)
      if (i + s < m)
        _mm512_storeu_ps(
            work + i * stride,
            _mm512_add_ps(_mm512_loadu_ps(work + i * stride),
                          _mm512_loadu_ps(work + (i + s) * stride)));
    if (m > s)
      m = s;
  }
  return _mm512_loadu_ps(work);
}

/// NB consecutive output positions of one row: t points at the first
/// position's tap (0, 0) in T, positions are `step` floats apart, tap k at
/// t + off[k]; wv: weights [K][16]; results (+ bias, NaN canonicalised)
/// to o[j * 16].
template <int NB>
PLUMB_TGT_AVX512 void dwbRun(const DwGeom &g, const float *t, int64_t step,
                             const int64_t *off, const float *wv, __m512 vb,
                             bool hasBias, float *o, float *work) {
  const __m512 nz = _mm512_set1_ps(-0.0f);
  const __m512 canon = _mm512_castsi512_ps(
      _mm512_set1_epi32(static_cast<int>(PLUMB_CANONICAL_NAN_BITS)));
  __m512 acc[NB];
  for (int j = 0; j < NB; ++j)
    acc[j] = nz;
  for (int64_t c = 0; c < g.m; ++c) {
    for (int j = 0; j < NB; ++j)
      acc[j] = nz;
    const int64_t hi = std::min(g.K, (c + 1) * g.bl);
    for (int64_t k = c * g.bl; k < hi; ++k) {
      const __m512 w = _mm512_loadu_ps(wv + k * 16);
      const float *x = t + off[k];
      for (int j = 0; j < NB; ++j)
        acc[j] = _mm512_fmadd_ps(w, _mm512_loadu_ps(x + j * step), acc[j]);
    }
    if (g.m > 1)
      for (int j = 0; j < NB; ++j)
        _mm512_storeu_ps(work + (c * NB + j) * 16, acc[j]);
  }
  for (int j = 0; j < NB; ++j) {
    __m512 v = g.m > 1 ? combineStrided(work + j * 16, g.m, NB * 16) : acc[j];
    if (hasBias)
      v = _mm512_add_ps(v, vb);
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    _mm512_storeu_ps(o + j * 16, _mm512_mask_blend_ps(nan, v, canon));
  }
}

/// Positions per pass of dwbRun.
constexpr int kDwbMaxRun = 8;

using DwbRunFn = void (*)(const DwGeom &, const float *, int64_t,
                          const int64_t *, const float *, __m512, bool,
                          float *, float *);

/// dwbRun for one chunk (m == 1), stride SW, KW taps per kernel row and
/// no column dilation: per kernel row, each input vector of the row is
/// loaded once and fed to every position whose tap it is, in increasing
/// column order -- so each position still sees k = (kh, kw) in order.
/// t + kh * rowStep is kernel row kh's first tap.
template <int NB, int SW, int KW>
PLUMB_TGT_AVX512 void dwbRunRow(const DwGeom &g, const float *t,
                                int64_t rowStep, const float *wv, __m512 vb,
                                bool hasBias, float *o) {
  const __m512 canon = _mm512_castsi512_ps(
      _mm512_set1_epi32(static_cast<int>(PLUMB_CANONICAL_NAN_BITS)));
  constexpr int kCols = (NB - 1) * SW + KW;
  __m512 acc[NB];
#pragma GCC unroll 8
  for (int j = 0; j < NB; ++j)
    acc[j] = _mm512_set1_ps(-0.0f);
  for (int64_t kh = 0; kh < g.KH; ++kh) {
    const float *x = t + kh * rowStep;
    const float *wk = wv + kh * KW * 16;
    __m512 w[KW];
#pragma GCC unroll 16
    for (int kw = 0; kw < KW; ++kw)
      w[kw] = _mm512_load_ps(wk + kw * 16);
#pragma GCC unroll 64
    for (int q = 0; q < kCols; ++q) {
      const __m512 xv = _mm512_load_ps(x + q * 16);
#pragma GCC unroll 8
      for (int j = 0; j < NB; ++j) {
        const int kw = q - j * SW;
        if (kw >= 0 && kw < KW)
          acc[j] = _mm512_fmadd_ps(w[kw], xv, acc[j]);
      }
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < NB; ++j) {
    __m512 v = hasBias ? _mm512_add_ps(acc[j], vb) : acc[j];
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    _mm512_store_ps(o + j * 16, _mm512_mask_blend_ps(nan, v, canon));
  }
}

using DwbRowFn = void (*)(const DwGeom &, const float *, int64_t,
                          const float *, __m512, bool, float *);

/// dwbRunRow<1..kDwbMaxRun, SW, KW>, indexed by the position count.
template <int SW, int KW> struct DwbRowTable {
  static constexpr DwbRowFn fns[kDwbMaxRun + 1] = {
      nullptr,
      dwbRunRow<1, SW, KW>,
      dwbRunRow<2, SW, KW>,
      dwbRunRow<3, SW, KW>,
      dwbRunRow<4, SW, KW>,
      dwbRunRow<5, SW, KW>,
      dwbRunRow<6, SW, KW>,
      dwbRunRow<7, SW, KW>,
      dwbRunRow<8, SW, KW>};
};

/// The row-reuse kernels for this geometry, or null: one chunk, stride 1
/// or 2, no column dilation, 3, 5, 7 or 9 taps per kernel row.
const DwbRowFn *dwbRowFns(const DwGeom &g) {
  if (g.m != 1 || g.dw != 1 || (g.sw != 1 && g.sw != 2))
    return nullptr;
  const bool s1 = g.sw == 1;
  switch (g.KW) {
  case 3:
    return s1 ? DwbRowTable<1, 3>::fns : DwbRowTable<2, 3>::fns;
  case 5:
    return s1 ? DwbRowTable<1, 5>::fns : DwbRowTable<2, 5>::fns;
  case 7:
    return s1 ? DwbRowTable<1, 7>::fns : DwbRowTable<2, 7>::fns;
  case 9:
    return s1 ? DwbRowTable<1, 9>::fns : DwbRowTable<2, 9>::fns;
  default:
    return nullptr;
  }
}

thread_local std::vector<float> tlsDwbBuf;

/// What every task of one channel-blocked depthwise conv shares.
struct DwbPlan {
  const plumb_conv2d_params *p;
  DwGeom g;
  int64_t C, nCB, nRB, rb, Wq, rowF, tRows, kPad;
  const float *X, *Wt, *bias;
  const int64_t *off;
  const DwbRowFn *rowFns; // row-reuse kernels, or null
  float *Y;
  const plumb_rt_epilogue *ep;
};

/// Per-thread buffers of the channel-blocked kernel, and which zero
/// border T holds (the padding positions of the last task's rows: a task
/// with the same plan and rows only rewrites the image positions).
struct DwbScratch {
  float *T, *O, *wv, *work;
  const DwbPlan *plan = nullptr;
  int64_t oh0 = -1;
};

/// One task: image n, channels [16 cb, 16 cb + 16), output rows
/// [oh0, oh1). T: tRows * rowF floats, O: rb * OW * 16, wv: kPad * 16 (all
/// 64-byte aligned), work: 16 * kDwbMaxRun * m.
PLUMB_TGT_AVX512 void dwbTask(const DwbPlan &q, int64_t task, DwbScratch &sc) {
  float *T = sc.T, *O = sc.O, *work = sc.work;
  static const DwbRunFn runs[kDwbMaxRun + 1] = {
      nullptr,   dwbRun<1>, dwbRun<2>, dwbRun<3>, dwbRun<4>,
      dwbRun<5>, dwbRun<6>, dwbRun<7>, dwbRun<8>};
  const plumb_conv2d_params &p = *q.p;
  const DwGeom &g = q.g;
  const int64_t C = q.C, Wq = q.Wq, rowF = q.rowF;
  const int64_t HW = p.H * p.W, P = p.OH * p.OW;
  const int64_t n = task / (q.nCB * q.nRB), cb = (task / q.nRB) % q.nCB;
  const int64_t oh0 = (task % q.nRB) * q.rb, oh1 = std::min(p.OH, oh0 + q.rb);
  const int64_t c0 = cb * 16, nc = std::min<int64_t>(16, C - c0);
  const int64_t ihLo = oh0 * g.sh - g.pt;
  const int64_t R = (oh1 - oh0 - 1) * g.sh + (p.KH - 1) * g.dh + 1;
  // Padding: rows outside the image, columns left and right of it.
  const int64_t ihA = std::max<int64_t>(0, ihLo);
  const int64_t ihB = std::min<int64_t>(p.H, ihLo + R);
  const int64_t qIn = std::min<int64_t>(Wq, g.pl + p.W);
  const bool sameBorder = sc.plan == &q && sc.oh0 == oh0;
  sc.plan = &q, sc.oh0 = oh0;
  for (int64_t r = 0; r < R && !sameBorder; ++r) {
    float *tr = T + r * rowF;
    const int64_t ih = ihLo + r;
    if (ih < ihA || ih >= ihB) {
      std::fill(tr, tr + rowF, 0.0f);
      continue;
    }
    std::fill(tr, tr + std::min(g.pl, Wq) * 16, 0.0f);
    if (qIn < Wq)
      std::fill(tr + qIn * 16, tr + rowF, 0.0f);
  }
  // Image rows [ihA, ihB): 16 flat positions of 16 channels at a time.
  if (ihA < ihB && g.pl < Wq) {
    const float *src = q.X + (n * C + c0) * HW;
    const int64_t f1 = ihB * p.W, iwMax = qIn - g.pl;
    int64_t ih = ihA, iw = 0;
    for (int64_t f0 = ihA * p.W; f0 < f1; f0 += 16) {
      const int64_t cnt = std::min<int64_t>(16, f1 - f0);
      const __mmask16 mk = static_cast<__mmask16>((1u << cnt) - 1);
      __m512 v[16];
      loadRows16(src + f0, HW, nc, mk, v);
      transpose16(v);
      // (Constant indices keep v in registers.)
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j)
        if (j < cnt) {
          if (iw < iwMax)
            _mm512_store_ps(T + (ih - ihLo) * rowF + (g.pl + iw) * 16, v[j]);
          if (++iw == p.W)
            iw = 0, ++ih;
        }
    }
  }
  // Weights of the block as [k][16 channels] (lanes beyond C zero), 16
  // taps at a time; the bias as one vector.
  float *w = sc.wv;
  const __mmask16 cm = static_cast<__mmask16>((1u << nc) - 1);
  for (int64_t k0 = 0; k0 < g.K; k0 += 16) {
    const int64_t cnt = std::min<int64_t>(16, g.K - k0);
    const __mmask16 mk = static_cast<__mmask16>((1u << cnt) - 1);
    __m512 v[16];
    loadRows16(q.Wt + c0 * g.K + k0, g.K, nc, mk, v);
    transpose16(v);
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j)
      if (j < cnt)
        _mm512_store_ps(w + (k0 + j) * 16, v[j]);
  }
  const __m512 vb = q.bias ? _mm512_maskz_loadu_ps(cm, q.bias + c0)
                           : _mm512_setzero_ps();
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const float *t = T + (oh - oh0) * g.sh * rowF;
    float *o = O + (oh - oh0) * p.OW * 16;
    for (int64_t ow = 0; ow < p.OW; ow += kDwbMaxRun) {
      const int64_t nb = std::min<int64_t>(kDwbMaxRun, p.OW - ow);
      if (q.rowFns)
        q.rowFns[nb](g, t + ow * g.sw * 16, g.dh * rowF, w, vb,
                     q.bias != nullptr, o + ow * 16);
      else
        runs[nb](g, t + ow * g.sw * 16, g.sw * 16, q.off, w, vb,
                 q.bias != nullptr, o + ow * 16, work);
    }
  }
  // Back to the planes: 16 positions of 16 channels at a time.
  const int64_t cnt0 = (oh1 - oh0) * p.OW;
  float *dst = q.Y + (n * C + c0) * P + oh0 * p.OW;
  for (int64_t f0 = 0; f0 < cnt0; f0 += 16) {
    const int64_t cnt = std::min<int64_t>(16, cnt0 - f0);
    const __mmask16 mk = static_cast<__mmask16>((1u << cnt) - 1);
    __m512 v[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j)
      v[j] = j < cnt ? _mm512_load_ps(O + (f0 + j) * 16) : _mm512_setzero_ps();
    transpose16(v);
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c)
      if (c < nc)
        _mm512_mask_storeu_ps(dst + c * P + f0, mk, v[c]);
  }
  if (q.ep)
    for (int64_t c = 0; c < nc; ++c)
      q.ep->fn(q.ep->ctx, dst + c * P, n, c0 + c, oh0 * p.OW, cnt0);
}

/// Channel-blocked depthwise conv over all planes; returns false when not
/// applicable.
bool depthwiseBlocked(const plumb_conv2d_params &p, const float *X,
                      const float *Wt, const float *bias, float *Y,
                      int64_t block, const plumb_rt_epilogue *ep) {
  if (p.Cin != p.group || p.Cout != p.group ||
      plumb_rt_gemm_active_isa() < detail::kIsaAvx512 || p.OW < 1 ||
      p.OH < 1)
    return false;
  DwbPlan q;
  q.p = &p;
  q.g = dwGeom(p, p.KH * p.KW, block);
  const DwGeom &g = q.g;
  q.C = p.group;
  q.nCB = (q.C + 15) / 16;
  q.Wq = (p.OW - 1) * g.sw + (p.KW - 1) * g.dw + 1;
  q.rowF = q.Wq * 16;
  // Output rows per task: T and the staged outputs near 96 KiB.
  const int64_t budget = 48 * 1024;
  auto rowsFor = [&](int64_t rb) { return (rb - 1) * g.sh + (p.KH - 1) * g.dh + 1; };
  q.rb = 1;
  while (q.rb < p.OH &&
         rowsFor(q.rb + 1) * q.rowF + (q.rb + 1) * p.OW * 16 <= budget)
    ++q.rb;
  // Enough tasks to balance the threads (each row split re-reads the
  // kernel's (KH - 1) * dh halo rows): about 4 per thread.
  const int64_t threads = plumb_rt_get_threads();
  const int64_t byChannels = p.N * q.nCB;
  if (threads > 1 && byChannels < 4 * threads) {
    const int64_t splits = std::min<int64_t>(
        p.OH, (4 * threads + byChannels - 1) / byChannels);
    q.rb = std::min(q.rb, (p.OH + splits - 1) / splits);
  }
  q.tRows = rowsFor(q.rb);
  // Very long rows (1-D convs over 60k+ steps) keep the row kernel.
  if (q.tRows * q.rowF > (int64_t(1) << 20))
    return false;
  q.nRB = (p.OH + q.rb - 1) / q.rb;
  std::vector<int64_t> off(static_cast<size_t>(g.K));
  for (int64_t k = 0; k < g.K; ++k)
    off[k] = ((k / p.KW) * g.dh * q.Wq + (k % p.KW) * g.dw) * 16;
  q.kPad = (g.K + 15) / 16 * 16;
  q.X = X, q.Wt = Wt, q.bias = bias;
  q.off = off.data(), q.Y = Y, q.ep = ep;
  q.rowFns = dwbRowFns(g);
  parallelFor(0, p.N * q.nCB * q.nRB, 1, [&](int64_t lo, int64_t hi) {
    std::vector<float> &buf = tlsDwbBuf;
    const size_t need =
        static_cast<size_t>(q.tRows * q.rowF + q.rb * p.OW * 16 +
                            q.kPad * 16 + 16 * kDwbMaxRun * g.m + 16);
    if (buf.size() < need)
      buf.resize(need);
    DwbScratch sc;
    sc.T = buf.data() + (16 - (reinterpret_cast<uintptr_t>(buf.data()) /
                               sizeof(float)) % 16) % 16;
    sc.O = sc.T + q.tRows * q.rowF;
    sc.wv = sc.O + q.rb * p.OW * 16;
    sc.work = sc.wv + q.kPad * 16;
    for (int64_t task = lo; task < hi; ++task)
      dwbTask(q, task, sc);
  });
  return true;
}
#pragma GCC diagnostic pop

//===----------------------------------------------------------------------===//
// Direct conv for few output channels (one group), AVX-512: the depthwise
// kernel's scheme with every input channel. Per output row, lanes over 16
// consecutive ow; per output channel, treeDot's sequence over the terms
// k = (ci, kh, kw) in order (chunks of fma from -0.0, x = +0.0 for padding,
// chunk partials combined by treeCombine's stride-halving), then + bias and
// NaN canonicalised: the GEMM's per-element operations, without building
// and packing column slivers (which cost small convs more than their math).
//===----------------------------------------------------------------------===//

/// Output channels up to which a group-1 conv runs direct.
constexpr int64_t kSmallDirectMaxCout = 16;

/// One output row for every output channel: CO accumulators (channels
/// beyond Cout have zero weights and are not stored), so each input vector
/// is loaded once per term for all channels. wk: the weights [K][CO].
template <int CO>
PLUMB_TGT_AVX512 void smallRow(const DwGeom &g, int64_t Cout,
                               const float *const *rows, const int32_t *rowOf,
                               const int64_t *colOf, const float *wk,
                               const float *bias, float *const *y,
                               float *work) {
  const __m512i idx2 = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i idxS = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(static_cast<int>(g.sw)));
  const __m512 nz = _mm512_set1_ps(-0.0f);
  const __m512 canon = _mm512_castsi512_ps(
      _mm512_set1_epi32(static_cast<int>(PLUMB_CANONICAL_NAN_BITS)));
  for (int64_t ow0 = 0; ow0 < g.OW; ow0 += 16) {
    const int64_t base = ow0 * g.sw;
    __m512 acc[CO];
    for (int64_t c = 0; c < g.m; ++c) {
      for (int o = 0; o < CO; ++o)
        acc[o] = nz;
      const int64_t hi = std::min(g.K, (c + 1) * g.bl);
      for (int64_t k = c * g.bl; k < hi; ++k) {
        const __m512 x =
            dwLoad(rows[rowOf[k]] + base + colOf[k], g.sw, idx2, idxS);
        const float *w = wk + k * CO;
        for (int o = 0; o < CO; ++o)
          acc[o] = _mm512_fmadd_ps(_mm512_set1_ps(w[o]), x, acc[o]);
      }
      if (g.m > 1)
        for (int o = 0; o < CO; ++o)
          _mm512_storeu_ps(work + (o * g.m + c) * 16, acc[o]);
    }
    const int64_t lanes = std::min<int64_t>(16, g.OW - ow0);
    const __mmask16 keep = static_cast<__mmask16>((1u << lanes) - 1);
    for (int64_t o = 0; o < Cout; ++o) {
      __m512 v = acc[o];
      if (g.m > 1)
        v = combineChunks(work + o * g.m * 16, g.m);
      if (bias)
        v = _mm512_add_ps(v, _mm512_set1_ps(bias[o]));
      const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      v = _mm512_mask_blend_ps(nan, v, canon);
      _mm512_mask_storeu_ps(y[o] + ow0, keep, v);
    }
  }
}

thread_local std::vector<float> tlsSmallPlanes;

/// Group-1 conv with at most kSmallDirectMaxCout output channels; returns
/// false when not applicable.
bool smallDirect(const plumb_conv2d_params &p, const float *X,
                 const float *Wt, const float *bias, float *Y, int64_t block,
                 const plumb_rt_epilogue *ep) {
  if (p.group != 1 || p.Cout > kSmallDirectMaxCout ||
      plumb_rt_gemm_active_isa() < detail::kIsaAvx512 || p.OW < 1 ||
      p.OH < 1 || p.Cin < 1)
    return false;
  const DwGeom g = dwGeom(p, p.Cin * p.KH * p.KW, block);
  const int64_t owR = (p.OW + 15) / 16 * 16;
  // The padded planes of one image must stay small (they are per thread).
  if (g.Wp > (int64_t(1) << 16) || p.Cin * (p.H + 1) * g.Wp > (int64_t(1) << 22))
    return false;
  std::vector<int32_t> rowOf(static_cast<size_t>(g.K));
  std::vector<int64_t> colOf(static_cast<size_t>(g.K));
  for (int64_t k = 0; k < g.K; ++k) {
    const int64_t kk = k % (p.KH * p.KW);
    rowOf[k] = static_cast<int32_t>(k / (p.KH * p.KW) * p.KH + kk / p.KW);
    colOf[k] = (kk % p.KW) * g.dw;
  }
  const int CO = p.Cout <= 4 ? 4 : p.Cout <= 8 ? 8 : 16;
  // Weights [K][CO], channels beyond Cout zero.
  std::vector<float> wk(static_cast<size_t>(g.K * CO), 0.0f);
  for (int64_t o = 0; o < p.Cout; ++o)
    for (int64_t k = 0; k < g.K; ++k)
      wk[k * CO + o] = Wt[o * g.K + k];
  auto row = CO == 4 ? smallRow<4> : CO == 8 ? smallRow<8> : smallRow<16>;
  const int64_t P = p.OH * p.OW, rowsPer = p.Cin * p.KH;
  for (int64_t n = 0; n < p.N; ++n) {
    // Zero-padded copies of the image's planes, one row of zeros after.
    std::vector<float> &buf = tlsSmallPlanes;
    const size_t need = static_cast<size_t>((p.Cin * p.H + 1) * g.Wp);
    if (buf.size() < need)
      buf.resize(need);
    float *zero = buf.data() + p.Cin * p.H * g.Wp;
    std::fill(zero, zero + g.Wp, 0.0f);
    padRows(X + n * p.Cin * p.H * p.W, p.Cin * p.H, p.W, p.pad_left, g.Wp,
            buf.data());
    const float *planes = buf.data();
    parallelFor(0, p.OH,
                std::max<int64_t>(1, 8192 / std::max<int64_t>(g.K * CO * owR, 1)),
                [&](int64_t lo, int64_t hi) {
      std::vector<const float *> rows(static_cast<size_t>(rowsPer));
      std::vector<float> work(static_cast<size_t>(16 * g.m * CO));
      float *y[16];
      for (int64_t oh = lo; oh < hi; ++oh) {
        for (int64_t ci = 0; ci < p.Cin; ++ci)
          for (int64_t kh = 0; kh < p.KH; ++kh) {
            const int64_t ih = oh * g.sh - g.pt + kh * g.dh;
            rows[ci * p.KH + kh] = (ih < 0 || ih >= p.H)
                                       ? zero
                                       : planes + (ci * p.H + ih) * g.Wp;
          }
        for (int64_t o = 0; o < p.Cout; ++o)
          y[o] = Y + (n * p.Cout + o) * P + oh * p.OW;
        row(g, p.Cout, rows.data(), rowOf.data(), colOf.data(), wk.data(),
            bias, y, work.data());
        if (ep)
          for (int64_t o = 0; o < p.Cout; ++o)
            ep->fn(ep->ctx, y[o], n, o, oh * p.OW, p.OW);
      }
    });
  }
  return true;
}
#endif // PLUMB_CONV_X86

struct ConvHookCtx {
  const plumb_rt_epilogue *ep;
  float *Y;
  int64_t n, co0, P, Cout;
};

void convRowHook(void *vctx, int64_t m, int64_t n0, int64_t count, float *y) {
  const ConvHookCtx &c = *static_cast<const ConvHookCtx *>(vctx);
  c.ep->fn(c.ep->ctx, y, c.n, c.co0 + m, n0, count);
}

#if PLUMB_CONV_X86
/// Direct ConvTranspose (AVX-512): 16 consecutive output columns per vector,
/// each lane running its own output's sequence of conv.h (every term
/// k = (ci, kh, kw) of the tree, +0.0 where the tap does not hit), for
/// groups of at most kCtMaxMg output channels, which share each input
/// vector. No column matrix: for the one-channel stride-2 heads of DBNet
/// and U-Nets that was K x OH x OW floats written and read by a row product
/// (1x16x160x160 -> 1x1x320x320 with a 2x2 kernel: 10.2 ms, now 1.4 ms).
struct CtPlan {
  const plumb_conv2d_params *p;
  const float *X, *Wt, *bias;
  float *Y;
  int64_t Cg, Mg, KK, K, m, bl, owBlocks, tiles;
  // Per kw and block of 16 output columns: the lowest input column read
  // (-1: none), each lane's column relative to it, and the lanes that hit.
  // Columns grow by at most one per output column, so a block reads at
  // most 16 consecutive inputs: one load and one permute, no gather.
  const int32_t *base;  // [KW][owBlocks]
  const int32_t *rel;   // [KW][owBlocks * 16]
  const uint16_t *hits; // [KW][owBlocks]
};
constexpr int64_t kCtTile = 8;
// Wider groups run faster as the column-matrix GEMM (measured: 16 output
// channels 1.37 ms there against 1.50 here, 32 channels 1.79 against 2.97).
constexpr int64_t kCtMaxMg = 4;

/// Output row r = ((n * group + g) * tiles + t) * OH + oh.
PLUMB_TGT_AVX512 void ctRow(const CtPlan &c, int64_t r, float *work,
                            int64_t *ihOf) {
  const plumb_conv2d_params &p = *c.p;
  const int64_t oh = r % p.OH;
  int64_t q = r / p.OH;
  const int64_t t = q % c.tiles;
  q /= c.tiles;
  const int64_t g = q % p.group, n = q / p.group;
  const int64_t m0 = t * kCtTile, mt = std::min(kCtTile, c.Mg - m0);
  const int64_t HW = p.H * p.W, P = p.OH * p.OW;
  for (int64_t kh = 0; kh < p.KH; ++kh)
    ihOf[kh] = convTransposeInputPos(oh, kh, p.stride_h, p.dilation_h,
                                     p.pad_top, p.H);
  const float *Xg = c.X + (n * p.Cin + g * c.Cg) * HW;
  const __m512 negZero = _mm512_set1_ps(-0.0f);
  for (int64_t b = 0; b < c.owBlocks; ++b) {
    const int64_t ow0 = b * 16;
    __m512 acc[kCtTile];
    for (int64_t j = 0; j < kCtTile; ++j)
      acc[j] = negZero;
    // Terms k = (ci, kh, kw) in order; a chunk of the tree ends every bl.
    int64_t k = 0, ch = 0, kEnd = std::min(c.K, c.bl);
    for (int64_t ci = 0; ci < c.Cg; ++ci)
      for (int64_t kh = 0; kh < p.KH; ++kh) {
        const int64_t ih = ihOf[kh];
        const float *row = ih >= 0 ? Xg + ci * HW + ih * p.W : nullptr;
        const float *w = c.Wt + ((g * c.Cg + ci) * c.Mg + m0) * c.KK + kh * p.KW;
        for (int64_t kw = 0; kw < p.KW; ++kw) {
          __m512 xv = _mm512_setzero_ps();
          const int64_t kb = kw * c.owBlocks + b;
          if (row && c.base[kb] >= 0) {
            const int64_t i0 = c.base[kb], avail = p.W - i0;
            const __mmask16 lm = avail >= 16 ? (__mmask16)0xFFFF
                                             : (__mmask16)((1u << avail) - 1u);
            xv = _mm512_maskz_permutexvar_ps(
                (__mmask16)c.hits[kb], _mm512_loadu_si512(c.rel + kb * 16),
                _mm512_maskz_loadu_ps(lm, row + i0));
          }
          // W [Cin, Cout_g, KH, KW]: output channel m0 + j of group g.
          for (int64_t j = 0; j < mt; ++j)
            acc[j] = _mm512_fmadd_ps(xv, _mm512_set1_ps(w[j * c.KK + kw]),
                                     acc[j]);
          if (++k == kEnd) {
            if (c.m > 1)
              for (int64_t j = 0; j < mt; ++j) {
                _mm512_storeu_ps(work + (j * c.m + ch) * 16, acc[j]);
                acc[j] = negZero;
              }
            ++ch;
            kEnd = std::min(c.K, kEnd + c.bl);
          }
        }
      }
    const int64_t cnt = std::min<int64_t>(16, p.OW - ow0);
    const __mmask16 store = (__mmask16)((1u << cnt) - 1u);
    const __m512 qnan = _mm512_castsi512_ps(
        _mm512_set1_epi32((int32_t)PLUMB_CANONICAL_NAN_BITS));
    for (int64_t j = 0; j < mt; ++j) {
      __m512 v = c.m > 1 ? combineChunks(work + j * c.m * 16, c.m) : acc[j];
      const int64_t co = g * c.Mg + m0 + j;
      if (c.bias)
        v = _mm512_add_ps(v, _mm512_set1_ps(c.bias[co]));
      v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), qnan);
      _mm512_mask_storeu_ps(c.Y + (n * p.Cout + co) * P + oh * p.OW + ow0,
                            store, v);
    }
  }
}

bool convTransposeDirect(const plumb_conv2d_params &p, const float *X,
                         const float *Wt, const float *bias, float *Y,
                         int64_t block) {
  if (plumb_rt_gemm_active_isa() < detail::kIsaAvx512 || p.OW < 1 ||
      p.OH < 1 || p.W < 1 || p.H < 1 || p.W > (int64_t(1) << 30))
    return false;
  CtPlan c;
  c.p = &p;
  c.X = X;
  c.Wt = Wt;
  c.bias = bias;
  c.Y = Y;
  c.Cg = p.Cin / p.group;
  c.Mg = p.Cout / p.group;
  c.KK = p.KH * p.KW;
  c.K = c.Cg * c.KK;
  if (c.K < 1 || c.Mg < 1 || c.Mg > kCtMaxMg)
    return false;
  c.m = treeChunks(c.K, block);
  c.bl = c.m == 1 ? c.K : block;
  c.owBlocks = (p.OW + 15) / 16;
  c.tiles = (c.Mg + kCtTile - 1) / kCtTile;
  const size_t kbs = (size_t)(p.KW * c.owBlocks);
  std::vector<int32_t> base(kbs, -1), rel(kbs * 16, 0);
  std::vector<uint16_t> hits(kbs, 0);
  for (int64_t kw = 0; kw < p.KW; ++kw)
    for (int64_t b = 0; b < c.owBlocks; ++b) {
      const size_t kb = (size_t)(kw * c.owBlocks + b);
      for (int64_t l = 0; l < 16 && b * 16 + l < p.OW; ++l) {
        const int64_t iw = convTransposeInputPos(b * 16 + l, kw, p.stride_w,
                                                 p.dilation_w, p.pad_left, p.W);
        if (iw < 0)
          continue;
        if (base[kb] < 0)
          base[kb] = (int32_t)iw;
        if (iw - base[kb] > 15)
          return false; // cannot happen: columns grow by at most one
        rel[kb * 16 + (size_t)l] = (int32_t)(iw - base[kb]);
        hits[kb] = (uint16_t)(hits[kb] | (1u << l));
      }
    }
  c.base = base.data();
  c.rel = rel.data();
  c.hits = hits.data();
  const int64_t rows = p.N * p.group * c.tiles * p.OH;
  parallelFor(0, rows, 1, [&](int64_t lo, int64_t hi) {
    std::vector<float> work((size_t)(kCtTile * c.m * 16));
    std::vector<int64_t> ihOf((size_t)p.KH);
    for (int64_t r = lo; r < hi; ++r)
      ctRow(c, r, work.data(), ihOf.data());
  });
  return true;
}
#endif

thread_local std::vector<float> tlsCol;

/// Shared driver. `wg(g)` returns group g's weights as a dense
/// [Cout_g][K] row-major matrix.
template <class WeightsOf>
void convViaGemm(const plumb_conv2d_params &p, const float *X,
                 const float *bias, float *Y, int64_t block, bool transpose,
                 const plumb_rt_epilogue *ep, WeightsOf wg) {
  const int64_t Cg = p.Cin / p.group, Mg = p.Cout / p.group;
  const int64_t K = Cg * p.KH * p.KW, P = p.OH * p.OW;
  if (P == 0 || Mg == 0)
    return;
  if (ep && !ep->fn)
    ep = nullptr;
#if PLUMB_CONV_X86
  if (!transpose && depthwiseBlocked(p, X, wg(0), bias, Y, block, ep))
    return;
  if (!transpose && depthwiseDirect(p, X, wg(0), bias, Y, block, ep))
    return;
  if (!transpose && smallDirect(p, X, wg(0), bias, Y, block, ep))
    return;
#endif
  // 1x1, stride 1, no padding: the input itself is the column matrix.
  const bool direct = !transpose && p.KH == 1 && p.KW == 1 &&
                      p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
                      p.pad_left == 0 && p.OH == p.H && p.OW == p.W;
  // Explicit column matrix only for ConvTranspose and one-channel groups.
  const bool explicitCol = !direct && (transpose || Mg == 1);
  std::vector<float> &col = tlsCol;
  if (explicitCol && col.size() < static_cast<size_t>(K * P))
    col.resize(static_cast<size_t>(K * P));
  std::vector<int64_t> owLo, owHi;
  validColumns(p.W, p.OW, p.KW, p.stride_w, p.dilation_w, p.pad_left, owLo,
               owHi);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t g = 0; g < p.group; ++g) {
      const float *Xg = X + (n * p.Cin + g * Cg) * p.H * p.W;
      const float *A = wg(g);
      if (Mg == 1) {
        const float *B;
        if (direct) {
          B = Xg;
        } else {
          im2col(p, X, n, g, transpose, col.data());
          B = col.data();
        }
        // One output channel per group (depthwise): a row product, SIMD
        // over output positions; same per-element operations as the GEMM.
        float *y = Y + (n * p.Cout + g) * P;
        const float bv = bias ? bias[g] : 0.0f;
        const detail::ColDotFn fn = detail::colDotFor(plumb_rt_gemm_active_isa());
        const int64_t work = 16 * treeChunks(K, block);
        parallelFor(0, (P + 15) / 16, std::max<int64_t>(1, 4096 / std::max<int64_t>(K, 1)),
                    [&](int64_t lo, int64_t hi) {
          std::vector<float> scratch(static_cast<size_t>(work));
          const int64_t p0 = lo * 16, p1 = std::min(P, hi * 16);
          fn(A, B + p0, K, p1 - p0, P, block, y + p0, scratch.data());
          for (int64_t e = p0; e < p1; ++e)
            y[e] = canonicalNaN(bias ? y[e] + bv : y[e]);
          if (ep)
            ep->fn(ep->ctx, y + p0, n, g, p0, p1 - p0);
        });
        continue;
      }
      detail::GemmMatrixB mat{nullptr, P, 1};
      ConvPackCtx pc{&p, Xg, Cg, owLo.data(), owHi.data()};
      detail::GemmBPacker pk{detail::packMatrixB, &mat};
      if (direct) {
        mat.B = Xg;
      } else if (transpose) {
        im2col(p, X, n, g, transpose, col.data());
        mat.B = col.data();
      } else {
        pk = {packConvB, &pc};
#if PLUMB_CONV_X86
        if (plumb_rt_gemm_active_isa() >= detail::kIsaAvx512 &&
            __builtin_cpu_supports("bmi2"))
          pk = {packConvBAvx512, &pc};
#endif
      }
      float *Yg = Y + (n * p.Cout + g * Mg) * P;
      const detail::GemmEpilogue epi{1.0f, 1.0f,
                                     bias ? bias + g * Mg : nullptr, 1, 0};
      ConvHookCtx hc{ep, Yg, n, g * Mg, P, p.Cout};
      const detail::GemmRowHook hook{convRowHook, &hc};
      detail::gemmDriver(Mg, P, K, A, K, 1, pk, epi, Yg, P, block,
                         ep ? &hook : nullptr);
    }
}

bool validNd(const plumb_convnd_params *p) {
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

/// The 2-D geometry of a 1- or 2-spatial-dim plumb_convnd_params (1-D is
/// H = KH = OH = 1, as plumb_rt_conv_transpose1d).
plumb_conv2d_params as2d(const plumb_convnd_params &p) {
  if (p.spatial == 1)
    return {p.N, p.Cin, 1, p.in[0], p.Cout, 1, p.kernel[0], 1, p.out[0],
            p.group, 1, p.stride[0], 1, p.dilation[0], 0, p.pad_begin[0], 0,
            p.pad_end[0]};
  return {p.N,         p.Cin,          p.in[0],        p.in[1],
          p.Cout,      p.kernel[0],    p.kernel[1],    p.out[0],
          p.out[1],    p.group,        p.stride[0],    p.stride[1],
          p.dilation[0], p.dilation[1], p.pad_begin[0], p.pad_begin[1],
          p.pad_end[0], p.pad_end[1]};
}

int64_t prodOf(const int64_t *v, int64_t n) {
  int64_t r = 1;
  for (int64_t j = 0; j < n; ++j)
    r *= v[j];
  return r;
}

/// Offset (within one input channel) of the input element feeding output
/// position o[] through kernel tap k[] of an N-d ConvTranspose, or -1 when
/// some dimension does not hit.
int64_t convTransposeNdOffset(const plumb_convnd_params &p, const int64_t *o,
                              const int64_t *k) {
  int64_t off = 0;
  for (int64_t j = 0; j < p.spatial; ++j) {
    const int64_t i = convTransposeInputPos(o[j], k[j], p.stride[j],
                                            p.dilation[j], p.pad_begin[j],
                                            p.in[j]);
    if (i < 0)
      return -1;
    off = off * p.in[j] + i;
  }
  return off;
}

/// Row-major increment of the multi-index idx[0..d) over dims[0..d).
void nextIndex(int64_t *idx, const int64_t *dims, int64_t d) {
  for (int64_t j = d - 1; j >= 0; --j) {
    if (++idx[j] < dims[j])
      return;
    idx[j] = 0;
  }
}

/// The column matrix col[k][q] of one (image, group) of an N-d Conv or
/// ConvTranspose: k = (ci, k_0..k_{d-1}), q = output position (both
/// row-major), the input element `offset` names for that tap and position,
/// or +0.0 where it names none.
template <typename OffsetFn>
void fillColumnsNd(const plumb_convnd_params &p, const float *Xg, float *col,
                   OffsetFn offset) {
  const int64_t d = p.spatial;
  const int64_t KK = prodOf(p.kernel, d), K = (p.Cin / p.group) * KK;
  const int64_t P = prodOf(p.out, d), IN = prodOf(p.in, d);
  parallelFor(0, K, std::max<int64_t>(1, 16384 / P),
              [&](int64_t lo, int64_t hi) {
    int64_t kidx[PLUMB_CONV_MAX_SPATIAL], o[PLUMB_CONV_MAX_SPATIAL];
    for (int64_t k = lo; k < hi; ++k) {
      int64_t r = k % KK;
      for (int64_t j = d - 1; j >= 0; --j) {
        kidx[j] = r % p.kernel[j];
        r /= p.kernel[j];
      }
      const float *xc = Xg + (k / KK) * IN;
      float *dst = col + k * P;
      for (int64_t j = 0; j < d; ++j)
        o[j] = 0;
      for (int64_t q = 0; q < P; ++q) {
        const int64_t off = offset(p, o, kidx);
        dst[q] = off < 0 ? 0.0f : xc[off];
        nextIndex(o, p.out, d);
      }
    }
  });
}

/// N-d ConvTranspose as the 2-D one: an explicit column matrix
/// col[k][p] (k = (ci, k_0..k_{d-1}), p = output position, both row-major)
/// and the deterministic GEMM per (image, group).
void convTransposeNdViaGemm(const plumb_convnd_params &p, const float *X,
                            const float *Wt, const float *bias, float *Y,
                            int64_t block) {
  const int64_t d = p.spatial;
  const int64_t Cg = p.Cin / p.group, Mg = p.Cout / p.group;
  const int64_t KK = prodOf(p.kernel, d), K = Cg * KK;
  const int64_t P = prodOf(p.out, d), IN = prodOf(p.in, d);
  if (P == 0 || Mg == 0)
    return;
  std::vector<float> wg(static_cast<size_t>(Mg * K));
  std::vector<float> &col = tlsCol;
  if (col.size() < static_cast<size_t>(K * P))
    col.resize(static_cast<size_t>(K * P));
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t g = 0; g < p.group; ++g) {
      // Regroup W [Cin, Cout_g, kernel...] into [Cout_g][(ci, kernel...)].
      for (int64_t m = 0; m < Mg; ++m)
        for (int64_t ci = 0; ci < Cg; ++ci)
          memcpy(&wg[m * K + ci * KK], Wt + ((g * Cg + ci) * Mg + m) * KK,
                 sizeof(float) * KK);
      const float *Xg = X + (n * p.Cin + g * Cg) * IN;
      fillColumnsNd(p, Xg, col.data(), convTransposeNdOffset);
      detail::GemmMatrixB mat{col.data(), P, 1};
      const detail::GemmBPacker pk{detail::packMatrixB, &mat};
      const detail::GemmEpilogue epi{1.0f, 1.0f,
                                     bias ? bias + g * Mg : nullptr, 1, 0};
      detail::gemmDriver(Mg, P, K, wg.data(), K, 1, pk, epi,
                         Y + (n * p.Cout + g * Mg) * P, P, block, nullptr);
    }
}

/// Offset (within one input channel) of the input element read by output
/// position o[] through kernel tap k[] of an N-d Conv, or -1 when some
/// dimension falls into the padding.
int64_t convNdOffset(const plumb_convnd_params &p, const int64_t *o,
                     const int64_t *k) {
  int64_t off = 0;
  for (int64_t j = 0; j < p.spatial; ++j) {
    const int64_t i = convInputPos(o[j], k[j], p.stride[j], p.dilation[j],
                                   p.pad_begin[j], p.in[j]);
    if (i < 0)
      return -1;
    off = off * p.in[j] + i;
  }
  return off;
}

/// Implicit column matrix of a 3-D conv (no column matrix is built): packs
/// columns [n0, n0 + cols) of col[k][p] of one (image, group), k = (ci, kd,
/// kh, kw), p = (od, oh, ow), the values fillColumnsNd would store there,
/// in runs of consecutive ow as packConvB.
struct Conv3dPackCtx {
  const plumb_convnd_params *p;
  const float *Xg;
  int64_t Cg;
  const int64_t *owLo, *owHi; // per kw: valid ow range [lo, hi)
};

template <class CopyRun>
__attribute__((always_inline)) inline void
packConv3dBImpl(const void *vctx, int64_t n0, int64_t cols, int64_t K, int nrw,
                float *d, const CopyRun &copyRun) {
  const Conv3dPackCtx &c = *static_cast<const Conv3dPackCtx *>(vctx);
  const plumb_convnd_params &p = *c.p;
  const int64_t OD = p.out[0], OH = p.out[1], OW = p.out[2];
  const int64_t D = p.in[0], H = p.in[1], W = p.in[2];
  (void)OD;
  struct Run {
    int64_t j0, len, od, oh, ow0;
  };
  Run runs[64];
  int nruns = 0;
  for (int64_t j = 0; j < cols;) {
    const int64_t e = n0 + j, plane = e / OW, ow0 = e % OW;
    const int64_t len = std::min<int64_t>(cols - j, OW - ow0);
    runs[nruns++] = {j, len, plane / OH, plane % OH, ow0};
    j += len;
  }
  const int64_t DHW = D * H * W, sw = p.stride[2];
  int64_t k = 0;
  for (int64_t ci = 0; ci < c.Cg && k < K; ++ci) {
    const float *xc = c.Xg + ci * DHW;
    for (int64_t kd = 0; kd < p.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < p.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < p.kernel[2]; ++kw, ++k) {
          float *dk = d + k * nrw;
          const int64_t off = kw * p.dilation[2] - p.pad_begin[2];
          for (int r = 0; r < nruns; ++r) {
            const Run &ru = runs[r];
            float *dr = dk + ru.j0;
            const int64_t id =
                ru.od * p.stride[0] - p.pad_begin[0] + kd * p.dilation[0];
            const int64_t ih =
                ru.oh * p.stride[1] - p.pad_begin[1] + kh * p.dilation[1];
            if (id < 0 || id >= D || ih < 0 || ih >= H) {
              for (int64_t t = 0; t < ru.len; ++t)
                dr[t] = 0.0f;
              continue;
            }
            const float *xr = xc + (id * H + ih) * W + off;
            const int64_t lo =
                std::min(ru.len, std::max<int64_t>(0, c.owLo[kw] - ru.ow0));
            const int64_t hi =
                std::max(lo, std::min(ru.len, c.owHi[kw] - ru.ow0));
            copyRun(dr, xr, ru.ow0, ru.len, lo, hi, sw);
          }
          for (int64_t j = cols; j < nrw; ++j)
            dk[j] = 0.0f;
        }
  }
}

void packConv3dB(const void *vctx, int64_t n0, int64_t cols, int64_t K,
                 int nrw, float *d) {
  packConv3dBImpl(vctx, n0, cols, K, nrw, d, CopyRunScalar());
}

#if PLUMB_CONV_X86
__attribute__((target("avx512f,avx2,fma,bmi2"))) void
packConv3dBAvx512(const void *vctx, int64_t n0, int64_t cols, int64_t K,
                  int nrw, float *d) {
  packConv3dBImpl(vctx, n0, cols, K, nrw, d, CopyRunAvx512());
}
#endif

bool validConvNd(const plumb_convnd_params *p) {
  if (!validNd(p))
    return false;
  for (int64_t j = 0; j < p->spatial; ++j)
    if (p->out[j] != plumb_rt_conv_out_dim(p->in[j], p->kernel[j],
                                           p->stride[j], p->dilation[j],
                                           p->pad_begin[j], p->pad_end[j]))
      return false;
  return true;
}

/// N-d Conv: an explicit column matrix col[k][p] (k = (ci, k_0..k_{d-1}),
/// p = output position, both row-major, +0.0 for padding) and the
/// deterministic GEMM per (image, group) -- the definition in conv.h.
void convNdViaGemm(const plumb_convnd_params &p, const float *X,
                   const float *Wt, const float *bias, float *Y,
                   int64_t block, const plumb_rt_epilogue *ep) {
  const int64_t d = p.spatial;
  const int64_t Cg = p.Cin / p.group, Mg = p.Cout / p.group;
  const int64_t KK = prodOf(p.kernel, d), K = Cg * KK;
  const int64_t P = prodOf(p.out, d), IN = prodOf(p.in, d);
  if (P == 0 || Mg == 0)
    return;
  if (ep && !ep->fn)
    ep = nullptr;
  // Three spatial dims: the column matrix stays implicit (packed sliver by
  // sliver from X, the same values); more dims build it.
  const bool implicit = d == 3;
  std::vector<float> &col = tlsCol;
  if (!implicit && col.size() < static_cast<size_t>(K * P))
    col.resize(static_cast<size_t>(K * P));
  std::vector<int64_t> owLo, owHi;
  if (implicit)
    validColumns(p.in[2], p.out[2], p.kernel[2], p.stride[2], p.dilation[2],
                 p.pad_begin[2], owLo, owHi);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t g = 0; g < p.group; ++g) {
      const float *Xg = X + (n * p.Cin + g * Cg) * IN;
      detail::GemmMatrixB mat{col.data(), P, 1};
      Conv3dPackCtx pc{&p, Xg, Cg, owLo.data(), owHi.data()};
      detail::GemmBPacker pk{detail::packMatrixB, &mat};
      if (implicit) {
        pk = {packConv3dB, &pc};
#if PLUMB_CONV_X86
        if (plumb_rt_gemm_active_isa() >= detail::kIsaAvx512 &&
            __builtin_cpu_supports("bmi2"))
          pk = {packConv3dBAvx512, &pc};
#endif
      } else {
        fillColumnsNd(p, Xg, col.data(), convNdOffset);
      }
      float *Yg = Y + (n * p.Cout + g * Mg) * P;
      const detail::GemmEpilogue epi{1.0f, 1.0f,
                                     bias ? bias + g * Mg : nullptr, 1, 0};
      ConvHookCtx hc{ep, Yg, n, g * Mg, P, p.Cout};
      const detail::GemmRowHook hook{convRowHook, &hc};
      detail::gemmDriver(Mg, P, K, Wt + g * Mg * K, K, 1, pk, epi, Yg, P,
                         block, ep ? &hook : nullptr);
    }
}

} // namespace

extern "C" {

int64_t plumb_rt_conv_out_dim(int64_t in, int64_t k, int64_t stride,
                              int64_t dilation, int64_t pad_begin,
                              int64_t pad_end) {
  const int64_t span = in + pad_begin + pad_end - ((k - 1) * dilation + 1);
  if (span < 0)
    return 0;
  return span / stride + 1;
}

int plumb_rt_conv2d(const plumb_conv2d_params *p, const float *X,
                    const float *Wt, const float *bias, float *Y,
                    int64_t block) {
  return plumb_rt_conv2d_ep(p, X, Wt, bias, Y, block, nullptr);
}

int plumb_rt_conv2d_ep(const plumb_conv2d_params *p, const float *X,
                       const float *Wt, const float *bias, float *Y,
                       int64_t block, const plumb_rt_epilogue *ep) {
  if (!validParams(p) ||
      p->OH != plumb_rt_conv_out_dim(p->H, p->KH, p->stride_h, p->dilation_h,
                                     p->pad_top, p->pad_bottom) ||
      p->OW != plumb_rt_conv_out_dim(p->W, p->KW, p->stride_w, p->dilation_w,
                                     p->pad_left, p->pad_right))
    return -1;
  const int64_t K = (p->Cin / p->group) * p->KH * p->KW;
  const int64_t Mg = p->Cout / p->group;
  convViaGemm(*p, X, bias, Y, block, false, ep,
              [&](int64_t g) { return Wt + g * Mg * K; });
  return 0;
}

int plumb_rt_conv2d_reference(const plumb_conv2d_params *p, const float *X,
                              const float *Wt, const float *bias, float *Y,
                              int64_t block) {
  if (!validParams(p))
    return -1;
  const int64_t Cg = p->Cin / p->group, Mg = p->Cout / p->group;
  const int64_t K = Cg * p->KH * p->KW;
  std::vector<float> xs(K + 1), scratch(treeChunks(K, block) + 1);
  for (int64_t n = 0; n < p->N; ++n)
    for (int64_t co = 0; co < p->Cout; ++co) {
      const int64_t g = co / Mg;
      for (int64_t oh = 0; oh < p->OH; ++oh)
        for (int64_t ow = 0; ow < p->OW; ++ow) {
          int64_t k = 0;
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t kh = 0; kh < p->KH; ++kh)
              for (int64_t kw = 0; kw < p->KW; ++kw, ++k) {
                int64_t ih = convInputPos(oh, kh, p->stride_h, p->dilation_h,
                                          p->pad_top, p->H);
                int64_t iw = convInputPos(ow, kw, p->stride_w, p->dilation_w,
                                          p->pad_left, p->W);
                xs[k] = (ih < 0 || iw < 0)
                            ? 0.0f
                            : X[((n * p->Cin + g * Cg + ci) * p->H + ih) * p->W +
                                iw];
              }
          float dot = treeDot(xs.data(), 1, Wt + co * K, 1, K, block,
                              scratch.data());
          float y = bias ? dot + bias[co] : dot;
          Y[((n * p->Cout + co) * p->OH + oh) * p->OW + ow] = canonicalNaN(y);
        }
    }
  return 0;
}

int plumb_rt_conv1d(int64_t N, int64_t Cin, int64_t L, int64_t Cout,
                    int64_t K, int64_t group, int64_t stride,
                    int64_t dilation, int64_t pad_begin, int64_t pad_end,
                    const float *X, const float *Wt, const float *bias,
                    float *Y, int64_t block) {
  return plumb_rt_conv1d_ep(N, Cin, L, Cout, K, group, stride, dilation,
                            pad_begin, pad_end, X, Wt, bias, Y, block,
                            nullptr);
}

int plumb_rt_conv1d_ep(int64_t N, int64_t Cin, int64_t L, int64_t Cout,
                       int64_t K, int64_t group, int64_t stride,
                       int64_t dilation, int64_t pad_begin, int64_t pad_end,
                       const float *X, const float *Wt, const float *bias,
                       float *Y, int64_t block, const plumb_rt_epilogue *ep) {
  plumb_conv2d_params p = {N, Cin, 1, L, Cout, 1, K, 1,
                           plumb_rt_conv_out_dim(L, K, stride, dilation,
                                                 pad_begin, pad_end),
                           group, 1, stride, 1, dilation, 0, pad_begin, 0,
                           pad_end};
  return plumb_rt_conv2d_ep(&p, X, Wt, bias, Y, block, ep);
}

int plumb_rt_conv_transpose2d(const plumb_conv2d_params *p, const float *X,
                              const float *Wt, const float *bias, float *Y,
                              int64_t block) {
  if (!validParams(p))
    return -1;
#if PLUMB_CONV_X86
  if (convTransposeDirect(*p, X, Wt, bias, Y, block))
    return 0;
#endif
  const int64_t Cg = p->Cin / p->group, Mg = p->Cout / p->group;
  const int64_t KK = p->KH * p->KW, K = Cg * KK;
  // Regroup W [Cin, Cout_g, KH, KW] into per-group [Cout_g][(ci, kh, kw)].
  std::vector<float> wg(static_cast<size_t>(Mg * K));
  convViaGemm(*p, X, bias, Y, block, true, nullptr, [&](int64_t g) {
    for (int64_t m = 0; m < Mg; ++m)
      for (int64_t ci = 0; ci < Cg; ++ci)
        memcpy(&wg[m * K + ci * KK], Wt + ((g * Cg + ci) * Mg + m) * KK,
               sizeof(float) * KK);
    return static_cast<const float *>(wg.data());
  });
  return 0;
}

int plumb_rt_conv_transpose2d_reference(const plumb_conv2d_params *p,
                                        const float *X, const float *Wt,
                                        const float *bias, float *Y,
                                        int64_t block) {
  if (!validParams(p))
    return -1;
  const int64_t Cg = p->Cin / p->group, Mg = p->Cout / p->group;
  const int64_t KK = p->KH * p->KW, K = Cg * KK;
  std::vector<float> xs(K + 1), ws(K + 1), scratch(treeChunks(K, block) + 1);
  for (int64_t n = 0; n < p->N; ++n)
    for (int64_t co = 0; co < p->Cout; ++co) {
      const int64_t g = co / Mg, m = co % Mg;
      for (int64_t oh = 0; oh < p->OH; ++oh)
        for (int64_t ow = 0; ow < p->OW; ++ow) {
          int64_t k = 0;
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t kh = 0; kh < p->KH; ++kh)
              for (int64_t kw = 0; kw < p->KW; ++kw, ++k) {
                int64_t ih = convTransposeInputPos(oh, kh, p->stride_h,
                                                   p->dilation_h, p->pad_top,
                                                   p->H);
                int64_t iw = convTransposeInputPos(ow, kw, p->stride_w,
                                                   p->dilation_w, p->pad_left,
                                                   p->W);
                const int64_t c = g * Cg + ci;
                xs[k] = (ih < 0 || iw < 0)
                            ? 0.0f
                            : X[((n * p->Cin + c) * p->H + ih) * p->W + iw];
                ws[k] = Wt[((c * Mg + m) * p->KH + kh) * p->KW + kw];
              }
          float dot = treeDot(xs.data(), 1, ws.data(), 1, K, block,
                              scratch.data());
          float y = bias ? dot + bias[co] : dot;
          Y[((n * p->Cout + co) * p->OH + oh) * p->OW + ow] = canonicalNaN(y);
        }
    }
  return 0;
}

int plumb_rt_conv_transpose1d(int64_t N, int64_t Cin, int64_t L,
                              int64_t Cout, int64_t K, int64_t OL,
                              int64_t group, int64_t stride, int64_t dilation,
                              int64_t pad_begin, int64_t pad_end,
                              const float *X, const float *Wt,
                              const float *bias, float *Y, int64_t block) {
  plumb_conv2d_params p = {N,     Cin,    1, L, Cout,     1,        K,
                           1,     OL,     group, 1, stride, 1, dilation,
                           0,     pad_begin, 0, pad_end};
  return plumb_rt_conv_transpose2d(&p, X, Wt, bias, Y, block);
}

int plumb_rt_conv_transpose_nd(const plumb_convnd_params *p, const float *X,
                               const float *Wt, const float *bias, float *Y,
                               int64_t block) {
  if (!validNd(p))
    return -1;
  if (p->spatial <= 2) {
    const plumb_conv2d_params q = as2d(*p);
    return plumb_rt_conv_transpose2d(&q, X, Wt, bias, Y, block);
  }
  convTransposeNdViaGemm(*p, X, Wt, bias, Y, block);
  return 0;
}

int plumb_rt_conv_transpose_nd_reference(const plumb_convnd_params *p,
                                         const float *X, const float *Wt,
                                         const float *bias, float *Y,
                                         int64_t block) {
  if (!validNd(p))
    return -1;
  const int64_t d = p->spatial;
  const int64_t Cg = p->Cin / p->group, Mg = p->Cout / p->group;
  const int64_t KK = prodOf(p->kernel, d), K = Cg * KK;
  const int64_t P = prodOf(p->out, d), IN = prodOf(p->in, d);
  std::vector<float> xs(K + 1), ws(K + 1), scratch(treeChunks(K, block) + 1);
  int64_t o[PLUMB_CONV_MAX_SPATIAL], kidx[PLUMB_CONV_MAX_SPATIAL];
  for (int64_t n = 0; n < p->N; ++n)
    for (int64_t co = 0; co < p->Cout; ++co) {
      const int64_t g = co / Mg, m = co % Mg;
      for (int64_t j = 0; j < d; ++j)
        o[j] = 0;
      for (int64_t q = 0; q < P; ++q, nextIndex(o, p->out, d)) {
        int64_t k = 0;
        for (int64_t ci = 0; ci < Cg; ++ci) {
          const int64_t c = g * Cg + ci;
          for (int64_t j = 0; j < d; ++j)
            kidx[j] = 0;
          for (int64_t t = 0; t < KK; ++t, ++k, nextIndex(kidx, p->kernel, d)) {
            const int64_t off = convTransposeNdOffset(*p, o, kidx);
            xs[k] = off < 0 ? 0.0f : X[(n * p->Cin + c) * IN + off];
            ws[k] = Wt[(c * Mg + m) * KK + t];
          }
        }
        float dot = treeDot(xs.data(), 1, ws.data(), 1, K, block,
                            scratch.data());
        float y = bias ? dot + bias[co] : dot;
        Y[(n * p->Cout + co) * P + q] = canonicalNaN(y);
      }
    }
  return 0;
}

int plumb_rt_conv_nd(const plumb_convnd_params *p, const float *X,
                     const float *Wt, const float *bias, float *Y,
                     int64_t block) {
  return plumb_rt_conv_nd_ep(p, X, Wt, bias, Y, block, nullptr);
}

int plumb_rt_conv_nd_ep(const plumb_convnd_params *p, const float *X,
                        const float *Wt, const float *bias, float *Y,
                        int64_t block, const plumb_rt_epilogue *ep) {
  if (!validConvNd(p))
    return -1;
  if (p->spatial <= 2) {
    const plumb_conv2d_params q = as2d(*p);
    return plumb_rt_conv2d_ep(&q, X, Wt, bias, Y, block, ep);
  }
  convNdViaGemm(*p, X, Wt, bias, Y, block, ep);
  return 0;
}

int plumb_rt_conv_nd_reference(const plumb_convnd_params *p, const float *X,
                               const float *Wt, const float *bias, float *Y,
                               int64_t block) {
  if (!validConvNd(p))
    return -1;
  const int64_t d = p->spatial;
  const int64_t Cg = p->Cin / p->group;
  const int64_t KK = prodOf(p->kernel, d), K = Cg * KK;
  const int64_t P = prodOf(p->out, d), IN = prodOf(p->in, d);
  const int64_t Mg = p->Cout / p->group;
  std::vector<float> xs(K + 1), scratch(treeChunks(K, block) + 1);
  int64_t o[PLUMB_CONV_MAX_SPATIAL], kidx[PLUMB_CONV_MAX_SPATIAL];
  for (int64_t n = 0; n < p->N; ++n)
    for (int64_t co = 0; co < p->Cout; ++co) {
      const int64_t g = co / Mg;
      for (int64_t j = 0; j < d; ++j)
        o[j] = 0;
      for (int64_t q = 0; q < P; ++q, nextIndex(o, p->out, d)) {
        int64_t k = 0;
        for (int64_t ci = 0; ci < Cg; ++ci) {
          const int64_t c = g * Cg + ci;
          for (int64_t j = 0; j < d; ++j)
            kidx[j] = 0;
          for (int64_t t = 0; t < KK; ++t, ++k, nextIndex(kidx, p->kernel, d)) {
            const int64_t off = convNdOffset(*p, o, kidx);
            xs[k] = off < 0 ? 0.0f : X[(n * p->Cin + c) * IN + off];
          }
        }
        float dot = treeDot(xs.data(), 1, Wt + co * K, 1, K, block,
                            scratch.data());
        float y = bias ? dot + bias[co] : dot;
        Y[(n * p->Cout + co) * P + q] = canonicalNaN(y);
      }
    }
  return 0;
}

} // extern "C"
