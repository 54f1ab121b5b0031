//===- runtime/src/gemm.cpp - Deterministic GEMM driver --------*- C++ -*-===//
//
// Part of Plumb. Packing, cache blocking and threading around the
// microkernels of gemm_kernels.cpp, plus the scalar reference and the ONNX
// Gemm / MatMul entry points.
//
// Schedule (changes speed only, never a bit):
//   1. B is packed once into NR-wide slivers over the full K (in parallel).
//   2. M is cut into blocks of mc rows, N into groups of slivers; each
//      (M block, N group) task is run by one thread, which packs its A block
//      (mc x K, MR-row slivers) and calls the microkernel for every MR x NR
//      tile. The microkernel evaluates the whole K range of its tile under the
//      tree, so the tree's chunk boundaries are exactly respected.
//   3. The epilogue (alpha, beta*C, NaN canonicalisation) is applied when the
//      tile is stored.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/gemm.h"

#include "gemm_kernels.h"
#include "qdot.h"
#include "ops_internal.h"
#include "plumb/runtime/threads.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

using namespace plumb::rt;
using namespace plumb::rt::detail;

namespace {

std::atomic<int> requestedIsa{kIsaAuto};

const GemmKernel &activeKernel() {
  int want = requestedIsa.load(std::memory_order_relaxed);
  if (want == kIsaAuto || want > kIsaAvx512)
    want = kIsaAvx512;
  for (int isa = want; isa > kIsaScalar; --isa)
    if (const GemmKernel *k = gemmKernelFor(isa))
      return *k;
  return *gemmKernelFor(kIsaScalar);
}

/// 64-byte aligned float buffer, reused across calls on the same thread.
struct AlignedBuffer {
  float *data = nullptr;
  int64_t capacity = 0;
  ~AlignedBuffer() { free(data); }
  float *get(int64_t n) {
    if (n > capacity) {
      free(data);
      int64_t bytes = ((n * 4 + 63) / 64) * 64;
      data = static_cast<float *>(aligned_alloc(64, static_cast<size_t>(bytes)));
      capacity = n;
    }
    return data;
  }
};

thread_local AlignedBuffer tlsPackA, tlsPackB, tlsPackBAll, tlsWork, tlsTile;

using Epilogue = GemmEpilogue;

/// Stores rows [0, rows) x cols [0, cols) of a tile (row stride ts) to Y,
/// applying the epilogue. The SSE2 path performs the same IEEE operations as
/// gemmEpilogue + canonicalNaN, four lanes at a time.
inline void storeTile(const float *tile, int64_t ts, int64_t rows,
                      int64_t cols, int64_t m0, int64_t n0, const Epilogue &e,
                      float *Y, int64_t ldy) {
  for (int64_t i = 0; i < rows; ++i) {
    const float *t = tile + i * ts;
    float *y = Y + (m0 + i) * ldy + n0;
    const float *c = e.C ? e.C + (m0 + i) * e.c_rs + n0 * e.c_cs : nullptr;
    int64_t j = 0;
#if defined(__SSE2__)
    if (!c || e.c_cs == 1 || e.c_cs == 0) {
      const __m128 canon =
          _mm_castsi128_ps(_mm_set1_epi32(static_cast<int>(PLUMB_CANONICAL_NAN_BITS)));
      const __m128 va = _mm_set1_ps(e.alpha), vb = _mm_set1_ps(e.beta);
      const bool scale = e.alpha != 1.0f, scaleC = e.beta != 1.0f;
      for (; j + 4 <= cols; j += 4) {
        __m128 v = _mm_loadu_ps(t + j);
        if (scale)
          v = _mm_mul_ps(va, v);
        if (c) {
          __m128 cv = e.c_cs ? _mm_loadu_ps(c + j) : _mm_set1_ps(*c);
          if (scaleC)
            cv = _mm_mul_ps(vb, cv);
          v = _mm_add_ps(v, cv);
        }
        const __m128 nan = _mm_cmpunord_ps(v, v);
        v = _mm_or_ps(_mm_and_ps(nan, canon), _mm_andnot_ps(nan, v));
        _mm_storeu_ps(y + j, v);
      }
    }
#endif
    for (; j < cols; ++j)
      y[j] = canonicalNaN(
          gemmEpilogue(t[j], e.alpha, e.beta, c ? c + j * e.c_cs : nullptr));
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLUMB_GEMM_STORE_AVX512 1
/// storeTile's SSE2 lane operations on 16 lanes (same IEEE operations per
/// element: alpha * t, + (beta * c), NaN -> canonical), masked tail.
/// Requires !C, or C with column stride 0 or 1.
__attribute__((target("avx512f"))) void
storeTileAvx512(const float *tile, int64_t ts, int64_t rows, int64_t cols,
                int64_t m0, int64_t n0, const Epilogue &e, float *Y,
                int64_t ldy) {
  const __m512 canon = _mm512_castsi512_ps(
      _mm512_set1_epi32(static_cast<int>(PLUMB_CANONICAL_NAN_BITS)));
  const __m512 va = _mm512_set1_ps(e.alpha), vb = _mm512_set1_ps(e.beta);
  const bool scale = e.alpha != 1.0f, scaleC = e.beta != 1.0f;
  for (int64_t i = 0; i < rows; ++i) {
    const float *t = tile + i * ts;
    float *y = Y + (m0 + i) * ldy + n0;
    const float *c = e.C ? e.C + (m0 + i) * e.c_rs + n0 * e.c_cs : nullptr;
    for (int64_t j = 0; j < cols; j += 16) {
      const int64_t lanes = cols - j < 16 ? cols - j : 16;
      const __mmask16 m = static_cast<__mmask16>((1u << lanes) - 1);
      __m512 v = _mm512_maskz_loadu_ps(m, t + j);
      if (scale)
        v = _mm512_mul_ps(va, v);
      if (c) {
        __m512 cv = e.c_cs ? _mm512_maskz_loadu_ps(m, c + j) : _mm512_set1_ps(*c);
        if (scaleC)
          cv = _mm512_mul_ps(vb, cv);
        v = _mm512_add_ps(v, cv);
      }
      const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      v = _mm512_mask_blend_ps(nan, v, canon);
      _mm512_mask_storeu_ps(y + j, m, v);
    }
  }
}
#else
#define PLUMB_GEMM_STORE_AVX512 0
#endif

/// Packs rows [m0, m0 + rows) of A (all K) into MR-row slivers, zero padded:
/// dst[s * mr * K + k * mr + i] = A(m0 + s * mr + i, k).
void packA(const float *A, int64_t a_rs, int64_t a_cs, int64_t m0,
           int64_t rows, int64_t K, int mr, float *dst) {
  for (int64_t s = 0; s * mr < rows; ++s) {
    float *d = dst + s * mr * K;
    const int64_t r0 = s * mr;
    const int64_t nr = std::min<int64_t>(mr, rows - r0);
    if (nr < mr)
      memset(d, 0, sizeof(float) * mr * K);
    if (a_cs == 1) {
      // Blocks of 16 k: 16 contiguous reads per row, writes within a small
      // (16 x mr) window.
      const float *src[16];
      for (int64_t i = 0; i < nr; ++i)
        src[i] = A + (m0 + r0 + i) * a_rs;
      int64_t k0 = 0;
      for (; k0 + 16 <= K; k0 += 16)
        for (int64_t i = 0; i < nr; ++i) {
          const float *sp = src[i] + k0;
          float *dp = d + k0 * mr + i;
          for (int kk = 0; kk < 16; ++kk)
            dp[kk * mr] = sp[kk];
        }
      for (int64_t i = 0; i < nr; ++i)
        for (int64_t k = k0; k < K; ++k)
          d[k * mr + i] = src[i][k];
    } else {
      for (int64_t k = 0; k < K; ++k) {
        const float *sp = A + (m0 + r0) * a_rs + k * a_cs;
        for (int64_t i = 0; i < nr; ++i)
          d[k * mr + i] = sp[i * a_rs];
      }
    }
  }
}

} // namespace

namespace plumb {
namespace rt {
namespace detail {

void packMatrixB(const void *ctx, int64_t n0, int64_t cols, int64_t K, int nrw,
                 float *d) {
  const GemmMatrixB &m = *static_cast<const GemmMatrixB *>(ctx);
  const float *B = m.B;
  const int64_t b_rs = m.b_rs, b_cs = m.b_cs;
  if (b_cs == 1) {
    for (int64_t k = 0; k < K; ++k) {
      const float *src = B + k * b_rs + n0;
      float *dk = d + k * nrw;
      memcpy(dk, src, sizeof(float) * cols);
      for (int64_t j = cols; j < nrw; ++j)
        dk[j] = 0.0f;
    }
    return;
  }
  if (cols < nrw)
    memset(d, 0, sizeof(float) * nrw * K);
  if (b_rs == 1) {
    // Column j of the sliver is contiguous: transpose in blocks of 16 k.
    int64_t k0 = 0;
    for (; k0 + 16 <= K; k0 += 16)
      for (int64_t j = 0; j < cols; ++j) {
        const float *sp = B + (n0 + j) * b_cs + k0;
        float *dp = d + k0 * nrw + j;
        for (int kk = 0; kk < 16; ++kk)
          dp[kk * nrw] = sp[kk];
      }
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t k = k0; k < K; ++k)
        d[k * nrw + j] = B[(n0 + j) * b_cs + k];
    return;
  }
  for (int64_t j = 0; j < cols; ++j) {
    const float *src = B + (n0 + j) * b_cs;
    for (int64_t k = 0; k < K; ++k)
      d[k * nrw + j] = src[k * b_rs];
  }
}

/// Slivers per row-hook call (8 x 32 columns for AVX-512: 1 KiB per row).
constexpr int64_t kHookSlivers = 8;

void gemmDriver(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                int64_t a_cs, const GemmBPacker &bpk, const GemmEpilogue &epi,
                float *Y, int64_t ldy, int64_t block,
                const GemmRowHook *hook) {
  if (M <= 0 || N <= 0)
    return;
  if (K < 0)
    K = 0;
  if (block < 0)
    block = 0;
  const GemmKernel &kern = activeKernel();
  const int mr = kern.mr, nr = kern.nr;
  // Small products are not worth waking the pool: give every thread at
  // least ~4M multiply-adds.
  const double macs = static_cast<double>(M) * N * std::max<int64_t>(K, 1);
  int threads = plumb_rt_get_threads();
  while (threads > 1 && macs / threads < 4.0e6)
    --threads;

  const int64_t numSlivers = (N + nr - 1) / nr;
  const int64_t sliverFloats = static_cast<int64_t>(nr) * std::max<int64_t>(K, 1);

  // Blocking. The A block (mc x K) should stay in L2 (~1 MiB budget).
  int64_t mc = 262144 / std::max<int64_t>(K, 1);
  mc = std::max<int64_t>(mr, std::min<int64_t>(mc, 16 * mr));
  mc = (mc / mr) * mr;
  const int64_t numMB = (M + mc - 1) / mc;

  // B slivers are packed on the fly by the task that uses them (still hot in
  // cache for the microkernel); only when several M blocks reuse every
  // sliver is B packed once up front, in parallel.
  const bool given = bpk.all && bpk.allNr == nr && bpk.allK == K;
  const bool prepack = !given && numMB > 2;
  float *bp = given ? const_cast<float *>(bpk.all) : nullptr;
  if (prepack) {
    bp = tlsPackBAll.get(numSlivers * sliverFloats);
    const int64_t packGrain =
        threads > 1 ? std::max<int64_t>(1, 65536 / sliverFloats) : numSlivers;
    parallelFor(0, numSlivers, packGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t s = lo; s < hi; ++s)
        bpk.fn(bpk.ctx, s * nr, std::min<int64_t>(nr, N - s * nr), K, nr,
               bp + s * sliverFloats);
    });
  }

  int64_t numNG = 1;
  if (threads > 1)
    numNG = std::min<int64_t>(numSlivers,
                              std::max<int64_t>(1, (4 * threads + numMB - 1) / numMB));
  const int64_t slPerGroup = (numSlivers + numNG - 1) / numNG;
  numNG = (numSlivers + slPerGroup - 1) / slPerGroup;
  const int64_t workFloats = gemmTileWorkFloats(kern, K, block);
  // Row-major A is read in place by kernels that can (no packing; the
  // weights of a conv or a Gemm are then read once, straight from memory).
  const bool directA = kern.tileDirect && a_cs == 1 && K > 0;
  const bool store512 = kern.isa == kIsaAvx512 &&
                        (!epi.C || epi.c_cs == 0 || epi.c_cs == 1);
  (void)store512;

  const int64_t numTasks = numMB * numNG;
  auto body = [&](int64_t lo, int64_t hi) {
    float *tile = tlsTile.get(static_cast<int64_t>(mr) * nr);
    float *work = tlsWork.get(std::max<int64_t>(workFloats, 1));
    float *ap = tlsPackA.get(mc * std::max<int64_t>(K, 1));
    float *bsl = (prepack || given) ? nullptr : tlsPackB.get(sliverFloats);
    int64_t packedMB = -1;
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t mb = task / numNG, ng = task % numNG;
      const int64_t m0 = mb * mc, rows = std::min<int64_t>(mc, M - m0);
      const int64_t fullRows = directA ? rows / mr * mr : 0;
      if (packedMB != mb) {
        // Direct A: only a partial last row tile is packed (at ap).
        if (rows > fullRows)
          packA(A, a_rs, a_cs, m0 + fullRows, rows - fullRows, K, mr, ap);
        packedMB = mb;
      }
      const int64_t s0 = ng * slPerGroup;
      const int64_t s1 = std::min<int64_t>(numSlivers, s0 + slPerGroup);
      for (int64_t s = s0; s < s1; ++s) {
        const int64_t n0 = s * nr, cols = std::min<int64_t>(nr, N - n0);
        const float *b;
        if (prepack || given) {
          b = bp + s * sliverFloats;
        } else {
          bpk.fn(bpk.ctx, n0, cols, K, nr, bsl);
          b = bsl;
        }
        for (int64_t r = 0; r * mr < rows; ++r) {
          const int64_t rr = std::min<int64_t>(mr, rows - r * mr);
          if (r * mr < fullRows)
            kern.tileDirect(A + (m0 + r * mr) * a_rs, a_rs, b, K, block, tile,
                            work);
          else if (kern.tileRows && rr < mr)
            kern.tileRows(ap + (r * mr - fullRows) * K, b, K, block, tile,
                          work, static_cast<int>(rr));
          else
            kern.tile(ap + (r * mr - fullRows) * K, b, K, block, tile, work);
#if PLUMB_GEMM_STORE_AVX512
          if (store512)
            storeTileAvx512(tile, nr, rr, cols, m0 + r * mr, n0, epi, Y, ldy);
          else
#endif
            storeTile(tile, nr, rr, cols, m0 + r * mr, n0, epi, Y, ldy);
        }
        // The row hook gets finished segments of up to kHookSlivers slivers
        // (every row of the M block), while they are still in L2.
        if (hook && (s + 1 == s1 || (s + 1 - s0) % kHookSlivers == 0)) {
          const int64_t h0 = (s - (s - s0) % kHookSlivers) * nr;
          const int64_t h1 = std::min<int64_t>(N, (s + 1) * nr);
          for (int64_t m = m0; m < m0 + rows; ++m)
            hook->fn(hook->ctx, m, h0, h1 - h0, Y + m * ldy + h0);
        }
      }
    }
  };
  if (numTasks == 1 || threads == 1)
    body(0, numTasks);
  else
    parallelFor(0, numTasks, (numTasks + threads - 1) / threads, body);
}

} // namespace detail
} // namespace rt
} // namespace plumb

