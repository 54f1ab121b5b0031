//===- lib/Trace/TensorHasher.cpp - Fast canonical tensor hash ------------===//
//
// Part of Plumb. See include/plumb/Trace/TensorHasher.h. SHA-256 is FIPS
// 180-4; our x86 path uses the SHA extensions (sha256rnds2 does two rounds
// on the state split as ABEF/CDGH, sha256msg1/msg2 extend the message
// schedule four words at a time). Tests check both paths against the
// runtime's portable SHA-256 and plumb_rt_tensor_hash.
//
//===----------------------------------------------------------------------===//
#include "plumb/Trace/TensorHasher.h"

#include "plumb/runtime/sha256.h"

#include <algorithm>
#include <cstring>
#include <memory>

#ifdef PLUMB_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PLUMB_HAVE_X86_SHA 1
#endif

namespace plumb {
namespace trace {

namespace {

const uint32_t *const K = plumb_sha256_k;

#ifdef PLUMB_HAVE_X86_SHA
// The lanes of v (float32 words as stored) holding a NaN other than
// 0x7FC00000: |v| > +inf, the canonical NaN exempt.
__attribute__((target("avx512f"))) inline __mmask16 otherNaNs(__m512i v) {
  return _mm512_mask_cmpneq_epi32_mask(
      _mm512_cmpgt_epu32_mask(
          _mm512_and_si512(v, _mm512_set1_epi32(0x7FFFFFFF)),
          _mm512_set1_epi32(0x7F800000)),
      v, _mm512_set1_epi32(0x7FC00000));
}

// Sixteen independent SHA-256 streams, one per 32-bit lane of the AVX-512
// registers (FIPS 180-4 word for word: each vector op does one step of the
// scalar compression for all sixteen). Lane l compresses `count` blocks at
// p[l] into s[l]. A 16x16 word transpose turns sixteen 64-byte blocks into
// the sixteen message-word vectors.
//
// With `nanLanes`, also sets bit l of *nanLanes when lane l's blocks hold,
// read as little-endian float32 words, a NaN other than 0x7FC00000: the
// scan a float chunk needs (its hash is over the canonical encoding) rides
// on the words already loaded, instead of a pass of its own over the chunk.
//
// GCC 12's AVX-512 headers start some intrinsics from an "undefined"
// vector and then warn about it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,avx512bw"))) void
compressAvx512x16(uint32_t (*s)[8], const uint8_t *const *p, size_t count,
                  uint32_t *nanLanes = nullptr) {
  alignas(64) uint32_t tmp[8][16];
  for (int l = 0; l < 16; ++l)
    for (int i = 0; i < 8; ++i)
      tmp[i][l] = s[l][i];
  __m512i st[8];
  for (int i = 0; i < 8; ++i)
    st[i] = _mm512_load_si512(tmp[i]);
  const __m512i bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607,
                                          0x00010203);
  for (size_t b = 0; b < count; ++b) {
    __m512i r[16], t[16], w[16];
    for (int l = 0; l < 16; ++l)
      r[l] = _mm512_loadu_si512(p[l] + 64 * b);
    // Transpose: after the two unpack stages r[4q+j] holds, in its 128-bit
    // block k, word 4k+j of lanes 4q..4q+3; the shuffles gather the blocks.
    for (int i = 0; i < 16; i += 2) {
      t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
      t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
      r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
      r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
      r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
      r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int j = 0; j < 4; ++j) {
      __m512i b0 = _mm512_shuffle_i32x4(r[j], r[4 + j], 0x88);
      __m512i b1 = _mm512_shuffle_i32x4(r[j], r[4 + j], 0xDD);
      __m512i b2 = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0x88);
      __m512i b3 = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0xDD);
      t[j] = _mm512_shuffle_i32x4(b0, b2, 0x88);
      t[8 + j] = _mm512_shuffle_i32x4(b0, b2, 0xDD);
      t[4 + j] = _mm512_shuffle_i32x4(b1, b3, 0x88);
      t[12 + j] = _mm512_shuffle_i32x4(b1, b3, 0xDD);
    }
    if (nanLanes) { // t[i]: word i of every lane, as stored
      __mmask16 nan = 0;
      for (int i = 0; i < 16; ++i)
        nan |= otherNaNs(t[i]);
      *nanLanes |= nan;
    }
    for (int i = 0; i < 16; ++i)
      w[i] = _mm512_shuffle_epi8(t[i], bswap); // big-endian words
    __m512i a = st[0], bb = st[1], c = st[2], d = st[3], e = st[4],
            f = st[5], g = st[6], h = st[7];
#pragma GCC unroll 64
    for (int i = 0; i < 64; ++i) {
      __m512i wi;
      if (i < 16) {
        wi = w[i];
      } else {
        __m512i w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15];
        __m512i s0 = _mm512_ternarylogic_epi32(_mm512_ror_epi32(w15, 7),
                                               _mm512_ror_epi32(w15, 18),
                                               _mm512_srli_epi32(w15, 3), 0x96);
        __m512i s1 = _mm512_ternarylogic_epi32(_mm512_ror_epi32(w2, 17),
                                               _mm512_ror_epi32(w2, 19),
                                               _mm512_srli_epi32(w2, 10), 0x96);
        wi = _mm512_add_epi32(_mm512_add_epi32(w[i & 15], s0),
                              _mm512_add_epi32(w[(i - 7) & 15], s1));
        w[i & 15] = wi;
      }
      __m512i S1 = _mm512_ternarylogic_epi32(_mm512_ror_epi32(e, 6),
                                             _mm512_ror_epi32(e, 11),
                                             _mm512_ror_epi32(e, 25), 0x96);
      __m512i ch = _mm512_ternarylogic_epi32(e, f, g, 0xCA);  // e ? f : g
      __m512i t1 = _mm512_add_epi32(
          _mm512_add_epi32(h, S1),
          _mm512_add_epi32(ch, _mm512_add_epi32(wi, _mm512_set1_epi32(K[i]))));
      __m512i S0 = _mm512_ternarylogic_epi32(_mm512_ror_epi32(a, 2),
                                             _mm512_ror_epi32(a, 13),
                                             _mm512_ror_epi32(a, 22), 0x96);
      __m512i mj = _mm512_ternarylogic_epi32(a, bb, c, 0xE8); // majority
      __m512i t2 = _mm512_add_epi32(S0, mj);
      h = g, g = f, f = e, e = _mm512_add_epi32(d, t1), d = c, c = bb, bb = a,
      a = _mm512_add_epi32(t1, t2);
    }
    st[0] = _mm512_add_epi32(st[0], a), st[1] = _mm512_add_epi32(st[1], bb);
    st[2] = _mm512_add_epi32(st[2], c), st[3] = _mm512_add_epi32(st[3], d);
    st[4] = _mm512_add_epi32(st[4], e), st[5] = _mm512_add_epi32(st[5], f);
    st[6] = _mm512_add_epi32(st[6], g), st[7] = _mm512_add_epi32(st[7], h);
  }
  for (int i = 0; i < 8; ++i)
    _mm512_store_si512(tmp[i], st[i]);
  for (int l = 0; l < 16; ++l)
    for (int i = 0; i < 8; ++i)
      s[l][i] = tmp[i][l];
}

