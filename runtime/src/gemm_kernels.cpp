//===- runtime/src/gemm_kernels.cpp - GEMM microkernels --------*- C++ -*-===//
//
// Part of Plumb. Register-blocked microkernels for the deterministic GEMM:
// a portable scalar kernel, AVX2+FMA (6x16) and AVX-512F (12x32), selected at
// run time. All of them compute, per output lane, exactly the treeDot
// operation sequence (see gemm_kernels.h): the SIMD lanes run over output
// columns, never over k, and every multiply-add is an explicit single-rounding
// fma (fmaf / _mm256_fmadd_ps / _mm512_fmadd_ps), so the ISA changes only
// speed.
//
//===----------------------------------------------------------------------===//
#include "gemm_kernels.h"

#include "plumb/runtime/tree.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLUMB_GEMM_X86 1
#include <immintrin.h>
#define PLUMB_TGT_AVX2 __attribute__((target("avx2,fma")))
#define PLUMB_TGT_AVX512 __attribute__((target("avx512f,avx2,fma")))
#else
#define PLUMB_GEMM_X86 0
#endif

namespace plumb {
namespace rt {
namespace detail {
namespace {

using ChunkFn = void (*)(const float *a, const float *b, int64_t len,
                         float *dst);
using AddFn = void (*)(const float *l, float *r, int n);

//===----------------------------------------------------------------------===//
// Tree driver: visits the chunks in bit-reversed order and merges them with a
// binary counter. With P = 2^L >= m leaves, treeCombine's stride-halving tree
// is the adjacent-pairs tree over the leaves permuted by L-bit reversal:
// its root is T(even chunks) + T(odd chunks), recursively. Padding leaves
// (chunk index >= m) are never materialised: a node with a padding right
// child takes its left child's value (x + -0.0 == x), a node whose children
// are both padding is padding. The left child of a real node is always real
// (its chunk indices are the smaller ones), as in treeCombine.
//===----------------------------------------------------------------------===//

inline int ceilLog2(int64_t m) {
  int l = 0;
  while ((int64_t(1) << l) < m)
    ++l;
  return l;
}

inline int64_t bitReverse(int64_t t, int bits) {
  int64_t r = 0;
  for (int i = 0; i < bits; ++i)
    r = (r << 1) | ((t >> i) & 1);
  return r;
}

/// chunkAt(lo, len, dst) evaluates the chunk of terms [lo, lo + len) into
/// the tile dst.
template <class ChunkAt>
inline void treeTileT(ChunkAt chunkAt, AddFn add, int mr, int nr, int64_t K,
                      int64_t block, float *out, float *work) {
  const int64_t m = treeChunks(K, block);
  if (m == 1) {
    chunkAt(int64_t(0), K, out);
    return;
  }
  const int tile = mr * nr;
  const int levels = ceilLog2(m);
  const int64_t p = int64_t(1) << levels;
  // Buffer pool: levels + 2 tiles suffice (one pending node per level plus
  // the node being built).
  float *freeList[66];
  int numFree = 0;
  for (int i = 0; i < levels + 2; ++i)
    freeList[numFree++] = work + static_cast<int64_t>(i) * tile;
  float *slot[66];
  int state[66]; // 0 empty, 1 padding, 2 real
  for (int i = 0; i <= levels; ++i)
    state[i] = 0;

  for (int64_t t = 0; t < p; ++t) {
    const int64_t c = bitReverse(t, levels);
    float *cur = nullptr;
    bool real = c < m;
    if (real) {
      cur = freeList[--numFree];
      const int64_t lo = c * block;
      const int64_t len = (lo + block < K ? block : K - lo);
      chunkAt(lo, len, cur);
    }
    int l = 0;
    while (state[l] != 0) {
      if (state[l] == 2) {
        if (real) {
          add(slot[l], cur, tile); // cur = left + right
          freeList[numFree++] = slot[l];
        } else {
          cur = slot[l]; // left + padding == left
          real = true;
        }
      }
      // Left padding implies right padding: result stays padding.
      state[l] = 0;
      ++l;
    }
    slot[l] = cur;
    state[l] = real ? 2 : 1;
  }
  memcpy(out, slot[levels], sizeof(float) * tile);
}

void treeTile(ChunkFn chunk, AddFn add, int mr, int nr, const float *ap,
              const float *bp, int64_t K, int64_t block, float *out,
              float *work) {
  treeTileT(
      [&](int64_t lo, int64_t len, float *dst) {
        chunk(ap + lo * mr, bp + lo * nr, len, dst);
      },
      add, mr, nr, K, block, out, work);
}

//===----------------------------------------------------------------------===//
// Portable scalar kernel (4 x 8). fma_rn is fmaf: one instruction where the
// target has FMA (aarch64, or x86 built with -mfma), else the correctly
// rounded libm routine; identical results either way.
//===----------------------------------------------------------------------===//

constexpr int kScalarMR = 4, kScalarNR = 8;

void chunkScalar(const float *a, const float *b, int64_t len, float *dst) {
  float acc[kScalarMR][kScalarNR];
  for (int i = 0; i < kScalarMR; ++i)
    for (int j = 0; j < kScalarNR; ++j)
      acc[i][j] = -0.0f;
  for (int64_t k = 0; k < len; ++k) {
    for (int i = 0; i < kScalarMR; ++i) {
      const float ai = a[i];
      for (int j = 0; j < kScalarNR; ++j)
        acc[i][j] = fma_rn(ai, b[j], acc[i][j]);
    }
    a += kScalarMR;
    b += kScalarNR;
  }
  for (int i = 0; i < kScalarMR; ++i)
    for (int j = 0; j < kScalarNR; ++j)
      dst[i * kScalarNR + j] = acc[i][j];
}

void addScalar(const float *l, float *r, int n) {
  for (int i = 0; i < n; ++i)
    r[i] = l[i] + r[i];
}

void tileScalar(const float *ap, const float *bp, int64_t K, int64_t block,
                float *out, float *work) {
  treeTile(chunkScalar, addScalar, kScalarMR, kScalarNR, ap, bp, K, block,
           out, work);
}

#if PLUMB_GEMM_X86
//===----------------------------------------------------------------------===//
// AVX2 + FMA kernel (6 x 16): 12 ymm accumulators.
//===----------------------------------------------------------------------===//

constexpr int kAvx2MR = 6, kAvx2NR = 16;

PLUMB_TGT_AVX2 void chunkAvx2(const float *a, const float *b, int64_t len,
                              float *dst) {
  const __m256 nz = _mm256_set1_ps(-0.0f);
  __m256 c00 = nz, c01 = nz, c10 = nz, c11 = nz, c20 = nz, c21 = nz;
  __m256 c30 = nz, c31 = nz, c40 = nz, c41 = nz, c50 = nz, c51 = nz;
  for (int64_t k = 0; k < len; ++k) {
    const __m256 b0 = _mm256_load_ps(b);
    const __m256 b1 = _mm256_load_ps(b + 8);
    __m256 x;
    x = _mm256_broadcast_ss(a + 0);
    c00 = _mm256_fmadd_ps(x, b0, c00);
    c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(x, b0, c10);
    c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(x, b0, c20);
    c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(x, b0, c30);
    c31 = _mm256_fmadd_ps(x, b1, c31);
    x = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(x, b0, c40);
    c41 = _mm256_fmadd_ps(x, b1, c41);
    x = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(x, b0, c50);
    c51 = _mm256_fmadd_ps(x, b1, c51);
    a += kAvx2MR;
    b += kAvx2NR;
  }
  _mm256_storeu_ps(dst + 0, c00);
  _mm256_storeu_ps(dst + 8, c01);
  _mm256_storeu_ps(dst + 16, c10);
  _mm256_storeu_ps(dst + 24, c11);
  _mm256_storeu_ps(dst + 32, c20);
  _mm256_storeu_ps(dst + 40, c21);
  _mm256_storeu_ps(dst + 48, c30);
  _mm256_storeu_ps(dst + 56, c31);
  _mm256_storeu_ps(dst + 64, c40);
  _mm256_storeu_ps(dst + 72, c41);
  _mm256_storeu_ps(dst + 80, c50);
  _mm256_storeu_ps(dst + 88, c51);
}

PLUMB_TGT_AVX2 void addAvx2(const float *l, float *r, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(r + i,
                     _mm256_add_ps(_mm256_loadu_ps(l + i), _mm256_loadu_ps(r + i)));
  for (; i < n; ++i)
    r[i] = l[i] + r[i];
}

void tileAvx2(const float *ap, const float *bp, int64_t K, int64_t block,
              float *out, float *work) {
  treeTile(chunkAvx2, addAvx2, kAvx2MR, kAvx2NR, ap, bp, K, block, out, work);
}

//===----------------------------------------------------------------------===//
// AVX-512F kernel (12 x 32): 24 zmm accumulators, two B vectors per k and
// one broadcast A element per row.
//===----------------------------------------------------------------------===//

constexpr int kAvx512MR = 12, kAvx512NR = 32;

/// The first R rows of a packed tile (R = 12: a whole tile; 4 or 8: a last,
/// partial row tile), written as an R x 32 tile. Same operations per lane.
template <int R>
PLUMB_TGT_AVX512 void chunkAvx512Rows(const float *a, const float *b,
                                      int64_t len, float *dst) {
  const __m512 nz = _mm512_set1_ps(-0.0f);
  __m512 c0[R], c1[R];
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) {
    c0[i] = nz;
    c1[i] = nz;
  }
  for (int64_t k = 0; k < len; ++k) {
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * kAvx512NR),
                 _MM_HINT_T0);
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      const __m512 x = _mm512_set1_ps(a[i]);
      c0[i] = _mm512_fmadd_ps(x, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(x, b1, c1[i]);
    }
    a += kAvx512MR;
    b += kAvx512NR;
  }
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) {
    _mm512_storeu_ps(dst + i * kAvx512NR, c0[i]);
    _mm512_storeu_ps(dst + i * kAvx512NR + 16, c1[i]);
  }
}