namespace {

/// M == 1 with B's columns contiguous (Gemm transB: a GEMV against the
/// rows of B^T): eight independent dot products at a time (multiTree, the
/// exact treeDot sequence per output; fma(b, a) == fma(a, b) bitwise), no
/// packing of B.
void gemvRows(int64_t N, int64_t K, const float *A, int64_t a_cs,
              const float *B, int64_t b_cs, const Epilogue &e, float *Y,
              int64_t block) {
  std::vector<float> av;
  const float *a = A;
  if (a_cs != 1) {
    av.resize(static_cast<size_t>(K));
    for (int64_t k = 0; k < K; ++k)
      av[static_cast<size_t>(k)] = A[k * a_cs];
    a = av.data();
  }
  const int64_t m = treeChunks(K, block);
  const int64_t groups = (N + ops::kMultiRows - 1) / ops::kMultiRows;
  ops::parallelRange(groups, std::max<int64_t>(1, 16384 / std::max<int64_t>(K, 1)),
                     [&](int64_t lo, int64_t hi) {
    std::vector<float> scratch(static_cast<size_t>(ops::kMultiRows * m));
    for (int64_t gi = lo; gi < hi; ++gi) {
      const int64_t n0 = gi * ops::kMultiRows;
      const int q = static_cast<int>(std::min<int64_t>(ops::kMultiRows, N - n0));
      const float *rows[ops::kMultiRows], *vec[ops::kMultiRows];
      float dot[ops::kMultiRows];
      for (int i = 0; i < q; ++i) {
        rows[i] = B + (n0 + i) * b_cs;
        vec[i] = a;
      }
      ops::multiTree<true>(q, rows, vec, K, block, scratch.data(), dot);
      for (int i = 0; i < q; ++i) {
        const int64_t n = n0 + i;
        const float *c = e.C ? e.C + n * e.c_cs : nullptr;
        Y[n] = canonicalNaN(gemmEpilogue(dot[i], e.alpha, e.beta, c));
      }
    }
  });
}

void gemmCore(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
              int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs,
              const Epilogue &epi, float *Y, int64_t ldy, int64_t block) {
  if (M == 1 && N > 0 && K > 0 && b_rs == 1 && b_cs != 1) {
    gemvRows(N, K, A, a_cs, B, b_cs, epi, Y, block < 0 ? 0 : block);
    return;
  }
  const GemmMatrixB mb{B, b_rs, b_cs};
  const GemmBPacker pk{packMatrixB, &mb};
  gemmDriver(M, N, K, A, a_rs, a_cs, pk, epi, Y, ldy, block, nullptr);
}

} // namespace

