//===- runtime/src/qdot.cpp - Integer products on 8- and 16-bit lanes -----===//
//
// Part of Plumb. See qdot.h: sums modulo 2^32, so the AVX-512 (VNNI or
// not), AVX2 and portable loops give the same bits.
//
//===----------------------------------------------------------------------===//

#include "qdot.h"

#include "gemm_kernels.h"
#include "plumb/runtime/gemm.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PLUMB_QDOT_X86 1
#endif

namespace plumb {
namespace rt {
namespace detail {

namespace {

constexpr int64_t kHeader = 64;

int64_t form16Bytes(int64_t K, int64_t G) {
  return ((G + 15) / 16) * ((K + 1) / 2) * 64;
}

int64_t form8Bytes(int64_t K, int64_t G) {
  const int64_t GB = (G + 15) / 16, Kq = (K + 3) / 4;
  return GB * Kq * 64 + GB * 16 * 4;
}

bool cpuHasVnni() {
#ifdef PLUMB_QDOT_X86
  static const bool v = __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vnni");
  return v;
#else
  return false;
#endif
}

bool useVnni() {
  return cpuHasVnni() && plumb_rt_gemm_active_isa() >= kIsaAvx512;
}

/// Two's-complement products and sums (no signed overflow).
inline uint32_t mulU(int32_t a, int32_t b) { return (uint32_t)a * (uint32_t)b; }

inline int32_t lane16(uint32_t word, int h) {
  return (int32_t)(int16_t)(uint16_t)(h ? word >> 16 : word);
}

void rows16Portable(const uint32_t *ap, int64_t rows, int64_t Kp,
                    const int16_t *p, int64_t gb0, int64_t gb1, int32_t *out,
                    int64_t ldo) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t gb = gb0; gb < gb1; ++gb) {
      uint32_t acc[16] = {0};
      const int16_t *pb = p + gb * Kp * 32;
      for (int64_t kp = 0; kp < Kp; ++kp) {
        const uint32_t a = ap[r * Kp + kp];
        const int32_t a0 = lane16(a, 0), a1 = lane16(a, 1);
        for (int j = 0; j < 16; ++j)
          acc[j] += mulU(a0, pb[kp * 32 + 2 * j]) +
                    mulU(a1, pb[kp * 32 + 2 * j + 1]);
      }
      for (int j = 0; j < 16; ++j)
        out[r * ldo + gb * 16 + j] = (int32_t)acc[j];
    }
}

void rows8Portable(const uint32_t *aq, int64_t rows, int64_t Kq,
                   const int8_t *p, const int32_t *cs, int32_t base,
                   int64_t gb0, int64_t gb1, int32_t *out, int64_t ldo) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t gb = gb0; gb < gb1; ++gb) {
      uint32_t acc[16] = {0};
      const int8_t *pb = p + gb * Kq * 64;
      for (int64_t kq = 0; kq < Kq; ++kq) {
        const uint32_t a = aq[r * Kq + kq];
        for (int j = 0; j < 16; ++j)
          for (int h = 0; h < 4; ++h)
            acc[j] += mulU((int32_t)((a >> (8 * h)) & 0xFFu),
                           pb[kq * 64 + 4 * j + h]);
      }
      for (int j = 0; j < 16; ++j)
        out[r * ldo + gb * 16 + j] =
            (int32_t)(acc[j] + mulU(base, cs[gb * 16 + j]));
    }
}

#ifdef PLUMB_QDOT_X86

#define PLUMB_QDOT_512 __attribute__((target("avx512f,avx512bw")))
#define PLUMB_QDOT_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define PLUMB_QDOT_256 __attribute__((target("avx2")))

/// MR rows x NB column blocks of 16, all of K, in zmm accumulators.
template <int MR, int NB>
PLUMB_QDOT_512 inline void tile512(const uint32_t *ap, int64_t Kp,
                                   const int16_t *p, int64_t gb, int32_t *out,
                                   int64_t ldo) {
  __m512i acc[MR][NB];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NB; ++j)
      acc[i][j] = _mm512_setzero_si512();
  const int16_t *pb = p + gb * Kp * 32;
  for (int64_t kp = 0; kp < Kp; ++kp) {
    __m512i w[NB];
    for (int j = 0; j < NB; ++j)
      w[j] = _mm512_loadu_si512(pb + (j * Kp + kp) * 32);
    for (int i = 0; i < MR; ++i) {
      const __m512i a = _mm512_set1_epi32((int)ap[i * Kp + kp]);
      for (int j = 0; j < NB; ++j)
        acc[i][j] = _mm512_add_epi32(acc[i][j], _mm512_madd_epi16(a, w[j]));
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NB; ++j)
      _mm512_storeu_si512(out + i * ldo + (gb + j) * 16, acc[i][j]);
}