#pragma GCC diagnostic pop

bool detectAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

#endif

bool available(Sha256Impl impl) {
  switch (impl) {
  case Sha256Impl::Portable:
    return true;
  case Sha256Impl::ShaNi:
#ifdef PLUMB_HAVE_X86_SHA
    return plumb_sha256_has_shani() != 0;
#else
    return false;
#endif
  case Sha256Impl::OpenSSL:
#ifdef PLUMB_HAVE_OPENSSL
    return true;
#else
    return false;
#endif
  }
  return false;
}

// Our SHA-NI code first: the same throughput as OpenSSL's on 16 KiB chunks
// (1.4 GB/s here) and a third of its cost per small message (the chunk
// trees hash many 33- and 65-byte messages).
Sha256Impl fastest() {
  for (Sha256Impl i : {Sha256Impl::ShaNi, Sha256Impl::OpenSSL})
    if (available(i))
      return i;
  return Sha256Impl::Portable;
}

Sha256Impl current = fastest();

#ifdef PLUMB_HAVE_X86_SHA
bool multiLane = detectAvx512();
#else
bool multiLane = false;
#endif

} // namespace

Sha256Impl sha256Impl() { return current; }

bool multiLaneSha256() { return multiLane; }

bool selectMultiLaneSha256(bool on) {
#ifdef PLUMB_HAVE_X86_SHA
  if (on && !detectAvx512())
    return false;
  multiLane = on;
  return true;
#else
  if (on)
    return false;
  multiLane = false;
  return true;
#endif
}

