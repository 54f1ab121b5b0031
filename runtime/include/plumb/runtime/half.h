//===- runtime/include/plumb/runtime/half.h - float16 / bfloat16 -*- C++ -*-===//
//
// Part of Plumb. Conversions between float32 and the 2-byte float types,
// on the integer bits only (no hardware conversion, so no FTZ mode or
// rounding mode can change them), for host and CUDA alike
// (docs/determinism.md, "Half precision"):
//  * f16 / bf16 bits -> f32: exact widening; a NaN gives the canonical NaN.
//  * f32 -> f16 bits: round to nearest even, subnormals kept (multiples of
//    2^-24), |x| >= 65520 -> +-inf, NaN -> 0x7E00 (canonical).
//  * f32 -> bf16 bits: the low 16 bits rounded off to nearest even (carrying
//    into the exponent; past the largest finite value -> +-inf),
//    NaN -> 0x7FC0 (canonical).
//  * roundToF16 / roundToBf16: the f32 holding the rounded value.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_HALF_H
#define PLUMB_RUNTIME_HALF_H

#include "plumb/runtime/config.h"

#include <stdint.h>

#ifdef __cplusplus
namespace plumb {
namespace rt {
namespace half {

PLUMB_INLINE uint32_t f32Bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  __builtin_memcpy(&u, &f, sizeof(u));
  return u;
#endif
}

PLUMB_INLINE float f32FromBits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  __builtin_memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

/// The float32 bits of float16 `h` (exact).
PLUMB_INLINE uint32_t f16ToF32Bits(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  if (exp == 0x1Fu)
    return man ? 0x7FC00000u : (sign | 0x7F800000u);
  if (exp != 0)
    return sign | ((exp + 112u) << 23) | (man << 13);
  if (man == 0)
    return sign;
  // Subnormal: man * 2^-24. Normalise: the leading one moves to bit 10.
  uint32_t e = 113u; // biased float32 exponent of 2^-14
  while (!(man & 0x400u)) {
    man <<= 1;
    --e;
  }
  return sign | (e << 23) | ((man & 0x3FFu) << 13);
}

/// The float32 bits of bfloat16 `h` (exact).
PLUMB_INLINE uint32_t bf16ToF32Bits(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  return (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : u;
}

/// float32 bits -> float16 bits, round to nearest even.
PLUMB_INLINE uint16_t f32BitsToF16(uint32_t u) {
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u)
    return 0x7E00u;
  if (a >= 0x477FF000u) // 65520: half-way between 65504 and 2^16
    return uint16_t(sign | 0x7C00u);
  if (a >= 0x38800000u) { // 2^-14, the smallest normal float16
    // Drop 13 fraction bits, ties to even; a carry moves into the exponent.
    uint32_t r = a + 0xFFFu + ((a >> 13) & 1u);
    return uint16_t(sign | (((r >> 13) - (112u << 10)) & 0x7FFFu));
  }
  // Subnormal (or zero) result: q = round(|x| / 2^-24), at most 1024
  // (1024 is 2^-14, the smallest normal, whose bits are the same sum).
  uint32_t e = a >> 23;
  if (e < 102u) // |x| < 2^-25: rounds to zero (2^-25 itself is a tie to 0)
    return uint16_t(sign);
  uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
  uint32_t s = 126u - e; // 14 .. 24
  uint32_t q = m >> s;
  uint32_t rem = m & ((1u << s) - 1u);
  uint32_t halfway = 1u << (s - 1u);
  if (rem > halfway || (rem == halfway && (q & 1u)))
    ++q;
  return uint16_t(sign | q);
}

/// float32 bits -> bfloat16 bits, round to nearest even.
PLUMB_INLINE uint16_t f32BitsToBf16(uint32_t u) {
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return 0x7FC0u;
  uint32_t r = u + 0x7FFFu + ((u >> 16) & 1u);
  return uint16_t(r >> 16);
}

PLUMB_INLINE float roundToF16(float x) {
  return f32FromBits(f16ToF32Bits(f32BitsToF16(f32Bits(x))));
}

PLUMB_INLINE float roundToBf16(float x) {
  return f32FromBits(bf16ToF32Bits(f32BitsToBf16(f32Bits(x))));
}

} // namespace half
} // namespace rt
} // namespace plumb
#endif

#endif // PLUMB_RUNTIME_HALF_H