template <int MR, int NB>
PLUMB_QDOT_VNNI inline void tileVnni(const uint32_t *ap, int64_t Kp,
                                     const int16_t *p, int64_t gb,
                                     int32_t *out, int64_t ldo) {
  __m512i acc[MR][NB];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NB; ++j)
      acc[i][j] = _mm512_setzero_si512();
  const int16_t *pb = p + gb * Kp * 32;
  for (int64_t kp = 0; kp < Kp; ++kp) {
    __m512i w[NB];
    for (int j = 0; j < NB; ++j)
      w[j] = _mm512_loadu_si512(pb + (j * Kp + kp) * 32);
    for (int i = 0; i < MR; ++i) {
      const __m512i a = _mm512_set1_epi32((int)ap[i * Kp + kp]);
      for (int j = 0; j < NB; ++j)
        acc[i][j] = _mm512_dpwssd_epi32(acc[i][j], a, w[j]);
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NB; ++j)
      _mm512_storeu_si512(out + i * ldo + (gb + j) * 16, acc[i][j]);
}

/// MR rows x NB column blocks (two ymm halves each) on AVX2.
template <int MR, int NB>
PLUMB_QDOT_256 inline void tile256(const uint32_t *ap, int64_t Kp,
                                   const int16_t *p, int64_t gb, int32_t *out,
                                   int64_t ldo) {
  __m256i acc[MR][2 * NB];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < 2 * NB; ++j)
      acc[i][j] = _mm256_setzero_si256();
  const int16_t *pb = p + gb * Kp * 32;
  for (int64_t kp = 0; kp < Kp; ++kp) {
    __m256i w[2 * NB];
    for (int j = 0; j < NB; ++j) {
      const int16_t *src = pb + (j * Kp + kp) * 32;
      w[2 * j] = _mm256_loadu_si256((const __m256i *)src);
      w[2 * j + 1] = _mm256_loadu_si256((const __m256i *)(src + 16));
    }
    for (int i = 0; i < MR; ++i) {
      const __m256i a = _mm256_set1_epi32((int)ap[i * Kp + kp]);
      for (int j = 0; j < 2 * NB; ++j)
        acc[i][j] = _mm256_add_epi32(acc[i][j], _mm256_madd_epi16(a, w[j]));
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < 2 * NB; ++j)
      _mm256_storeu_si256((__m256i *)(out + i * ldo + gb * 16 + j * 8),
                          acc[i][j]);
}

/// Rows in tiles of MR (then one at a time), blocks in groups of NB (then
/// one at a time), with the tile function T<mr, nb>.
#define PLUMB_QDOT_DRIVER(NAME, TILE, ATTR, MR, NB)                            \
  ATTR void NAME(const uint32_t *ap, int64_t rows, int64_t Kp,               \
                 const int16_t *p, int64_t gb0, int64_t gb1, int32_t *out,   \
                 int64_t ldo) {                                              \
    int64_t r = 0;                                                           \
    for (; r + MR <= rows; r += MR) {                                        \
      int64_t gb = gb0;                                                      \
      for (; gb + NB <= gb1; gb += NB)                                       \
        TILE<MR, NB>(ap + r * Kp, Kp, p, gb, out + r * ldo, ldo);            \
      for (; gb < gb1; ++gb)                                                 \
        TILE<MR, 1>(ap + r * Kp, Kp, p, gb, out + r * ldo, ldo);             \
    }                                                                        \
    for (; r < rows; ++r) {                                                  \
      int64_t gb = gb0;                                                      \
      for (; gb + 4 <= gb1; gb += 4)                                         \
        TILE<1, 4>(ap + r * Kp, Kp, p, gb, out + r * ldo, ldo);              \
      for (; gb < gb1; ++gb)                                                 \
        TILE<1, 1>(ap + r * Kp, Kp, p, gb, out + r * ldo, ldo);              \
    }                                                                        \
  }

PLUMB_QDOT_DRIVER(rows512, tile512, PLUMB_QDOT_512, 4, 4)
PLUMB_QDOT_DRIVER(rowsVnni, tileVnni, PLUMB_QDOT_VNNI, 4, 4)
PLUMB_QDOT_DRIVER(rows256, tile256, PLUMB_QDOT_256, 2, 2)

#undef PLUMB_QDOT_DRIVER

