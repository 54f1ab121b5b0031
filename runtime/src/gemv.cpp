//===- runtime/src/gemv.cpp - Dot products of one vector, packed weights -===//
//
// Part of Plumb. See gemv.h; also the packed GEMV entry points of gemm.h.
//
//===----------------------------------------------------------------------===//
#include "gemv.h"

#include "ops_internal.h"
#include "plumb/runtime/gemm.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace plumb {
namespace rt {
namespace detail {

using ::plumb::rt::fma_rn;
using ::plumb::rt::ops::cpuHasFma;

namespace {
/// One chunk [lo, hi) of every output of panel p (the first `jn` lanes):
/// dst[j] = the chunk's sequential fmaf sum from -0.0. Portable form.
PLUMB_INLINE void chunkDotsBody(const float *v, const float *WT, int64_t n,
                                int64_t p, int64_t jn, int64_t lo, int64_t hi,
                                float *dst) {
  float acc[kPanel];
  for (int64_t j = 0; j < kPanel; ++j)
    acc[j] = -0.0f;
  const float *w = WT + (p * n + lo) * kPanel;
  for (int64_t k = lo; k < hi; ++k, w += kPanel) {
    const float vk = v[k];
    for (int64_t j = 0; j < kPanel; ++j)
      acc[j] = fma_rn(vk, w[j], acc[j]);
  }
  for (int64_t j = 0; j < jn; ++j)
    dst[j] = acc[j];
}

PLUMB_OPS_TGT_FMA void chunkDotsFma(const float *v, const float *WT, int64_t n,
                                    int64_t p, int64_t jn, int64_t lo,
                                    int64_t hi, float *dst) {
  chunkDotsBody(v, WT, n, p, jn, lo, hi, dst);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLUMB_RNN_AVX512 1
/// chunkDotsBody on 8 AVX-512 vectors: the same fmaf per lane
/// (vfmadd231ps is the correctly rounded fused multiply-add).
__attribute__((target("avx512f,fma"))) void
chunkDotsAvx512(const float *v, const float *WT, int64_t n, int64_t p,
                int64_t jn, int64_t lo, int64_t hi, float *dst) {
  __m512 a[8];
  for (int i = 0; i < 8; ++i)
    a[i] = _mm512_set1_ps(-0.0f);
  const float *w = WT + (p * n + lo) * kPanel;
  for (int64_t k = lo; k < hi; ++k, w += kPanel) {
    const __m512 vk = _mm512_set1_ps(v[k]);
    for (int i = 0; i < 8; ++i)
      a[i] = _mm512_fmadd_ps(vk, _mm512_loadu_ps(w + 16 * i), a[i]);
  }
  for (int i = 0; i < 8; ++i) {
    const int64_t lanes = jn - 16 * i;
    if (lanes >= 16)
      _mm512_storeu_ps(dst + 16 * i, a[i]);
    else if (lanes > 0)
      _mm512_mask_storeu_ps(dst + 16 * i, (__mmask16)((1u << lanes) - 1), a[i]);
  }
}

bool haveAvx512() {
  static const bool ok = __builtin_cpu_supports("avx512f") &&
                         __builtin_cpu_supports("fma");
  return ok;
}
#else
#define PLUMB_RNN_AVX512 0
#endif

void chunkDots(const float *v, const float *WT, int64_t n, int64_t p,
               int64_t jn, int64_t lo, int64_t hi, float *dst) {
#if PLUMB_RNN_AVX512
  if (haveAvx512()) {
    chunkDotsAvx512(v, WT, n, p, jn, lo, hi, dst);
    return;
  }
#endif
  if (cpuHasFma())
    chunkDotsFma(v, WT, n, p, jn, lo, hi, dst);
  else
    chunkDotsBody(v, WT, n, p, jn, lo, hi, dst);
}

} // namespace

void packPanels(const float *W, int64_t g_s, int64_t k_s, int64_t rows,
                int64_t n, float *WT) {
  const int64_t panels = (rows + kPanel - 1) / kPanel;
  ops::parallelRange(panels, 1, [&](int64_t plo, int64_t phi) {
    for (int64_t p = plo; p < phi; ++p) {
      const int64_t jn = rows - p * kPanel < kPanel ? rows - p * kPanel : kPanel;
      float *panel = WT + p * n * kPanel;
      if (jn < kPanel)
        memset(panel, 0, sizeof(float) * (size_t)(n * kPanel));
      if (k_s == 1) {
        // Rows are contiguous: blocks of 8 k per row, written within a
        // small (8 x kPanel) window.
        for (int64_t k0 = 0; k0 < n; k0 += 8) {
          const int64_t kn = n - k0 < 8 ? n - k0 : 8;
          float *d = panel + k0 * kPanel;
          for (int64_t j = 0; j < jn; ++j) {
            const float *src = W + (p * kPanel + j) * g_s + k0;
            for (int64_t kk = 0; kk < kn; ++kk)
              d[kk * kPanel + j] = src[kk];
          }
        }
      } else {
        for (int64_t k = 0; k < n; ++k)
          for (int64_t j = 0; j < jn; ++j)
            panel[k * kPanel + j] = W[(p * kPanel + j) * g_s + k * k_s];
      }
    }
  });
}

void packTransposed(const float *W, int64_t rows, int64_t n,
                    std::vector<float> &WT) {
  WT.resize((size_t)packedFloats(rows, n));
  packPanels(W, n, 1, rows, n, WT.data());
}

/// out[g] = treeDot(v, W[g, :], n, block) for g in [g0, g1), from WT
/// (packTransposed of W [rows x n]); only those outputs are written.
/// `partials` holds treeChunks(n, block) * kPanel floats.
void packedDots(const float *v, const float *WT, int64_t rows, int64_t n,
                int64_t block, int64_t g0, int64_t g1, float *out,
                float *partials) {
  const int64_t m = ::plumb::rt::treeChunks(n, block);
  float panel[kPanel];
  for (int64_t p = g0 / kPanel; p * kPanel < g1; ++p) {
    const int64_t base = p * kPanel;
    const int64_t jn = rows - base < kPanel ? rows - base : kPanel;
    if (m == 1) {
      chunkDots(v, WT, n, p, jn, 0, n, panel);
    } else {
      for (int64_t c = 0; c < m; ++c) {
        const int64_t lo = c * block, hi = lo + block < n ? lo + block : n;
        chunkDots(v, WT, n, p, jn, lo, hi, partials + c * kPanel);
      }
      // treeCombine per output, on the panel's outputs at once: the same
      // additions in the same order.
      int64_t pw = 1, len = m;
      while (pw < m)
        pw <<= 1;
      for (int64_t st = pw >> 1; st >= 1; st >>= 1) {
        for (int64_t i = 0; i < st; ++i)
          if (i + st < len) {
            float *a = partials + i * kPanel;
            const float *b = partials + (i + st) * kPanel;
            for (int64_t j = 0; j < jn; ++j)
              a[j] = a[j] + b[j];
          }
        if (len > st)
          len = st;
      }
      for (int64_t j = 0; j < jn; ++j)
        panel[j] = partials[j];
    }
    const int64_t lo = g0 > base ? g0 : base;
    const int64_t hi = g1 < base + jn ? g1 : base + jn;
    for (int64_t g = lo; g < hi; ++g)
      out[g] = panel[g - base];
  }
}

} // namespace detail
} // namespace rt
} // namespace plumb

