//===- runtime/include/plumb/runtime/tensor_hash.h - Canonical tensor hash -*- C++ -*-===//
//
// Part of Plumb. The one definition of a tensor's identity in traces and
// output reports, shared by the interpreter and compiled programs:
//
//   SHA-256( "plumb-tensor-v1" || dtype (u8: 1 f32, 2 i64, 3 i32, 4 bool)
//            || rank (u8) || each dim (u64 little-endian)
//            || elements, little-endian, NaN as 0x7FC00000, bool as 0/1 )
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_TENSOR_HASH_H
#define PLUMB_RUNTIME_TENSOR_HASH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Hashes a dense row-major tensor (dtype codes as in cast.h).
void plumb_rt_tensor_hash(int32_t dtype, int32_t rank, const int64_t *shape,
                          const void *data, uint8_t digest[32]);

/// The same hash for a tensor whose elements all equal the one element at
/// `element` (a splat), without materialising it.
void plumb_rt_tensor_hash_splat(int32_t dtype, int32_t rank,
                                const int64_t *shape, const void *element,
                                uint8_t digest[32]);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_TENSOR_HASH_H