/// MR rows x NB column blocks of the 8-bit form: u8 x s8 quads (VNNI).
template <int MR, int NB>
PLUMB_QDOT_VNNI inline void tile8Vnni(const uint32_t *aq, int64_t Kq,
                                      const int8_t *p, const int32_t *cs,
                                      int32_t base, int64_t gb, int32_t *out,
                                      int64_t ldo) {
  __m512i acc[MR][NB];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NB; ++j)
      acc[i][j] = _mm512_setzero_si512();
  const int8_t *pb = p + gb * Kq * 64;
  for (int64_t kq = 0; kq < Kq; ++kq) {
    __m512i w[NB];
    for (int j = 0; j < NB; ++j)
      w[j] = _mm512_loadu_si512(pb + (j * Kq + kq) * 64);
    for (int i = 0; i < MR; ++i) {
      const __m512i a = _mm512_set1_epi32((int)aq[i * Kq + kq]);
      for (int j = 0; j < NB; ++j)
        acc[i][j] = _mm512_dpbusd_epi32(acc[i][j], a, w[j]);
    }
  }
  const __m512i z = _mm512_set1_epi32(base);
  for (int j = 0; j < NB; ++j) {
    const __m512i corr =
        _mm512_mullo_epi32(z, _mm512_loadu_si512(cs + (gb + j) * 16));
    for (int i = 0; i < MR; ++i)
      _mm512_storeu_si512(out + i * ldo + (gb + j) * 16,
                          _mm512_add_epi32(acc[i][j], corr));
  }
}

PLUMB_QDOT_VNNI void rows8Vnni(const uint32_t *aq, int64_t rows, int64_t Kq,
                               const int8_t *p, const int32_t *cs, int32_t base,
                               int64_t gb0, int64_t gb1, int32_t *out,
                               int64_t ldo) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    int64_t gb = gb0;
    for (; gb + 4 <= gb1; gb += 4)
      tile8Vnni<4, 4>(aq + r * Kq, Kq, p, cs, base, gb, out + r * ldo, ldo);
    for (; gb < gb1; ++gb)
      tile8Vnni<4, 1>(aq + r * Kq, Kq, p, cs, base, gb, out + r * ldo, ldo);
  }
  for (; r < rows; ++r) {
    int64_t gb = gb0;
    for (; gb + 8 <= gb1; gb += 8)
      tile8Vnni<1, 8>(aq + r * Kq, Kq, p, cs, base, gb, out + r * ldo, ldo);
    for (; gb + 4 <= gb1; gb += 4)
      tile8Vnni<1, 4>(aq + r * Kq, Kq, p, cs, base, gb, out + r * ldo, ldo);
    for (; gb < gb1; ++gb)
      tile8Vnni<1, 1>(aq + r * Kq, Kq, p, cs, base, gb, out + r * ldo, ldo);
  }
}

#endif // PLUMB_QDOT_X86

void rows16(const uint32_t *ap, int64_t rows, int64_t Kp, const int16_t *p,
            int64_t gb0, int64_t gb1, int32_t *out, int64_t ldo) {
#ifdef PLUMB_QDOT_X86
  static const bool has512 = __builtin_cpu_supports("avx512f") &&
                             __builtin_cpu_supports("avx512bw");
  static const bool has256 = __builtin_cpu_supports("avx2");
  const int isa = plumb_rt_gemm_active_isa();
  if (isa >= kIsaAvx512 && cpuHasVnni())
    return rowsVnni(ap, rows, Kp, p, gb0, gb1, out, ldo);
  if (isa >= kIsaAvx512 && has512)
    return rows512(ap, rows, Kp, p, gb0, gb1, out, ldo);
  if (isa >= kIsaAvx2 && has256)
    return rows256(ap, rows, Kp, p, gb0, gb1, out, ldo);
#endif
  rows16Portable(ap, rows, Kp, p, gb0, gb1, out, ldo);
}

} // namespace

int64_t qdotMatrixBytes(int64_t K, int64_t G) {
  const int64_t b16 = form16Bytes(K, G), b8 = form8Bytes(K, G);
  return kHeader + (b16 > b8 ? b16 : b8);
}

QdotForm qdotMatrixForm(const void *packed) {
  int64_t form;
  memcpy(&form, packed, sizeof(form));
  return (QdotForm)form;
}