PLUMB_TGT_AVX512 void chunkAvx512(const float *a, const float *b, int64_t len,
                                  float *dst) {
  chunkAvx512Rows<kAvx512MR>(a, b, len, dst);
}

/// chunkAvx512 reading A unpacked: row i of the tile at a + i * lda (k
/// contiguous). Same operations per lane.
PLUMB_TGT_AVX512 void chunkAvx512Direct(const float *a, int64_t lda,
                                        const float *b, int64_t len,
                                        float *dst) {
  const __m512 nz = _mm512_set1_ps(-0.0f);
  __m512 c0[kAvx512MR], c1[kAvx512MR];
#pragma GCC unroll 12
  for (int i = 0; i < kAvx512MR; ++i) {
    c0[i] = nz;
    c1[i] = nz;
  }
  const float *p0 = a, *p4 = a + 4 * lda, *p8 = a + 8 * lda;
  const int64_t l2 = 2 * lda, l3 = 3 * lda;
  for (int64_t k = 0; k < len; ++k) {
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * kAvx512NR),
                 _MM_HINT_T0);
    const float *rows[3] = {p0, p4, p8};
#pragma GCC unroll 12
    for (int i = 0; i < kAvx512MR; ++i) {
      const float *r = rows[i / 4];
      const int q = i % 4;
      const float v = q == 0 ? r[0] : q == 1 ? r[lda] : q == 2 ? r[l2] : r[l3];
      const __m512 x = _mm512_set1_ps(v);
      c0[i] = _mm512_fmadd_ps(x, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(x, b1, c1[i]);
    }
    ++p0;
    ++p4;
    ++p8;
    b += kAvx512NR;
  }