namespace {
constexpr int64_t kI32Nt = 256, kI32Mr = 4;
using I32TileFn = void (*)(const int32_t *, const int32_t *, uint32_t *,
                           int64_t, int64_t, int64_t, int64_t);

/// Columns [n0, n0 + 256) of Y = A x B in uint32 (wrapping) arithmetic.
__attribute__((always_inline)) inline void
i32Tile(const int32_t *a, const int32_t *bm, uint32_t *y, int64_t M, int64_t N,
        int64_t K, int64_t n0) {
  uint32_t acc[kI32Mr][kI32Nt];
  const int64_t nt = std::min(kI32Nt, N - n0);
  for (int64_t m0 = 0; m0 < M; m0 += kI32Mr) {
    const int64_t mr = std::min(kI32Mr, M - m0);
    for (int64_t i = 0; i < kI32Mr; ++i)
      for (int64_t n = 0; n < nt; ++n)
        acc[i][n] = 0;
    for (int64_t k = 0; k < K; ++k) {
      const uint32_t *brow = reinterpret_cast<const uint32_t *>(bm + k * N + n0);
      if (mr == kI32Mr) {
        const uint32_t a0 = uint32_t(a[(m0 + 0) * K + k]),
                       a1 = uint32_t(a[(m0 + 1) * K + k]),
                       a2 = uint32_t(a[(m0 + 2) * K + k]),
                       a3 = uint32_t(a[(m0 + 3) * K + k]);
        for (int64_t n = 0; n < nt; ++n) {
          const uint32_t bv = brow[n];
          acc[0][n] += a0 * bv;
          acc[1][n] += a1 * bv;
          acc[2][n] += a2 * bv;
          acc[3][n] += a3 * bv;
        }
      } else {
        for (int64_t i = 0; i < mr; ++i) {
          const uint32_t av = uint32_t(a[(m0 + i) * K + k]);
          for (int64_t n = 0; n < nt; ++n)
            acc[i][n] += av * brow[n];
        }
      }
    }
    for (int64_t i = 0; i < mr; ++i)
      memcpy(y + (m0 + i) * N + n0, acc[i], sizeof(uint32_t) * (size_t)nt);
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) void
i32TileAvx512(const int32_t *a, const int32_t *bm, uint32_t *y, int64_t M,
              int64_t N, int64_t K, int64_t n0) {
  i32Tile(a, bm, y, M, N, K, n0);
}
__attribute__((target("avx2"))) void
i32TileAvx2(const int32_t *a, const int32_t *bm, uint32_t *y, int64_t M,
            int64_t N, int64_t K, int64_t n0) {
  i32Tile(a, bm, y, M, N, K, n0);
}
#endif
void i32TileBase(const int32_t *a, const int32_t *bm, uint32_t *y, int64_t M,
                 int64_t N, int64_t K, int64_t n0) {
  i32Tile(a, bm, y, M, N, K, n0);
}
#if !(defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)))
constexpr I32TileFn i32TileAvx512 = i32TileBase, i32TileAvx2 = i32TileBase;
#endif

/// Y [rows, N] = A [rows, K] x B through B's packed narrow form (qdot.h);
/// false (nothing written) when B has no narrow form or A does not fit it.
bool matmulI32Narrow(const int32_t *A, int64_t rows, int64_t K, int64_t N,
                     const void *packed, int32_t *Y) {
  if (plumb::rt::detail::qdotMatrixForm(packed) == plumb::rt::detail::kQdotNone)
    return false;
  std::vector<uint32_t> words;
  int32_t base = 0;
  if (!plumb::rt::detail::qdotMatrixRows(packed, A, rows, K, words, base))
    return false;
  const int64_t GB = (N + 15) / 16, ldo = GB * 16;
  std::vector<int32_t> acc;
  int32_t *out = Y;
  if (ldo != N) {
    acc.resize((size_t)(rows * ldo));
    out = acc.data();
  }
  const int64_t grain =
      std::max<int64_t>(1, (1 << 17) / std::max<int64_t>(1, rows * K * 16));
  plumb::rt::parallelFor(0, GB, grain, [&](int64_t g0, int64_t g1) {
    plumb::rt::detail::qdotMatrixProduct(packed, words.data(), rows, base, g0,
                                         g1, out, ldo);
  });
  if (ldo != N)
    for (int64_t r = 0; r < rows; ++r)
      memcpy(Y + r * N, out + r * ldo, sizeof(int32_t) * (size_t)N);
  return true;
}
} // namespace

extern "C" {

void plumb_rt_gemm_set_isa(int isa) {
  requestedIsa.store(isa, std::memory_order_relaxed);
}

int plumb_rt_gemm_active_isa(void) { return activeKernel().isa; }

/// Packed-B layout: a 64-byte header (int32 nr, int64 K at bytes 0 and 8),
/// then every NR-column sliver as the driver packs it.
int64_t plumb_rt_gemm_packed_b_size(int64_t N, int64_t K) {
  const int nr = activeKernel().nr;
  const int64_t slivers = N > 0 ? (N + nr - 1) / nr : 0;
  return 16 + slivers * nr * std::max<int64_t>(K, 1);
}

int plumb_rt_gemm_pack_b(int64_t N, int64_t K, const float *B, int64_t b_rs,
                         int64_t b_cs, float *packed) {
  if (N < 0 || K < 0 || !packed || (N > 0 && K > 0 && !B))
    return PLUMB_RT_EINVAL;
  const int nr = activeKernel().nr;
  char *h = reinterpret_cast<char *>(packed);
  memset(h, 0, 64);
  const int32_t nr32 = nr;
  memcpy(h, &nr32, sizeof nr32);
  memcpy(h + 8, &K, sizeof K);
  const GemmMatrixB mb{B, b_rs, b_cs};
  const int64_t sliverFloats = static_cast<int64_t>(nr) * std::max<int64_t>(K, 1);
  const int64_t slivers = N > 0 ? (N + nr - 1) / nr : 0;
  for (int64_t s = 0; s < slivers; ++s)
    packMatrixB(&mb, s * nr, std::min<int64_t>(nr, N - s * nr), K, nr,
                packed + 16 + s * sliverFloats);
  return PLUMB_RT_OK;
}

void plumb_rt_gemm_strided_packed_b(int64_t M, int64_t N, int64_t K, float alpha,
                                    const float *A, int64_t a_rs, int64_t a_cs,
                                    const float *packed, const float *B,
                                    int64_t b_rs, int64_t b_cs, float beta,
                                    const float *C, int64_t c_rs, int64_t c_cs,
                                    float *Y, int64_t ldy, int64_t block) {
  Epilogue e{alpha, beta, C, c_rs, c_cs};
  if (!packed || M == 1) { // one row: the GEMV paths of plumb_rt_gemm_strided
    gemmCore(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, e, Y, ldy, block);
    return;
  }
  int32_t nr = 0;
  int64_t k = -1;
  memcpy(&nr, packed, sizeof nr);
  memcpy(&k, reinterpret_cast<const char *>(packed) + 8, sizeof k);
  const GemmMatrixB mb{B, b_rs, b_cs};
  GemmBPacker pk{packMatrixB, &mb};
  pk.all = packed + 16;
  pk.allNr = nr;
  pk.allK = k;
  gemmDriver(M, N, K, A, a_rs, a_cs, pk, e, Y, ldy, block, nullptr);
}

void plumb_rt_gemm_strided(int64_t M, int64_t N, int64_t K, float alpha,
                           const float *A, int64_t a_rs, int64_t a_cs,
                           const float *B, int64_t b_rs, int64_t b_cs,
                           float beta, const float *C, int64_t c_rs,
                           int64_t c_cs, float *Y, int64_t ldy,
                           int64_t block) {
  Epilogue e{alpha, beta, C, c_rs, c_cs};
  gemmCore(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, e, Y, ldy, block);
}

void plumb_rt_gemm_reference(int64_t M, int64_t N, int64_t K, float alpha,
                             const float *A, int64_t a_rs, int64_t a_cs,
                             const float *B, int64_t b_rs, int64_t b_cs,
                             float beta, const float *C, int64_t c_rs,
                             int64_t c_cs, float *Y, int64_t ldy,
                             int64_t block) {
  if (K < 0)
    K = 0;
  std::vector<float> scratch(static_cast<size_t>(treeChunks(K, block)) + 1);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float dot = treeDot(A + m * a_rs, a_cs, B + n * b_cs, b_rs, K, block,
                          scratch.data());
      const float *c = C ? C + m * c_rs + n * c_cs : nullptr;
      Y[m * ldy + n] = canonicalNaN(gemmEpilogue(dot, alpha, beta, c));
    }
}

int plumb_rt_gemm(int64_t M, int64_t N, int64_t K, float alpha,
                  const float *A, int transA, const float *B, int transB,
                  float beta, const float *C, const int64_t *c_shape,
                  int c_rank, float *Y, int64_t block) {
  const plumb::rt::GemmStrides s =
      plumb::rt::gemmStrides(M, N, K, transA, transB, C != nullptr, c_shape,
                             c_rank);
  Epilogue e{alpha, beta, C, s.c_rs, s.c_cs};
  gemmCore(M, N, K, A, s.a_rs, s.a_cs, B, s.b_rs, s.b_cs, e, Y, N, block);
  return 0;
}

void plumb_rt_matmul_batched(int64_t batch, int64_t M, int64_t N, int64_t K,
                             const float *A, int64_t a_bs, const float *B,
                             int64_t b_bs, float *Y, int64_t block) {
  Epilogue e{1.0f, 1.0f, nullptr, 0, 0};
  if (batch > 1 && b_bs == 0 && a_bs == M * K) { // shared B: one product
    gemmCore(batch * M, N, K, A, K, 1, B, N, 1, e, Y, N, block);
    return;
  }
  for (int64_t b = 0; b < batch; ++b)
    gemmCore(M, N, K, A + b * a_bs, K, 1, B + b * b_bs, N, 1, e,
             Y + b * M * N, N, block);
}

int plumb_rt_matmul(const float *A, const int64_t *a_shape, int a_rank,
                    const float *B, const int64_t *b_shape, int b_rank,
                    float *Y, int64_t *y_shape, int *y_rank, int64_t block) {
  plumb::rt::MatMulLayout L;
  if (!plumb::rt::matmulLayout(L, a_shape, a_rank, b_shape, b_rank))
    return -1;
  int r = 0;
  for (int d = 0; d < L.batchRank; ++d)
    y_shape[r++] = L.outBatch[d];
  if (a_rank != 1)
    y_shape[r++] = L.M;
  if (b_rank != 1)
    y_shape[r++] = L.N;
  *y_rank = r;
  Epilogue e{1.0f, 1.0f, nullptr, 0, 0};
  // B shared by every batch (a weight matrix after activations of rank > 2)
  // and A's batches back to back: the batches are rows of one product,
  // M = batch * M. Every output element is the same treeDot either way; one
  // call packs B once and splits the rows across threads.
  bool foldRows = L.batch > 1;
  for (int32_t d = 0; d < L.batchRank && foldRows; ++d)
    foldRows = L.bStride[d] == 0 && (L.outBatch[d] == 1 || L.aStride[d] != 0);
  if (foldRows) {
    gemmCore(L.batch * L.M, L.N, L.K, A, L.K, 1, B, L.N, 1, e, Y, L.N, block);
    return 0;
  }
  for (int64_t b = 0; b < L.batch; ++b) {
    int64_t aOff, bOff;
    plumb::rt::matmulBatchOffsets(L, b, &aOff, &bOff);
    gemmCore(L.M, L.N, L.K, A + aOff, L.K, 1, B + bOff, L.N, 1, e,
             Y + b * L.M * L.N, L.N, block);
  }
  return 0;
}

int plumb_rt_matmul_f32(const float *A, const int64_t *a_shape, int32_t a_rank,
                        const float *B, const int64_t *b_shape, int32_t b_rank,
                        float *Y, int64_t block) {
  int64_t y_shape[PLUMB_RT_GEMM_MAX_RANK];
  int y_rank = 0;
  return plumb_rt_matmul(A, a_shape, a_rank, B, b_shape, b_rank, Y, y_shape,
                         &y_rank, block);
}

int64_t plumb_rt_matmul_i32_packed_size(int64_t K, int64_t N) {
  if (K < 0 || N < 0)
    return -1;
  return plumb::rt::detail::qdotMatrixBytes(K, N);
}

int plumb_rt_matmul_i32_pack(const int32_t *B, int64_t K, int64_t N,
                             void *packed) {
  if (K < 0 || N < 0 || !packed || (K * N > 0 && !B))
    return -1;
  plumb::rt::detail::qdotPackMatrix(B, nullptr, false, K, N, packed);
  return 0;
}

int plumb_rt_matmul_i32_packed(const int32_t *A, const int64_t *a_shape,
                               int32_t a_rank, const void *packed,
                               const int32_t *B, const int64_t *b_shape,
                               int32_t b_rank, int32_t *Y) {
  plumb::rt::MatMulLayout L;
  if (!plumb::rt::matmulLayout(L, a_shape, a_rank, b_shape, b_rank))
    return -1;
  if (b_rank == 2 && packed && matmulI32Narrow(A, L.batch * L.M, L.K, L.N, packed, Y))
    return 0;
  return plumb_rt_matmul_i32(A, a_shape, a_rank, B, b_shape, b_rank, Y);
}

int plumb_rt_matmul_i32(const int32_t *A, const int64_t *a_shape,
                        int32_t a_rank, const int32_t *B,
                        const int64_t *b_shape, int32_t b_rank, int32_t *Y) {
  plumb::rt::MatMulLayout L;
  if (!plumb::rt::matmulLayout(L, a_shape, a_rank, b_shape, b_rank))
    return -1;
  // A 2-D B with enough rows of A to pay for packing it: the narrow
  // kernels when the values fit (the same wrapping sums).
  if (b_rank == 2 && L.batch * L.M >= 16 && L.K * L.N >= 4096) {
    std::vector<uint64_t> pk(
        (size_t)(plumb::rt::detail::qdotMatrixBytes(L.K, L.N) / 8));
    if (plumb::rt::detail::qdotPackMatrix(B, nullptr, false, L.K, L.N,
                                          pk.data()) !=
            plumb::rt::detail::kQdotNone &&
        matmulI32Narrow(A, L.batch * L.M, L.K, L.N, pk.data(), Y))
      return 0;
  }
  // Unsigned arithmetic: the wraparound is defined behaviour and the bits
  // are the two's-complement int32 result. Sums modulo 2^32 are exact in
  // any order, so the schedule is free: tiles of 256 output columns (the
  // K x 256 panel of B stays in cache while every row of A passes over it),
  // four rows of A per pass sharing each load of B, tiles split over the
  // threads, the loops compiled for the widest vectors the CPU has.
  const int isa = plumb_rt_gemm_active_isa();
  const I32TileFn tile = isa >= kIsaAvx512 ? i32TileAvx512
                         : isa >= kIsaAvx2 ? i32TileAvx2
                                           : i32TileBase;
  const int64_t tiles = (L.N + kI32Nt - 1) / kI32Nt;
  for (int64_t b = 0; b < L.batch; ++b) {
    int64_t aOff, bOff;
    plumb::rt::matmulBatchOffsets(L, b, &aOff, &bOff);
    const int32_t *a = A + aOff, *bm = B + bOff;
    uint32_t *y = reinterpret_cast<uint32_t *>(Y) + b * L.M * L.N;
    plumb::rt::parallelFor(
        0, tiles, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, L.M * L.K)),
        [&](int64_t t0, int64_t t1) {
          for (int64_t t = t0; t < t1; ++t)
            tile(a, bm, y, L.M, L.N, L.K, t * kI32Nt);
        });
  }
  return 0;
}

} // extern "C"