bool selectSha256(Sha256Impl impl) {
  if (!available(impl))
    return false;
  current = impl;
  return true;
}

const char *sha256ImplName(Sha256Impl impl) {
  switch (impl) {
  case Sha256Impl::Portable:
    return "portable";
  case Sha256Impl::ShaNi:
    return "sha-ni";
  case Sha256Impl::OpenSSL:
    return "openssl";
  }
  return "?";
}

Sha256::Sha256() {
#ifdef PLUMB_HAVE_OPENSSL
  if (current == Sha256Impl::OpenSSL) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1) {
      evp = ctx;
      return;
    }
    EVP_MD_CTX_free(ctx); // fall back to our own code
  }
#endif
  static const uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                   0x1f83d9ab, 0x5be0cd19};
  std::memcpy(state, init, sizeof(init));
}

Sha256::~Sha256() {
#ifdef PLUMB_HAVE_OPENSSL
  if (evp)
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX *>(evp));
#endif
}

void Sha256::blocks(const uint8_t *p, size_t count) {
  if (current == Sha256Impl::ShaNi)
    return plumb_sha256_blocks_shani(state, p, count);
  plumb_sha256_blocks_portable(state, p, count);
}

void Sha256::update(const void *data, size_t n) {
#ifdef PLUMB_HAVE_OPENSSL
  if (evp) {
    EVP_DigestUpdate(static_cast<EVP_MD_CTX *>(evp), data, n);
    return;
  }
#endif
  const uint8_t *p = static_cast<const uint8_t *>(data);
  bytes += n;
  if (used) {
    size_t take = 64 - used < n ? 64 - used : n;
    std::memcpy(buffer + used, p, take);
    used += take;
    p += take;
    n -= take;
    if (used < 64)
      return;
    blocks(buffer, 1);
    used = 0;
  }
  if (n >= 64) {
    blocks(p, n / 64);
    p += n / 64 * 64;
    n %= 64;
  }
  std::memcpy(buffer, p, n);
  used = n;
}

Digest Sha256::finish() {
  Digest d;
#ifdef PLUMB_HAVE_OPENSSL
  if (evp) {
    unsigned len = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX *>(evp), d.data(), &len);
    return d;
  }
#endif
  uint64_t bits = bytes * 8;
  uint8_t pad[72] = {0x80};
  size_t padLen = (used < 56 ? 56 - used : 120 - used);
  for (int i = 0; i < 8; ++i)
    pad[padLen + i] = (uint8_t)(bits >> (56 - 8 * i));
  update(pad, padLen + 8);
  for (int i = 0; i < 8; ++i) {
    d[4 * i] = (uint8_t)(state[i] >> 24);
    d[4 * i + 1] = (uint8_t)(state[i] >> 16);
    d[4 * i + 2] = (uint8_t)(state[i] >> 8);
    d[4 * i + 3] = (uint8_t)state[i];
  }
  return d;
}