#pragma GCC unroll 12
  for (int i = 0; i < kAvx512MR; ++i) {
    _mm512_storeu_ps(dst + i * kAvx512NR, c0[i]);
    _mm512_storeu_ps(dst + i * kAvx512NR + 16, c1[i]);
  }
}

PLUMB_TGT_AVX512 void addAvx512(const float *l, float *r, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(r + i, _mm512_add_ps(_mm512_loadu_ps(l + i),
                                          _mm512_loadu_ps(r + i)));
  for (; i < n; ++i)
    r[i] = l[i] + r[i];
}

void tileAvx512(const float *ap, const float *bp, int64_t K, int64_t block,
                float *out, float *work) {
  treeTile(chunkAvx512, addAvx512, kAvx512MR, kAvx512NR, ap, bp, K, block,
           out, work);
}

/// tileAvx512 for a tile of which only the first `rows` rows are wanted:
/// out holds R x 32 floats (R = 4, 8 or 12, the least >= rows).
void tileAvx512Rows(const float *ap, const float *bp, int64_t K, int64_t block,
                    float *out, float *work, int rows) {
  if (rows > 8) {
    tileAvx512(ap, bp, K, block, out, work);
    return;
  }
  auto run = [&](auto chunk, int r) {
    treeTileT(
        [&](int64_t lo, int64_t len, float *dst) {
          chunk(ap + lo * kAvx512MR, bp + lo * kAvx512NR, len, dst);
        },
        addAvx512, r, kAvx512NR, K, block, out, work);
  };
  if (rows > 4)
    run(chunkAvx512Rows<8>, 8);
  else
    run(chunkAvx512Rows<4>, 4);
}

void tileAvx512Direct(const float *a, int64_t lda, const float *bp, int64_t K,
                      int64_t block, float *out, float *work) {
  treeTileT(
      [&](int64_t lo, int64_t len, float *dst) {
        chunkAvx512Direct(a + lo, lda, bp + lo * kAvx512NR, len, dst);
      },
      addAvx512, kAvx512MR, kAvx512NR, K, block, out, work);
}
#endif // PLUMB_GEMM_X86

//===----------------------------------------------------------------------===//
// Row products (M == 1): lanes over output columns p, chunk partials kept
// per lane and combined with treeCombine's skipping stride-halving.
//===----------------------------------------------------------------------===//

