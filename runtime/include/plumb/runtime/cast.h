//===- runtime/include/plumb/runtime/cast.h - Cast between dtypes -*- C++ -*-===//
//
// Part of Plumb. ONNX Cast among float32, int64, int32 and bool (uint8 0/1).
// Exact semantics (identical on host and CUDA):
//  * f32 -> f32: copy, NaN canonicalised.
//  * f32 -> int64/int32: truncation toward zero. NaN -> 0. Values whose
//    truncation is outside the target range saturate to INT_MIN / INT_MAX
//    (so +inf -> MAX, -inf -> MIN).
//  * f32 -> bool: x != 0 (NaN -> 1, +-0 -> 0).
//  * int64/int32 -> f32: round-to-nearest-even of the exact integer.
//  * int64 -> int32: keeps the low 32 bits (two's complement wraparound).
//  * int32 -> int64: sign extension.
//  * int -> bool: x != 0.   bool -> anything: nonzero byte -> 1 / 1.0f, else 0.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_CAST_H
#define PLUMB_RUNTIME_CAST_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

/// Element type codes used by Cast and by the dtype-generic kernels.
enum plumb_rt_dtype {
  PLUMB_RT_F32 = 1,
  PLUMB_RT_I64 = 2,
  PLUMB_RT_I32 = 3,
  PLUMB_RT_BOOL = 4,
};

#ifdef __cplusplus
namespace plumb {
namespace rt {
namespace ops {

/// f32 -> int64 (truncate; NaN -> 0; saturate).
PLUMB_INLINE int64_t castF32ToI64(float x) {
  if (x != x)
    return 0;
  if (x >= 9223372036854775808.0f) // 2^63
    return INT64_MAX;
  if (x < -9223372036854775808.0f)
    return INT64_MIN;
  return (int64_t)x; // |x| < 2^63 or x == -2^63: exact truncation
}

/// f32 -> int32 (truncate; NaN -> 0; saturate).
PLUMB_INLINE int32_t castF32ToI32(float x) {
  if (x != x)
    return 0;
  if (x >= 2147483648.0f) // 2^31
    return INT32_MAX;
  if (x < -2147483648.0f)
    return INT32_MIN;
  return (int32_t)x;
}

PLUMB_INLINE float castI64ToF32(int64_t v) {
#if defined(__CUDA_ARCH__)
  return __ll2float_rn(v);
#else
  return (float)v; // round-to-nearest-even under the default rounding mode
#endif
}

PLUMB_INLINE float castI32ToF32(int32_t v) {
#if defined(__CUDA_ARCH__)
  return __int2float_rn(v);
#else
  return (float)v;
#endif
}

} // namespace ops
} // namespace rt
} // namespace plumb
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Converts n elements from type `from` at x to type `to` at y (plumb_rt_dtype
/// codes). x and y must not overlap unless from == to. Returns PLUMB_RT_OK or
/// PLUMB_RT_EINVAL for an unknown type code.
int plumb_rt_cast(const void *x, int32_t from, void *y, int32_t to, int64_t n);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_CAST_H
