//===- runtime/src/sha256.cpp - SHA-256 (FIPS 180-4) ----------------------===//
//
// Part of Plumb. Portable, endian-independent code, and SHA-NI where an
// x86 CPU has it (chosen at run time; the same digests).
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/sha256.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#endif

extern "C" const uint32_t plumb_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

namespace {

const uint32_t *const K = plumb_sha256_k;

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(uint32_t *s, const uint8_t *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
           (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5],
           g = s[6], h = s[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
                  ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
                  ((a & b) ^ (a & c) ^ (b & c));
    h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  s[0] += a, s[1] += b, s[2] += c, s[3] += d;
  s[4] += e, s[5] += f, s[6] += g, s[7] += h;
}

#if defined(__x86_64__) || defined(__i386__)
#define PLUMB_SHA256_X86 1
// SHA-NI (x86 SHA extensions): the same compression function, four rounds
// per two sha256rnds2; picked at run time where the CPU has it.
__attribute__((target("sha,sse4.1,ssse3"))) void
compressShaNi(uint32_t *s, const uint8_t *p, size_t count) {
  // Big-endian words from the block, and the state as ABEF / CDGH.
  const __m128i swap =
      _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i abcd = _mm_loadu_si128((const __m128i *)&s[0]);
  __m128i efgh = _mm_loadu_si128((const __m128i *)&s[4]);
  abcd = _mm_shuffle_epi32(abcd, 0xB1);                // CDAB
  efgh = _mm_shuffle_epi32(efgh, 0x1B);                // HGFE
  __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);       // ABEF
  __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xF0);    // CDGH
  for (; count; --count, p += 64) {
    __m128i saveAbef = abef, saveCdgh = cdgh;
    __m128i m[4];
    // Fully unrolled, the four message groups live in registers.
#pragma GCC unroll 16
    for (int g = 0; g < 16; ++g) {
      __m128i w;
      if (g < 4) {
        w = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)),
                             swap);
      } else {
        // W[t..t+3] from the four previous groups M0..M3 (oldest first).
        __m128i m0 = m[g % 4], m1 = m[(g + 1) % 4], m2 = m[(g + 2) % 4],
                m3 = m[(g + 3) % 4];
        w = _mm_sha256msg1_epu32(m0, m1);
        w = _mm_add_epi32(w, _mm_alignr_epi8(m3, m2, 4));
        w = _mm_sha256msg2_epu32(w, m3);
      }
      m[g % 4] = w;
      __m128i wk = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)&K[4 * g]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      wk = _mm_shuffle_epi32(wk, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
    }
    abef = _mm_add_epi32(abef, saveAbef);
    cdgh = _mm_add_epi32(cdgh, saveCdgh);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);        // FEBA
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);        // DCHG
  abcd = _mm_blend_epi16(feba, dchg, 0xF0);            // DCBA
  efgh = _mm_alignr_epi8(dchg, feba, 8);               // HGFE
  _mm_storeu_si128((__m128i *)&s[0], abcd);
  _mm_storeu_si128((__m128i *)&s[4], efgh);
}

bool detectShaNi() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return false;
  bool ssse3 = c & (1u << 9), sse41 = c & (1u << 19);
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return false;
  return ssse3 && sse41 && (b & (1u << 29));
}

// Detected on first use, not by a static initialiser: other translation
// units ask during their own static initialisation (in an unspecified
// order), and must not see "no SHA-NI" before the answer is known.
bool haveShaNi() {
  static const bool have = detectShaNi();
  return have;
}
#endif

} // namespace

extern "C" {

void plumb_sha256_blocks_portable(uint32_t state[8], const uint8_t *blocks,
                                  size_t count) {
  for (; count; --count, blocks += 64)
    compress(state, blocks);
}

int plumb_sha256_has_shani(void) {
#ifdef PLUMB_SHA256_X86
  return haveShaNi() ? 1 : 0;
#else
  return 0;
#endif
}

void plumb_sha256_blocks_shani(uint32_t state[8], const uint8_t *blocks,
                               size_t count) {
#ifdef PLUMB_SHA256_X86
  if (haveShaNi())
    return compressShaNi(state, blocks, count);
#endif
  plumb_sha256_blocks_portable(state, blocks, count);
}

void plumb_sha256_blocks(uint32_t state[8], const uint8_t *blocks,
                         size_t count) {
  plumb_sha256_blocks_shani(state, blocks, count);
}

void plumb_sha256_init(plumb_sha256_ctx *ctx) {
  static const uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                   0x1f83d9ab, 0x5be0cd19};
  memcpy(ctx->state, init, sizeof(init));
  ctx->bytes = 0;
  ctx->used = 0;
}

void plumb_sha256_update(plumb_sha256_ctx *ctx, const void *data, size_t n) {
  // Nothing to add (data may then be null: memcpy must not see it).
  if (n == 0)
    return;
  const uint8_t *p = (const uint8_t *)data;
  ctx->bytes += n;
  if (ctx->used) {
    size_t take = 64 - ctx->used < n ? 64 - ctx->used : n;
    memcpy(ctx->buffer + ctx->used, p, take);
    ctx->used += (uint32_t)take;
    p += take;
    n -= take;
    if (ctx->used < 64)
      return;
    plumb_sha256_blocks(ctx->state, ctx->buffer, 1);
    ctx->used = 0;
  }
  if (n >= 64) {
    plumb_sha256_blocks(ctx->state, p, n / 64);
    p += n / 64 * 64;
    n %= 64;
  }
  memcpy(ctx->buffer, p, n);
  ctx->used = (uint32_t)n;
}

void plumb_sha256_final(plumb_sha256_ctx *ctx, uint8_t digest[32]) {
  uint64_t bits = ctx->bytes * 8;
  uint8_t pad = 0x80;
  plumb_sha256_update(ctx, &pad, 1);
  uint8_t zero = 0;
  while (ctx->used != 56)
    plumb_sha256_update(ctx, &zero, 1);
  uint8_t len[8];
  for (int i = 0; i < 8; ++i)
    len[i] = (uint8_t)(bits >> (56 - 8 * i));
  plumb_sha256_update(ctx, len, 8);
  for (int i = 0; i < 8; ++i) {
    digest[4 * i] = (uint8_t)(ctx->state[i] >> 24);
    digest[4 * i + 1] = (uint8_t)(ctx->state[i] >> 16);
    digest[4 * i + 2] = (uint8_t)(ctx->state[i] >> 8);
    digest[4 * i + 3] = (uint8_t)ctx->state[i];
  }
}

void plumb_sha256(const void *data, size_t n, uint8_t digest[32]) {
  plumb_sha256_ctx ctx;
  plumb_sha256_init(&ctx);
  plumb_sha256_update(&ctx, data, n);
  plumb_sha256_final(&ctx, digest);
}

} // extern "C"