QdotForm qdotPackMatrix(const int32_t *w, const int32_t *wz, bool perCol,
                        int64_t K, int64_t G, void *dst, int64_t *maxAbs) {
  unsigned char *bytes = static_cast<unsigned char *>(dst);
  int64_t lo = 0, hi = 0;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t g = 0; g < G; ++g) {
      const int64_t v =
          (int64_t)w[k * G + g] - (wz ? wz[perCol ? g : 0] : 0);
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  if (maxAbs)
    *maxAbs = -lo > hi ? -lo : hi;
  QdotForm form = kQdotNone;
  if (lo >= -128 && hi <= 127 && useVnni())
    form = kQdot8;
  else if (lo >= -32768 && hi <= 32767)
    form = kQdot16;
  const int64_t head[3] = {form, K, G};
  memcpy(bytes, head, sizeof(head));
  const int64_t GB = (G + 15) / 16;
  auto at = [&](int64_t k, int64_t g) -> int32_t {
    if (k >= K || g >= G)
      return 0;
    return (int32_t)((uint32_t)w[k * G + g] -
                     (uint32_t)(wz ? wz[perCol ? g : 0] : 0));
  };
  if (form == kQdot16) {
    const int64_t Kp = (K + 1) / 2;
    int16_t *p = reinterpret_cast<int16_t *>(bytes + kHeader);
    for (int64_t gb = 0; gb < GB; ++gb)
      for (int64_t kp = 0; kp < Kp; ++kp) {
        int16_t *d = p + (gb * Kp + kp) * 32;
        for (int64_t j = 0; j < 16; ++j) {
          d[2 * j] = (int16_t)at(2 * kp, gb * 16 + j);
          d[2 * j + 1] = (int16_t)at(2 * kp + 1, gb * 16 + j);
        }
      }
  } else if (form == kQdot8) {
    const int64_t Kq = (K + 3) / 4;
    int8_t *p = reinterpret_cast<int8_t *>(bytes + kHeader);
    int32_t *cs = reinterpret_cast<int32_t *>(bytes + kHeader + GB * Kq * 64);
    for (int64_t g = 0; g < GB * 16; ++g)
      cs[g] = 0;
    for (int64_t gb = 0; gb < GB; ++gb)
      for (int64_t kq = 0; kq < Kq; ++kq) {
        int8_t *d = p + (gb * Kq + kq) * 64;
        for (int64_t j = 0; j < 16; ++j)
          for (int64_t h = 0; h < 4; ++h) {
            const int32_t v = at(4 * kq + h, gb * 16 + j);
            d[4 * j + h] = (int8_t)v;
            cs[gb * 16 + j] += v;
          }
      }
  }
  return form;
}

bool qdotMatrixRows(const void *packed, const int32_t *a, int64_t rows,
                    int64_t K, std::vector<uint32_t> &words, int32_t &base) {
  const QdotForm form = qdotMatrixForm(packed);
  base = 0;
  if (form == kQdot16) {
    const int64_t Kp = (K + 1) / 2;
    words.resize((size_t)(rows * Kp));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t kp = 0; kp < Kp; ++kp) {
        const int64_t k = 2 * kp;
        const int32_t v0 = a[r * K + k], v1 = k + 1 < K ? a[r * K + k + 1] : 0;
        if (v0 < -32768 || v0 > 32767 || v1 < -32768 || v1 > 32767)
          return false;
        words[(size_t)(r * Kp + kp)] =
            (uint32_t)(uint16_t)(int16_t)v0 |
            ((uint32_t)(uint16_t)(int16_t)v1 << 16);
      }
    return true;
  }
  if (form != kQdot8)
    return false;
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  for (int64_t i = 0; i < rows * K; ++i) {
    lo = a[i] < lo ? a[i] : lo;
    hi = a[i] > hi ? a[i] : hi;
  }
  if (rows * K > 0 && (int64_t)hi - lo > 255)
    return false;
  base = rows * K > 0 ? lo : 0;
  const int64_t Kq = (K + 3) / 4;
  words.assign((size_t)(rows * Kq), 0u);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < K; ++k)
      words[(size_t)(r * Kq + k / 4)] |=
          ((uint32_t)(a[r * K + k] - base) & 0xFFu) << (8 * (k % 4));
  return true;
}

void qdotMatrixProduct(const void *packed, const uint32_t *words,
                       int64_t rows, int32_t base, int64_t gb0, int64_t gb1,
                       int32_t *out, int64_t ldo) {
  const unsigned char *bytes = static_cast<const unsigned char *>(packed);
  int64_t head[3];
  memcpy(head, bytes, sizeof(head));
  const int64_t K = head[1], G = head[2];
  if (head[0] == kQdot16)
    return rows16(words, rows, (K + 1) / 2,
                  reinterpret_cast<const int16_t *>(bytes + kHeader), gb0,
                  gb1, out, ldo);
  const int64_t GB = (G + 15) / 16, Kq = (K + 3) / 4;
  const int8_t *p = reinterpret_cast<const int8_t *>(bytes + kHeader);
  const int32_t *cs =
      reinterpret_cast<const int32_t *>(bytes + kHeader + GB * Kq * 64);
#ifdef PLUMB_QDOT_X86
  // The 8-bit form is made only where VNNI exists; a lower ISA requested
  // afterwards runs the portable loop (the same integers).
  if (useVnni())
    return rows8Vnni(words, rows, Kq, p, cs, base, gb0, gb1, out, ldo);
#endif
  rows8Portable(words, rows, Kq, p, cs, base, gb0, gb1, out, ldo);
}

} // namespace detail
} // namespace rt
} // namespace plumb
