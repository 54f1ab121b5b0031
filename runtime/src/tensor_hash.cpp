//===- runtime/src/tensor_hash.cpp - Canonical tensor hash ----------------===//
//
// Part of Plumb. See tensor_hash.h. Host byte order is little-endian on every
// platform Plumb supports (x86-64, AArch64); the encoding itself is defined
// independently of the host.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/tensor_hash.h"

#include "plumb/runtime/sha256.h"

#include <string.h>

extern "C" void plumb_rt_tensor_hash(int32_t dtype, int32_t rank,
                                     const int64_t *shape, const void *data,
                                     uint8_t digest[32]) {
  plumb_sha256_ctx ctx;
  plumb_sha256_init(&ctx);
  static const char tag[] = "plumb-tensor-v1";
  plumb_sha256_update(&ctx, tag, sizeof(tag) - 1);
  uint8_t head[2] = {(uint8_t)dtype, (uint8_t)rank};
  plumb_sha256_update(&ctx, head, 2);
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d) {
    uint8_t le[8];
    for (int i = 0; i < 8; ++i)
      le[i] = (uint8_t)((uint64_t)shape[d] >> (8 * i));
    plumb_sha256_update(&ctx, le, 8);
    n *= shape[d];
  }
  if (dtype == 1) { // f32: canonical NaN
    const uint32_t *p = (const uint32_t *)data;
    uint32_t buf[1024];
    for (int64_t i = 0; i < n; i += 1024) {
      int64_t m = n - i < 1024 ? n - i : 1024;
      for (int64_t k = 0; k < m; ++k) {
        uint32_t v = p[i + k];
        buf[k] = ((v & 0x7F800000u) == 0x7F800000u && (v & 0x007FFFFFu))
                     ? 0x7FC00000u
                     : v;
      }
      plumb_sha256_update(&ctx, buf, (size_t)m * 4);
    }
  } else if (dtype == 4) { // bool: 0/1 bytes
    const uint8_t *p = (const uint8_t *)data;
    uint8_t buf[4096];
    for (int64_t i = 0; i < n; i += 4096) {
      int64_t m = n - i < 4096 ? n - i : 4096;
      for (int64_t k = 0; k < m; ++k)
        buf[k] = p[i + k] ? 1 : 0;
      plumb_sha256_update(&ctx, buf, (size_t)m);
    }
  } else {
    size_t es = dtype == 2 ? 8 : 4;
    plumb_sha256_update(&ctx, data, (size_t)n * es);
  }
  plumb_sha256_final(&ctx, digest);
}

extern "C" void plumb_rt_tensor_hash_splat(int32_t dtype, int32_t rank,
                                           const int64_t *shape,
                                           const void *element,
                                           uint8_t digest[32]) {
  plumb_sha256_ctx ctx;
  plumb_sha256_init(&ctx);
  static const char tag[] = "plumb-tensor-v1";
  plumb_sha256_update(&ctx, tag, sizeof(tag) - 1);
  uint8_t head[2] = {(uint8_t)dtype, (uint8_t)rank};
  plumb_sha256_update(&ctx, head, 2);
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d) {
    uint8_t le[8];
    for (int i = 0; i < 8; ++i)
      le[i] = (uint8_t)((uint64_t)shape[d] >> (8 * i));
    plumb_sha256_update(&ctx, le, 8);
    n *= shape[d];
  }
  size_t es = dtype == 2 ? 8 : dtype == 4 ? 1 : 4;
  uint8_t elem[8];
  memcpy(elem, element, es);
  if (dtype == 1) {
    uint32_t v;
    memcpy(&v, elem, 4);
    if ((v & 0x7F800000u) == 0x7F800000u && (v & 0x007FFFFFu))
      v = 0x7FC00000u;
    memcpy(elem, &v, 4);
  } else if (dtype == 4) {
    elem[0] = elem[0] ? 1 : 0;
  }
  uint8_t chunk[4096];
  size_t per = sizeof(chunk) / es;
  for (size_t k = 0; k < per; ++k)
    memcpy(chunk + k * es, elem, es);
  for (int64_t i = 0; i < n; i += (int64_t)per) {
    int64_t m = n - i < (int64_t)per ? n - i : (int64_t)per;
    plumb_sha256_update(&ctx, chunk, (size_t)m * es);
  }
  plumb_sha256_final(&ctx, digest);
}