void Sha256::reset() {
#ifdef PLUMB_HAVE_OPENSSL
  if (evp) {
    EVP_DigestInit_ex(static_cast<EVP_MD_CTX *>(evp), EVP_sha256(), nullptr);
    return;
  }
#endif
  static const uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                   0x1f83d9ab, 0x5be0cd19};
  std::memcpy(state, init, sizeof(init));
  bytes = 0;
  used = 0;
}

int64_t numElementsOf(int32_t rank, const int64_t *shape) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d)
    n *= shape[d];
  return n;
}

size_t elemBytesOf(int32_t dtype) {
  return dtype == 2 ? 8 : dtype == 4 ? 1 : 4;
}

size_t numChunks(int32_t dtype, int64_t numElements) {
  size_t bytes = (size_t)numElements * elemBytesOf(dtype);
  return (bytes + kChunkBytes - 1) / kChunkBytes;
}

void chunkRange(int32_t dtype, int64_t numElements, size_t c, int64_t &first,
                int64_t &count) {
  int64_t per = (int64_t)(kChunkBytes / elemBytesOf(dtype));
  first = (int64_t)c * per;
  count = std::max<int64_t>(0, std::min(per, numElements - first));
}

void encodeElements(int32_t dtype, const void *data, int64_t first,
                    int64_t count, uint8_t *out) {
  if (dtype == 1) { // float32: NaN canonicalised
    const uint32_t *__restrict p = static_cast<const uint32_t *>(data) + first;
    uint32_t *__restrict o = reinterpret_cast<uint32_t *>(out);
    for (int64_t k = 0; k < count; ++k) {
      uint32_t v = p[k];
      bool nan = (v & 0x7F800000u) == 0x7F800000u && (v & 0x007FFFFFu);
      o[k] = nan ? 0x7FC00000u : v;
    }
  } else if (dtype == 4) { // bool: one byte 0/1
    const uint8_t *p = static_cast<const uint8_t *>(data) + first;
    for (int64_t k = 0; k < count; ++k)
      out[k] = p[k] ? 1 : 0;
  } else {
    size_t es = elemBytesOf(dtype);
    std::memcpy(out, static_cast<const uint8_t *>(data) + first * es,
                (size_t)count * es);
  }
}

#ifdef PLUMB_HAVE_X86_SHA
// hasOtherNaN with AVX-512: 64 floats an iteration (the scan of a 16 KiB
// chunk took a seventh of the hashing time with the compiler's SSE2 code).
__attribute__((target("avx512f"))) static bool
hasOtherNaNAvx512(const uint32_t *p, int64_t n) {
  int64_t k = 0;
  for (; k + 64 <= n; k += 64) {
    __mmask16 m = otherNaNs(_mm512_loadu_si512(p + k)) |
                  otherNaNs(_mm512_loadu_si512(p + k + 16)) |
                  otherNaNs(_mm512_loadu_si512(p + k + 32)) |
                  otherNaNs(_mm512_loadu_si512(p + k + 48));
    if (m)
      return true;
  }
  for (; k < n; k += 16) {
    __mmask16 live = n - k >= 16 ? (__mmask16)0xFFFF
                                 : (__mmask16)((1u << (n - k)) - 1);
    if (otherNaNs(_mm512_maskz_loadu_epi32(live, p + k)) & live)
      return true;
  }
  return false;
}
#endif

// Whether any float of p[0, n) is a NaN other than 0x7FC00000 (a
// vectorisable scan: no stores).
static bool hasOtherNaN(const uint32_t *p, int64_t n) {
#ifdef PLUMB_HAVE_X86_SHA
  if (multiLane)
    return hasOtherNaNAvx512(p, n);
#endif
  uint32_t any = 0;
  for (int64_t k = 0; k < n; ++k) {
    uint32_t v = p[k];
    uint32_t nan = ((v & 0x7F800000u) == 0x7F800000u) & ((v & 0x007FFFFFu) != 0);
    any |= nan & (v != 0x7FC00000u);
  }
  return any != 0;
}

