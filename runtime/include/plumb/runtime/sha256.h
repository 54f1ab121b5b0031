//===- runtime/include/plumb/runtime/sha256.h - SHA-256 --------*- C++ -*-===//
//
// Part of Plumb. A dependency-free SHA-256 (FIPS 180-4) used for tensor,
// trace and bundle hashes, so hashing needs nothing beyond the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_SHA256_H
#define PLUMB_RUNTIME_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct plumb_sha256_ctx {
  uint32_t state[8];
  uint64_t bytes;
  uint8_t buffer[64];
  uint32_t used;
} plumb_sha256_ctx;

void plumb_sha256_init(plumb_sha256_ctx *ctx);
void plumb_sha256_update(plumb_sha256_ctx *ctx, const void *data, size_t n);
void plumb_sha256_final(plumb_sha256_ctx *ctx, uint8_t digest[32]);
/// One-shot hash of n bytes.
void plumb_sha256(const void *data, size_t n, uint8_t digest[32]);

/// The round constants and the bare compression function over `count`
/// 64-byte blocks, for hashers with their own buffering or instructions
/// (lib/Trace/TensorHasher.cpp's SHA-NI path).
extern const uint32_t plumb_sha256_k[64];
/// Compresses `count` 64-byte blocks into `state`: with SHA-NI where the CPU
/// has it (x86), else portable code; the same digests either way.
void plumb_sha256_blocks(uint32_t state[8], const uint8_t *blocks,
                         size_t count);
/// The portable compression alone, and whether SHA-NI is there (then
/// plumb_sha256_blocks_shani uses it; elsewhere it is the portable code).
void plumb_sha256_blocks_portable(uint32_t state[8], const uint8_t *blocks,
                                  size_t count);
int plumb_sha256_has_shani(void);
void plumb_sha256_blocks_shani(uint32_t state[8], const uint8_t *blocks,
                               size_t count);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_SHA256_H