extern "C" {

int64_t plumb_rt_gemv_packed_size(int64_t N, int64_t K) {
  if (N < 0 || K < 0)
    return -1;
  return plumb::rt::detail::packedFloats(N, K > 0 ? K : 1);
}

int plumb_rt_gemv_pack(int64_t N, int64_t K, const float *B, int64_t b_rs,
                       int64_t b_cs, float *packed) {
  if (N < 0 || K < 0 || ((N > 0 && K > 0) && (!B || !packed)))
    return PLUMB_RT_EINVAL;
  if (N == 0 || K == 0)
    return PLUMB_RT_OK;
  // Output n is row n of the packed matrix: its terms B(k, n).
  plumb::rt::detail::packPanels(B, b_cs, b_rs, N, K, packed);
  return PLUMB_RT_OK;
}

int plumb_rt_gemv_packed(int64_t N, int64_t K, float alpha, const float *A,
                         int64_t a_cs, const float *packed, float beta,
                         const float *C, int64_t c_cs, float *Y,
                         int64_t block) {
  if (N < 0 || K < 0 || (N > 0 && !Y) || (N > 0 && K > 0 && (!A || !packed)))
    return PLUMB_RT_EINVAL;
  if (N == 0)
    return PLUMB_RT_OK;
  if (block < 0)
    block = 0;
  std::vector<float> av;
  const float *a = A;
  if (a_cs != 1 && K > 0) {
    av.resize((size_t)K);
    for (int64_t k = 0; k < K; ++k)
      av[(size_t)k] = A[k * a_cs];
    a = av.data();
  }
  using namespace plumb::rt;
  using namespace plumb::rt::detail;
  const int64_t m = treeChunks(K, block), panels = (N + kPanel - 1) / kPanel;
  const int64_t Kp = K > 0 ? K : 1;
  ops::parallelRange(panels, 1 + 2097152 / (kPanel * Kp), [&](int64_t lo,
                                                              int64_t hi) {
    std::vector<float> partials((size_t)(m > 1 ? m * kPanel : 0));
    float dots[kPanel];
    for (int64_t p = lo; p < hi; ++p) {
      const int64_t g0 = p * kPanel, g1 = g0 + kPanel < N ? g0 + kPanel : N;
      if (K > 0) {
        packedDots(a, packed, N, K, block, g0, g1, dots - g0, partials.data());
      } else {
        for (int64_t g = g0; g < g1; ++g)
          dots[g - g0] = -0.0f;
      }
      for (int64_t n = g0; n < g1; ++n) {
        const float *c = C ? C + n * c_cs : nullptr;
        Y[n] = canonicalNaN(gemmEpilogue(dots[n - g0], alpha, beta, c));
      }
    }
  });
  return PLUMB_RT_OK;
}

} // extern "C"
