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

#ifdef PLUMB_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define PLUMB_HAVE_X86_SHA 1
#endif

namespace plumb {
namespace trace {

namespace {

const uint32_t *const K = plumb_sha256_k;

#ifdef PLUMB_HAVE_X86_SHA
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
#endif

using CompressFn = void (*)(uint32_t *, const uint8_t *, size_t);

bool available(Sha256Impl impl) {
  switch (impl) {
  case Sha256Impl::Portable:
    return true;
  case Sha256Impl::ShaNi:
#ifdef PLUMB_HAVE_X86_SHA
    return detectShaNi();
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

} // namespace

Sha256Impl sha256Impl() { return current; }

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
#ifdef PLUMB_HAVE_X86_SHA
  if (current == Sha256Impl::ShaNi)
    return compressShaNi(state, p, count);
#endif
  plumb_sha256_blocks(state, p, count);
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

// Whether any float of p[0, n) is a NaN other than 0x7FC00000 (a
// vectorisable scan: no stores).
static bool hasOtherNaN(const uint32_t *p, int64_t n) {
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
  for (size_t c = 0; c < m; ++c)
    out[c] = chunkDigestWith(h, dtype, data, n, c);
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