// Floats are hashed in place unless a chunk holds a non-canonical NaN (the
// common case: results are canonical already); then, and for bools, the
// chunk goes through a buffer with its canonical form.
Digest chunkDigestWith(Sha256 &h, int32_t dtype, const void *data,
                       int64_t numElements, size_t c) {
  int64_t first, count;
  chunkRange(dtype, numElements, c, first, count);
  h.reset();
  size_t es = elemBytesOf(dtype);
  const uint8_t *p = static_cast<const uint8_t *>(data) + first * es;
  if (dtype == 4 ||
      (dtype == 1 && hasOtherNaN(reinterpret_cast<const uint32_t *>(p), count))) {
    alignas(64) uint8_t buf[kChunkBytes];
    encodeElements(dtype, data, first, count, buf);
    h.update(buf, (size_t)count * es);
  } else {
    h.update(p, (size_t)count * es);
  }
  return h.finish();
}

Digest chunkDigest(int32_t dtype, const void *data, int64_t numElements,
                   size_t c) {
  Sha256 h;
  return chunkDigestWith(h, dtype, data, numElements, c);
}

Digest chunkDigestOfBytes(const void *bytes, size_t n) {
  Sha256 h;
  h.update(bytes, n);
  return h.finish();
}

// Full-size chunks of a batch go sixteen at a time through the multi-lane
// compression (a group of fewer than 9 is cheaper one by one); the rest,
// and everything without AVX-512, through chunkDigestWith. Floats with a
// non-canonical NaN and bools are hashed from their canonical encoding.
void chunkDigestBatch(Sha256 &h, const ChunkTask *tasks, size_t n) {
#ifdef PLUMB_HAVE_X86_SHA
  if (multiLane) {
    thread_local std::unique_ptr<uint8_t[]> scratch;
    const uint8_t *lanes[kHashLanes];
    Digest *outs[kHashLanes];
    const ChunkTask *tasksOf[kHashLanes];
    size_t used = 0, encoded = 0;
    uint32_t floatLanes = 0; // lanes holding float32 chunks as stored
    auto flush = [&] {
      if (used < 9) {
        for (size_t l = 0; l < used; ++l) {
          const ChunkTask &t = *tasksOf[l];
          *outs[l] = floatLanes >> l & 1
                         ? chunkDigestWith(h, t.dtype, t.data, t.numElements,
                                           t.chunk)
                         : chunkDigestOfBytes(lanes[l], kChunkBytes);
        }
      } else {
        static const uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                         0xa54ff53a, 0x510e527f, 0x9b05688c,
                                         0x1f83d9ab, 0x5be0cd19};
        // The padding block of a kChunkBytes message: 0x80, zeros, and the
        // length in bits, big-endian.
        alignas(64) static const uint8_t pad[64] = {
            0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            (uint8_t)((kChunkBytes * 8) >> 24), (uint8_t)((kChunkBytes * 8) >> 16),
            (uint8_t)((kChunkBytes * 8) >> 8), (uint8_t)(kChunkBytes * 8)};
        static_assert(kChunkBytes % 64 == 0, "chunks are whole blocks");
        uint32_t st[kHashLanes][8];
        const uint8_t *padLanes[kHashLanes];
        for (size_t l = 0; l < kHashLanes; ++l) {
          std::memcpy(st[l], init, sizeof(init));
          if (l >= used)
            lanes[l] = lanes[0]; // idle lanes recompute lane 0
          padLanes[l] = pad;
        }
        uint32_t nan = 0;
        compressAvx512x16(st, lanes, kChunkBytes / 64,
                          floatLanes ? &nan : nullptr);
        compressAvx512x16(st, padLanes, 1);
        for (size_t l = 0; l < used; ++l) {
          if ((nan & floatLanes) >> l & 1) {
            // Hashed as stored, but it holds a non-canonical NaN: again,
            // from its canonical encoding.
            const ChunkTask &t = *tasksOf[l];
            *outs[l] =
                chunkDigestWith(h, t.dtype, t.data, t.numElements, t.chunk);
            continue;
          }
          for (int i = 0; i < 8; ++i) {
            (*outs[l])[4 * i] = (uint8_t)(st[l][i] >> 24);
            (*outs[l])[4 * i + 1] = (uint8_t)(st[l][i] >> 16);
            (*outs[l])[4 * i + 2] = (uint8_t)(st[l][i] >> 8);
            (*outs[l])[4 * i + 3] = (uint8_t)st[l][i];
          }
        }
      }
      used = encoded = 0;
      floatLanes = 0;
    };
    for (size_t i = 0; i < n; ++i) {
      const ChunkTask &t = tasks[i];
      int64_t first, count;
      chunkRange(t.dtype, t.numElements, t.chunk, first, count);
      size_t es = elemBytesOf(t.dtype);
      if ((size_t)count * es != kChunkBytes) {
        *t.out = chunkDigestWith(h, t.dtype, t.data, t.numElements, t.chunk);
        continue;
      }
      const uint8_t *p = static_cast<const uint8_t *>(t.data) + first * es;
      if (t.dtype == 1) {
        floatLanes |= 1u << used; // scanned for NaNs as it is hashed
      } else if (t.dtype == 4) {
        if (!scratch)
          scratch.reset(new uint8_t[kHashLanes * kChunkBytes]);
        uint8_t *buf = scratch.get() + encoded++ * kChunkBytes;
        encodeElements(t.dtype, t.data, first, count, buf);
        p = buf;
      }
      lanes[used] = p;
      tasksOf[used] = &t;
      outs[used++] = t.out;
      if (used == kHashLanes)
        flush();
    }
    flush();
    return;
  }
