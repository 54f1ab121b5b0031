//===- runtime/src/cast.cpp - Cast kernel --------------------*- C++ -*-===//
//
// Part of Plumb. Host Cast among f32/i64/i32/bool; semantics in cast.h.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/cast.h"
#include "plumb/runtime/elementwise.h"

#include "ops_internal.h"

using namespace plumb::rt::ops;

namespace {

template <typename From, typename To, typename Fn>
int castLoop(const void *x, void *y, int64_t n, Fn fn) {
  const From *px = static_cast<const From *>(x);
  To *py = static_cast<To *>(y);
  parallelRange(n, 1 << 15, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      py[i] = fn(px[i]);
  });
  return PLUMB_RT_OK;
}


/// castF32ToI32 written as selects (no branch, no out-of-range conversion),
/// so the loop vectorises: the same value for every input.
__attribute__((always_inline)) inline int32_t castF32ToI32Select(float x) {
  float c = x != x ? 0.0f : x;
  c = c < -2147483648.0f ? -2147483648.0f : c;
  const bool high = c >= 2147483648.0f;
  const int32_t r = (int32_t)(high ? 0.0f : c);
  return high ? INT32_MAX : r;
}

__attribute__((always_inline)) inline void castF32I32Loop(const float *x,
                                                          int32_t *y,
                                                          int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = castF32ToI32Select(x[i]);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) void castF32I32Avx512(const float *x,
                                                         int32_t *y,
                                                         int64_t n) {
  castF32I32Loop(x, y, n);
}
#endif
void castF32I32Base(const float *x, int32_t *y, int64_t n) {
  castF32I32Loop(x, y, n);
}

int castF32ToI32Range(const void *x, void *y, int64_t n) {
  const float *px = static_cast<const float *>(x);
  int32_t *py = static_cast<int32_t *>(y);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool has512 = __builtin_cpu_supports("avx512f");
  void (*fn)(const float *, int32_t *, int64_t) =
      has512 ? castF32I32Avx512 : castF32I32Base;
#else
  void (*fn)(const float *, int32_t *, int64_t) = castF32I32Base;
#endif
  parallelRange(n, 1 << 15, [&](int64_t lo, int64_t hi) {
    fn(px + lo, py + lo, hi - lo);
  });
  return PLUMB_RT_OK;
}

} // namespace

extern "C" int plumb_rt_cast(const void *x, int32_t from, void *y, int32_t to,
                             int64_t n) {
  if (n < 0 || (n > 0 && (!x || !y)))
    return PLUMB_RT_EINVAL;
  switch (from) {
  case PLUMB_RT_F32:
    switch (to) {
    case PLUMB_RT_F32:
      return castLoop<float, float>(x, y, n, [](float v) { return canon(v); });
    case PLUMB_RT_I64:
      return castLoop<float, int64_t>(x, y, n, castF32ToI64);
    case PLUMB_RT_I32:
      return castF32ToI32Range(x, y, n);
    case PLUMB_RT_BOOL:
      return castLoop<float, uint8_t>(x, y, n,
                                      [](float v) -> uint8_t { return v != 0.0f; });
    }
    break;
  case PLUMB_RT_I64:
    switch (to) {
    case PLUMB_RT_F32:
      return castLoop<int64_t, float>(x, y, n, castI64ToF32);
    case PLUMB_RT_I64:
      return castLoop<int64_t, int64_t>(x, y, n, [](int64_t v) { return v; });
    case PLUMB_RT_I32:
      return castLoop<int64_t, int32_t>(
          x, y, n, [](int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; });
    case PLUMB_RT_BOOL:
      return castLoop<int64_t, uint8_t>(
          x, y, n, [](int64_t v) -> uint8_t { return v != 0; });
    }
    break;
  case PLUMB_RT_I32:
    switch (to) {
    case PLUMB_RT_F32:
      return castLoop<int32_t, float>(x, y, n, castI32ToF32);
    case PLUMB_RT_I64:
      return castLoop<int32_t, int64_t>(x, y, n,
                                        [](int32_t v) { return (int64_t)v; });
    case PLUMB_RT_I32:
      return castLoop<int32_t, int32_t>(x, y, n, [](int32_t v) { return v; });
    case PLUMB_RT_BOOL:
      return castLoop<int32_t, uint8_t>(
          x, y, n, [](int32_t v) -> uint8_t { return v != 0; });
    }
    break;
  case PLUMB_RT_BOOL:
    switch (to) {
    case PLUMB_RT_F32:
      return castLoop<uint8_t, float>(
          x, y, n, [](uint8_t v) { return v ? 1.0f : 0.0f; });
    case PLUMB_RT_I64:
      return castLoop<uint8_t, int64_t>(
          x, y, n, [](uint8_t v) -> int64_t { return v ? 1 : 0; });
    case PLUMB_RT_I32:
      return castLoop<uint8_t, int32_t>(
          x, y, n, [](uint8_t v) -> int32_t { return v ? 1 : 0; });
    case PLUMB_RT_BOOL:
      return castLoop<uint8_t, uint8_t>(
          x, y, n, [](uint8_t v) -> uint8_t { return v != 0; });
    }
    break;
  }
  return PLUMB_RT_EINVAL;
}