void combineLanes(float *v, int64_t m, int lanes) {
  int64_t p = 1;
  while (p < m)
    p <<= 1;
  for (int64_t s = p >> 1; s >= 1; s >>= 1) {
    for (int64_t i = 0; i < s; ++i)
      if (i + s < m)
        for (int l = 0; l < lanes; ++l)
          v[i * 16 + l] = v[i * 16 + l] + v[(i + s) * 16 + l];
    if (m > s)
      m = s;
  }
}

/// Columns [0, P) of col (row stride ld).
void colDotScalarImpl(const float *w, const float *col, int64_t K, int64_t P,
                      int64_t ld, int64_t block, float *y, float *work) {
  const int64_t m = treeChunks(K, block);
  const int64_t b = m == 1 ? K : block;
  for (int64_t p0 = 0; p0 < P; p0 += 16) {
    const int lanes = static_cast<int>(P - p0 < 16 ? P - p0 : 16);
    for (int64_t c = 0; c < m; ++c) {
      float *acc = work + c * 16;
      for (int l = 0; l < lanes; ++l)
        acc[l] = -0.0f;
      const int64_t hi = (c + 1) * b < K ? (c + 1) * b : K;
      for (int64_t k = c * b; k < hi; ++k)
        for (int l = 0; l < lanes; ++l)
          acc[l] = fma_rn(w[k], col[k * ld + p0 + l], acc[l]);
    }
    combineLanes(work, m, lanes);
    for (int l = 0; l < lanes; ++l)
      y[p0 + l] = work[l];
  }
}

void colDotScalar(const float *w, const float *col, int64_t K, int64_t P,
                  int64_t ld, int64_t block, float *y, float *work) {
  colDotScalarImpl(w, col, K, P, ld, block, y, work);
}

#if PLUMB_GEMM_X86
PLUMB_TGT_AVX512 void colDotAvx512(const float *w, const float *col,
                                   int64_t K, int64_t P, int64_t ld,
                                   int64_t block, float *y, float *work) {
  const int64_t m = treeChunks(K, block);
  const int64_t b = m == 1 ? K : block;
  int64_t p0 = 0;
  for (; p0 + 16 <= P; p0 += 16) {
    for (int64_t c = 0; c < m; ++c) {
      __m512 acc = _mm512_set1_ps(-0.0f);
      const int64_t hi = (c + 1) * b < K ? (c + 1) * b : K;
      for (int64_t k = c * b; k < hi; ++k)
        acc = _mm512_fmadd_ps(_mm512_set1_ps(w[k]),
                              _mm512_loadu_ps(col + k * ld + p0), acc);
      if (m == 1) {
        _mm512_storeu_ps(y + p0, acc);
      } else {
        _mm512_storeu_ps(work + c * 16, acc);
      }
    }
    if (m > 1) {
      combineLanes(work, m, 16);
      _mm512_storeu_ps(y + p0, _mm512_loadu_ps(work));
    }
  }
  if (p0 < P)
    colDotScalarImpl(w, col + p0, K, P - p0, ld, block, y + p0, work);
}
#endif
const GemmKernel kScalarKernel = {kIsaScalar, kScalarMR, kScalarNR,
                                  tileScalar, nullptr};
#if PLUMB_GEMM_X86
const GemmKernel kAvx2Kernel = {kIsaAvx2, kAvx2MR, kAvx2NR, tileAvx2,
                                nullptr};
const GemmKernel kAvx512Kernel = {kIsaAvx512, kAvx512MR, kAvx512NR,
                                  tileAvx512, tileAvx512Direct, tileAvx512Rows};
#endif

} // namespace

const GemmKernel *gemmKernelFor(int isa) {
  switch (isa) {
  case kIsaScalar:
    return &kScalarKernel;
#if PLUMB_GEMM_X86
  case kIsaAvx2:
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return &kAvx2Kernel;
    return nullptr;
  case kIsaAvx512:
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma"))
      return &kAvx512Kernel;
    return nullptr;
#endif
  default:
    return nullptr;
  }
}

ColDotFn colDotFor(int isa) {
#if PLUMB_GEMM_X86
  if (isa >= kIsaAvx512 && gemmKernelFor(kIsaAvx512))
    return colDotAvx512;
#endif
  (void)isa;
  return colDotScalar;
}

int64_t gemmTileWorkFloats(const GemmKernel &k, int64_t K, int64_t block) {
  const int64_t m = treeChunks(K, block);
  if (m <= 1)
    return 0;
  return static_cast<int64_t>(ceilLog2(m) + 2) * k.mr * k.nr;
}

} // namespace detail
} // namespace rt
} // namespace plumb