#endif
  for (size_t i = 0; i < n; ++i)
    *tasks[i].out = chunkDigestWith(h, tasks[i].dtype, tasks[i].data,
                                    tasks[i].numElements, tasks[i].chunk);
}

static size_t splitPoint(size_t n) {
  size_t k = 1;
  while (k * 2 < n)
    k *= 2;
  return k;
}

static Digest rootRec(Sha256 &h, const Digest *d, size_t n) {
  uint8_t buf[65];
  if (n == 1) {
    buf[0] = 0x00;
    std::memcpy(buf + 1, d[0].data(), 32);
    h.reset();
    h.update(buf, 33);
    return h.finish();
  }
  size_t k = splitPoint(n);
  Digest l = rootRec(h, d, k), r = rootRec(h, d + k, n - k);
  buf[0] = 0x01;
  std::memcpy(buf + 1, l.data(), 32);
  std::memcpy(buf + 33, r.data(), 32);
  h.reset();
  h.update(buf, 65);
  return h.finish();
}

Digest chunkRoot(const std::vector<Digest> &chunkDigests) {
  Sha256 h;
  if (chunkDigests.empty())
    return h.finish(); // SHA-256(""), as merkleRoot([])
  return rootRec(h, chunkDigests.data(), chunkDigests.size());
}

static Digest innerHash(Sha256 &h, const Digest &l, const Digest &r) {
  uint8_t buf[65];
  buf[0] = 0x01;
  std::memcpy(buf + 1, l.data(), 32);
  std::memcpy(buf + 33, r.data(), 32);
  h.reset();
  h.update(buf, 65);
  return h.finish();
}

// As Merkle.cpp's verifyRec: the same splits top-down, siblings leaf up.
static bool verifyRec(Sha256 &h, size_t n, size_t index, const Digest &leaf,
                      const std::vector<Digest> &proof, size_t &pos,
                      Digest &out) {
  if (n == 1) {
    out = leaf;
    return true;
  }
  size_t k = splitPoint(n);
  Digest sub;
  if (index < k) {
    if (!verifyRec(h, k, index, leaf, proof, pos, sub) || pos >= proof.size())
      return false;
    out = innerHash(h, sub, proof[pos++]);
  } else {
    if (!verifyRec(h, n - k, index - k, leaf, proof, pos, sub) ||
        pos >= proof.size())
      return false;
    out = innerHash(h, proof[pos++], sub);
  }
  return true;
}

bool merkleVerifyFast(const Digest &root, size_t size, size_t index,
                      const Digest &item, const std::vector<Digest> &proof) {
  if (size == 0 || index >= size)
    return false;
  Sha256 h;
  uint8_t buf[33];
  buf[0] = 0x00;
  std::memcpy(buf + 1, item.data(), 32);
  h.update(buf, 33);
  Digest leaf = h.finish(), got;
  size_t pos = 0;
  if (!verifyRec(h, size, index, leaf, proof, pos, got))
    return false;
  return pos == proof.size() && got == root;
}

static Digest foldFastRec(Sha256 &h, size_t lo, size_t hi, unsigned depth,
                          const std::vector<Digest> &values, size_t &pos) {
  if (depth == 0 || hi - lo <= 1) {
    const Digest &v = values[pos++];
    if (hi - lo != 1)
      return v;
    uint8_t buf[33];
    buf[0] = 0x00;
    std::memcpy(buf + 1, v.data(), 32);
    h.reset();
    h.update(buf, 33);
    return h.finish();
  }
  size_t k = splitPoint(hi - lo);
  Digest l = foldFastRec(h, lo, lo + k, depth - 1, values, pos);
  Digest r = foldFastRec(h, lo + k, hi, depth - 1, values, pos);
  return innerHash(h, l, r);
}

bool merkleFoldFast(size_t lo, size_t hi, unsigned depth,
                    const std::vector<Digest> &values, Digest &out) {
  if (lo >= hi || values.size() != merkleFrontier(lo, hi, depth).size())
    return false;
  Sha256 h;
  size_t pos = 0;
  out = foldFastRec(h, lo, hi, depth, values, pos);
  return true;
}

Digest tensorHashFromRoot(int32_t dtype, int32_t rank, const int64_t *shape,
                          const Digest &root) {
  Sha256 h;
  static const char tag[] = "plumb-tensor-v2";
  h.update(tag, sizeof(tag) - 1);
  uint8_t head[2] = {(uint8_t)dtype, (uint8_t)rank};
  h.update(head, 2);
  for (int32_t d = 0; d < rank; ++d) {
    uint8_t le[8];
    for (int i = 0; i < 8; ++i)
      le[i] = (uint8_t)((uint64_t)shape[d] >> (8 * i));
    h.update(le, 8);
  }
  h.update(root.data(), 32);
  return h.finish();
}

static std::vector<Digest> digestsOf(int32_t dtype, int64_t n,
                                     const void *data) {
  size_t m = numChunks(dtype, n);
  std::vector<Digest> out(m);
  Sha256 h;
  if (m == 1) {
    out[0] = chunkDigestWith(h, dtype, data, n, 0);
    return out;
  }
  // Many chunks (an input, a whole tensor): the multi-lane batches.
  std::vector<ChunkTask> tasks(m);
  for (size_t c = 0; c < m; ++c)
    tasks[c] = {dtype, data, n, c, &out[c]};
  chunkDigestBatch(h, tasks.data(), m);
  return out;
}

Digest tensorHash(int32_t dtype, int32_t rank, const int64_t *shape,
                  const void *data) {
  int64_t n = numElementsOf(rank, shape);
  return tensorHashFromRoot(dtype, rank, shape,
                            chunkRoot(digestsOf(dtype, n, data)));
}

Digest tensorHash(const exec::Tensor &t) {
  return tensorHash((int32_t)t.type, (int32_t)t.shape.size(), t.shape.data(),
                    t.raw());
}

std::vector<Digest> chunkDigests(const exec::Tensor &t) {
  return digestsOf((int32_t)t.type, t.numElements(), t.raw());
}

std::vector<Digest> chunkDigests(int32_t dtype, int64_t numElements,
                                 const void *data) {
  return digestsOf(dtype, numElements, data);
}

} // namespace trace
} // namespace plumb
